//! GURPS success rolls on 3d6: margins, criticals and Quick Contests.

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
                let roll = crate::dice::THREE_D6[i] as i64;
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
    fn quick_contest_margins() {
        assert_eq!(quick_contest(3, -1), 4);
        assert_eq!(quick_contest(-2, 1), -3);
        assert_eq!(quick_contest(2, 2), 0);
    }
}
