//! A scenario as a question asks it, resolved once at the door: the file
//! read, its `--table NAME=FILE` options parsed, the whole validated. The
//! commands and the server make one; every question takes it, and nothing
//! below reads the scenario file again, nor a table file twice.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use super::{Edit, Scenario, load_edited_reading, parse_table_override, read_text};
use crate::tables::TableFiles;

/// A scenario read once, with the table files a question reads it with.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The scenario as written, read with [`Resolved::tables`], validated
    /// (its own `trials` and `seed`; a question applies its own).
    pub scenario: Scenario,
    /// The `--table` options as table name and absolute file, in order.
    pub tables: Vec<(String, String)>,
    /// The same options as given (`NAME=FILE`), for a reproducing command.
    given: Vec<String>,
    /// The table files read so far, each once, shared by every variant.
    files: Arc<TableFiles>,
}

impl Resolved {
    /// Reads the scenario at `path` with the `--table NAME=FILE` options
    /// `tables`, and validates it.
    pub fn read(path: &Path, tables: &[String]) -> Result<Resolved> {
        Resolved::from_text(path, &read_text(path)?, tables)
    }

    /// [`Resolved::read`] on `text`, the scenario as read from `path`
    /// (which names it in messages and anchors its relative table paths).
    pub fn from_text(path: &Path, text: &str, given: &[String]) -> Result<Resolved> {
        Resolved::reading(path, text, given, Arc::new(TableFiles::beside(path)))
    }

    fn reading(
        path: &Path,
        text: &str,
        given: &[String],
        files: Arc<TableFiles>,
    ) -> Result<Resolved> {
        let tables = given
            .iter()
            .map(|t| parse_table_override(t))
            .collect::<Result<Vec<_>>>()?;
        let scenario = load_edited_reading(path, text, &table_edits(&tables), &files)?;
        Ok(Resolved {
            scenario,
            tables,
            given: given.to_vec(),
            files,
        })
    }

    /// The same scenario read with other `--table` options `given`
    /// (neither its file nor a table file already read is read again).
    pub fn with_tables(&self, given: &[String]) -> Result<Resolved> {
        Resolved::reading(self.path(), self.text(), given, self.files.clone())
    }

    /// The scenario file.
    pub fn path(&self) -> &Path {
        &self.scenario.path
    }

    /// The scenario file's text, as read.
    pub fn text(&self) -> &str {
        &self.scenario.text
    }

    /// The scenario file as a TOML document (before any table option).
    pub fn document(&self) -> Result<toml::Table> {
        toml::from_str(self.text())
            .with_context(|| format!("{}: not a TOML document", self.path().display()))
    }

    /// The scenario with `edits` made on top of its table options, so a
    /// refusal names the edit and the table file that was read.
    pub fn edited(&self, edits: Vec<Edit>) -> Result<Scenario> {
        if edits.is_empty() {
            return Ok(self.scenario.clone());
        }
        let mut all = table_edits(&self.tables);
        all.extend(edits);
        load_edited_reading(self.path(), self.text(), &all, &self.files)
    }

    /// The table files the scenario and its variants read, each read once.
    pub fn files(&self) -> &TableFiles {
        &self.files
    }

    /// The document [`Resolved::edited`] reads: the file with its table
    /// options and then `edits` applied.
    pub fn edited_document(&self, edits: Vec<Edit>) -> Result<toml::Table> {
        let mut doc = self.document()?;
        for edit in table_edits(&self.tables).into_iter().chain(edits) {
            (edit.apply)(&mut doc).with_context(|| edit.option.clone())?;
        }
        Ok(doc)
    }

    /// The table options as given (`NAME=FILE`).
    pub fn table_options(&self) -> &[String] {
        &self.given
    }
}

fn table_edits<'a>(tables: &[(String, String)]) -> Vec<Edit<'a>> {
    tables.iter().map(Edit::table).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUNDLED: &str = "scenarios/gurps/ambush_at_the_ford.toml";

    #[test]
    fn an_edit_lands_on_the_table_the_option_names_and_a_refusal_names_the_edit() {
        let survival = std::path::absolute("scenarios/tables/gurps/survival.toml").unwrap();
        let given = format!("survival={}", survival.display());
        let resolved = Resolved::read(Path::new(BUNDLED), std::slice::from_ref(&given)).unwrap();
        assert_eq!(resolved.table_options(), [given]);
        let refused = resolved
            .edited(vec![Edit {
                option: "--set trials=0".to_owned(),
                apply: Box::new(|doc| {
                    doc.insert("trials".to_owned(), toml::Value::Integer(0));
                    Ok(())
                }),
            }])
            .unwrap_err();
        assert!(
            format!("{refused:#}").contains("--set trials=0"),
            "{refused:#}"
        );
        let kept = resolved.edited(Vec::new()).unwrap();
        assert_eq!(kept.sha256, resolved.scenario.sha256);
    }

    #[test]
    fn a_table_option_without_a_file_is_refused_by_name() {
        let refused = Resolved::read(Path::new(BUNDLED), &["survival".to_owned()]).unwrap_err();
        assert!(format!("{refused:#}").contains("--table survival: expected NAME=FILE"));
    }
}
