//! Integer ranges and list lengths declared once, on a file's types
//! (`#[schemars(range(..))]`, `#[schemars(length(..))]`), and enforced by the
//! loader from that same schema: the JSON Schema and the parser cannot
//! disagree on what a table allows.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde_json::Value;

/// Refuses a document (`doc`, parsed from `text`) whose integers or lists
/// fall outside the ranges the schema of `T` declares, naming the file and
/// line (when `locate`: the text is the file as written), the key
/// (`rows.3.reputation`, as table cells are named) and the allowed values.
pub fn check<T: JsonSchema>(
    text: &str,
    doc: &toml::Table,
    (origin, locate): (&str, bool),
) -> Result<()> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let root = schema.as_value();
    // On a refusal the path is left at the refused value.
    let mut path = Vec::new();
    let located = |path: &[String]| if locate { line_of(text, path) } else { None };
    check_table(doc, root, root, &mut path).map_err(|e| match located(&path) {
        Some(line) => anyhow::anyhow!("{origin}:{line}: {e}"),
        None => anyhow::anyhow!("{origin}: {e}"),
    })
}

/// The line (from 1) where the value at `path` is written in `text`.
pub fn line_of(text: &str, path: &[String]) -> Option<usize> {
    let doc = toml_edit::Document::parse(text).ok()?;
    let mut item = doc.as_item();
    for step in path {
        item = match step.parse::<usize>() {
            Ok(i) => item.get(i)?,
            Err(_) => item.get(step.as_str())?,
        };
    }
    let at = item.span()?.start;
    Some(text[..at].matches('\n').count() + 1)
}

fn check_table(
    table: &toml::Table,
    node: &Value,
    root: &Value,
    path: &mut Vec<String>,
) -> Result<()> {
    for (key, value) in table {
        let child = node
            .get("properties")
            .and_then(|p| p.get(key))
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()));
        if let Some(child) = child {
            path.push(key.clone());
            check_value(value, child, root, path)?;
            path.pop();
        }
    }
    Ok(())
}

fn check_value(
    value: &toml::Value,
    node: &Value,
    root: &Value,
    path: &mut Vec<String>,
) -> Result<()> {
    let Some(node) = resolve(node, root, value) else {
        return Ok(());
    };
    let key = || path.join(".");
    match value {
        toml::Value::Integer(_) | toml::Value::Float(_) => {
            let (x, shown) = match value {
                toml::Value::Integer(v) => (*v as f64, v.to_string()),
                toml::Value::Float(v) => (*v, v.to_string()),
                _ => unreachable!("matched as a number"),
            };
            let (min, max) = (bound(node, "minimum"), bound(node, "maximum"));
            // NaN is inside no range.
            let inside = min.is_none_or(|m| x >= m) && max.is_none_or(|m| x <= m);
            if (min.is_some() || max.is_some()) && !inside {
                bail!(
                    "`{}` = {shown} is out of range; allowed: {}",
                    key(),
                    allowed(min, max)
                );
            }
        }
        toml::Value::Array(items) => {
            let (min, max) = (bound(node, "minItems"), bound(node, "maxItems"));
            let n = items.len() as f64;
            if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                bail!(
                    "`{}` has {} entries; allowed: {}",
                    key(),
                    items.len(),
                    allowed(min, max)
                );
            }
            if let Some(item) = node.get("items") {
                for (i, v) in items.iter().enumerate() {
                    path.push(i.to_string());
                    check_value(v, item, root, path)?;
                    path.pop();
                }
            }
        }
        toml::Value::Table(t) => check_table(t, node, root, path)?,
        _ => {}
    }
    Ok(())
}

/// The schema a node stands for: `$ref`s followed, and of alternatives
/// (`Option<T>`, untagged enums; a lone `allOf` wrapping a `$ref`) the
/// first that takes the value's type.
fn resolve<'a>(mut node: &'a Value, root: &'a Value, value: &toml::Value) -> Option<&'a Value> {
    for _ in 0..32 {
        if let Some(target) = node.get("$ref").and_then(Value::as_str) {
            node = root.pointer(target.strip_prefix('#')?)?;
            continue;
        }
        let alternatives = ["anyOf", "oneOf", "allOf"]
            .iter()
            .find_map(|k| node.get(*k).and_then(Value::as_array));
        match alternatives {
            Some(options) => {
                node = options
                    .iter()
                    .filter_map(|o| resolve(o, root, value))
                    .find(|o| takes(o, value))?;
            }
            None => return Some(node),
        }
    }
    None
}

/// Whether a (resolved) schema node's `type` admits the value.
fn takes(node: &Value, value: &toml::Value) -> bool {
    let wanted = match value {
        toml::Value::Integer(_) => "integer",
        toml::Value::Float(_) => "number",
        toml::Value::Array(_) => "array",
        toml::Value::Table(_) => "object",
        _ => return false,
    };
    match node.get("type") {
        Some(Value::String(t)) => t == wanted,
        Some(Value::Array(types)) => types.iter().any(|t| t == wanted),
        _ => false,
    }
}

fn bound(node: &Value, key: &str) -> Option<f64> {
    node.get(key).and_then(Value::as_f64)
}

/// The allowed values as messages write them: `-10 to 10`, `at most 13`.
fn allowed(min: Option<f64>, max: Option<f64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("{a} or more"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => "any".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Row {
        #[schemars(range(min = -10, max = 10))]
        reputation: i64,
        #[schemars(range(min = 0, max = 20))]
        hp: Option<i64>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct File {
        #[schemars(length(min = 1, max = 3))]
        rows: Vec<Row>,
        #[schemars(inner(range(min = 3, max = 18)))]
        roll: [i64; 2],
        #[schemars(extend("additionalProperties" = {"type": "integer", "minimum": -5, "maximum": 5}))]
        position: std::collections::BTreeMap<String, i64>,
        #[schemars(range(min = 1.0, max = 1000.0))]
        ratio: Option<f64>,
    }

    fn verdict(text: &str) -> Result<()> {
        check::<File>(text, &text.parse().unwrap(), ("t.toml", true))
    }

    #[test]
    fn values_inside_pass_and_outside_are_named_with_the_range() {
        let ok = "roll = [3, 18]\nposition = { uphill = -5 }\n[[rows]]\nreputation = 10\nhp = 0\n";
        verdict(ok).unwrap();
        for (text, says) in [
            (
                "roll = [3, 18]\n[[rows]]\nreputation = 70000\n",
                "3: `rows.0.reputation` = 70000 is out of range; allowed: -10 to 10",
            ),
            (
                "roll = [3, 18]\n[[rows]]\nreputation = 1\nhp = -9223372036854775808\n",
                "4: `rows.0.hp` = -9223372036854775808 is out of range; allowed: 0 to 20",
            ),
            (
                "roll = [2, 18]\n",
                "1: `roll.0` = 2 is out of range; allowed: 3 to 18",
            ),
            (
                "roll = [3, 3]\nratio = nan\n",
                "2: `ratio` = NaN is out of range; allowed: 1 to 1000",
            ),
            (
                "roll = [3, 3]\nposition = { uphill = 9223372036854775807 }\n",
                "2: `position.uphill` = 9223372036854775807 is out of range; allowed: -5 to 5",
            ),
            (
                "roll = [3, 3]\nrows = [{reputation = 0}, {reputation = 0}, {reputation = 0}, {reputation = 0}]\n",
                "2: `rows` has 4 entries; allowed: 1 to 3",
            ),
        ] {
            let e = format!("{:#}", verdict(text).unwrap_err());
            assert_eq!(e, format!("t.toml:{says}"), "{text}");
        }
    }
}
