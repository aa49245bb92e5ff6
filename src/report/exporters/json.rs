//! `run.json`: the run's provenance.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::report::{Export, RunReport};

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
        // Its keys in the order a JSON object's sorted keys take.
        #[derive(serde::Serialize)]
        struct Results<'a> {
            distributions: EachVariant<'a, crate::report::exporters::csv::DistributionRow>,
            run: &'a crate::report::RunInfo,
            summary: EachVariant<'a, crate::report::exporters::csv::SummaryRow>,
        }
        let document = Results {
            distributions: EachVariant(report, crate::report::exporters::csv::distribution_rows_of),
            run: &report.info,
            summary: EachVariant(report, |_, v| {
                crate::report::exporters::csv::summary_rows_of(v)
            }),
        };
        let file = std::fs::File::create(dir.join("results.json"))
            .context("cannot create results.json")?;
        let mut out = std::io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut out, &document).context("cannot write results.json")?;
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .context("cannot write results.json")?;
        Ok(vec!["results.json".into()])
    }
}

/// The rows of every variant as one JSON array, made a variant at a time
/// as it is written, so memory holds one variant's rows.
struct EachVariant<'a, T>(
    &'a RunReport,
    fn(&str, &crate::report::VariantResult) -> Vec<T>,
);

impl<T: serde::Serialize> serde::Serialize for EachVariant<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let system = &self.0.info.system;
        serializer.collect_seq(self.0.variants.iter().flat_map(|v| (self.1)(system, v)))
    }
}

/// Writes any provenance record as `run.json`.
pub fn write_info(info: &crate::report::RunInfo, dir: &Path) -> Result<Vec<String>> {
    write_info_with(info, dir, [])
}

/// Writes a provenance record as `run.json` with a command's own fields
/// beside it (`solution`, `target`, ...).
pub fn write_info_with<'a>(
    info: &crate::report::RunInfo,
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
