//! Special functions that always return: Student's t quantile and tail and
//! the beta quantile behind Clopper–Pearson bounds, for every battle count
//! up to the engine's limit (2^44) and every degree of freedom.
//!
//! statrs' inverse incomplete beta can loop for ever once its incomplete
//! beta (140 continued-fraction steps) runs out of accuracy, which happens
//! past about 10^4 degrees of freedom: its t quantile is already 3·10^-7
//! off at 32,767 and never returns at 16 million. These routines use
//! statrs only where it is exact to about 10^-11 and switch, beyond, to
//! methods whose every loop has a bound:
//! - Student's t by its Cornish–Fisher expansion in 1/ν (Abramowitz and
//!   Stegun 26.7.5), which at ν ≥ 1000 is exact to the last bit of a double;
//! - the incomplete beta by its continued fraction (DLMF 8.17.22) with the
//!   prefactor in Loader's saddle-point form (no cancellation of the huge
//!   log-gamma terms), or, for a small x above the law's mean, by the sum
//!   of the binomial terms below (so no digit of x is lost to 1 − x); and
//!   its quantile by Newton's method held inside a bracket that halves
//!   whenever a step would leave it.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use statrs::function::gamma::ln_gamma;

/// From this many degrees of freedom on, Student's t quantile is taken
/// from its Cornish–Fisher expansion, exact there to 4·10^-16 (below,
/// statrs is exact to 5·10^-13; from about 2,000 on it drifts, 10^-12 at
/// 8,191, 3·10^-7 at 32,767).
const T_QUANTILE_EXPANDED_FROM: u64 = 1000;

/// From this many degrees of freedom on, Student's t tail is taken from
/// the inverted expansion (below, statrs is exact to 10^-10).
const T_TAIL_EXPANDED_FROM: f64 = 65_536.0;

/// The most steps any root search here takes.
const MAX_STEPS: u32 = 400;

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the
/// half width of a 95% interval in standard errors); `df` ≥ 1.
pub fn t_975(df: u64) -> f64 {
    let df = df.max(1);
    if df < T_QUANTILE_EXPANDED_FROM {
        // Checked to return, and against scipy, for every df below the
        // switch (tests below).
        return StudentsT::new(0.0, 1.0, df as f64)
            .map(|t| t.inverse_cdf(0.975))
            .unwrap_or(f64::NAN);
    }
    cornish_fisher(Normal::standard().inverse_cdf(0.975), df as f64)
}

/// Two-sided p-value of Student's t statistic `t` with `df` (> 0, not
/// necessarily whole) degrees of freedom: NaN for a NaN statistic, 0 for
/// an infinite one.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() {
        return f64::NAN;
    }
    let t = t.abs();
    if t.is_infinite() {
        return 0.0;
    }
    let df = df.max(f64::MIN_POSITIVE);
    let tail = if df < T_TAIL_EXPANDED_FROM {
        // statrs' tail: a bounded continued fraction, exact to 10^-10 here.
        StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| d.sf(t))
    } else {
        Normal::standard().sf(normal_equivalent(t, df))
    };
    (2.0 * tail).min(1.0)
}

/// Student's t quantile at the normal quantile `z` for `v` degrees of
/// freedom, by the Cornish–Fisher expansion to the fourth power of 1/v.
fn cornish_fisher(z: f64, v: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v
}

/// The derivative of [`cornish_fisher`] in `z`.
fn cornish_fisher_slope(z: f64, v: f64) -> f64 {
    let z2 = z * z;
    let d1 = (3.0 * z2 + 1.0) / 4.0;
    let d2 = ((25.0 * z2 + 48.0) * z2 + 3.0) / 96.0;
    let d3 = (((21.0 * z2 + 95.0) * z2 + 51.0) * z2 - 15.0) / 384.0;
    let d4 = ((((711.0 * z2 + 5432.0) * z2 + 7410.0) * z2 - 5760.0) * z2 - 945.0) / 92160.0;
    1.0 + (d1 + (d2 + (d3 + d4 / v) / v) / v) / v
}

/// The normal deviate `z` whose Student's t quantile is `t` (t ≥ 0), found
/// by Newton's method on the expansion (increasing in z for v ≥ 2^16 and
/// every z a double's normal tail can tell apart).
fn normal_equivalent(t: f64, v: f64) -> f64 {
    let mut z = t * (1.0 - 1.0 / (4.0 * v));
    for _ in 0..MAX_STEPS {
        let step = (cornish_fisher(z, v) - t) / cornish_fisher_slope(z, v);
        z -= step;
        if step.abs() <= 1e-16 * z.abs().max(1e-300) {
            break;
        }
    }
    z
}

/// The Clopper–Pearson interval for `successes` out of `trials` at
/// `confidence`: the beta quantiles that bound the binomial parameter.
pub fn clopper_pearson(successes: u64, trials: u64, confidence: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let tail = (1.0 - confidence) / 2.0;
    let (x, n) = (successes as f64, trials as f64);
    let low = if successes == 0 {
        0.0
    } else {
        beta_quantile(x, n - x + 1.0, tail)
    };
    let high = if successes == trials {
        1.0
    } else {
        beta_quantile(x + 1.0, n - x, 1.0 - tail)
    };
    (low, high)
}

/// The `q` quantile of the beta law with shapes `a`, `b` > 0.
pub fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    if q <= 0.0 {
        return 0.0;
    }
    if q >= 1.0 {
        return 1.0;
    }
    let (mut low, mut high) = (0.0f64, 1.0f64);
    // Start from the normal approximation, inside the bracket.
    let n = a + b;
    let mean = a / n;
    let sd = (a * b / (n * n * (n + 1.0))).sqrt();
    let mut p = (mean + Normal::standard().inverse_cdf(q) * sd)
        .clamp(mean * 1e-3, 1.0 - (1.0 - mean) * 1e-3);
    for _ in 0..MAX_STEPS {
        let below = regularized_beta(a, b, p) - q;
        if below == 0.0 {
            return p;
        }
        if below > 0.0 {
            high = p;
        } else {
            low = p;
        }
        let density = ln_prefactor(a, b, p, 1.0 - p).exp() / (p * (1.0 - p));
        let newton = p - below / density;
        let next = if newton > low && newton < high && newton.is_finite() {
            newton
        } else if low > 0.0 && high / low > 4.0 {
            // Halve in ratio where the bracket spans orders of magnitude
            // (a tiny lower bound), else in length.
            (low * high).sqrt()
        } else {
            0.5 * (low + high)
        };
        if (next - p).abs() <= 4.0 * f64::EPSILON * p.min(1.0 - p).max(f64::MIN_POSITIVE) {
            return next;
        }
        p = next;
    }
    p
}

/// The regularized incomplete beta function I_x(a, b).
pub fn regularized_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    // The continued fraction converges fast below the law's mean; above
    // it, the mirror image I_x(a, b) = 1 − I_{1−x}(b, a).
    // The complement is passed along, never recomputed from `1 − x`
    // (which would lose a tiny x's digits).
    let y = 1.0 - x;
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_prefactor(a, b, x, y).exp() / a * continued_fraction(a, b, x, y)
    } else if x < 0.5 && a.fract() == 0.0 {
        // Above the mean but small, the mirror image below would read x
        // through 1 − x, rounded; the binomial sum keeps x itself.
        1.0 - binomial_lower_tail(a, b, x, y)
    } else {
        1.0 - ln_prefactor(b, a, y, x).exp() / b * continued_fraction(b, a, y, x)
    }
}

/// 1 − I_x(a, b) for a whole `a`: the chance of fewer than `a` successes
/// in a + b − 1 trials of chance x, summed from a − 1 down, each term from
/// the one above, until the rest cannot change the sum (x above the mean,
/// the terms fall at least geometrically).
fn binomial_lower_tail(a: f64, b: f64, x: f64, y: f64) -> f64 {
    let trials = a + b - 1.0;
    // The chance of exactly a − 1 successes: x^(a−1) y^b C(trials, a − 1).
    let mut term = ln_prefactor(a, b + 1.0, x, y).exp() / ((a + b) * x * y);
    let mut sum = 0.0;
    let mut k = a - 1.0;
    let most = 1000 + (64.0 * a.sqrt()) as u64;
    for _ in 0..most {
        sum += term;
        if k < 1.0 || term <= sum * 1e-17 {
            break;
        }
        term *= k * y / ((trials - k + 1.0) * x);
        k -= 1.0;
    }
    sum
}

/// ln(x^a y^b / B(a, b)), y = 1 − x, without the cancellation of its huge
/// log-gamma terms: −bd0(a, xn) − bd0(b, yn) + ½ ln(ab / 2πn) plus the
/// Stirling remainders, n = a + b (Loader 2000).
fn ln_prefactor(a: f64, b: f64, x: f64, y: f64) -> f64 {
    let n = a + b;
    -deviance(a, x * n) - deviance(b, y * n)
        + 0.5 * (a * b / (2.0 * std::f64::consts::PI * n)).ln()
        + stirling_remainder(n)
        - stirling_remainder(a)
        - stirling_remainder(b)
}

/// Loader's bd0(k, m) = k ln(k/m) + m − k, by its series where k ≈ m.
fn deviance(k: f64, m: f64) -> f64 {
    if k == 0.0 {
        return m;
    }
    if (k - m).abs() < 0.1 * (k + m) {
        let v = (k - m) / (k + m);
        let v2 = v * v;
        let mut sum = (k - m) * v;
        let mut term = 2.0 * k * v;
        for j in 1..MAX_STEPS {
            term *= v2;
            let next = sum + term / f64::from(2 * j + 1);
            if next == sum {
                break;
            }
            sum = next;
        }
        return sum;
    }
    k * (k / m).ln() + m - k
}

/// ln Γ(z) − ((z − ½) ln z − z + ½ ln 2π): Stirling's series from 15 on,
/// the difference itself below (where it has nothing to cancel).
fn stirling_remainder(z: f64) -> f64 {
    if z < 15.0 {
        return ln_gamma(z) - ((z - 0.5) * z.ln() - z + 0.5 * (2.0 * std::f64::consts::PI).ln());
    }
    let r = 1.0 / (z * z);
    (1.0 / 12.0 - r * (1.0 / 360.0 - r * (1.0 / 1260.0 - r * (1.0 / 1680.0 - r / 1188.0)))) / z
}

/// The continued fraction of I_x(a, b) (DLMF 8.17.22) by the modified
/// Lentz method, at most a bounded number of terms; `y` = 1 − x.
fn continued_fraction(a: f64, b: f64, x: f64, y: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    // Enough terms for the slowest case near the mean, O(√(a + b)).
    let most = 1000 + (8.0 * (a + b).sqrt()) as u64;
    let mut c = 1.0;
    // 1 − (a + b)x/(a + 1), from whichever of x and y is the exact one
    // (the smaller: the other may be 1 minus it, rounded), so that near the
    // law's mean, where the two terms nearly cancel, no digit is lost.
    let first = if x <= y {
        (a + 1.0 - (a + b) * x) / (a + 1.0)
    } else {
        (1.0 - b + (a + b) * y) / (a + 1.0)
    };
    let mut d = 1.0 / guard(first);
    let mut f = d;
    for m in 1..=most {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        f *= c * d;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from scipy (`scipy.stats`), and from mpmath at 50
    /// digits where scipy itself is off (Clopper–Pearson bounds of a few
    /// events, or of 2^20 battles and more); the script that made them is
    /// `tests/data/scipy_reference.py`.
    const REFERENCE: &str = include_str!("../../tests/data/scipy_reference.txt");

    fn close(found: f64, expected: f64, tolerance: f64) -> bool {
        if expected == 0.0 {
            return found.abs() < 1e-300;
        }
        ((found - expected) / expected).abs() <= tolerance
    }

    #[test]
    fn every_value_equals_the_references() {
        let mut checked = 0;
        for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let (found, expected, tolerance) = match f[0] {
                "t975" => (t_975(f[1].parse().unwrap()), num(2), 1e-12),
                "tp" => (t_two_sided_p(num(1), num(2)), num(3), 1e-9),
                "cp_low" => (
                    clopper_pearson(f[1].parse().unwrap(), f[2].parse().unwrap(), num(3)).0,
                    num(4),
                    1e-10,
                ),
                "cp_high" => (
                    clopper_pearson(f[1].parse().unwrap(), f[2].parse().unwrap(), num(3)).1,
                    num(4),
                    1e-10,
                ),
                other => panic!("unknown reference row {other}"),
            };
            assert!(
                close(found, expected, tolerance),
                "{line}: found {found:e}, reference {expected:e}"
            );
            checked += 1;
        }
        assert!(checked > 500, "only {checked} reference values");
    }

    #[test]
    fn statrs_quantile_returns_for_every_df_below_the_switch() {
        // Every df the statrs path serves returns; from 100 on it agrees
        // with the expansion (exact there to 4·10^-11), so a wrong value
        // fails as well as a hang.
        for df in 100..T_QUANTILE_EXPANDED_FROM {
            let (direct, expanded) = (
                t_975(df),
                cornish_fisher(Normal::standard().inverse_cdf(0.975), df as f64),
            );
            assert!(
                close(direct, expanded, 1e-10),
                "df {df}: {direct} vs {expanded}"
            );
        }
        for df in 1..T_QUANTILE_EXPANDED_FROM {
            let q = t_975(df);
            assert!(q.is_finite() && q > 1.959 && q < 12.71, "df {df}: {q}");
        }
    }

    #[test]
    fn the_two_sided_p_is_monotone_and_bounded() {
        for df in [1.0, 7.5, 1e3, 65_535.0, 65_536.0, 1e9, 2f64.powi(44)] {
            let mut last = 1.0;
            for i in 0..400 {
                let p = t_two_sided_p(f64::from(i) * 0.1, df);
                assert!(
                    (0.0..=1.0).contains(&p) && p <= last + 1e-15,
                    "df {df}, t {i}: {p}"
                );
                last = p;
            }
        }
        assert_eq!(t_two_sided_p(f64::INFINITY, 10.0), 0.0);
        assert!(t_two_sided_p(f64::NAN, 10.0).is_nan());
    }
}
