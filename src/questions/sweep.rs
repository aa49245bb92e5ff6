//! Variants of a scenario: `--set path=a..b` or `--set path=v1,v2,...`,
//! applied to the scenario's TOML before it is validated. Several `--set`
//! options make a grid.

use anyhow::{Result, anyhow, bail};
use toml::Value;

use crate::tables::BUILT_IN;
use crate::tables::toml_path;

/// One `--set` option: a dotted path and the values it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// Dotted path: `heroes.Titus.risk`, `attacker.melee`, `days`.
    pub path: Vec<String>,
    /// Values in order.
    pub values: Vec<Value>,
}

/// Most variants a sweep runs unless `--max-variants` allows more.
pub const DEFAULT_MAX_VARIANTS: usize = 200;

/// Most values one range may produce, whatever `--max-variants` says.
const MAX_RANGE_VALUES: usize = 100_000;

/// Parses `path=a..b` (inclusive integers), `path=a..b:step` (integers, or
/// reals such as `0..1:0.05`) or `path=v1,v2,...`.
pub fn parse_setting(text: &str) -> Result<Setting> {
    let (path, spec) = text.split_once('=').ok_or_else(|| {
        anyhow!("--set {text}: expected PATH=VALUES, e.g. heroes.Titus.risk=-6..6")
    })?;
    let path: Vec<String> = path.trim().split('.').map(str::to_owned).collect();
    if path.iter().any(String::is_empty) {
        bail!("--set {text}: the path has an empty part");
    }
    let spec = spec.trim();
    let values = if let Some((a, range)) = spec.split_once("..") {
        let (b, step) = match range.split_once(':') {
            Some((b, step)) => (b, Some(step)),
            None => (range, None),
        };
        range_values(text, a.trim(), b.trim(), step.map(str::trim))?
    } else {
        spec.split(',').map(|v| parse_value(v.trim())).collect()
    };
    Ok(Setting { path, values })
}

/// The values of `a..b` or `a..b:step`: integers when every part is one,
/// else reals (the last value within a millionth of a step of `b` counts).
fn range_values(text: &str, a: &str, b: &str, step: Option<&str>) -> Result<Vec<Value>> {
    let usage = "ranges are a..b or a..b:step, e.g. 600..1000:50 or 0..1:0.05";
    let ints = [Some(a), Some(b), step]
        .iter()
        .flatten()
        .all(|x| x.parse::<i64>().is_ok());
    let number = |x: &str| {
        x.parse::<f64>()
            .map_err(|_| anyhow!("--set {text}: `{x}` is not a number; {usage}"))
    };
    let (lo, hi) = (number(a)?, number(b)?);
    let step_value = step.map(number).transpose()?.unwrap_or(1.0);
    if lo > hi {
        bail!("--set {text}: the range {a}..{b} is empty; write the smaller value first");
    }
    if step_value <= 0.0 {
        bail!("--set {text}: the step must be above 0; {usage}");
    }
    let count = ((hi - lo) / step_value + 1e-6).floor() as usize + 1;
    if count > MAX_RANGE_VALUES {
        bail!("--set {text}: {count} values is too many; at most {MAX_RANGE_VALUES}");
    }
    Ok((0..count)
        .map(|k| {
            if ints {
                Value::Integer(lo as i64 + k as i64 * step_value as i64)
            } else {
                // Rounded to the step's decimals, so 0.1 + 0.2 reads 0.3.
                let x = lo + k as f64 * step_value;
                Value::Float((x * 1e9).round() / 1e9)
            }
        })
        .collect())
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

/// One point of the grid: its name and the value of each setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// `risk=-3`, or `risk=-3,strategy=12` for a grid.
    pub name: String,
    /// The value of each setting.
    pub values: Vec<Value>,
    /// The value of each setting as the name shows it (`-3`, `elite`).
    pub shown: Vec<String>,
}

/// Each setting's name in a variant's name and in a table's column: its
/// last path part, or the full path if that clashes; a table's cell by its
/// table and its path in the table.
pub fn labels(settings: &[Setting]) -> Vec<String> {
    settings
        .iter()
        .map(|s| {
            if s.path.len() > 2 && s.path[0] == "tables" {
                return s.path[1..].join(".");
            }
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
        .collect()
}

/// Every combination of the settings' values, first setting slowest; at
/// most `max` of them.
pub fn grid(settings: &[Setting], max: usize) -> Result<Vec<Variant>> {
    let total: usize = settings.iter().map(|s| s.values.len()).product();
    if total > max {
        bail!(
            "the --set options make {total} variants; at most {max} run unless --max-variants allows more (e.g. --max-variants {total})"
        );
    }
    let labels = labels(settings);
    let mut variants = vec![Variant {
        name: String::new(),
        values: Vec::new(),
        shown: Vec::new(),
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
                    next.shown.push(shown);
                    next
                })
            })
            .collect();
    }
    Ok(variants)
}

/// Sets `path` to `value` in a scenario document (errors leave naming
/// the option to the caller); paths are [`toml_path`]'s. A table,
/// `tables.NAME`, is `builtin` or a file (relative to the working folder,
/// as `--table` takes it); a cell of a table, `tables.NAME.CELL…`, is set
/// in the table the scenario uses (`[tables.NAME] set`); the section is
/// made if the file has none.
pub fn apply(doc: &mut toml::Table, path: &[String], value: Value) -> Result<()> {
    match path {
        [section, name] if section == "tables" => set_table(doc, name, value),
        [section, name, cell @ ..] if section == "tables" => set_cell(doc, name, cell, value),
        _ => toml_path::set(doc, path, value),
    }
}

/// The scenario's `[tables]` section, made if absent.
fn tables_section(doc: &mut toml::Table) -> Result<&mut toml::Table> {
    match doc
        .entry("tables")
        .or_insert_with(|| Value::Table(toml::Table::new()))
    {
        Value::Table(section) => Ok(section),
        _ => bail!("`tables` in the scenario is not a section"),
    }
}

fn set_table(doc: &mut toml::Table, name: &str, value: Value) -> Result<()> {
    let Value::String(file) = value else {
        bail!(
            "a table is `{BUILT_IN}` or a file, not {value}; e.g. tables.{name}={BUILT_IN},my_{name}.toml"
        );
    };
    let file = if file == BUILT_IN {
        None
    } else {
        let path = std::path::absolute(&file)
            .map_err(|e| anyhow!("cannot resolve the table file {file}: {e}"))?;
        Some(Value::String(path.display().to_string()))
    };
    let section = tables_section(doc)?;
    match (section.get_mut(name), file) {
        // Cells set stay set in the other table.
        (Some(Value::Table(edited)), file) => {
            match file {
                Some(file) => edited.insert("file".to_owned(), file),
                None => edited.remove("file"),
            };
        }
        (_, Some(file)) => {
            section.insert(name.to_owned(), file);
        }
        (_, None) => {
            section.remove(name);
        }
    }
    Ok(())
}

/// Sets cell `cell` of table `name` to `value`, in the table the scenario
/// uses (its file, or the built-in table).
fn set_cell(doc: &mut toml::Table, name: &str, cell: &[String], value: Value) -> Result<()> {
    let section = tables_section(doc)?;
    let mut edited = match section.remove(name) {
        None => toml::Table::new(),
        Some(Value::String(file)) => {
            toml::Table::from_iter([("file".to_owned(), Value::String(file))])
        }
        Some(Value::Table(edited)) => edited,
        Some(other) => bail!("`tables.{name}` in the scenario is {other}, not a file or a section"),
    };
    let set = edited
        .entry("set")
        .or_insert_with(|| Value::Table(toml::Table::new()));
    let Value::Table(set) = set else {
        bail!("`tables.{name}.set` in the scenario is not a section");
    };
    set.insert(cell.join("."), value);
    section.insert(name.to_owned(), Value::Table(edited));
    Ok(())
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
        let g = grid(&[risk, draw], DEFAULT_MAX_VARIANTS).unwrap();
        assert_eq!(g.len(), 8);
        assert_eq!(g[0].name, "risk=-2,draw=die");
        assert_eq!(g[7].name, "risk=1,draw=deck");
        assert!(parse_setting("risk").is_err());
        assert!(parse_setting("x=3..1").is_err());
        assert!(parse_setting("x=1..2:0").is_err());
    }

    #[test]
    fn ranges_take_a_step_and_a_grid_is_capped() {
        let troops = parse_setting("sides.X.troop_strength=600..1000:50").unwrap();
        assert_eq!(troops.values.len(), 9);
        assert_eq!(troops.values[1], Value::Integer(650));
        assert_eq!(troops.values[8], Value::Integer(1000));
        let rally = parse_setting("engagement.rally_chance=0..1:0.05").unwrap();
        assert_eq!(rally.values.len(), 21);
        assert_eq!(rally.values[6], Value::Float(0.3));
        assert_eq!(rally.values[20], Value::Float(1.0));
        let wide = parse_setting("x=0..400").unwrap();
        let err = grid(std::slice::from_ref(&wide), DEFAULT_MAX_VARIANTS)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("401 variants") && err.contains("--max-variants"),
            "{err}"
        );
        assert_eq!(grid(&[wide], 401).unwrap().len(), 401);
    }

    #[test]
    fn a_table_is_builtin_or_a_file_even_without_a_tables_section() {
        let mut doc: toml::Table = toml::from_str("days = 1\n").unwrap();
        let path = ["tables".to_owned(), "cards".to_owned()];
        apply(&mut doc, &path, Value::String("my_deck.toml".into())).unwrap();
        let file = doc["tables"]["cards"].as_str().unwrap();
        assert!(std::path::Path::new(file).is_absolute() && file.ends_with("my_deck.toml"));
        apply(&mut doc, &path, Value::String(BUILT_IN.into())).unwrap();
        assert!(doc["tables"].get("cards").is_none());
        assert!(apply(&mut doc, &path, Value::Integer(3)).is_err());
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
