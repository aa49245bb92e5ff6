//! `warcrunch completions` and `warcrunch man`: what shells and `man` need,
//! generated from the command-line definition itself.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Prints the completion script for a shell.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "warcrunch", &mut script);
    print_whole(&script)
}

/// Prints the manual page in roff.
pub fn man() -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    print_whole(&page)
}

/// Writes a generated text to standard output: a write that fails (a full
/// disk) is an error naming it, never a panic; a reader that closed early
/// ends the command quietly.
fn print_whole(text: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::anyhow!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}
