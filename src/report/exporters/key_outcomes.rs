//! The outcomes a designer weighs when two variants are compared (a
//! side's victory, an engagement's winners, a party's risk, a PC out of
//! action, a PC's mean Reputation, an event asked as a target), each with
//! both estimates, the paired difference and the
//! family-wise verdict: found once, rendered by the console, the reports
//! and the table comparison alike.

use crate::report::VariantResult;
use crate::stats::MetricRole;
use crate::stats::compare::Tests;
use crate::stats::format::percent;

/// One key outcome of two variants (two tables, two scenarios), and the
/// difference.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyOutcome {
    /// Subject, metric and value, as `comparison.csv` names them.
    pub subject: String,
    /// The metric.
    pub metric: String,
    /// The value (`mean` for a mean).
    pub value: String,
    /// The outcome in words: `Montaigne won`.
    pub words: String,
    /// A probability (else a mean).
    pub is_probability: bool,
    /// With the baseline table.
    pub baseline: f64,
    /// With the other table.
    pub estimate: f64,
    /// estimate − baseline, with its 95% interval.
    pub difference: (f64, f64, f64),
    /// Two-sided p-value.
    pub p_value: f64,
    /// Significant at the scenario comparison's family-wise level, and
    /// no smaller than the `--min-effect` asked.
    pub significant: bool,
    /// Significant, but smaller than the `--min-effect` asked: too small
    /// to matter, never called higher or lower.
    pub too_small: bool,
    /// Paired, and the same in every battle.
    pub unchanged: bool,
}

impl KeyOutcome {
    /// `higher` or `lower` when the family-wise test finds a difference
    /// no smaller than the `--min-effect` asked; `too small` when it finds
    /// a smaller one; `tied` when the 95% interval holds zero; `unclear`
    /// between (the interval leaves zero out, but not at the family-wise
    /// level).
    pub fn verdict(&self) -> &'static str {
        let (d, lo, hi) = self.difference;
        if self.too_small {
            return "too small";
        }
        match (self.significant, d > 0.0) {
            (true, true) => "higher",
            (true, false) => "lower",
            (false, _) if lo <= 0.0 && hi >= 0.0 => "tied",
            (false, _) => "unclear",
        }
    }

    /// A value as every summary prints it: a percentage, or a mean to
    /// three decimals.
    pub fn shown(&self, v: f64) -> String {
        if self.is_probability {
            percent(v)
        } else {
            crate::stats::format::signed(v, 3, false)
        }
    }

    /// The difference and its interval in the reports' one style: points
    /// for a probability (`+19.3 pt (18.9 to 19.6)`).
    pub fn difference_text(&self) -> String {
        let (d, lo, hi) = self.difference;
        let (scale, unit) = if self.is_probability {
            (100.0, " pt")
        } else {
            (1.0, "")
        };
        crate::stats::format::change(scale * d, (scale * lo, scale * hi), unit)
    }

    /// The outcome in a sentence: what it is with each, and the difference
    /// or that there is none to tell (`Montaigne won in 52.36% vs 52.33% of
    /// battles, no clear difference: 0.0 pt (−0.1 to 0.2)`).
    pub fn sentence(&self) -> String {
        let verdict = if self.unchanged {
            "the same in every battle".to_owned()
        } else if self.too_small {
            format!(
                "a difference smaller than the --min-effect asked: {}",
                self.difference_text()
            )
        } else if self.significant {
            self.difference_text()
        } else {
            format!("no clear difference: {}", self.difference_text())
        };
        let (before, after) = if self.is_probability {
            (" in", " of battles")
        } else {
            ("", "")
        };
        format!(
            "{}{before} {} vs {}{after}, {verdict}",
            self.words,
            self.shown(self.estimate),
            self.shown(self.baseline)
        )
    }
}

/// An event asked as a target (`hero:Titus/state=down|dead`) in words: a
/// PC's being out of action as a run's verdict says it (`Titus ends down
/// or dead`), any other as the reports name a target (`Megalos:
/// casualties, % of Troop Strength ≥ 20`).
fn event_words(system: &str, base: &VariantResult, event: &crate::stats::Metric<u64>) -> String {
    let target = format!("{}/{}", event.subject, event.name);
    let (name, values) = event.name.split_once('=').unwrap_or((&event.name, ""));
    let states: Vec<&str> = values.split('|').collect();
    let fate = base.metrics.iter().find_map(|m| match &m.role {
        MetricRole::Fate { pc, out, .. } if m.subject == event.subject && m.name == name => {
            let labels: Vec<String> = out.iter().map(|&bin| m.label(bin)).collect();
            (labels == states).then_some(pc)
        }
        _ => None,
    });
    match fate {
        Some(pc) => format!("{pc} ends {}", states.join(" or ").replace('_', " ")),
        None => crate::report::kit::words::target(system, &target),
    }
}

/// The outcomes a designer weighs, tested as the comparison tests them:
/// each side's victory (an engagement's winners), each party's risk, each
/// event asked or added as an outcome (a PC out of action), each PC's mean
/// Reputation.
pub fn key_outcomes(
    system: &str,
    (base, variant): (&VariantResult, &VariantResult),
    min_effect: Option<f64>,
) -> Vec<KeyOutcome> {
    let tests = Tests::new(
        &base.metrics,
        &variant.metrics,
        (&variant.shared, &variant.paired_means),
    );
    let mut rows = Vec::new();
    for m in &base.metrics {
        let wanted: Vec<(String, String)> = match &m.role {
            MetricRole::Victory { side } => vec![("won".into(), format!("{side} won"))],
            MetricRole::Winner { units } => vec![
                (m.label(0), format!("{} (attacker) won", units[0])),
                (m.label(1), format!("{} (defender) won", units[1])),
            ],
            MetricRole::PartyRisk { side, whole, words } => {
                vec![(
                    "yes".into(),
                    crate::report::kit::words::party_risk(side, *whole, words),
                )]
            }
            MetricRole::Target => vec![("yes".into(), event_words(system, base, m))],
            MetricRole::Fame { pc } => vec![("mean".into(), format!("{pc}: mean Reputation"))],
            // Out of action in one state; several are asked as a target.
            MetricRole::Fate { pc, out, .. } if out.len() == 1 => {
                let state = m.label(out[0]);
                vec![(
                    state.clone(),
                    format!("{pc} ends {}", state.replace('_', " ")),
                )]
            }
            _ => Vec::new(),
        };
        for (value, words) in wanted {
            // A target repeating an outcome listed already is not listed again.
            let Some((d, _)) = tests.all.iter().zip(&tests.repeats).find(|(d, repeat)| {
                d.subject == m.subject
                    && d.metric == m.name
                    && d.value == value
                    && d.test != "chi_square"
                    && !**repeat
            }) else {
                continue;
            };
            let too_small =
                tests.is_significant(d) && min_effect.is_some_and(|m| d.below(m) == Some(true));
            rows.push(KeyOutcome {
                subject: d.subject.clone(),
                metric: d.metric.clone(),
                value,
                words,
                is_probability: d.scale().1 == "%",
                baseline: d.baseline,
                estimate: d.estimate,
                difference: d.difference,
                p_value: d.p_value,
                significant: tests.is_significant(d) && !too_small,
                too_small,
                unchanged: d.difference.0 == 0.0 && d.pairs.is_some_and(|p| p.discordant == 0),
            });
        }
    }
    rows
}
