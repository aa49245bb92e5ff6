//! The workbench's only window on the disk: scenario files under the
//! scenarios folder (`--scenarios DIR`, else `./scenarios` when present),
//! beside the bundled battles compiled into the binary. A name that is
//! absolute, climbs with `..`, or leads out of the tree through a symlink is
//! refused.

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
    /// Path under the scenarios folder, with `/` separators (`gurps/ambush_at_the_ford.toml`).
    pub name: String,
    /// The `system` it names (only files naming a known system are listed).
    pub system: String,
    /// That system's name in words (`7th Sea`).
    pub system_title: &'static str,
    /// Its `name` key, the battle's display name, if it gives one.
    pub title: Option<String>,
    /// Shipped with warcrunch: compiled in, or a file of the folder equal to it.
    pub bundled: bool,
}

/// The listing entry of a scenario's text, if it names a known system.
fn listed(name: String, text: &str) -> Option<Listed> {
    let doc = toml::from_str::<toml::Table>(text).ok()?;
    let system = doc.get("system")?.as_str()?;
    let system_title = crate::systems::registry::title(system)?;
    let bundled = crate::scenario::bundled::find(&name).is_some_and(|b| b.text == text);
    Some(Listed {
        system: system.to_owned(),
        system_title,
        title: doc.get("name").and_then(|n| n.as_str()).map(str::to_owned),
        bundled,
        name,
    })
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

    /// Every scenario of the tree (files naming a known system: rule tables,
    /// schemas and other TOML left out) and every bundled battle the tree
    /// has no file of that name for, sorted by name.
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
                    if let Some(entry) = self
                        .read_resolved(&path, &name)
                        .ok()
                        .and_then(|text| listed(name, &text))
                    {
                        found.push(entry);
                    }
                }
            }
        }
        for bundled in crate::scenario::bundled::SCENARIOS {
            if !self.root.join(bundled.name).exists()
                && let Some(entry) = listed(bundled.name.to_owned(), bundled.text)
            {
                found.push(entry);
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

    /// The text of a file `resolve` found, read through one handle whose
    /// own path is checked to be inside the tree: a file swapped for a link
    /// between the check and the read is refused, never read.
    /// Only a regular file is read (never a pipe or a device), and none
    /// larger than [`crate::tables::input_file::MAX_INPUT_BYTES`].
    pub fn read_resolved(&self, real: &Path, name: &str) -> Result<String, Refusal> {
        let unreadable = |e: String| Refusal {
            status: 404,
            message: format!("`{name}`: {e}"),
        };
        let file = crate::tables::input_file::open_regular(real).map_err(unreadable)?;
        if !handle_is_inside(&file, &self.root) {
            return Err(Refusal::outside(name));
        }
        crate::tables::input_file::read_open(file).map_err(unreadable)
    }

    /// The text of a scenario in the tree, or of the bundled battle of that
    /// name when the tree has no such file.
    pub fn read(&self, name: &str) -> Result<String, Refusal> {
        let path = match self.resolve(name) {
            Err(r) if r.status == 404 => {
                return crate::scenario::bundled::find(name)
                    .map(|b| b.text.to_owned())
                    .ok_or(r);
            }
            resolved => resolved?,
        };
        if path.extension().is_none_or(|e| e != "toml") {
            return Err(Refusal {
                status: 404,
                message: format!("`{name}`: not a scenario file (.toml) in the scenarios folder"),
            });
        }
        // Read through the handle whose place was checked, as tables are.
        self.read_resolved(&path, name)
    }
}

/// Whether an open file is inside `root`, by the path its handle has now
/// (`/proc/self/fd`), not the name it was opened by.
fn handle_is_inside(file: &std::fs::File, root: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .is_ok_and(|real| real.starts_with(root))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, root);
        true
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
        std::fs::write(dir.path().join("scenarios/my_deck.toml"), "cards = []\n").unwrap();
        std::fs::write(
            dir.path().join("scenarios/odd.toml"),
            "system = \"chess\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("secret.toml"), "x = 1\n").unwrap();
        let scenarios = ScenarioFolder::new(&dir.path().join("scenarios"));
        (dir, scenarios)
    }

    #[test]
    fn lists_scenarios_and_the_bundled_battles_but_not_tables() {
        let (_dir, scenarios) = folder();
        let listed = scenarios.list();
        let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
        // Its own scenario beside every bundled battle.
        assert_eq!(
            listed.len(),
            crate::scenario::bundled::SCENARIOS.len() + 1,
            "{names:?}"
        );
        let own = listed.iter().find(|s| s.name == "gurps/a.toml").unwrap();
        assert_eq!((own.system.as_str(), own.bundled), ("gurps", false));
        for b in crate::scenario::bundled::SCENARIOS {
            let entry = listed.iter().find(|s| s.name == b.name).unwrap();
            assert!(entry.bundled && entry.title.is_some(), "{}", b.name);
            assert_eq!(scenarios.read(b.name).unwrap(), b.text);
        }
    }

    #[test]
    fn a_file_of_the_folder_takes_a_bundled_name_and_is_marked_only_if_equal() {
        let (dir, scenarios) = folder();
        let name = crate::scenario::bundled::SCENARIOS[0].name;
        let file = dir.path().join("scenarios").join(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, crate::scenario::bundled::SCENARIOS[0].text).unwrap();
        let entry = |s: &ScenarioFolder| s.list().into_iter().find(|l| l.name == name).unwrap();
        assert!(entry(&scenarios).bundled);
        let mine = crate::scenario::bundled::SCENARIOS[0]
            .text
            .replace("trials", "# mine\ntrials");
        std::fs::write(&file, &mine).unwrap();
        assert!(!entry(&scenarios).bundled);
        assert_eq!(scenarios.read(name).unwrap(), mine);
        assert_eq!(
            scenarios.list().iter().filter(|l| l.name == name).count(),
            1
        );
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
