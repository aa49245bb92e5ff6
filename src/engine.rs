//! The Monte Carlo engine, generic over a battle system.
//!
//! Trials are cut into chunks of [`CHUNK_SIZE`]. Chunk *i* draws from its own
//! Xoshiro256++ stream: the seed's stream jumped ahead *i* times by 2^128
//! steps (`jump()`), so streams never overlap. Chunks run
//! on a rayon pool in batches; each chunk fills its own integer tally and the
//! tallies are merged in chunk order. The result depends only on the seed and
//! the number of trials, never on the thread count, and memory stays flat
//! whatever the number of trials.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// The random stream every system draws from.
pub type BattleRng = Xoshiro256PlusPlus;

/// Trials per chunk. Part of the reproducibility contract: changing it
/// changes every result, so it is written into `run.json`.
pub const CHUNK_SIZE: u64 = 16_384;

/// Chunks handed to the pool at a time; only bounds memory and progress
/// granularity, never results.
const BATCH_CHUNKS: u64 = 256;

/// The largest run accepted: well inside u64 counts for every metric.
pub const MAX_TRIALS: u64 = 1_000_000_000_000_000;

/// Set by the Ctrl-C handler; runs stop at the next chunk and report it.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every running simulation to stop (what Ctrl-C does).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// A battle system: rules and tables that can fight one battle at a time.
pub trait System: Sync {
    /// What one battle produced.
    type Outcome;
    /// Integer counts of outcomes.
    type Tally: Tally<Self::Outcome>;

    /// An empty tally sized for this system's metrics.
    fn new_tally(&self) -> Self::Tally;

    /// Fights one battle.
    fn simulate<R: rand::Rng>(&self, rng: &mut R) -> Self::Outcome;
}

/// Counts outcomes; two tallies of disjoint trials merge into one.
pub trait Tally<O>: Send {
    /// Counts one outcome.
    fn record(&mut self, outcome: &O);
    /// Adds another tally's counts into this one.
    fn merge(&mut self, other: Self);
}

/// How to run a batch of trials.
#[derive(Debug, Clone, Copy)]
pub struct RunSettings {
    /// Seed of the master stream.
    pub seed: u64,
    /// Number of battles.
    pub trials: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Show a progress bar on stderr once the run takes more than a moment.
    pub progress: bool,
}

/// The merged tally of a run and how it went.
#[derive(Debug)]
pub struct RunOutput<T> {
    /// Counts over every trial.
    pub tally: T,
    /// Threads actually used.
    pub threads: usize,
    /// Wall-clock time of the simulation.
    pub elapsed: Duration,
}

/// The streams of chunks 0, 1, 2, ...: the seed's stream, then each one
/// jumped 2^128 steps past the previous (one `jump()`, about 0.2 µs, each).
#[derive(Debug, Clone)]
pub struct ChunkStreams {
    next: BattleRng,
}

impl ChunkStreams {
    /// The streams of a seed, from chunk 0.
    pub fn new(seed: u64) -> Self {
        ChunkStreams {
            next: BattleRng::seed_from_u64(seed),
        }
    }
}

impl Iterator for ChunkStreams {
    type Item = BattleRng;

    fn next(&mut self) -> Option<BattleRng> {
        let stream = self.next.clone();
        self.next.jump();
        Some(stream)
    }
}

/// Runs `settings.trials` battles of `system` and returns the merged tally.
pub fn run<S: System>(system: &S, settings: RunSettings) -> Result<RunOutput<S::Tally>> {
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
    let progress =
        ProgressBar::with_draw_target(Some(settings.trials), ProgressDrawTarget::hidden());
    progress.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {percent}% {human_pos}/{human_len} battles, ETA {eta}",
        )
        .expect("valid progress template"),
    );
    let started = Instant::now();
    let chunks = settings.trials.div_ceil(CHUNK_SIZE);
    let mut tally = system.new_tally();
    let mut streams = ChunkStreams::new(settings.seed);
    let mut next_chunk = 0;
    while next_chunk < chunks {
        let batch_end = (next_chunk + BATCH_CHUNKS).min(chunks);
        let batch: Vec<(u64, BattleRng)> = (next_chunk..batch_end).zip(&mut streams).collect();
        let partials: Vec<S::Tally> = pool.install(|| {
            batch
                .into_par_iter()
                .map(|(index, rng)| {
                    if INTERRUPTED.load(Ordering::Relaxed) {
                        return system.new_tally();
                    }
                    let len = chunk_len(settings.trials, index);
                    let partial = run_chunk(system, rng, len);
                    progress.inc(len);
                    partial
                })
                .collect()
        });
        if INTERRUPTED.load(Ordering::SeqCst) {
            progress.finish_and_clear();
            bail!(
                "interrupted after {} of {} battles; nothing was written and earlier results are untouched",
                next_chunk * CHUNK_SIZE,
                settings.trials
            );
        }
        for partial in partials {
            tally.merge(partial);
        }
        next_chunk = batch_end;
        if settings.progress
            && progress.is_hidden()
            && started.elapsed() > Duration::from_millis(300)
        {
            progress.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
    progress.finish_and_clear();
    Ok(RunOutput {
        tally,
        threads,
        elapsed: started.elapsed(),
    })
}

/// Number of trials in chunk `index` of a run of `trials`.
fn chunk_len(trials: u64, index: u64) -> u64 {
    CHUNK_SIZE.min(trials - index * CHUNK_SIZE)
}

/// Runs `len` battles on one chunk's stream.
pub fn run_chunk<S: System>(system: &S, mut rng: BattleRng, len: u64) -> S::Tally {
    let mut tally = system.new_tally();
    for _ in 0..len {
        let outcome = system.simulate(&mut rng);
        tally.record(&outcome);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// A coin: counts heads.
    struct Coin;
    #[derive(Default, Debug, PartialEq)]
    struct Heads(u64, u64);
    impl Tally<bool> for Heads {
        fn record(&mut self, heads: &bool) {
            self.0 += u64::from(*heads);
            self.1 += 1;
        }
        fn merge(&mut self, other: Self) {
            self.0 += other.0;
            self.1 += other.1;
        }
    }
    impl System for Coin {
        type Outcome = bool;
        type Tally = Heads;
        fn new_tally(&self) -> Heads {
            Heads::default()
        }
        fn simulate<R: Rng>(&self, rng: &mut R) -> bool {
            rng.next_u64() >> 63 == 1
        }
    }

    fn settings(trials: u64, threads: usize) -> RunSettings {
        RunSettings {
            seed: 42,
            trials,
            threads,
            progress: false,
        }
    }

    #[test]
    fn chunk_streams_are_successive_jumps() {
        let mut a = BattleRng::seed_from_u64(9);
        let mut streams = ChunkStreams::new(9);
        assert_eq!(streams.next().unwrap().next_u64(), a.clone().next_u64());
        a.jump();
        a.jump();
        let mut third = streams.nth(1).unwrap();
        assert_eq!(third.next_u64(), a.next_u64());
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
    fn zero_and_huge_trials_are_refused() {
        assert!(run(&Coin, settings(0, 1)).is_err());
        assert!(run(&Coin, settings(MAX_TRIALS + 1, 1)).is_err());
    }
}
