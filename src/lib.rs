//! warcrunch: Monte Carlo and exact analysis of tabletop mass-battle rules.
//!
//! The folders, from the bottom up (each uses only folders listed before
//! it; `tests/architecture.rs` keeps it so):
//!
//! - [`stats`]: intervals, tests, recommendations and number formatting,
//!   from integer counts;
//! - [`engine`]: the random streams, dice and laws, tallies, and the
//!   engines that fight a battle millions of times (one scenario, or every
//!   variant of one on the same battles);
//! - [`tables`]: rule tables and what reading them takes;
//! - [`questions`]: what a user asks, in its own terms;
//! - [`systems`]: the battle systems, each behind one contract;
//! - [`report`]: every file a run writes;
//! - [`scenario`]: scenario files, the bundled battles and the schemas;
//! - [`analysis`]: each question answered on the engine, as a library call;
//! - [`cli`], [`commands`] and [`serve`]: the command line and the
//!   workbench's server, which map what a user typed or posted onto those
//!   calls.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod engine;
pub mod questions;
pub mod report;
pub mod scenario;
pub mod serve;
pub mod stats;
pub mod systems;
pub mod tables;
