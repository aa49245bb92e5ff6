//! The built-in rule tables, embedded from `scenarios/tables/`, and the
//! record of which table a run used.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The shipped Combat Card deck (`scenarios/tables/war_cards.toml`).
pub const BUILT_IN_CARDS: &str = include_str!("../scenarios/tables/war_cards.toml");

/// The built-in GURPS tables: (name, file, text).
pub const GURPS_BUILT_IN: [(&str, &str, &str); 8] = [
    (
        "catastrophe",
        "gurps/catastrophe.toml",
        include_str!("../scenarios/tables/gurps/catastrophe.toml"),
    ),
    (
        "strategy",
        "gurps/strategy.toml",
        include_str!("../scenarios/tables/gurps/strategy.toml"),
    ),
    (
        "battle_results",
        "gurps/battle_results.toml",
        include_str!("../scenarios/tables/gurps/battle_results.toml"),
    ),
    (
        "casualties",
        "gurps/casualties.toml",
        include_str!("../scenarios/tables/gurps/casualties.toml"),
    ),
    (
        "survival",
        "gurps/survival.toml",
        include_str!("../scenarios/tables/gurps/survival.toml"),
    ),
    (
        "damage",
        "gurps/damage.toml",
        include_str!("../scenarios/tables/gurps/damage.toml"),
    ),
    (
        "glory",
        "gurps/glory.toml",
        include_str!("../scenarios/tables/gurps/glory.toml"),
    ),
    (
        "morale",
        "gurps/morale.toml",
        include_str!("../scenarios/tables/gurps/morale.toml"),
    ),
];

/// The built-in 7th Sea tables: (name, file, text).
pub const SEVENTH_SEA_BUILT_IN: [(&str, &str, &str); 3] = [
    (
        "battle_chart",
        "seventh_sea/battle_chart.toml",
        include_str!("../scenarios/tables/seventh_sea/battle_chart.toml"),
    ),
    (
        "opportunities",
        "seventh_sea/opportunities.toml",
        include_str!("../scenarios/tables/seventh_sea/opportunities.toml"),
    ),
    (
        "spoils",
        "seventh_sea/spoils.toml",
        include_str!("../scenarios/tables/seventh_sea/spoils.toml"),
    ),
];

/// A built-in table: its name, the file it exports to and its text.
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

/// Every built-in table.
pub fn built_ins() -> Vec<BuiltIn> {
    let mut all = vec![BuiltIn {
        name: "cards",
        system: "war_cards",
        file: "war_cards.toml",
        text: BUILT_IN_CARDS,
    }];
    for (system, tables) in [
        ("gurps", &GURPS_BUILT_IN[..]),
        ("seventh_sea", &SEVENTH_SEA_BUILT_IN[..]),
    ] {
        all.extend(tables.iter().map(|&(name, file, text)| BuiltIn {
            name,
            system,
            file,
            text,
        }));
    }
    all
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
}

/// SHA-256 of a text, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A table's text: the built-in one, or the file at `path` (relative paths
/// resolve against `base_dir`). Returns the text and its source label.
pub fn load_text(
    builtin: &'static str,
    path: Option<&str>,
    base_dir: &Path,
) -> Result<(String, String)> {
    match path {
        None => Ok((builtin.to_owned(), "built-in".to_owned())),
        Some(p) => {
            let full = base_dir.join(p);
            let text = std::fs::read_to_string(&full)
                .with_context(|| format!("cannot read table file {}", full.display()))?;
            Ok((text, full.display().to_string()))
        }
    }
}

/// Every table kind, as a table file's `kind` key names it.
pub fn kinds() -> Vec<&'static str> {
    built_ins().iter().map(|t| t.name).collect()
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
            "{origin}: this is a `{kind}` table (kind = \"{kind}\"), given as the `{expected}` \
             table; give a `{expected}` table there, or this file as `{kind}`"
        ),
        Some(other) => bail!(
            "{origin}: `kind` = {other} is not a table kind; allowed: {}",
            kinds().join(", ")
        ),
    }
}

/// Parses a table file given as `kind`: refused when it is another kind,
/// and serde's message (with a suggestion) when a key is wrong.
pub fn parse_table<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
    kind: &str,
) -> Result<T> {
    check_kind(text, origin, kind)?;
    toml::from_str(text).map_err(|e| crate::validate::toml_error(origin, e))
}
