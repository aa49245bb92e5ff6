//! The sweep's recommendation rule: which variant to choose when safety
//! (a PC's chance of going out of action) is traded against fame (expected
//! Reputation). The rule only picks on differences the intervals support;
//! where they overlap it says "tied", and the reason it prints is the one
//! that decided.

/// The cap on a PC's chance of going out of action that a sweep's
/// recommendation respects unless asked otherwise.
pub const DEFAULT_MAX_RISK_OF_DOWN: f64 = 0.05;

/// An estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Point estimate.
    pub value: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

impl Estimate {
    /// Whether two intervals share a point: the difference is not shown.
    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

/// One variant as the rule sees it, joint over the PCs it is made for.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Variant name (`risk=-3`).
    pub variant: String,
    /// The worst of the PCs' chances of going out of action (the highest
    /// point estimate, with the highest ends of the intervals).
    pub risk: Estimate,
    /// The PCs' expected Reputation added up; the interval adds the
    /// half-widths, which holds whatever the correlation between PCs.
    pub fame: Estimate,
}

impl Choice {
    /// Joins one PC's estimates per variant into the joint choice.
    pub fn joint(variant: &str, per_pc: &[(Estimate, Estimate)]) -> Choice {
        let risk = per_pc.iter().map(|(r, _)| *r).fold(
            Estimate {
                value: 0.0,
                low: 0.0,
                high: 0.0,
            },
            |a, r| Estimate {
                value: a.value.max(r.value),
                low: a.low.max(r.low),
                high: a.high.max(r.high),
            },
        );
        let fame = per_pc.iter().map(|(_, f)| *f).fold(
            Estimate {
                value: 0.0,
                low: 0.0,
                high: 0.0,
            },
            |a, f| Estimate {
                value: a.value + f.value,
                low: a.low + f.low,
                high: a.high + f.high,
            },
        );
        Choice {
            variant: variant.to_owned(),
            risk,
            fame,
        }
    }
}

/// What the rule decided, with the reason that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recommendation {
    /// No variant's risk is within the cap; `safest` has the lowest.
    NoneUnderCap {
        /// The variant with the lowest risk.
        safest: usize,
    },
    /// Exactly one variant's risk is within the cap.
    OnlyUnderCap(usize),
    /// Under the cap, this variant's fame is clearly above every other's.
    ClearlyMostFame(usize),
    /// Under the cap, several variants are level with the best on fame and
    /// this one is clearly the safest of them.
    SafestOfLevel {
        /// The recommendation.
        pick: usize,
        /// Every variant level with the best on fame (pick included).
        level: Vec<usize>,
    },
    /// Under the cap, level with the best on fame and not distinguishable
    /// on safety: the data do not pick one.
    Tied(Vec<usize>),
}

impl Recommendation {
    /// The variants recommended (several when tied; none when no variant is
    /// under the cap).
    pub fn chosen(&self) -> Vec<usize> {
        match self {
            Recommendation::NoneUnderCap { .. } => Vec::new(),
            Recommendation::OnlyUnderCap(i) | Recommendation::ClearlyMostFame(i) => vec![*i],
            Recommendation::SafestOfLevel { pick, .. } => vec![*pick],
            Recommendation::Tied(all) => all.clone(),
        }
    }

    /// The decision in plain words; `out` names the danger (`down or dead`).
    pub fn explain(&self, choices: &[Choice], cap: f64, out: &str) -> String {
        let name = |i: &usize| crate::stats::format::minus(&choices[*i].variant);
        let names = |all: &[usize]| named_few(&all.iter().map(name).collect::<Vec<_>>());
        let cap = format!("{:.1}%", 100.0 * cap);
        match self {
            Recommendation::NoneUnderCap { safest } => format!(
                "no variant keeps P({out}) at or below {cap}; the safest is {} (P({out}) {:.2}%)",
                name(safest),
                100.0 * choices[*safest].risk.value
            ),
            Recommendation::OnlyUnderCap(i) => format!(
                "recommended: {}, the only variant with P({out}) at or below {cap}",
                name(i)
            ),
            Recommendation::ClearlyMostFame(i) => format!(
                "recommended: {}, whose expected Reputation ({}) is clearly the highest of the variants with P({out}) at or below {cap}",
                name(i),
                {
                    let fame = &choices[*i].fame;
                    crate::stats::format::with_interval(fame.value, (fame.low, fame.high), true)[0]
                        .clone()
                }
            ),
            Recommendation::SafestOfLevel { pick, level } => format!(
                "recommended: {}, the safest of the {} variants with P({out}) at or below {cap} whose expected Reputation is statistically level with the best ({})",
                name(pick),
                level.len(),
                names(level)
            ),
            Recommendation::Tied(all) => format!(
                "statistically tied: {}: each has P({out}) at or below {cap}, expected Reputation level with the best, and safety the intervals cannot tell apart",
                names(all)
            ),
        }
    }
}

/// Most variant names a sentence lists; the rest are counted.
const NAMED: usize = 8;

/// Names for a sentence: all of them up to [`NAMED`], else the first ones
/// and how many more (every variant is in `comparison.csv`).
pub fn named_few(names: &[String]) -> String {
    if names.len() <= NAMED {
        names.join(", ")
    } else {
        format!(
            "{} and {} more (every variant is in comparison.csv)",
            names[..NAMED].join(", "),
            names.len() - NAMED
        )
    }
}

/// The rule: among variants whose risk is at most `cap`, those whose fame
/// is level with the best (intervals overlap); of these, the one clearly
/// safer than all the others, or a tie.
pub fn recommend(choices: &[Choice], cap: f64) -> Option<Recommendation> {
    let under: Vec<usize> = (0..choices.len())
        .filter(|&i| choices[i].risk.value <= cap)
        .collect();
    match under.as_slice() {
        [] => {
            let safest = (0..choices.len())
                .min_by(|&a, &b| choices[a].risk.value.total_cmp(&choices[b].risk.value))?;
            return Some(Recommendation::NoneUnderCap { safest });
        }
        [only] => return Some(Recommendation::OnlyUnderCap(*only)),
        _ => {}
    }
    let best = *under
        .iter()
        .max_by(|&&a, &&b| choices[a].fame.value.total_cmp(&choices[b].fame.value))?;
    let level: Vec<usize> = under
        .iter()
        .copied()
        .filter(|&i| choices[i].fame.overlaps(&choices[best].fame))
        .collect();
    if level.len() == 1 {
        return Some(Recommendation::ClearlyMostFame(best));
    }
    let safest = *level
        .iter()
        .min_by(|&&a, &&b| choices[a].risk.value.total_cmp(&choices[b].risk.value))?;
    let tied: Vec<usize> = level
        .iter()
        .copied()
        .filter(|&i| choices[i].risk.overlaps(&choices[safest].risk))
        .collect();
    Some(if tied.len() == 1 {
        Recommendation::SafestOfLevel {
            pick: safest,
            level,
        }
    } else {
        Recommendation::Tied(tied)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(value: f64, half: f64) -> Estimate {
        Estimate {
            value,
            low: value - half,
            high: value + half,
        }
    }

    fn choice(name: &str, risk: (f64, f64), fame: (f64, f64)) -> Choice {
        Choice {
            variant: name.into(),
            risk: est(risk.0, risk.1),
            fame: est(fame.0, fame.1),
        }
    }

    #[test]
    fn the_only_variant_under_the_cap_is_named_as_such() {
        // The 7th Sea policy sweep: rear earns 0.03 against a best of 10.7.
        let c = [
            choice("rear", (0.01, 0.001), (0.03, 0.01)),
            choice("engaged", (0.40, 0.01), (10.7, 0.1)),
        ];
        let r = recommend(&c, 0.05).unwrap();
        assert_eq!(r, Recommendation::OnlyUnderCap(0));
        let text = r.explain(&c, 0.05, "knocked out");
        assert!(text.contains("the only variant"), "{text}");
        assert!(!text.contains("level with the best"), "{text}");
    }

    #[test]
    fn nothing_under_the_cap_names_the_safest_and_recommends_nothing() {
        let c = [
            choice("a", (0.30, 0.01), (1.0, 0.1)),
            choice("b", (0.20, 0.01), (0.5, 0.1)),
        ];
        let r = recommend(&c, 0.05).unwrap();
        assert_eq!(r, Recommendation::NoneUnderCap { safest: 1 });
        assert!(r.chosen().is_empty());
        assert!(r.explain(&c, 0.05, "x").contains("the safest is b"));
    }

    #[test]
    fn overlapping_intervals_are_tied_never_picked_on_noise() {
        // Same fame within noise, same risk within noise: a tie.
        let c = [
            choice("a", (0.020, 0.004), (0.70, 0.02)),
            choice("b", (0.021, 0.004), (0.71, 0.02)),
            choice("c", (0.010, 0.001), (0.20, 0.02)),
        ];
        let r = recommend(&c, 0.05).unwrap();
        assert_eq!(r, Recommendation::Tied(vec![0, 1]));
        assert_eq!(r.chosen(), vec![0, 1]);
    }

    #[test]
    fn a_clearly_safer_level_variant_is_picked() {
        let c = [
            choice("a", (0.040, 0.002), (0.70, 0.02)),
            choice("b", (0.010, 0.002), (0.69, 0.02)),
            choice("c", (0.001, 0.001), (0.20, 0.02)),
        ];
        let r = recommend(&c, 0.05).unwrap();
        assert_eq!(
            r,
            Recommendation::SafestOfLevel {
                pick: 1,
                level: vec![0, 1]
            }
        );
    }

    #[test]
    fn clearly_most_fame_wins_alone() {
        let c = [
            choice("a", (0.040, 0.002), (0.90, 0.02)),
            choice("b", (0.010, 0.002), (0.69, 0.02)),
        ];
        assert_eq!(
            recommend(&c, 0.05).unwrap(),
            Recommendation::ClearlyMostFame(0)
        );
    }

    #[test]
    fn joint_choice_takes_the_worst_risk_and_the_summed_fame() {
        let j = Choice::joint(
            "v",
            &[
                (est(0.02, 0.01), est(1.0, 0.1)),
                (est(0.04, 0.01), est(0.5, 0.2)),
            ],
        );
        assert_eq!(j.risk, est(0.04, 0.01));
        assert!((j.fame.value - 1.5).abs() < 1e-12);
        assert!((j.fame.high - 1.8).abs() < 1e-12 && (j.fame.low - 1.2).abs() < 1e-12);
    }
}
