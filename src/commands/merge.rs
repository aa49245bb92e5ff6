//! `warcrunch merge`: combine the partial results of `--shard` runs into the
//! report one run would have written.

use anyhow::{Result, bail};

use crate::analysis::runner::finish;
use crate::cli::MergeArgs;
use crate::engine::Shard;
use crate::report::exporters::partial::{Partial, merge};
use crate::report::kit::output_dir::Staging;

/// Reads every part, checks they make one whole run, writes its report.
pub fn run(args: &MergeArgs) -> Result<()> {
    // Replacing a folder one of the parts lives in would lose that part.
    if let Ok(out) = args.out.canonicalize() {
        for part in &args.parts {
            if part.canonicalize().is_ok_and(|p| p.starts_with(&out)) {
                bail!(
                    "merge --out {}: the part {} is in that folder, which the merged report would replace; choose another --out",
                    args.out.display(),
                    part.display()
                );
            }
        }
    }
    let parts = args
        .parts
        .iter()
        .map(|path| Ok((path.clone(), Partial::read(path)?)))
        .collect::<Result<Vec<_>>>()?;
    let (kind, report) = merge(&parts)?;
    let staging = Staging::new(&args.out, args.force)?;
    finish(kind, &report, staging, Shard::WHOLE)
}
