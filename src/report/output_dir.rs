//! Output folders that appear whole or not at all.
//!
//! Files are written into a hidden staging folder beside the destination;
//! [`Staging::commit`] swaps it into place. Dropping an uncommitted staging
//! folder deletes it, so a failed run leaves the previous results intact.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Marker file in every folder warcrunch writes.
pub const MARKER: &str = ".warcrunch";

/// A staging folder for one destination.
#[derive(Debug)]
pub struct Staging {
    dest: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl Staging {
    /// Prepares to write `dest`. Refuses a non-empty destination that
    /// warcrunch did not write, unless `force`.
    pub fn new(dest: &Path, force: bool) -> Result<Staging> {
        if dest.exists() {
            if !dest.is_dir() {
                bail!("output path {} exists and is not a folder", dest.display());
            }
            let ours = dest.join(MARKER).exists();
            let empty = fs::read_dir(dest)
                .with_context(|| format!("cannot read output folder {}", dest.display()))?
                .next()
                .is_none();
            if !ours && !empty && !force {
                bail!(
                    "output folder {} holds files warcrunch did not write; choose another --out or pass --force to replace it",
                    dest.display()
                );
            }
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent)
            .with_context(|| format!("cannot create folder {}", parent.display()))?;
        let stem = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        let tmp = parent.join(format!(".{stem}.partial-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).ok();
        }
        fs::create_dir(&tmp)
            .with_context(|| format!("cannot create staging folder {}", tmp.display()))?;
        fs::write(tmp.join(MARKER), "written by warcrunch\n")
            .with_context(|| format!("cannot write in {}", tmp.display()))?;
        Ok(Staging {
            dest: dest.to_path_buf(),
            tmp,
            committed: false,
        })
    }

    /// The folder to write files into.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the staged files into place, replacing any previous results.
    pub fn commit(mut self) -> Result<PathBuf> {
        let old = self.tmp.with_extension("old");
        if self.dest.exists() {
            fs::rename(&self.dest, &old).with_context(|| {
                format!("cannot move previous results {} aside", self.dest.display())
            })?;
        }
        if let Err(e) = fs::rename(&self.tmp, &self.dest) {
            if old.exists() {
                fs::rename(&old, &self.dest).ok();
            }
            return Err(e)
                .with_context(|| format!("cannot move results into {}", self.dest.display()));
        }
        if old.exists() {
            fs::remove_dir_all(&old).ok();
        }
        self.committed = true;
        Ok(self.dest.clone())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            fs::remove_dir_all(&self.tmp).ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_staging_leaves_nothing_and_commit_replaces() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("out");
        {
            let s = Staging::new(&dest, false).unwrap();
            fs::write(s.path().join("a.csv"), "x").unwrap();
        }
        assert!(!dest.exists());
        assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0);
        let s = Staging::new(&dest, false).unwrap();
        fs::write(s.path().join("a.csv"), "1").unwrap();
        s.commit().unwrap();
        let s = Staging::new(&dest, false).unwrap();
        fs::write(s.path().join("a.csv"), "2").unwrap();
        s.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("a.csv")).unwrap(), "2");
        assert_eq!(fs::read_dir(root.path()).unwrap().count(), 1);
    }

    #[test]
    fn foreign_folders_are_not_overwritten_without_force() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("notes.txt"), "mine").unwrap();
        assert!(Staging::new(root.path(), false).is_err());
        assert!(Staging::new(root.path(), true).is_ok());
    }
}
