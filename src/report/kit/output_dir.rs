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
//!
//! One process writes a destination at a time: a staging folder holds a
//! lock (`.STEM.lock` beside the destination, released when the process
//! ends, however it ends), and a second writer is refused.
//!
//! A stop (Ctrl-C, SIGTERM) ends the process within a second whatever it
//! is doing: [`abandon_and_exit`] removes every folder still in progress,
//! waiting only for a commit already under way, so the previous results
//! stay whole and nothing is left half-written.

use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{Context, Result, bail};

/// Marker file in every folder warcrunch writes: its manifest.
pub const MARKER: &str = ".warcrunch";

/// The first line of a marker; the lines after it name the files written.
const MARKER_HEAD: &str = "written by warcrunch; the files it wrote here:";

/// The most user files a refusal names.
const SHOWN: usize = 10;

/// Folders this process is writing that a stop must not leave behind
/// (staging folders, the server's folder for its runs), and its lock files.
static IN_PROGRESS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The folders in progress, locked: a commit holds them for its renames,
/// so a stop waits for it rather than leaving a destination half-moved.
fn folders_in_progress() -> MutexGuard<'static, Vec<PathBuf>> {
    IN_PROGRESS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Marks `path` (a folder, or a lock file) as one a stop removes.
pub fn in_progress(path: &Path) {
    folders_in_progress().push(path.to_path_buf());
}

/// Removes every folder and lock file in progress (after any commit under
/// way) and ends the process with `code`.
pub fn abandon_and_exit(code: i32) -> ! {
    let paths = folders_in_progress();
    for path in paths.iter() {
        if path.is_dir() {
            fs::remove_dir_all(path).ok();
        } else {
            fs::remove_file(path).ok();
        }
    }
    std::process::exit(code)
}

/// A staging folder for one destination.
#[derive(Debug)]
pub struct Staging {
    dest: PathBuf,
    tmp: PathBuf,
    committed: bool,
    /// The destination's lock, held while this process writes it.
    _lock: DestinationLock,
}

/// An advisory lock on a destination (`flock` on `.STEM.lock` beside it):
/// the system releases it when the process ends, so a killed writer's
/// lock is never mistaken for a live one. The file is removed on release.
#[derive(Debug)]
struct DestinationLock {
    path: PathBuf,
    /// The open file the lock is on; closing it releases the lock.
    _held: fs::File,
}

impl DestinationLock {
    /// Takes the lock of `dest`, or names the process that holds it.
    fn take(parent: &Path, stem: &str, dest: &Path) -> Result<DestinationLock> {
        use rustix::fs::{FlockOperation, flock};
        let path = parent.join(format!(".{stem}.lock"));
        // A lock taken on a file another writer was removing as we opened
        // it guards nothing: take it again on the file now at the path.
        for _ in 0..100 {
            // Never through a link: one planted at the lock's path would
            // have warcrunch truncate and write whatever it points at.
            if let Ok(found) = fs::symlink_metadata(&path)
                && !found.is_file()
            {
                bail!(
                    "the lock file {} is {}, not a regular file; warcrunch only locks a regular file it creates: remove it, or choose another --out",
                    path.display(),
                    crate::tables::input_file::kind_of(found.file_type())
                );
            }
            let mut file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)
                .with_context(|| format!("cannot create the lock file {}", path.display()))?;
            if !file.metadata().is_ok_and(|m| m.is_file()) {
                bail!(
                    "the lock file {} is not a regular file; remove it, or choose another --out",
                    path.display()
                );
            }
            if flock(file.as_fd(), FlockOperation::NonBlockingLockExclusive).is_err() {
                let mut holder = String::new();
                std::io::Read::read_to_string(&mut file, &mut holder).ok();
                let holder = holder.trim();
                bail!(
                    "output folder {} is being written by another warcrunch{}; wait for it to finish, or choose another --out",
                    dest.display(),
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (process {holder})")
                    }
                );
            }
            let same = match (file.metadata(), fs::metadata(&path)) {
                (Ok(held), Ok(now)) => held.ino() == now.ino() && held.dev() == now.dev(),
                _ => false,
            };
            if same {
                // Through the file held, never the path again.
                file.set_len(0).ok();
                std::io::Write::write_all(&mut file, std::process::id().to_string().as_bytes())
                    .ok();
                in_progress(&path);
                return Ok(DestinationLock { path, _held: file });
            }
        }
        bail!("cannot take the lock file {}", path.display())
    }
}

impl Drop for DestinationLock {
    fn drop(&mut self) {
        // Removed while still held: a writer waiting on this file sees it
        // replaced and takes the new one (above).
        let mut in_progress = folders_in_progress();
        fs::remove_file(&self.path).ok();
        in_progress.retain(|path| path != &self.path);
    }
}

impl Staging {
    /// Prepares to write `dest`. Refuses a destination holding files
    /// warcrunch did not write (naming them), unless `force`.
    pub fn new(dest: &Path, force: bool) -> Result<Staging> {
        if dest.exists() {
            if !dest.is_dir() {
                bail!("output path {} exists and is not a folder", dest.display());
            }
            // Never a folder holding what the command reads, --force or not.
            if let Some(input) = crate::tables::input_file::input_inside(dest) {
                bail!(
                    "output folder {} holds {}, which this command reads; replacing the folder would delete it: choose another --out",
                    dest.display(),
                    input.display()
                );
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
        let lock = DestinationLock::take(&parent, &stem, dest)?;
        remove_stale_staging(&parent, &stem);
        let tmp = parent.join(format!(".{stem}.partial-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).ok();
        }
        fs::create_dir(&tmp)
            .with_context(|| format!("cannot create staging folder {}", tmp.display()))?;
        in_progress(&tmp);
        let staging = Staging {
            dest: dest.to_path_buf(),
            tmp,
            committed: false,
            _lock: lock,
        };
        fs::write(staging.tmp.join(MARKER), format!("{MARKER_HEAD}\n"))
            .with_context(|| format!("cannot write in {}", staging.tmp.display()))?;
        Ok(staging)
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
        // Held through the renames: a stop waits for them to finish.
        let mut in_progress = folders_in_progress();
        in_progress.retain(|folder| folder != &self.tmp);
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

/// Writes each `(path, text)` whole or not at all: every text into a
/// hidden file beside its path first, then all moved into place. When any
/// write fails (a full disk), the hidden files are removed and no path is
/// created or replaced.
pub fn write_files_whole(files: &[(PathBuf, String)]) -> Result<()> {
    // Only a regular file is ever replaced (`--force` included): never a
    // device, a pipe, a folder or a link.
    for (path, _) in files {
        if let Ok(found) = fs::symlink_metadata(path)
            && !found.is_file()
        {
            bail!(
                "{} exists and is {}, not a regular file; warcrunch replaces only a regular file, even with --force: choose another path",
                path.display(),
                crate::tables::input_file::kind_of(found.file_type())
            );
        }
    }
    let hidden = |path: &Path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        path.with_file_name(format!(".{name}.partial-{}", std::process::id()))
    };
    let mut written: Vec<PathBuf> = Vec::new();
    let mut staged = || -> Result<()> {
        for (path, text) in files {
            let tmp = hidden(path);
            // A file left by an earlier process of this id is removed (a
            // link itself, never what it points at); the new one is made
            // afresh, never opened through a link.
            fs::remove_file(&tmp).ok();
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .with_context(|| format!("cannot write {}", path.display()))?;
            written.push(tmp.clone());
            std::io::Write::write_all(&mut file, text.as_bytes())
                .and_then(|()| file.sync_all())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    };
    if let Err(e) = staged() {
        for tmp in &written {
            fs::remove_file(tmp).ok();
        }
        return Err(e);
    }
    for (path, _) in files {
        fs::rename(hidden(path), path)
            .with_context(|| format!("cannot move {} into place", path.display()))?;
    }
    Ok(())
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
            let mut in_progress = folders_in_progress();
            fs::remove_dir_all(&self.tmp).ok();
            in_progress.retain(|folder| folder != &self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_whole_or_not_at_all() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a.toml"), root.path().join("b.toml"));
        fs::write(&a, "old").unwrap();
        write_files_whole(&[(a.clone(), "new".into()), (b.clone(), "b".into())]).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new");
        assert_eq!(fs::read_to_string(&b).unwrap(), "b");
        // A write that fails once the first is staged (here, a folder that
        // is not there; a full disk alike, tested in tests/doors.rs):
        // nothing is created or replaced, nothing left.
        let c = root.path().join("missing").join("c.toml");
        let e =
            write_files_whole(&[(a.clone(), "newer".into()), (c.clone(), "c".into())]).unwrap_err();
        assert!(format!("{e:#}").contains("cannot write"), "{e:#}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "new");
        assert!(!c.exists());
        let left: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        // A staging name planted as a link is never written through.
        let victim = root.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        let hidden = root
            .path()
            .join(format!(".d.toml.partial-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &hidden).unwrap();
        write_files_whole(&[(root.path().join("d.toml"), "d".into())]).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(fs::read_to_string(root.path().join("d.toml")).unwrap(), "d");
    }

    #[test]
    fn a_second_writer_to_the_same_folder_is_refused_while_the_first_holds_it() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("out");
        let first = Staging::new(&dest, false).unwrap();
        let e = format!("{:#}", Staging::new(&dest, false).unwrap_err());
        assert!(
            e.contains("is being written by another warcrunch")
                && e.contains(&format!("(process {})", std::process::id())),
            "{e}"
        );
        first.commit().unwrap();
        // Released with the first: the next writer proceeds, and no lock
        // file is left beside the results.
        Staging::new(&dest, false).unwrap().commit().unwrap();
        assert!(!root.path().join(".out.lock").exists());
    }

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
