//! Partial results of `--shard i/n` runs and their merge.
//!
//! A shard writes its integer counts, the run's provenance and a digest of
//! the counts to `partial.json`; reading one checks that its counts still
//! match the digest and add up to the shard's battles, and [`merge`] checks
//! that the parts are the shards of one and the same run, each exactly
//! once, and adds their counts. Counts are integers, so the merged report is
//! the one a single run would have written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::Shard;
use crate::report::{Formats, ReportKind, RunInfo, RunReport, VariantResult};
use crate::stats::MetricRole;

/// The file a shard writes into its output folder.
pub const PARTIAL_FILE: &str = "partial.json";

/// Written into every partial, so a stray JSON file is not taken for one.
const FORMAT: &str = "warcrunch partial result 2";

/// One shard's counts and the provenance of the run it is part of.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Partial {
    /// Always [`FORMAT`].
    pub format: String,
    /// The command that ran.
    pub kind: ReportKind,
    /// Which shard this is.
    pub shard: Shard,
    /// Tabular output formats asked for.
    pub formats: Formats,
    /// Provenance of the whole run (trials is the whole run's).
    pub info: RunInfo,
    /// This shard's counts, per variant.
    pub variants: Vec<VariantResult>,
    /// SHA-256 of the shard and its counts ([`Partial::counts_digest`]),
    /// computed when the shard wrote them.
    pub counts_sha256: String,
}

impl Partial {
    /// The partial of shard `shard` of the run `report`.
    pub fn new(kind: ReportKind, shard: Shard, report: &RunReport) -> Partial {
        let mut partial = Partial {
            format: FORMAT.to_owned(),
            kind,
            shard,
            formats: report.formats,
            info: report.info.clone(),
            variants: report.variants.clone(),
            counts_sha256: String::new(),
        };
        partial.counts_sha256 = partial.counts_digest();
        partial
    }

    /// SHA-256 (hex) of what the counts mean and the counts themselves: the
    /// run (scenario digest, seed, trials), the shard, and every variant's
    /// metric and paired counts, as integers and names.
    pub fn counts_digest(&self) -> String {
        let mut hash = Sha256::new();
        let mut put = |text: &str| {
            hash.update(text.len().to_le_bytes());
            hash.update(text.as_bytes());
        };
        let info = &self.info;
        put(info.scenario_sha256.as_deref().unwrap_or(""));
        put(&format!("{:?} {:?}", info.seed, info.trials));
        put(&format!("{}/{}", self.shard.index, self.shard.count));
        for v in &self.variants {
            put(&v.variant);
            for m in &v.metrics {
                put(&m.subject);
                put(&m.name);
                put(&format!("{:?}", m.weights));
            }
            for c in &v.shared {
                put(&format!(
                    "{}/{}={} {}",
                    c.subject, c.metric, c.value, c.battles
                ));
            }
            for m in &v.paired_means {
                put(&format!(
                    "{}/{} {} {} {} {}",
                    m.subject, m.metric, m.sums.battles, m.sums.changed, m.sums.sum, m.sums.squares
                ));
            }
        }
        format!("{:x}", hash.finalize())
    }

    /// Refuses a part whose counts were changed after it was written: they
    /// must match its digest, and every metric of every variant must count
    /// the shard's battles, each once.
    fn check_counts(&self, file: &Path) -> Result<()> {
        let again = "the file was changed after the shard wrote it; run that shard again";
        if self.counts_digest() != self.counts_sha256 {
            bail!(
                "{}: its counts do not match the digest written with them (`counts_sha256`): {again}",
                file.display()
            );
        }
        let Some(trials) = self.info.trials else {
            return Ok(());
        };
        let battles = self.shard.battles(trials);
        for v in &self.variants {
            for m in &v.metrics {
                let counted = m
                    .weights
                    .iter()
                    .try_fold(0u64, |sum, w| sum.checked_add(*w));
                if counted != Some(battles) {
                    bail!(
                        "{}: {}{}/{} counts {} battles, but shard {}/{} of a run of {trials} has {battles}: {again}",
                        file.display(),
                        variant_named(v),
                        m.subject,
                        m.name,
                        counted.map_or("more than 2^64".to_owned(), |n| n.to_string()),
                        self.shard.index,
                        self.shard.count
                    );
                }
            }
            if let Some(m) = v
                .paired_means
                .iter()
                .find(|m| m.sums.battles > battles || m.sums.changed > m.sums.battles)
            {
                bail!(
                    "{}: paired differences of {}/{} count {} battles ({} changed), more than the shard's {battles}: {again}",
                    file.display(),
                    m.subject,
                    m.metric,
                    m.sums.battles,
                    m.sums.changed
                );
            }
            let identities = crate::systems::registry::identities(&self.info.system);
            let agree = crate::stats::identity::check(identities, &v.metrics)
                .and_then(|()| counts_agree(v));
            if let Err(contradiction) = agree {
                bail!(
                    "{}: {}{contradiction}: {again}",
                    file.display(),
                    variant_named(v),
                );
            }
            if let Some(c) = v.shared.iter().find(|c| c.battles > battles) {
                bail!(
                    "{}: paired count {}/{}={} is {} battles, more than the shard's {battles}: {again}",
                    file.display(),
                    c.subject,
                    c.metric,
                    c.value,
                    c.battles
                );
            }
        }
        Ok(())
    }

    /// Writes `partial.json` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<Vec<String>> {
        let path = dir.join(PARTIAL_FILE);
        let text =
            serde_json::to_string_pretty(self).context("cannot encode the partial result")?;
        std::fs::write(&path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(vec![PARTIAL_FILE.to_owned()])
    }

    /// Reads a partial from a shard's folder or its `partial.json`.
    pub fn read(path: &Path) -> Result<Partial> {
        let file = if path.is_dir() {
            path.join(PARTIAL_FILE)
        } else {
            path.to_path_buf()
        };
        let text = crate::tables::input_file::read_results(&file)
            .map_err(|e| anyhow::anyhow!("cannot read partial result {}: {e}", file.display()))?;
        let partial: Partial = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a warcrunch partial result (write one with `run --shard I/N`)",
                file.display()
            )
        })?;
        if partial.format != FORMAT {
            bail!(
                "{}: format `{}` is not `{FORMAT}`; merge parts written by this warcrunch version",
                file.display(),
                partial.format
            );
        }
        partial.check_counts(&file)?;
        Ok(partial)
    }

    /// The facts a user most likely mixed up, checked first for a clear message.
    fn key_facts(&self) -> [(&'static str, String); 5] {
        let info = &self.info;
        let shown = |v: Option<String>| v.unwrap_or_else(|| "none".to_owned());
        [
            ("command", format!("{:?}", self.kind).to_lowercase()),
            ("number of shards", self.shard.count.to_string()),
            (
                "scenario file (sha256)",
                shown(info.scenario_sha256.clone()),
            ),
            ("seed", shown(info.seed.map(|s| s.to_string()))),
            ("trials", shown(info.trials.map(|t| t.to_string()))),
        ]
    }

    /// Everything that must be equal across the shards of one run.
    fn identity(&self) -> serde_json::Value {
        let mut info = self.info.clone();
        info.threads = None;
        info.elapsed_seconds = None;
        serde_json::json!({
            "kind": self.kind,
            "shards": self.shard.count,
            "formats": self.formats,
            "info": info,
            "variants": self.variants.iter().map(|v| &v.variant).collect::<Vec<_>>(),
        })
    }
}

/// The first path (`info.seed`) at which two JSON values differ.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    match (a, b) {
        (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
            for (key, value) in x {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                match y.get(key) {
                    Some(other) if other == value => {}
                    Some(other) => return first_difference(value, other, &path),
                    None => return path,
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}.{k}"))
                .unwrap_or_else(|| at.to_owned())
        }
        _ => format!("{at} ({a} vs {b})"),
    }
}

/// How a message names a variant before its metric: `variant `risk=-1`, `
/// (nothing for a plain run's one variant).
fn variant_named(v: &VariantResult) -> String {
    if v.variant.is_empty() {
        String::new()
    } else {
        format!("variant `{}`, ", v.variant)
    }
}

/// Whether one variant's counts agree with each other, as every battle
/// makes them: one side's wins are the other's losses (and their draws the
/// same), and the whole party had someone out of action (and someone
/// dead) in at least as many battles as any one PC, and at most in as many
/// as all of them together. Says which histograms contradict each other.
/// The system's own identities are checked beside it.
fn counts_agree(v: &VariantResult) -> std::result::Result<(), String> {
    let sides: Vec<&crate::stats::Metric<u64>> = v
        .metrics
        .iter()
        .filter(|m| matches!(m.role, MetricRole::Victory { .. }))
        .collect();
    if let [a, b] = sides[..]
        && a.weights.len() == b.weights.len()
        && a.weights.len() >= 2
    {
        let mirrored = a.weights[0] == b.weights[1]
            && a.weights[1] == b.weights[0]
            && a.weights[2..] == b.weights[2..];
        if !mirrored {
            return Err(format!(
                "{}/{} counts {} won and {} lost, but {}/{} counts {} lost and {} won; one side's wins must be the other's losses",
                a.subject,
                a.name,
                a.weights[0],
                a.weights[1],
                b.subject,
                b.name,
                b.weights[1],
                b.weights[0]
            ));
        }
    }
    // Each PC's battles out of action, and dead where death is told apart.
    let fates: Vec<(&str, u64, Option<u64>)> = v
        .metrics
        .iter()
        .filter_map(|m| match &m.role {
            MetricRole::Fate { out, dead, .. } => Some((
                m.subject.as_str(),
                out.iter().filter_map(|&bin| m.weights.get(bin)).sum(),
                dead.and_then(|bin| m.weights.get(bin).copied()),
            )),
            _ => None,
        })
        .collect();
    let out_of_action: Vec<(&str, u64)> = fates.iter().map(|&(pc, out, _)| (pc, out)).collect();
    let dead: Vec<(&str, u64)> = (fates.iter())
        .filter_map(|&(pc, _, dead)| Some((pc, dead?)))
        .collect();
    for party in &v.metrics {
        let MetricRole::PartyRisk { whole: true, .. } = party.role else {
            continue;
        };
        let any_dead = (v.metrics.iter())
            .find(|m| m.subject == party.subject && m.name == "any_dead")
            .map(|m| (m, &dead[..], "dead"));
        for (metric, each, what) in [(party, &out_of_action[..], "out of action")]
            .into_iter()
            .chain(any_dead)
        {
            let Some(&any) = metric.weights.get(1) else {
                continue;
            };
            let most = each.iter().max_by_key(|(_, n)| *n);
            let all: u64 = each.iter().map(|(_, n)| n).sum();
            if let Some((pc, alone)) = most
                && (any < *alone || any > all)
            {
                return Err(format!(
                    "{}/{} counts {any} battles with a PC {what}, but {pc} alone was {what} in {alone} and all PCs together in {all}",
                    metric.subject, metric.name
                ));
            }
        }
    }
    Ok(())
}

/// Adds the counts of the shards `parts` (path, partial) into the report
/// one run would have written. Refuses parts of different runs, missing
/// shards and shards given twice.
pub fn merge(parts: &[(PathBuf, Partial)]) -> Result<(ReportKind, RunReport)> {
    let Some((first_path, first)) = parts.first() else {
        bail!("merge needs the partial results of every shard");
    };
    let identity = first.identity();
    let count = first.shard.count;
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (path, part) in parts {
        for ((what, a), (_, b)) in first.key_facts().iter().zip(part.key_facts()) {
            if *a != b {
                bail!(
                    "{} and {} are not shards of the same run: {what} {a} vs {b}",
                    first_path.display(),
                    path.display()
                );
            }
        }
        let other = part.identity();
        if other != identity {
            bail!(
                "{} and {} are not shards of the same run: they differ in {}",
                first_path.display(),
                path.display(),
                first_difference(&identity, &other, "")
            );
        }
        if let Some(earlier) = seen.insert(part.shard.index, path) {
            bail!(
                "shard {}/{count} is given twice: {} and {}",
                part.shard.index,
                earlier.display(),
                path.display()
            );
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing shard{} {} (of {count}); run {} with --shard and pass every part to merge",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" }
        );
    }
    let mut variants: Vec<VariantResult> = first.variants.clone();
    for (path, part) in &parts[1..] {
        for (into, from) in variants.iter_mut().zip(&part.variants) {
            add_counts(into, from)
                .with_context(|| format!("{}: variant `{}`", path.display(), from.variant))?;
        }
    }
    let mut info = first.info.clone();
    info.threads = Some(parts.iter().filter_map(|(_, p)| p.info.threads).sum());
    info.elapsed_seconds = parts
        .iter()
        .filter_map(|(_, p)| p.info.elapsed_seconds)
        .reduce(f64::max);
    info.shards = Some(count);
    Ok((
        first.kind,
        RunReport {
            info,
            variants,
            formats: first.formats,
            usage: None,
        },
    ))
}

/// Adds `from`'s counts into `into`, metric by metric.
fn add_counts(into: &mut VariantResult, from: &VariantResult) -> Result<()> {
    if into.metrics.len() != from.metrics.len() {
        bail!(
            "holds {} metrics, not {}",
            from.metrics.len(),
            into.metrics.len()
        );
    }
    for (a, b) in into.metrics.iter_mut().zip(&from.metrics) {
        if a.subject != b.subject
            || a.name != b.name
            || a.values != b.values
            || a.weights.len() != b.weights.len()
        {
            bail!(
                "metric {}/{} does not match {}/{}",
                b.subject,
                b.name,
                a.subject,
                a.name
            );
        }
        for (x, y) in a.weights.iter_mut().zip(&b.weights) {
            *x = x
                .checked_add(*y)
                .context("a count overflows 64 bits; merge fewer trials")?;
        }
    }
    if into.shared.len() != from.shared.len() {
        bail!(
            "holds {} paired counts, not {}",
            from.shared.len(),
            into.shared.len()
        );
    }
    if into.paired_means.len() != from.paired_means.len() {
        bail!(
            "holds {} paired means, not {}",
            from.paired_means.len(),
            into.paired_means.len()
        );
    }
    for (a, b) in into.paired_means.iter_mut().zip(&from.paired_means) {
        if (&a.subject, &a.metric) != (&b.subject, &b.metric) {
            bail!("paired mean {}/{} does not match", b.subject, b.metric);
        }
        a.sums.merge(&b.sums);
    }
    for (a, b) in into.shared.iter_mut().zip(&from.shared) {
        if (&a.subject, &a.metric, &a.value) != (&b.subject, &b.metric, &b.value) {
            bail!(
                "paired count {}/{}={} does not match",
                b.subject,
                b.metric,
                b.value
            );
        }
        a.battles = a
            .battles
            .checked_add(b.battles)
            .context("a count overflows 64 bits; merge fewer trials")?;
    }
    Ok(())
}
