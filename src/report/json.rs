//! `run.json`: the run's provenance.

use std::path::Path;

use anyhow::{Context, Result};

use super::{Export, RunReport};

/// Writes `run.json`.
pub struct RunJson;

impl Export<RunReport> for RunJson {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        write_info(&report.info, dir)
    }
}

/// Writes any provenance record as `run.json`.
pub fn write_info(info: &super::RunInfo, dir: &Path) -> Result<Vec<String>> {
    let text = serde_json::to_string_pretty(info).context("cannot encode run.json")?;
    std::fs::write(dir.join("run.json"), text + "\n").context("cannot write run.json")?;
    Ok(vec!["run.json".into()])
}
