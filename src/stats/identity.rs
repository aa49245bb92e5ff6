//! Facts one battle writes twice. Each system declares them as data beside
//! its metrics ([`BattleSystem::IDENTITIES`]), and `merge` checks every one
//! on the counts it is given: counts that break one cannot come from any
//! run of the battle, whoever recomputed their digest.
//!
//! Only what the rules force whatever the tables say is declared: a table
//! is data a designer changes (a casualties row of 100% for the winner
//! makes both sides lose everything in one battle; a Glory table decides
//! what a coward's Reputation is), so no identity rests on one.
//!
//! [`BattleSystem::IDENTITIES`]: crate::systems::contract::BattleSystem::IDENTITIES

use super::Metric;

/// Which subjects a side of an identity reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Subject {
    /// That one subject: `battle`.
    Named(&'static str),
    /// Each subject of a kind on its own (`hero` reads `hero:Titus`,
    /// `hero:Varro`, …; `party` reads `party` or each `party:<side>`),
    /// matched with the same subject on the other side where it too reads
    /// each one.
    Each(&'static str),
}

/// Which bins of the metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pick {
    /// The bins of these values.
    These(&'static [&'static str]),
    /// Every bin but these values'.
    AllBut(&'static [&'static str]),
    /// The last bin (the most a histogram can hold: every Dramatic Wound).
    Last,
}

/// Some bins of one metric of some subjects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bins {
    /// The subjects.
    pub subject: Subject,
    /// The metric's name.
    pub metric: &'static str,
    /// The bins.
    pub pick: Pick,
}

/// A fact the counts of one battle always keep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Identity {
    /// Both count the same battles: equal counts.
    Same(Bins, Bins),
    /// The first counts only battles the second counts: never more.
    Within(Bins, Bins),
}

/// The bins of `subject` and `metric` as a shorthand for the declarations.
pub const fn bins(subject: Subject, metric: &'static str, pick: Pick) -> Bins {
    Bins {
        subject,
        metric,
        pick,
    }
}

impl Pick {
    /// The weight of these bins of `m`.
    pub fn count(self, m: &Metric<u64>) -> u64 {
        let last = m.weights.len().saturating_sub(1);
        (m.weights.iter().enumerate())
            .filter(|&(i, _)| match self {
                Pick::These(values) => values.contains(&m.label(i).as_str()),
                Pick::AllBut(values) => !values.contains(&m.label(i).as_str()),
                Pick::Last => i == last,
            })
            .fold(0u64, |sum, (_, &w)| sum.saturating_add(w))
    }

    /// The bins in words: `=unhurt`, `≠0`, `=its last value`.
    fn words(self) -> String {
        match self {
            Pick::These(values) => format!("={}", values.join("|")),
            Pick::AllBut(values) => format!(" other than {}", values.join("|")),
            Pick::Last => " at its last value".to_owned(),
        }
    }
}

impl Subject {
    /// Whether `subject` is one this side reads.
    pub fn reads(self, subject: &str) -> bool {
        match self {
            Subject::Named(name) => subject == name,
            Subject::Each(kind) => {
                subject == kind
                    || subject
                        .strip_prefix(kind)
                        .is_some_and(|rest| rest.starts_with(':'))
            }
        }
    }
}

/// The first identity `metrics` (one variant's counts) break, in words
/// that name both counts; `Ok` when they keep every one. A metric the
/// counts lack is not checked (a battle without PCs has no party).
pub fn check(identities: &[Identity], metrics: &[Metric<u64>]) -> Result<(), String> {
    for identity in identities {
        let (Identity::Same(a, b) | Identity::Within(a, b)) = *identity;
        for left in metrics
            .iter()
            .filter(|m| m.name == a.metric && a.subject.reads(&m.subject))
        {
            let partners = metrics.iter().filter(|m| {
                m.name == b.metric
                    && b.subject.reads(&m.subject)
                    && (!matches!((a.subject, b.subject), (Subject::Each(_), Subject::Each(_)))
                        || m.subject == left.subject)
            });
            for right in partners {
                let (x, y) = (a.pick.count(left), b.pick.count(right));
                let broken = match identity {
                    Identity::Same(..) => x != y,
                    Identity::Within(..) => x > y,
                };
                if broken {
                    let (relation, rule) = match identity {
                        Identity::Same(..) => ("but", "both count the same battles"),
                        Identity::Within(..) => (
                            "more than",
                            "every battle of the first is one of the second",
                        ),
                    };
                    return Err(format!(
                        "{}/{}{} counts {x} battles, {relation} {}/{}{} counts {y}; {rule}",
                        left.subject,
                        left.name,
                        a.pick.words(),
                        right.subject,
                        right.name,
                        b.pick.words()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HP: Identity = Identity::Within(
        bins(Subject::Each("hero"), "state", Pick::These(&["unhurt"])),
        bins(Subject::Each("hero"), "hp_lost", Pick::These(&["0"])),
    );

    fn hero(name: &str, unhurt: u64, hp0: u64) -> [Metric<u64>; 2] {
        let subject = format!("hero:{name}");
        [
            Metric::categorical(
                &subject,
                "state",
                &["unhurt", "dead"],
                &[unhurt, 10 - unhurt],
            ),
            Metric::integers(&subject, "hp_lost", 0, &[hp0, 10 - hp0]),
        ]
    }

    #[test]
    fn each_subject_is_checked_against_its_own_counts() {
        let mut metrics: Vec<Metric<u64>> = hero("Titus", 3, 4).into();
        metrics.extend(hero("Varro", 6, 6));
        assert_eq!(check(&[HP], &metrics), Ok(()));
        // Varro's unhurt battles above Titus's HP counts are no break: each
        // PC is read against himself.
        metrics.extend(hero("Ilsa", 5, 2));
        assert_eq!(
            check(&[HP], &metrics),
            Err("hero:Ilsa/state=unhurt counts 5 battles, more than hero:Ilsa/hp_lost=0 counts 2; every battle of the first is one of the second".to_owned())
        );
    }

    #[test]
    fn a_named_subject_is_checked_against_each_subject_of_a_kind_and_last_reads_the_last_bin() {
        let same = Identity::Same(
            bins(Subject::Named("battle"), "end", Pick::These(&["both_out"])),
            bins(Subject::Each("unit"), "damage", Pick::Last),
        );
        let metrics = [
            Metric::categorical("battle", "end", &["both_out", "routed"], &[2, 8]),
            Metric::integers("unit:A", "damage", 0, &[8, 0, 2]),
            Metric::integers("unit:B", "damage", 0, &[7, 0, 3]),
        ];
        assert_eq!(
            check(&[same], &metrics),
            Err("battle/end=both_out counts 2 battles, but unit:B/damage at its last value counts 3; both count the same battles".to_owned())
        );
        assert_eq!(check(&[same], &metrics[..2]), Ok(()));
    }

    #[test]
    fn a_kind_reads_its_bare_subject_and_its_sided_ones_only() {
        assert!(Subject::Each("party").reads("party"));
        assert!(Subject::Each("party").reads("party:Kingdom"));
        assert!(!Subject::Each("party").reads("partyline"));
        assert!(!Subject::Each("hero").reads("battle"));
    }
}
