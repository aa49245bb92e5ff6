//! The PCs of a side counted together, battle by battle: "will anyone go
//! down tonight?" cannot be read from each PC's odds alone, since one
//! battle's dice strike them all. One party when every PC is on one side
//! (subject `party`), else one per side that has PCs (`party:<side>`).

use crate::engine::histograms::{Hist, Histograms};
use crate::stats::{MetricRole, Values, Weight};

/// The largest number of parties: one per side.
const MAX_PARTIES: usize = 2;

/// The parties of a battle and their histograms, declared in a tally's
/// [`Histograms`] by [`Parties::declare`]: per party, `any_<out>` (no/yes),
/// `any_dead` where death is told apart, and `<out>`, the number of its PCs
/// out of action.
#[derive(Debug, Clone, PartialEq)]
pub struct Parties {
    /// Party index of each PC, in scenario order.
    of: Vec<u8>,
    /// Per party: battles by the number of its PCs out of action, and
    /// (where death is told apart) battles without and with a PC dead.
    hists: Vec<(Hist, Option<Hist>)>,
}

/// One battle's party fates, filled PC by PC where the tally records a
/// battle: [`PartyBattle::pc`] for each, then [`Parties::add`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PartyBattle {
    out: [usize; MAX_PARTIES],
    dead: [bool; MAX_PARTIES],
}

impl PartyBattle {
    /// Counts PC `i`: out of action, dead.
    #[inline(always)]
    pub fn pc(&mut self, parties: &Parties, i: usize, out: bool, dead: bool) {
        // Most battles have one party: no lookup then.
        let p = if parties.hists.len() == 1 {
            0
        } else {
            usize::from(parties.of[i])
        };
        self.out[p] += usize::from(out);
        self.dead[p] |= dead;
    }
}

impl Parties {
    /// Declares the parties of PCs on these sides (`side_of[i]` for PC
    /// `i`) in `h`. `death`: whether the system tells dead from out of
    /// action; `out` names the out-of-action state in metric names
    /// (`down_or_dead`), `words` in sentences (`down or dead`).
    pub fn declare<W: Weight>(
        h: &mut Histograms<W>,
        side_of: &[usize],
        side_names: [&str; 2],
        death: bool,
        (out, words): (&str, &str),
    ) -> Parties {
        let mut sides: Vec<usize> = side_of.to_vec();
        sides.sort_unstable();
        sides.dedup();
        let of: Vec<u8> = side_of
            .iter()
            .map(|s| sides.iter().position(|x| x == s).expect("a listed side") as u8)
            .collect();
        let no_yes = || Values::Categories(vec!["no".to_owned(), "yes".to_owned()]);
        let hists = sides
            .iter()
            .enumerate()
            .map(|(p, &s)| {
                let subject = if sides.len() == 1 {
                    "party".to_owned()
                } else {
                    format!("party:{}", side_names[s])
                };
                let pcs = of.iter().filter(|&&x| usize::from(x) == p).count();
                let counts = h.unlisted(pcs + 1);
                let role = MetricRole::PartyRisk {
                    side: side_names[s].to_owned(),
                    whole: sides.len() == 1,
                    words: words.to_owned(),
                };
                let any_out = format!("any_{out}");
                h.view(
                    &subject,
                    &any_out,
                    no_yes(),
                    role,
                    counts,
                    &[0..1, 1..pcs + 1],
                );
                let dead = death.then(|| {
                    h.categorical(&subject, "any_dead", &["no", "yes"], MetricRole::Detail)
                });
                h.list(
                    &subject,
                    out,
                    Values::Integers { first: 0 },
                    MetricRole::Detail,
                    counts,
                );
                (counts, dead)
            })
            .collect();
        Parties { of, hists }
    }

    /// Counts one battle with weight `w`.
    #[inline(always)]
    pub fn add<W: Weight>(&self, h: &mut Histograms<W>, battle: &PartyBattle, w: W) {
        for (p, &(out, dead)) in self.hists.iter().enumerate() {
            h.add(out, battle.out[p], w);
            if let Some(dead) = dead {
                h.add(dead, usize::from(battle.dead[p]), w);
            }
        }
    }

    /// Adds, with probability `w`, a battle in which each PC's fate is
    /// independent of the others': PC `i` ends out of action with
    /// probability `fates[i].0`, dead (a kind of out) with `fates[i].1`.
    /// The count out of action per party follows the PCs' Poisson-binomial law.
    pub fn add_independent(&self, h: &mut Histograms<f64>, fates: &[(f64, f64)], w: f64) {
        for (p, &(out, dead)) in self.hists.iter().enumerate() {
            let mut law = vec![1.0];
            let mut alive = 1.0;
            for (&(pc_out, pc_dead), _) in fates
                .iter()
                .zip(&self.of)
                .filter(|(_, o)| usize::from(**o) == p)
            {
                let mut next = vec![0.0; law.len() + 1];
                for (k, q) in law.iter().enumerate() {
                    next[k] += q * (1.0 - pc_out);
                    next[k + 1] += q * pc_out;
                }
                law = next;
                alive *= 1.0 - pc_dead;
            }
            for (k, q) in law.iter().enumerate() {
                h.add(out, k, w * q);
            }
            if let Some(dead) = dead {
                h.add(dead, 0, w * alive);
                h.add(dead, 1, w * (1.0 - alive));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One battle of PCs' (out of action, dead).
    fn record(t: &mut (Histograms<u64>, Parties), fates: &[(bool, bool)]) {
        let mut b = PartyBattle::default();
        for (i, &(out, dead)) in fates.iter().enumerate() {
            b.pc(&t.1, i, out, dead);
        }
        t.1.add(&mut t.0, &b, 1);
    }

    /// The parties of PCs on these sides, alone in their histograms.
    fn parties<W: Weight>(
        side_of: &[usize],
        death: bool,
        out: (&str, &str),
    ) -> (Histograms<W>, Parties) {
        let mut h = Histograms::default();
        let parties = Parties::declare(&mut h, side_of, ["A", "B"], death, out);
        (h, parties)
    }

    /// Three PCs on one side, battle by battle by hand.
    #[test]
    fn a_party_counts_battles_not_pcs() {
        let mut t = parties::<u64>(&[0, 0, 0], true, ("down_or_dead", "down or dead"));
        record(&mut t, &[(false, false), (false, false), (false, false)]);
        record(&mut t, &[(true, false), (true, true), (false, false)]);
        record(&mut t, &[(false, false), (true, false), (false, false)]);
        let m = t.0.metrics();
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
        let (mut h, t) = parties::<f64>(&[0, 0, 1], true, ("down_or_dead", "down or dead"));
        t.add_independent(&mut h, &[(0.5, 0.1), (0.2, 0.0), (1.0, 1.0)], 0.5);
        let m = h.metrics();
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
        let mut t = parties::<u64>(&[1, 0, 1], false, ("knocked_out", "knocked out"));
        record(&mut t, &[(true, false), (true, false), (false, false)]);
        let m = t.0.metrics();
        let subjects: Vec<&str> = m.iter().map(|m| m.subject.as_str()).collect();
        assert_eq!(subjects, ["party:A", "party:A", "party:B", "party:B"]);
        assert_eq!(m[0].weights, [0, 1], "A's one PC was knocked out");
        assert_eq!(m[3].weights, [0, 1, 0], "one of B's two");
    }
}
