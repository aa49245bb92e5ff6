use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warcrunch::cli::Cli::parse();
    // Ctrl-C (or SIGTERM) stops the simulation at the next chunk, and the
    // server after its runs; the staging folder is then removed and earlier
    // results stay as they were. A second one ends the process at once
    // (the next run into the same place removes what it left).
    let _ = ctrlc::set_handler(|| {
        if warcrunch::engine::interrupt() {
            std::process::exit(130);
        }
    });
    match warcrunch::commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
