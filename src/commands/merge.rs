//! `warcrunch merge`: combine the partial results of `--shard` runs into the
//! report one run would have written.

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::engine::Shard;
use crate::report::output_dir::Staging;
use crate::report::partial::{Partial, merge};
use crate::runner::finish;

/// Reads every part, checks they make one whole run, writes its report.
pub fn run(args: &MergeArgs) -> Result<()> {
    let parts = args
        .parts
        .iter()
        .map(|path| Ok((path.clone(), Partial::read(path)?)))
        .collect::<Result<Vec<_>>>()?;
    let (kind, report) = merge(&parts)?;
    let staging = Staging::new(&args.out, args.force)?;
    finish(kind, &report, staging, Shard::WHOLE)
}
