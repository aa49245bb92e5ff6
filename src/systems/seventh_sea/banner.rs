//! The banner: a Hero who picks up his side's banner earns Reputation each
//! round to the end, and his own rolls lose an unkept die.

use super::roll_keep::Pool;

/// A Hero's own `XkY` roll, the banner's penalty taken before the ten-dice
/// rule: a bearer rolls one die fewer where the pool has a die he would not
/// keep ("−1 unkept die on all rolls"); a pool with no unkept die (Brawn k
/// Brawn, the one-die personal roll) is untouched. Only his own rolls:
/// never the damage rolled against him, or the penalty would heal.
#[inline]
pub fn own_pool(rolled: i64, kept: i64, banner: bool) -> Pool {
    let unkept_die = rolled > kept.max(0);
    if banner && unkept_die {
        Pool::new(rolled - 1, kept)
    } else {
        Pool::new(rolled, kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The banner bearer's pools, by hand from the rule ("−1 unkept die on
    /// all rolls"): one unkept die fewer, taken before the ten-dice rule; a
    /// pool with no unkept die keeps every die, and dice beyond 10k10 keep
    /// their +10.
    #[test]
    fn a_banner_takes_one_unkept_die() {
        let show = |rolled, kept, banner| own_pool(rolled, kept, banner).to_string();
        assert_eq!(show(3, 2, false), "3k2");
        assert_eq!(show(3, 2, true), "2k2");
        assert_eq!(show(2, 2, true), "2k2", "no unkept die: untouched");
        assert_eq!(show(1, 1, true), "1k1");
        assert_eq!(
            show(3, 5, true),
            "3k3",
            "more kept than rolled: no unkept die"
        );
        // 12k6 → 11k6 → 10k7 by the ten-dice rule.
        assert_eq!(show(12, 6, true), "10k7");
        assert_eq!(show(12, 6, false), "10k8");
        // 15k7 → 14k7 → 10k11 → 10k10+10: the bonus stays.
        assert_eq!(own_pool(15, 7, true), Pool::new(14, 7));
        assert_eq!(own_pool(15, 7, true).bonus, 10);
        assert_eq!(own_pool(15, 7, false).bonus, 20);
    }
}
