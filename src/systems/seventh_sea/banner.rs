//! The banner: a Hero who picks up his side's banner earns Reputation each
//! round to the end, and his own rolls lose a die.

use super::roll_keep::Pool;

/// A banner bearer's own roll: one rolled die fewer (docs/rules.md: "−1 unkept
/// die on all rolls"); where the pool has no unkept die (Brawn k Brawn, the
/// one-die personal roll) a kept die goes with it [stand-in]. Only his own
/// rolls: never the damage rolled against him, or the penalty would heal.
#[inline]
pub fn minus_banner(pool: Pool, banner: bool) -> Pool {
    if banner {
        Pool::new(pool.rolled as i64 - 1, pool.kept as i64)
    } else {
        pool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The banner bearer's pools, by hand from the rule ("−1 unkept die on
    /// all rolls"): one unkept die fewer from the dice he rolls (after the
    /// ten-dice rule); a pool with no unkept die loses a kept one.
    #[test]
    fn a_banner_takes_one_rolled_die() {
        let show = |rolled, kept, banner| minus_banner(Pool::new(rolled, kept), banner).to_string();
        assert_eq!(show(3, 2, false), "3k2");
        assert_eq!(show(3, 2, true), "2k2");
        assert_eq!(show(2, 2, true), "1k1", "no unkept die: a kept one goes");
        assert_eq!(show(1, 1, true), "0k0");
        // 12k6 is rolled as 10k8, which has two unkept dice: one goes.
        assert_eq!(show(12, 6, true), "9k8");
    }
}
