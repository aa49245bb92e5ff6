//! GURPS success rolls on 3d6: margins, criticals and Quick Contests, the
//! row of a margin table a roll lands on, and their exact laws.
//!
//! Plain: [`d6_sum`], [`roll_3d6`], [`check`], [`quick_contest`], [`row_of`]. Fast, built
//! from them: [`RollLaw`], [`rows_by_roll`], [`three_d6_distribution`],
//! [`category_distribution`].

use rand::Rng;

use super::rules::COMBAT_CAP;
use super::tables::{GurpsTables, MarginBand};
use crate::engine::dice::{self, THREE_D6_WAYS};
use crate::engine::inverse::{self, InverseLaw};

/// Refuses a Survival or Glory row no roll can reach: the skill rolled
/// against is capped at [`COMBAT_CAP`], and 3d6 rolls 3 at best. `origin`
/// names the table's file.
pub fn check_reachable(rows: &[impl MarginBand], origin: &str) -> anyhow::Result<()> {
    let best = COMBAT_CAP - 3;
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.min_margin() > best) {
        anyhow::bail!(
            "{origin}: `rows` row {i} (`{}`, min_margin = {}) can never be rolled: with the skill capped at {COMBAT_CAP}, a roll succeeds by at most {best}",
            r.label(),
            r.min_margin()
        );
    }
    Ok(())
}

/// The outcome of a success roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// Effective skill − roll.
    pub margin: i64,
    /// Whether the roll succeeded.
    pub success: bool,
    /// Critical success.
    pub critical_success: bool,
    /// Critical failure.
    pub critical_failure: bool,
}

/// Judges a 3d6 `roll` against `skill`: success if roll ≤ skill, with 3–4
/// always succeeding and 17–18 always failing; critical success on 3–4, 5 at
/// skill 15+, 6 at skill 16+; critical failure on 18, on 17 at skill ≤ 15,
/// and on any roll ≥ skill + 10.
pub fn check(skill: i64, roll: i64) -> Check {
    let critical_success = roll <= 4 || (roll == 5 && skill >= 15) || (roll == 6 && skill >= 16);
    let critical_failure = roll == 18 || (roll == 17 && skill <= 15) || roll >= skill + 10;
    let success = critical_success || (!critical_failure && roll <= skill && roll <= 16);
    Check {
        margin: skill - roll,
        success,
        critical_success,
        critical_failure: critical_failure && !critical_success,
    }
}

/// The Quick Contest of two margins: the winner's margin of victory, positive
/// when the first side wins, negative when the second does, 0 for a tie.
pub fn quick_contest(margin_a: i64, margin_b: i64) -> i64 {
    margin_a - margin_b
}

/// `n` six-sided dice, summed, die by die.
pub fn d6_sum<R: Rng>(rng: &mut R, n: i64) -> i64 {
    (0..n).map(|_| i64::from(dice::die(rng, 6))).sum()
}

/// 3d6, die by die; with Luck, three such rolls and the best (lowest) kept.
pub fn roll_3d6<R: Rng>(rng: &mut R, luck: bool) -> i64 {
    if luck {
        (0..3).map(|_| d6_sum(rng, 3)).min().expect("three rolls")
    } else {
        d6_sum(rng, 3)
    }
}

/// The row of a best-first margin table a roll against `skill` lands on:
/// a critical success reads the first row, a critical failure the last.
pub fn row_of(rows: &[impl MarginBand], skill: i64, roll: i64) -> usize {
    let c = check(skill, roll);
    if c.critical_success {
        0
    } else if c.critical_failure {
        rows.len() - 1
    } else {
        GurpsTables::margin_row(rows, c.margin)
    }
}

/// [`roll_3d6`] drawn fast from one number, by the inverse of its law: a
/// larger number never rolls lower, with or without Luck.
#[derive(Debug, Clone)]
pub struct RollLaw {
    /// The lowest of three rolls' law, for Luck.
    lucky: Option<InverseLaw>,
}

impl RollLaw {
    /// 3d6, or with `luck` the lowest of three.
    pub fn new(luck: bool) -> RollLaw {
        RollLaw {
            lucky: luck.then(|| InverseLaw::new(&three_d6_distribution(true)[3..])),
        }
    }

    /// The roll number `x` gives.
    #[inline(always)]
    pub fn draw(&self, x: u64) -> i64 {
        match &self.lucky {
            None => inverse::three_d6(x),
            Some(law) => law.draw(x) as i64 + 3,
        }
    }
}

/// [`row_of`] for every 3d6 roll (3..=18) against `skill`, looked up by roll.
pub fn rows_by_roll(rows: &[impl MarginBand], skill: i64) -> [u8; 19] {
    let mut out = [0u8; 19];
    for (roll, slot) in out.iter_mut().enumerate().skip(3) {
        *slot = row_of(rows, skill, roll as i64) as u8;
    }
    out
}

/// P(3d6 = k) for k = 0..=18, optionally the lowest of three rolls (Luck).
pub fn three_d6_distribution(luck: bool) -> [f64; 19] {
    let p = THREE_D6_WAYS.map(|ways| ways as f64 / 216.0);
    if !luck {
        return p;
    }
    // P(min ≥ k) = P(X ≥ k)^3, multiplied out: `powi` may round
    // differently from one build to the next (an inlined expansion or a
    // library call), and the exact odds must not.
    let at_least = |k: usize| -> f64 { p[k..].iter().sum() };
    let cube = |x: f64| x * (x * x);
    std::array::from_fn(|k| {
        if k < 3 {
            0.0
        } else {
            cube(at_least(k)) - cube(at_least(k + 1))
        }
    })
}

/// The law of [`row_of`]: the probability of each row of a best-first
/// margin table when rolling against `skill`.
pub fn category_distribution(rows: &[impl MarginBand], skill: i64, luck: bool) -> Vec<f64> {
    let p = three_d6_distribution(luck);
    let mut out = vec![0.0; rows.len()];
    for (roll, &q) in p.iter().enumerate().skip(3) {
        out[row_of(rows, skill, roll as i64)] += q;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An independent statement of the rules, written as a table lookup per
    /// roll so the enumeration below checks `check` against it.
    fn expected(skill: i64, roll: i64) -> (bool, bool, bool) {
        let crit_success = match roll {
            3 | 4 => true,
            5 => skill >= 15,
            6 => skill >= 16,
            _ => false,
        };
        let crit_failure = !crit_success
            && match roll {
                18 => true,
                17 => skill <= 15,
                r => r - skill >= 10,
            };
        let success = if crit_success {
            true
        } else if crit_failure || roll >= 17 {
            false
        } else {
            roll <= skill
        };
        (success, crit_success, crit_failure)
    }

    #[test]
    fn every_skill_0_to_20_over_all_216_outcomes() {
        for skill in 0..=20 {
            let (mut successes, mut crits, mut fumbles) = (0, 0, 0);
            for i in 0..216 {
                let roll = crate::engine::dice::THREE_D6[i] as i64;
                let c = check(skill, roll);
                let (s, cs, cf) = expected(skill, roll);
                assert_eq!(
                    (c.success, c.critical_success, c.critical_failure),
                    (s, cs, cf),
                    "skill {skill} roll {roll}"
                );
                assert_eq!(c.margin, skill - roll);
                successes += c.success as u32;
                crits += c.critical_success as u32;
                fumbles += c.critical_failure as u32;
            }
            // Textbook success chances out of 216: skill 10 → 108, 3 → 4
            // (3 and 4 always succeed), 16+ → 215 (18 always fails... and 17
            // too: 16 → 212).
            match skill {
                0..=4 => assert_eq!(successes, 4, "skill {skill}"),
                10 => assert_eq!(successes, 108),
                12 => assert_eq!(successes, 160),
                15 => assert_eq!(successes, 206),
                16..=20 => assert_eq!(successes, 212, "skill {skill}"),
                _ => {}
            }
            // Criticals: 4 ways at most skills, 10 at 15, 20 at 16+.
            match skill {
                0..=14 => assert_eq!(crits, 4),
                15 => assert_eq!(crits, 10),
                _ => assert_eq!(crits, 20),
            }
            // 18 always; 17 at skill ≤ 15; roll ≥ skill + 10.
            if skill == 10 {
                assert_eq!(fumbles, 4); // 17 (3 ways) and 18 (1 way)
            }
            if skill == 16 {
                assert_eq!(fumbles, 1); // 18 only
            }
            if skill == 5 {
                // 15..18: 10 + 6 + 3 + 1.
                assert_eq!(fumbles, 20);
            }
        }
    }

    #[test]
    fn luck_distribution_sums_to_one_and_favours_low_rolls() {
        for luck in [false, true] {
            let p = three_d6_distribution(luck);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        let p = three_d6_distribution(true);
        // P(min of three ≥ 11) = (108/216)^3 = 1/8.
        assert!((p[11..].iter().sum::<f64>() - 0.125).abs() < 1e-12);
    }

    /// The laws against every die enumerated: 6^3 faces, and with Luck
    /// every triple of 3d6 totals (216^3 weighted by their ways).
    #[test]
    fn the_laws_are_the_dice_enumerated() {
        let mut plain = [0.0; 19];
        for faces in 0..216 {
            let total = faces % 6 + faces / 6 % 6 + faces / 36 + 3;
            plain[total] += 1.0 / 216.0;
        }
        let mut lucky = [0.0; 19];
        for (a, pa) in plain.iter().enumerate() {
            for (b, pb) in plain.iter().enumerate() {
                for (c, pc) in plain.iter().enumerate() {
                    lucky[a.min(b).min(c)] += pa * pb * pc;
                }
            }
        }
        for (law, enumerated) in [(false, plain), (true, lucky)] {
            let p = three_d6_distribution(law);
            for k in 0..19 {
                assert!((p[k] - enumerated[k]).abs() < 1e-15, "luck {law}, {k}");
            }
        }
    }

    /// The fast lookups and laws of a margin table are its plain row, roll
    /// by roll.
    #[test]
    fn rows_by_roll_and_the_category_law_read_row_of() {
        let t = GurpsTables::load(&Default::default(), &crate::tables::TableFiles::in_folder(std::path::Path::new("."))).unwrap();
        for skill in -2..=22 {
            let by_roll = rows_by_roll(&t.survival, skill);
            let mut law = vec![0.0; t.survival.len()];
            for roll in 3..=18 {
                let row = row_of(&t.survival, skill, roll);
                assert_eq!(by_roll[roll as usize] as usize, row, "skill {skill}");
                law[row] += THREE_D6_WAYS[roll as usize] as f64 / 216.0;
            }
            let fast = category_distribution(&t.survival, skill, false);
            for (a, b) in fast.iter().zip(&law) {
                assert!((a - b).abs() < 1e-15, "skill {skill}");
            }
        }
    }

    /// Rolled fast or die by die, 3d6 with and without Luck follow the law;
    /// fast, a larger number never rolls higher (worse) with Luck than without.
    #[test]
    fn both_rolls_follow_the_law() {
        let (plain, lucky) = (RollLaw::new(false), RollLaw::new(true));
        for k in 0..4096u64 {
            let x = k << 52;
            assert!(lucky.draw(x) <= plain.draw(x), "x = {x}");
            assert!(plain.draw(x) <= plain.draw(x | ((1 << 52) - 1)));
        }
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        let n = 200_000;
        for luck in [false, true] {
            let exact: std::collections::BTreeMap<i64, f64> = (3..=18)
                .map(|k| (k, three_d6_distribution(luck)[k as usize]))
                .collect();
            let mut plain = std::collections::BTreeMap::new();
            let mut fast = std::collections::BTreeMap::new();
            let law = RollLaw::new(luck);
            for _ in 0..n {
                *plain.entry(roll_3d6(&mut rng, luck)).or_default() += 1;
                *fast.entry(law.draw(rng.next_u64())).or_default() += 1;
            }
            crate::stats::assert_counts_follow(&exact, &plain, n, "plain");
            crate::stats::assert_counts_follow(&exact, &fast, n, "fast");
        }
    }

    #[test]
    fn quick_contest_margins() {
        assert_eq!(quick_contest(3, -1), 4);
        assert_eq!(quick_contest(-2, 1), -3);
        assert_eq!(quick_contest(2, 2), 0);
    }
}
