//! Battles per second per core of every bundled scenario beside the raw
//! rate of the battle stream (SplitMix64), and scaling of the engine across threads.
//!
//! `cargo bench --bench engine`; with `WARCRUNCH_BENCH_JSON=FILE` the
//! numbers of this run are also written to FILE as JSON (battles per second
//! per core; `cost_in_rng_draws`, a battle's time in `next_u64` calls;
//! parallel efficiency against one thread; the workbench's slowdown against
//! `warcrunch run`), so runs can be compared.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use rand::Rng;
use warcrunch::engine::paired::{Event, Lockstep, MetricsOf};
use warcrunch::engine::stream::BattleStream;
use warcrunch::engine::{self, RunSettings, System};
use warcrunch::scenario;
use warcrunch::systems::gurps::Gurps;
use warcrunch::systems::seventh_sea::SeventhSea;
use warcrunch::systems::war_cards::WarCards;
use warcrunch::systems::{Battle, BattleSystem, Visit};

const BATCH: u64 = 10_000;

/// A benchmark of this run: criterion's folder for it, elements per
/// iteration and threads used.
struct Registered {
    group: String,
    id: String,
    elements: u64,
    threads: usize,
}

/// Every benchmark defined, for the JSON summary.
static REGISTERED: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

fn register(group: &str, id: &str, elements: u64, threads: usize) {
    REGISTERED.lock().expect("registry").push(Registered {
        group: group.to_owned(),
        id: id.to_owned(),
        elements,
        threads,
    });
}

/// A bundled scenario of system `S`.
fn bundled<S: BattleSystem>(folder: &str, file: &str) -> S {
    let battle = load_bundled(folder, file);
    match battle.downcast::<S>() {
        Some(system) => system.clone(),
        None => panic!("{file} is a {} scenario", battle.system()),
    }
}

fn rng_floor(c: &mut Criterion) {
    let mut group = c.benchmark_group("rng_floor");
    group.throughput(Throughput::Elements(BATCH));
    let mut rng = BattleStream::battle(1, 0);
    register("rng_floor", "next_u64", BATCH, 1);
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
    group_name: &str,
    name: &str,
    system: &S,
    per_iter: u64,
) {
    register(group_name, name, per_iter, 1);
    let mut battle = BattleStream::battle(1, 0);
    let mut tally = system.new_tally();
    group.bench_function(name, |b| {
        b.iter(|| {
            for _ in 0..per_iter {
                let outcome = system.simulate(&mut battle.clone());
                engine::Tally::record(&mut tally, &outcome);
                battle = battle.next_battle();
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
        let system: WarCards = bundled("war_cards", file);
        bench_battles(
            &mut group,
            "war_cards",
            file.trim_end_matches(".toml"),
            &system,
            BATCH,
        );
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
        let system: Gurps = bundled("gurps", file);
        bench_battles(
            &mut group,
            "gurps",
            file.trim_end_matches(".toml"),
            &system,
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
        let system: SeventhSea = bundled("seventh_sea", file);
        bench_battles(
            &mut group,
            "seventh_sea",
            file.trim_end_matches(".toml"),
            &system,
            BATCH / 10,
        );
    }
    group.finish();
}

/// Loading, validating and building a scenario, then its first battle
/// (the start-up a user waits for; 7th Sea pool tables, built once per
/// process on first use, are warm here: about 10 ms more, cold).
fn startup(c: &mut Criterion) {
    let mut group = c.benchmark_group("startup");
    for (folder, file) in [
        ("war_cards", "knights_vs_pikes.toml"),
        ("gurps", "ambush_at_the_ford.toml"),
        ("seventh_sea", "even_field_battle.toml"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(folder)
            .join(file);
        let name = file.trim_end_matches(".toml");
        register("startup", name, 1, 1);
        group.bench_function(name, |b| {
            b.iter(|| {
                let s = scenario::load(&path).expect("bundled scenario loads");
                let mut battle = BattleStream::battle(s.seed, 0);
                s.battle.visit(FirstBattle(&mut battle));
            })
        });
    }
    group.finish();
}

/// Fights one battle of whichever system, for its side effects on timing.
struct FirstBattle<'r>(&'r mut BattleStream);

impl Visit<'_> for FirstBattle<'_> {
    type Output = ();
    fn visit<S: BattleSystem>(self, system: &S) {
        drop(black_box(system.simulate(self.0)));
    }
}

/// Engine runs of one scenario at 1, 2 and all threads.
fn scale<S: System>(c: &mut Criterion, name: &str, system: &S, trials: u64) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // More threads than cores must not lose throughput.
    let mut threads = vec![1, 2, cores, 2 * cores];
    threads.sort_unstable();
    threads.dedup();
    let mut group = c.benchmark_group("engine_scaling");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trials));
    for t in threads {
        register("engine_scaling", &format!("{name}/{t}"), trials, t);
        group.bench_with_input(BenchmarkId::new(name, t), &t, |b, &t| {
            b.iter(|| {
                engine::run(
                    system,
                    RunSettings {
                        threads: t,
                        ..RunSettings::new(1, trials)
                    },
                )
                .expect("run")
            })
        });
    }
    group.finish();
}

fn engine_scaling(c: &mut Criterion) {
    scale(
        c,
        "knights_vs_pikes",
        &bundled::<WarCards>("war_cards", "knights_vs_pikes.toml"),
        16_000_000,
    );
    let gurps: Gurps = bundled("gurps", "ambush_at_the_ford.toml");
    scale(c, "ambush_at_the_ford", &gurps, 4_000_000);
    let sea: SeventhSea = bundled("seventh_sea", "even_field_battle.toml");
    scale(c, "even_field_battle", &sea, 500_000);
}

/// A bundled scenario's battles three ways, on one thread: `simulate` alone
/// (no counting), through the engine (`engine::run`), and paired (two
/// copies of the battle fought in lockstep, per variant): the engine's own
/// cost is the difference. The JSON gives it as a share of a battle's time.
/// [`overhead_of`] a battle of whichever system.
struct Overhead<'c, 'n> {
    c: &'c mut Criterion,
    name: &'n str,
    trials: u64,
}

impl Visit<'_> for Overhead<'_, '_> {
    type Output = ();
    fn visit<S: BattleSystem>(self, system: &S) {
        let metrics = |s: &S, t: &S::Tally| s.metrics_of(t);
        overhead_of(self.c, self.name, system, &metrics, self.trials);
    }
}

fn overhead_of<S: System>(
    c: &mut Criterion,
    name: &str,
    system: &S,
    metrics: &MetricsOf<'_, S>,
    trials: u64,
) {
    let mut group = c.benchmark_group("engine_overhead");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trials));
    register("engine_overhead", &format!("{name}/simulate"), trials, 1);
    group.bench_function(BenchmarkId::new(name, "simulate"), |b| {
        let mut battle = BattleStream::battle(1, 0);
        b.iter(|| {
            for _ in 0..trials {
                black_box(system.simulate(&mut battle.clone()));
                battle = battle.next_battle();
            }
        })
    });
    let one_thread = RunSettings {
        threads: 1,
        ..RunSettings::new(1, trials)
    };
    register("engine_overhead", &format!("{name}/run"), trials, 1);
    group.bench_function(BenchmarkId::new(name, "run"), |b| {
        b.iter(|| engine::run(system, one_thread).expect("run"))
    });
    // Two variants a battle: trials/2 battles make `trials` variant-battles.
    let layout = metrics(system, &system.new_tally());
    let event = Event {
        metric: 0,
        bins: vec![0],
    };
    assert!(!layout.is_empty());
    let lockstep = Lockstep::new(
        vec![system, system],
        metrics,
        vec![vec![event.clone()], vec![event]],
        vec![Vec::new(), Vec::new()],
    );
    let half = RunSettings {
        threads: 1,
        ..RunSettings::new(1, trials / 2)
    };
    register("engine_overhead", &format!("{name}/paired"), trials, 1);
    group.bench_function(BenchmarkId::new(name, "paired"), |b| {
        b.iter(|| engine::run(&lockstep, half).expect("paired run"))
    });
    group.finish();
}

fn engine_overhead(c: &mut Criterion) {
    for (folder, file, trials) in [
        ("war_cards", "knights_vs_pikes.toml", 2_000_000),
        ("war_cards", "longbows_vs_men_at_arms.toml", 1_000_000),
        ("war_cards", "cavalry_clash_deck.toml", 1_000_000),
        ("war_cards", "guard_vs_levy.toml", 1_000_000),
        ("gurps", "ambush_at_the_ford.toml", 400_000),
        ("gurps", "siege_assault.toml", 400_000),
        ("gurps", "three_days_at_hollin.toml", 100_000),
        ("seventh_sea", "even_field_battle.toml", 50_000),
        ("seventh_sea", "rout_of_a_weaker_army.toml", 100_000),
        ("seventh_sea", "officer_tips_the_balance.toml", 50_000),
    ] {
        let name = file.trim_end_matches(".toml");
        load_bundled(folder, file).visit(Overhead { c, name, trials });
    }
}

/// A bundled scenario run as `warcrunch run` runs it and as the workbench
/// runs it (a checkpoint after 1, 2, 4, … chunks publishing the verdict,
/// every outcome's interval and the event's JSON), on every core: the
/// JSON gives the workbench's slowdown.
fn streaming(c: &mut Criterion) {
    use warcrunch::analysis::runner::{Plan, simulate, simulate_watched};
    for (folder, file, trials) in [
        ("war_cards", "knights_vs_pikes.toml", 64_000_000),
        ("war_cards", "longbows_vs_men_at_arms.toml", 32_000_000),
        ("war_cards", "cavalry_clash_deck.toml", 32_000_000),
        ("war_cards", "guard_vs_levy.toml", 32_000_000),
        ("gurps", "ambush_at_the_ford.toml", 16_000_000),
        ("gurps", "siege_assault.toml", 16_000_000),
        ("gurps", "three_days_at_hollin.toml", 4_000_000),
        ("seventh_sea", "even_field_battle.toml", 2_000_000),
        ("seventh_sea", "rout_of_a_weaker_army.toml", 8_000_000),
        ("seventh_sea", "officer_tips_the_balance.toml", 4_000_000),
    ] {
        let name = file.trim_end_matches(".toml");
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(folder)
            .join(file);
        let mut s = scenario::load(&path).expect("a bundled scenario loads");
        s.trials = trials;
        let plan = Plan {
            threads: 0,
            progress: false,
            shard: engine::Shard::WHOLE,
            precision: None,
        };
        let info =
            warcrunch::analysis::runner::run_info(&s, String::new(), 0, std::time::Duration::ZERO);
        let mut group = c.benchmark_group("streaming");
        group.sample_size(10);
        group.warm_up_time(std::time::Duration::from_secs(1));
        group.measurement_time(std::time::Duration::from_secs(10));
        group.throughput(Throughput::Elements(trials));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        register("streaming", &format!("{name}/cli"), trials, cores);
        group.bench_function(BenchmarkId::new(name, "cli"), |b| {
            b.iter(|| simulate(&s, &plan).expect("run"))
        });
        register("streaming", &format!("{name}/workbench"), trials, cores);
        group.bench_function(BenchmarkId::new(name, "workbench"), |b| {
            b.iter(|| {
                let mut published = 0;
                let mut watch = |metrics: &[warcrunch::stats::Metric<u64>], done: u64| {
                    let (verdict, shown) = warcrunch::serve::view(metrics, done, None, &info);
                    published += serde_json::to_string(&(verdict, shown))
                        .expect("json")
                        .len();
                    false
                };
                let done = simulate_watched(&s, &plan, Some(&mut watch), &[]).expect("run");
                black_box((done, published))
            })
        });
        group.finish();
    }
}

/// Each bundled scenario, a one-step change of it and the event it is
/// judged on: the change pairing is for (a side's or unit's rating), on an
/// event the change moves (a unit that always wins is judged on how).
const PAIRING: [(&str, &str, &str, i64, &str); 10] = [
    (
        "war_cards",
        "knights_vs_pikes.toml",
        "attacker.melee",
        4,
        "battle/winner=attacker",
    ),
    (
        "war_cards",
        "longbows_vs_men_at_arms.toml",
        "attacker.melee",
        4,
        "battle/winner=attacker",
    ),
    (
        "war_cards",
        "cavalry_clash_deck.toml",
        "attacker.melee",
        3,
        "battle/winner=attacker",
    ),
    (
        "war_cards",
        "guard_vs_levy.toml",
        "defender.melee",
        1,
        "battle/end=destroyed",
    ),
    (
        "gurps",
        "ambush_at_the_ford.toml",
        "sides.Megalos.strategy",
        15,
        "side:Megalos/victory=won",
    ),
    (
        "gurps",
        "siege_assault.toml",
        "sides.Imperial army.strategy",
        14,
        "side:Imperial army/victory=won",
    ),
    (
        "gurps",
        "three_days_at_hollin.toml",
        "sides.Kingdom.strategy",
        14,
        "side:Kingdom/victory=won",
    ),
    (
        "seventh_sea",
        "even_field_battle.toml",
        "heroes.Isabeau.finesse",
        4,
        "side:Montaigne/victory=won",
    ),
    (
        "seventh_sea",
        "officer_tips_the_balance.toml",
        "heroes.Captain Ramos.leadership",
        4,
        "side:Castille/victory=won",
    ),
    (
        "seventh_sea",
        "rout_of_a_weaker_army.toml",
        "sides.Rebels.commander.strategy",
        2,
        "side:Eisen/victory=won",
    ),
];

/// Per scenario of [`PAIRING`]: the change, the event and how much wider
/// the unpaired interval of its difference is than the paired one.
static WIDTH_RATIOS: Mutex<Vec<(String, String, String, f64)>> = Mutex::new(Vec::new());

/// What pairing costs and buys: each [`PAIRING`] change fought as two plain
/// runs and as one paired run (one thread), with the width ratio of the
/// difference's interval; the JSON gives the efficiency, (unpaired width /
/// paired width)² × plain time / paired time.
fn pairing(c: &mut Criterion) {
    use warcrunch::analysis::runner::{PairedAsk, Plan, metric_layout, simulate, simulate_paired};
    use warcrunch::scenario::Edit;
    use warcrunch::stats::{paired_difference, unpaired_difference};
    let plan = Plan {
        threads: 1,
        progress: false,
        shard: engine::Shard::WHOLE,
        precision: None,
    };
    for (folder, file, path, value, event) in PAIRING {
        let name = file.trim_end_matches(".toml");
        let file_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(folder)
            .join(file);
        let text = scenario::read_text(&file_path).expect("a bundled scenario reads");
        let keys: Vec<String> = path.split('.').map(str::to_owned).collect();
        let edit = Edit {
            option: path.to_owned(),
            apply: Box::new(move |doc| {
                warcrunch::questions::sweep::apply(doc, &keys, toml::Value::Integer(value))
            }),
        };
        let mut base = scenario::load(&file_path).expect("a bundled scenario loads");
        let mut moved = scenario::load_edited(&file_path, &text, &[edit]).expect("the move loads");
        let trials = match folder {
            "war_cards" => 1_000_000,
            "gurps" => 200_000,
            _ => 50_000,
        };
        for s in [&mut base, &mut moved] {
            s.trials = trials;
            s.seed = 3;
        }
        let target = warcrunch::questions::target::Target::parse(event).expect("an event");
        let event_of = |s: &scenario::Scenario| target.event(&metric_layout(s)).expect("the event");
        let events = vec![vec![event_of(&base)], vec![event_of(&moved)]];
        let done = simulate_paired(
            &[&base, &moved],
            PairedAsk::events(events.clone()),
            &plan,
            None,
        )
        .expect("paired");
        let x = |v: usize| done.event_count(v, &events[v][0]);
        let n = done.trials;
        let paired = paired_difference(n, x(0), x(1), done.both[1][0]);
        let unpaired = unpaired_difference(x(0), n, x(1), n);
        let ratio = (unpaired.high - unpaired.low) / (paired.high - paired.low);
        WIDTH_RATIOS.lock().expect("ratios").push((
            name.to_owned(),
            format!("{path} {} -> {value}", value - 1),
            event.to_owned(),
            ratio,
        ));
        let mut group = c.benchmark_group("pairing");
        group.sample_size(10);
        group.measurement_time(std::time::Duration::from_secs(4));
        for (way, s) in [("plain_base", &base), ("plain_moved", &moved)] {
            register("pairing", &format!("{name}/{way}"), trials, 1);
            group.bench_function(BenchmarkId::new(name, way), |b| {
                b.iter(|| simulate(s, &plan).expect("run"))
            });
        }
        register("pairing", &format!("{name}/paired"), 2 * trials, 1);
        group.bench_function(BenchmarkId::new(name, "paired"), |b| {
            b.iter(|| {
                simulate_paired(
                    &[&base, &moved],
                    PairedAsk::events(events.clone()),
                    &plan,
                    None,
                )
                .expect("paired")
            })
        });
        // As a sweep or compare asks: every numeric outcome's mean paired too.
        let numeric = |s: &scenario::Scenario| -> Vec<usize> {
            (metric_layout(s).iter().enumerate())
                .filter(|(_, m)| m.is_numeric())
                .map(|(i, _)| i)
                .collect()
        };
        let every_mean = PairedAsk {
            events: events.clone(),
            means: vec![numeric(&base), numeric(&moved)],
        };
        register(
            "pairing",
            &format!("{name}/paired_every_mean"),
            2 * trials,
            1,
        );
        group.bench_function(BenchmarkId::new(name, "paired_every_mean"), |b| {
            b.iter(|| {
                simulate_paired(&[&base, &moved], every_mean.clone(), &plan, None).expect("paired")
            })
        });
        group.finish();
    }
}

/// A question of many variants against a plain run of as many battles: a
/// sensitivity of the 7th Sea even field over every knob, its report
/// written, and `run`'s simulation, at 30,000 and 300,000 battles a move,
/// on one thread and on every core.
fn many_variants(c: &mut Criterion) {
    use warcrunch::analysis::runner::simulate;
    use warcrunch::analysis::sensitivity::{prepare, sensitivity};
    use warcrunch::questions::sensitivity::plan::SensitivityRequest;
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/seventh_sea/even_field_battle.toml");
    let out = tempfile::tempdir().expect("a temporary folder");
    let to = destination(&out.path().join("sensitivity"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("many_variants");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(10));
    let resolved = warcrunch::scenario::Resolved::read(&file, &[]).expect("a bundled scenario");
    for trials in [30_000, 300_000] {
        let request = SensitivityRequest {
            target: "side:Montaigne/victory=won".to_owned(),
            knobs: Vec::new(),
            cells: false,
            cell_tables: Vec::new(),
            exact: false,
            min_effect: None,
            trials: Some(trials),
            seed: Some(3),
        };
        // Prepared and fought, as the command does.
        let answer = |plan: &_| {
            prepare(&resolved, &request).and_then(|p| sensitivity(&resolved, p, plan, &to))
        };
        let moves = answer(&plan_of(1)).expect("sensitivity").report.moves.len() as u64;
        let battles = (moves + 1) * trials;
        let mut plain = scenario::load(&file).expect("a bundled scenario loads");
        plain.trials = battles;
        plain.seed = 3;
        for threads in [1, cores] {
            let plan = plan_of(threads);
            // Criterion names a folder by the id, a `/` in it written `_`.
            let id = format!("{trials}_{threads}");
            register(
                "many_variants",
                &format!("even_field_battle/sensitivity_{id}"),
                battles,
                threads,
            );
            group.bench_function(
                BenchmarkId::new("even_field_battle", format!("sensitivity_{id}")),
                |b| b.iter(|| answer(&plan).expect("sensitivity")),
            );
            register(
                "many_variants",
                &format!("even_field_battle/plain_{id}"),
                battles,
                threads,
            );
            group.bench_function(
                BenchmarkId::new("even_field_battle", format!("plain_{id}")),
                |b| b.iter(|| simulate(&plain, &plan).expect("run")),
            );
        }
    }
    group.finish();
}

/// A plan of `threads` threads, no progress bar, the whole run.
fn plan_of(threads: usize) -> warcrunch::analysis::runner::Plan {
    warcrunch::analysis::runner::Plan {
        threads,
        progress: false,
        shard: engine::Shard::WHOLE,
        precision: None,
    }
}

/// Writes a question's report (CSV only) into `out`, replacing it.
fn destination(out: &Path) -> warcrunch::analysis::Destination {
    warcrunch::analysis::Destination {
        out: Some(out.to_path_buf()),
        named_out: None,
        inputs: None,
        large_output: false,
        force: true,
        formats: warcrunch::report::Formats {
            csv: true,
            parquet: false,
            json: false,
        },
    }
}

/// The tunes a designer runs: the GURPS ambush's Survival table toward
/// two goals (its battles have exact odds: the search scores every
/// candidate by them), the 7th Sea even field's Battle Chart toward a
/// Hero's knock-outs and Reputation (sampled), and the three 7th Sea
/// battles together, each on one thread and on every core; throughput is
/// the battles the whole tune fights (search, verification, changes alone).
fn tuning(c: &mut Criterion) {
    use warcrunch::analysis::tune::tune;
    use warcrunch::questions::tune::plan::TuneRequest;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let isabeau = [
        "hero:Isabeau/state=knocked_out <= 45%",
        "hero:Isabeau/reputation:mean >= 9",
    ];
    let tunes: [(&str, &[&str], &[&str], &str); 3] = [
        (
            "ambush_at_the_ford",
            &["scenarios/gurps/ambush_at_the_ford.toml"],
            &[
                "party/any_down_or_dead=yes <= 10%",
                "hero:Varro/state=dead <= 0.5%",
            ],
            "survival",
        ),
        (
            "even_field_battle",
            &["scenarios/seventh_sea/even_field_battle.toml"],
            &isabeau,
            "battle_chart",
        ),
        (
            "three_seventh_sea_battles",
            &[
                "scenarios/seventh_sea/even_field_battle.toml",
                "scenarios/seventh_sea/officer_tips_the_balance.toml",
                "scenarios/seventh_sea/rout_of_a_weaker_army.toml",
            ],
            &isabeau,
            "battle_chart",
        ),
    ];
    let out = tempfile::tempdir().expect("a temporary folder");
    let to = destination(&out.path().join("tune"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("tuning");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(10));
    for (name, files, goals, table) in tunes {
        let scenarios: Vec<warcrunch::scenario::Resolved> = (files.iter())
            .map(|file| {
                warcrunch::scenario::Resolved::read(&root.join(file), &[])
                    .expect("a bundled scenario")
            })
            .collect();
        let request = TuneRequest {
            goals: goals.iter().map(|g| (*g).to_owned()).collect(),
            vary: Vec::new(),
            cell_tables: vec![table.to_owned()],
            freeze: Vec::new(),
            max_changes: None,
            max_steps: None,
            trials: None,
            seed: Some(3),
            verify_trials: None,
            verify_seed: None,
            max_verify_trials: None,
            exact: false,
            allow_disorder: false,
            min_effect: None,
        };
        let mut quiet = |_: (usize, usize), _: &str, _: f64| Ok(());
        let fought = tune(&scenarios, &request, &plan_of(1), &to, &mut quiet)
            .expect("tune")
            .report
            .battles_fought;
        for threads in [1, cores] {
            let plan = plan_of(threads);
            let id = format!("{name}/{threads}");
            register("tuning", &id, fought, threads);
            group.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter(|| tune(&scenarios, &request, &plan, &to, &mut quiet).expect("tune"))
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    rng_floor,
    war_cards_single_core,
    gurps_single_core,
    seventh_sea_single_core,
    engine_scaling,
    engine_overhead,
    streaming,
    pairing,
    many_variants,
    tuning,
    startup
);

fn main() {
    let started = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    if let Some(path) = std::env::var_os("WARCRUNCH_BENCH_JSON") {
        let summary = summary_json(started);
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&summary).expect("json") + "\n",
        )
        .expect("write the bench JSON");
        eprintln!("wrote {}", PathBuf::from(path).display());
    }
}

/// Where criterion keeps its results.
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// Elements per second of a benchmark measured by this run, if it ran.
fn measured(r: &Registered, since: SystemTime) -> Option<f64> {
    let file = criterion_dir()
        .join(&r.group)
        .join(&r.id)
        .join("new/estimates.json");
    let fresh = std::fs::metadata(&file).ok()?.modified().ok()? >= since;
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).ok()?).ok()?;
    let nanos = estimates["mean"]["point_estimate"].as_f64()?;
    fresh.then(|| r.elements as f64 / (nanos * 1e-9))
}

/// The rate of benchmark `id` of `group`, if this run measured it.
fn rate_of(registered: &[Registered], group: &str, id: &str, since: SystemTime) -> Option<f64> {
    registered
        .iter()
        .find(|o| o.group == group && o.id == id)
        .and_then(|o| measured(o, since))
}

/// The numbers of this run: per-core rates beside the RNG floor, scaling.
fn summary_json(since: SystemTime) -> serde_json::Value {
    let registered = REGISTERED.lock().expect("registry");
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let floor = registered
        .iter()
        .find(|r| r.group == "rng_floor")
        .and_then(|r| measured(r, since));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut per_core = Vec::new();
    let mut scaling = Vec::new();
    let mut startup = Vec::new();
    let mut overhead = Vec::new();
    let mut streamed = Vec::new();
    let mut pairing = Vec::new();
    let mut many = Vec::new();
    let mut tunes = Vec::new();
    for r in registered.iter().filter(|r| r.group != "rng_floor") {
        let Some(rate) = measured(r, since) else {
            continue;
        };
        if r.group == "engine_scaling" {
            let (name, _) = r.id.split_once('/').expect("name/threads");
            let one = registered
                .iter()
                .find(|o| o.id == format!("{name}/1"))
                .and_then(|o| measured(o, since));
            scaling.push(serde_json::json!({
                "scenario": name,
                "threads": r.threads,
                "battles_per_second": rate,
                // Against one thread times the cores the threads can use.
                "parallel_efficiency": one.map(|one| rate / (one * r.threads.min(cores) as f64)),
            }));
        } else if r.group == "engine_overhead" {
            let (name, way) = r.id.split_once('/').expect("name/way");
            if way != "simulate" {
                continue;
            }
            let rate_of = |w: &str| rate_of(&registered, &r.group, &format!("{name}/{w}"), since);
            // The engine's share of a battle's time: 1 - simulate-only time / engine time.
            let share = |w: &str| rate_of(w).map(|engine| 1.0 - engine / rate);
            overhead.push(serde_json::json!({
                "scenario": name,
                "simulate_battles_per_second": rate,
                "run_battles_per_second": rate_of("run"),
                "paired_variant_battles_per_second": rate_of("paired"),
                "engine_share_of_time": share("run"),
                "paired_engine_share_of_time": share("paired"),
            }));
        } else if r.group == "streaming" {
            let Some(name) = r.id.strip_suffix("/cli") else {
                continue;
            };
            let workbench = rate_of(&registered, &r.group, &format!("{name}/workbench"), since);
            streamed.push(serde_json::json!({
                "scenario": name,
                "cli_battles_per_second": rate,
                "workbench_battles_per_second": workbench,
                // How much longer the same battles take when streamed.
                "workbench_slowdown": workbench.map(|w| rate / w - 1.0),
            }));
        } else if r.group == "pairing" {
            let Some(name) = r.id.strip_suffix("/paired") else {
                continue;
            };
            let rate_of = |w: &str| rate_of(&registered, &r.group, &format!("{name}/{w}"), since);
            let ratios = WIDTH_RATIOS.lock().expect("ratios");
            let Some((_, change, event, ratio)) = ratios.iter().find(|w| w.0 == name) else {
                continue;
            };
            // Seconds a battle: the two plain runs' mean, the paired run's.
            let plain = rate_of("plain_base")
                .zip(rate_of("plain_moved"))
                .map(|(a, b)| (1.0 / a + 1.0 / b) / 2.0);
            pairing.push(serde_json::json!({
                "scenario": name,
                "change": change,
                "event": event,
                "width_ratio": ratio,
                "plain_battles_per_second": plain.map(|t| 1.0 / t),
                "paired_variant_battles_per_second": rate,
                "efficiency": plain.map(|t| ratio * ratio * t * rate),
                // A battle's time paired against plain: with the one event,
                // and with every numeric outcome's mean paired too.
                "cost_against_plain": plain.map(|t| 1.0 / (rate * t)),
                "cost_against_plain_every_mean": plain
                    .zip(rate_of("paired_every_mean"))
                    .map(|(t, r)| 1.0 / (r * t)),
            }));
        } else if r.group == "many_variants" {
            let Some(rest) = r.id.strip_prefix("even_field_battle/sensitivity_") else {
                continue;
            };
            let plain = rate_of(
                &registered,
                &r.group,
                &format!("even_field_battle/plain_{rest}"),
                since,
            );
            let (per_move, _) = rest.split_once('_').expect("trials_threads");
            many.push(serde_json::json!({
                "scenario": "even_field_battle",
                "question": format!("sensitivity of every knob, {per_move} battles a move"),
                "battles_per_move": per_move.parse::<u64>().ok(),
                "threads": r.threads,
                "battles": r.elements,
                "sensitivity_battles_per_second": rate,
                "plain_battles_per_second": plain,
                "time_against_plain_run": plain.map(|p| p / rate),
            }));
        } else if r.group == "tuning" {
            let (name, _) = r.id.split_once('/').expect("name/threads");
            tunes.push(serde_json::json!({
                "scenario": name,
                "threads": r.threads,
                "battles_fought": r.elements,
                "battles_per_second": rate,
                "wall_seconds": r.elements as f64 / rate,
            }));
        } else if r.group == "startup" {
            startup.push(serde_json::json!({
                "scenario": r.id,
                "load_and_first_battle_ms": 1e3 / rate,
            }));
        } else {
            per_core.push(serde_json::json!({
                "system": r.group,
                "scenario": r.id,
                "battles_per_second_per_core": rate,
                "cost_in_rng_draws": floor.map(|f| f / rate),
            }));
        }
    }
    serde_json::json!({
        "tool_version": env!("CARGO_PKG_VERSION"),
        "machine": {
            "cpu": cpu,
            "logical_cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        },
        "rng_next_u64_per_second": floor,
        "per_core": per_core,
        "scaling": scaling,
        "startup": startup,
        "engine_overhead": overhead,
        "streaming": streamed,
        "pairing": pairing,
        "many_variants": many,
        "tuning": tunes,
    })
}
