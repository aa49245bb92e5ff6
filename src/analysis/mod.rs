//! The questions warcrunch answers, as library calls: each takes a request
//! (what is asked), a [`Plan`](crate::analysis::runner::Plan) (how to simulate) and a
//! [`Destination`] (where its files go), and returns what it found and
//! wrote. `commands/` maps the command line to these requests and prints
//! the answers; `serve/` maps the page's JSON to the same requests.

pub mod batch;
pub mod cell_shares;
pub mod compare;
pub mod run;
pub mod runner;
pub mod sensitivity;
pub mod solve;
pub mod sweep;
pub mod table_compare;
pub mod tune;

use std::path::{Path, PathBuf};

use crate::engine::Shard;

use crate::report::Formats;

/// Where an answer's files go.
#[derive(Debug, Clone, Default)]
pub struct Destination {
    /// The output folder; `None` for the question's default folder.
    pub out: Option<PathBuf>,
    /// Replace a folder warcrunch did not write.
    pub force: bool,
    /// Which tabular files to write.
    pub formats: Formats,
    /// The folder a record's reproduce line names when the files are
    /// written through another (a batch's staging folder); `None`: the
    /// folder written.
    pub named_out: Option<PathBuf>,
    /// A folder of inputs whose files the record names by file name alone:
    /// the server's copy of a posted question, written beside its answer.
    pub inputs: Option<PathBuf>,
    /// Write a sweep's files even when they come to more than
    /// [`LARGE_OUTPUT_BYTES`] (`--yes`; the server's caps bound its own).
    pub large_output: bool,
}

/// Files a question writes beyond which it asks for `--yes` first.
pub const LARGE_OUTPUT_BYTES: u64 = 100 << 20;

impl Destination {
    /// The folder a reproduce line names for files written to `written`:
    /// none for a shard (its parts are merged elsewhere, and every part
    /// records the same command).
    pub fn named<'a>(&'a self, written: &'a Path, shard: Shard) -> Option<&'a Path> {
        (shard == Shard::WHOLE).then(|| self.named_out.as_deref().unwrap_or(written))
    }
}

/// A scenario's name in a question over several: its file's stem.
pub fn scenario_name(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// A scenario's folder name among others: its stem, numbered
/// (`stem#2`) when one of `taken` has it.
pub fn unique_name(path: &Path, taken: &[String]) -> String {
    let stem = scenario_name(path);
    let free = |n: &str| !taken.iter().any(|t| t == n);
    if free(&stem) {
        return stem;
    }
    (2..)
        .map(|i| format!("{stem}#{i}"))
        .find(|n| free(n))
        .expect("a free name")
}
