//! `warcrunch solve`: the value of one setting at which a target's
//! probability reaches a threshold, found by bisection with every probe on
//! the same battle streams and decided only beyond its interval.

use anyhow::{Result, bail};
use toml::Value;

use crate::cli::SolveArgs;
use crate::format::thousands;
use crate::report::console::say;
use crate::report::output_dir::Staging;
use crate::report::solve::{SolveReport, solve_exporters};
use crate::runner::{
    Plan, exact_metrics, metric_layout, nothing_written, override_settings, question_out_dir,
    run_info, simulate_paired, table_overrides,
};
use crate::scenario::{self, Edit, Scenario};
use crate::solve::{Decision, Domain, Goal, Point, Probe, search, shown};
use crate::stats::{wilson, z95};
use crate::target::{Target, check_probability};

/// The goal the options name.
fn goal(args: &SolveArgs) -> Result<Goal> {
    Ok(match (args.at_least, args.at_most, args.equals) {
        (Some(p), None, None) => Goal::AtLeast(check_probability("--at-least", p)?),
        (None, Some(p), None) => Goal::AtMost(check_probability("--at-most", p)?),
        (None, None, Some(p)) => Goal::Equals(check_probability("--equals", p)?),
        _ => bail!("name one goal: --at-least P, --at-most P or --equals P"),
    })
}

/// Loads the scenario with the varied setting at one value.
struct Loader<'a> {
    args: &'a SolveArgs,
    text: String,
    path: Vec<String>,
    overrides: Vec<(String, String)>,
    real: bool,
}

impl Loader<'_> {
    fn value(&self, v: f64) -> Value {
        if self.real {
            Value::Float(v)
        } else {
            Value::Integer(v as i64)
        }
    }

    fn load(&self, v: f64) -> Result<Scenario> {
        let value = self.value(v);
        let path = self.path.clone();
        let mut edits = vec![Edit {
            option: format!("--vary {} (value {value})", self.args.vary),
            apply: Box::new(move |doc| crate::sweep::apply(doc, &path, value.clone())),
        }];
        edits.extend(self.overrides.iter().map(Edit::table));
        let mut s = scenario::load_edited(&self.args.scenario, &self.text, &edits)?;
        override_settings(&mut s, Some(self.args.max_trials), self.args.sim.seed)?;
        Ok(s)
    }
}

/// Whether the setting takes reals: a whole-number setting refuses any
/// TOML float, even `1.0`; a real one takes its lower end written as one.
fn takes_reals(loader: &Loader, at: f64) -> bool {
    let path = loader.path.clone();
    let edit = Edit {
        option: String::new(),
        apply: Box::new(move |doc| crate::sweep::apply(doc, &path, Value::Float(at))),
    };
    scenario::load_edited(&loader.args.scenario, &loader.text, &[edit]).is_ok()
}

/// Validates everything, searches and writes the report.
pub fn run(args: &SolveArgs) -> Result<()> {
    let sim = &args.sim;
    check_options(args)?;
    let goal = goal(args)?;
    let target = Target::parse(&args.target)?;
    let (loader, domain, first) = prepare(args, &target)?;
    let plan = Plan {
        progress: false,
        ..Plan::from_args(sim)
    };
    let threshold = goal.threshold();
    let out = args.out.clone().unwrap_or_else(|| {
        let varied = args
            .vary
            .split_once('=')
            .map_or(&*args.vary, |(path, _)| path);
        question_out_dir(
            &args.scenario,
            "solve",
            &[varied.to_owned(), args.target.clone()],
        )
    });
    let staging = Staging::new(&out, sim.force)?;
    let setting = loader.path.join(".");
    let started = std::time::Instant::now();
    let mut threads = 1;
    let mut count = 0;
    let probe = |v: f64| -> Result<Probe> {
        let s = loader.load(v)?;
        let probe = if args.exact {
            exact_probe(&target, &s, v, threshold)?
        } else {
            let (probe, used) = sampled_probe(&target, &s, v, threshold, &plan, args.precision)?;
            threads = used;
            probe
        };
        count += 1;
        say(&probe_line(count, &setting, domain, &probe))?;
        Ok(probe)
    };
    let (probes, solution) = search(domain, goal, (&setting, &target.text()), probe)?;
    let battles: u64 = probes.iter().filter_map(|p| p.trials).sum();
    let mut info = run_info(&first, reproduce_command(args), threads, started.elapsed());
    info.trials = (!args.exact).then_some(battles);
    if args.exact {
        info.seed = None;
        info.chunk_size = None;
    }
    info.scenario_sha256 = Some(crate::tables::sha256_hex(loader.text.as_bytes()));
    let report = SolveReport {
        info,
        target: target.text(),
        goal,
        setting,
        domain,
        probes,
        solution,
        formats: crate::report::Formats::of(&sim.format),
    };
    let mut written = Vec::new();
    for exporter in solve_exporters() {
        written.extend(exporter.write(&report, staging.path())?);
    }
    let dest = staging.commit()?;
    say(&summary(&report, args.exact, battles, &dest, &written))
}

/// Refuses the options solve cannot honour.
fn check_options(args: &SolveArgs) -> Result<()> {
    if args.sim.shard.is_some() {
        bail!("--shard: solve decides each probe before the next; run it without --shard");
    }
    if args.sim.trials.is_some() {
        bail!(
            "--trials: solve sizes each probe itself; give the most battles a probe may take with --max-trials"
        );
    }
    if let Some(h) = args.precision {
        crate::validate::check_precision(h).map_err(|e| anyhow::anyhow!("--precision = {e}"))?;
    }
    Ok(())
}

/// The loader of the varied scenario, the range searched, and the scenario
/// at the range's low end, after checking before anything runs that both
/// ends are allowed values, that the target exists and that the exact
/// method applies when asked.
fn prepare<'a>(args: &'a SolveArgs, target: &Target) -> Result<(Loader<'a>, Domain, Scenario)> {
    let Some((path, range)) = args.vary.split_once('=') else {
        bail!(
            "--vary {}: expected PATH=LO..HI, e.g. sides.Raiders.troop_strength=200..3000",
            args.vary
        );
    };
    let mut loader = Loader {
        args,
        text: scenario::read_text(&args.scenario)?,
        path: path.trim().split('.').map(str::to_owned).collect(),
        overrides: table_overrides(&args.sim.tables)?,
        real: false,
    };
    let lo_text = range.split_once("..").map_or(range, |(a, _)| a).trim();
    loader.real = lo_text
        .parse::<f64>()
        .is_ok_and(|lo| takes_reals(&loader, lo));
    let option = format!("--vary {}", args.vary);
    let domain = Domain::parse(&option, range, loader.real, args.tolerance)?;
    let (lo, hi) = match domain {
        Domain::Integers { lo, hi } => (lo as f64, hi as f64),
        Domain::Reals { lo, hi, .. } => (lo, hi),
    };
    let first = loader.load(lo)?;
    loader.load(hi)?;
    target.event(&metric_layout(&first))?;
    if args.exact {
        exact_metrics(&first).map_err(|e| anyhow::anyhow!("--exact: {e:#}"))?;
    }
    Ok((loader, domain, first))
}

/// A probe by the exact method: no sampling, no interval.
fn exact_probe(target: &Target, s: &Scenario, v: f64, threshold: f64) -> Result<Probe> {
    let p = target.exact_probability(&exact_metrics(s)?)?;
    Ok(Probe {
        point: Point {
            value: v,
            probability: p,
            ci_low: p,
            ci_high: p,
        },
        trials: None,
        decision: Decision::of(p, p, threshold),
    })
}

/// A probe by simulation: battles until the 95% interval leaves the
/// threshold out, reaches `precision`, or the plan's cap. Returns the probe
/// and the threads used.
fn sampled_probe(
    target: &Target,
    s: &Scenario,
    v: f64,
    threshold: f64,
    plan: &Plan,
    precision: Option<f64>,
) -> Result<(Probe, usize)> {
    let event = target.event(&metric_layout(s))?;
    let precise = |x: u64, n: u64| {
        let (low, high) = wilson(x, n, z95());
        Decision::of(low, high, threshold) != Decision::Undecided
            || precision.is_some_and(|h| (high - low) / 2.0 <= h)
    };
    let stop = |counts: &[Vec<u64>], n: u64| precise(counts[0][0], n);
    let done = simulate_paired(&[s], vec![vec![event.clone()]], plan, Some(&stop))
        .map_err(nothing_written)?;
    let x: u64 = event
        .bins
        .iter()
        .map(|&b| done.metrics[0][event.metric].weights[b])
        .sum();
    let n = done.trials;
    let (low, high) = wilson(x, n, z95());
    let probe = Probe {
        point: Point {
            value: v,
            probability: x as f64 / n as f64,
            ci_low: low,
            ci_high: high,
        },
        trials: Some(n),
        decision: Decision::of(low, high, threshold),
    };
    Ok((probe, done.threads))
}

/// The console line of one probe.
fn probe_line(count: usize, setting: &str, domain: Domain, probe: &Probe) -> String {
    format!(
        "probe {count}: {setting} = {} -> {} ({}-{}){}, {}\n",
        shown(domain, probe.point.value),
        crate::format::percent(probe.point.probability),
        crate::format::percent_bound(probe.point.ci_low),
        crate::format::percent_bound(probe.point.ci_high),
        probe.trials.map_or(" exact".to_owned(), |n| format!(
            ", {} battles",
            thousands(n)
        )),
        probe.decision.name()
    )
}

/// The closing lines: the answer, any warning, the probes and battles spent
/// and the files written.
fn summary(
    report: &SolveReport,
    exact: bool,
    battles: u64,
    dest: &std::path::Path,
    written: &[String],
) -> String {
    let mut lines = format!("{}\n", report.solution.sentence);
    if let Some(w) = &report.solution.warning {
        lines.push_str(&format!("warning: {w}\n"));
    }
    lines.push_str(&format!(
        "{} probes{}\nWrote {}: {}\n",
        report.probes.len(),
        if exact {
            ", exact".to_owned()
        } else {
            format!(", {} battles in all", thousands(battles))
        },
        dest.display(),
        written.join(", ")
    ));
    lines
}

fn reproduce_command(args: &SolveArgs) -> String {
    let goal = match (args.at_least, args.at_most, args.equals) {
        (Some(p), _, _) => format!("--at-least {p}"),
        (_, Some(p), _) => format!("--at-most {p}"),
        (_, _, Some(p)) => format!("--equals {p}"),
        _ => String::new(),
    };
    let mut command = format!(
        "warcrunch solve {} --vary {} --target \"{}\" {goal}",
        args.scenario.display(),
        args.vary,
        args.target
    );
    if args.exact {
        command.push_str(" --exact");
    } else {
        command.push_str(&format!(" --max-trials {}", args.max_trials));
        if let Some(seed) = args.sim.seed {
            command.push_str(&format!(" --seed {seed}"));
        }
        if let Some(h) = args.precision {
            command.push_str(&format!(" --precision {h}"));
        }
    }
    if let Some(t) = args.tolerance {
        command.push_str(&format!(" --tolerance {t}"));
    }
    for t in &args.sim.tables {
        command.push_str(&format!(" --table {t}"));
    }
    command
}
