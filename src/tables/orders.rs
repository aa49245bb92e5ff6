//! The orders a table file declares its cells keep, as a designer expects
//! them: `orders = [{ cells = "rows.*.engaged.reputation", never =
//! "falls" }]` says that down the rows, in the file's order, the Engaged
//! column's Reputation never falls. `warcrunch check` warns about a table
//! out of its declared order; `tune` keeps every declared order. The key
//! is the file's own: the systems never read it.

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use toml::Value;

/// The top-level key that declares them.
pub const KEY: &str = "orders";

/// The longest `cells` path a declaration may write.
pub const MAX_CELLS_LEN: usize = 200;

/// One declared order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// The cells, one `*` standing for each entry of a list, in the file's
    /// order: `rows.*.engaged.reputation`.
    pub cells: String,
    /// Which way the value may not go from one entry to the next.
    pub never: Never,
}

/// Which way a declared order's cells may not go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Never {
    /// Each value is at least the one before.
    Falls,
    /// Each value is at most the one before.
    Rises,
}

impl Order {
    /// In words: `rows.*.engaged.reputation never falls`.
    pub fn words(&self) -> String {
        let way = match self.never {
            Never::Falls => "falls",
            Never::Rises => "rises",
        };
        format!("{} never {way}", self.cells)
    }

    /// The list the `*` runs over and the path within each entry.
    fn split(&self) -> Option<(Vec<String>, Vec<String>)> {
        let (list, within) = self.cells.split_once(".*.")?;
        let steps = |p: &str| p.split('.').map(str::to_owned).collect::<Vec<_>>();
        Some((steps(list), steps(within)))
    }

    /// Where the table `doc` breaks it: the first pair of entries out of
    /// order, in words (`rows 1 and 2: 3 then 2`), or `None`. An entry
    /// without the cell is passed over.
    pub fn broken_in(&self, doc: &toml::Table) -> Option<String> {
        let (list, within) = self.split()?;
        let entries = crate::tables::toml_path::get(doc, &list)?.as_array()?;
        let mut last: Option<(usize, f64, &Value)> = None;
        for (i, entry) in entries.iter().enumerate() {
            let Some(value) = within
                .iter()
                .try_fold(entry, |v, step| v.as_table()?.get(step))
            else {
                continue;
            };
            let Some(at) = rank(value) else { continue };
            if let Some((j, before, was)) = last {
                let wrong = match self.never {
                    Never::Falls => at < before,
                    Never::Rises => at > before,
                };
                if wrong {
                    return Some(format!(
                        "{} {j} and {i}: {} then {}",
                        list.join("."),
                        shown(was),
                        shown(value)
                    ));
                }
            }
            last = Some((i, at, value));
        }
        None
    }
}

/// A value as a file writes it: `3`, `4k2`.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Where a value stands in its order: a number as it is, `false` before
/// `true`, dice `XkY` by dice rolled then kept (`-`, no dice, first), a
/// word by its letters' order (damage columns `A` to `D`).
fn rank(value: &Value) -> Option<f64> {
    match value {
        &Value::Integer(v) => Some(v as f64),
        &Value::Float(v) => Some(v),
        &Value::Boolean(b) => Some(f64::from(u8::from(b))),
        Value::String(text) if text == "-" => Some(0.0),
        Value::String(text) => match text.split_once('k') {
            Some((x, y)) => Some(100.0 * x.parse::<f64>().ok()? + y.parse::<f64>().ok()?),
            None if text.chars().count() == 1 => text.chars().next().map(|c| c as u32 as f64),
            None => None,
        },
        _ => None,
    }
}

/// The orders table `doc` declares; refuses a malformed declaration
/// (naming `origin`, the entry and what is allowed), or one whose cells
/// are not in the table.
pub fn declared(doc: &toml::Table, origin: &str) -> Result<Vec<Order>> {
    let Some(value) = doc.get(KEY) else {
        return Ok(Vec::new());
    };
    let orders: Vec<Order> = value.clone().try_into().map_err(|e| {
        anyhow::anyhow!(
            "{origin}: `{KEY}`: {e}; write e.g. {KEY} = [{{ cells = \"rows.*.reputation\", never = \"falls\" }}] (never: falls or rises)"
        )
    })?;
    for (i, order) in orders.iter().enumerate() {
        if order.cells.chars().count() > MAX_CELLS_LEN {
            bail!(
                "{origin}: `{KEY}` entry {i}: cells is {} characters long; allowed: at most {MAX_CELLS_LEN}",
                order.cells.chars().count()
            );
        }
        let Some((list, _)) = order.split() else {
            bail!(
                "{origin}: `{KEY}` entry {i}: cells = \"{}\" needs one `*` for the entries of a list, e.g. rows.*.reputation",
                order.cells
            );
        };
        let entries = crate::tables::toml_path::get(doc, &list).and_then(Value::as_array);
        if entries.is_none() {
            bail!(
                "{origin}: `{KEY}` entry {i}: `{}` is not a list of this table",
                list.join(".")
            );
        }
    }
    Ok(orders)
}

/// The orders `text` declares, read leniently (a table already loaded).
pub fn of_text(text: &str) -> Vec<Order> {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|doc| declared(&doc, "").ok())
        .unwrap_or_default()
}

/// Each declared order `text` breaks, in words: `rows.*.engaged.reputation
/// never falls, but rows 1 and 2: 3 then 2`.
pub fn breaks(text: &str) -> Vec<String> {
    let Ok(doc) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    (of_text(text).iter())
        .filter_map(|o| Some(format!("{}, but {}", o.words(), o.broken_in(&doc)?)))
        .collect()
}

/// `text` with its `orders = [...]` blanked out, every line kept (so a
/// message points at the line it always did), for a system's parser,
/// which never reads it; `None` where the orders are written as a list of
/// tables (`[[orders]]`, as a table with cells set is written out), which
/// blanking cannot take out whole: the caller parses the table without
/// the key instead.
pub fn without(text: &str) -> Option<String> {
    let Ok(doc) = text.parse::<toml_edit::Document<String>>() else {
        return Some(text.to_owned());
    };
    let Some((key, item)) = doc.as_table().get_key_value(KEY) else {
        return Some(text.to_owned());
    };
    if item.is_array_of_tables() || item.is_table() {
        return None;
    }
    let (Some(from), Some(to)) = (key.span(), item.span()) else {
        return None;
    };
    let mut blanked = text.to_owned();
    let gap: String = text[from.start..to.end]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    blanked.replace_range(from.start..to.end, &gap);
    Some(blanked)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHART: &str = r#"kind = "battle_chart"
orders = [
  { cells = "rows.*.engaged.reputation", never = "falls" },
  { cells = "rows.*.engaged.damage", never = "rises" },
]
[[rows]]
engaged = { damage = "4k3", reputation = 1 }
[[rows]]
engaged = { damage = "4k2", reputation = 3 }
[[rows]]
engaged = { damage = "-", reputation = 2 }
"#;

    #[test]
    fn a_declared_order_is_read_and_its_break_named() {
        let doc: toml::Table = toml::from_str(CHART).unwrap();
        let orders = declared(&doc, "chart.toml").unwrap();
        assert_eq!(orders.len(), 2);
        assert_eq!(
            orders[0].broken_in(&doc).as_deref(),
            Some("rows 1 and 2: 3 then 2")
        );
        // 4k3, 4k2, no dice: the damage never rises.
        assert_eq!(orders[1].broken_in(&doc), None);
        assert_eq!(orders[0].words(), "rows.*.engaged.reputation never falls");
        assert_eq!(
            breaks(CHART),
            vec!["rows.*.engaged.reputation never falls, but rows 1 and 2: 3 then 2"]
        );
    }

    #[test]
    fn a_bad_declaration_names_the_file_and_what_is_allowed() {
        let error = |text: &str| {
            let doc: toml::Table = toml::from_str(text).unwrap();
            format!("{:#}", declared(&doc, "t.toml").unwrap_err())
        };
        assert!(error("orders = [{ cells = \"rows.x\", never = \"falls\" }]").contains("one `*`"));
        assert!(
            error("orders = [{ cells = \"rows.*.x\", never = \"drops\" }]")
                .contains("never: falls or rises")
        );
        let long = format!(
            "orders = [{{ cells = \"rows.*.{}\", never = \"falls\" }}]",
            "x".repeat(300)
        );
        assert!(error(&long).contains("allowed: at most 200"));
        assert!(
            error("orders = [{ cells = \"lines.*.x\", never = \"falls\" }]")
                .contains("not a list of this table")
        );
    }

    #[test]
    fn the_parser_never_sees_the_declaration_and_every_line_stays() {
        let blanked = without(CHART).unwrap();
        assert_eq!(blanked.lines().count(), CHART.lines().count());
        let doc: toml::Table = toml::from_str(&blanked).unwrap();
        assert!(!doc.contains_key(KEY));
        assert!(doc.contains_key("rows"));
        // A list of tables is left to the caller, who parses without it.
        assert!(without("[[orders]]\ncells = \"rows.*.x\"\nnever = \"falls\"\n").is_none());
    }
}
