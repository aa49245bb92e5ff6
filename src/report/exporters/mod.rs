//! One file format each: CSV tables (`csv`), `run.json` (`json`), a
//! shard's partial counts (`partial`) and the key outcomes a format lists
//! (`key_outcomes`). They draw on the kit only.

pub mod csv;
pub mod json;
pub mod key_outcomes;
pub mod partial;
