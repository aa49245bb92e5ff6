//! `report.html`: one self-contained page (inline SVG and CSS, no script, no
//! network) with the headline verdict, balance flags, every outcome with its
//! interval, sweep comparisons and the provenance of the run.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

use super::charts::metric_svg;
use super::draw::ensure_font;
use super::findings::{
    Flag, HeroFrontier, advice, bound, find, flags, frontiers, headline, pct, share,
};
use super::skew::{IMPACT_FLAG, SkewReport};
use super::{Export, RunInfo, RunReport};
use crate::format::thousands;
use crate::recommend::Recommendation;
use crate::stats::{Metric, MetricRole};
use crate::systems::war_cards::deck::COLUMNS;
use crate::systems::war_cards::skew::{GroupSkew, SkewAnalysis, impact_reference};

/// Writes `report.html` for a run or sweep.
pub struct HtmlReport;

/// Writes `report.html` for a card-skew analysis.
pub struct SkewHtml;

/// The stylesheet every HTML page of warcrunch shares.
const CSS: &str = include_str!("../../assets/report.css");

/// Escapes text for HTML.
pub fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An inline SVG without the namespace URL (HTML5 needs none).
pub(crate) fn inline(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "")
}

pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        esc(title)
    )
}

fn flags_html(flags: &[Flag]) -> String {
    flags
        .iter()
        .map(|f| {
            format!(
                "<div class=\"flag{}\">{}</div>\n",
                if f.ok { " ok" } else { "" },
                esc(&f.text)
            )
        })
        .collect()
}

/// Tables longer than this are folded under their chart.
const FOLD_ROWS: usize = 12;

fn metric_table(m: &Metric<u64>) -> String {
    let rows = m.reported_bins(|w| w == 0).len();
    let mut t = String::new();
    if rows > FOLD_ROWS {
        let _ = writeln!(t, "<details><summary>Every value ({rows} rows)</summary>");
    }
    t.push_str(
        "<table>\n<tr><th class=\"l\">value</th><th>count</th><th>probability</th><th>95% interval</th></tr>\n",
    );
    for bin in m.reported_bins(|w| w == 0) {
        let (p, lo, hi) = share(m, bin);
        let _ = writeln!(
            t,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{} – {}</td></tr>",
            esc(&m.label(bin)),
            m.weights[bin],
            pct(p),
            bound(lo),
            bound(hi)
        );
    }
    if let Some(s) = m.summary() {
        let _ = writeln!(
            t,
            "<tr><td class=\"l\">mean</td><td colspan=\"3\">{:.4} (95% CI {:.4} – {:.4}), sd {:.4}, p05 {}, median {}, p95 {}</td></tr>",
            s.mean, s.ci_low, s.ci_high, s.std_dev, s.p05, s.p50, s.p95
        );
    }
    t.push_str("</table>\n");
    if rows > FOLD_ROWS {
        t.push_str("</details>\n");
    }
    t
}

pub(crate) fn provenance(info: &RunInfo) -> String {
    let mut t = String::from("<h2>Provenance</h2>\n<table>\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(
            t,
            "<tr><th class=\"l\">{k}</th><td class=\"l\">{}</td></tr>",
            esc(&v)
        );
    };
    row("tool", format!("warcrunch {}", info.tool_version));
    row("system", info.system.clone());
    if let Some(p) = &info.scenario_path {
        row("scenario", p.clone());
    }
    if let Some(h) = &info.scenario_sha256 {
        row("scenario SHA-256", h.clone());
    }
    if let Some(s) = info.seed {
        row("seed", s.to_string());
    }
    if let Some(n) = info.trials {
        row("trials", thousands(n));
    }
    if let Some(c) = info.chunk_size {
        row("chunk size", c.to_string());
    }
    if let Some(th) = info.threads {
        row("threads", th.to_string());
    }
    if let Some(e) = info.elapsed_seconds {
        row("elapsed", format!("{e:.3} s"));
    }
    if let Some(n) = info.shards {
        row("shards merged", n.to_string());
    }
    if let Some(reason) = &info.stop_reason {
        row("why it stopped", reason.clone());
    }
    row("reproduce with", info.command.clone());
    t.push_str("</table>\n<h3>Tables</h3>\n<table>\n<tr><th class=\"l\">table</th><th class=\"l\">source</th><th class=\"l\">stand-ins</th><th class=\"l\">SHA-256</th></tr>\n");
    for u in &info.tables {
        let _ = writeln!(
            t,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\"><code>{}</code></td></tr>",
            esc(&u.name),
            esc(&u.source),
            if u.stand_ins.is_empty() {
                "none".to_owned()
            } else {
                format!(
                    "<strong>stand-in:</strong> {}",
                    esc(&u.stand_ins.join(", "))
                )
            },
            &u.sha256[..16]
        );
    }
    t.push_str("</table>\n");
    if !info.stand_in_rules.is_empty() {
        t.push_str("<h3>Stand-in rules</h3>\n<ul>\n");
        for r in &info.stand_in_rules {
            let _ = writeln!(t, "<li>{}</li>", esc(r));
        }
        t.push_str("</ul>\n");
    }
    t
}

pub(crate) fn svg_string(
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<String> {
    ensure_font()?;
    let mut s = String::new();
    draw(SVGBackend::with_string(&mut s, size).into_drawing_area())?;
    Ok(inline(&s))
}

fn significance_section(report: &RunReport) -> String {
    use crate::compare::{Tests, format_p};
    let mut b = String::from(
        "<h2>Significant differences</h2>\n<p class=\"muted\">Each variant against the first: each outcome on the paired battles where the variants fought the same battles (McNemar's test, Newcombe's paired interval), else a two-proportion z-test; chi-square per distribution; Welch's t on means (as independent samples, so cautious); significant at a family-wise 5% (Bonferroni). Every test, with its method, is in <code>comparison.csv</code>.</p>\n",
    );
    let Some(base) = report.variants.first() else {
        return b;
    };
    for v in report.variants.iter().skip(1) {
        let tests = Tests::new(&base.metrics, &v.metrics, &v.shared);
        let significant = tests.significant();
        let _ = writeln!(
            b,
            "<h3>{} against {}: {} of {} tests significant</h3>",
            esc(&v.variant),
            esc(&base.variant),
            significant.len(),
            tests.all.len()
        );
        if !tests.untested.is_empty() {
            let _ = writeln!(
                b,
                "<p>Not tested (only one of the two reports them): {}.</p>",
                esc(&tests.untested.join(", "))
            );
        }
        if significant.is_empty() {
            b.push_str(if tests.untested.is_empty() {
                "<p>No significant difference.</p>\n"
            } else {
                "<p>No significant difference among the outcomes tested.</p>\n"
            });
            continue;
        }
        b.push_str("<table>\n<tr><th class=\"l\">outcome</th><th>baseline</th><th>variant</th><th>difference</th><th>95% interval</th><th>p-value</th></tr>\n");
        for d in &significant {
            let (scale, suffix) = d.scale();
            let shown = |x: f64| {
                if x.is_nan() {
                    "–".to_owned()
                } else {
                    format!("{:.3}{suffix}", scale * x)
                }
            };
            let signed = |x: f64| {
                if x.is_nan() {
                    "–".to_owned()
                } else {
                    format!("{:+.3}", scale * x)
                }
            };
            let _ = writeln!(
                b,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} – {}</td><td>{}</td></tr>",
                esc(&d.outcome()),
                shown(d.baseline),
                shown(d.estimate),
                signed(d.difference.0),
                signed(d.difference.1),
                signed(d.difference.2),
                esc(&format_p(d.p_value))
            );
        }
        b.push_str("</table>\n");
    }
    b
}

fn sweep_section(report: &RunReport, all: &[HeroFrontier]) -> Result<String> {
    let mut b = String::from("<h2>Comparison of variants</h2>\n");
    let advice = advice(report, all);
    if !all.is_empty() {
        let size = (1000, 480 * all.len() as u32 + 40);
        b.push_str("<figure>");
        b.push_str(&svg_string(size, |root| {
            super::sweep::frontier_panels(root, report, all, advice.as_ref())
        })?);
        b.push_str("</figure>\n");
        for f in all {
            let _ = writeln!(
                b,
                "<h3>{}</h3>\n<table>\n<tr><th class=\"l\">variant</th><th>P({})</th><th>95% interval</th><th>expected Reputation</th><th>95% interval</th></tr>",
                esc(&f.subject),
                esc(&f.out_label)
            );
            for (i, p) in f.points.iter().enumerate() {
                let mark = match &advice {
                    Some(a) if f.advised && a.recommends(i) => match a.recommendation {
                        Recommendation::Tied(_) => " <strong>(tied)</strong>",
                        _ => " <strong>(recommended)</strong>",
                    },
                    _ => "",
                };
                let _ = writeln!(
                    b,
                    "<tr><td class=\"l\">{}{mark}</td><td>{}</td><td>{} – {}</td><td>{:+.4}</td><td>{:+.4} – {:+.4}</td></tr>",
                    esc(&p.variant),
                    pct(p.p_out),
                    bound(p.p_out_ci.0),
                    bound(p.p_out_ci.1),
                    p.reputation,
                    p.reputation_ci.0,
                    p.reputation_ci.1
                );
            }
            b.push_str("</table>\n");
        }
        if let Some(a) = &advice {
            let _ = writeln!(b, "<p>{}.</p>", esc(&upper_first(&a.explain())));
        }
    }
    if let Some(first) = report.variants.first() {
        for m in first.metrics.iter().filter(|m| !m.is_numeric()) {
            let wanted = matches!(
                m.role,
                MetricRole::Winner { .. }
                    | MetricRole::Outcome
                    | MetricRole::Victory { .. }
                    | MetricRole::Survival { .. }
                    | MetricRole::Fate { .. }
            );
            if !wanted {
                continue;
            }
            let _ = writeln!(
                b,
                "<h3>{} / {}</h3>\n<figure>",
                esc(&m.subject),
                esc(&m.name)
            );
            b.push_str(&svg_string((1000, 520), |root| {
                super::sweep::stacked(root, report, &m.subject, &m.name)
            })?);
            b.push_str("</figure>\n<table>\n<tr><th class=\"l\">variant</th>");
            for bin in 0..m.weights.len() {
                let _ = write!(b, "<th>{}</th>", esc(&m.label(bin)));
            }
            b.push_str("</tr>\n");
            for v in &report.variants {
                let Some(vm) = find(&v.metrics, &m.subject, &m.name) else {
                    continue;
                };
                let _ = write!(b, "<tr><td class=\"l\">{}</td>", esc(&v.variant));
                for bin in 0..vm.weights.len() {
                    let _ = write!(b, "<td>{}</td>", pct(share(vm, bin).0));
                }
                b.push_str("</tr>\n");
            }
            b.push_str("</table>\n");
        }
    }
    Ok(b)
}

impl Export<RunReport> for HtmlReport {
    fn write(&self, report: &RunReport, dir: &Path) -> Result<Vec<String>> {
        let info = &report.info;
        let trials = info.trials.unwrap_or(0);
        let mut b = format!(
            "<h1>{}</h1>\n<p class=\"muted\">{} · {} battles{} · seed {}</p>\n",
            esc(&info.name),
            esc(&info.system),
            thousands(trials),
            if report.variants.len() > 1 {
                format!(" per variant × {} variants", report.variants.len())
            } else {
                String::new()
            },
            info.seed.unwrap_or(0)
        );
        b.push_str("<h2>Verdict</h2>\n<div class=\"verdict\">\n");
        let sweep = report.variants.len() > 1;
        let all = if sweep { frontiers(report) } else { Vec::new() };
        if sweep {
            match advice(report, &all) {
                Some(a) => {
                    let whom: Vec<&str> = a.pcs.iter().map(String::as_str).collect();
                    let _ = writeln!(
                        b,
                        "<p>For {}: {}.</p>",
                        esc(&whom.join(" and ")),
                        esc(&a.explain())
                    );
                }
                // A comparison of files makes no recommendation, and says nothing of one.
                None if !all.is_empty() && info.max_risk_of_down.is_some() => b.push_str(
                    "<p>No recommendation: no swept setting belongs to a PC (name one with <code>--recommend-for NAME</code>).</p>\n",
                ),
                None => {}
            }
            let _ = writeln!(
                b,
                "<p>{} variants compared: {}.</p>",
                report.variants.len(),
                esc(&crate::recommend::named_few(&info.variants))
            );
        } else if let Some(v) = report.variants.first() {
            for line in headline(&v.metrics, trials) {
                let _ = writeln!(b, "<p>{}.</p>", esc(&line));
            }
        }
        if let Some(reason) = &info.stop_reason {
            let _ = writeln!(b, "<p>Why it stopped: {}.</p>", esc(reason));
        }
        b.push_str("</div>\n<h2>Balance flags</h2>\n");
        b.push_str(&flags_html(&flags(report)));
        if sweep {
            b.push_str(&sweep_section(report, &all)?);
            b.push_str(&significance_section(report));
        } else if let Some(v) = report.variants.first() {
            b.push_str("<h2>Outcomes</h2>\n");
            let mut subject = "";
            for m in &v.metrics {
                if m.subject != subject {
                    subject = &m.subject;
                    let _ = writeln!(b, "<h3>{}</h3>", esc(subject));
                }
                b.push_str("<figure>");
                b.push_str(&inline(&metric_svg(&info.name, m)?));
                b.push_str("</figure>\n");
                b.push_str(&metric_table(m));
            }
        }
        b.push_str(&provenance(info));
        std::fs::write(dir.join("report.html"), page(&info.name, &b))
            .context("cannot write report.html")?;
        Ok(vec!["report.html".into()])
    }
}

impl Export<SkewReport> for SkewHtml {
    fn write(&self, report: &SkewReport, dir: &Path) -> Result<Vec<String>> {
        let a = &report.analysis;
        let mut b = String::from(
            "<h1>Combat Card skew</h1>\n<p class=\"muted\">Exact figures over every cell of the deck; no sampling.</p>\n<h2>Verdict</h2>\n<div class=\"verdict\">\n",
        );
        let ranked = a.cards_by_impact();
        let flagged_cards: Vec<_> = ranked
            .iter()
            .filter(|g| g.impact.is_some_and(|i| i.abs() >= IMPACT_FLAG))
            .collect();
        if let Some(top) = ranked.first() {
            let impact = top.impact.expect("cards carry an impact");
            let _ = writeln!(
                b,
                "<p>Card {} matters most: drawing it instead of a random card in the first exchange {} the drawer's chance to win by {:.2} points. {} of {} cards move it by {:.0} point or more.</p>",
                esc(&top.key),
                if impact >= 0.0 { "raises" } else { "lowers" },
                100.0 * impact.abs(),
                flagged_cards.len(),
                ranked.len(),
                100.0 * IMPACT_FLAG
            );
        }
        let _ = writeln!(
            b,
            "<p class=\"muted\">Impact is exact, on a reference engagement: {}. Impacts average to zero over the cards.</p>",
            esc(&impact_reference())
        );
        let _ = writeln!(
            b,
            "<p>{}; {}.</p>\n</div>",
            count(
                a.anomalies.len(),
                "cell breaks its column's pattern",
                "cells break their column's pattern"
            ),
            count(
                a.breaks.len(),
                "column step goes the wrong way",
                "column steps go the wrong way"
            )
        );
        b.push_str("<h2>Balance flags</h2>\n");
        let fl = skew_flags(report, &flagged_cards);
        b.push_str(&flags_html(&fl));
        b.push_str("<h2>Heatmaps</h2>\n<figure>");
        b.push_str(&svg_string((1500, 1180), |root| {
            super::skew::heatmaps(root, a)
        })?);
        b.push_str("</figure>\n");
        b.push_str(&skew_tables(a, &ranked));
        b.push_str(&provenance(&report.info));
        std::fs::write(dir.join("report.html"), page("Combat Card skew", &b))
            .context("cannot write report.html")?;
        Ok(vec!["report.html".into()])
    }
}

/// The skew report's flags: cards of large impact, cells off their
/// column's pattern, columns stepping the wrong way, stand-ins in use.
fn skew_flags(report: &SkewReport, flagged_cards: &[&&GroupSkew]) -> Vec<Flag> {
    let a = &report.analysis;
    let mut fl: Vec<Flag> = Vec::new();
    for g in flagged_cards {
        let impact = g.impact.expect("cards carry an impact");
        fl.push(Flag {
            ok: false,
            text: format!(
                "Card {} moves the drawer's chance to win by {:+.2} points (hurt {}, decisive {}, retreat {}).",
                g.key,
                100.0 * impact,
                pct(g.p_hurt()),
                pct(g.p_decisive()),
                pct(g.p_retreat())
            ),
        });
    }
    for x in &a.anomalies {
        fl.push(Flag {
            ok: false,
            text: format!("Cell {}.", x.sentence()),
        });
    }
    for x in &a.breaks {
        fl.push(Flag {
            ok: false,
            text: format!(
                "Non-monotone column: {} {}: {} {} from {} at {} to {} at {}.",
                x.scope,
                x.key,
                x.measure,
                x.direction(),
                pct(x.from_value),
                COLUMNS[x.from_column],
                pct(x.to_value),
                COLUMNS[x.from_column + 1]
            ),
        });
    }
    for t in &report.info.tables {
        if !t.stand_ins.is_empty() {
            fl.push(Flag {
                ok: false,
                text: format!(
                    "Stand-in values in use: table `{}`: {}.",
                    t.name,
                    t.stand_ins.join(", ")
                ),
            });
        }
    }
    fl
}

/// The cards ranked by impact and the rows, each with its shares.
fn skew_tables(a: &SkewAnalysis, ranked: &[&GroupSkew]) -> String {
    let mut b = String::from("<h2>Cards ranked by impact</h2>\n");
    b.push_str("<p class=\"muted\">The cells are enumerated, not sampled, so every share is exact. The last column is not a test of difference: it says how often a deck dealt at random would look at least this uneven (chi-square against the deck mean).</p>\n");
    b.push_str("<table>\n<tr><th class=\"l\">card</th><th>impact (points)</th><th>hurt</th><th>decisive</th><th>retreat</th><th>-</th><th>F</th><th>H</th><th>R</th><th>D</th><th>a random deck as uneven</th></tr>\n");
    for g in ranked {
        let _ = write!(
            b,
            "<tr><td class=\"l\">{}</td><td>{:+.2}</td>",
            esc(&g.key),
            100.0 * g.impact.expect("cards carry an impact")
        );
        b.push_str(&measure_cells(g));
    }
    b.push_str("</table>\n<h2>Rows (sign pairs)</h2>\n<table>\n<tr><th class=\"l\">row</th><th>hurt</th><th>decisive</th><th>retreat</th><th>-</th><th>F</th><th>H</th><th>R</th><th>D</th><th>a random deck as uneven</th></tr>\n");
    for g in a.scope("row") {
        let _ = write!(b, "<tr><td class=\"l\">{}</td>", esc(&g.key));
        b.push_str(&measure_cells(g));
    }
    b.push_str("</table>\n");
    b
}

/// `n` and the words that go with it: `1 cell breaks`, `3 cells break`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `text` with its first letter in upper case.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The shares, counts and chi-square p of one card or row, as table cells.
fn measure_cells(g: &GroupSkew) -> String {
    let mut cells = format!(
        "<td>{}</td><td>{}</td><td>{}</td>",
        pct(g.p_hurt()),
        pct(g.p_decisive()),
        pct(g.p_retreat())
    );
    for count in g.counts {
        let _ = write!(cells, "<td>{count}</td>");
    }
    let p = g
        .chi_square
        .map_or(String::new(), |c| format!("{:.3}", c.p_value));
    let _ = writeln!(cells, "<td>{p}</td></tr>");
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict reads what a metric means from its declared role, not
    /// its names: relabelled bins and renamed metrics keep their lines.
    #[test]
    fn the_verdict_follows_roles_not_labels() {
        let metrics = vec![
            Metric::categorical(
                "army:North",
                "outcome",
                &["yes", "no", "even"],
                &[60, 30, 10],
            )
            .with_role(MetricRole::Victory {
                side: "North".into(),
            }),
            Metric::categorical("pc:Ann", "end", &["ok", "ko", "gone"], &[90, 6, 4]).with_role(
                MetricRole::Fate {
                    pc: "Ann".into(),
                    out: vec![1, 2],
                    dead: Some(2),
                },
            ),
        ];
        let lines = headline(&metrics, 100);
        assert!(lines[0].starts_with("North won 60.00%"), "{lines:?}");
        assert!(
            lines[1].starts_with("Ann ends ko or gone in 10.00%"),
            "{lines:?}"
        );
        // Without roles, nothing is claimed.
        let plain: Vec<Metric<u64>> = metrics
            .into_iter()
            .map(|m| m.with_role(MetricRole::Detail))
            .collect();
        assert!(headline(&plain, 100).is_empty());
    }
}
