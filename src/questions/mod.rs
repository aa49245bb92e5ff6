//! What a user asks, in its own terms, before anything is simulated: the
//! outcomes and events a target names ([`target`]), the settings and grid
//! of a sweep ([`sweep`]), the search of a solve ([`solve`]), the knobs and
//! moves of a sensitivity ([`sensitivity`]) and the count of the cells a
//! battle reads ([`usage`]). `analysis/` answers these questions on the
//! engine and `report/` writes the answers; this layer imports neither.

pub mod sensitivity;
pub mod solve;
pub mod sweep;
pub mod target;
pub mod tune;
pub mod usage;
