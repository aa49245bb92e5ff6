//! The bundled battles, compiled in from `scenarios/`, so a binary installed
//! anywhere (`cargo install`, the container image) can offer them: the
//! workbench lists them beside the user's own scenarios. Also each
//! system's starter (`warcrunch new`), and a table checked on its own as
//! its system's starter reads it.

use anyhow::{Result, anyhow};

use crate::scenario::{self, Edit};
use crate::systems::built_ins;

/// One bundled scenario: its path under `scenarios/` and its text.
#[derive(Debug, Clone, Copy)]
pub struct Bundled {
    /// Path under `scenarios/`, with `/` separators.
    pub name: &'static str,
    /// The file as shipped, comments and all.
    pub text: &'static str,
}

/// Every bundled scenario, sorted by name: the `.toml` files of each
/// system's folder under `scenarios/`, found when the binary is built.
pub const SCENARIOS: &[Bundled] = &{
    let mut all = [Bundled { name: "", text: "" }; crate::tables::embedded::BUNDLED.len()];
    let mut i = 0;
    while i < all.len() {
        let (name, text) = crate::tables::embedded::BUNDLED[i];
        all[i] = Bundled { name, text };
        i += 1;
    }
    all
};

/// The bundled scenario of that name, if there is one.
pub fn find(name: &str) -> Option<Bundled> {
    SCENARIOS.iter().copied().find(|s| s.name == name)
}

/// Checks table file `file` as table `name` on its own: read as its
/// system's starter battle reads it, with every check a scenario's table
/// gets. Returns the stand-ins it declares.
pub fn check_table(name: &str, file: &str) -> Result<Vec<String>> {
    let all = built_ins();
    let builtin = all.iter().find(|t| t.name == name).ok_or_else(|| {
        anyhow!(
            "--table {name}={file}: no table is named `{name}`; allowed: {}",
            all.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
        )
    })?;
    let starter =
        crate::systems::registry::starter(builtin.system).expect("a table's system is registered");
    let battle = std::path::Path::new(file).with_file_name("starter.toml");
    let s = scenario::load_edited(
        &battle,
        starter,
        &[Edit::table(&(name.to_owned(), file.to_owned()))],
    )?;
    let used = s
        .battle
        .tables()
        .iter()
        .find(|t| t.name == name)
        .expect("the battle reads the table it was given");
    Ok(used.stand_ins.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every scenario file of each system's folder under `scenarios/` is
    /// bundled, and nothing else; in tests, the test system's follow.
    #[test]
    fn every_scenario_of_the_folder_is_bundled_and_sorted() {
        let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut found = Vec::new();
        for root in ["scenarios", "tests/dice_duel/scenarios"] {
            let mut here = Vec::new();
            for &system in crate::systems::SYSTEMS {
                let Ok(files) = std::fs::read_dir(repository.join(root).join(system)) else {
                    continue;
                };
                for entry in files {
                    let path = entry.unwrap().path();
                    if path.extension().is_some_and(|e| e == "toml") {
                        let file = path.file_name().unwrap().to_string_lossy().into_owned();
                        here.push(format!("{system}/{file}"));
                    }
                }
            }
            here.sort();
            found.extend(here);
        }
        assert_eq!(found.len(), crate::tables::embedded::BUNDLED.len());
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        assert_eq!(names, found);
        assert!(find("gurps/ambush_at_the_ford.toml").is_some());
        assert!(find("gurps/none.toml").is_none());
    }

    #[test]
    fn every_bundled_scenario_loads() {
        for s in SCENARIOS {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios")
                .join(s.name);
            // A relative table path would resolve beside the file: none does.
            crate::scenario::load_text(&path, s.text)
                .unwrap_or_else(|e| panic!("{}: {e:#}", s.name));
        }
    }
}
