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

/// Writes `results.json` (with `--format json`): the run's metadata and
/// every distribution and summary row, in one document for other tools.
pub struct ResultsJson;

impl Export<RunReport> for ResultsJson {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        if !report.formats.json {
            return Ok(Vec::new());
        }
        let document = serde_json::json!({
            "run": &report.info,
            "distributions": super::csv::distribution_rows(report),
            "summary": super::csv::summary_rows(report),
        });
        let text = serde_json::to_string_pretty(&document).context("cannot encode results.json")?;
        std::fs::write(dir.join("results.json"), text + "\n")
            .context("cannot write results.json")?;
        Ok(vec!["results.json".into()])
    }
}

/// Writes any provenance record as `run.json`.
pub fn write_info(info: &super::RunInfo, dir: &Path) -> Result<Vec<String>> {
    write_info_with(info, dir, [])
}

/// Writes a provenance record as `run.json` with a command's own fields
/// beside it (`solution`, `target`, ...).
pub fn write_info_with<'a>(
    info: &super::RunInfo,
    dir: &Path,
    fields: impl IntoIterator<Item = (&'a str, serde_json::Value)>,
) -> Result<Vec<String>> {
    let mut document = serde_json::to_value(info).context("cannot encode run.json")?;
    for (key, value) in fields {
        document[key] = value;
    }
    let text = serde_json::to_string_pretty(&document).context("cannot encode run.json")?;
    std::fs::write(dir.join("run.json"), text + "\n").context("cannot write run.json")?;
    Ok(vec!["run.json".into()])
}
