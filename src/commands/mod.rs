//! One module per command.

pub mod cards;
pub mod check;
pub mod compare;
pub mod merge;
pub mod run;
pub mod sweep;
pub mod tables;

use crate::report::{ReportKind, RunReport};

/// The console summary of a finished report of the command `kind`.
pub fn summary(kind: ReportKind, report: &RunReport) -> String {
    match kind {
        ReportKind::Run => run::console_summary(report),
        ReportKind::Sweep => {
            sweep::sweep_summary(report, report.info.max_risk_of_down.unwrap_or(0.05))
        }
        ReportKind::Compare => compare::compare_summary(report),
    }
}

/// Says what an interrupted simulation left behind: nothing.
pub fn nothing_written(e: anyhow::Error) -> anyhow::Error {
    if e.is::<crate::engine::Interrupted>() {
        anyhow::anyhow!("{e:#}; nothing was written and earlier results are untouched")
    } else {
        e
    }
}

/// Writes text to stdout; a closed pipe (`warcrunch ... | head`) is not an error.
pub fn say(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
