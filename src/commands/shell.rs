//! `warcrunch completions` and `warcrunch man`: what shells and `man` need,
//! generated from the command-line definition itself.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Prints the completion script for a shell.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    clap_complete::generate(
        args.shell,
        &mut Cli::command(),
        "warcrunch",
        &mut std::io::stdout(),
    );
    Ok(())
}

/// Prints the manual page in roff.
pub fn man() -> Result<()> {
    clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
    Ok(())
}
