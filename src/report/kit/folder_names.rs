//! Where a run or question writes when no `--out` says: `reports/` and
//! the scenario's file stem, then the command and what it asks, so two
//! different questions never share a folder.

use std::path::{Path, PathBuf};

use crate::engine::Shard;

/// Where a command writes: `out`, or `default` (with `.shard-I-of-N` for a shard).
pub fn output_dir(out: Option<&Path>, default: PathBuf, shard: Shard) -> PathBuf {
    match out {
        Some(out) => out.to_path_buf(),
        None if shard == Shard::WHOLE => default,
        None => PathBuf::from(format!(
            "{}.shard-{}-of-{}",
            default.display(),
            shard.index,
            shard.count
        )),
    }
}

/// `reports/<scenario file stem>`, a stem longer than [`MAX_STEM`] cut
/// and ended in a digest of the whole.
pub fn default_out_dir(scenario: &Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    PathBuf::from("reports").join(cut_to(stem, MAX_STEM))
}

/// The longest stem of a default folder name: with a question's
/// [`MAX_QUESTION_NAME`], a command, a shard's suffix and the staging
/// folder's, every default name stays within a file name's 255 bytes.
const MAX_STEM: usize = 80;

/// `name` if at most `most` bytes long, else cut to fit with `-` and the
/// first 8 hex digits of its digest, so that cut names stay apart.
fn cut_to(name: String, most: usize) -> String {
    if name.len() <= most {
        return name;
    }
    let digest = crate::tables::sha256_hex(name.as_bytes());
    let mut cut = most - 9;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &name[..cut], &digest[..8])
}

/// The default folder of a question about `scenario`:
/// `reports/<stem>.<command>.<what it asks>` (the swept or varied paths, the
/// target), so that two different questions never share a folder and the
/// same question asked again replaces its own.
pub fn question_out_dir(scenario: &Path, command: &str, question: &[String]) -> PathBuf {
    let words: Vec<String> = question.iter().map(|w| slug(w)).collect();
    let asked = cut_to(words.join("+"), MAX_QUESTION_NAME);
    let base = default_out_dir(scenario);
    let stem = base.file_name().map(|s| s.to_string_lossy().into_owned());
    base.with_file_name(format!("{}.{command}.{asked}", stem.unwrap_or_default()))
}

/// The longest question part of a default folder name; longer ones are cut
/// and end in a digest of the whole, so they stay apart.
const MAX_QUESTION_NAME: usize = 96;

/// A path or target as a folder-name word: letters, digits, `.`, `-` and `_`
/// kept, every run of anything else one `_`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || matches!(c, '.' | '-') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}
