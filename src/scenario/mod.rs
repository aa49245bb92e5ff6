//! Scenario files: strict TOML naming a system, a battle and run settings.
//!
//! The `system` key picks the parser; each system's file layout rejects
//! unknown keys. Relative paths inside a scenario resolve against the
//! scenario file's folder.
//!
//! The layer above the systems: a scenario names one, so reading it, the
//! bundled battles and the schemas of every file sit here.

pub mod bundled;
pub mod ground;
pub mod resolved;
pub mod schema;
pub mod tuned;

pub use resolved::Resolved;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use crate::engine::MAX_TRIALS;
use crate::systems::{Battle, SYSTEMS};
use crate::tables::validate::{check_range, toml_error};
use crate::tables::{TableFiles, sha256_hex};

/// Battles run when a scenario gives no `trials`.
pub const DEFAULT_TRIALS: u64 = 1_000_000;
/// Seed used when a scenario gives no `seed`.
pub const DEFAULT_SEED: u64 = 1;

/// A validated scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it was read from.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// The file's text, as read (before any command-line edit).
    pub text: String,
    /// The battle's display name.
    pub name: String,
    /// Battles to run.
    pub trials: u64,
    /// Seed of the random streams.
    pub seed: u64,
    /// The system and its battle.
    pub battle: Battle,
}

impl Scenario {
    /// Fights `trials` battles on `seed` instead of the file's (each kept
    /// when `None`): a question's `--trials` and `--seed`.
    pub fn override_settings(&mut self, trials: Option<u64>, seed: Option<u64>) -> Result<()> {
        if let Some(trials) = trials {
            check_range("--trials", "trials", trials, 1..=MAX_TRIALS)?;
            self.trials = trials;
        }
        if let Some(seed) = seed {
            self.seed = seed;
        }
        Ok(())
    }
}

/// Reads, parses and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario> {
    load_text(path, &read_text(path)?)
}

/// A `--table name=file` override: the table name and the file's absolute path.
pub fn parse_table_override(text: &str) -> Result<(String, String)> {
    let (name, file) = text
        .split_once('=')
        .ok_or_else(|| anyhow!("--table {text}: expected NAME=FILE, e.g. cards=my_deck.toml"))?;
    let file = file.trim();
    if file == crate::tables::BUILT_IN {
        return Ok((name.trim().to_owned(), file.to_owned()));
    }
    let path = std::path::absolute(file)
        .with_context(|| format!("--table {text}: cannot resolve {file}"))?;
    Ok((name.trim().to_owned(), path.display().to_string()))
}

/// Sets `[tables]` entries in a scenario document (creating the section).
/// A table whose cells the document sets (`[tables.NAME] set = {…}`, by
/// the file or by a sweep's or sensitivity's move) keeps them: only its
/// `file` is swapped, as `sweep --set tables.NAME=FILE` swaps it.
pub fn override_tables(doc: &mut toml::Table, overrides: &[(String, String)]) -> Result<()> {
    if overrides.is_empty() {
        return Ok(());
    }
    let tables = doc
        .entry("tables")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(tables) = tables else {
        bail!("`tables` in the scenario is not a section");
    };
    for (name, file) in overrides {
        let file = toml::Value::String(file.clone());
        match tables.get_mut(name) {
            Some(toml::Value::Table(edited)) => {
                edited.insert("file".to_owned(), file);
            }
            _ => {
                tables.insert(name.clone(), file);
            }
        }
    }
    Ok(())
}

/// A change a command-line option makes to a scenario before it is
/// validated; errors it causes name the option, not a line of the file.
pub struct Edit<'a> {
    /// The option as the user gave it (`--set heroes.Bryn.risk=-8..0 (value -8)`).
    pub option: String,
    /// Applies the change to the scenario document.
    pub apply: Box<EditFn<'a>>,
}

/// What an [`Edit`] does to a scenario document.
pub type EditFn<'a> = dyn Fn(&mut toml::Table) -> Result<()> + 'a;

impl<'a> Edit<'a> {
    /// `--table NAME=FILE`.
    pub fn table((name, file): &(String, String)) -> Edit<'a> {
        let pair = [(name.clone(), file.clone())];
        Edit {
            option: format!("--table {name}={file}"),
            apply: Box::new(move |doc| override_tables(doc, &pair)),
        }
    }

    /// `option`: the key at `path` (entries of a list by their name) set
    /// to `value`.
    pub fn set(option: String, path: Vec<String>, value: toml::Value) -> Edit<'a> {
        Edit {
            option,
            apply: Box::new(move |doc| crate::questions::sweep::apply(doc, &path, value.clone())),
        }
    }
}

/// Loads scenario `text` (read from `path`) with `edits` applied. If the
/// result does not validate, the error blames the first option after which
/// it stops validating, by that option's name and value, or the file itself
/// (with its line) when the file alone does not validate. The recorded hash
/// is the file's own.
pub fn load_edited(path: &Path, text: &str, edits: &[Edit]) -> Result<Scenario> {
    load_edited_reading(path, text, edits, &TableFiles::beside(path))
}

/// [`load_edited`], reading table files through `files`.
pub fn load_edited_reading(
    path: &Path,
    text: &str,
    edits: &[Edit],
    files: &TableFiles,
) -> Result<Scenario> {
    if edits.is_empty() {
        return load_as(path, text, &path.display().to_string(), true, files);
    }
    let origin = path.display().to_string();
    let doc: toml::Table = toml::from_str(text).map_err(|e| toml_error(&origin, e))?;
    let edited = |n: usize| -> Result<String> {
        let mut d = doc.clone();
        for e in &edits[..n] {
            (e.apply)(&mut d).map_err(|err| anyhow!("{}: {err:#}", e.option))?;
        }
        toml::to_string(&d).map_err(|e| anyhow!("{origin}: {e}"))
    };
    let all = edited(edits.len())?;
    let origins: Vec<&str> = edits.iter().map(|e| e.option.as_str()).collect();
    match load_as(path, &all, &origins.join(", "), false, files) {
        Ok(mut s) => {
            s.sha256 = sha256_hex(text.as_bytes());
            s.text = text.to_owned();
            Ok(s)
        }
        Err(error) => {
            // The file's own error, located in the file, comes first.
            load_as(path, text, &origin, true, files)?;
            for n in 1..=edits.len() {
                load_as(path, &edited(n)?, &edits[n - 1].option, false, files)?;
            }
            Err(error)
        }
    }
}
/// Reads a scenario file as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String> {
    crate::tables::input_file::read_text(path)
        .map_err(|e| anyhow!("cannot read scenario file {}: {e}", path.display()))
}

/// Parses and validates scenario text as if read from `path` (which names
/// it in messages and anchors relative table paths).
pub fn load_text(path: &Path, text: &str) -> Result<Scenario> {
    load_as(
        path,
        text,
        &path.display().to_string(),
        true,
        &TableFiles::beside(path),
    )
}

/// [`load_text`], naming `origin` in messages and reading table files
/// through `files`; `locate` adds the line of the key at fault (only true
/// when `text` is the file as the user wrote it).
fn load_as(
    path: &Path,
    text: &str,
    origin: &str,
    locate: bool,
    files: &TableFiles,
) -> Result<Scenario> {
    let at = |e: anyhow::Error| {
        if locate {
            with_location(e, text)
        } else {
            without_generated_lines(e, origin)
        }
    };
    let origin = origin.to_owned();
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_error(&origin, e))?;
    if let Some((key, length)) = too_long_name(&table, "") {
        return Err(at(anyhow!(
            "{origin}: `{key}` is {length} characters long; allowed: 1 to {MAX_NAME} (a name is shown in titles, charts and file names)"
        )));
    }
    let system = match table.get("system") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(at(anyhow!(
                "{origin}: `system` must be a string; allowed: {}; found {other}",
                quoted(SYSTEMS)
            )));
        }
        None => bail!(
            "{origin}: missing key `system`; allowed: {}",
            quoted(SYSTEMS)
        ),
    };
    let Some(parsed) = Battle::parse(&system, text, &origin, files) else {
        return Err(at(anyhow!(
            "{origin}: `system` = \"{system}\" is not a known system; allowed: {}",
            quoted(SYSTEMS)
        )));
    };
    let (header, battle) = parsed.map_err(at)?;
    let check_trials =
        |t: i64| check_range(&origin, "trials", t, 1..=MAX_TRIALS as i64).map_err(at);
    if header.name.trim().is_empty() {
        return Err(at(anyhow!(
            "{origin}: `name` is empty; give the battle a name"
        )));
    }
    let trials = match header.trials {
        None => DEFAULT_TRIALS,
        Some(t) => {
            check_trials(t)?;
            t as u64
        }
    };
    Ok(Scenario {
        path: path.to_path_buf(),
        sha256: sha256_hex(text.as_bytes()),
        text: text.to_owned(),
        name: header.name,
        trials,
        seed: header.seed.unwrap_or(DEFAULT_SEED),
        battle,
    })
}

/// A parse error in a document warcrunch generated (the scenario with
/// options applied, named `origin`) without the generated lines it quotes:
/// the user never saw them; the message names the option and the allowed
/// keys. An error in a file the user wrote (a table) keeps its lines.
fn without_generated_lines(error: anyhow::Error, origin: &str) -> anyhow::Error {
    let message = format!("{error:#}");
    let Some((before, quoted)) = message.split_once("TOML parse error at line ") else {
        return error;
    };
    if !before.ends_with(&format!("{origin}: ")) {
        return error;
    }
    let rest: Vec<&str> = quoted
        .lines()
        .skip(1)
        .skip_while(|line| {
            line.trim_start()
                .starts_with(|c: char| c == '|' || c.is_ascii_digit())
        })
        .collect();
    anyhow!("{before}{}", rest.join("\n").trim_end())
}

/// Prefixes a validation message that names a key (`` `attacker.hits` =
/// -1 ``) with the key's position, `file:line:column:`, when it has none yet.
pub fn with_location(error: anyhow::Error, text: &str) -> anyhow::Error {
    let message = format!("{error:#}");
    if message.contains("line ") || message.lines().count() > 1 {
        return error;
    }
    let Some((before, rest)) = message.split_once('`') else {
        return error;
    };
    let Some((key, after)) = rest.split_once('`') else {
        return error;
    };
    match locate(text, key) {
        Some((line, column)) => {
            let file = before.trim_end().trim_end_matches(':');
            anyhow!("{file}:{line}:{column}: `{key}`{after}")
        }
        None => error,
    }
}

/// Line and column (1-based) of a dotted key such as `attacker.hits`,
/// `sides[1].strategy` or `heroes[0].risk (Titus)` in scenario text.
pub fn locate(text: &str, key: &str) -> Option<(usize, usize)> {
    let key = key.split(" (").next()?.trim();
    let mut parts: Vec<&str> = key.split('.').collect();
    let field = parts.pop()?;
    // The section is the first part; an inline table is matched by its key.
    let (section, index, field) = match parts.first() {
        None => (None, 0, field),
        Some(first) => {
            let (name, index) = match first.split_once('[') {
                Some((n, i)) => (n, i.trim_end_matches(']').parse::<usize>().ok()?),
                None => (*first, 0),
            };
            (Some(name), index, parts.get(1).copied().unwrap_or(field))
        }
    };
    let mut current: Option<(String, usize)> = None;
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(header) = trimmed.strip_prefix("[[") {
            let name = header.split("]]").next()?.trim().to_owned();
            let count = seen.entry(name.clone()).or_insert(0);
            current = Some((name, *count));
            *count += 1;
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[') {
            current = Some((header.split(']').next()?.trim().to_owned(), 0));
            continue;
        }
        let in_place = match (section, &current) {
            (None, None) => true,
            (Some(s), Some((name, i))) => s == name && *i == index,
            _ => false,
        };
        if in_place
            && let Some((k, _)) = trimmed.split_once('=')
            && k.trim() == field
        {
            return Some((n + 1, line.len() - trimmed.len() + 1));
        }
    }
    None
}

/// The most characters a name (the battle's, a side's, a unit's, a
/// hero's: any `name` or `label`) may have.
pub const MAX_NAME: usize = 120;

/// The first `name` or `label` longer than [`MAX_NAME`] characters, as a
/// dotted key (`heroes[1].name`), with its length.
fn too_long_name(table: &toml::Table, at: &str) -> Option<(String, usize)> {
    let key = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    for (k, v) in table {
        match v {
            toml::Value::String(text) if k == "name" || k == "label" => {
                let length = text.chars().count();
                if length > MAX_NAME {
                    return Some((key(k), length));
                }
            }
            toml::Value::Table(inner) => {
                if let Some(found) = too_long_name(inner, &key(k)) {
                    return Some(found);
                }
            }
            toml::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let toml::Value::Table(inner) = item
                        && let Some(found) = too_long_name(inner, &format!("{}[{i}]", key(k)))
                    {
                        return Some(found);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn quoted(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "system = \"x\"\ntrials = 0\n[attacker]\nname = \"A\"\nhits = -1\n[[heroes]]\nrisk = 1\n[[heroes]]\n  risk = 9\n";

    #[test]
    fn keys_are_located_in_sections_and_arrays() {
        assert_eq!(locate(TEXT, "trials"), Some((2, 1)));
        assert_eq!(locate(TEXT, "attacker.hits"), Some((5, 1)));
        assert_eq!(locate(TEXT, "heroes[1].risk (Titus)"), Some((9, 3)));
        assert_eq!(locate(TEXT, "defender.hits"), None);
    }

    #[test]
    fn validation_messages_gain_a_position() {
        let e = with_location(
            anyhow!("f.toml: `attacker.hits` = -1 is out of range; allowed: 0 to 100"),
            TEXT,
        );
        assert_eq!(
            e.to_string(),
            "f.toml:5:1: `attacker.hits` = -1 is out of range; allowed: 0 to 100"
        );
    }
}
