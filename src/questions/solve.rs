//! `warcrunch solve`: the search for the value of one setting at which a
//! target's probability (or a numeric outcome's mean) crosses a threshold. Bisection on a monotone
//! response, each probe decided only when its interval leaves the threshold
//! out; the answer says what the probes support and no more.

use std::fmt::Write as _;

use anyhow::{Result, bail};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::questions::target::Quantity;

/// The most battles one probe may take unless `--max-trials` says otherwise.
pub const DEFAULT_MAX_TRIALS: u64 = 1_000_000;

/// What the user asks of the probability or mean (in a request:
/// `{"at_least": 0.5}`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// At least this.
    AtLeast(f64),
    /// At most this.
    AtMost(f64),
    /// As close to this as the setting allows.
    Equals(f64),
}

impl Goal {
    /// The threshold.
    pub fn threshold(self) -> f64 {
        match self {
            Goal::AtLeast(p) | Goal::AtMost(p) | Goal::Equals(p) => p,
        }
    }
}

/// The values a setting may take in the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Domain {
    /// Every integer from `lo` to `hi`.
    Integers {
        /// Lowest value.
        lo: i64,
        /// Highest value.
        hi: i64,
    },
    /// Reals from `lo` to `hi`, resolved to `tolerance`.
    Reals {
        /// Lowest value.
        lo: f64,
        /// Highest value.
        hi: f64,
        /// Stop once the bracket is this narrow.
        tolerance: f64,
    },
}

impl Domain {
    /// Parses `LO..HI` for `--vary`: reals when `real` (the setting is a
    /// real number), else integers.
    pub fn parse(option: &str, range: &str, real: bool, tolerance: Option<f64>) -> Result<Domain> {
        let usage = "expected LO..HI, e.g. 200..3000 or 0..1";
        let Some((a, b)) = range.split_once("..") else {
            bail!("{option}: {usage}");
        };
        let (a, b) = (a.trim(), b.trim());
        if !real {
            let (Ok(lo), Ok(hi)) = (a.parse::<i64>(), b.parse::<i64>()) else {
                bail!(
                    "{option}: the setting takes whole numbers; `{range}` is not a range of integers; {usage}"
                );
            };
            if lo >= hi {
                bail!(
                    "{option}: the range {lo}..{hi} needs its smaller value first and two values at least"
                );
            }
            return Ok(Domain::Integers { lo, hi });
        }
        let (Ok(lo), Ok(hi)) = (a.parse::<f64>(), b.parse::<f64>()) else {
            bail!("{option}: `{range}` is not a range of numbers; {usage}");
        };
        if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
            bail!("{option}: the range {a}..{b} needs its smaller value first");
        }
        let tolerance = tolerance.unwrap_or((hi - lo) / 1000.0);
        if tolerance.is_nan() || tolerance <= 0.0 {
            bail!("--tolerance = {tolerance} is out of range; allowed: above 0");
        }
        Ok(Domain::Reals { lo, hi, tolerance })
    }

    fn ends(self) -> (f64, f64) {
        match self {
            Domain::Integers { lo, hi } => (lo as f64, hi as f64),
            Domain::Reals { lo, hi, .. } => (lo, hi),
        }
    }

    /// The point between two values, or `None` once they are adjacent.
    fn between(self, a: f64, b: f64) -> Option<f64> {
        match self {
            Domain::Integers { .. } => {
                let (a, b) = (a as i64, b as i64);
                ((a - b).abs() > 1).then(|| (a + (b - a) / 2) as f64)
            }
            Domain::Reals { tolerance, .. } => ((a - b).abs() > tolerance).then(|| (a + b) / 2.0),
        }
    }
}

/// Where a probe lies against the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Its interval lies above the threshold.
    Above,
    /// Its interval lies below.
    Below,
    /// Its interval holds the threshold, at the most battles allowed.
    Undecided,
}

impl Decision {
    /// Where an interval lies against `threshold`.
    pub fn of(low: f64, high: f64, threshold: f64) -> Decision {
        if low > threshold {
            Decision::Above
        } else if high < threshold {
            Decision::Below
        } else {
            Decision::Undecided
        }
    }

    /// The name written in `solve.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Above => "above",
            Decision::Below => "below",
            Decision::Undecided => "undecided",
        }
    }
}

/// One value of the setting, and the target's probability or mean there.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The setting's value.
    pub value: f64,
    /// The target's probability or mean.
    pub estimate: f64,
    /// Lower end of its 95% interval (the estimate itself when exact).
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Whether the estimate is a probability or a mean.
    pub quantity: Quantity,
}

/// Written as `value`, `probability` (or `mean`), `ci_low`, `ci_high`.
impl Serialize for Point {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("value", &self.value)?;
        map.serialize_entry(self.quantity.name(), &self.estimate)?;
        map.serialize_entry("ci_low", &self.ci_low)?;
        map.serialize_entry("ci_high", &self.ci_high)?;
        map.end()
    }
}

/// One probe of the search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    /// The value and its estimate.
    #[serde(flatten)]
    pub point: Point,
    /// Battles it took (none when exact).
    pub trials: Option<u64>,
    /// Where it lies against the threshold.
    pub decision: Decision,
}

/// The answer, as `run.json` writes it under `solution`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Solution {
    /// The boundary value (`--at-least`, `--at-most`) or the closest one (`--equals`).
    #[serde(flatten)]
    pub point: Point,
    /// The adjacent value on the other side of the threshold, where there is one.
    pub neighbour: Option<Point>,
    /// The answer in words.
    pub sentence: String,
    /// A doubt about the search, when the probes contradict a monotone response.
    pub warning: Option<String>,
}

/// How a value is written in `solve.csv`: integers without a fraction.
pub fn shown(domain: Domain, v: f64) -> String {
    match domain {
        Domain::Integers { .. } => format!("{}", v as i64),
        Domain::Reals { .. } => format!("{}", (v * 1e9).round() / 1e9),
    }
}

/// A value as a person reads it: a whole number with its thousands marked
/// (`1,600`), a true minus sign (`−3`).
pub fn read_as(domain: Domain, v: f64) -> String {
    match domain {
        Domain::Integers { .. } => {
            let n = v as i64;
            let digits = crate::stats::format::thousands(n.unsigned_abs());
            if n < 0 {
                format!("\u{2212}{digits}")
            } else {
                digits
            }
        }
        Domain::Reals { .. } => crate::stats::format::minus(&shown(domain, v)),
    }
}

fn at(p: &Point) -> String {
    if p.ci_low == p.ci_high {
        format!("{} (exact)", p.quantity.value(p.estimate))
    } else {
        let [p, lo, hi] = p.quantity.interval(p.estimate, p.ci_low, p.ci_high);
        format!("{p} ({lo}–{hi})")
    }
}

/// Searches `domain` for where `probe(value)` crosses the goal's
/// threshold: both ends first, then bisection. `what` names the setting and
/// the event (`P(side:A/victory=won)`, `the mean of hero:A/reputation`) in
/// sentences; `quantity` says how the threshold is written.
pub fn search(
    domain: Domain,
    (goal, quantity): (Goal, Quantity),
    what: (&str, &str),
    mut probe: impl FnMut(f64) -> Result<Probe>,
) -> Result<(Vec<Probe>, Solution)> {
    let w = Wording::new(domain, (goal, quantity), what);
    let (lo, hi) = domain.ends();
    let mut probes = vec![probe(lo)?, probe(hi)?];
    let (a, b) = (probes[0].clone(), probes[1].clone());
    if let Some(solution) = answer_at_the_ends(&w, &a, &b) {
        return Ok((probes, solution));
    }
    // Bisect between a value below the threshold and one above.
    let (mut low_side, mut high_side) = (a, b);
    let mut answer_in_noise = None;
    while let Some(mid) = domain.between(low_side.point.value, high_side.point.value) {
        let m = probe(mid)?;
        probes.push(m.clone());
        if m.decision == Decision::Undecided {
            answer_in_noise = Some(m);
            break;
        }
        if m.decision == low_side.decision {
            low_side = m;
        } else {
            high_side = m;
        }
    }
    let mut solution = match answer_in_noise {
        Some(m) => w.solution(
            &m.point,
            None,
            format!(
                "At {} = {}, {} = {} cannot be told from {} within the battles allowed: the crossing is at about that value",
                w.setting,
                w.name(m.point.value),
                w.event,
                at(&m.point),
                w.p_text
            ),
        ),
        None => answer_between(&w, &low_side, &high_side),
    };
    solution.warning = monotonicity_warning(&probes, domain, w.setting);
    Ok((probes, solution))
}

/// What the search's sentences name: the setting, what is measured
/// (`P(side:A/victory=won)`), the threshold.
struct Wording<'a> {
    domain: Domain,
    goal: Goal,
    setting: &'a str,
    event: &'a str,
    threshold: f64,
    p_text: String,
    /// What a setting that moves in steps moves: `the odds`, or the mean.
    moved: String,
}

impl<'a> Wording<'a> {
    fn new(
        domain: Domain,
        (goal, quantity): (Goal, Quantity),
        (setting, event): (&'a str, &'a str),
    ) -> Self {
        let threshold = goal.threshold();
        Wording {
            domain,
            goal,
            setting,
            event,
            threshold,
            p_text: quantity.asked(threshold),
            moved: match quantity {
                Quantity::Probability => "the odds".to_owned(),
                Quantity::Mean => event.to_owned(),
            },
        }
    }

    /// A value of the setting as a person reads it.
    fn name(&self, value: f64) -> String {
        read_as(self.domain, value)
    }

    fn solution(&self, point: &Point, neighbour: Option<&Point>, sentence: String) -> Solution {
        Solution {
            point: point.clone(),
            neighbour: neighbour.cloned(),
            sentence,
            warning: None,
        }
    }
}

/// The answer when the two ends already settle it: an end within noise of
/// the threshold, or both ends on one side of it (every value meets the
/// target, or none does). `None` when the threshold lies between the ends.
fn answer_at_the_ends(w: &Wording, a: &Probe, b: &Probe) -> Option<Solution> {
    let (goal, threshold, setting, event) = (w.goal, w.threshold, w.setting, w.event);
    let p_text = &w.p_text;
    let name = |v: f64| w.name(v);
    let (lo, hi) = w.domain.ends();
    let undecided_end = [a, b]
        .into_iter()
        .find(|p| p.decision == Decision::Undecided);
    let same_side = a.decision == b.decision && a.decision != Decision::Undecided;
    if !same_side && undecided_end.is_none() {
        return None;
    }
    let closest = if let Some(u) = undecided_end {
        u.clone()
    } else if (a.point.estimate - threshold).abs() <= (b.point.estimate - threshold).abs() {
        a.clone()
    } else {
        b.clone()
    };
    let meets = |d: Decision| match goal {
        Goal::AtLeast(_) => d == Decision::Above,
        Goal::AtMost(_) => d == Decision::Below,
        Goal::Equals(_) => false,
    };
    let sentence = if closest.decision == Decision::Undecided {
        format!(
            "At {setting} = {}, {event} = {} cannot be told from {p_text} within the battles allowed: that value is the answer to within the noise",
            name(closest.point.value),
            at(&closest.point)
        )
    } else if same_side && meets(a.decision) {
        format!(
            "Every value of {setting} from {} to {} meets the target: {event} is {} at {} and {} at {}",
            name(lo),
            name(hi),
            at(&a.point),
            name(lo),
            at(&b.point),
            name(hi)
        )
    } else {
        format!(
            "No value of {setting} from {} to {} reaches {p_text}: the closest is {} with {event} = {}",
            name(lo),
            name(hi),
            name(closest.point.value),
            at(&closest.point)
        )
    };
    Some(w.solution(&closest.point, None, sentence))
}

/// The answer when the search ends with `low_side` and `high_side` on
/// either side of the threshold, as close as the setting's steps allow.
fn answer_between(w: &Wording, low_side: &Probe, high_side: &Probe) -> Solution {
    let (goal, threshold, setting, event) = (w.goal, w.threshold, w.setting, w.event);
    let p_text = &w.p_text;
    let name = |v: f64| w.name(v);
    let domain = w.domain;
    let (below, above) = if low_side.decision == Decision::Below {
        (low_side, high_side)
    } else {
        (high_side, low_side)
    };
    let adjacent = matches!(domain, Domain::Integers { .. });
    match goal {
        Goal::Equals(_) => {
            let closer_below = (below.point.estimate - threshold).abs()
                <= (above.point.estimate - threshold).abs();
            let (best, other) = if closer_below {
                (below, above)
            } else {
                (above, below)
            };
            let sentence = if adjacent {
                let (first, second) = if low_side.point.value < high_side.point.value {
                    (&low_side.point, &high_side.point)
                } else {
                    (&high_side.point, &low_side.point)
                };
                format!(
                    "{p_text} lies between {setting} = {}, at {}, and {}, at {}: {setting} moves {} in steps here; the closest is {}",
                    name(first.value),
                    at(first),
                    name(second.value),
                    at(second),
                    w.moved,
                    name(best.point.value)
                )
            } else {
                format!(
                    "{event} crosses {p_text} between {setting} = {} and {} (to within the tolerance); the closest probe is {} with {}",
                    name(below.point.value.min(above.point.value)),
                    name(below.point.value.max(above.point.value)),
                    name(best.point.value),
                    at(&best.point)
                )
            };
            w.solution(&best.point, Some(&other.point), sentence)
        }
        Goal::AtLeast(_) | Goal::AtMost(_) => {
            let (meets, fails) = if matches!(goal, Goal::AtLeast(_)) {
                (above, below)
            } else {
                (below, above)
            };
            let extreme = if meets.point.value > fails.point.value {
                "smallest"
            } else {
                "largest"
            };
            let relation = if matches!(goal, Goal::AtLeast(_)) {
                "at least"
            } else {
                "at most"
            };
            let sentence = format!(
                "The {extreme} {setting} with {event} {relation} {p_text} is {}: {}; at {} it is {}",
                name(meets.point.value),
                at(&meets.point),
                name(fails.point.value),
                at(&fails.point)
            );
            w.solution(&meets.point, Some(&fails.point), sentence)
        }
    }
}

/// A sentence when two probes contradict a monotone response beyond their
/// intervals (the search assumes one crossing; there may be more).
fn monotonicity_warning(probes: &[Probe], domain: Domain, setting: &str) -> Option<String> {
    let mut sorted: Vec<&Probe> = probes.iter().collect();
    sorted.sort_by(|a, b| a.point.value.total_cmp(&b.point.value));
    let (first, last) = (sorted.first()?, sorted.last()?);
    let rising = last.point.estimate >= first.point.estimate;
    let mut text = String::new();
    for (i, a) in sorted.iter().enumerate() {
        for b in &sorted[i + 1..] {
            let contradicts = if rising {
                b.point.ci_high < a.point.ci_low
            } else {
                b.point.ci_low > a.point.ci_high
            };
            if contradicts && text.is_empty() {
                let _ = write!(
                    text,
                    "the probes contradict a monotone response: {setting} = {} gives {} but {} gives {}; the search assumes one crossing and there may be others",
                    read_as(domain, a.point.value),
                    at(&a.point),
                    read_as(domain, b.point.value),
                    at(&b.point)
                );
            }
        }
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probe of a known step function with a fixed interval half-width.
    fn probe(
        f: impl Fn(f64) -> f64,
        half: f64,
        threshold: f64,
    ) -> impl FnMut(f64) -> Result<Probe> {
        move |v| {
            let p = f(v);
            Ok(Probe {
                point: Point {
                    value: v,
                    estimate: p,
                    ci_low: p - half,
                    ci_high: p + half,
                    quantity: Quantity::Probability,
                },
                trials: Some(1000),
                decision: Decision::of(p - half, p + half, threshold),
            })
        }
    }

    #[test]
    fn a_thousand_values_take_at_most_fifteen_probes() {
        let f = |v: f64| if v < 713.0 { 0.465 } else { 0.53 };
        let domain = Domain::Integers { lo: 200, hi: 1199 };
        let (probes, s) = search(
            domain,
            (Goal::Equals(0.5), Quantity::Probability),
            ("troop_strength", "won"),
            probe(f, 0.003, 0.5),
        )
        .unwrap();
        assert!(probes.len() <= 15, "{} probes", probes.len());
        assert_eq!(
            s.neighbour.as_ref().unwrap().value.min(s.point.value),
            712.0
        );
        assert_eq!(
            s.neighbour.as_ref().unwrap().value.max(s.point.value),
            713.0
        );
        assert!(
            s.sentence.contains("moves the odds in steps"),
            "{}",
            s.sentence
        );
        assert_eq!(s.point.value, 713.0, "53% is closer to 50% than 46.5%");
    }

    #[test]
    fn at_most_finds_the_last_value_under_the_cap_on_a_rising_curve() {
        let f = |v: f64| v / 1000.0;
        let domain = Domain::Integers { lo: 0, hi: 1000 };
        let (_, s) = search(
            domain,
            (Goal::AtMost(0.0505), Quantity::Probability),
            ("x", "e"),
            probe(f, 0.0001, 0.0505),
        )
        .unwrap();
        assert_eq!(s.point.value, 50.0);
        assert_eq!(s.neighbour.unwrap().value, 51.0);
        assert!(s.sentence.starts_with("The largest x"), "{}", s.sentence);
        // Falling: the smallest value that keeps it at least the threshold... is the lowest one.
        let g = |v: f64| 1.0 - v / 1000.0;
        let (_, s) = search(
            domain,
            (Goal::AtLeast(0.3005), Quantity::Probability),
            ("x", "e"),
            probe(g, 0.0001, 0.3005),
        )
        .unwrap();
        assert_eq!(s.point.value, 699.0);
        assert!(s.sentence.starts_with("The largest x"), "{}", s.sentence);
    }

    #[test]
    fn an_unreachable_target_names_the_closest_end_and_noise_is_never_decided() {
        let domain = Domain::Integers { lo: 0, hi: 10 };
        let (probes, s) = search(
            domain,
            (Goal::Equals(0.9), Quantity::Probability),
            ("x", "e"),
            probe(|v| v / 100.0, 0.001, 0.9),
        )
        .unwrap();
        assert_eq!(probes.len(), 2);
        assert_eq!(s.point.value, 10.0);
        assert!(s.sentence.starts_with("No value of x"), "{}", s.sentence);
        // A probe whose interval holds the threshold ends the search there.
        let (_, s) = search(
            domain,
            (Goal::Equals(0.05), Quantity::Probability),
            ("x", "e"),
            probe(|v| v / 100.0, 0.02, 0.05),
        )
        .unwrap();
        assert!(s.sentence.contains("cannot be told"), "{}", s.sentence);
    }

    #[test]
    fn reals_stop_at_the_tolerance_and_a_bump_is_flagged() {
        let domain = Domain::parse("--vary x=0..1", "0..1", true, Some(0.001)).unwrap();
        assert_eq!(
            Domain::parse("--vary", "3..7", false, None).unwrap(),
            Domain::Integers { lo: 3, hi: 7 }
        );
        assert!(Domain::parse("--vary", "0.5..7", false, None).is_err());
        assert!(Domain::parse("--vary", "7..3", true, None).is_err());
        let (probes, s) = search(
            domain,
            (Goal::Equals(0.25), Quantity::Probability),
            ("x", "e"),
            probe(|v| v * v, 0.0001, 0.25),
        )
        .unwrap();
        assert!((s.point.value - 0.5).abs() < 0.002, "{s:?}");
        assert!(probes.len() <= 13);
        let bump = |v: f64| {
            if (0.45..0.55).contains(&v) {
                0.05
            } else {
                0.2 + 0.8 * v
            }
        };
        let (_, s) = search(
            domain,
            (Goal::Equals(0.3), Quantity::Probability),
            ("x", "e"),
            probe(bump, 0.001, 0.3),
        )
        .unwrap();
        assert!(s.warning.is_some_and(|w| w.contains("monotone")));
    }
}
