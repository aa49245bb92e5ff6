//! Checks every scenario and table parser shares: ranges, side names,
//! table names, TOML errors with "did you mean" hints, and the header
//! every scenario carries. It knows nothing of the systems, so each system
//! can use it without an import cycle.

use std::fmt::Display;
use std::ops::RangeInclusive;

use anyhow::{Result, anyhow, bail};

/// The run settings every scenario may carry, as written.
#[derive(Debug, Clone)]
pub struct Header {
    /// `name`.
    pub name: String,
    /// `trials`, if given.
    pub trials: Option<i64>,
    /// `seed`, if given.
    pub seed: Option<u64>,
}

/// The widest interval half-width a precision run may aim for: wider,
/// a 95% interval cannot tell any two outcomes apart.
pub const MAX_PRECISION: f64 = 0.2;

/// The narrowest half-width a precision run may aim for: narrower, no run
/// of at most 2^44 battles could reach it for any but the rarest outcome.
pub const MIN_PRECISION: f64 = 1e-9;

/// Checks a precision target (a 95% interval half-width); the message
/// starts with the value, for the caller to prefix the option or key.
pub fn check_precision(half_width: f64) -> std::result::Result<(), String> {
    if (MIN_PRECISION..=MAX_PRECISION).contains(&half_width) {
        Ok(())
    } else {
        let shown = if half_width != 0.0 && half_width.abs() < 1e-4 {
            format!("{half_width:e}")
        } else {
            format!("{half_width}")
        };
        Err(format!(
            "{shown} is out of range; allowed: a half-width from {MIN_PRECISION:e} to \
             {MAX_PRECISION} (±{} points; a wider interval cannot answer anything), e.g. 0.002",
            100.0 * MAX_PRECISION
        ))
    }
}

/// A TOML error naming the file, with a "did you mean" hint when the
/// message lists the allowed keys or values and one is close to what was
/// written.
pub fn toml_error(origin: &str, error: impl Display) -> anyhow::Error {
    let message = plain_types(&error.to_string());
    match suggestion(&message) {
        Some(hint) => anyhow!("{origin}: {message}help: did you mean `{hint}`?"),
        None => anyhow!("{origin}: {message}"),
    }
}

/// A serde message's type names in a designer's words: "invalid type:
/// string \"abc\", expected i64" reads "\"abc\" is text, but a whole
/// number is expected here"; every other line is kept.
fn plain_types(message: &str) -> String {
    let plain = |line: &str| -> Option<String> {
        let rest = line.strip_prefix("invalid type: ")?;
        let (found, expected) = rest.rsplit_once(", expected ")?;
        let tick = |s: &str| s.trim_matches('`').to_owned();
        let found = if let Some(text) = found.strip_prefix("string ") {
            format!("{text} is text")
        } else if let Some(n) = found.strip_prefix("integer ") {
            format!("{} is a whole number", tick(n))
        } else if let Some(x) = found.strip_prefix("floating point ") {
            format!("{} is a decimal number", tick(x))
        } else if let Some(b) = found.strip_prefix("boolean ") {
            format!("{} is true or false", tick(b))
        } else {
            format!("a {found} was given")
        };
        let expected = match expected.trim() {
            "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
            "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more",
            "f32" | "f64" => "a number",
            "a boolean" => "true or false",
            "a string" | "a borrowed string" => "text in quotes",
            other => other,
        };
        Some(format!("{found}, but {expected} is expected here"))
    };
    let lines: Vec<String> = message
        .split('\n')
        .map(|line| plain(line).unwrap_or_else(|| line.to_owned()))
        .collect();
    lines.join("\n")
}

/// The allowed word closest to the unknown one in a serde message like
/// "unknown field `melle`, expected one of `melee`, `missile`".
fn suggestion(message: &str) -> Option<String> {
    let rest = message
        .split_once("unknown field `")
        .or_else(|| message.split_once("unknown variant `"))?
        .1;
    let (found, rest) = rest.split_once('`')?;
    let allowed = rest.split_once("expected")?.1;
    allowed
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|candidate| (strsim::jaro_winkler(found, candidate), candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate.to_owned())
}

/// Checks a scenario's `[tables]` keys against the tables a system has;
/// a refusal names the line of the key (`text` is the scenario's).
pub fn check_table_names<'a>(
    (origin, text): (&str, &str),
    keys: impl IntoIterator<Item = &'a String>,
    allowed: &[&str],
    system: &str,
) -> Result<()> {
    for key in keys {
        if !allowed.contains(&key.as_str()) {
            let path = ["tables".to_owned(), key.clone()];
            let at = match crate::tables::ranges::line_of(text, &path) {
                Some(line) => format!("{origin}:{line}"),
                None => origin.to_owned(),
            };
            bail!(
                "{at}: [tables] `{key}` is not a {system} table; allowed: {}",
                allowed.join(", ")
            );
        }
    }
    Ok(())
}

/// A rule `check` enforces that ties keys (or a table's rows) together,
/// which a schema cannot express.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrossKeyRule {
    /// What it refuses, in words (docs/scenarios.md lists it).
    pub refuses: &'static str,
    /// Words every refusal by it contains.
    pub says: &'static str,
}

/// The rules every system's scenarios keep, checked here.
pub const COMMON_RULES: &[CrossKeyRule] = &[
    CrossKeyRule {
        refuses: "two sides, units or Heroes with the same name",
        says: "names must differ",
    },
    CrossKeyRule {
        refuses: "a Hero whose `side` is not one of the two sides",
        says: "is not a side",
    },
];

/// Checks that a battle has exactly two sides with different names.
pub fn check_two_sides(origin: &str, names: &[&str]) -> Result<()> {
    if names.len() != 2 {
        bail!(
            "{origin}: {} [[sides]] given; a battle has exactly 2",
            names.len()
        );
    }
    if names[0] == names[1] {
        bail!(
            "{origin}: both sides are named \"{}\"; names must differ",
            names[0]
        );
    }
    Ok(())
}

/// The index of the side a hero names, or an error listing both sides.
pub fn side_index(origin: &str, key: &str, side: &str, names: [&str; 2]) -> Result<usize> {
    names.iter().position(|n| *n == side).ok_or_else(|| {
        anyhow!(
            "{origin}: `{key}` = \"{side}\" is not a side; allowed: \"{}\", \"{}\"",
            names[0],
            names[1]
        )
    })
}

/// A setting's value as written in scenario files (`unit_commander`,
/// `heavily_engaged`), for messages and `check`.
pub fn as_written<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("<{e}>"),
    }
}

/// Fails with a message naming the file, the key and the allowed range.
pub fn check_range<T: PartialOrd + Display>(
    origin: &str,
    key: &str,
    value: T,
    allowed: RangeInclusive<T>,
) -> Result<()> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        bail!(
            "{origin}: `{key}` = {value} is out of range; allowed: {} to {}",
            allowed.start(),
            allowed.end()
        )
    }
}

/// The schema of a scenario's `[tables]` section: for each table name, a
/// tuned copy ([`table_source_schema`]).
pub fn table_paths_schema(
    generator: &mut schemars::SchemaGenerator,
    names: &[&str],
) -> schemars::Schema {
    let properties: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|name| {
            let mut one = table_source_schema(generator).to_value();
            one["description"] = serde_json::json!(format!(
                "A tuned `{name}` table: a file relative to the scenario file, or the table with cells set."
            ));
            ((*name).to_owned(), one)
        })
        .collect();
    schemars::json_schema!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

/// The schema of one `[tables]` entry: a file path, or `file` (a path or
/// `builtin`) with `set`, cells by their path in the table.
pub fn table_source_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            { "type": "string", "description": "A table file, relative to the scenario file." },
            {
                "type": "object",
                "properties": {
                    "file": {
                        "type": "string",
                        "description": "The table whose cells are set: a file relative to the scenario file, or `builtin` (the default)."
                    },
                    "set": {
                        "type": "object",
                        "description": "Cells set, by their path in the table: `rows.C.column`, `rows.2.engaged.damage` (a list's entries by `name` or `label`, or position from 0).",
                        "additionalProperties": true
                    }
                },
                "additionalProperties": false
            }
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_type_is_said_in_a_designers_words() {
        let said = plain_types(
            "TOML parse error at line 3, column 5\n  |\ninvalid type: string \"abc\", expected i64\n",
        );
        assert!(
            said.contains("\"abc\" is text, but a whole number is expected here"),
            "{said}"
        );
        assert!(said.starts_with("TOML parse error at line 3"), "{said}");
        assert!(!said.contains("i64"), "{said}");
        assert_eq!(
            plain_types("invalid type: integer `5`, expected a string"),
            "5 is a whole number, but text in quotes is expected here"
        );
        assert_eq!(
            plain_types("invalid type: floating point `1.5`, expected u32"),
            "1.5 is a decimal number, but a whole number, 0 or more is expected here"
        );
        assert_eq!(plain_types("unknown field `x`"), "unknown field `x`");
    }
}
