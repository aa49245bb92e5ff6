//! `warcrunch cards`: the exact skew analysis of a Combat Card deck.

use anyhow::Result;

use crate::cli::CardsArgs;
use crate::report::RunInfo;
use crate::report::findings::deck::SkewReport;
use crate::report::findings::deck::findings;
use crate::report::kit::output_dir::Staging;
use crate::report::writers::console::say;
use crate::report::writers::skew_exporters;
use crate::systems::war_cards::deck::Deck;
use crate::systems::war_cards::skew::analyse;
use crate::tables::{TableUse, built_in_text};

/// Analyses the deck, writes the tables and heatmaps, prints the findings.
pub fn run(args: &CardsArgs) -> Result<()> {
    let (text, source) = match &args.table {
        None => (built_in_text("cards").to_owned(), "built-in".to_owned()),
        Some(path) => (
            crate::tables::input_file::read_text(path)
                .map_err(|e| anyhow::anyhow!("cannot read table file {}: {e}", path.display()))?,
            path.display().to_string(),
        ),
    };
    let deck = Deck::parse(&text, &source)?;
    let analysis = analyse(&deck);
    let staging = Staging::new(&args.out, args.force)?;
    let report = SkewReport {
        info: RunInfo {
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            tool_commit: crate::report::TOOL_COMMIT.to_owned(),
            command: match &args.table {
                None => "warcrunch cards".to_owned(),
                Some(p) => format!("warcrunch cards --table {}", p.display()),
            },
            min_effect: None,
            scenario_path: None,
            scenario_sha256: None,
            scenario_text: None,
            name: "Combat Card skew".to_owned(),
            system: "war_cards".to_owned(),
            seed: None,
            trials: None,
            chunk_size: None,
            stream_layout: None,
            threads: None,
            elapsed_seconds: None,
            shards: None,
            stop_reason: None,
            tables: vec![TableUse::new(
                "cards",
                source.clone(),
                &text,
                deck.stand_ins.clone(),
            )],
            stand_in_rules: Vec::new(),
            rests_on: Vec::new(),
            variants: Vec::new(),
            baseline: None,
            max_risk_of_down: None,
            swept_heroes: Vec::new(),
            held_by_readings: Vec::new(),
            parameters: Vec::new(),
            scenarios: Vec::new(),
        },
        analysis,
    };
    let mut written = Vec::new();
    for exporter in skew_exporters() {
        written.extend(exporter.write(&report, staging.path())?);
    }
    let dest = staging.commit()?;
    say(&findings(&deck, &source, &report.analysis))?;
    say(&crate::report::writers::console::wrote(&dest, &written))
}
