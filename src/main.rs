use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warcrunch::cli::Cli::parse();
    // Ctrl-C stops the simulation at the next chunk; the staging folder is
    // then removed and any earlier results stay as they were.
    let _ = ctrlc::set_handler(warcrunch::engine::interrupt);
    match warcrunch::commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
