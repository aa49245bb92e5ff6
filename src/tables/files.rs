//! The table files one request reads: each read from disk once, however
//! many times its scenario is read again (a question's variants, moves,
//! probes and candidates), so every one of them reads the same text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Result, anyhow};

/// Table files named relative to a scenario's folder, with the text of
/// each one already read.
#[derive(Debug)]
pub struct TableFiles {
    base_dir: PathBuf,
    read: Mutex<BTreeMap<PathBuf, String>>,
}

impl TableFiles {
    /// Table files named from the scenario file `scenario` (relative names
    /// resolve against its folder), none read yet.
    pub fn beside(scenario: &Path) -> TableFiles {
        TableFiles::in_folder(scenario.parent().unwrap_or(Path::new(".")))
    }

    /// Table files whose relative names resolve against `base_dir`.
    pub fn in_folder(base_dir: &Path) -> TableFiles {
        TableFiles {
            base_dir: base_dir.to_path_buf(),
            read: Mutex::new(BTreeMap::new()),
        }
    }

    /// The text of table file `file` and its path as messages show it:
    /// read from disk the first time it is asked for, then as first read.
    pub fn text(&self, file: &str) -> Result<(String, String)> {
        let full = self.base_dir.join(file);
        let shown = full.display().to_string();
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(text) = read.get(&full) {
            return Ok((text.clone(), shown));
        }
        let text = crate::tables::input_file::read_text(&full)
            .map_err(|e| anyhow!("cannot read table file {shown}: {e}"))?;
        read.insert(full, text.clone());
        Ok((text, shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_once_and_its_first_text_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("deck.toml");
        std::fs::write(&file, "first").unwrap();
        let files = TableFiles::beside(&dir.path().join("battle.toml"));
        assert_eq!(files.text("deck.toml").unwrap().0, "first");
        std::fs::write(&file, "second").unwrap();
        assert_eq!(files.text("deck.toml").unwrap().0, "first");
        std::fs::remove_file(&file).unwrap();
        let (text, shown) = files.text("deck.toml").unwrap();
        assert_eq!(
            (text.as_str(), shown),
            ("first", file.display().to_string())
        );
        let missing = files.text("other.toml").unwrap_err();
        assert!(format!("{missing}").starts_with("cannot read table file "));
    }
}
