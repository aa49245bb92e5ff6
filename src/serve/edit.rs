//! The form's view of a scenario file: the document as JSON to fill the
//! form, the form's edits applied to the TOML text with its comments and
//! layout kept, and the key path written on a line (so an error the CLI
//! reports at a line can sit beside its field).

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// One step of a key path: a key, or a position in an array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Step {
    /// A position in an array (`heroes[2]`).
    Index(usize),
    /// A key (`risk`).
    Key(String),
}

/// A change the form makes to the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Edit {
    /// Writes `value` at `path` (a missing table on the way is created).
    Set { path: Vec<Step>, value: Json },
    /// Removes the key or array element at `path`.
    Remove { path: Vec<Step> },
    /// Adds `value` at the end of the array at `path` (a table to an array
    /// of tables such as `[[heroes]]`).
    Append { path: Vec<Step>, value: Json },
}

/// The file as JSON, or the TOML parser's message.
pub fn document(text: &str) -> Result<Json, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    serde_json::to_value(table).map_err(|e| e.to_string())
}

/// The most steps a path may take: the deepest key of any file
/// (`tables.battle_chart.rows.2.engaged.reputation`) takes 6.
pub const MAX_PATH_STEPS: usize = 16;

/// The text after the edits, each applied in order; comments, key order and
/// layout of what is not edited stay as they were. A path longer than
/// [`MAX_PATH_STEPS`] is refused before anything is built.
pub fn apply(text: &str, edits: &[Edit]) -> Result<String, String> {
    for edit in edits {
        let (Edit::Set { path, .. } | Edit::Remove { path } | Edit::Append { path, .. }) = edit;
        if path.len() > MAX_PATH_STEPS {
            return Err(format!(
                "an edit's `path` has {} steps; at most {MAX_PATH_STEPS}",
                path.len()
            ));
        }
    }
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    for edit in edits {
        match edit {
            Edit::Set { path, value } => set(&mut doc, path, value)?,
            Edit::Remove { path } => remove(&mut doc, path)?,
            Edit::Append { path, value } => append(&mut doc, path, value)?,
        }
    }
    Ok(doc.to_string())
}

/// The path of the key written on `line` (1-based), the innermost one.
pub fn path_at_line(text: &str, line: u64) -> Option<Vec<Step>> {
    let doc = toml_edit::Document::parse(text).ok()?;
    let line_of = |offset: usize| 1 + text[..offset.min(text.len())].matches('\n').count() as u64;
    let mut found = None;
    visit(doc.as_table(), &mut Vec::new(), &mut |path, key_start| {
        if line_of(key_start) == line {
            found = Some(path.to_vec());
        }
    });
    found
}

/// The path a check's message names (`heroes[4].tactics (Cato)` →
/// `heroes`, 4, `tactics`), for errors about a key that is not written.
pub fn path_of_key(key: &str) -> Option<Vec<Step>> {
    let key = key.split(" (").next()?;
    let mut path = Vec::new();
    for part in key.split('.') {
        // A list's item by position, as `rows.0.rear` writes it.
        if !path.is_empty() && !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()) {
            path.push(Step::Index(part.parse().ok()?));
            continue;
        }
        let mut pieces = part.split('[');
        let name = pieces.next()?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        path.push(Step::Key(name.to_owned()));
        for index in pieces {
            path.push(Step::Index(index.strip_suffix(']')?.parse().ok()?));
        }
    }
    Some(path)
}

/// Calls `f` with the path and key offset of every key under `table`.
fn visit(table: &Table, path: &mut Vec<Step>, f: &mut dyn FnMut(&[Step], usize)) {
    for (key, item) in table.iter() {
        path.push(Step::Key(key.to_owned()));
        if let Some(start) = table.key(key).and_then(|k| k.span()).map(|s| s.start) {
            f(path, start);
        }
        match item {
            Item::Table(t) => visit(t, path, f),
            Item::ArrayOfTables(tables) => {
                for (i, t) in tables.iter().enumerate() {
                    path.push(Step::Index(i));
                    visit(t, path, f);
                    path.pop();
                }
            }
            _ => {}
        }
        path.pop();
    }
}

fn shown(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The item at `path`; with `create`, missing keys are added on the way.
fn item_at<'a>(
    doc: &'a mut DocumentMut,
    path: &[Step],
    create: bool,
) -> Result<&'a mut Item, String> {
    let Some((Step::Key(first), rest)) = path.split_first() else {
        return Err(format!("path `{}` must start with a key", shown(path)));
    };
    let missing = || format!("`{}` is not in the file", shown(path));
    let mut item = if create {
        &mut doc[first.as_str()]
    } else {
        doc.get_mut(first).ok_or_else(missing)?
    };
    for step in rest {
        item = match step {
            // A missing table on the way becomes an inline one (`speech = { … }`).
            Step::Key(k) if create && (item.is_table_like() || item.is_none()) => {
                &mut item[k.as_str()]
            }
            Step::Key(k) => item.get_mut(k.as_str()).ok_or_else(missing)?,
            Step::Index(i) => item.get_mut(*i).ok_or_else(missing)?,
        };
    }
    Ok(item)
}

fn set(doc: &mut DocumentMut, path: &[Step], json: &Json) -> Result<(), String> {
    let mut value = to_value(json, path)?;
    let target = item_at(doc, path, true)?;
    if let Some(old) = target.as_value() {
        *value.decor_mut() = old.decor().clone();
    }
    *target = Item::Value(value);
    Ok(())
}

fn remove(doc: &mut DocumentMut, path: &[Step]) -> Result<(), String> {
    let Some((last, parent)) = path.split_last() else {
        return Err("an empty path names nothing to remove".to_owned());
    };
    let gone = if parent.is_empty() {
        match last {
            Step::Key(k) => doc.remove(k).is_some(),
            Step::Index(_) => false,
        }
    } else {
        let holder = item_at(doc, parent, false)?;
        match (last, holder) {
            (Step::Key(k), holder) => holder
                .as_table_like_mut()
                .and_then(|t| t.remove(k))
                .is_some(),
            (Step::Index(i), Item::ArrayOfTables(tables)) if *i < tables.len() => {
                tables.remove(*i);
                true
            }
            (Step::Index(i), Item::Value(Value::Array(values))) if *i < values.len() => {
                values.remove(*i);
                true
            }
            _ => false,
        }
    };
    if gone {
        Ok(())
    } else {
        Err(format!("`{}` is not in the file", shown(path)))
    }
}

fn append(doc: &mut DocumentMut, path: &[Step], json: &Json) -> Result<(), String> {
    let target = item_at(doc, path, true)?;
    match (target, json) {
        (target @ Item::None, Json::Object(_)) => {
            let mut tables = ArrayOfTables::new();
            tables.push(to_table(json, path)?);
            *target = Item::ArrayOfTables(tables);
        }
        (Item::ArrayOfTables(tables), Json::Object(_)) => tables.push(to_table(json, path)?),
        (target @ Item::None, _) => {
            *target = Item::Value(Value::Array(Array::from_iter([to_value(json, path)?])))
        }
        (Item::Value(Value::Array(values)), _) => {
            values.push_formatted(to_value(json, path)?.decorated(" ", ""))
        }
        _ => {
            return Err(format!(
                "`{}` is not a list: nothing can be added to it",
                shown(path)
            ));
        }
    }
    Ok(())
}

/// A JSON object as a TOML table (`[[heroes]]` entry): `name` and `side`
/// first, as in the bundled files, then the other keys.
fn to_table(json: &Json, path: &[Step]) -> Result<Table, String> {
    let mut table = Table::new();
    if let Json::Object(map) = json {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort_by_key(|k| (k.as_str() != "name", k.as_str() != "side"));
        for k in keys {
            table.insert(k, Item::Value(to_value(&map[k], path)?));
        }
    }
    Ok(table)
}

/// A JSON value as a TOML value; `null` has no TOML form.
fn to_value(json: &Json, path: &[Step]) -> Result<Value, String> {
    Ok(match json {
        Json::Bool(b) => Value::from(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i),
            None => Value::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| to_value(v, path))
                .collect::<Result<Array, String>>()?,
        ),
        Json::Object(map) => {
            let mut table = InlineTable::new();
            for (k, v) in map {
                table.insert(k, to_value(v, path)?);
            }
            Value::InlineTable(table)
        }
        Json::Null => {
            return Err(format!(
                "`{}`: a value cannot be empty (remove the key instead)",
                shown(path)
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TEXT: &str = "system = \"gurps\" # the rules\n\n[[sides]]\nname = \"A\"\nstrategy = 12   # skill\n\n[[heroes]]\nname = \"T\"\nrisk = 0\n";

    fn edits(value: Json) -> Vec<Edit> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_set_keeps_the_comment_and_every_other_line() {
        let out = apply(
            TEXT,
            &edits(json!([{"op":"set","path":["sides",0,"strategy"],"value":15}])),
        )
        .unwrap();
        assert_eq!(out, TEXT.replace("strategy = 12", "strategy = 15"));
    }

    #[test]
    fn a_new_key_lands_in_its_table() {
        let out = apply(
            TEXT,
            &edits(json!([{"op":"set","path":["heroes",0,"luck"],"value":true}])),
        )
        .unwrap();
        assert_eq!(document(&out).unwrap()["heroes"][0]["luck"], json!(true));
        assert!(out.starts_with("system = \"gurps\" # the rules\n"));
    }

    #[test]
    fn heroes_are_added_and_removed() {
        let out = apply(
            TEXT,
            &edits(
                json!([{"op":"append","path":["heroes"],"value":{"name":"U","risk":-2}},
                           {"op":"remove","path":["heroes",0]}]),
            ),
        )
        .unwrap();
        assert_eq!(
            document(&out).unwrap()["heroes"],
            json!([{"name":"U","risk":-2}])
        );
    }

    #[test]
    fn a_missing_path_or_an_empty_value_is_refused() {
        let refused = |e: Json| apply(TEXT, &edits(e)).unwrap_err();
        assert!(
            refused(json!([{"op":"remove","path":["heroes",3]}]))
                .contains("`heroes[3]` is not in the file")
        );
        assert!(
            refused(json!([{"op":"set","path":["name"],"value":null}])).contains("cannot be empty")
        );
        assert!(
            refused(json!([{"op":"append","path":["system"],"value":1}])).contains("not a list")
        );
    }

    #[test]
    fn an_inline_table_is_edited_in_place_or_written_when_missing() {
        let text =
            "[[sides]]\nname = \"A\"\nquartermaster = { wits = 2, logistics = 3 }   # optional\n";
        let out = apply(
            text,
            &edits(json!([
                {"op":"set","path":["sides",0,"quartermaster","wits"],"value":4},
                {"op":"set","path":["sides",0,"speech","wits"],"value":3},
            ])),
        )
        .unwrap();
        assert!(
            out.contains("quartermaster = { wits = 4, logistics = 3 }   # optional\n"),
            "{out}"
        );
        assert_eq!(
            document(&out).unwrap()["sides"][0]["speech"],
            json!({"wits": 3})
        );
    }

    #[test]
    fn a_message_key_is_a_path() {
        assert_eq!(
            path_of_key("heroes[4].tactics (Cato)"),
            Some(vec![
                Step::Key("heroes".into()),
                Step::Index(4),
                Step::Key("tactics".into())
            ])
        );
        assert_eq!(
            path_of_key("rows.0.rear.damage"),
            Some(vec![
                Step::Key("rows".into()),
                Step::Index(0),
                Step::Key("rear".into()),
                Step::Key("damage".into())
            ])
        );
        assert_eq!(path_of_key("sides[x].name"), None);
        assert_eq!(path_of_key("TOML parse error"), None);
    }

    #[test]
    fn a_line_names_its_key() {
        assert_eq!(
            path_at_line(TEXT, 5),
            Some(vec![
                Step::Key("sides".into()),
                Step::Index(0),
                Step::Key("strategy".into())
            ])
        );
        assert_eq!(
            path_at_line(TEXT, 1),
            Some(vec![Step::Key("system".into())])
        );
        assert_eq!(path_at_line(TEXT, 2), None);
    }
}
