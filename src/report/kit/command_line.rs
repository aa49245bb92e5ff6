//! The command line a record gives to ask its question again: every word
//! quoted for a POSIX shell, and where the answer went (`--out`, and
//! `--format` unless CSV alone), so pasting it writes the same files. Files
//! a question read from a folder of inputs written beside its answer (the
//! server's) are named by file name alone.

use std::fmt::Display;
use std::path::Path;

use crate::report::Formats;
use crate::stats::format::shell_word;

/// A `warcrunch` command line being written: its words, unquoted.
#[derive(Debug, Clone)]
pub struct CommandLine(Vec<String>);

impl CommandLine {
    /// `warcrunch COMMAND`.
    pub fn new(command: &str) -> CommandLine {
        CommandLine(vec!["warcrunch".to_owned(), command.to_owned()])
    }

    /// One word (quoted where the shell would split or expand it when the
    /// line is written).
    pub fn arg(mut self, word: impl Display) -> CommandLine {
        self.0.push(word.to_string());
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

    /// Each path inside `folder` named by its file name alone, as a word
    /// (`/srv/input-3/battle.toml`) or after `NAME=` (`--table
    /// survival=/srv/input-3/survival.table.toml`): the line for a copy of
    /// the folder's files beside the answer.
    pub fn naming_inputs(mut self, folder: Option<&Path>) -> CommandLine {
        let Some(folder) = folder else {
            return self;
        };
        let local = |path: &str| -> Option<String> {
            let path = Path::new(path);
            (path.parent() == Some(folder))
                .then(|| path.file_name())
                .flatten()
                .map(|name| name.to_string_lossy().into_owned())
        };
        for word in &mut self.0 {
            if let Some(name) = local(word) {
                *word = name;
            } else if let Some((key, path)) = word.split_once('=')
                && let Some(name) = local(path)
            {
                *word = format!("{key}={name}");
            }
        }
        self
    }
}

impl Display for CommandLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words: Vec<String> = self.0.iter().map(|w| shell_word(w)).collect();
        f.write_str(&words.join(" "))
    }
}

impl From<CommandLine> for String {
    fn from(line: CommandLine) -> String {
        line.to_string()
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

    #[test]
    fn inputs_beside_the_answer_are_named_by_file_name() {
        let line: String = CommandLine::new("compare")
            .path(Path::new("/srv/in 3/battle.toml"))
            .path(Path::new("/srv/in 3/battle.toml"))
            .options("table", &["2:survival=/srv/in 3/survival.table.toml"])
            .options("table", &["glory=/elsewhere/glory.toml"])
            .option("target", "side:A/victory=won")
            .naming_inputs(Some(Path::new("/srv/in 3")))
            .into();
        assert_eq!(
            shlex::split(&line).unwrap(),
            [
                "warcrunch",
                "compare",
                "battle.toml",
                "battle.toml",
                "--table",
                "2:survival=survival.table.toml",
                "--table",
                "glory=/elsewhere/glory.toml",
                "--target",
                "side:A/victory=won",
            ]
        );
    }
}
