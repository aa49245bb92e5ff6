//! The dice duel checked as any system is: its fast duel against the book
//! and the exact odds. (Every command runs it with the other systems in
//! `commands/every_system.rs`, which knows no system by name.)

use std::path::Path;

use rand::SeedableRng;

use super::{DiceDuel, reference};
use crate::engine::{RunSettings, System, run};
use crate::stats::{Metric, wilson};
use crate::systems::BattleSystem;
use crate::tables::cells::CellReads;

/// The bundled duel.
fn even_duel() -> DiceDuel {
    let text = include_str!("../../../tests/dice_duel/scenarios/dice_duel/even_duel.toml");
    DiceDuel::from_scenario(text, "even_duel.toml", &crate::tables::TableFiles::in_folder(Path::new(".")))
        .expect("a valid duel")
        .1
}

/// Whether `hits` of `n` is within the 99.9% interval of `p`, every one
/// of `family` such checks together.
fn within(p: f64, hits: u64, n: u64, family: usize) -> bool {
    let z = statrs::distribution::ContinuousCDF::inverse_cdf(
        &statrs::distribution::Normal::standard(),
        1.0 - 0.0005 / family as f64,
    );
    let (lo, hi) = wilson(hits, n, z);
    lo <= p && p <= hi
}

/// Every bin of every metric of `counts` agrees with `exact`.
fn agrees(exact: &[Metric<f64>], counts: &[Metric<u64>], n: u64) {
    let family: usize = exact.iter().map(|m| m.weights.len()).sum();
    for (e, c) in exact.iter().zip(counts) {
        assert_eq!((&e.subject, &e.name), (&c.subject, &c.name));
        for (b, (&p, &hits)) in e.weights.iter().zip(&c.weights).enumerate() {
            assert!(
                within(p, hits, n, family),
                "{}/{} bin {b}: {hits} of {n} against {p}",
                e.subject,
                e.name
            );
        }
    }
}

#[test]
fn the_fast_duel_and_the_book_both_follow_the_exact_odds() {
    let mut duel = even_duel();
    duel.champions[0].bonus = 1;
    let exact = duel.exact().unwrap();
    let total: f64 = exact[0].weights.iter().sum();
    assert!((total - 1.0).abs() < 1e-12);
    // By hand, a d6 + 1 against a d6: 21/36 higher, 5/36 tied, 10/36 lower.
    let (win, tie) = (21.0 / 36.0, 5.0 / 36.0);
    let won = win * (1.0 + tie + tie * tie);
    assert!((exact[0].weights[0] - won).abs() < 1e-12);
    assert!((exact[0].weights[2] - tie.powi(3)).abs() < 1e-12);
    let n = 400_000;
    let fast = run(&duel, RunSettings::new(5, n)).unwrap();
    agrees(&exact, &duel.metrics_of(&fast.tally), n);
    let mut book = duel.new_tally();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
    let mut reads = CellReads::counting();
    for _ in 0..n {
        let (winner, rolls) = reference::duel(duel.plain(), &mut rng, &mut reads);
        crate::engine::Tally::record(&mut book, &super::DuelOutcome { winner, rolls });
    }
    agrees(&exact, &duel.metrics_of(&book), n);
    assert_eq!(reads.counts().len(), 6, "every face of the die is read");
}
