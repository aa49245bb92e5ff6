//! Dice drawn from a random stream.
//!
//! Dice use Lemire's multiply-shift on a full 64-bit draw: the bias for an
//! n-sided die is below n / 2^64 (under 1e-18 for a d9), far beneath anything
//! a run of any length can detect.

use rand::Rng;

/// A uniform integer in `0..n` (n ≥ 1) from one 64-bit draw.
#[inline(always)]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u32
}

/// A roll of one n-sided die, `1..=n`.
#[inline(always)]
pub fn die<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    below(rng, n) + 1
}

/// True with probability `threshold / 2^64`; see [`chance_threshold`].
#[inline(always)]
pub fn chance<R: Rng + ?Sized>(rng: &mut R, threshold: u64) -> bool {
    rng.next_u64() < threshold
}

/// The threshold for [`chance`] that fires with probability `p` (0 ≤ p ≤ 1).
/// A probability of exactly 1 is off by 2^-64 at most.
pub fn chance_threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::chi_square_sf;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn d9_is_uniform_by_chi_square() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 900_000;
        let mut counts = [0u64; 9];
        for _ in 0..n {
            let face = die(&mut rng, 9);
            assert!((1..=9).contains(&face));
            counts[face as usize - 1] += 1;
        }
        let expected = n as f64 / 9.0;
        let stat: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi_square_sf(stat, 8) > 0.001, "chi2 {stat}, {counts:?}");
    }

    #[test]
    fn chance_thresholds_hit_their_rate() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let t = chance_threshold(0.25);
        let n = 400_000;
        let hits = (0..n).filter(|_| chance(&mut rng, t)).count() as f64;
        // 0.25 ± 3.29 sd (sd = sqrt(p q / n) ≈ 0.000685).
        assert!((hits / n as f64 - 0.25).abs() < 3.29 * 0.000_685);
        assert_eq!(chance_threshold(0.0), 0);
        assert_eq!(chance_threshold(1.0), u64::MAX);
    }
}
