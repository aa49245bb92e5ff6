use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warcrunch::cli::Cli::parse();
    if !matches!(cli.command, warcrunch::cli::Command::Serve(_)) {
        end_quietly_on_a_closed_pipe();
    }
    // Ctrl-C (or SIGTERM) asks every simulation to stop within a piece of
    // battles, and the server to close. Whatever the command is doing
    // (simulating, computing, drawing, writing), a second later the
    // process ends: its staging folders are removed, a commit under way
    // finishes first, and earlier results stay whole. A second signal
    // ends it at once, the same way.
    let _ = ctrlc::set_handler(|| {
        if !warcrunch::engine::interrupt() {
            std::thread::spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(800));
                warcrunch::report::kit::output_dir::abandon_and_exit(130);
            });
            return;
        }
        warcrunch::report::kit::output_dir::abandon_and_exit(130);
    });
    match warcrunch::commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "error: {}",
                warcrunch::stats::format::clip_echoes(&format!("{e:#}"))
            );
            // Stopped by a signal: the status a shell gives Ctrl-C.
            if warcrunch::engine::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
                ExitCode::from(130)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// A reader that closes early (`warcrunch … | head`) ends the command as it
/// ends Unix tools, by SIGPIPE (status 141), instead of a panic in the next
/// `print!`. The server keeps Rust's default: a client gone is its own.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: setting a signal's disposition to its default, before any
    // thread is started, touches no memory of this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
