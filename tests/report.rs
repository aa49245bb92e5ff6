//! The HTML report: structure, self-containment and agreement with the CSV.

use crate::util::{read, repo, scenario, warcrunch};

fn no_network(html: &str) {
    for needle in ["http://", "https://", "<script", "src=\"//", "url("] {
        assert!(
            !html.contains(needle),
            "report must be self-contained; found {needle:?}"
        );
    }
}

#[test]
fn a_run_report_has_every_section_chart_and_table_and_matches_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    warcrunch()
        .args(["run", "--quiet", "--trials", "50000", "--exact", "--out"])
        .arg(&out)
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    no_network(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    for heading in [
        "<h1>Knights charge the pike square</h1>",
        "<h2>Verdict</h2>",
        "<h2>Balance flags</h2>",
        "<h2>Outcomes</h2>",
        "<h2>Provenance</h2>",
    ] {
        assert!(html.contains(heading), "missing {heading}");
    }
    assert!(html.contains("Knights (attacker) win"));
    assert!(html.contains("Stand-in values in use: table `cards`"));
    assert!(html.contains("Exact check:"));
    assert!(html.contains("warcrunch run"));
    // One chart and one table per metric.
    let distributions = read(&out.join("distributions.csv"));
    let metrics: std::collections::BTreeSet<String> = distributions
        .lines()
        .skip(1)
        .map(|l| l.split(',').skip(1).take(2).collect::<Vec<_>>().join("/"))
        .collect();
    assert_eq!(html.matches("<figure><svg").count(), metrics.len());
    assert!(html.matches("<table>").count() > metrics.len());
    // Every count in the CSV appears in the report's tables.
    for line in distributions.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let cell = format!("<td class=\"l\">{}</td><td>{}</td>", f[3], f[4]);
        assert!(
            html.contains(&cell),
            "report lacks {}/{} = {} count {}",
            f[1],
            f[2],
            f[3],
            f[4]
        );
    }
}

#[test]
fn a_sweep_report_has_its_comparison_and_recommendation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--quiet",
            "--trials",
            "20000",
            "--set",
            "heroes.Titus.risk=-3..3",
            "--out",
        ])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    no_network(&html);
    assert!(html.contains("<h2>Comparison of variants</h2>"));
    assert!(html.contains("(recommended)"));
    assert!(html.contains("choose <strong>risk="));
    assert!(html.contains("<h2>Provenance</h2>"));
}

#[test]
fn the_cards_report_ranks_what_is_out_of_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cards");
    warcrunch()
        .args(["cards", "--out"])
        .arg(&out)
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    no_network(&html);
    for part in [
        "<h2>Heatmaps</h2>",
        "<h2>Ranked: what is out of line</h2>",
        "Cell sword_banner at &gt;=+3",
        "<h3>cards by chi-square p-value</h3>",
    ] {
        assert!(html.contains(part), "missing {part}");
    }
}
