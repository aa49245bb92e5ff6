//! Every interval, test and p-value the reports print returns, and is a
//! probability where it is one, for battle counts at every power of two up
//! to the engine's limit (2^44) and event counts from 0 to n. (The values
//! themselves are checked against scipy in `stats::special`'s own tests.)

use warcrunch::stats::paired_mean::PairedSums;
use warcrunch::stats::special::{t_975, t_two_sided_p};
use warcrunch::stats::{
    chi_square_sf, clopper_pearson, mcnemar, paired_difference, two_proportion,
    unpaired_difference, wilson, z95,
};

/// Event counts of `n` battles: the ends, a few near them, and spread
/// between.
fn counts(n: u64) -> Vec<u64> {
    let mut xs: Vec<u64> = [0, 1, 2, 3, 17, n / 1000, n / 7, n / 3, n / 2, n - n / 9]
        .into_iter()
        .chain([
            n.saturating_sub(17),
            n.saturating_sub(2),
            n.saturating_sub(1),
            n,
        ])
        .filter(|&x| x <= n)
        .collect();
    xs.sort_unstable();
    xs.dedup();
    xs
}

fn is_probability(p: f64) -> bool {
    (0.0..=1.0).contains(&p)
}

#[test]
fn every_interval_and_p_value_returns_up_to_two_to_the_44() {
    for k in 1..=44u32 {
        let n = 1u64 << k;
        for x in counts(n) {
            let share = x as f64 / n as f64;
            let (lo, hi) = wilson(x, n, z95());
            assert!(
                lo <= share && share <= hi && lo >= 0.0 && hi <= 1.0,
                "wilson {x}/{n}"
            );
            for confidence in [0.95, 0.999] {
                let (lo, hi) = clopper_pearson(x, n, confidence);
                assert!(
                    is_probability(lo) && is_probability(hi) && lo <= share && share <= hi,
                    "clopper-pearson {x}/{n} at {confidence}: {lo}..{hi}"
                );
            }
            for y in [0, x / 2, x, n - (n - x) / 2] {
                let both = x.min(y) / 2;
                let d = paired_difference(n, x, y, both);
                assert!(
                    d.low <= d.difference && d.difference <= d.high,
                    "paired {x} {y} {n}"
                );
                let u = unpaired_difference(x, n, y, n);
                assert!(
                    u.low.is_finite() && u.high.is_finite(),
                    "unpaired {x} {y} {n}"
                );
                let (z, p) = two_proportion(x, n, y, n);
                assert!(
                    z.is_finite() && is_probability(p),
                    "two proportions {x} {y} {n}"
                );
                let (z, p) = mcnemar(x - both, y - both);
                assert!(z.is_finite() && is_probability(p), "mcnemar {x} {y} {n}");
            }
            let chi = chi_square_sf(share * n as f64, 1 + (k as usize % 9));
            assert!(is_probability(chi), "chi-square {x}/{n}");
        }
        // Paired means of n battles: no change, a constant change, and
        // changes of either sign with a spread.
        for (changed, sum, squares) in [
            (0, 0i128, 0u128),
            (n, n as i128, n as u128),
            (n / 2, 3, (n / 2) as u128),
            (n / 3, -((n / 3) as i128), 4 * (n / 3) as u128),
        ] {
            let means = PairedSums {
                battles: n,
                changed,
                sum,
                squares,
            }
            .means();
            if n < 2 {
                assert!(means.is_none());
                continue;
            }
            let m = means.unwrap();
            let d = m.difference;
            assert!(
                d.low <= d.difference && d.difference <= d.high,
                "{n}: {m:?}"
            );
            assert!(is_probability(m.p_value), "{n}: {m:?}");
        }
        let q = t_975(n - 1);
        assert!(q > 1.959 && q < 12.71, "t quantile at {n}: {q}");
        for t in [0.0, 0.3, 1.96, 4.0, 12.0, 40.0] {
            for df in [(n - 1) as f64, n as f64 / 3.0 + 0.5] {
                assert!(
                    is_probability(t_two_sided_p(t, df.max(1.0))),
                    "t {t}, df {df}"
                );
            }
        }
    }
}
