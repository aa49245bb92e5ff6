//! The PCs of a side counted together, battle by battle: "will anyone go
//! down tonight?" cannot be read from each PC's odds alone, since one
//! battle's dice strike them all. One party when every PC is on one side
//! (subject `party`), else one per side that has PCs (`party:<side>`).

use crate::stats::{Metric, MetricRole, Weight, add_all};

/// The largest number of parties: one per side.
const MAX_PARTIES: usize = 2;

/// Per party: how many of its PCs ended out of action, and whether any died.
#[derive(Debug, Clone, PartialEq)]
pub struct PartyTally<W> {
    /// Party index of each PC, in scenario order.
    of: Vec<usize>,
    /// Each party's subject and the side it is.
    names: Vec<(String, String)>,
    /// Per party, battles by the number of its PCs out of action.
    out: Vec<Vec<W>>,
    /// Per party, battles without and with a PC dead (systems with death).
    dead: Option<Vec<[W; 2]>>,
}

impl<W: Weight> PartyTally<W> {
    /// Parties of PCs on these sides (`side_of[i]` for PC `i`); `death`:
    /// whether the system tells dead from out of action.
    pub fn new(side_of: &[usize], side_names: [&str; 2], death: bool) -> Self {
        let mut sides: Vec<usize> = side_of.to_vec();
        sides.sort_unstable();
        sides.dedup();
        let names: Vec<(String, String)> = sides
            .iter()
            .map(|&s| {
                let subject = if sides.len() == 1 {
                    "party".to_owned()
                } else {
                    format!("party:{}", side_names[s])
                };
                (subject, side_names[s].to_owned())
            })
            .collect();
        let of: Vec<usize> = side_of
            .iter()
            .map(|s| sides.iter().position(|x| x == s).expect("a listed side"))
            .collect();
        let out = (0..sides.len())
            .map(|p| vec![W::default(); of.iter().filter(|&&x| x == p).count() + 1])
            .collect();
        PartyTally {
            of,
            names,
            out,
            dead: death.then(|| vec![[W::default(); 2]; sides.len()]),
        }
    }

    /// Counts one battle: `fates` gives each PC's (out of action, dead).
    #[inline]
    pub fn add(&mut self, fates: impl Iterator<Item = (bool, bool)>, w: W) {
        let mut out = [0usize; MAX_PARTIES];
        let mut dead = [false; MAX_PARTIES];
        for (&p, (gone, died)) in self.of.iter().zip(fates) {
            out[p] += usize::from(gone);
            dead[p] |= died;
        }
        for (p, counts) in self.out.iter_mut().enumerate() {
            counts[out[p]] += w;
        }
        if let Some(d) = &mut self.dead {
            for (p, bins) in d.iter_mut().enumerate() {
                bins[usize::from(dead[p])] += w;
            }
        }
    }

    /// Adds another tally of the same parties.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.out.iter_mut().zip(&other.out) {
            add_all(a, b);
        }
        if let (Some(a), Some(b)) = (&mut self.dead, &other.dead) {
            for (x, y) in a.iter_mut().zip(b) {
                add_all(x, y);
            }
        }
    }

    /// Per party: `any_<out>` (no/yes), `any_dead` where death is told
    /// apart, and `<out>`, the number of its PCs out of action. `out` names
    /// the state in metric names (`down_or_dead`); `words` in sentences.
    pub fn metrics(&self, out: &str, words: &str) -> Vec<Metric<W>> {
        let mut metrics = Vec::new();
        for (p, (subject, side)) in self.names.iter().enumerate() {
            let counts = &self.out[p];
            let none = counts[0];
            let mut some = W::default();
            for &c in &counts[1..] {
                some += c;
            }
            metrics.push(
                Metric::categorical(
                    subject,
                    &format!("any_{out}"),
                    &["no", "yes"],
                    &[none, some],
                )
                .with_role(MetricRole::PartyRisk {
                    side: side.clone(),
                    whole: self.names.len() == 1,
                    words: words.to_owned(),
                }),
            );
            if let Some(dead) = &self.dead {
                metrics.push(Metric::categorical(
                    subject,
                    "any_dead",
                    &["no", "yes"],
                    &dead[p],
                ));
            }
            metrics.push(Metric::integers(subject, out, 0, counts));
        }
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three PCs on one side, battle by battle by hand.
    #[test]
    fn a_party_counts_battles_not_pcs() {
        let mut t = PartyTally::<u64>::new(&[0, 0, 0], ["A", "B"], true);
        t.add(
            [(false, false), (false, false), (false, false)].into_iter(),
            1,
        );
        t.add([(true, false), (true, true), (false, false)].into_iter(), 1);
        t.add(
            [(false, false), (true, false), (false, false)].into_iter(),
            1,
        );
        let m = t.metrics("down_or_dead", "down or dead");
        assert_eq!(m[0].subject, "party");
        assert_eq!(
            (m[0].name.as_str(), &m[0].weights[..]),
            ("any_down_or_dead", &[1, 2][..])
        );
        assert_eq!(
            (m[1].name.as_str(), &m[1].weights[..]),
            ("any_dead", &[2, 1][..])
        );
        assert_eq!(
            (m[2].name.as_str(), &m[2].weights[..]),
            ("down_or_dead", &[1, 1, 1, 0][..])
        );
    }

    /// PCs on both sides: one party per side.
    #[test]
    fn pcs_on_both_sides_make_two_parties() {
        let mut t = PartyTally::<u64>::new(&[1, 0, 1], ["A", "B"], false);
        t.add(
            [(true, false), (true, false), (false, false)].into_iter(),
            1,
        );
        let m = t.metrics("knocked_out", "knocked out");
        let subjects: Vec<&str> = m.iter().map(|m| m.subject.as_str()).collect();
        assert_eq!(subjects, ["party:A", "party:A", "party:B", "party:B"]);
        assert_eq!(m[0].weights, [0, 1], "A's one PC was knocked out");
        assert_eq!(m[3].weights, [0, 1, 0], "one of B's two");
    }
}
