//! The duel's exact odds: every roll is alike, so the first roll that is
//! not a tie decides, and `max_rolls` ties make a draw.

use super::DiceDuel;
use crate::engine::histograms::Histograms;
use crate::stats::Metric;

/// Each metric's exact distribution.
pub fn metrics(d: &DiceDuel) -> Vec<Metric<f64>> {
    let n = d.faces.len() as f64;
    let [a, b] = [d.champions[0].bonus, d.champions[1].bonus];
    let (mut first, mut tie) = (0.0, 0.0);
    for &x in &d.faces {
        for &y in &d.faces {
            let p = 1.0 / (n * n);
            match (x + a).cmp(&(y + b)) {
                std::cmp::Ordering::Greater => first += p,
                std::cmp::Ordering::Equal => tie += p,
                std::cmp::Ordering::Less => {}
            }
        }
    }
    let second = 1.0 - first - tie;
    let (mut h, winner, rolls): (Histograms<f64>, _, _) = super::DuelTally::declare(d);
    let mut all_tied = 1.0;
    for r in 0..d.max_rolls as usize {
        h.add(winner, 0, all_tied * first);
        h.add(winner, 1, all_tied * second);
        h.add(rolls, r, all_tied * (first + second));
        all_tied *= tie;
    }
    h.add(winner, 2, all_tied);
    h.add(rolls, d.max_rolls as usize - 1, all_tied);
    h.metrics()
}
