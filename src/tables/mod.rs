//! The built-in rule tables, embedded from `scenarios/tables/`, and the
//! record of which table a run used.
//!
//! The layer below the systems: the tables and what reading them takes
//! (files read safely, dotted paths, ranges, validation messages, the cells
//! a battle reads). A system imports it; it imports no system.

pub mod cells;
pub mod diff;
pub mod embedded;
pub mod files;
pub mod input_file;
pub mod orders;
pub mod ranges;
pub mod stand_ins;
pub mod toml_path;
pub mod validate;

use std::collections::BTreeMap;

use anyhow::{Result, anyhow, bail};

pub use files::TableFiles;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

/// A built-in table: its name, the file it exports to and its text, as
/// found in `scenarios/tables/` ([`crate::tables::embedded::TABLES`]);
/// the registry lists them in each system's order.
#[derive(Debug, Clone, Copy)]
pub struct BuiltIn {
    /// Name used in scenarios (`[tables] cards = ...`).
    pub name: &'static str,
    /// The system it belongs to.
    pub system: &'static str,
    /// File name under `scenarios/tables/`.
    pub file: &'static str,
    /// The TOML text.
    pub text: &'static str,
}

/// The built-in table of kind `name`, if there is one.
pub fn built_in(name: &str) -> Option<BuiltIn> {
    crate::tables::embedded::TABLES
        .iter()
        .find(|(kind, ..)| *kind == name)
        .map(|&(name, system, file, text)| BuiltIn {
            name,
            system,
            file,
            text,
        })
}

/// The text of the built-in table of kind `name` (a system asks for its
/// own tables, which `build.rs` found).
pub fn built_in_text(name: &str) -> &'static str {
    built_in(name)
        .unwrap_or_else(|| panic!("scenarios/tables/ holds no table of kind `{name}`"))
        .text
}

/// Which table a run used, for provenance in every report.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct TableUse {
    /// Table name (`cards`).
    pub name: String,
    /// `built-in` or the path of the file loaded.
    pub source: String,
    /// SHA-256 of the table text.
    pub sha256: String,
    /// Settings in the table that are stand-ins for unknown published values.
    pub stand_ins: Vec<String>,
    /// The table's text as the run used it, unless it is the built-in table
    /// unchanged: with the scenario's text, what reruns the run from its
    /// `run.json` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The tables one metric of a battle can depend on (names as
/// [`TableUse::name`]), as its system says: what a row of the reports
/// names as the stand-ins it rests on.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct RestsOn {
    /// The metric's subject: `hero:Titus`.
    pub subject: String,
    /// The metric: `state`.
    pub metric: String,
    /// The tables, in the battle's order.
    pub tables: Vec<String>,
}

/// `more` joined into `rests_on`: each metric rests on the tables either
/// lists (a sweep's variants may read their tables differently).
pub fn join_rests_on(rests_on: &mut Vec<RestsOn>, more: Vec<RestsOn>) {
    for m in more {
        match rests_on
            .iter_mut()
            .find(|r| r.subject == m.subject && r.metric == m.metric)
        {
            Some(r) => {
                let new: Vec<String> = (m.tables.into_iter())
                    .filter(|t| !r.tables.contains(t))
                    .collect();
                r.tables.extend(new);
            }
            None => rests_on.push(m),
        }
    }
}

/// The stand-in tables (those of `tables` holding a stand-in value) that
/// metric `metric` of `subject` rests on by `rests_on`. A metric it does
/// not list (a `run.json` older than the record, a target's view named
/// `state=down|dead`) rests on the tables of the metric it views, else on
/// every table: never fewer than it may.
pub fn stand_in_tables(
    tables: &[TableUse],
    rests_on: &[RestsOn],
    subject: &str,
    metric: &str,
) -> Vec<String> {
    let viewed = metric.split(['=', ':']).next().unwrap_or(metric);
    let listed = [metric, viewed].into_iter().find_map(|name| {
        rests_on
            .iter()
            .find(|r| r.subject == subject && r.metric == name)
    });
    tables
        .iter()
        .filter(|t| !t.stand_ins.is_empty())
        .filter(|t| listed.is_none_or(|r| r.tables.contains(&t.name)))
        .map(|t| t.name.clone())
        .collect()
}

impl TableUse {
    /// The use of a table `name` read from `source` (as [`load_text`] or
    /// [`origin`] gives it) as `text`.
    pub fn new(name: &str, source: String, text: &str, stand_ins: Vec<String>) -> TableUse {
        let built_in = source.starts_with("built-in") && !source.contains(WITH_CELLS);
        TableUse {
            name: name.to_owned(),
            sha256: sha256_hex(text.as_bytes()),
            text: (!built_in).then(|| text.to_owned()),
            source,
            stand_ins,
        }
    }
}

/// SHA-256 of a text, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a scenario takes a table from: `NAME = "file.toml"`, or
/// `[tables.NAME]` with `file` (a file, or `builtin`, the default) and
/// `set`, cells changed by their path in the table
/// (`set = { "rows.C.column" = "D" }`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TableSource {
    /// A table file, relative to the scenario.
    File(String),
    /// A table with some of its cells set.
    Edited(EditedTable),
}

/// A table with some of its cells set.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EditedTable {
    /// The table whose cells are set: a file relative to the scenario, or
    /// `builtin` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Each cell's path in the table (`rows.C.column`) and its value.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
}

impl<'de> Deserialize<'de> for TableSource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match toml::Value::deserialize(deserializer)? {
            toml::Value::String(file) => Ok(TableSource::File(file)),
            toml::Value::Table(t) => toml::Value::Table(t)
                .try_into()
                .map(TableSource::Edited)
                .map_err(|e| D::Error::custom(e.to_string().trim())),
            other => Err(D::Error::custom(format!(
                "a table is a file path, or {{ file = \"…\", set = {{ \"rows.C.column\" = \"D\" }} }}; found {other}"
            ))),
        }
    }
}

/// The value that names the shipped table, where a file could be named.
pub const BUILT_IN: &str = "builtin";

/// What an origin says after the file when cells were set in it: the text
/// read is then written anew, so its line numbers are not the file's.
pub const WITH_CELLS: &str = ", with ";

/// A table's text: the built-in one, the file `source` names (read through
/// `files`), or either with cells set. Returns
/// the text and where it came from: `built-in`, the file's path, each
/// followed by the cells set (`built-in, with rows.C.column = "D"`).
pub fn load_text(
    builtin: &'static str,
    source: Option<&TableSource>,
    files: &TableFiles,
) -> Result<(String, String)> {
    let read = |file: Option<&str>| -> Result<(String, String)> {
        match file {
            None | Some(BUILT_IN) => Ok((builtin.to_owned(), "built-in".to_owned())),
            Some(p) => files.text(p),
        }
    };
    match source {
        None => read(None),
        Some(TableSource::File(file)) => read(Some(file)),
        Some(TableSource::Edited(edited)) => {
            let (text, origin) = read(edited.file.as_deref())?;
            if edited.set.is_empty() {
                return Ok((text, origin));
            }
            let mut table: toml::Table = text
                .parse()
                .map_err(|e: toml::de::Error| crate::tables::validate::toml_error(&origin, e))?;
            for (path, value) in &edited.set {
                let parts: Vec<String> = path.split('.').map(str::to_owned).collect();
                toml_path::set(&mut table, &parts, value.clone()).map_err(|e| {
                    let table = if origin == "built-in" {
                        "the built-in table"
                    } else {
                        &origin
                    };
                    anyhow!("{table}, cell {path}: {e:#}")
                })?;
            }
            let cells: Vec<String> = edited
                .set
                .iter()
                .map(|(path, value)| format!("{path} = {value}"))
                .collect();
            let text = toml::to_string(&table).map_err(|e| anyhow!("{origin}: {e}"))?;
            Ok((text, format!("{origin}{WITH_CELLS}{}", cells.join(", "))))
        }
    }
}

/// Where a table came from, for messages and provenance: a built-in
/// table's file under `scenarios/tables/` (`file`), else `source` as
/// [`load_text`] gave it.
pub fn origin(source: &str, file: &str) -> String {
    match source.strip_prefix("built-in") {
        Some(edits) => format!("built-in scenarios/tables/{file}{edits}"),
        None => source.to_owned(),
    }
}

/// Every table kind, as a table file's `kind` key names it, in
/// alphabetical order.
pub fn kinds() -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = crate::tables::embedded::TABLES
        .iter()
        .map(|&(kind, ..)| kind)
        .collect();
    kinds.sort_unstable();
    kinds
}

/// Refuses a table file that is not the `expected` kind: its `kind` key
/// must be present and name `expected`. A text that is not TOML passes
/// here, for the typed parse to report where it breaks.
pub fn check_kind(text: &str, origin: &str, expected: &str) -> Result<()> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    match table.get("kind") {
        None => bail!(
            "{origin}: the file has no `kind` key, so it cannot be checked as the \
             `{expected}` table it was given as; if it is one, add `kind = \"{expected}\"` \
             at its top (tables written by `warcrunch tables --export` have it)"
        ),
        Some(toml::Value::String(kind)) if kind == expected => Ok(()),
        Some(toml::Value::String(kind)) if kinds().contains(&kind.as_str()) => bail!(
            "{}: this is a `{kind}` table (kind = \"{kind}\"), given as the `{expected}` \
             table; give a `{expected}` table there, or this file as `{kind}`",
            Place { origin, text }.at("kind")
        ),
        Some(other) => bail!(
            "{}: `kind` = {other} is not a table kind; allowed: {}",
            Place { origin, text }.at("kind"),
            kinds().join(", ")
        ),
    }
}

/// Parses a table file given as `kind`: refused when it is another kind,
/// serde's message (with a suggestion) when a key is wrong, and the key
/// and its allowed values when a number is out of the range its type
/// declares ([`crate::tables::ranges`]).
pub fn parse_table<T: serde::de::DeserializeOwned + schemars::JsonSchema>(
    text: &str,
    origin: &str,
    kind: &str,
) -> Result<T> {
    check_kind(text, origin, kind)?;
    // The orders the file declares are its own: checked here, then
    // blanked out of what the system's parser reads.
    let full: toml::Table =
        toml::from_str(text).map_err(|e| crate::tables::validate::toml_error(origin, e))?;
    orders::declared(&full, origin)?;
    let blanked = orders::without(text);
    let text = blanked.as_deref().unwrap_or(text);
    let mut doc = full;
    doc.remove(orders::KEY);
    let as_written = !origin.contains(WITH_CELLS);
    crate::tables::ranges::check::<T>(text, &doc, (origin, as_written))?;
    let parsed = match &blanked {
        Some(text) => toml::from_str(text),
        None => toml::Value::Table(doc.clone()).try_into(),
    }
    .map_err(|e| crate::tables::validate::toml_error(origin, e))?;
    check_labels(text, origin, kind)?;
    stand_ins::check(text, &doc, origin)?;
    Ok(parsed)
}

/// A table's file as the loader read it: its name in messages and its
/// text, to point a refusal at the line of the value it refuses.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The file (or built-in table) named in messages.
    pub origin: &'a str,
    /// Its text.
    pub text: &'a str,
}

impl Place<'_> {
    /// `origin:LINE` where the value at `path` (`rows.3.min_margin`, lists
    /// by position) is written, else `origin`.
    pub fn at(&self, path: &str) -> String {
        let steps: Vec<String> = path.split('.').map(str::to_owned).collect();
        let as_written = !self.origin.contains(WITH_CELLS);
        match crate::tables::ranges::line_of(self.text, &steps).filter(|_| as_written) {
            Some(line) => format!("{}:{line}", self.origin),
            None => self.origin.to_owned(),
        }
    }
}

/// Table `name` as a scenario (document `doc`, its table files `files`,
/// with `--table` `overrides`) reads it: its file or the built-in table,
/// with any cells the scenario sets.
pub fn as_read(
    doc: &toml::Table,
    files: &TableFiles,
    overrides: &[(String, String)],
    name: &str,
) -> Result<toml::Table> {
    Ok(text_as_read(doc, files, overrides, name)?.1)
}

/// [`as_read`], with the table's text (cells a scenario sets are applied
/// to the table, not the text).
pub fn text_as_read(
    doc: &toml::Table,
    files: &TableFiles,
    overrides: &[(String, String)],
    name: &str,
) -> Result<(String, toml::Table)> {
    let builtin = built_in(name).ok_or_else(|| anyhow::anyhow!("no built-in table `{name}`"))?;
    let overridden = overrides
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, file)| toml::Value::String(file.clone()));
    let entry = overridden.or_else(|| doc.get("tables").and_then(|t| t.get(name)).cloned());
    let source: Option<TableSource> = match entry {
        Some(entry) => Some(entry.try_into().map_err(|e: toml::de::Error| {
            anyhow::anyhow!("[tables] {name}: {}", e.to_string().trim())
        })?),
        None => None,
    };
    let (text, origin) = load_text(builtin.text, source.as_ref(), files)?;
    let table = text
        .parse()
        .map_err(|e: toml::de::Error| crate::tables::validate::toml_error(&origin, e))?;
    Ok((text, table))
}

/// Row labels an outcome already uses for something else: a row so
/// labelled could not be told from it in any result.
const RESERVED_LABELS: [(&str, &str, &str); 3] = [
    (
        "spoils",
        "none",
        "a Hero who took no Spoils (he did not win)",
    ),
    (
        "survival",
        "no_roll",
        "a PC who rolled no Survival that day",
    ),
    ("glory", "no_roll", "a PC who rolled no Glory that day"),
];

/// Refuses a list whose entries share a label (or name): a cell path
/// names a row by it, and the results would show one label for two rows;
/// and a label an outcome reserves. Errors give the line of the entry.
fn check_labels(text: &str, origin: &str, kind: &str) -> Result<()> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    let mut lists = Vec::new();
    lists_in(&table, &mut Vec::new(), &mut lists);
    for (path, items) in lists {
        let labels: Vec<Option<&str>> = items
            .iter()
            .map(crate::tables::toml_path::entry_name)
            .collect();
        for (i, label) in labels.iter().enumerate() {
            let Some(label) = label else { continue };
            let line = line_of_label(
                text,
                label,
                1 + labels[..i].iter().filter(|l| **l == Some(label)).count(),
            );
            if let Some(first) = labels[..i].iter().position(|l| *l == Some(label)) {
                bail!(
                    "{origin}{line}: `{path}` has two rows labelled `{label}` (rows {first} and {i}, counting from 0); a table cell is named by its row's label, so each label must differ"
                );
            }
            if let Some((_, _, meaning)) = RESERVED_LABELS
                .iter()
                .find(|(k, reserved, _)| *k == kind && reserved == label)
            {
                bail!(
                    "{origin}{line}: `{path}` row {i} is labelled `{label}`, which the results already use for {meaning}; choose another label"
                );
            }
        }
    }
    Ok(())
}

/// Every list of tables in `table`, with its dotted path.
fn lists_in<'a>(
    table: &'a toml::Table,
    path: &mut Vec<String>,
    out: &mut Vec<(String, &'a [toml::Value])>,
) {
    for (key, value) in table {
        path.push(key.clone());
        match value {
            toml::Value::Array(items) if items.iter().all(toml::Value::is_table) => {
                out.push((path.join("."), items));
                for item in items {
                    if let toml::Value::Table(inner) = item {
                        lists_in(inner, path, out);
                    }
                }
            }
            toml::Value::Table(inner) => lists_in(inner, path, out),
            _ => {}
        }
        path.pop();
    }
}

/// `:LINE` of the `nth` (from 1) `label = "…"` or `name = "…"` line with
/// this label, or nothing when the file writes it otherwise.
fn line_of_label(text: &str, label: &str, nth: usize) -> String {
    let quoted = format!("\"{label}\"");
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split('#').next().unwrap_or("");
            code.contains(&quoted) && (code.contains("label") || code.contains("name"))
        })
        .nth(nth - 1)
        .map_or_else(String::new, |(i, _)| format!(":{}", i + 1))
}
