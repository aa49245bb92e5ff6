//! The Monte Carlo engine, generic over a battle system.
//!
//! Trials are cut into chunks of [`CHUNK_SIZE`]; battle *n* of a run fights
//! on its own window of random numbers ([`crate::engine::stream`]), whichever chunk,
//! thread, shard or variant of a paired run fights it. Chunks run on a
//! rayon pool in batches; each worker counts its chunks into an integer
//! tally of its own, merged as they finish (integer counts merge exactly, in
//! any grouping). The result depends only on the seed and the number of
//! trials, never on the thread count, and memory stays flat whatever the
//! number of trials: a few tallies are alive at a time.
//!
//! Its files: the random streams ([`stream`]), the tallies ([`histograms`]),
//! dice and laws drawn by their inverse ([`dice`], [`inverse`]), and the
//! paired engine that fights each battle in every variant ([`paired`]).

pub mod dice;
pub mod histograms;
pub mod inverse;
pub mod paired;
pub mod stream;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::engine::stream::BattleStream;

/// The version of how a run reads its random numbers: the chunks'
/// streams, the battle streams of paired runs and how each system turns
/// numbers into draws. Any change that moves a result with the same seed
/// bumps it; `run.json` records it and `merge` joins only parts that agree.
/// Version 2: paired runs fight battle *n* on its own window of one
/// SplitMix64 sequence. Version 3: war-cards volleys, deck draws and
/// rallies fought by the engagement's table, cards as digits of shared
/// numbers. Version 4: plain runs fight on the battle windows too (a run
/// is the base of a comparison, count for count); GURPS reads its window
/// by address (day, PC, roll), each roll drawn by the inverse of its law.
pub const STREAM_LAYOUT: u32 = 4;

/// Trials per chunk. Part of the reproducibility contract: changing it
/// changes every result, so it is written into `run.json`.
pub const CHUNK_SIZE: u64 = 16_384;

/// Chunks handed to the pool at a time; only bounds memory and progress
/// granularity, never results.
const BATCH_CHUNKS: u64 = 256;

/// The largest run accepted: as many battles as the windows number (2^44,
/// well inside u64 counts for every metric).
pub const MAX_TRIALS: u64 = crate::engine::stream::MAX_BATTLES;

/// The fewest battles a worker fights between two looks at the stop flag.
const MIN_PIECE: u64 = 256;

/// The most battles a precision run takes unless asked otherwise.
pub const DEFAULT_PRECISION_MAX_TRIALS: u64 = 1_000_000_000;

/// Set by the Ctrl-C (and SIGTERM) handler; runs stop within a piece of
/// battles and report it.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every running simulation to stop (what Ctrl-C and SIGTERM do);
/// `true` when it had been asked already.
pub fn interrupt() -> bool {
    INTERRUPTED.swap(true, Ordering::SeqCst)
}

/// Whether this thread's work was asked to stop: Ctrl-C or SIGTERM, or
/// its request's [`Scope`] stopped. Work that fights no battle (an exact
/// search) asks this between its rounds.
pub fn stop_asked() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
        || SCOPE.with(|s| s.borrow().as_ref().is_some_and(|s| s.stopped()))
}

/// What stops or limits the simulations one request starts (a server's
/// run or question): its own stop flag, beside Ctrl-C, and its battle
/// budget, spent by every simulation it starts (variants × battles,
/// probes × battles, moves × battles).
#[derive(Debug)]
pub struct Scope {
    stop: AtomicBool,
    budget: u64,
    left: AtomicU64,
    fought: AtomicU64,
}

impl Scope {
    /// A scope that may fight at most `budget` battles in all.
    pub fn new(budget: u64) -> Scope {
        Scope {
            stop: AtomicBool::new(false),
            budget,
            left: AtomicU64::new(budget),
            fought: AtomicU64::new(0),
        }
    }

    /// Battles its simulations have set out to fight so far (a later
    /// simulation of the scope, a solve's next probe, adds to it).
    pub fn planned(&self) -> u64 {
        self.budget - self.left.load(Ordering::SeqCst)
    }

    /// Battles its simulations have fought so far.
    pub fn fought(&self) -> u64 {
        self.fought.load(Ordering::Relaxed)
    }

    /// Asks every simulation of the scope to stop within a piece of battles.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether the scope was asked to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Runs `work` on this thread inside the scope: every simulation it
    /// starts here stops when the scope is stopped and spends its budget.
    pub fn enter<R>(self: &Arc<Scope>, work: impl FnOnce() -> R) -> R {
        struct Leave(Option<Arc<Scope>>);
        impl Drop for Leave {
            fn drop(&mut self) {
                SCOPE.with(|s| *s.borrow_mut() = self.0.take());
            }
        }
        let outer = SCOPE.with(|s| s.borrow_mut().replace(self.clone()));
        let _leave = Leave(outer);
        work()
    }

    /// Takes `battles` from the budget, or says the request is over it.
    fn spend(&self, battles: u64) -> Result<()> {
        self.left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(battles)
            })
            .map(drop)
            .map_err(|left| {
                anyhow::anyhow!(
                    "this request would fight more than this server's cap of {} battles \
                     in all (variants × battles, probes × battles); {} are left and the \
                     next simulation needs {battles}: ask fewer battles or fewer variants",
                    self.budget,
                    left
                )
            })
    }
}

thread_local! {
    /// The scope simulations started on this thread belong to.
    static SCOPE: std::cell::RefCell<Option<Arc<Scope>>> = const { std::cell::RefCell::new(None) };
}

/// The error of a run stopped by Ctrl-C.
#[derive(Debug, thiserror::Error)]
#[error("interrupted after {done} of {planned} battles had finished")]
pub struct Interrupted {
    /// Battles of completed batches.
    pub done: u64,
    /// Battles the run was to simulate.
    pub planned: u64,
}

/// The most parts a battle's outcome splits into ([`System::part_bounds`]).
pub const MAX_PARTS: usize = 4;

/// A battle's parts, as [`System::fight_parts`] gives them.
pub type Parts = [u32; MAX_PARTS];

/// A battle system: rules and tables that can fight one battle at a time.
pub trait System: Sync {
    /// What one battle produced.
    type Outcome;
    /// Integer counts of outcomes.
    type Tally: Tally<Self::Outcome>;

    /// An empty tally sized for this system's metrics.
    fn new_tally(&self) -> Self::Tally;

    /// Battles fought per trial: 1, or the variants fought in lockstep on
    /// each trial's stream (what a [`Scope`]'s budget counts).
    fn battles_per_trial(&self) -> u64 {
        1
    }

    /// Fights one battle on its window of random numbers, read in turn or
    /// by address ([`crate::engine::stream`]). Whatever the battle hands the stream
    /// to should be inlined, so its state stays in a register.
    fn simulate(&self, rng: &mut BattleStream) -> Self::Outcome;

    /// The parts a battle's outcome splits into (at most [`MAX_PARTS`]),
    /// each a number below its bound, where the system can fight a battle
    /// to them directly
    /// ([`System::fight_parts`]) and count each part alone
    /// ([`System::record_part`]): the paired engine then counts pairs of
    /// variants' parts, a few counts a battle, instead of bit-masked blocks
    /// of whole outcomes. `None` (the default): it cannot.
    fn part_bounds(&self) -> Option<Vec<usize>> {
        None
    }

    /// Fights one battle on `window` to its parts (part `p` below bound
    /// `p` of [`System::part_bounds`], the parts past them 0), on the
    /// numbers [`System::simulate`] reads. Called only where the system
    /// has parts.
    fn fight_parts(&self, window: &mut BattleStream) -> Parts {
        let _ = window;
        unreachable!("fight_parts on a system without parts");
    }

    /// Adds `weight` to every count part `part` at `value` falls in: a
    /// battle's parts, each recorded, count what its outcome does. Called
    /// only where the system has parts.
    fn record_part(&self, tally: &mut Self::Tally, part: usize, value: u32, weight: u64) {
        let _ = (tally, part, value, weight);
        unreachable!("record_part on a system without parts");
    }

    /// Fights a chunk's battles, each on its window, counting each into
    /// `tally`: the engine's inner loop. A system that can count a battle
    /// without handing its outcome back (variants fought in lockstep)
    /// overrides it.
    #[inline]
    fn fight_into(&self, chunk: Chunk, tally: &mut Self::Tally) {
        for mut window in chunk.windows() {
            tally.record(&self.simulate(&mut window));
        }
    }
}

/// Counts outcomes; two tallies of disjoint trials merge into one. Counts
/// are integers, so merging is exact and the same in any grouping or
/// order: a run's tally does not depend on which thread ran which chunk.
/// A clone of an empty tally is the cheap way to another (a system's
/// [`Histograms`](crate::engine::histograms::Histograms) share their
/// declaration among clones): variants in lockstep clone theirs for each
/// worker.
pub trait Tally<O>: Send + Sync + Clone {
    /// Counts one outcome: [`record_weighted`] with weight 1, unless a
    /// tally counts single outcomes another way.
    ///
    /// [`record_weighted`]: Tally::record_weighted
    #[inline]
    fn record(&mut self, outcome: &O) {
        self.record_weighted(outcome, 1);
    }
    /// Adds `weight` to every bin the outcome falls in, where [`record`]
    /// adds 1 (paired runs give battle *j* of a block the weight `1 << j`).
    ///
    /// [`record`]: Tally::record
    fn record_weighted(&mut self, outcome: &O, weight: u64);
    /// Adds another tally's counts into this one (a tally of the same
    /// battle): count by count, in [`for_each_slice`] order, so a tally
    /// lists its counts once, there.
    ///
    /// [`for_each_slice`]: Tally::for_each_slice
    fn merge(&mut self, mut other: Self)
    where
        Self: Sized,
    {
        let mut theirs = Vec::new();
        other.for_each_slice(|run| theirs.extend_from_slice(run));
        let mut at = 0;
        self.for_each_slice(|run| {
            for (mine, &added) in run.iter_mut().zip(&theirs[at..]) {
                *mine += added;
            }
            at += run.len();
        });
        assert_eq!(at, theirs.len(), "two tallies of one battle");
    }
    /// Visits every count the tally holds, a run of neighbouring counts at
    /// a time, in a fixed order (merging, and paired runs reading and
    /// clearing a block's bit masks, skipping the empty ones a few at a
    /// time).
    fn for_each_slice(&mut self, visit: impl FnMut(&mut [u64]));
    /// Whether every histogram counted every battle once (a system's
    /// [`Histograms`](crate::engine::histograms::Histograms) can tell; checked at
    /// the end of every run).
    fn counted_once_each(&self) -> bool {
        true
    }
}

/// One chunk of a run, as a system fights it: where its battles sit among
/// the run's, which says their windows.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// The run's seed.
    pub seed: u64,
    /// The number of the chunk's first battle in the run, from 0.
    pub first: u64,
    /// Battles in the chunk.
    pub len: u64,
}

impl Chunk {
    /// Each battle's window, in turn, standing at its start.
    #[inline(always)]
    pub fn windows(&self) -> impl Iterator<Item = BattleStream> + use<> {
        let first = BattleStream::battle(self.seed, self.first);
        (0..self.len).scan(first, |window, _| {
            let this = window.clone();
            *window = window.next_battle();
            Some(this)
        })
    }
}

/// Which part of a run's chunks to simulate: shard `index` of `count`
/// (counting from 0) takes a contiguous block of about `1/count` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// This shard, from 0 to `count - 1`.
    pub index: u64,
    /// Shards the run is split into.
    pub count: u64,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `i/n` (i counts from 0), e.g. `--shard 2/4`.
    pub fn parse(text: &str) -> Result<Shard> {
        let parsed = text.split_once('/').and_then(|(i, n)| {
            Some((i.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?))
        });
        match parsed {
            Some((index, count)) if count >= 1 && index < count => Ok(Shard { index, count }),
            Some((_, count)) => bail!(
                "the shard index counts from 0 and must be below the number of shards (allowed: 0/{n} to {m}/{n})",
                n = count.max(1),
                m = count.max(1) - 1
            ),
            None => {
                bail!("not I/N; e.g. --shard 0/4 for the first of four shards")
            }
        }
    }

    /// The battles of a run of `trials` battles this shard simulates.
    pub fn battles(self, trials: u64) -> u64 {
        let chunks = self.chunks(trials.div_ceil(CHUNK_SIZE));
        (chunks.end * CHUNK_SIZE).min(trials) - (chunks.start * CHUNK_SIZE).min(trials)
    }

    /// The chunks of a run of `chunks` chunks this shard simulates.
    pub fn chunks(self, chunks: u64) -> std::ops::Range<u64> {
        let bound = |i: u64| (u128::from(chunks) * u128::from(i) / u128::from(self.count)) as u64;
        bound(self.index)..bound(self.index + 1)
    }
}

/// How to run a batch of trials.
#[derive(Debug, Clone, Copy)]
pub struct RunSettings {
    /// Seed of the master stream.
    pub seed: u64,
    /// Number of battles of the whole run (the most, for an adaptive run).
    pub trials: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Show a progress bar on stderr once the run takes more than a moment.
    pub progress: bool,
    /// The part of the run to simulate.
    pub shard: Shard,
}

impl RunSettings {
    /// A whole run of `trials` battles on every core, without a progress bar.
    pub fn new(seed: u64, trials: u64) -> Self {
        RunSettings {
            seed,
            trials,
            threads: 0,
            progress: false,
            shard: Shard::WHOLE,
        }
    }
}

/// The merged tally of a run and how it went.
#[derive(Debug)]
pub struct RunOutput<T> {
    /// Counts over every trial.
    pub tally: T,
    /// Battles simulated.
    pub trials: u64,
    /// Whether the stopping rule ended the run before `settings.trials`.
    pub stopped_early: bool,
    /// Threads actually used.
    pub threads: usize,
    /// Wall-clock time of the simulation.
    pub elapsed: Duration,
}

/// Where the stopping rule of [`run_until`] is asked: after 1, 2, 4, ...
/// [`BATCH_CHUNKS`] chunks, then after every further [`BATCH_CHUNKS`].
/// Fixed, so a run stops at the same chunk whatever the thread count.
pub fn next_checkpoint(done: u64) -> u64 {
    if done < BATCH_CHUNKS {
        (2 * done).clamp(1, BATCH_CHUNKS)
    } else {
        done + BATCH_CHUNKS
    }
}

/// Runs `settings.trials` battles of `system` (or its shard of them) and
/// returns the merged tally.
pub fn run<S: System>(system: &S, settings: RunSettings) -> Result<RunOutput<S::Tally>> {
    run_batches(
        system,
        settings,
        |done, _| done + BATCH_CHUNKS,
        |_, _| false,
    )
}

/// Where a watched run of a fixed number of battles shows its counts: after
/// one chunk per thread, then after four times as many chunks as done, at
/// most [`BATCH_CHUNKS`] apart. Each checkpoint makes the threads wait for
/// the slowest, so a streamed run has few of them; the chunks, and so the
/// counts, are the same whatever the checkpoints.
pub fn watched_checkpoint(done: u64, threads: usize) -> u64 {
    if done == 0 {
        threads.max(1) as u64
    } else {
        (4 * done).min(done + BATCH_CHUNKS)
    }
}

/// Like [`run`], showing `enough(tally, trials so far)` the counts at every
/// [`watched_checkpoint`]; stops once it says yes.
pub fn run_watched<S: System>(
    system: &S,
    settings: RunSettings,
    enough: impl FnMut(&S::Tally, u64) -> bool,
) -> Result<RunOutput<S::Tally>> {
    run_batches(system, settings, watched_checkpoint, enough)
}

/// Like [`run`], but asks `enough(tally, trials so far)` at every
/// [`next_checkpoint`] and stops once it says yes.
pub fn run_until<S: System>(
    system: &S,
    settings: RunSettings,
    enough: impl FnMut(&S::Tally, u64) -> bool,
) -> Result<RunOutput<S::Tally>> {
    run_batches(system, settings, |done, _| next_checkpoint(done), enough)
}

/// Runs the shard's chunks in batches ending where `batch_end(chunks done,
/// threads)` says, asking `enough` after each batch.
fn run_batches<S: System>(
    system: &S,
    settings: RunSettings,
    batch_end: impl Fn(u64, usize) -> u64,
    mut enough: impl FnMut(&S::Tally, u64) -> bool,
) -> Result<RunOutput<S::Tally>> {
    if settings.trials == 0 {
        bail!("trials must be at least 1");
    }
    if settings.trials > MAX_TRIALS {
        bail!(
            "trials = {} is more than this tool accepts (at most {MAX_TRIALS})",
            settings.trials
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        .build()
        .context("could not start the worker threads")?;
    let threads = pool.current_num_threads();
    let chunks = settings.shard.chunks(settings.trials.div_ceil(CHUNK_SIZE));
    let planned: u64 = chunks.clone().map(|i| chunk_len(settings.trials, i)).sum();
    let scope = SCOPE.with(|s| s.borrow().clone());
    if let Some(scope) = &scope {
        scope.spend(planned.saturating_mul(system.battles_per_trial()))?;
    }
    let stopped =
        || INTERRUPTED.load(Ordering::SeqCst) || scope.as_ref().is_some_and(|s| s.stopped());
    let piece_len = (CHUNK_SIZE / system.battles_per_trial().max(1)).max(MIN_PIECE);
    let progress = ProgressBar::with_draw_target(Some(planned), ProgressDrawTarget::hidden());
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {percent}% {human_pos}/{human_len} battles, ETA {eta}",
        )
        .expect("valid progress template"),
    );
    let started = Instant::now();
    let mut tally = system.new_tally();
    let mut done = 0;
    let mut stopped_early = false;
    let mut next_chunk = chunks.start;
    while next_chunk < chunks.end {
        let batch_end =
            (chunks.start + batch_end(next_chunk - chunks.start, threads)).min(chunks.end);
        // Each chunk in pieces of about a chunk's worth of battles (many
        // variants in lockstep make a chunk long), the pieces shared among
        // the workers: a stop takes effect within one piece, and a run of
        // few chunks but many variants still keeps every thread busy.
        // Battles are addressed by their index and counts are sums, so the
        // pieces add up to the chunks whoever fights them.
        let pieces: Vec<Chunk> = (next_chunk..batch_end)
            .flat_map(|index| {
                let first = index * CHUNK_SIZE;
                let end = first + chunk_len(settings.trials, index);
                (first..end)
                    .step_by(piece_len as usize)
                    .map(move |at| Chunk {
                        seed: settings.seed,
                        first: at,
                        len: piece_len.min(end - at),
                    })
            })
            .collect();
        // Each worker counts its pieces into a tally of its own, merged as
        // they finish: a few tallies alive at a time, however many pieces a
        // batch holds (a 7th Sea tally is tens of kilobytes).
        // Two runs of pieces a thread at most: each run is one tally.
        let run_len = pieces.len().div_ceil(2 * threads).max(1);
        let batch_tally = pool.install(|| {
            pieces
                .into_par_iter()
                .with_min_len(run_len)
                .fold(
                    || system.new_tally(),
                    |mut partial, piece| {
                        if !stopped() {
                            let len = piece.len;
                            system.fight_into(piece, &mut partial);
                            progress.inc(len);
                            if let Some(scope) = &scope {
                                let battles = len.saturating_mul(system.battles_per_trial());
                                scope.fought.fetch_add(battles, Ordering::Relaxed);
                            }
                        }
                        partial
                    },
                )
                // `reduce_with`: no empty tally made to merge each run into.
                .reduce_with(|mut left, right| {
                    left.merge(right);
                    left
                })
        });
        if stopped() {
            progress.finish_and_clear();
            return Err(Interrupted { done, planned }.into());
        }
        if let Some(batch_tally) = batch_tally {
            tally.merge(batch_tally);
        }
        done += (next_chunk..batch_end)
            .map(|i| chunk_len(settings.trials, i))
            .sum::<u64>();
        next_chunk = batch_end;
        if next_chunk < chunks.end && enough(&tally, done) {
            stopped_early = true;
            break;
        }
        if settings.progress
            && progress.is_hidden()
            && started.elapsed() > Duration::from_millis(300)
        {
            progress.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
    progress.finish_and_clear();
    ensure!(
        tally.counted_once_each(),
        "internal error: a histogram of this battle counted a value past its last bin (the system sized it too small); please report it with the scenario"
    );
    Ok(RunOutput {
        tally,
        trials: done,
        stopped_early,
        threads,
        elapsed: started.elapsed(),
    })
}

/// Number of trials in chunk `index` of a run of `trials`.
fn chunk_len(trials: u64, index: u64) -> u64 {
    CHUNK_SIZE.min(trials - index * CHUNK_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;
    use std::sync::atomic::AtomicUsize;

    /// A coin: counts heads.
    struct Coin;
    #[derive(Default, Debug, PartialEq, Clone)]
    struct Heads(u64, u64);
    impl Tally<bool> for Heads {
        fn record(&mut self, heads: &bool) {
            self.record_weighted(heads, 1);
        }
        fn record_weighted(&mut self, heads: &bool, weight: u64) {
            self.0 += u64::from(*heads) * weight;
            self.1 += weight;
        }
        fn for_each_slice(&mut self, mut visit: impl FnMut(&mut [u64])) {
            visit(std::slice::from_mut(&mut self.0));
            visit(std::slice::from_mut(&mut self.1));
        }
    }
    impl System for Coin {
        type Outcome = bool;
        type Tally = Heads;
        fn new_tally(&self) -> Heads {
            Heads::default()
        }
        fn simulate(&self, rng: &mut BattleStream) -> bool {
            rng.next_u64() >> 63 == 1
        }
    }

    fn settings(trials: u64, threads: usize) -> RunSettings {
        RunSettings {
            threads,
            ..RunSettings::new(42, trials)
        }
    }

    #[test]
    fn battle_n_of_a_run_fights_on_window_n() {
        // Battles 0, 1 and the first of the second chunk, each a coin on
        // the first number of its window.
        let coin = |n: u64| BattleStream::battle(42, n).next_u64() >> 63;
        let mut tally = Heads::default();
        let chunk = |first, len| Chunk {
            seed: 42,
            first,
            len,
        };
        Coin.fight_into(chunk(0, 2), &mut tally);
        assert_eq!(tally, Heads(coin(0) + coin(1), 2));
        let mut tally = Heads::default();
        Coin.fight_into(chunk(CHUNK_SIZE, 1), &mut tally);
        assert_eq!(tally, Heads(coin(CHUNK_SIZE), 1));
    }

    #[test]
    fn every_trial_is_counted_once_across_partial_chunks() {
        let trials = 3 * CHUNK_SIZE + 17;
        let out = run(&Coin, settings(trials, 2)).unwrap();
        assert_eq!(out.tally.1, trials);
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let trials = 40 * CHUNK_SIZE + 5;
        let one = run(&Coin, settings(trials, 1)).unwrap().tally;
        let four = run(&Coin, settings(trials, 4)).unwrap().tally;
        assert_eq!(one, four);
    }

    #[test]
    fn shards_cover_every_chunk_once_and_add_up_to_the_whole() {
        let trials = 37 * CHUNK_SIZE + 9;
        let whole = run(&Coin, settings(trials, 2)).unwrap().tally;
        for count in [1, 2, 3, 5, 38, 50] {
            let mut union = Heads::default();
            let mut next = 0;
            for index in 0..count {
                let shard = Shard { index, count };
                let range = shard.chunks(38);
                assert_eq!(range.start, next, "shards {count} leave no gap");
                next = range.end;
                let part = RunSettings {
                    shard,
                    ..settings(trials, 1)
                };
                if !range.is_empty() {
                    union.merge(run(&Coin, part).unwrap().tally);
                }
            }
            assert_eq!(next, 38);
            assert_eq!(union, whole, "{count} shards");
        }
    }

    #[test]
    fn shard_parsing_checks_the_index() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        for bad in ["4/4", "1/0", "x/2", "3", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_stopping_rule_stops_at_a_checkpoint_whatever_the_threads() {
        let trials = 600 * CHUNK_SIZE;
        let stop = |t: &Heads, _: u64| t.1 >= 5 * CHUNK_SIZE;
        let one = run_until(&Coin, settings(trials, 1), stop).unwrap();
        let three = run_until(&Coin, settings(trials, 3), stop).unwrap();
        assert!(one.stopped_early);
        assert_eq!(one.trials, 8 * CHUNK_SIZE, "checkpoints 1, 2, 4, 8 chunks");
        assert_eq!(one.tally, three.tally);
        assert_eq!(one.tally.1, one.trials);
        assert_eq!(next_checkpoint(BATCH_CHUNKS), 2 * BATCH_CHUNKS);
    }

    /// Tallies alive now, and the most at once (only the test below makes them).
    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static MOST_LIVE: AtomicUsize = AtomicUsize::new(0);

    /// A coin whose tallies count themselves.
    struct CountedCoin;
    struct Counted(Heads);
    impl Clone for Counted {
        fn clone(&self) -> Counted {
            let mut copy = Counted::new();
            copy.0 = self.0.clone();
            copy
        }
    }
    impl Counted {
        fn new() -> Counted {
            let live = LIVE.fetch_add(1, Ordering::SeqCst) + 1;
            MOST_LIVE.fetch_max(live, Ordering::SeqCst);
            Counted(Heads::default())
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
    impl Tally<bool> for Counted {
        fn record(&mut self, heads: &bool) {
            self.0.record(heads);
        }
        fn record_weighted(&mut self, heads: &bool, weight: u64) {
            self.0.record_weighted(heads, weight);
        }
        fn merge(&mut self, mut other: Self) {
            self.0.merge(std::mem::take(&mut other.0));
        }
        fn for_each_slice(&mut self, visit: impl FnMut(&mut [u64])) {
            self.0.for_each_slice(visit);
        }
    }
    impl System for CountedCoin {
        type Outcome = bool;
        type Tally = Counted;
        fn new_tally(&self) -> Counted {
            Counted::new()
        }
        fn simulate(&self, rng: &mut BattleStream) -> bool {
            Coin.simulate(rng)
        }
    }

    #[test]
    fn a_batch_keeps_a_few_tallies_alive_not_one_per_chunk() {
        // Memory must not grow with trials: a batch of 256 chunks used to
        // hold 256 tallies (tens of kilobytes each for 7th Sea) at once.
        let trials = 2 * BATCH_CHUNKS * CHUNK_SIZE;
        let out = run(&CountedCoin, settings(trials, 2)).unwrap();
        assert_eq!(out.tally.0.1, trials);
        let most = MOST_LIVE.load(Ordering::SeqCst);
        assert!(
            most <= 64,
            "{most} tallies alive at once for a batch of {BATCH_CHUNKS} chunks"
        );
        assert_eq!(out.tally.0, run(&Coin, settings(trials, 1)).unwrap().tally);
    }

    #[test]
    fn zero_and_huge_trials_are_refused() {
        assert!(run(&Coin, settings(0, 1)).is_err());
        assert!(run(&Coin, settings(MAX_TRIALS + 1, 1)).is_err());
    }
}
