//! A posted battle's inputs as files a command reads: the scenario, the
//! `[tables]` files it names (copied beside it and named by file name, so
//! the scenario reads them wherever it lies), and the tables edited on the
//! page. The server writes them for the library call that answers, and
//! again beside the answer, so the record's command line (which names them
//! by file name) asks the same question from a folder holding them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use super::edit::{self, Edit};

/// A `[tables]` entry of a posted scenario, as found in the scenarios folder.
pub struct ScenarioTable {
    /// The table's name.
    pub table: String,
    /// Named as `[tables.NAME] file`, the table whose cells are set.
    pub edited: bool,
    /// Its text, as read when its path was checked.
    pub text: String,
}

/// The files of one posted battle.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// Every file: its name and text, the scenario first.
    files: Vec<(String, String)>,
    /// The page's tables: the table's name and the file's name, as
    /// `--table NAME=FILE` names them.
    pub tables: Vec<(String, String)>,
}

impl Inputs {
    /// The inputs of the scenario `toml` posted as `name` (a `.toml` path
    /// in the scenarios folder; its file name is kept), which names the
    /// `[tables]` files `found`, with the page's tables `page`.
    pub fn new(
        toml: &str,
        name: &str,
        found: &[ScenarioTable],
        page: &BTreeMap<String, String>,
    ) -> Inputs {
        let scenario = Path::new(name)
            .file_name()
            .map_or_else(|| name.to_owned(), |n| n.to_string_lossy().into_owned());
        let copy = |table: &str| format!("{table}.scenario-table.toml");
        let mut files = vec![(scenario, local_tables(toml, found, copy))];
        files.extend(found.iter().map(|t| (copy(&t.table), t.text.clone())));
        let mut tables = Vec::new();
        for (table, text) in page {
            let file = format!("{table}.table.toml");
            files.push((file.clone(), text.clone()));
            tables.push((table.clone(), file));
        }
        Inputs { files, tables }
    }

    /// The scenario's file name.
    pub fn scenario(&self) -> &str {
        &self.files[0].0
    }

    /// The scenario's text, as written.
    pub fn scenario_text(&self) -> &str {
        &self.files[0].1
    }

    /// Every file's name.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.files.iter().map(|(name, _)| name.clone())
    }

    /// Writes every file into `folder` (which must exist).
    pub fn write_into(&self, folder: &Path) -> std::io::Result<()> {
        for (name, text) in &self.files {
            std::fs::write(folder.join(name), text)?;
        }
        Ok(())
    }
}

/// The scenario's text with each `[tables]` path replaced by the name of
/// its copy beside the scenario.
fn local_tables(text: &str, tables: &[ScenarioTable], copy: impl Fn(&str) -> String) -> String {
    if tables.is_empty() {
        return text.to_owned();
    }
    let edits: Vec<Edit> = tables
        .iter()
        .map(|found| {
            let mut path = vec![
                edit::Step::Key("tables".into()),
                edit::Step::Key(found.table.clone()),
            ];
            if found.edited {
                path.push(edit::Step::Key("file".into()));
            }
            Edit::Set {
                path,
                value: json!(copy(&found.table)),
            }
        })
        .collect();
    edit::apply(text, &edits).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenarios_tables_are_named_beside_it() {
        let toml = "name = \"x\"\n[tables]\nsurvival = \"../tables/my survival.toml\"\n[tables.glory]\nfile = \"g.toml\"\nset = { \"rows.0.label\" = \"A\" }\n";
        let found = [
            ScenarioTable {
                table: "survival".into(),
                edited: false,
                text: "kind = \"survival\"\n".into(),
            },
            ScenarioTable {
                table: "glory".into(),
                edited: true,
                text: "kind = \"glory\"\n".into(),
            },
        ];
        let page = BTreeMap::from([("battle_chart".to_owned(), "kind = \"c\"\n".to_owned())]);
        let inputs = Inputs::new(toml, "gurps/my_battle.toml", &found, &page);
        assert_eq!(inputs.scenario(), "my_battle.toml");
        let names: Vec<&str> = inputs.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "my_battle.toml",
                "survival.scenario-table.toml",
                "glory.scenario-table.toml",
                "battle_chart.table.toml"
            ]
        );
        let doc: toml::Table = toml::from_str(&inputs.files[0].1).unwrap();
        assert_eq!(
            doc["tables"]["survival"].as_str(),
            Some("survival.scenario-table.toml")
        );
        assert_eq!(
            doc["tables"]["glory"]["file"].as_str(),
            Some("glory.scenario-table.toml")
        );
        assert_eq!(
            inputs.tables,
            [(
                "battle_chart".to_owned(),
                "battle_chart.table.toml".to_owned()
            )]
        );
    }
}
