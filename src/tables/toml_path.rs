//! Dotted paths into a TOML document (`heroes.Titus.risk`,
//! `rows.C.column`, `rows.2.engaged.damage`): how `--set`, `solve --vary`,
//! `sensitivity --knobs` and a table's cell edits name one value.
//!
//! Sections and keys are named as the file names them. A list of sections
//! (`[[heroes]]`, `[[rows]]`, `rows = [{…}, …]`) is indexed by an entry's
//! `name` or `label`, or by its position counted from 0; a list of values
//! (`margins = [-7, -6]`) by position from 0.

use anyhow::{Result, anyhow, bail};
use toml::Value;

/// Sets the value at `path` in `root`, adding the last key to its section
/// if it is absent (the file's own checks then say whether it belongs
/// there). Errors name the part of the path that does not exist and list
/// what does.
pub fn set(root: &mut toml::Table, path: &[String], value: Value) -> Result<()> {
    let (last, parents) = path.split_last().ok_or_else(|| anyhow!("an empty path"))?;
    let shown = path.join(".");
    let mut node = root;
    let mut walked: Vec<&str> = Vec::new();
    let mut rest = parents;
    while let Some((key, tail)) = rest.split_first() {
        walked.push(key);
        let child = node
            .get_mut(key.as_str())
            .ok_or_else(|| missing(&walked, &shown))?;
        match child {
            Value::Table(inner) => {
                node = inner;
                rest = tail;
            }
            Value::Array(items) => {
                let (selector, after) = match tail.split_first() {
                    Some(split) => split,
                    None => (last, &[][..]),
                };
                let i = position(items, selector, &walked, &shown)?;
                walked.push(selector);
                if tail.is_empty() {
                    if items[i].is_table() {
                        bail!("`{shown}` names an entry, not a key inside it, e.g. {shown}.<key>");
                    }
                    items[i] = value;
                    return Ok(());
                }
                match &mut items[i] {
                    Value::Table(element) => {
                        node = element;
                        rest = after;
                    }
                    _ => bail!(
                        "`{}` is a value, not a section (in `{shown}`)",
                        walked.join(".")
                    ),
                }
            }
            _ => bail!(
                "`{}` is a value, not a section (in `{shown}`)",
                walked.join(".")
            ),
        }
    }
    node.insert(last.clone(), value);
    Ok(())
}

/// The value at `path` in `root`, if there is one.
pub fn get<'a>(root: &'a toml::Table, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut here = root.get(first.as_str())?;
    for key in rest {
        here = match here {
            Value::Table(t) => t.get(key.as_str())?,
            Value::Array(items) => &items[selected(items, key)?],
            _ => return None,
        };
    }
    Some(here)
}

/// The value at `path` in `root`, or an error naming the first part of the
/// path that does not exist and what does exist there.
pub fn find<'a>(root: &'a toml::Table, path: &[String]) -> Result<&'a Value> {
    let shown = path.join(".");
    let (first, rest) = path.split_first().ok_or_else(|| anyhow!("an empty path"))?;
    let keys = |t: &toml::Table| t.keys().cloned().collect::<Vec<_>>().join(", ");
    let mut here = root.get(first.as_str()).ok_or_else(|| {
        anyhow!(
            "there is no `{first}` (in `{shown}`); allowed: {}",
            keys(root)
        )
    })?;
    let mut walked = vec![first.as_str()];
    for key in rest {
        here = match here {
            Value::Table(t) => t.get(key.as_str()).ok_or_else(|| {
                anyhow!(
                    "`{}` has no `{key}` (in `{shown}`); allowed: {}",
                    walked.join("."),
                    keys(t)
                )
            })?,
            Value::Array(items) => &items[position(items, key, &walked, &shown)?],
            _ => bail!(
                "`{}` is a value, not a section (in `{shown}`)",
                walked.join(".")
            ),
        };
        walked.push(key);
    }
    Ok(here)
}

/// The name an entry of a list of sections goes by: its `name`, else its
/// `label`.
pub fn entry_name(entry: &Value) -> Option<&str> {
    entry
        .get("name")
        .or_else(|| entry.get("label"))
        .and_then(Value::as_str)
}

/// The entry of `items` that `selector` names (by name or label), or its
/// position from 0.
fn selected(items: &[Value], selector: &str) -> Option<usize> {
    items
        .iter()
        .position(|item| entry_name(item) == Some(selector))
        .or_else(|| selector.parse::<usize>().ok().filter(|&i| i < items.len()))
}

fn position(items: &[Value], selector: &str, walked: &[&str], shown: &str) -> Result<usize> {
    selected(items, selector).ok_or_else(|| {
        let list = walked.join(".");
        let names: Vec<&str> = items.iter().filter_map(entry_name).collect();
        let allowed = if names.len() == items.len() && !names.is_empty() {
            names
                .iter()
                .map(|n| format!("{list}.{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            format!("{list}.0 to {list}.{}", items.len().saturating_sub(1))
        };
        anyhow!("`{list}` has no entry `{selector}` (in `{shown}`); allowed: {allowed}")
    })
}

fn missing(walked: &[&str], shown: &str) -> anyhow::Error {
    anyhow!("there is no `{}` (in `{shown}`)", walked.join("."))
}

/// A place in a document being edited ([`set_keeping_layout`]).
enum Node<'a> {
    Item(&'a mut toml_edit::Item),
    Table(&'a mut toml_edit::Table),
    Value(&'a mut toml_edit::Value),
}

impl<'a> Node<'a> {
    /// The key (`Ok`) or list position (`Err`) `step` names here.
    fn child(self, step: &Result<&str, usize>) -> Option<Node<'a>> {
        use toml_edit::{Item, Value as V};
        match (self, *step) {
            (Node::Item(Item::Table(t)) | Node::Table(t), Ok(key)) => {
                t.get_mut(key).map(Node::Item)
            }
            (Node::Item(Item::ArrayOfTables(list)), Err(i)) => list.get_mut(i).map(Node::Table),
            (Node::Item(Item::Value(v)), step) => Node::Value(v).child(&step),
            (Node::Value(V::InlineTable(t)), Ok(key)) => t.get_mut(key).map(Node::Value),
            (Node::Value(V::Array(list)), Err(i)) => list.get_mut(i).map(Node::Value),
            _ => None,
        }
    }
}

/// The text of a TOML file with each `(path, value)` set, its comments,
/// key order and layout kept: only the values set change. Every path must
/// exist (a table's cell, as [`set`] names it).
pub fn set_keeping_layout(text: &str, edits: &[(Vec<String>, Value)]) -> Result<String> {
    let root: toml::Table =
        toml::from_str(text).map_err(|e| anyhow!("{}", e.to_string().trim()))?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| anyhow!("{}", e.to_string().trim()))?;
    for (path, value) in edits {
        let shown = path.join(".");
        // Lists by position, as the parsed file resolves their names.
        let mut steps: Vec<Result<&str, usize>> = Vec::new();
        let mut here: Option<&Value> = None;
        for key in path {
            let next = match here {
                None => root.get(key.as_str()).map(|v| (Ok(key.as_str()), v)),
                Some(Value::Table(t)) => t.get(key.as_str()).map(|v| (Ok(key.as_str()), v)),
                Some(Value::Array(items)) => selected(items, key).map(|i| (Err(i), &items[i])),
                Some(_) => None,
            };
            let (step, value) = next.ok_or_else(|| anyhow!("there is no `{shown}` in the file"))?;
            steps.push(step);
            here = Some(value);
        }
        let new: toml_edit::Value = value
            .to_string()
            .parse()
            .map_err(|e: toml_edit::TomlError| anyhow!("{shown} = {value}: {e}"))?;
        let mut node = Node::Item(doc.as_item_mut());
        for step in &steps {
            node = node
                .child(step)
                .ok_or_else(|| anyhow!("there is no `{shown}` in the file"))?;
        }
        let old = match node {
            Node::Item(toml_edit::Item::Value(v)) | Node::Value(v) => v,
            _ => bail!("`{shown}` names a section, not a value"),
        };
        let decor = old.decor().clone();
        *old = new;
        *old.decor_mut() = decor;
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> Vec<String> {
        text.split('.').map(str::to_owned).collect()
    }

    #[test]
    fn lists_are_indexed_by_name_label_or_position() {
        let mut doc: toml::Table = toml::from_str(
            "days = 1\n[[heroes]]\nname = \"Titus\"\nrisk = 0\n[[heroes]]\nname = \"Ilsa\"\n\
             [[rows]]\nlabel = \"A\"\nmargins = [-2, -1]\n[[rows]]\nlabel = \"B\"\n",
        )
        .unwrap();
        set(&mut doc, &path("heroes.Ilsa.risk"), Value::Integer(-3)).unwrap();
        assert_eq!(doc["heroes"][1]["risk"], Value::Integer(-3));
        set(&mut doc, &path("heroes.0.risk"), Value::Integer(2)).unwrap();
        assert_eq!(doc["heroes"][0]["risk"], Value::Integer(2));
        set(&mut doc, &path("rows.B.column"), Value::String("C".into())).unwrap();
        assert_eq!(doc["rows"][1]["column"], Value::String("C".into()));
        set(&mut doc, &path("rows.A.margins.1"), Value::Integer(0)).unwrap();
        assert_eq!(doc["rows"][0]["margins"][1], Value::Integer(0));
        assert_eq!(
            get(&doc, &path("rows.A.margins.1")),
            Some(&Value::Integer(0))
        );
        assert_eq!(get(&doc, &path("rows.Z")), None);
    }

    #[test]
    fn errors_name_what_exists() {
        let mut doc: toml::Table =
            toml::from_str("days = 1\n[[heroes]]\nname = \"Titus\"\n[[heroes]]\nname = \"Ilsa\"\n")
                .unwrap();
        let err = set(&mut doc, &path("heroes.Tutus.risk"), Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`heroes` has no entry `Tutus`")
                && err.contains("heroes.Titus, heroes.Ilsa"),
            "{err}"
        );
        let err = set(&mut doc, &path("days.x"), Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`days` is a value, not a section"), "{err}");
        let err = set(&mut doc, &path("sides.A.x"), Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("there is no `sides`"), "{err}");
        let err = set(&mut doc, &path("heroes.Ilsa"), Value::Integer(1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("names an entry, not a key"), "{err}");
    }

    #[test]
    fn a_value_set_keeping_layout_changes_only_that_value() {
        let text = "#:schema x.json\n# the table\nkind = \"survival\"  # its kind\n\n[[rows]]\nlabel = \"A\"\ncolumn = \"A\"   # light\n\n[[rows]]\nlabel = \"B\"\ncolumn = \"B\"\nmargins = [1, 2]\n\n[inline]\nrows = [{ label = \"x\", hp = 1 }, { label = \"y\", hp = 2 }]\n";
        let edits = [
            (path("rows.A.column"), Value::String("C".into())),
            (path("rows.1.margins.0"), Value::Integer(5)),
            (path("inline.rows.y.hp"), Value::Integer(3)),
        ];
        let edited = set_keeping_layout(text, &edits).unwrap();
        assert_eq!(
            edited,
            text.replace("column = \"A\"   # light", "column = \"C\"   # light")
                .replace("[1, 2]", "[5, 2]")
                .replace("hp = 2 }", "hp = 3 }")
        );
        let missing = set_keeping_layout(text, &[(path("rows.Z.column"), Value::Integer(1))]);
        assert!(format!("{:#}", missing.unwrap_err()).contains("rows.Z.column"));
        let section = set_keeping_layout(text, &[(path("rows.A"), Value::Integer(1))]);
        assert!(format!("{:#}", section.unwrap_err()).contains("names a section"));
    }
}
