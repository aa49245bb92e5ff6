//! Each question's files, console lines and pages, drawn with the kit,
//! written through the exporters, saying the findings: a run's (`html`,
//! `charts`, `console`), a batch's, a sweep's, a sensitivity's, a
//! solve's, a tune's (`tune`, `tune_html`), a table comparison's, a card
//! skew's and a usage count's.

pub mod batch;
pub mod charts;
pub mod console;
pub mod html;
pub mod sensitivity;
pub mod skew;
pub mod solve;
pub mod sweep;
pub mod table_compare;
pub mod tune;
pub mod tune_html;
pub mod usage;

use crate::report::findings::deck::SkewReport;
use crate::report::{Export, RunReport};

/// Every exporter of a simulation run.
pub fn run_exporters() -> Vec<Box<dyn Export<RunReport>>> {
    vec![
        Box::new(crate::report::exporters::csv::Distributions),
        Box::new(crate::report::exporters::csv::Summary),
        Box::new(crate::report::exporters::csv::ExactComparison),
        Box::new(crate::report::exporters::csv::Comparison),
        Box::new(crate::report::exporters::json::RunJson),
        Box::new(crate::report::exporters::json::ResultsJson),
        Box::new(charts::Charts),
        Box::new(usage::UsageCsv),
        Box::new(usage::UsageMaps),
        Box::new(html::HtmlReport),
    ]
}

/// Every exporter of a card-skew report.
pub fn skew_exporters() -> Vec<Box<dyn Export<SkewReport>>> {
    vec![
        Box::new(skew::SkewCsv),
        Box::new(skew::MonotonicityCsv),
        Box::new(skew::AnomaliesCsv),
        Box::new(skew::SkewJson),
        Box::new(skew::Heatmaps),
        Box::new(html::SkewHtml),
    ]
}
