use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warcrunch::cli::Cli::parse();
    match warcrunch::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
