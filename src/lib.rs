//! warcrunch: Monte Carlo and exact analysis of tabletop mass-battle rules.
//!
//! A scenario names a system and a battle; the [`engine`] fights it millions
//! of times in reproducible parallel chunks; the [`report`] module writes
//! distributions, summaries, provenance and charts.

pub mod analysis;
pub mod bundled;
pub mod cli;
pub mod command_line;
pub mod commands;
pub mod compare;
pub mod dice;
pub mod embedded;
pub mod engine;
pub mod format;
pub mod histograms;
pub mod input_file;
pub mod inverse;
pub mod paired;
pub mod paired_mean;
pub mod ranges;
pub mod recommend;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod sensitivity;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod stream;
pub mod sweep;
pub mod systems;
pub mod tables;
pub mod target;
pub mod toml_path;
pub mod usage;
pub mod validate;
