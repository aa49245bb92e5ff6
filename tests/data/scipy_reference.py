"""Writes scipy_reference.txt: the values warcrunch's special functions
(src/stats/special.rs) are checked against. Run with scipy and mpmath
installed:

    python3 tests/data/scipy_reference.py > tests/data/scipy_reference.txt

Clopper-Pearson bounds of at most 17 events (or non-events) come from the
exact binomial sum in mpmath at 50 digits instead, and the other bounds of
2^20 battles and more from the beta density integrated in mpmath (Newton's
method from scipy's value): scipy's beta.ppf (Boost) is itself off there,
by up to 5e-8 relative for a few events of 2^28 battles and more, and by
up to 6e-6 in the tail probability at 2^44.
"""
import mpmath as mp
import scipy
from scipy import stats

mp.mp.dps = 50


def at_most(x, n, p):
    """P(Bin(n, p) <= x), exactly."""
    return sum(mp.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(x + 1))


def exact_high(x, n, tail):
    """The p at which P(Bin(n, p) <= x) = tail (x small), by bisection."""
    guess = mp.mpf(stats.beta.ppf(1 - tail, x + 1, n - x))
    lo, hi = guess * mp.mpf("0.5"), min(guess * 2, mp.mpf(1))
    for _ in range(200):
        mid = (lo + hi) / 2
        if at_most(x, n, mid) > tail:
            lo = mid
        else:
            hi = mid
    return float(mid)


def beta_ppf_precise(q, a, b):
    """The q quantile of Beta(a, b) for large a and b: Newton's method on
    the density integrated over the 60 standard deviations that matter."""
    a, b, q = mp.mpf(a), mp.mpf(b), mp.mpf(q)
    ln_beta = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)
    sd = mp.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    mean = a / (a + b)

    def density(t):
        return mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log(1 - t) - ln_beta)

    def cdf(p):
        if p < mean:
            return mp.quad(density, [max(p - 60 * sd, mp.mpf(0))] + [p - k * 6 * sd for k in range(9, -1, -1) if p - k * 6 * sd > 0])
        return 1 - mp.quad(density, [p + k * 6 * sd for k in range(0, 11) if p + k * 6 * sd < 1])

    p = mp.mpf(stats.beta.ppf(float(q), float(a), float(b)))
    for _ in range(6):
        p -= (cdf(p) - q) / density(p)
    return float(p)


def high(x, n, tail):
    if x <= 17:
        return exact_high(x, n, tail)
    if n - x <= 17:
        # The upper bound of x events is one minus the lower bound of the
        # n - x non-events.
        return 1 - low(n - x, n, tail)
    if n >= 2**20:
        return beta_ppf_precise(1 - tail, x + 1, n - x)
    return float(stats.beta.ppf(1 - tail, x + 1, n - x))


def low(x, n, tail):
    if x <= 17:
        return float(lower_small(x, n, tail))
    if n - x <= 17:
        # The lower bound of x events is one minus the upper bound of the
        # n - x non-events.
        return 1 - exact_high(n - x, n, tail)
    if n >= 2**20:
        return beta_ppf_precise(tail, x, n - x + 1)
    return float(stats.beta.ppf(tail, x, n - x + 1))


def lower_small(x, n, tail):
    """The p at which P(Bin(n, p) >= x) = tail (x small), by bisection."""
    guess = mp.mpf(stats.beta.ppf(tail, x, n - x + 1))
    lo, hi = guess * mp.mpf("0.5"), min(guess * 2, mp.mpf(1))
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - at_most(x - 1, n, mid) < tail:
            lo = mid
        else:
            hi = mid
    return mid


print(f"# scipy {scipy.__version__}, mpmath {mp.__version__}: kind, arguments, value")
dfs = sorted({2**k - 1 for k in range(1, 45)} | {2**k for k in range(0, 45)}
             | {3, 10, 30, 100, 999, 1000, 16383, 16384, 32767, 12_000_000, 16_000_000})
for df in dfs:
    print(f"t975 {df} {float(stats.t.ppf(0.975, df))!r}")
for df in [1, 2, 7.5, 30, 999.5, 16383, 65535, 65536, 1e5, 1e6, 1.6e7, 2.0**32, 2.0**44]:
    for t in [0, 0.05, 0.5, 1, 1.96, 2.5, 3, 4, 5, 7, 10, 15, 20, 30]:
        p = 2 * stats.t.sf(t, df)
        if p > 1e-290:
            print(f"tp {t!r} {df!r} {float(p)!r}")
for k in range(0, 45, 2):
    n = 2**k
    xs = sorted({0, 1, 2, 5, 17, n // 1000, n // 7, n // 3, n // 2, n - 17, n - 2, n - 1, n})
    for x in xs:
        if x < 0 or x > n:
            continue
        for conf in (0.95, 0.999):
            tail = (1 - conf) / 2
            if x > 0:
                print(f"cp_low {x} {n} {conf!r} {low(x, n, tail)!r}")
            if x < n:
                print(f"cp_high {x} {n} {conf!r} {high(x, n, tail)!r}")
