//! Every rule table as a grid for the page: the table's lists of rows as
//! grids (a row per entry, a column per key), its other keys as a list of
//! settings, each cell typed from the table's JSON Schema (numbers with
//! their range, words with their choices), stand-in cells marked, with the
//! edit path that changes it and the sweep path (`tables.NAME.rows.D.column`)
//! the CLI's `--set`, `solve --vary` and `sensitivity --cells` name it by.

use serde::Serialize;
use serde_json::{Value as Json, json};
use toml::Value;

use super::edit::Step;
use crate::report::kit::words;

/// Keys of a table file that are not cells.
const NOT_CELLS: [&str; 3] = ["kind", "stand_ins", crate::tables::orders::KEY];

/// A table as the page draws it.
#[derive(Debug, Serialize)]
pub struct Grid {
    /// The table's name in scenarios (`survival`).
    pub name: String,
    /// The schema's title (`GURPS table: survival`).
    pub title: String,
    /// The schema's description of the file.
    pub description: String,
    /// Its settings whose published value is unknown.
    pub stand_ins: Vec<String>,
    /// Its parts: the settings outside any list first, then each list.
    pub sections: Vec<Section>,
}

/// A part of a table: a list of rows (`rows`, `ts_ratio`), or the keys of
/// one section (`weights`; the file's top level has key `""`).
#[derive(Debug, Serialize)]
pub struct Section {
    /// Its key path in the file, `.`-joined (`""` for the top level).
    pub key: String,
    /// A title for people (`Ts ratio`, `Settings`).
    pub title: String,
    /// The schema's description.
    pub description: Option<String>,
    /// Whether it is a list of rows (a grid) rather than one row of settings.
    pub list: bool,
    /// Its columns, in the order the rows first write them.
    pub columns: Vec<Column>,
    /// Its rows, in the file's order.
    pub rows: Vec<Row>,
}

/// A column: a key within a row (`min_margin`, `rear.damage`).
#[derive(Debug, Serialize)]
pub struct Column {
    /// The key path within the row, `.`-joined.
    pub key: String,
    /// A title for people (`Min margin`, `Rear · damage`).
    pub title: String,
    /// What a cell of it may hold.
    pub input: Input,
}

/// One row: an entry of a list, or a section's settings.
#[derive(Debug, Serialize)]
pub struct Row {
    /// How the CLI names the row: its label or name, else its position.
    pub label: String,
    /// One cell per column; `None` where the row leaves the key out.
    pub cells: Vec<Option<Cell>>,
}

/// One value of the table.
#[derive(Debug, Serialize)]
pub struct Cell {
    /// The value in the file.
    pub value: Json,
    /// The edit path (`["rows", 3, "column"]`) of `/api/edit`.
    pub path: Vec<Step>,
    /// The CLI's name of the cell: `tables.survival.rows.D.column`.
    pub sweep: String,
    /// Whether the table marks it a stand-in.
    pub stand_in: bool,
}

/// What a column's cells may hold, from the schema.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Input {
    /// `integer`, `number`, `choice`, `flag`, `text` or `list`.
    pub kind: String,
    /// Smallest allowed number, if the schema says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Largest allowed number, if the schema says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// The words a choice may be.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// The schema's description of the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The range or choices in a few words (`0 to 20`).
    pub hint: String,
}

/// The grid of table `name`, read from `text` (its JSON `schema` types the
/// cells). A text that is not TOML gets the parser's message.
pub fn grid(name: &str, text: &str, schema: &Json) -> Result<Grid, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let stand_ins: Vec<String> = table
        .get("stand_ins")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut walk = Walk {
        name,
        schema,
        stand_ins: &stand_ins,
        sections: Vec::new(),
    };
    walk.table(&table, schema, &mut Vec::new(), &mut Vec::new());
    // The settings outside any list first.
    walk.sections.sort_by_key(|s| s.list);
    let sections = walk.sections;
    Ok(Grid {
        name: name.to_owned(),
        title: text_of(schema, "title").unwrap_or_else(|| name.to_owned()),
        description: text_of(schema, "description").unwrap_or_default(),
        stand_ins,
        sections,
    })
}

struct Walk<'a> {
    name: &'a str,
    schema: &'a Json,
    stand_ins: &'a [String],
    sections: Vec<Section>,
}

impl Walk<'_> {
    /// The keys of a section (not a list entry): its plain values are one
    /// row of settings, its lists of tables are sections of their own.
    fn table(
        &mut self,
        table: &toml::Table,
        node: &Json,
        path: &mut Vec<Step>,
        sweep: &mut Vec<String>,
    ) {
        for (key, value) in table {
            if path.is_empty() && NOT_CELLS.contains(&key.as_str()) {
                continue;
            }
            let child = self.resolve(property(node, key));
            path.push(Step::Key(key.clone()));
            sweep.push(key.clone());
            match value {
                Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_table) => {
                    self.list(items, &child, path, sweep)
                }
                // A section (`[weights]`) groups its keys as settings.
                Value::Table(inner) if !inner.values().any(Value::is_table) => {
                    for (k, v) in inner {
                        let leaf = self.resolve(property(&child, k));
                        path.push(Step::Key(k.clone()));
                        sweep.push(k.clone());
                        self.setting(&sweep[..sweep.len() - 1], k, v, &leaf, path, sweep, &child);
                        path.pop();
                        sweep.pop();
                    }
                }
                Value::Table(inner) => self.table(inner, &child, path, sweep),
                _ => {
                    let parent = &sweep[..sweep.len() - 1];
                    self.setting(parent, key, value, &child, path, sweep, node)
                }
            }
            path.pop();
            sweep.pop();
        }
    }

    /// One value outside any list, in the settings of its section.
    #[allow(clippy::too_many_arguments)]
    fn setting(
        &mut self,
        section: &[String],
        key: &str,
        value: &Value,
        node: &Json,
        path: &[Step],
        sweep: &[String],
        holder: &Json,
    ) {
        let key_of = section.join(".");
        let at = match self
            .sections
            .iter()
            .position(|s| !s.list && s.key == key_of)
        {
            Some(at) => at,
            None => {
                self.sections.push(Section {
                    title: if key_of.is_empty() {
                        "Settings".to_owned()
                    } else {
                        words::setting(&key_of)
                    },
                    description: if key_of.is_empty() {
                        None
                    } else {
                        text_of(holder, "description")
                    },
                    key: key_of,
                    list: false,
                    columns: Vec::new(),
                    rows: vec![Row {
                        label: String::new(),
                        cells: Vec::new(),
                    }],
                });
                self.sections.len() - 1
            }
        };
        let cell = self.cell(value, path, sweep);
        let section = &mut self.sections[at];
        section.columns.push(Column {
            key: key.to_owned(),
            title: words::setting(key),
            input: input(node, value),
        });
        section.rows[0].cells.push(Some(cell));
    }

    /// A list of tables: one row per entry, a column per key path within.
    fn list(
        &mut self,
        items: &[Value],
        node: &Json,
        path: &mut Vec<Step>,
        sweep: &mut Vec<String>,
    ) {
        let item_node = self.resolve(node.get("items").unwrap_or(&Json::Null));
        let mut section = Section {
            key: sweep.join("."),
            title: words::setting(sweep.last().map_or("", String::as_str)),
            description: text_of(node, "description"),
            list: true,
            columns: Vec::new(),
            rows: Vec::new(),
        };
        for (i, item) in items.iter().enumerate() {
            let label = crate::tables::toml_path::entry_name(item)
                .map_or_else(|| i.to_string(), str::to_owned);
            path.push(Step::Index(i));
            sweep.push(label.clone());
            let mut leaves = Vec::new();
            if let Value::Table(row) = item {
                self.leaves(row, &item_node, &mut Vec::new(), path, sweep, &mut leaves);
            }
            let mut cells: Vec<Option<Cell>> = Vec::new();
            for (key, input, cell) in leaves {
                let at = match section.columns.iter().position(|c| c.key == key) {
                    Some(at) => at,
                    None => {
                        section.columns.push(Column {
                            title: words::setting(&key),
                            key,
                            input,
                        });
                        section.columns.len() - 1
                    }
                };
                if cells.len() <= at {
                    cells.resize_with(at + 1, || None);
                }
                cells[at] = Some(cell);
            }
            section.rows.push(Row { label, cells });
            path.pop();
            sweep.pop();
        }
        for row in &mut section.rows {
            row.cells.resize_with(section.columns.len(), || None);
        }
        // What names a row and where it applies first, then what it does.
        let rank = |key: &str| match key {
            "label" | "name" => 0,
            "roll" | "margins" | "tl" => 1,
            _ if key.starts_with("min_") || key.starts_with("max_") => 1,
            _ => 2,
        };
        let mut order: Vec<usize> = (0..section.columns.len()).collect();
        order.sort_by_key(|&c| rank(&section.columns[c].key));
        let mut columns: Vec<Option<Column>> = section.columns.drain(..).map(Some).collect();
        section.columns = order.iter().filter_map(|&c| columns[c].take()).collect();
        for row in &mut section.rows {
            let mut cells: Vec<Option<Cell>> = row.cells.drain(..).collect();
            row.cells = order.iter().map(|&c| cells[c].take()).collect();
        }
        self.sections.push(section);
    }

    /// Every value of a list entry, with its key path within the entry.
    fn leaves(
        &self,
        table: &toml::Table,
        node: &Json,
        within: &mut Vec<String>,
        path: &mut Vec<Step>,
        sweep: &mut Vec<String>,
        out: &mut Vec<(String, Input, Cell)>,
    ) {
        for (key, value) in table {
            let child = self.resolve(property(node, key));
            within.push(key.clone());
            path.push(Step::Key(key.clone()));
            sweep.push(key.clone());
            match value {
                Value::Table(inner) => self.leaves(inner, &child, within, path, sweep, out),
                _ => out.push((
                    within.join("."),
                    input(&child, value),
                    self.cell(value, path, sweep),
                )),
            }
            within.pop();
            path.pop();
            sweep.pop();
        }
    }

    fn cell(&self, value: &Value, path: &[Step], sweep: &[String]) -> Cell {
        let stand_in = self.stand_ins.iter().any(|s| {
            let marked: Vec<&str> = s.split('.').collect();
            marked.len() <= sweep.len() && marked.iter().zip(sweep).all(|(m, p)| *m == p)
        });
        Cell {
            value: serde_json::to_value(value).unwrap_or(Json::Null),
            path: path.to_vec(),
            sweep: format!("tables.{}.{}", self.name, sweep.join(".")),
            stand_in,
        }
    }

    /// The schema node behind `$ref` and one-entry `allOf`/`anyOf`, keeping
    /// the outer description.
    fn resolve(&self, node: &Json) -> Json {
        let mut out = node.clone();
        for _ in 0..16 {
            let Json::Object(map) = &out else {
                return out;
            };
            let inner = if let Some(Json::String(r)) = map.get("$ref") {
                let target = r.trim_start_matches("#/definitions/");
                self.schema["definitions"][target].clone()
            } else if let Some(Json::Array(one)) = map.get("allOf").or_else(|| map.get("anyOf"))
                && one.len() == 1
            {
                one[0].clone()
            } else {
                return out;
            };
            let mut merged = inner;
            if let (Json::Object(m), Json::Object(outer)) = (&mut merged, &out) {
                for (k, v) in outer {
                    if !matches!(k.as_str(), "$ref" | "allOf" | "anyOf") {
                        m.insert(k.clone(), v.clone());
                    }
                }
            }
            out = merged;
        }
        out
    }
}

fn property<'a>(node: &'a Json, key: &str) -> &'a Json {
    node.get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| node.get("additionalProperties"))
        .unwrap_or(&Json::Null)
}

fn text_of(node: &Json, key: &str) -> Option<String> {
    node.get(key).and_then(Json::as_str).map(str::to_owned)
}

/// What a value at `node` may be, for its field.
fn input(node: &Json, value: &Value) -> Input {
    let description = text_of(node, "description");
    let choices: Vec<String> = node
        .get("oneOf")
        .or_else(|| node.get("enum"))
        .and_then(Json::as_array)
        .map(|all| {
            all.iter()
                .filter_map(|o| o.get("const").unwrap_or(o).as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let number = |k: &str| node.get(k).and_then(Json::as_f64);
    let (minimum, maximum) = (number("minimum"), number("maximum"));
    let kind = if !choices.is_empty() {
        "choice"
    } else {
        match value {
            Value::Integer(_) => "integer",
            Value::Float(_) => "number",
            Value::Boolean(_) => "flag",
            Value::Array(_) => "list",
            _ => "text",
        }
    };
    let show = |x: f64| {
        let text = if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            x.to_string()
        };
        text.replacen('-', "\u{2212}", 1)
    };
    let hint = match (minimum, maximum) {
        _ if !choices.is_empty() => choices.join(", "),
        (Some(lo), Some(hi)) => format!("{} to {}", show(lo), show(hi)),
        (Some(lo), None) => format!("at least {}", show(lo)),
        (None, Some(hi)) => format!("at most {}", show(hi)),
        (None, None) => String::new(),
    };
    Input {
        kind: kind.to_owned(),
        minimum,
        maximum,
        choices,
        description,
        hint,
    }
}

/// The lowest and highest value a scenario's `schema` allows at a
/// setting's sweep path (`heroes.Titus.risk`: a list's entry is named by
/// its name, not its place), where the schema says.
pub fn range_at(schema: &Json, path: &[String]) -> (Option<f64>, Option<f64>) {
    let walk = Walk {
        name: "",
        schema,
        stand_ins: &[],
        sections: Vec::new(),
    };
    let mut node = walk.resolve(schema);
    let mut steps = path.iter();
    while let Some(step) = steps.next() {
        // A list's entry: the step names it, the schema of its items types it.
        node = match node.get("items") {
            Some(items) => walk.resolve(items),
            None => walk.resolve(property(&node, step)),
        };
        if node.get("items").is_none() && node.get("properties").is_none() {
            // An optional value (`anyOf` a type and null): its type's bounds.
            if let Some(Json::Array(any)) = node.get("anyOf")
                && let Some(typed) = any
                    .iter()
                    .find(|n| n.get("type") != Some(&Json::from("null")))
            {
                node = walk.resolve(typed);
            }
            if steps.len() == 0 {
                break;
            }
        }
    }
    let number = |k: &str| node.get(k).and_then(Json::as_f64);
    (number("minimum"), number("maximum"))
}

/// The cell a message quotes (`rows[0].rear.damage`, `` `rows` ``), if
/// the table's text has it: the longest such key path found.
pub fn cell_named(message: &str, text: &str) -> Option<Vec<Step>> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    let exists = |path: &[Step]| {
        let mut at = doc.get(match path.first()? {
            Step::Key(k) => k.as_str(),
            Step::Index(_) => return None,
        })?;
        for step in &path[1..] {
            at = match step {
                Step::Key(k) => at.get(k.as_str())?,
                Step::Index(i) => at.get(*i)?,
            };
        }
        Some(())
    };
    message
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | ':' | '='))
        .filter_map(super::edit::path_of_key)
        .filter(|p| exists(p).is_some())
        .max_by_key(Vec::len)
}

/// The grid as the API answers it, beside the table's text.
pub fn reply(grid: &Grid, text: &str, errors: Vec<Json>) -> Json {
    json!({ "grid": grid, "toml": text, "errors": errors })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::serve::edit::{Edit, apply, document};

    fn grid_of(name: &str, text: &str) -> Grid {
        let schema = crate::scenario::schema::find(name).unwrap().schema();
        grid(name, text, &schema).unwrap()
    }

    fn cells(g: &Grid) -> impl Iterator<Item = &Cell> {
        g.sections
            .iter()
            .flat_map(|s| &s.rows)
            .flat_map(|r| r.cells.iter().flatten())
    }

    /// Every built-in table (so every table of every bundled battle, none
    /// of which names a file) back to TOML from its grid: every value of
    /// the file is a cell, and writing each cell's value at its path
    /// gives the file back byte for byte, comments kept.
    #[test]
    fn every_table_round_trips_through_its_grid() {
        for table in crate::systems::built_ins() {
            let g = grid_of(table.name, table.text);
            let edits: Vec<Edit> = cells(&g)
                .map(|c| Edit::Set {
                    path: c.path.clone(),
                    value: c.value.clone(),
                })
                .collect();
            assert_eq!(
                apply(table.text, &edits).unwrap(),
                table.text,
                "{}",
                table.name
            );
            // Every value of the file is in the grid: the leaves counted
            // apart from the grid, with `kind`, `stand_ins` and `orders` aside.
            fn leaves(v: &Json) -> usize {
                match v {
                    Json::Object(m) => m.values().map(leaves).sum(),
                    Json::Array(items)
                        if items.iter().all(Json::is_object) && !items.is_empty() =>
                    {
                        items.iter().map(leaves).sum()
                    }
                    _ => 1,
                }
            }
            let mut doc = document(table.text).unwrap();
            doc.as_object_mut().unwrap().remove("kind");
            doc.as_object_mut().unwrap().remove("stand_ins");
            doc.as_object_mut()
                .unwrap()
                .remove(crate::tables::orders::KEY);
            assert_eq!(cells(&g).count(), leaves(&doc), "{}", table.name);
            // Each cell's sweep path names its value, as `--set` reads it.
            let parsed: toml::Table = toml::from_str(table.text).unwrap();
            for c in cells(&g) {
                let path: Vec<String> = c.sweep.split('.').skip(2).map(str::to_owned).collect();
                let found = crate::tables::toml_path::get(&parsed, &path).unwrap();
                assert_eq!(serde_json::to_value(found).unwrap(), c.value, "{}", c.sweep);
            }
        }
    }

    #[test]
    fn cells_are_typed_and_stand_ins_marked() {
        let survival = crate::systems::built_ins()
            .into_iter()
            .find(|t| t.name == "survival")
            .unwrap();
        let g = grid_of("survival", survival.text);
        let rows = &g.sections[0];
        let column = rows.columns.iter().find(|c| c.key == "column").unwrap();
        assert_eq!(column.input.kind, "choice");
        assert_eq!(column.input.choices, ["A", "B", "C", "D"]);
        let hp = rows.columns.iter().find(|c| c.key == "hp").unwrap();
        assert_eq!(
            (hp.input.minimum, hp.input.maximum),
            (Some(0.0), Some(20.0))
        );
        assert_eq!(hp.input.hint, "0 to 20");
        assert_eq!(rows.columns[0].key, "label");
        let chart = crate::systems::built_ins()
            .into_iter()
            .find(|t| t.name == "battle_chart")
            .unwrap();
        let g = grid_of("battle_chart", chart.text);
        assert!(
            cells(&g).all(|c| c.stand_in),
            "battle_chart marks `rows` a stand-in"
        );
        let strategy = crate::systems::built_ins()
            .into_iter()
            .find(|t| t.name == "strategy")
            .unwrap();
        let g = grid_of("strategy", strategy.text);
        assert!(!cells(&g).any(|c| c.stand_in));
        assert!(g.sections.iter().any(|s| s.key == "ts_ratio" && s.list));
    }

    /// Casualties marks its rows one by one: the two found rows (margins
    /// −3 and +3) are plain, every other row a stand-in.
    #[test]
    fn stand_ins_marked_row_by_row_leave_the_found_rows_plain() {
        let casualties = crate::systems::built_ins()
            .into_iter()
            .find(|t| t.name == "casualties")
            .unwrap();
        let g = grid_of("casualties", casualties.text);
        let rows = g.sections.iter().find(|s| s.key == "rows").unwrap();
        let marked: Vec<bool> = (rows.rows.iter())
            .map(|r| r.cells.iter().flatten().all(|c| c.stand_in))
            .collect();
        let plain: Vec<bool> = (rows.rows.iter())
            .map(|r| r.cells.iter().flatten().all(|c| !c.stand_in))
            .collect();
        assert_eq!(marked.len(), 17);
        for (i, (m, p)) in marked.iter().zip(&plain).enumerate() {
            let found = i == 5 || i == 11;
            assert_eq!((*m, *p), (!found, found), "row {i}");
        }
    }

    #[test]
    fn a_message_names_its_cell() {
        let text =
            "kind = \"battle_chart\"\n[[rows]]\nmin_result = 1\nrear = { damage = \"9x\" }\n";
        assert_eq!(
            cell_named(
                "battle_chart.toml:4: rows.0.rear.damage = \"9x\": expected XkY",
                text
            ),
            Some(vec![
                Step::Key("rows".into()),
                Step::Index(0),
                Step::Key("rear".into()),
                Step::Key("damage".into())
            ])
        );
        assert_eq!(
            cell_named("`rows` must list at least two rows", text),
            Some(vec![Step::Key("rows".into())])
        );
        assert_eq!(cell_named("nothing here", text), None);
    }
}
