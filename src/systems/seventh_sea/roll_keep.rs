//! Roll-and-keep dice (`XkY`): roll X ten-sided dice that explode on 10
//! (roll again and add, without limit), keep the Y highest, sum. The
//! ten-dice rule turns rolled dice above 10 into kept dice one for one, and
//! each die beyond 10k10 into +10.

use rand::distr::Distribution;
use std::fmt;
use std::sync::OnceLock;

use rand::Rng;

use crate::engine::dice::{AliasTable, Digits};

/// The exact total distribution of every `XkY` (X, Y ≤ 10, no bonus) as an
/// alias table, built the first time a battle uses that pool.
static SAMPLERS: [[OnceLock<AliasTable>; 11]; 11] = [const { [const { OnceLock::new() }; 11] }; 11];

/// The exact total distribution of every `XkY` (no bonus), computed once.
static DISTRIBUTIONS: [[OnceLock<Vec<f64>>; 11]; 11] =
    [const { [const { OnceLock::new() }; 11] }; 11];

/// Mass below which the far tail of a law is dropped before drawing from it.
pub const FAR_TAIL: f64 = 1e-13;

/// `law` without its far tail: the longest run of last entries whose
/// total is below [`FAR_TAIL`] (beside the 1e-12 per die already cut).
/// Keeps at least one entry.
pub fn without_far_tail(law: &[f64]) -> &[f64] {
    let mut len = law.len();
    let mut tail = 0.0;
    while len > 1 && tail + law[len - 1] < FAR_TAIL {
        tail += law[len - 1];
        len -= 1;
    }
    &law[..len]
}

/// A pool's alias table resolved once: draws its total with one random
/// number and no lookup.
#[derive(Debug, Clone, Copy)]
pub struct Sampler {
    table: &'static AliasTable,
    bonus: i64,
}

impl Distribution<i64> for Sampler {
    /// Draws a total.
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        self.bonus + self.table.sample(rng) as i64
    }
}

/// A normalised roll-and-keep pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pool {
    /// Dice rolled (0..=10).
    pub rolled: u32,
    /// Dice kept (0..=rolled).
    pub kept: u32,
    /// Flat bonus from dice beyond 10k10.
    pub bonus: i64,
}

impl Pool {
    /// `XkY` after the ten-dice rule. Negative counts count as zero; more
    /// kept than rolled keeps every rolled die.
    pub fn new(rolled: i64, kept: i64) -> Pool {
        let mut rolled = rolled.max(0);
        let mut kept = kept.max(0).min(rolled);
        if rolled > 10 {
            kept += rolled - 10;
            rolled = 10;
        }
        let mut bonus = 0;
        if kept > 10 {
            bonus = 10 * (kept - 10);
            kept = 10;
        }
        Pool {
            rolled: rolled as u32,
            kept: kept.min(rolled) as u32,
            bonus,
        }
    }

    /// The pool's alias table, built the first time any battle asks for it:
    /// resolve it once where a hot loop samples the same pool again and again.
    pub fn sampler(self) -> Sampler {
        let table = SAMPLERS[self.rolled as usize][self.kept as usize].get_or_init(|| {
            // Drop the far tail: a 10k10 table shrinks from 1,391 columns to a
            // few hundred, so the tables of a battle stay in cache.
            AliasTable::new(without_far_tail(self.totals()))
        });
        Sampler {
            table,
            bonus: self.bonus,
        }
    }

    /// The law [`Pool::sampler`] draws from: P(total = k) at index k, bonus
    /// included, the far tail dropped and the rest renormalised.
    pub fn sampled_law(self) -> Vec<f64> {
        let kept = without_far_tail(self.totals());
        let sum: f64 = kept.iter().sum();
        let mut law = vec![0.0; self.bonus as usize];
        law.extend(kept.iter().map(|p| p / sum));
        law
    }

    /// P(total − bonus = k) for k = 0, 1, ...: [`Pool::distribution`],
    /// computed once per process for each `XkY`.
    pub fn totals(self) -> &'static [f64] {
        DISTRIBUTIONS[self.rolled as usize][self.kept as usize]
            .get_or_init(|| Pool { bonus: 0, ..self }.distribution().1)
    }

    /// P(total = k) for k = 0, 1, ..., bonus included.
    pub fn law(self) -> Vec<f64> {
        let mut law = vec![0.0; self.bonus as usize];
        law.extend_from_slice(self.totals());
        law
    }

    /// Rolls the pool die by die. Faces 1–9 are tallied by value and exploded dice
    /// (11 and up) kept aside, so keeping the highest needs no sort.
    #[inline]
    pub fn roll<R: Rng>(self, dice: &mut Digits<R>) -> i64 {
        let mut counts = [0u32; 10];
        let mut exploded = [0i64; 10];
        let mut n_exploded = 0;
        for _ in 0..self.rolled {
            let face = dice.below(10) as usize + 1;
            if face < 10 {
                counts[face] += 1;
            } else {
                exploded[n_exploded] = 10 + exploding_d10(dice);
                n_exploded += 1;
            }
        }
        let mut left = self.kept;
        let mut total = self.bonus;
        if n_exploded > 0 {
            let exploded = &mut exploded[..n_exploded];
            exploded.sort_unstable_by(|a, b| b.cmp(a));
            for &v in exploded.iter().take(left as usize) {
                total += v;
            }
            left = left.saturating_sub(n_exploded as u32);
        }
        let mut face = 9;
        while left > 0 && face > 0 {
            let take = counts[face].min(left);
            total += take as i64 * face as i64;
            left -= take;
            face -= 1;
        }
        total
    }

    /// The exact distribution of the total: `(first value, probabilities)`.
    /// The exploding tail is cut where the remaining mass is below 1e-12.
    pub fn distribution(self) -> (i64, Vec<f64>) {
        let die = exploding_d10_distribution();
        // Values in descending order with their probabilities.
        let values: Vec<(i64, f64)> = die
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, p)| **p > 0.0)
            .map(|(v, p)| (v as i64, *p))
            .collect();
        let n = self.rolled as usize;
        let keep = self.kept as usize;
        let max_sum = keep * (die.len() - 1);
        // state[assigned][sum]: probability that the `assigned` highest dice
        // are placed (all at values seen so far) with kept sum `sum`.
        let mut state = vec![vec![0.0f64; max_sum + 1]; n + 1];
        state[0][0] = 1.0;
        let binomial = binomials(n);
        for &(value, p) in &values {
            let mut next = vec![vec![0.0f64; max_sum + 1]; n + 1];
            for (assigned, row) in state.iter().enumerate() {
                for (sum, &mass) in row.iter().enumerate() {
                    if mass == 0.0 {
                        continue;
                    }
                    let mut weight = 1.0;
                    for c in 0..=(n - assigned) {
                        let kept_here = c.min(keep.saturating_sub(assigned));
                        let s = sum + kept_here * value as usize;
                        if s <= max_sum {
                            next[assigned + c][s] += mass * binomial[n - assigned][c] * weight;
                        }
                        weight *= p;
                    }
                }
            }
            state = next;
        }
        let totals = &state[n];
        let last = totals.iter().rposition(|&p| p > 0.0).unwrap_or(0);
        (self.bonus, totals[..=last].to_vec())
    }
}

impl Distribution<i64> for Pool {
    /// Draws a total from the pool's exact distribution ([`Pool::distribution`])
    /// by the alias method: one random number whatever the pool, where
    /// rolling takes one digit per die and more per explosion. Same law as
    /// [`Pool::roll`] up to the cut tails (below 1e-12 per die, below 1e-13
    /// for the total).
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i64 {
        self.sampler().sample(rng)
    }
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}k{}", self.rolled, self.kept)?;
        if self.bonus > 0 {
            write!(f, "+{}", self.bonus)?;
        }
        Ok(())
    }
}

/// One exploding d10.
#[inline]
pub fn exploding_d10<R: Rng>(dice: &mut Digits<R>) -> i64 {
    let mut total = 0;
    loop {
        let face = dice.below(10) as i64 + 1;
        total += face;
        if face < 10 {
            return total;
        }
    }
}

/// P(exploding d10 = v) for v = 0..=max, the tail cut below 1e-12.
pub fn exploding_d10_distribution() -> Vec<f64> {
    let mut p = vec![0.0];
    let mut chain = 1.0; // P(the first m dice all showed 10)
    let mut m = 0;
    while chain >= 1e-13 {
        for face in 1..=9 {
            let v = 10 * m + face;
            p.resize(v + 1, 0.0);
            p[v] = chain * 0.1;
        }
        chain *= 0.1;
        m += 1;
    }
    p
}

fn binomials(n: usize) -> Vec<Vec<f64>> {
    let mut c = vec![vec![0.0; n + 1]; n + 1];
    for i in 0..=n {
        c[i][0] = 1.0;
        for j in 1..=i {
            c[i][j] = c[i - 1][j - 1] + if j < i { c[i - 1][j] } else { 0.0 };
        }
    }
    c
}

/// Mean of a distribution `(first, probabilities)`.
pub fn mean((first, p): &(i64, Vec<f64>)) -> f64 {
    p.iter()
        .enumerate()
        .map(|(i, q)| (*first + i as i64) as f64 * q)
        .sum()
}

/// P(total ≥ target).
pub fn at_least((first, p): &(i64, Vec<f64>), target: i64) -> f64 {
    let start = (target - first).max(0) as usize;
    p.iter().skip(start).sum()
}

/// Threshold for [`crate::engine::dice::chance`]: a roll of `pool` reaches `tn`.
pub fn reach_chance(pool: Pool, tn: i64) -> u64 {
    let law = pool.law();
    crate::engine::dice::chance_threshold(law.iter().skip(tn.max(0) as usize).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn ten_dice_rule() {
        assert_eq!(
            Pool::new(12, 6),
            Pool {
                rolled: 10,
                kept: 8,
                bonus: 0
            }
        );
        assert_eq!(
            Pool::new(12, 10),
            Pool {
                rolled: 10,
                kept: 10,
                bonus: 20
            }
        );
        assert_eq!(
            Pool::new(3, 5),
            Pool {
                rolled: 3,
                kept: 3,
                bonus: 0
            }
        );
        assert_eq!(
            Pool::new(-1, 2),
            Pool {
                rolled: 0,
                kept: 0,
                bonus: 0
            }
        );
        assert_eq!(Pool::new(12, 6).to_string(), "10k8");
    }

    #[test]
    fn reference_values_from_the_rules() {
        let cases = [
            ((1, 1), 6.111),
            ((2, 2), 12.222),
            ((3, 2), 15.305),
            ((5, 3), 24.513),
            ((6, 3), 26.542),
            ((7, 5), 37.969),
        ];
        // The references print three decimals: they hold to half a unit
        // of the last digit.
        const PRINTED: f64 = 0.0005;
        for ((x, y), expected) in cases {
            let d = Pool::new(x, y).distribution();
            let total: f64 = d.1.iter().sum();
            assert!((total - 1.0).abs() < 1e-9, "{x}k{y} mass {total}");
            assert!(
                (mean(&d) - expected).abs() <= PRINTED,
                "{x}k{y}: mean {} vs {expected}",
                mean(&d)
            );
        }
        let p6k3 = at_least(&Pool::new(6, 3).distribution(), 20);
        let p7k5 = at_least(&Pool::new(7, 5).distribution(), 30);
        assert!((p6k3 - 0.820).abs() <= PRINTED, "P(6k3 >= 20) = {p6k3}");
        assert!((p7k5 - 0.794).abs() <= PRINTED, "P(7k5 >= 30) = {p7k5}");
    }

    #[test]
    fn one_die_is_one_to_nine_then_explodes() {
        let d = exploding_d10_distribution();
        assert!((d[1] - 0.1).abs() < 1e-15 && (d[9] - 0.1).abs() < 1e-15);
        assert_eq!(d[10], 0.0);
        assert!((d[11] - 0.01).abs() < 1e-15);
        // 10 is never a final value; 20 neither.
        assert_eq!(d[20], 0.0);
    }

    #[test]
    fn alias_samples_follow_the_exact_distribution() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for (x, y) in [(1, 1), (3, 2), (7, 5), (10, 10), (12, 6)] {
            let pool = Pool::new(x, y);
            let (first, p) = pool.distribution();
            let n = 400_000u64;
            let mut counts = vec![0u64; p.len()];
            for _ in 0..n {
                counts[(pool.sample(&mut rng) - first) as usize] += 1;
            }
            // Pearson chi-square over cells with an expected count ≥ 5,
            // the rest pooled into one cell.
            let (mut chi2, mut cells, mut rest_p, mut rest_n) = (0.0, 0usize, 0.0, 0u64);
            for (&q, &c) in p.iter().zip(&counts) {
                if q * n as f64 >= 5.0 {
                    let e = q * n as f64;
                    chi2 += (c as f64 - e).powi(2) / e;
                    cells += 1;
                } else {
                    rest_p += q;
                    rest_n += c;
                }
            }
            let e = rest_p * n as f64;
            if e > 0.0 {
                chi2 += (rest_n as f64 - e).powi(2) / e;
                cells += 1;
            }
            let p_value = crate::stats::chi_square_sf(chi2, cells - 1);
            assert!(
                p_value > 0.001,
                "{pool}: chi2 {chi2} over {cells} cells, p {p_value}"
            );
        }
    }

    #[test]
    fn monte_carlo_matches_the_exact_distribution() {
        let mut source = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut dice = Digits::new(&mut source);
        for (x, y) in [(3, 2), (6, 3), (10, 10), (12, 6)] {
            let pool = Pool::new(x, y);
            let d = pool.distribution();
            let n = 400_000;
            let targets = [10, 20, 30, 45];
            let mut hits = [0u64; 4];
            for _ in 0..n {
                let t = pool.roll(&mut dice);
                for (h, &target) in hits.iter_mut().zip(&targets) {
                    *h += (t >= target) as u64;
                }
            }
            let z = crate::stats::z_for_confidence(0.999);
            for (h, &target) in hits.iter().zip(&targets) {
                let (lo, hi) = crate::stats::wilson(*h, n, z);
                let p = at_least(&d, target);
                assert!(
                    lo <= p && p <= hi,
                    "{pool} >= {target}: exact {p}, simulated {lo}..{hi}"
                );
            }
        }
    }
}
