//! `warcrunch serve`: the workbench on a local port.

use std::io::Write as _;

use anyhow::{Result, bail};

use crate::cli::ServeArgs;
use crate::serve::{ServeOptions, serve};

/// Checks the options, warns when the server is exposed, and serves until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    if args.max_trials == 0 || args.max_trials > crate::engine::MAX_TRIALS {
        bail!(
            "--max-trials {}: allowed: 1 to {}",
            args.max_trials,
            crate::engine::MAX_TRIALS
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let max_runs = args.max_runs.unwrap_or(cores);
    if max_runs == 0 {
        bail!("--max-runs 0: allowed: at least 1");
    }
    if let Some(token) = &args.token
        && (token.len() < 16 || !token.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        bail!("--token: allowed: at least 16 letters and digits (none other)");
    }
    let token = match (&args.token, args.host.is_loopback()) {
        (Some(token), _) => Some(token.clone()),
        (None, true) => None,
        (None, false) => Some(crate::serve::new_token()),
    };
    if !args.host.is_loopback() {
        eprintln!(
            "warning: --host {} lets anyone who can reach this machine and holds the token use the workbench (and read its scenarios folder)",
            args.host
        );
    }
    let scenarios = match &args.scenarios {
        Some(dir) if !dir.is_dir() => {
            bail!(
                "--scenarios {}: no such folder (leave it out to use ./scenarios when present, and the bundled battles)",
                dir.display()
            )
        }
        Some(dir) => dir.clone(),
        None => "scenarios".into(),
    };
    let options = ServeOptions {
        host: args.host,
        port: args.port,
        scenarios,
        max_trials: args.max_trials,
        max_runs,
        token: token.clone(),
    };
    let open = args.open;
    serve(options, |address| {
        let url = match &token {
            Some(token) => format!("http://{address}/?token={token}"),
            None => format!("http://{address}"),
        };
        let mut out = std::io::stdout().lock();
        writeln!(out, "warcrunch workbench: {url}   (Ctrl-C stops it)")?;
        out.flush()?;
        if open {
            open_browser(&url);
        }
        Ok(())
    })
}

/// Opens `url` in the desktop's browser, or says how to.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if std::process::Command::new(opener).arg(url).spawn().is_err() {
        eprintln!("could not start {opener}; open {url} in your browser");
    }
}
