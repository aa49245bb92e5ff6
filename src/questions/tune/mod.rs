//! The terms of `warcrunch tune` and its answer on them: a goal is an
//! outcome (an event's probability, or a numeric outcome's mean, in the
//! target syntax) with a band or a bound it should keep to; how far an
//! estimate falls short of it; and what an interval says of it. Then the
//! tune itself, on data: the plan ([`plan`]), the search that asks the
//! battles through [`fight::Ask`] ([`propose`]), and the verdicts on the
//! verifying run ([`verdicts`]). `analysis::tune` answers the asks on the
//! engine; `report` writes what comes back.

use anyhow::{Result, bail};
use toml::Value;

use super::target::Target;

pub mod fight;
pub mod moves;
pub mod plan;
pub mod propose;
pub mod race;
pub mod search;
pub mod smallest;
pub mod verdicts;

pub use race::{MOST_ROUNDS, RACE_PASS};
pub use search::{StepSeen, TIDY_PASS};

use fight::Ask;
use plan::{TunePlan, TuneRequest};
use propose::{Proposal, propose};
use verdicts::{GoalResult, Verified, judge, verify_trials};

/// The verifying run: the table found fought on the number of battles
/// given, one [`Verified`] a battle tuned.
pub type Verify<'a> = dyn FnMut(&[Value], u64) -> Result<Vec<Verified>> + 'a;

/// A tune answered: the table proposed, the verifying run's battles, each
/// goal's verdict there, and each change's effect alone.
pub struct Answer {
    pub proposal: Proposal,
    pub verify_trials: u64,
    pub goals: Vec<GoalResult>,
    pub effects: Vec<Effect>,
}

/// Answers `plan` (asked as `request`): the search asks `ask` for every
/// candidate's numbers on `threads` workers, showing `seen` each step;
/// `verify` fights the table found on the verifying run's battles (how
/// many it is told, on the plan's verify seed), one [`Verified`] a battle.
pub fn answer(
    plan: &TunePlan,
    request: &TuneRequest,
    ask: &dyn Ask,
    threads: usize,
    verify: &mut Verify,
    seen: &mut StepSeen,
) -> Result<Answer> {
    let proposal = propose(plan, ask, threads, request.min_effect.unwrap_or(0.0), seen)?;
    let verify_trials = verify_trials(plan, request, &proposal);
    let verified = verify(&proposal.current, verify_trials)?;
    let goals = judge(plan, &proposal, &verified)?;
    let effects = ask.effects(&proposal.current, verify_trials, plan.verify_seed)?;
    Ok(Answer {
        proposal,
        verify_trials,
        goals,
        effects,
    })
}

/// One candidate of one step of the search.
#[derive(Debug, Clone)]
pub struct StepRow {
    /// The pass of the search (1: pairs of moves only where single ones
    /// stall; 2: from the start again, pairs at every step).
    pub pass: usize,
    /// The step (from 1).
    pub step: usize,
    /// Each setting at its value.
    pub candidate: String,
    /// Settings changed from the battle as written.
    pub changed: usize,
    /// Each goal's estimate.
    pub estimates: Vec<f64>,
    /// Each goal's shortfall.
    pub shortfalls: Vec<f64>,
    /// Their sum.
    pub total: f64,
    /// Whether the search took it.
    pub chosen: bool,
}

/// One change made alone to the battle as written, and its effect on one
/// goal, paired on the verifying run's battles.
#[derive(Debug, Clone)]
pub struct Effect {
    /// The setting or cell.
    pub setting: String,
    /// Its value in the battle as written.
    pub from: String,
    /// The value found.
    pub to: String,
    /// The goal.
    pub goal: String,
    /// The scenario it was measured in (its file's stem).
    pub scenario: String,
    /// Whether the goal's outcome is a mean (else a probability).
    pub mean: bool,
    /// The change in the outcome with its 95% interval, where it is paired.
    pub difference: Option<crate::stats::DifferenceInterval>,
    /// How the interval was found.
    pub method: &'static str,
}

impl Effect {
    /// Whether its change is smaller than `min_effect` (percentage points
    /// for a probability, a mean's own units): too small to matter. `None`
    /// where it was not paired alone.
    pub fn below(&self, min_effect: f64) -> Option<bool> {
        let scale = if self.mean { 1.0 } else { 100.0 };
        (self.difference.as_ref()).map(|d| (scale * d.difference).abs() < min_effect)
    }

    /// `, too small to matter` where it is below the `--min-effect` asked.
    pub fn too_small_words(&self, min_effect: Option<f64>) -> &'static str {
        match min_effect.and_then(|m| self.below(m)) {
            Some(true) => ", smaller than --min-effect: too small to matter",
            _ => "",
        }
    }
}

/// What stands in the way of a tune that falls short; each goal by its
/// label (the report words them).
#[derive(Debug, Clone, PartialEq)]
pub enum Conflict {
    /// A declared order (in words) blocks goals: the table the search
    /// finds without it (`found`, by name) meets them.
    Blocks {
        order: String,
        goals: Vec<String>,
        found: String,
    },
    /// No single step of what may change brings the goal closer.
    Stuck { goal: String },
    /// Every single step that brings `closer` closer takes `further`
    /// further.
    Pull { closer: String, further: String },
}

/// One goal: `"side:Megalos/victory=won in 45%..55%"`,
/// `"party/any_down_or_dead=yes <= 10%"`, `"hero:Isabeau/reputation:mean >= 2"`;
/// `... @even_field_battle` holds only that scenario to it (by its file
/// stem), else every scenario tuned that has its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    /// As the user wrote it.
    pub text: String,
    /// The one scenario it is for (a file stem), when it names one.
    pub scenario: Option<String>,
    /// The outcome it is about.
    pub target: Target,
    /// Where the outcome should be: probabilities as shares (0.45),
    /// means in the outcome's own units.
    pub band: Band,
    /// How much its shortfall counts beside the others' (`weight 2` after
    /// the goal; 1 when absent).
    pub weight: f64,
}

/// Where a goal's outcome should be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Band {
    /// From the first to the second, both included.
    Between(f64, f64),
    /// At most this.
    AtMost(f64),
    /// At least this.
    AtLeast(f64),
}

/// What the verifying run says of a goal, family-wise over the goals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is inside the band.
    Met,
    /// The whole interval is outside the band.
    Missed,
    /// The interval straddles an edge of the band.
    TooCloseToTell,
}

impl Verdict {
    /// In words, as the console and the CSV write it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "missed",
            Verdict::TooCloseToTell => "too close to tell at this precision",
        }
    }
}

/// The smallest scale a goal is measured on: a thousandth of the unit
/// (0.1 point for a probability).
pub const MIN_SCALE: f64 = 0.001;

const USAGE: &str = "a goal is TARGET in LO..HI, TARGET <= X or TARGET >= X, e.g. \"side:Megalos/victory=won in 45%..55%\", \"party/any_down_or_dead=yes <= 10%\" or \"hero:Isabeau/reputation:mean >= 2\", with @SCENARIO after it for one scenario of several";

impl Goal {
    /// Parses a goal; a probability's numbers are percentages (`45%`), a
    /// mean's are in its own units.
    pub fn parse(text: &str) -> Result<Goal> {
        let trimmed = text.trim();
        let (trimmed_goal, weight) = match trimmed.rsplit_once(" weight ") {
            Some((goal, w)) => {
                let weight: f64 = w.trim().parse().map_err(|_| {
                    anyhow::anyhow!(
                        "--goal {trimmed}: `weight {}` is not a number; write e.g. `weight 2` at the end",
                        w.trim()
                    )
                })?;
                if !(weight.is_finite() && weight > 0.0) {
                    bail!(
                        "--goal {trimmed}: weight {} is out of range; allowed: a number above 0",
                        w.trim()
                    );
                }
                (goal.trim(), weight)
            }
            None => (trimmed, 1.0),
        };
        let (written, scenario) = match trimmed_goal.rsplit_once(" @") {
            Some((goal, name)) => {
                let name = name.trim();
                if name.is_empty() || name.contains(char::is_whitespace) {
                    bail!(
                        "--goal {trimmed}: `@{name}` is not a scenario's name; write @ and the file's stem, e.g. @even_field_battle"
                    );
                }
                (goal.trim(), Some(name.to_owned()))
            }
            None => (trimmed_goal, None),
        };
        let found = [" in ", " <= ", " >= "]
            .iter()
            .filter_map(|op| written.rfind(op).map(|at| (at, *op)))
            .max_by_key(|&(at, _)| at);
        let Some((at, op)) = found else {
            bail!("--goal {trimmed}: no band; {USAGE}");
        };
        let (target_text, bound) = (written[..at].trim(), written[at + op.len()..].trim());
        let target =
            Target::parse(target_text).map_err(|e| anyhow::anyhow!("--goal {trimmed}: {e:#}"))?;
        let mean = target.is_mean();
        let number = |word: &str| -> Result<f64> {
            let word = word.trim();
            let (digits, percent) = match word.strip_suffix('%') {
                Some(digits) => (digits.trim(), true),
                None => (word, false),
            };
            let x: f64 = digits.parse().map_err(|_| {
                anyhow::anyhow!("--goal {trimmed}: `{word}` is not a number; {USAGE}")
            })?;
            if !x.is_finite() {
                bail!("--goal {trimmed}: `{word}` is not a number; {USAGE}");
            }
            match (mean, percent) {
                (true, true) => bail!(
                    "--goal {trimmed}: `{word}` is a percentage, but a mean is in its outcome's own units; write it without %"
                ),
                (true, false) => Ok(x),
                (false, false) => bail!(
                    "--goal {trimmed}: `{word}` needs a % sign: a probability's bound is a percentage, e.g. 10%"
                ),
                (false, true) if (0.0..=100.0).contains(&x) => Ok(x / 100.0),
                (false, true) => {
                    bail!("--goal {trimmed}: {word} is out of range; allowed: 0% to 100%")
                }
            }
        };
        let band = match op.trim() {
            "in" => {
                let Some((lo, hi)) = bound.split_once("..") else {
                    bail!("--goal {trimmed}: `in` takes a range LO..HI; {USAGE}");
                };
                let (lo, hi) = (number(lo)?, number(hi)?);
                if lo > hi {
                    bail!("--goal {trimmed}: the range is empty; write the smaller bound first");
                }
                Band::Between(lo, hi)
            }
            "<=" => Band::AtMost(number(bound)?),
            _ => Band::AtLeast(number(bound)?),
        };
        Ok(Goal {
            text: trimmed.to_owned(),
            scenario,
            target,
            band,
            weight,
        })
    }

    /// The goal's own scale, in the units its shortfall is written in: a
    /// band's half-width; for a bound on a probability, its distance to
    /// the nearer certainty (10 points for `<= 10%`, 0.5 for `<= 0.5%`, 1
    /// for `>= 99%`); for a bound on a mean, the bound's size (1 at 0).
    /// Never below [`MIN_SCALE`], so a bound at 0% still has one.
    pub fn scale(&self) -> f64 {
        let percent = if self.target.is_mean() { 1.0 } else { 100.0 };
        let own = match self.band {
            Band::Between(lo, hi) if hi > lo => (hi - lo) / 2.0,
            Band::Between(x, _) | Band::AtMost(x) | Band::AtLeast(x) if self.target.is_mean() => {
                if x == 0.0 {
                    1.0
                } else {
                    x.abs()
                }
            }
            Band::Between(x, _) | Band::AtMost(x) | Band::AtLeast(x) => x.min(1.0 - x),
        };
        (own * percent).max(if self.target.is_mean() {
            MIN_SCALE
        } else {
            100.0 * MIN_SCALE
        })
    }

    /// How much a shortfall of this goal counts in a search's total: its
    /// shortfall over its own [`Goal::scale`], times its weight; so a
    /// goal of `<= 0.5%` missed by 0.25 points weighs as much as one of
    /// `<= 10%` missed by 5.
    pub fn weighed(&self, shortfall: f64) -> f64 {
        self.weight * shortfall / self.scale()
    }

    /// How far `estimate` is from the band, in the units the goal is
    /// written in (percentage points for a probability): 0 inside it.
    pub fn shortfall(&self, estimate: f64) -> f64 {
        self.shortfall_within(estimate, 0.0)
    }

    /// [`Goal::shortfall`] from the band narrowed by `margin` at each edge
    /// it has (to its middle, where the band is narrower than two margins):
    /// where an estimate must be for an interval of half-width `margin`
    /// around it to fit in the band.
    pub fn shortfall_within(&self, estimate: f64, margin: f64) -> f64 {
        let scale = if self.target.is_mean() { 1.0 } else { 100.0 };
        let gap = match self.band {
            Band::Between(lo, hi) => {
                let (lo, hi) = if hi - lo > 2.0 * margin {
                    (lo + margin, hi - margin)
                } else {
                    let middle = (lo + hi) / 2.0;
                    (middle, middle)
                };
                (lo - estimate).max(estimate - hi)
            }
            Band::AtMost(hi) => estimate - (hi - margin),
            Band::AtLeast(lo) => (lo + margin) - estimate,
        };
        gap.max(0.0) * scale
    }

    /// What an interval `(low, high)` around the outcome says of the goal.
    pub fn verdict(&self, low: f64, high: f64) -> Verdict {
        let (lo, hi) = self.range();
        if lo <= low && high <= hi {
            Verdict::Met
        } else if high < lo || low > hi {
            Verdict::Missed
        } else {
            Verdict::TooCloseToTell
        }
    }

    /// The band as written: `45%..55%`, `<= 10%`, `>= 2`.
    pub fn band_text(&self) -> String {
        let shown = |x: f64| {
            if self.target.is_mean() {
                crate::stats::format::trim_decimal(x, 6)
            } else {
                format!("{}%", crate::stats::format::trim_decimal(100.0 * x, 6))
            }
        };
        match self.band {
            Band::Between(lo, hi) => format!("{}..{}", shown(lo), shown(hi)),
            Band::AtMost(hi) => format!("<= {}", shown(hi)),
            Band::AtLeast(lo) => format!(">= {}", shown(lo)),
        }
    }

    /// The band as an interval (a bound's other end open).
    pub fn range(&self) -> (f64, f64) {
        match self.band {
            Band::Between(lo, hi) => (lo, hi),
            Band::AtMost(hi) => (f64::NEG_INFINITY, hi),
            Band::AtLeast(lo) => (lo, f64::INFINITY),
        }
    }

    /// The narrowest margin the band leaves an estimate inside it: half a
    /// range's width, or `None` for a bound (which has no width).
    pub fn half_width(&self) -> Option<f64> {
        match self.band {
            Band::Between(lo, hi) => Some((hi - lo) / 2.0),
            Band::AtMost(_) | Band::AtLeast(_) => None,
        }
    }
}

/// Two goals no battle can meet together, or one goal given twice, said
/// before any is fought: one outcome asked to lie in bands that do not
/// meet.
pub fn contradiction(goals: &[Goal]) -> Option<String> {
    for (i, a) in goals.iter().enumerate() {
        for b in &goals[i + 1..] {
            if a.target == b.target && a.band == b.band && a.scenario == b.scenario {
                return Some(format!(
                    "--goal \"{}\" is given twice; each goal counts once in the verdicts' family-wise level, so give it once",
                    a.text
                ));
            }
            let ((a_lo, a_hi), (b_lo, b_hi)) = (a.range(), b.range());
            let together = match (&a.scenario, &b.scenario) {
                (Some(x), Some(y)) => x == y,
                _ => true,
            };
            if together && a.target == b.target && (a_hi < b_lo || b_hi < a_lo) {
                return Some(format!(
                    "--goal \"{}\" and --goal \"{}\" ask {} to be in bands that do not meet; no battle meets both",
                    a.text,
                    b.text,
                    a.target.text()
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_read_a_band_or_a_bound() {
        let g = Goal::parse("side:Megalos/victory=won in 45%..55%").unwrap();
        assert_eq!(g.target.text(), "side:Megalos/victory=won");
        assert_eq!(g.band, Band::Between(0.45, 0.55));
        assert_eq!(g.band_text(), "45%..55%");
        let g = Goal::parse("hero:Isabeau/reputation>=10 <= 12.5%").unwrap();
        assert_eq!(g.target.text(), "hero:Isabeau/reputation>=10");
        assert_eq!(g.band, Band::AtMost(0.125));
        let g = Goal::parse(" hero:Isabeau/reputation:mean >= 2 ").unwrap();
        assert_eq!(g.band, Band::AtLeast(2.0));
        assert_eq!(g.band_text(), ">= 2");
        assert_eq!(g.scenario, None);
        let g = Goal::parse("side:Castille/victory=won in 40%..60% @even_field_battle").unwrap();
        assert_eq!(g.scenario.as_deref(), Some("even_field_battle"));
        assert_eq!(g.band, Band::Between(0.40, 0.60));
        assert_eq!(g.target.text(), "side:Castille/victory=won");
    }

    #[test]
    fn bad_goals_say_what_is_wrong() {
        let error = |text: &str| format!("{:#}", Goal::parse(text).unwrap_err());
        assert!(error("side:A/victory=won").contains("no band"));
        assert!(error("side:A/victory=won <= 10").contains("needs a % sign"));
        assert!(error("side:A/victory=won <= 120%").contains("allowed: 0% to 100%"));
        assert!(error("side:A/reputation:mean >= 2%").contains("own units"));
        assert!(error("side:A/victory=won in 60%..40%").contains("empty"));
        assert!(error("side:A/victory=won in 40%").contains("LO..HI"));
        assert!(error("side:A/victory=won >= lots").contains("not a number"));
        assert!(error("side:A/victory=won >= 5% @").contains("scenario's name"));
    }

    #[test]
    fn goals_whose_bands_cannot_both_hold_are_found() {
        let goals = |texts: &[&str]| -> Vec<Goal> {
            texts.iter().map(|t| Goal::parse(t).unwrap()).collect()
        };
        let said = contradiction(&goals(&[
            "side:A/victory=won >= 90%",
            "side:A/victory=won <= 10%",
        ]));
        assert!(said.unwrap().contains("do not meet"));
        assert!(
            contradiction(&goals(&[
                "side:A/victory=won >= 40%",
                "side:A/victory=won <= 60%"
            ]))
            .is_none()
        );
        assert!(
            contradiction(&goals(&[
                "side:A/victory=won >= 90%",
                "side:B/victory=won <= 10%"
            ]))
            .is_none()
        );
        // Two scenarios may each be held to a band of their own.
        assert!(
            contradiction(&goals(&[
                "side:A/victory=won >= 90% @one",
                "side:A/victory=won <= 10% @two"
            ]))
            .is_none()
        );
        assert!(
            contradiction(&goals(&[
                "side:A/victory=won >= 90% @one",
                "side:A/victory=won <= 10%"
            ]))
            .is_some()
        );
    }

    #[test]
    fn a_goal_given_twice_is_refused() {
        let goals: Vec<Goal> = [
            "party/any_down_or_dead=yes <= 10%",
            " party/any_down_or_dead=yes <= 10% ",
        ]
        .iter()
        .map(|t| Goal::parse(t).unwrap())
        .collect();
        assert!(contradiction(&goals).unwrap().contains("given twice"));
        let other: Vec<Goal> = [
            "party/any_down_or_dead=yes <= 10%",
            "party/any_down_or_dead=yes <= 12%",
        ]
        .iter()
        .map(|t| Goal::parse(t).unwrap())
        .collect();
        assert!(contradiction(&other).is_none());
    }

    #[test]
    fn each_goal_is_weighed_on_its_own_scale() {
        let rare = Goal::parse("hero:Varro/state=dead <= 0.5%").unwrap();
        let common = Goal::parse("party/any_down_or_dead=yes <= 10%").unwrap();
        // Missed by a twentieth of a point and by one point: alike on their scales.
        assert!((rare.weighed(0.05) - common.weighed(1.0)).abs() < 1e-12);
        assert!((rare.scale() - 0.5).abs() < 1e-12);
        let band = Goal::parse("side:A/victory=won in 45%..55%").unwrap();
        assert!((band.scale() - 5.0).abs() < 1e-9);
        let sure = Goal::parse("side:A/victory=won >= 99%").unwrap();
        assert!((sure.scale() - 1.0).abs() < 1e-9);
        let never = Goal::parse("side:A/victory=won <= 0%").unwrap();
        assert!(
            (never.scale() - 0.1).abs() < 1e-12,
            "a bound at 0% still has a scale"
        );
        let mean = Goal::parse("hero:A/reputation:mean >= 2").unwrap();
        assert!((mean.scale() - 2.0).abs() < 1e-12);
        // A weight counts it that many times.
        let first = Goal::parse("hero:Varro/state=dead <= 0.5% @ambush weight 3").unwrap();
        assert_eq!(first.weight, 3.0);
        assert_eq!(first.scenario.as_deref(), Some("ambush"));
        assert!((first.weighed(0.05) - 3.0 * rare.weighed(0.05)).abs() < 1e-12);
        // A weight without a scenario named (the one the docs show).
        let alone = Goal::parse("hero:Varro/state=dead <= 0.5% weight 3").unwrap();
        assert_eq!((alone.weight, alone.scenario), (3.0, None));
        assert_eq!(alone.band, Band::AtMost(0.005));
        let error = |text: &str| format!("{:#}", Goal::parse(text).unwrap_err());
        assert!(error("side:A/victory=won <= 5% weight lots").contains("not a number"));
        assert!(error("side:A/victory=won <= 5% weight 0").contains("above 0"));
    }

    #[test]
    fn the_shortfall_is_the_distance_to_the_band() {
        let g = Goal::parse("side:A/victory=won in 45%..55%").unwrap();
        assert_eq!(g.shortfall(0.50), 0.0);
        assert!((g.shortfall(0.40) - 5.0).abs() < 1e-9);
        assert!((g.shortfall(0.60) - 5.0).abs() < 1e-9);
        let g = Goal::parse("side:A/reputation:mean >= 2").unwrap();
        assert!((g.shortfall(1.5) - 0.5).abs() < 1e-12);
        assert_eq!(g.shortfall(2.5), 0.0);
        // With a margin, the estimate must sit that far inside.
        assert!((g.shortfall_within(2.5, 1.0) - 0.5).abs() < 1e-12);
        let g = Goal::parse("side:A/victory=won in 45%..55%").unwrap();
        assert!((g.shortfall_within(0.46, 0.02) - 1.0).abs() < 1e-9);
        assert_eq!(g.shortfall_within(0.50, 0.02), 0.0);
        // A band narrower than two margins shrinks to its middle.
        assert!((g.shortfall_within(0.52, 0.10) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn an_interval_meets_misses_or_straddles_the_band() {
        let g = Goal::parse("side:A/victory=won <= 10%").unwrap();
        assert_eq!(g.verdict(0.05, 0.09), Verdict::Met);
        assert_eq!(g.verdict(0.11, 0.13), Verdict::Missed);
        assert_eq!(g.verdict(0.09, 0.11), Verdict::TooCloseToTell);
        let g = Goal::parse("side:A/victory=won in 45%..55%").unwrap();
        assert_eq!(g.verdict(0.44, 0.46), Verdict::TooCloseToTell);
        assert_eq!(g.verdict(0.30, 0.40), Verdict::Missed);
        assert_eq!(g.verdict(0.46, 0.54), Verdict::Met);
    }
}
