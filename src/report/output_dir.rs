//! Output folders that appear whole or not at all.
//!
//! Files are written into a hidden staging folder beside the destination;
//! [`Staging::commit`] swaps it into place. Dropping an uncommitted staging
//! folder deletes it, so a failed run leaves the previous results intact.
//!
//! The marker file of a written folder lists the files the run wrote (its
//! manifest), so a later run into the same folder knows which files are the
//! user's: it refuses to replace a folder holding any, unless `--force`.
//! Staging folders left by a killed process are removed by the next run
//! into the same place.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Marker file in every folder warcrunch writes: its manifest.
pub const MARKER: &str = ".warcrunch";

/// The first line of a marker; the lines after it name the files written.
const MARKER_HEAD: &str = "written by warcrunch; the files it wrote here:";

/// The most user files a refusal names.
const SHOWN: usize = 10;

/// A staging folder for one destination.
#[derive(Debug)]
pub struct Staging {
    dest: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl Staging {
    /// Prepares to write `dest`. Refuses a destination holding files
    /// warcrunch did not write (naming them), unless `force`.
    pub fn new(dest: &Path, force: bool) -> Result<Staging> {
        if dest.exists() {
            if !dest.is_dir() {
                bail!("output path {} exists and is not a folder", dest.display());
            }
            let theirs = files_not_written_by_us(dest)?;
            if !theirs.is_empty() && !force {
                let more = theirs.len().saturating_sub(SHOWN);
                let (files, them) = if theirs.len() == 1 {
                    ("a file", "it")
                } else {
                    ("files", "them")
                };
                bail!(
                    "output folder {} holds {files} warcrunch did not write, which replacing it would delete: {}{}; \
                     move {them}, choose another --out, or pass --force to replace the folder",
                    dest.display(),
                    theirs[..theirs.len().min(SHOWN)].join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
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
        remove_stale_staging(&parent, &stem);
        let tmp = parent.join(format!(".{stem}.partial-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).ok();
        }
        fs::create_dir(&tmp)
            .with_context(|| format!("cannot create staging folder {}", tmp.display()))?;
        fs::write(tmp.join(MARKER), format!("{MARKER_HEAD}\n"))
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

    /// Writes the manifest and moves the staged files into place,
    /// replacing any previous results.
    pub fn commit(mut self) -> Result<PathBuf> {
        let mut manifest = format!("{MARKER_HEAD}\n");
        for file in entries(&self.tmp)? {
            if file != MARKER {
                manifest.push_str(&file);
                manifest.push('\n');
            }
        }
        fs::write(self.tmp.join(MARKER), manifest)
            .with_context(|| format!("cannot write in {}", self.tmp.display()))?;
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

/// Every file and empty folder under `root`, as relative paths with `/`
/// (links are not followed).
fn entries(root: &Path) -> Result<Vec<String>> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let dir = root.join(&rel);
        let mut empty = true;
        for entry in fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))? {
            let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
            empty = false;
            let path = rel.join(entry.file_name());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            } else {
                found.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
        if empty && !rel.as_os_str().is_empty() {
            found.push(format!("{}/", rel.to_string_lossy().replace('\\', "/")));
        }
    }
    found.sort();
    Ok(found)
}

/// The files and empty folders of `dest` its marker does not list (all of
/// them in a folder without a marker), sorted.
fn files_not_written_by_us(dest: &Path) -> Result<Vec<String>> {
    let listed: Vec<String> = fs::read_to_string(dest.join(MARKER))
        .map(|text| text.lines().skip(1).map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(entries(dest)
        .with_context(|| format!("cannot read output folder {}", dest.display()))?
        .into_iter()
        .filter(|f| f != MARKER && listed.binary_search(f).is_err())
        .collect())
}

/// Removes the staging folders (`.STEM.partial-PID`, and `.old`) of
/// processes no longer running, left by a run that was killed.
fn remove_stale_staging(parent: &Path, stem: &str) {
    let prefix = format!(".{stem}.partial-");
    let Ok(listing) = fs::read_dir(parent) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(&prefix)
            .map(|rest| rest.trim_end_matches(".old"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let path = entry.path();
        if !process_is_running(pid) && path.join(MARKER).exists() {
            fs::remove_dir_all(&path).ok();
        }
    }
}

/// Whether process `pid` still runs (on systems without `/proc`, assumed so).
pub fn process_is_running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
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
    fn files_the_user_added_are_named_and_kept_without_force() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("out");
        let s = Staging::new(&dest, false).unwrap();
        fs::create_dir(s.path().join("charts")).unwrap();
        fs::write(s.path().join("charts/a.svg"), "x").unwrap();
        fs::write(s.path().join("run.json"), "{}").unwrap();
        s.commit().unwrap();
        // Ours again: replaced without --force.
        Staging::new(&dest, false).unwrap();
        fs::write(dest.join("my_notes.txt"), "mine").unwrap();
        fs::create_dir_all(dest.join("sub")).unwrap();
        fs::write(dest.join("charts/mine.svg"), "mine").unwrap();
        let e = format!("{:#}", Staging::new(&dest, false).unwrap_err());
        assert!(
            e.contains("which replacing it would delete: charts/mine.svg, my_notes.txt, sub/;"),
            "{e}"
        );
        assert!(dest.join("my_notes.txt").exists());
        assert!(Staging::new(&dest, true).is_ok());
    }

    #[test]
    fn a_killed_runs_staging_folder_is_removed_by_the_next_run() {
        let root = tempfile::tempdir().unwrap();
        // No process has a PID this large.
        let stale = root.path().join(".out.partial-4294967295");
        fs::create_dir(&stale).unwrap();
        fs::write(stale.join(MARKER), MARKER_HEAD).unwrap();
        let not_ours = root.path().join(".out.partial-4294967294");
        fs::create_dir(&not_ours).unwrap();
        let s = Staging::new(&root.path().join("out"), false).unwrap();
        assert!(!stale.exists());
        assert!(
            not_ours.exists(),
            "a folder without our marker is left alone"
        );
        s.commit().unwrap();
    }

    #[test]
    fn foreign_folders_are_not_overwritten_without_force() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("notes.txt"), "mine").unwrap();
        assert!(Staging::new(root.path(), false).is_err());
        assert!(Staging::new(root.path(), true).is_ok());
    }
}
