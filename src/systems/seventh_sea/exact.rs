//! Exact odds of a battle the commanders alone decide (no Heroes, no Free
//! Raises): each round is an independent contest won by side 0 with
//! probability p, and the battle is an absorbing Markov chain on the
//! consecutive-wins counter.

use anyhow::{Result, bail};

use super::SeventhSea;
use super::roll_keep::Pool;
use crate::stats::Metric;

/// P(side 0 wins a round) after rerolls of neither/tie, from the exact
/// totals of both commanders' pools.
pub fn round_win_probability(g: &SeventhSea) -> f64 {
    let s = &g.rules.sides;
    let dist = [0, 1].map(|i| Pool::new(s[i].strategy_dice, s[i].wits).distribution());
    let tn = [5 * s[1].wits, 5 * s[0].wits];
    let (mut win, mut lose) = (0.0, 0.0);
    let (first_a, pa) = &dist[0];
    let (first_b, pb) = &dist[1];
    for (i, &qa) in pa.iter().enumerate() {
        let a = first_a + i as i64;
        for (j, &qb) in pb.iter().enumerate() {
            let b = first_b + j as i64;
            let q = qa * qb;
            match (a >= tn[0], b >= tn[1]) {
                (true, false) => win += q,
                (false, true) => lose += q,
                (true, true) if a > b => win += q,
                (true, true) if b > a => lose += q,
                _ => {}
            }
        }
    }
    win / (win + lose)
}

/// Exact victory and battle-length distributions.
pub fn exact_metrics(g: &SeventhSea) -> Result<Vec<Metric<f64>>> {
    if !g.parsed.heroes.is_empty() {
        bail!(
            "exact odds need a battle the commanders alone decide; this one has Heroes (their officers and opportunities change the rolls)"
        );
    }
    if g.rules
        .sides
        .iter()
        .any(|s| s.supply.is_some() || s.speech.is_some())
    {
        bail!(
            "exact odds need a battle without Free Raises; remove the quartermaster and speech (raises make rounds depend on each other)"
        );
    }
    let p = round_win_probability(g);
    let max_rounds = g.rules.max_rounds as usize;
    // state: (streak holder, streak length 1..=2) or none; index 0 = none,
    // 1..=2 = side 0 with length, 3..=4 = side 1 with length.
    let mut mass = [1.0, 0.0, 0.0, 0.0, 0.0];
    let mut winner = [0.0f64; 3];
    let mut rounds = vec![0.0f64; max_rounds + 1];
    for decided_now in rounds.iter_mut().skip(1) {
        let mut next = [0.0; 5];
        for (state, &m) in mass.iter().enumerate() {
            if m == 0.0 {
                continue;
            }
            let (holder, length) = match state {
                0 => (2, 0),
                1 | 2 => (0, state),
                _ => (1, state - 2),
            };
            for (side, q) in [(0usize, p), (1usize, 1.0 - p)] {
                let new_length = if holder == side { length + 1 } else { 1 };
                if new_length >= 3 {
                    winner[side] += m * q;
                    *decided_now += m * q;
                } else {
                    next[if side == 0 {
                        new_length
                    } else {
                        2 + new_length
                    }] += m * q;
                }
            }
        }
        mass = next;
    }
    let undecided: f64 = mass.iter().sum();
    winner[2] = undecided;
    rounds[max_rounds] += undecided;
    let names = g.side_names();
    let mut metrics = Vec::new();
    for s in 0..2 {
        metrics.push(Metric::categorical(
            &format!("side:{}", names[s]),
            "victory",
            &["won", "lost", "undecided"],
            &[winner[s], winner[1 - s], winner[2]],
        ));
    }
    metrics.push(Metric::integers("battle", "rounds", 0, &rounds));
    Ok(metrics)
}
