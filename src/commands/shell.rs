//! `warcrunch completions` and `warcrunch man`: what shells and `man` need,
//! generated from the command-line definition itself.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::report::writers::console::say;

/// Prints the completion script for a shell.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "warcrunch", &mut script);
    say(&String::from_utf8_lossy(&script))
}

/// Prints the manual page in roff.
pub fn man() -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    say(&String::from_utf8_lossy(&page))
}
