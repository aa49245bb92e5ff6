//! Engagements per second per core beside the raw Xoshiro256++ rate, and
//! scaling of the engine across threads.
//!
//! `cargo bench --bench engine`; the ratio of `war_cards/knights_vs_pikes`
//! to `rng_floor/next_u64` is our cost over the random-number floor.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use warcrunch::engine::{self, RunSettings, System};
use warcrunch::scenario::{self, Battle};
use warcrunch::systems::war_cards::WarCards;

const BATCH: u64 = 10_000;

fn bundled(name: &str) -> WarCards {
    match load_bundled("war_cards", name) {
        Battle::WarCards(w) => *w,
        other => panic!("{name} is a {} scenario", other.system()),
    }
}

fn rng_floor(c: &mut Criterion) {
    let mut group = c.benchmark_group("rng_floor");
    group.throughput(Throughput::Elements(BATCH));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    group.bench_function("next_u64", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for _ in 0..BATCH {
                acc = acc.wrapping_add(rng.next_u64());
            }
            black_box(acc)
        })
    });
    group.finish();
}

/// Battles per second of one system on one core, `per_iter` battles an iteration.
fn bench_battles<S: System>(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    system: &S,
    per_iter: u64,
) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut tally = system.new_tally();
    group.bench_function(name, |b| {
        b.iter(|| {
            for _ in 0..per_iter {
                let outcome = system.simulate(&mut rng);
                engine::Tally::record(&mut tally, &outcome);
            }
        })
    });
    black_box(&tally);
}

/// A bundled scenario of any system.
fn load_bundled(folder: &str, file: &str) -> Battle {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(folder)
        .join(file);
    scenario::load(&path)
        .expect("bundled scenario loads")
        .battle
}

fn war_cards_single_core(c: &mut Criterion) {
    let mut group = c.benchmark_group("war_cards");
    group.throughput(Throughput::Elements(BATCH));
    for file in [
        "knights_vs_pikes.toml",
        "longbows_vs_men_at_arms.toml",
        "cavalry_clash_deck.toml",
        "guard_vs_levy.toml",
    ] {
        let system = bundled(file);
        bench_battles(&mut group, file.trim_end_matches(".toml"), &system, BATCH);
    }
    group.finish();
}

fn gurps_single_core(c: &mut Criterion) {
    let mut group = c.benchmark_group("gurps");
    group.throughput(Throughput::Elements(BATCH));
    for file in [
        "ambush_at_the_ford.toml",
        "siege_assault.toml",
        "three_days_at_hollin.toml",
    ] {
        let Battle::Gurps(system) = load_bundled("gurps", file) else {
            panic!("{file} is a GURPS scenario");
        };
        bench_battles(
            &mut group,
            file.trim_end_matches(".toml"),
            system.as_ref(),
            BATCH,
        );
    }
    group.finish();
}

fn seventh_sea_single_core(c: &mut Criterion) {
    let mut group = c.benchmark_group("seventh_sea");
    group.throughput(Throughput::Elements(BATCH / 10));
    for file in [
        "even_field_battle.toml",
        "rout_of_a_weaker_army.toml",
        "officer_tips_the_balance.toml",
    ] {
        let Battle::SeventhSea(system) = load_bundled("seventh_sea", file) else {
            panic!("{file} is a 7th Sea scenario");
        };
        bench_battles(
            &mut group,
            file.trim_end_matches(".toml"),
            system.as_ref(),
            BATCH / 10,
        );
    }
    group.finish();
}

fn engine_scaling(c: &mut Criterion) {
    let system = bundled("knights_vs_pikes.toml");
    let trials = 16_000_000;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1, 2];
    if cores > 2 {
        threads.push(cores);
    }
    let mut group = c.benchmark_group("engine_scaling");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trials));
    for t in threads {
        group.bench_with_input(
            BenchmarkId::new("knights_vs_pikes_threads", t),
            &t,
            |b, &t| {
                b.iter(|| {
                    engine::run(
                        &system,
                        RunSettings {
                            threads: t,
                            ..RunSettings::new(1, trials)
                        },
                    )
                    .expect("run")
                })
            },
        );
    }
    group.finish();
}

criterion_group!(
    benches,
    rng_floor,
    war_cards_single_core,
    gurps_single_core,
    seventh_sea_single_core,
    engine_scaling
);
criterion_main!(benches);
