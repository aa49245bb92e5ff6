//! Variants of a scenario: `--set path=a..b` or `--set path=v1,v2,...`,
//! applied to the scenario's TOML before it is validated. Several `--set`
//! options make a grid.

use anyhow::{Result, anyhow, bail};
use toml::Value;

/// One `--set` option: a dotted path and the values it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// Dotted path: `heroes.Titus.risk`, `attacker.melee`, `days`.
    pub path: Vec<String>,
    /// Values in order.
    pub values: Vec<Value>,
}

/// Most variants a sweep may hold.
pub const MAX_VARIANTS: usize = 10_000;

/// Parses `path=a..b` (inclusive integers) or `path=v1,v2,...`.
pub fn parse_setting(text: &str) -> Result<Setting> {
    let (path, spec) = text.split_once('=').ok_or_else(|| {
        anyhow!("--set {text}: expected PATH=VALUES, e.g. heroes.Titus.risk=-6..6")
    })?;
    let path: Vec<String> = path.trim().split('.').map(str::to_owned).collect();
    if path.iter().any(String::is_empty) {
        bail!("--set {text}: the path has an empty part");
    }
    let spec = spec.trim();
    let values = if let Some((a, b)) = spec.split_once("..") {
        let parse = |s: &str| {
            s.trim().parse::<i64>().map_err(|_| {
                anyhow!("--set {text}: `{s}` is not an integer; ranges are a..b with integers")
            })
        };
        let (a, b) = (parse(a)?, parse(b)?);
        if a > b {
            bail!("--set {text}: the range {a}..{b} is empty; write the smaller value first");
        }
        if (b - a) as usize >= MAX_VARIANTS {
            bail!(
                "--set {text}: {} values is too many; at most {MAX_VARIANTS}",
                b - a + 1
            );
        }
        (a..=b).map(Value::Integer).collect()
    } else {
        spec.split(',').map(|v| parse_value(v.trim())).collect()
    };
    Ok(Setting { path, values })
}

fn parse_value(v: &str) -> Value {
    if let Ok(i) = v.parse::<i64>() {
        Value::Integer(i)
    } else if let Ok(f) = v.parse::<f64>() {
        Value::Float(f)
    } else if let Ok(b) = v.parse::<bool>() {
        Value::Boolean(b)
    } else {
        Value::String(v.trim_matches('"').to_owned())
    }
}

/// One point of the grid: its name and (setting index, value) pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// `risk=-3`, or `risk=-3,strategy=12` for a grid.
    pub name: String,
    /// The value of each setting.
    pub values: Vec<Value>,
}

/// Every combination of the settings' values, first setting slowest.
pub fn grid(settings: &[Setting]) -> Result<Vec<Variant>> {
    let total: usize = settings.iter().map(|s| s.values.len()).product();
    if total > MAX_VARIANTS {
        bail!("the --set options make {total} variants; at most {MAX_VARIANTS}");
    }
    // Name each setting by its last path part, or the full path if that clashes.
    let labels: Vec<String> = settings
        .iter()
        .map(|s| {
            let last = s.path.last().expect("non-empty path");
            let clashes = settings
                .iter()
                .filter(|o| o.path.last() == Some(last))
                .count()
                > 1;
            if clashes {
                s.path.join(".")
            } else {
                last.clone()
            }
        })
        .collect();
    let mut variants = vec![Variant {
        name: String::new(),
        values: Vec::new(),
    }];
    for (setting, label) in settings.iter().zip(&labels) {
        variants = variants
            .into_iter()
            .flat_map(|v| {
                setting.values.iter().map(move |value| {
                    let mut next = v.clone();
                    let shown = match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    if !next.name.is_empty() {
                        next.name.push(',');
                    }
                    next.name.push_str(&format!("{label}={shown}"));
                    next.values.push(value.clone());
                    next
                })
            })
            .collect();
    }
    Ok(variants)
}

/// Sets `path` to `value` in a scenario document. Arrays of tables are
/// indexed by the `name` of an element (or its position from 0).
pub fn apply(doc: &mut toml::Table, path: &[String], value: Value) -> Result<()> {
    set_in(doc, path, value, &path.join("."), &mut Vec::new())
}

fn set_in(
    table: &mut toml::Table,
    path: &[String],
    value: Value,
    shown: &str,
    walked: &mut Vec<String>,
) -> Result<()> {
    let (head, rest) = path.split_first().expect("non-empty path");
    if rest.is_empty() {
        table.insert(head.clone(), value);
        return Ok(());
    }
    walked.push(head.clone());
    match table.get_mut(head) {
        None => bail!("--set {shown}: the scenario has no `{}`", walked.join(".")),
        Some(Value::Table(inner)) => set_in(inner, rest, value, shown, walked),
        Some(Value::Array(items)) => {
            let names: Vec<String> = items
                .iter()
                .filter_map(|i| i.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect();
            let (selector, rest) = rest.split_first().expect("checked non-empty");
            let listed = || {
                names
                    .iter()
                    .map(|n| format!("{}.{n}", walked.join(".")))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if rest.is_empty() {
                bail!(
                    "--set {shown}: name a key inside the element, e.g. {}.<key>",
                    listed()
                );
            }
            let index = names
                .iter()
                .position(|n| n == selector)
                .or_else(|| selector.parse::<usize>().ok().filter(|&i| i < items.len()));
            let Some(Value::Table(element)) = index.and_then(|i| items.get_mut(i)) else {
                bail!(
                    "--set {shown}: `{}` has no element named `{selector}`; allowed: {}",
                    walked.join("."),
                    listed()
                );
            };
            walked.push(selector.clone());
            set_in(element, rest, value, shown, walked)
        }
        Some(_) => bail!(
            "--set {shown}: `{}` is a value, not a section",
            walked.join(".")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_grids() {
        let risk = parse_setting("heroes.Titus.risk=-2..1").unwrap();
        assert_eq!(risk.path, ["heroes", "Titus", "risk"]);
        assert_eq!(risk.values.len(), 4);
        let draw = parse_setting("engagement.draw=die,deck").unwrap();
        assert_eq!(
            draw.values,
            [Value::String("die".into()), Value::String("deck".into())]
        );
        let g = grid(&[risk, draw]).unwrap();
        assert_eq!(g.len(), 8);
        assert_eq!(g[0].name, "risk=-2,draw=die");
        assert_eq!(g[7].name, "risk=1,draw=deck");
        assert!(parse_setting("risk").is_err());
        assert!(parse_setting("x=3..1").is_err());
    }

    #[test]
    fn apply_finds_named_elements_and_reports_what_exists() {
        let mut doc: toml::Table = toml::from_str(
            "days = 1\n[[heroes]]\nname = \"Titus\"\nrisk = 0\n[[heroes]]\nname = \"Ilsa\"\n",
        )
        .unwrap();
        apply(
            &mut doc,
            &["heroes".into(), "Ilsa".into(), "risk".into()],
            Value::Integer(-3),
        )
        .unwrap();
        assert_eq!(doc["heroes"][1]["risk"], Value::Integer(-3));
        apply(&mut doc, &["days".into()], Value::Integer(3)).unwrap();
        let err = apply(
            &mut doc,
            &["heroes".into(), "Tutus".into(), "risk".into()],
            Value::Integer(1),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("heroes.Titus") && err.contains("heroes.Ilsa"),
            "{err}"
        );
    }
}
