//! Integration tests, one binary (as ripgrep does): modules by concern.

mod answers;
mod architecture;
mod browser;
mod cli;
mod deck_seed;
mod docs;
mod exact;
mod gurps;
mod knobs;
mod nothing_wrong;
mod paired;
mod properties;
mod publish;
mod report;
mod reproducibility;
mod scale;
mod schema;
mod serve;
mod seventh_sea;
mod table_cells;
mod table_compare;
mod table_kinds;
mod targets;
mod truth;
mod usage;
mod util;
