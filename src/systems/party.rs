//! The PCs of a side counted together, battle by battle: "will anyone go
//! down tonight?" cannot be read from each PC's odds alone, since one
//! battle's dice strike them all. One party when every PC is on one side
//! (subject `party`), else one per side that has PCs (`party:<side>`).

use crate::stats::{Metric, MetricRole, Weight};

/// The largest number of parties: one per side.
const MAX_PARTIES: usize = 2;

/// Per party: how many of its PCs ended out of action, and whether any died.
#[derive(Debug, Clone, PartialEq)]
pub struct PartyTally<W> {
    /// Party index of each PC, in scenario order.
    of: Vec<u8>,
    /// Each party's subject and the side it is.
    names: Vec<(String, String)>,
    /// Battles by the number of a party's PCs out of action, every party's
    /// bins one after the other (party `p`'s from `first[p]`).
    out: Vec<W>,
    /// Where each party's bins start in `out`.
    first: [usize; MAX_PARTIES],
    /// Per party, battles without and with a PC dead.
    dead: [[W; 2]; MAX_PARTIES],
    /// Whether the system tells dead from out of action.
    death: bool,
    /// Whether there is exactly one party.
    single: bool,
}

/// One battle's party fates, filled PC by PC where the tally records a
/// battle: [`PartyBattle::pc`] for each, then [`PartyTally::add`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PartyBattle {
    out: [usize; MAX_PARTIES],
    dead: [bool; MAX_PARTIES],
}

impl PartyBattle {
    /// Counts PC `i`: out of action, dead.
    #[inline(always)]
    pub fn pc<W>(&mut self, tally: &PartyTally<W>, i: usize, out: bool, dead: bool) {
        // Most battles have one party: no lookup then.
        let p = if tally.single {
            0
        } else {
            usize::from(tally.of[i])
        };
        self.out[p] += usize::from(out);
        self.dead[p] |= dead;
    }
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
        let of: Vec<u8> = side_of
            .iter()
            .map(|s| sides.iter().position(|x| x == s).expect("a listed side") as u8)
            .collect();
        let mut first = [0; MAX_PARTIES];
        let mut bins = 0;
        for (p, start) in first.iter_mut().enumerate().take(sides.len()) {
            *start = bins;
            bins += of.iter().filter(|&&x| usize::from(x) == p).count() + 1;
        }
        PartyTally {
            of,
            names,
            out: vec![W::default(); bins],
            first,
            dead: [[W::default(); 2]; MAX_PARTIES],
            death,
            single: sides.len() == 1,
        }
    }

    /// Counts one battle with weight `w`.
    #[inline(always)]
    pub fn add(&mut self, battle: &PartyBattle, w: W) {
        if self.single {
            self.out[battle.out[0]] += w;
            self.dead[0][usize::from(battle.dead[0])] += w;
            return;
        }
        for p in 0..self.names.len() {
            self.out[self.first[p] + battle.out[p]] += w;
            self.dead[p][usize::from(battle.dead[p])] += w;
        }
    }

    /// Adds, with probability `w`, a battle in which each PC's fate is
    /// independent of the others': PC `i` ends out of action with
    /// probability `fates[i].0`, dead (a kind of out) with `fates[i].1`.
    /// The count out of action per party follows the PCs' Poisson-binomial law.
    pub fn add_independent(&mut self, fates: &[(f64, f64)], w: f64)
    where
        W: From<f64>,
    {
        for p in 0..self.names.len() {
            let mut law = vec![1.0];
            let mut alive = 1.0;
            for (&(out, dead), _) in fates
                .iter()
                .zip(&self.of)
                .filter(|(_, o)| usize::from(**o) == p)
            {
                let mut next = vec![0.0; law.len() + 1];
                for (k, q) in law.iter().enumerate() {
                    next[k] += q * (1.0 - out);
                    next[k + 1] += q * out;
                }
                law = next;
                alive *= 1.0 - dead;
            }
            for (k, q) in law.iter().enumerate() {
                self.out[self.first[p] + k] += W::from(w * q);
            }
            self.dead[p][0] += W::from(w * alive);
            self.dead[p][1] += W::from(w * (1.0 - alive));
        }
    }

    /// Visits every count, a run at a time (paired runs read a block's bit
    /// masks this way).
    #[inline]
    pub fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [W])) {
        visit(&mut self.out);
        for dead in &mut self.dead {
            visit(dead);
        }
    }

    /// Party `p`'s bins in `out`.
    fn counts(&self, p: usize) -> &[W] {
        let end = self
            .first
            .get(p + 1)
            .copied()
            .filter(|_| p + 1 < self.names.len())
            .unwrap_or(self.out.len());
        &self.out[self.first[p]..end]
    }

    /// Per party: `any_<out>` (no/yes), `any_dead` where death is told
    /// apart, and `<out>`, the number of its PCs out of action. `out` names
    /// the state in metric names (`down_or_dead`); `words` in sentences.
    pub fn metrics(&self, out: &str, words: &str) -> Vec<Metric<W>> {
        let mut metrics = Vec::new();
        for (p, (subject, side)) in self.names.iter().enumerate() {
            let counts = self.counts(p);
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
            if self.death {
                metrics.push(Metric::categorical(
                    subject,
                    "any_dead",
                    &["no", "yes"],
                    &self.dead[p],
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

    /// One battle of PCs' (out of action, dead).
    fn record(t: &mut PartyTally<u64>, fates: &[(bool, bool)]) {
        let mut b = PartyBattle::default();
        for (i, &(out, dead)) in fates.iter().enumerate() {
            b.pc(t, i, out, dead);
        }
        t.add(&b, 1);
    }

    /// Three PCs on one side, battle by battle by hand.
    #[test]
    fn a_party_counts_battles_not_pcs() {
        let mut t = PartyTally::<u64>::new(&[0, 0, 0], ["A", "B"], true);
        record(&mut t, &[(false, false), (false, false), (false, false)]);
        record(&mut t, &[(true, false), (true, true), (false, false)]);
        record(&mut t, &[(false, false), (true, false), (false, false)]);
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

    /// Independent fates: the Poisson-binomial count, the chance of any death.
    #[test]
    fn independent_fates_add_up_as_their_laws() {
        let mut t = PartyTally::<f64>::new(&[0, 0, 1], ["A", "B"], true);
        t.add_independent(&[(0.5, 0.1), (0.2, 0.0), (1.0, 1.0)], 0.5);
        let m = t.metrics("down_or_dead", "down or dead");
        // Party A: 0 out 0.4, 1 out 0.5, 2 out 0.1 (times 0.5).
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(
            close(&m[2].weights, &[0.2, 0.25, 0.05]),
            "{:?}",
            m[2].weights
        );
        assert!(close(&m[0].weights, &[0.2, 0.3]));
        assert!(close(&m[1].weights, &[0.45, 0.05]));
        assert!(close(&m[5].weights, &[0.0, 0.5]), "B's one PC always out");
        assert!(close(&m[4].weights, &[0.0, 0.5]), "and dead");
    }

    /// PCs on both sides: one party per side.
    #[test]
    fn pcs_on_both_sides_make_two_parties() {
        let mut t = PartyTally::<u64>::new(&[1, 0, 1], ["A", "B"], false);
        record(&mut t, &[(true, false), (true, false), (false, false)]);
        let m = t.metrics("knocked_out", "knocked out");
        let subjects: Vec<&str> = m.iter().map(|m| m.subject.as_str()).collect();
        assert_eq!(subjects, ["party:A", "party:A", "party:B", "party:B"]);
        assert_eq!(m[0].weights, [0, 1], "A's one PC was knocked out");
        assert_eq!(m[3].weights, [0, 1, 0], "one of B's two");
    }
}
