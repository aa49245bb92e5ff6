//! The workbench's only window on the disk: scenario files under the
//! working folder's `scenarios/` tree. A name that is absolute, climbs with
//! `..`, or leads out of the tree through a symlink is refused.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// Why a path was refused, with the HTTP status that says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// 403 for a path out of the tree, 404 for one that is not there.
    pub status: u16,
    /// What was wrong, for the page.
    pub message: String,
}

impl Refusal {
    fn outside(name: &str) -> Refusal {
        Refusal {
            status: 403,
            message: format!(
                "`{name}`: only files inside the scenarios folder can be read (no absolute paths, no `..`, no links out)"
            ),
        }
    }
}

/// A scenario the workbench offers.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// Path under `scenarios/`, with `/` separators (`gurps/ambush_at_the_ford.toml`).
    pub name: String,
    /// The `system` it names, if it names one.
    pub system: Option<String>,
}

/// The `scenarios/` tree.
#[derive(Debug, Clone)]
pub struct ScenarioFolder {
    /// Canonical path of the tree (it may not exist: then nothing is listed).
    pub root: PathBuf,
}

impl ScenarioFolder {
    /// The tree at `dir`.
    pub fn new(dir: &Path) -> ScenarioFolder {
        let root = dir
            .canonicalize()
            .unwrap_or_else(|_| std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
        ScenarioFolder { root }
    }

    /// Every scenario file in the tree (rule tables and schemas left out),
    /// sorted by name.
    pub fn list(&self) -> Vec<Listed> {
        let mut found = Vec::new();
        let mut folders = vec![self.root.clone()];
        while let Some(folder) = folders.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let relative = path.strip_prefix(&self.root).unwrap_or(&path);
                let top = relative.components().next();
                let skipped =
                    top.is_some_and(|c| c.as_os_str() == "tables" || c.as_os_str() == "schema");
                if kind.is_dir() && !skipped {
                    folders.push(path);
                } else if kind.is_file()
                    && !skipped
                    && path.extension().is_some_and(|e| e == "toml")
                {
                    let name = relative
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/");
                    let system = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
                        .and_then(|doc| doc.get("system")?.as_str().map(str::to_owned));
                    found.push(Listed { name, system });
                }
            }
        }
        found.sort_by(|a, b| a.name.cmp(&b.name));
        found
    }

    /// The file a name (relative to the tree) means, if it stays inside.
    pub fn resolve(&self, name: &str) -> Result<PathBuf, Refusal> {
        let relative = Path::new(name);
        let plain = !name.is_empty()
            && !name.contains('\\')
            && relative
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !plain {
            return Err(Refusal::outside(name));
        }
        let path = self.root.join(relative);
        let real = path.canonicalize().map_err(|_| Refusal {
            status: 404,
            message: format!("`{name}`: no such file in the scenarios folder"),
        })?;
        if !real.starts_with(&self.root) {
            return Err(Refusal::outside(name));
        }
        Ok(real)
    }

    /// The text of a scenario in the tree.
    pub fn read(&self, name: &str) -> Result<String, Refusal> {
        let path = self.resolve(name)?;
        if !path.is_file() || path.extension().is_none_or(|e| e != "toml") {
            return Err(Refusal {
                status: 404,
                message: format!("`{name}`: not a scenario file (.toml) in the scenarios folder"),
            });
        }
        std::fs::read_to_string(&path).map_err(|e| Refusal {
            status: 404,
            message: format!("`{name}`: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempfile::TempDir, ScenarioFolder) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios/gurps")).unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios/tables")).unwrap();
        std::fs::write(
            dir.path().join("scenarios/gurps/a.toml"),
            "system = \"gurps\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("scenarios/tables/t.toml"), "rows = []\n").unwrap();
        std::fs::write(dir.path().join("secret.toml"), "x = 1\n").unwrap();
        let scenarios = ScenarioFolder::new(&dir.path().join("scenarios"));
        (dir, scenarios)
    }

    #[test]
    fn lists_scenarios_but_not_tables() {
        let (_dir, scenarios) = folder();
        let listed = scenarios.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].name, "gurps/a.toml");
        assert_eq!(listed[0].system.as_deref(), Some("gurps"));
    }

    #[test]
    fn refuses_every_way_out() {
        let (dir, scenarios) = folder();
        assert!(scenarios.read("gurps/a.toml").is_ok());
        for name in [
            "../secret.toml",
            "gurps/../../secret.toml",
            "/etc/passwd",
            "",
            "gurps\\a.toml",
        ] {
            assert_eq!(scenarios.read(name).unwrap_err().status, 403, "{name}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                dir.path().join("secret.toml"),
                dir.path().join("scenarios/link.toml"),
            )
            .unwrap();
            assert_eq!(scenarios.read("link.toml").unwrap_err().status, 403);
        }
        assert_eq!(scenarios.read("gurps/none.toml").unwrap_err().status, 404);
    }
}
