//! Reading a file a user named (a scenario, a table, a deck, a shard's
//! partial result): only a regular file, opened without waiting on a
//! named pipe, and no larger than [`MAX_INPUT_BYTES`].

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest input file read: far above any scenario, table or partial
/// result (the bundled ones are a few kilobytes), far below memory.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Opens `path` for reading without blocking on a named pipe that has no
/// writer, and refuses anything but a regular file (a pipe, a device such
/// as /dev/zero, a folder), naming what it is.
pub fn open_regular(path: &Path) -> Result<File, String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|e| e.to_string())?;
    let kind = file.metadata().map_err(|e| e.to_string())?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(format!("it is {}, not a regular file", kind_of(kind)))
}

/// What a path that is not a regular file is, in words: `a folder`, `a
/// named pipe`, `a device`, `a link`, `a socket`.
pub fn kind_of(kind: std::fs::FileType) -> &'static str {
    if kind.is_symlink() {
        "a link"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "something other than a regular file"
    }
}

/// The largest file of results read back (a shard's partial result, a
/// run's record): they hold every variant's counts.
pub const MAX_RESULTS_BYTES: u64 = 4 << 30;

/// The whole of an open regular file as UTF-8 text, refused past
/// [`MAX_INPUT_BYTES`].
pub fn read_open(file: File) -> Result<String, String> {
    read_open_at_most(file, MAX_INPUT_BYTES)
}

/// The whole of an open regular file as UTF-8 text, refused past `most`
/// bytes.
fn read_open_at_most(file: File, most: u64) -> Result<String, String> {
    let mut bytes = Vec::new();
    file.take(most + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > most {
        return Err(format!(
            "it is larger than {} MiB, the most such a file may be",
            most >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|_| "the file is not UTF-8 text".to_owned())
}

/// The text of the regular file at `path` ([`open_regular`], [`read_open`]).
pub fn read_text(path: &Path) -> Result<String, String> {
    let text = read_open(open_regular(path)?)?;
    if let Ok(full) = std::fs::canonicalize(path) {
        let mut read = INPUTS_READ.lock().unwrap_or_else(|e| e.into_inner());
        if !read.contains(&full) {
            read.push(full);
        }
    }
    Ok(text)
}

/// Every scenario and table file this process has read, by its full path:
/// an output folder must not hold one (replacing the folder would delete
/// it).
static INPUTS_READ: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The input read that lies inside `folder`, if any.
pub fn input_inside(folder: &Path) -> Option<std::path::PathBuf> {
    let folder = std::fs::canonicalize(folder).ok()?;
    let read = INPUTS_READ.lock().unwrap_or_else(|e| e.into_inner());
    read.iter().find(|p| p.starts_with(&folder)).cloned()
}

/// The text of a results file warcrunch wrote (up to [`MAX_RESULTS_BYTES`]).
pub fn read_results(path: &Path) -> Result<String, String> {
    read_open_at_most(open_regular(path)?, MAX_RESULTS_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_devices_folders_and_huge_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.toml");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(
            read_text(&fifo).unwrap_err(),
            "it is a named pipe, not a regular file"
        );
        let zero = dir.path().join("zero.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(
            read_text(&zero).unwrap_err(),
            "it is a device, not a regular file"
        );
        assert_eq!(
            read_text(dir.path()).unwrap_err(),
            "it is a folder, not a regular file"
        );
        let huge = dir.path().join("huge.toml");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_INPUT_BYTES + 1)
            .unwrap();
        assert!(read_text(&huge).unwrap_err().contains("larger than 16 MiB"));
        let fine = dir.path().join("fine.toml");
        std::fs::write(&fine, "a = 1\n").unwrap();
        assert_eq!(read_text(&fine).unwrap(), "a = 1\n");
    }
}
