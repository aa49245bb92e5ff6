//! The questions warcrunch answers, as library calls: each takes a request
//! (what is asked), a [`Plan`](crate::runner::Plan) (how to simulate) and a
//! [`Destination`] (where its files go), and returns what it found and
//! wrote. `commands/` maps the command line to these requests and prints
//! the answers; `serve/` maps the page's JSON to the same requests.

pub mod compare;
pub mod run;
pub mod sensitivity;
pub mod solve;
pub mod sweep;
pub mod table_compare;

use std::path::PathBuf;

use crate::report::Formats;

/// Where an answer's files go.
#[derive(Debug, Clone, Default)]
pub struct Destination {
    /// The output folder; `None` for the question's default folder.
    pub out: Option<PathBuf>,
    /// Replace a folder warcrunch did not write.
    pub force: bool,
    /// Which tabular files to write.
    pub formats: Formats,
}
