//! The command line a record gives to ask its question again: every word
//! quoted for a POSIX shell, and where the answer went (`--out`, and
//! `--format` unless CSV alone), so pasting it writes the same files.

use std::fmt::Display;
use std::path::Path;

use crate::format::shell_word;
use crate::report::Formats;

/// A `warcrunch` command line being written.
#[derive(Debug, Clone)]
pub struct CommandLine(String);

impl CommandLine {
    /// `warcrunch COMMAND`.
    pub fn new(command: &str) -> CommandLine {
        CommandLine(format!("warcrunch {command}"))
    }

    /// One word, quoted where the shell would split or expand it.
    pub fn arg(mut self, word: impl Display) -> CommandLine {
        self.0.push(' ');
        self.0.push_str(&shell_word(&word.to_string()));
        self
    }

    /// A path as one word.
    pub fn path(self, path: &Path) -> CommandLine {
        self.arg(path.display())
    }

    /// `--NAME VALUE`.
    pub fn option(self, name: &str, value: impl Display) -> CommandLine {
        self.arg(format!("--{name}")).arg(value)
    }

    /// `--NAME VALUE` when there is a value.
    pub fn option_if(self, name: &str, value: Option<impl Display>) -> CommandLine {
        match value {
            Some(v) => self.option(name, v),
            None => self,
        }
    }

    /// `--NAME VALUE` once per value.
    pub fn options<T: Display>(self, name: &str, values: &[T]) -> CommandLine {
        values.iter().fold(self, |line, v| line.option(name, v))
    }

    /// `--NAME` when `on`.
    pub fn flag(self, name: &str, on: bool) -> CommandLine {
        if on {
            self.arg(format!("--{name}"))
        } else {
            self
        }
    }

    /// Where the answer was written: `--out FOLDER` (none for a shard,
    /// whose folder is one part of the merged run's), and `--format` when
    /// the formats are not CSV alone.
    pub fn written_to(self, folder: Option<&Path>, formats: &Formats) -> CommandLine {
        let line = self.option_if("out", folder.map(Path::display));
        if *formats == Formats::default() {
            line
        } else {
            line.option("format", formats.names().join(","))
        }
    }
}

impl Display for CommandLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<CommandLine> for String {
    fn from(line: CommandLine) -> String {
        line.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word survives the shell: split back, the words are the ones
    /// put in, spaces, quotes, `|` and `$` included.
    #[test]
    fn a_line_splits_back_into_its_words() {
        let formats = Formats {
            csv: true,
            parquet: true,
            json: false,
        };
        let line: String = CommandLine::new("solve")
            .path(Path::new("my battles/siege.toml"))
            .option("balance", "side:Imperial army")
            .option("target", "hero:Ti'tus/state=down|dead")
            .options("table", &["glory=$HOME/g.toml"])
            .flag("exact", true)
            .flag("usage", false)
            .option_if("seed", Some(7))
            .option_if("trials", None::<u64>)
            .written_to(Some(Path::new("out dir")), &formats)
            .into();
        let words = shlex::split(&line).unwrap();
        assert_eq!(
            words,
            [
                "warcrunch",
                "solve",
                "my battles/siege.toml",
                "--balance",
                "side:Imperial army",
                "--target",
                "hero:Ti'tus/state=down|dead",
                "--table",
                "glory=$HOME/g.toml",
                "--exact",
                "--seed",
                "7",
                "--out",
                "out dir",
                "--format",
                "csv,parquet",
            ],
            "{line}"
        );
    }
}
