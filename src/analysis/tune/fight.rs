//! The candidates of a tune fought: each scenario with a candidate's
//! values, every candidate on the same battles, and what each goal held
//! there measures, with the noise of its paired difference.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, bail};
use toml::Value;

use crate::analysis::runner::{PairedAsk, Plan, metric_layout, simulate_paired, simulate_variants};
use crate::engine::paired::Event;
use crate::questions::target::{Target, with_combined, with_combined_as};
use crate::questions::tune::Goal;
use crate::report::writers::tune::Effect;
use crate::scenario::{Edit, Scenario};
use crate::stats::{Metric, Values, paired_difference, wilson};

use super::battles::{Battle, Held};
use super::moves::{Dimension, Moves, same, shown};

/// What the search fights: each scenario with each candidate's values.
pub(super) struct Fight<'a> {
    pub(super) battles: &'a [Battle<'a>],
    pub(super) dimensions: &'a [Dimension],
    /// Each dimension's value in the battles as written.
    pub(super) start: &'a [Value],
    pub(super) trials: u64,
    pub(super) seed: u64,
    /// The verifying run's expected interval half-width per unit of one
    /// battle's spread: each goal's margin inside its band is this times
    /// the spread the search measures.
    pub(super) margin: f64,
    /// Battles fought so far (each variant's battles counted).
    pub(super) fought: AtomicU64,
    /// The declared orders a candidate must keep: each moved table's that
    /// hold as written (none with `--allow-disorder`).
    pub(super) orders: Vec<Kept>,
    /// Per battle, whether it has exact odds as written: found once, when
    /// the fight is made ([`Fight::exact_odds_of`]).
    pub(super) exact: Vec<bool>,
}

/// A declared order of a moved table, as the tune keeps it.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// The table's name.
    pub(super) table: String,
    /// The table's text as the battles read it.
    pub(super) text: String,
    pub(super) order: crate::tables::orders::Order,
}

/// A candidate fought: where it is, each held goal's estimate and
/// shortfall, and their sum.
#[derive(Debug, Clone)]
pub(super) struct Scored {
    pub(super) at: Vec<Value>,
    pub(super) estimates: Vec<f64>,
    /// Each held goal's spread of one battle's outcome: a mean's standard
    /// deviation, a share's at most 1/2.
    pub(super) spreads: Vec<f64>,
    pub(super) shortfalls: Vec<f64>,
    /// The shortfalls summed, each over its goal's own scale and times its
    /// weight ([`Goal::weighed`]).
    pub(super) total: f64,
    /// The standard error of its goals' paired differences from the
    /// current candidate's (fought on the same battles), in the
    /// shortfall's units, summed as squares: how much of a difference in
    /// total shortfall the search's battles cannot tell from chance. 0 for
    /// the current candidate itself.
    pub(super) noise: f64,
}

impl<'a> Fight<'a> {
    /// Adds `battles` to those fought.
    pub(super) fn count(&self, battles: u64) {
        self.fought.fetch_add(battles, Ordering::Relaxed);
    }

    /// The dimensions a candidate changes, with their values.
    pub(super) fn changes<'v>(
        &self,
        at: &'v [Value],
    ) -> impl Iterator<Item = (&Dimension, &'v Value)> {
        (self.dimensions.iter().zip(at).zip(self.start))
            .filter(|((_, v), s)| !same(v, s))
            .map(|((d, v), _)| (d, v))
    }

    /// How many one-step moves candidate `at` is from the battles as
    /// written, summed over the values it changes.
    pub(super) fn steps(&self, at: &[Value]) -> usize {
        (self.changes(at))
            .map(|(d, v)| d.distance(v, &d.value))
            .sum()
    }

    /// A candidate's name: each setting it changes at its value, or `as
    /// written`.
    pub(super) fn name(&self, at: &[Value]) -> String {
        let named: Vec<String> = (self.changes(at))
            .map(|(d, v)| format!("{}={}", d.path.join("."), shown(v)))
            .collect();
        if named.is_empty() {
            "as written".to_owned()
        } else {
            named.join(",")
        }
    }

    /// The edits that make a candidate of scenario `b` (made after its
    /// table options): only what it changes there, so the battle as
    /// written stays as written.
    pub(super) fn edits(&self, at: &[Value], b: usize) -> Vec<Edit<'_>> {
        let mut edits: Vec<Edit> = Vec::new();
        for (d, value) in self.changes(at).filter(|(d, _)| d.present[b]) {
            let (path, value) = (d.path.clone(), value.clone());
            let option = format!("--vary {} (value {})", path.join("."), shown(&value));
            edits.push(Edit::set(option, path, value));
        }
        edits
    }

    /// A candidate of scenario `b`, at the search's battles and seed.
    pub(super) fn scenario(&self, at: &[Value], b: usize) -> Result<Scenario> {
        let mut s = self.battles[b].resolved.edited(self.edits(at, b))?;
        s.override_settings(Some(self.trials), Some(self.seed))?;
        Ok(s)
    }

    /// A candidate of the search in scenario `b`: refused where it breaks
    /// an order the tune keeps, as where the rules refuse it.
    pub(super) fn candidate(&self, at: &[Value], b: usize) -> Result<Scenario> {
        if let Some(broken) = self.disorders(at).into_iter().next() {
            bail!("{broken}");
        }
        self.scenario(at, b)
    }

    /// A candidate's file of scenario `b`: the battle as written with the
    /// candidate's values set (and the `--table` files named).
    pub(super) fn document(&self, at: &[Value], b: usize) -> Result<String> {
        let doc = self.battles[b]
            .resolved
            .edited_document(self.edits(at, b))?;
        toml::to_string(&doc).context("cannot write the tuned scenario")
    }

    /// The same battles, dimensions and seed, with nothing fought yet and
    /// no declared order kept: a second search, beside this one, that
    /// says which order blocks a goal.
    pub(super) fn without_orders(&self) -> Fight<'a> {
        Fight {
            battles: self.battles,
            dimensions: self.dimensions,
            start: self.start,
            trials: self.trials,
            seed: self.seed,
            margin: self.margin,
            fought: AtomicU64::new(0),
            orders: Vec::new(),
            exact: self.exact.clone(),
        }
    }

    /// The same candidates fought on `trials` other battles of `seed`,
    /// with nothing fought yet: the race's rounds.
    pub(super) fn again_on(&self, trials: u64, seed: u64) -> Fight<'a> {
        Fight {
            trials,
            seed,
            fought: AtomicU64::new(0),
            orders: self.orders.clone(),
            ..self.without_orders()
        }
    }

    /// The declared orders of every table moved that hold in the battles
    /// as written: what every candidate keeps.
    pub(super) fn declared_orders(&self) -> Result<Vec<Kept>> {
        let mut moved: Vec<String> = Vec::new();
        for d in self.dimensions {
            if let [tables, name, _, ..] = d.path.as_slice()
                && tables == "tables"
                && !moved.contains(name)
            {
                moved.push(name.clone());
            }
        }
        let mut kept = Vec::new();
        for name in moved {
            let Some(text) =
                (0..self.battles.len()).find_map(|b| self.table_text(&name, b).ok().flatten())
            else {
                continue;
            };
            let doc: toml::Table = toml::from_str(&text)?;
            for order in crate::tables::orders::of_text(&text) {
                if order.broken_in(&doc).is_none() {
                    kept.push(Kept {
                        table: name.clone(),
                        text: text.clone(),
                        order,
                    });
                }
            }
        }
        Ok(kept)
    }

    /// Each kept order candidate `at` breaks, in words: `the battle_chart
    /// table's rows.*.engaged.reputation never falls (rows 1 and 2: 3 then 2)`.
    pub(super) fn disorders(&self, at: &[Value]) -> Vec<String> {
        let mut broken = Vec::new();
        // Each moved table's candidate text, made once for all its orders.
        let mut made: Vec<(&str, Option<toml::Table>)> = Vec::new();
        for kept in &self.orders {
            let doc = match made.iter().find(|(t, _)| *t == kept.table) {
                Some((_, doc)) => doc,
                None => {
                    made.push((&kept.table, self.candidate_table(at, kept)));
                    &made.last().expect("just pushed").1
                }
            };
            if let Some(at) = doc.as_ref().and_then(|d| kept.order.broken_in(d)) {
                broken.push(format!(
                    "the {} table's {} ({at})",
                    kept.table,
                    kept.order.words()
                ));
            }
        }
        broken
    }

    /// The table `kept` belongs to with candidate `at`'s cells set, where
    /// the candidate sets any.
    fn candidate_table(&self, at: &[Value], kept: &Kept) -> Option<toml::Table> {
        let edits: Vec<(Vec<String>, Value)> = (self.changes(at))
            .filter(|(d, _)| d.path.len() > 2 && d.path[0] == "tables" && d.path[1] == kept.table)
            .map(|(d, v)| (d.path[2..].to_vec(), v.clone()))
            .collect();
        if edits.is_empty() {
            return None;
        }
        let text = crate::tables::toml_path::set_keeping_layout(&kept.text, &edits).ok()?;
        toml::from_str(&text).ok()
    }

    /// The names of the tables a candidate changes cells of.
    pub(super) fn tables_changed(&self, at: &[Value]) -> Vec<String> {
        let mut names: Vec<String> = (self.changes(at))
            .filter_map(|(d, _)| match d.path.as_slice() {
                [tables, name, _, ..] if tables == "tables" => Some(name.clone()),
                _ => None,
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The text of table `name` as scenario `b` reads it.
    pub(super) fn table_text(&self, name: &str, b: usize) -> Result<Option<String>> {
        let resolved = self.battles[b].resolved;
        if !resolved
            .scenario
            .battle
            .tables()
            .iter()
            .any(|t| t.name == name)
        {
            return Ok(None);
        }
        let doc = resolved.document()?;
        let (text, _) =
            crate::tables::text_as_read(&doc, resolved.files(), &resolved.tables, name)?;
        Ok(Some(text))
    }

    /// Refuses scenarios that read different texts of a table whose cells
    /// move: one tuned table is written for them all.
    pub(super) fn same_tables_everywhere(&self) -> Result<()> {
        if self.battles.len() < 2 {
            return Ok(());
        }
        let all: Vec<Value> = (self.dimensions.iter())
            .map(|d| match &d.moves {
                Moves::Range(values) => values.last().cloned().unwrap_or(d.value.clone()),
                Moves::Cell(_) => d.value.clone(),
            })
            .collect();
        let mut touched = self.tables_changed(&all);
        for d in self.dimensions {
            if let [tables, name, _, ..] = d.path.as_slice()
                && tables == "tables"
                && !touched.contains(name)
            {
                touched.push(name.clone());
            }
        }
        for name in touched {
            let mut seen: Option<(usize, String)> = None;
            for b in 0..self.battles.len() {
                let Some(text) = self.table_text(&name, b)? else {
                    continue;
                };
                match &seen {
                    None => seen = Some((b, text)),
                    Some((a, first)) if *first != text => bail!(
                        "{} and {} read different {name} tables; a tune writes one {name} table for every scenario, so give them one (--table {name}=FILE) or tune them apart",
                        self.battles[*a].name,
                        self.battles[b].name
                    ),
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    /// Each table a candidate changes cells of, as a file of its own: the
    /// table the battles read (its file, or the built-in one) with every
    /// cell the candidate sets, its layout and comments kept,
    /// and `header` (then the cells changed) after its `#:schema` line,
    /// which names the schema from the folder `out`; and that schema, when
    /// it is to be written beside the file.
    pub(super) fn tuned_tables(
        &self,
        at: &[Value],
        header: &str,
        out: &Path,
    ) -> Result<Vec<(String, String)>> {
        let mut files = Vec::new();
        for name in self.tables_changed(at) {
            // The first scenario that reads it (every one reads the same text).
            let Some(b) = (0..self.battles.len())
                .find(|&b| self.table_text(&name, b).is_ok_and(|t| t.is_some()))
            else {
                continue;
            };
            let text = self.table_text(&name, b)?.expect("it reads the table");
            let tuned: toml::Table = toml::from_str(&self.document(at, b)?)?;
            let set = crate::tables::toml_path::get(
                &tuned,
                &["tables".to_owned(), name.clone(), "set".to_owned()],
            )
            .and_then(Value::as_table)
            .cloned()
            .unwrap_or_default();
            let edits: Vec<(Vec<String>, Value)> = set
                .into_iter()
                .map(|(cell, v)| (cell.split('.').map(str::to_owned).collect(), v))
                .collect();
            let edited = crate::tables::toml_path::set_keeping_layout(&text, &edits)
                .with_context(|| format!("the tuned {name} table"))?;
            let changed: Vec<String> = (self.changes(at))
                .filter(|(d, _)| d.path.get(1).is_some_and(|n| *n == name) && d.path.len() > 2)
                .map(|(d, v)| {
                    format!(
                        "#   {}: {} -> {}\n",
                        d.path[2..].join("."),
                        shown(&d.value),
                        shown(v)
                    )
                })
                .collect();
            let head = format!("{header}# Cells changed:\n{}", changed.concat());
            let body = match edited.split_once('\n') {
                Some((first, rest)) if first.starts_with("#:schema") => rest,
                _ => &edited,
            };
            // Its `#:schema` line, for where the file will be; the schema
            // is written beside it when the bundled one is not at hand.
            let file = format!("tuned_{name}.toml");
            let entry = crate::scenario::schema::find(&name)?;
            let placed = crate::scenario::schema::place(&entry, &out.join(&file), true)?;
            let text = crate::scenario::schema::with_schema_line(&(head + body), &placed.line);
            files.push((file, text));
            if placed.write.is_some() {
                files.push((entry.file_name(), entry.text()));
            }
        }
        Ok(files)
    }

    /// Each change of `at` made alone to each battle as written, fought
    /// with it on the same `(trials, seed)` battles: its paired effect on
    /// every goal held there (Newcombe's paired interval for an event,
    /// Student's t on the battles' differences for a mean; 95% each). A
    /// goal whose outcome the paired engine cannot count alone (one
    /// combined from several metrics) has no effect written.
    pub(super) fn effects(
        &self,
        at: &[Value],
        (goals, held): (&[Goal], &[Held]),
        (trials, seed): (u64, u64),
        plan: &Plan,
    ) -> Result<Vec<Effect>> {
        let mut found = Vec::new();
        for b in 0..self.battles.len() {
            let changes: Vec<(usize, &Value)> = (at.iter().enumerate())
                .filter(|&(i, v)| !same(v, &self.start[i]) && self.dimensions[i].present[b])
                .collect();
            let here: Vec<&Held> = held.iter().filter(|h| h.battle == b).collect();
            if changes.is_empty() || here.is_empty() {
                continue;
            }
            let mut scenarios = vec![self.scenario(self.start, b)?];
            for &(i, v) in &changes {
                let mut alone = self.start.to_vec();
                alone[i] = v.clone();
                scenarios.push(self.scenario(&alone, b)?);
            }
            for s in &mut scenarios {
                s.override_settings(Some(trials), Some(seed))?;
            }
            let layout = metric_layout(&scenarios[0]);
            // Each goal as the paired engine counts it: an event or a mean.
            let counted: Vec<Option<Result<Event, usize>>> = (here.iter())
                .map(|h| {
                    let g = &goals[h.goal];
                    if g.target.is_mean() {
                        g.target.mean_metric(&layout).ok().map(Err)
                    } else {
                        g.target.event(&layout).ok().map(Ok)
                    }
                })
                .collect();
            let events: Vec<Event> = (counted.iter().flatten())
                .filter_map(|c| c.clone().ok())
                .collect();
            let means: Vec<usize> = (counted.iter().flatten())
                .filter_map(|c| c.clone().err())
                .collect();
            let all: Vec<&Scenario> = scenarios.iter().collect();
            let ask = PairedAsk {
                events: vec![events.clone(); all.len()],
                means: vec![means.clone(); all.len()],
            };
            let done = simulate_paired(&all, ask, plan, None)?;
            let n = done.trials;
            self.count(n * all.len() as u64);
            for (k, &(i, v)) in changes.iter().enumerate() {
                let variant = k + 1;
                let (mut e, mut m) = (0, 0);
                for (h, c) in here.iter().zip(&counted) {
                    let interval = match c {
                        Some(Ok(event)) => {
                            let (x0, x1) =
                                (done.event_count(0, event), done.event_count(variant, event));
                            let both = done.both[variant][e];
                            e += 1;
                            Some((paired_difference(n, x0, x1, both), "paired_newcombe"))
                        }
                        Some(Err(_)) => {
                            let sums = &done.mean_sums[variant][m];
                            m += 1;
                            sums.means().map(|p| (p.difference, "paired_t"))
                        }
                        None => None,
                    };
                    found.push(Effect {
                        setting: self.dimensions[i].path.join("."),
                        from: shown(&self.start[i]),
                        to: shown(v),
                        goal: h.label.clone(),
                        scenario: self.battles[b].name.clone(),
                        mean: goals[h.goal].target.is_mean(),
                        difference: interval.map(|(d, _)| d),
                        method: interval.map_or("not_paired_alone", |(_, method)| method),
                    });
                }
            }
        }
        // Each change's effects together, in the order the changes are listed.
        let order: Vec<String> = self.changes(at).map(|(d, _)| d.path.join(".")).collect();
        found.sort_by_key(|e| order.iter().position(|p| *p == e.setting));
        Ok(found)
    }

    /// Fights every candidate in every scenario, each scenario's candidates
    /// on the same battles; each one's score, and the threads used. A
    /// candidate the rules refuse in any scenario (a table's rows out of
    /// order after a move) is left out; the first, the current one, always
    /// loads.
    pub(super) fn score(
        &self,
        candidates: &[Vec<Value>],
        (goals, held): (&[Goal], &[Held]),
        plan: &Plan,
    ) -> Result<(Vec<Scored>, usize)> {
        let mut loaded: Vec<Vec<Scenario>> = Vec::new();
        let mut kept = Vec::new();
        'candidate: for (k, c) in candidates.iter().enumerate() {
            let mut each = Vec::new();
            for b in 0..self.battles.len() {
                match self.candidate(c, b) {
                    Ok(s) => each.push(s),
                    Err(e) if k == 0 => return Err(e),
                    Err(_) => continue 'candidate,
                }
            }
            loaded.push(each);
            kept.push(c);
        }
        let mut threads = 1;
        // Each held goal's measure, and the standard error of its paired
        // difference from the current candidate's, candidate by candidate.
        let mut measured: Vec<Vec<Option<Measured>>> = vec![vec![None; held.len()]; kept.len()];
        let mut errors: Vec<Vec<f64>> = (0..kept.len()).map(|_| vec![0.0; held.len()]).collect();
        for b in 0..self.battles.len() {
            // A battle with exact odds is scored by them: no battle fought,
            // no noise in its goals' differences.
            if self.exact_in(b) {
                for (c, each) in loaded.iter().enumerate() {
                    let odds = with_combined_as(&metric_layout(&each[b]), &each[b].battle.exact()?);
                    for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                        let target = &goals[h.goal].target;
                        let value = target.exact_estimate(&odds)?;
                        let spread = if target.is_mean() {
                            spread(&odds[target.mean_metric(&odds)?])
                        } else {
                            0.0
                        };
                        measured[c][k] = Some(Measured::Exact(value, spread));
                    }
                }
                continue;
            }
            let named: Vec<(String, &Scenario)> = (kept.iter().zip(&loaded))
                .map(|(c, each)| (self.name(c), &each[b]))
                .collect();
            // The events held here, as targets: what makes the paired
            // engine count the battles in which both candidates had them.
            let raw = metric_layout(&loaded[0][b]);
            let targets: Vec<(usize, Target)> = (held.iter().enumerate())
                .filter(|(_, h)| h.battle == b)
                .map(|(k, h)| (k, goals[h.goal].target.clone()))
                .filter(|(_, t)| !t.is_mean() && t.event(&raw).is_ok())
                .collect();
            let asked: Vec<Target> = targets.iter().map(|(_, t)| t.clone()).collect();
            let done = simulate_variants(&named, &asked, plan)?;
            threads = threads.max(done.threads);
            self.count(self.trials * named.len() as u64);
            let all: Vec<Vec<Metric<u64>>> = (done.variants.iter())
                .map(|v| with_combined(&v.metrics))
                .collect();
            for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                for (c, m) in measured.iter_mut().enumerate() {
                    m[k] = Some(measure(&goals[h.goal], &all[c])?);
                }
            }
            for (c, v) in done.variants.iter().enumerate().skip(1) {
                for (k, t) in &targets {
                    let both = (v.shared.iter())
                        .find(|s| {
                            s.subject == t.subject
                                && s.metric == t.outcome_name()
                                && s.value == "yes"
                        })
                        .map(|s| s.battles);
                    if let (
                        Some(both),
                        Some(Measured::Share(x0, n)),
                        Some(Measured::Share(x1, _)),
                    ) = (both, &measured[0][*k], &measured[c][*k])
                    {
                        errors[c][*k] = paired_share_error(*n, *x0, *x1, both);
                    }
                }
                for (k, h) in held.iter().enumerate().filter(|(_, h)| h.battle == b) {
                    let g = &goals[h.goal];
                    if !g.target.is_mean() {
                        continue;
                    }
                    let Ok(at) = g.target.mean_metric(&all[0]) else {
                        continue;
                    };
                    let m = &all[0][at];
                    if let Some(p) = (v.paired_means.iter())
                        .find(|p| p.subject == m.subject && p.metric == m.name)
                    {
                        errors[c][k] = paired_mean_error(&p.sums);
                    }
                }
            }
        }
        let scored = (kept.into_iter().zip(measured).zip(errors))
            .map(|((at, measured), errors)| {
                let measured: Vec<Measured> = measured
                    .into_iter()
                    .map(|m| m.expect("every held goal is measured"))
                    .collect();
                let estimates: Vec<f64> = measured.iter().map(Measured::estimate).collect();
                // An exact goal's spread is 0 where it is a share: the race
                // reads it as known, not sampled.
                let spreads = (measured.iter())
                    .map(|m| match *m {
                        Measured::Share(..) => 0.5,
                        Measured::Mean(_, sd, _) | Measured::Exact(_, sd) => sd,
                    })
                    .collect();
                let shortfalls: Vec<f64> = (held.iter().zip(&measured))
                    .map(|(h, m)| {
                        let spread = match *m {
                            Measured::Share(..) => {
                                let p = m.estimate();
                                (p * (1.0 - p)).sqrt()
                            }
                            Measured::Mean(_, sd, _) => sd,
                            // Known exactly: no margin to keep clear of.
                            Measured::Exact(..) => 0.0,
                        };
                        goals[h.goal].shortfall_within(m.estimate(), self.margin * spread)
                    })
                    .collect();
                // In the total's units: each goal's over its own scale.
                let noise = (held.iter().zip(&errors))
                    .map(|(h, e)| {
                        let g = &goals[h.goal];
                        let unit = if g.target.is_mean() { 1.0 } else { 100.0 };
                        g.weighed(unit * e).powi(2)
                    })
                    .sum::<f64>()
                    .sqrt();
                Scored {
                    at: at.clone(),
                    total: weighed_total(goals, held, &shortfalls),
                    estimates,
                    spreads,
                    shortfalls,
                    noise,
                }
            })
            .collect();
        Ok((scored, threads))
    }
}

/// Each held goal's shortfall over its own scale, times its weight, summed.
pub(super) fn weighed_total(goals: &[Goal], held: &[Held], shortfalls: &[f64]) -> f64 {
    (held.iter().zip(shortfalls))
        .map(|(h, &s)| goals[h.goal].weighed(s))
        .sum()
}

/// The standard error of a paired difference of two shares of `n`
/// battles (`x0` and `x1` with the event, `both` with it in both).
pub(super) fn paired_share_error(n: u64, x0: u64, x1: u64, both: u64) -> f64 {
    let n = n.max(1) as f64;
    let (b, c) = ((x1 - both.min(x1)) as f64, (x0 - both.min(x0)) as f64);
    ((b + c) / n - ((b - c) / n).powi(2)).max(0.0).sqrt() / n.sqrt()
}

/// The standard error of a paired difference of two means.
pub(super) fn paired_mean_error(sums: &crate::stats::paired_mean::PairedSums) -> f64 {
    let n = sums.battles as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean = sums.sum as f64 / n;
    let variance = ((sums.squares as f64 - n * mean * mean) / (n - 1.0)).max(0.0);
    (variance / n).sqrt()
}

/// A goal's outcome as counted.
#[derive(Debug, Clone)]
pub(super) enum Measured {
    /// An event: battles with it, of all battles.
    Share(u64, u64),
    /// A mean, its standard deviation and the battles.
    Mean(f64, f64, u64),
    /// Known exactly: the value, and (a mean's) standard deviation.
    Exact(f64, f64),
}

impl Measured {
    pub(super) fn estimate(&self) -> f64 {
        match *self {
            Measured::Share(x, n) => x as f64 / n.max(1) as f64,
            Measured::Mean(mean, _, _) | Measured::Exact(mean, _) => mean,
        }
    }

    /// The interval at normal quantile `z`: Wilson for a share, normal for a mean.
    pub(super) fn interval(&self, z: f64) -> (f64, f64) {
        match *self {
            Measured::Share(x, n) => wilson(x, n, z),
            Measured::Mean(mean, sd, n) => {
                let half = z * sd / (n.max(1) as f64).sqrt();
                (mean - half, mean + half)
            }
            Measured::Exact(value, _) => (value, value),
        }
    }
}

/// A goal's outcome in a battle's metrics (its combined ones too).
pub(super) fn measure(g: &Goal, metrics: &[Metric<u64>]) -> Result<Measured> {
    if g.target.is_mean() {
        let m = &metrics[g.target.mean_metric(metrics)?];
        let s = m
            .summary()
            .ok_or_else(|| anyhow::anyhow!("--goal {}: no battle was counted", g.text))?;
        Ok(Measured::Mean(s.mean, s.std_dev, s.trials))
    } else {
        let e = g.target.event(metrics)?;
        let m = &metrics[e.metric];
        let x: u64 = e.bins.iter().map(|&b| m.weights[b]).sum();
        Ok(Measured::Share(x, m.total()))
    }
}

/// The standard deviation of a numeric metric's exact distribution.
pub(super) fn spread(m: &Metric<f64>) -> f64 {
    let Values::Integers { first } = m.values else {
        return 0.0;
    };
    let total: f64 = m.weights.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let value = |b: usize| (first + b as i64) as f64;
    let mean = (m.weights.iter().enumerate())
        .map(|(b, w)| value(b) * w)
        .sum::<f64>()
        / total;
    let variance = (m.weights.iter().enumerate())
        .map(|(b, w)| (value(b) - mean).powi(2) * w)
        .sum::<f64>()
        / total;
    variance.max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_of_an_exact_distribution() {
        // Values 1 and 3, half each: mean 2, standard deviation 1.
        let m = Metric {
            subject: "hero:A".to_owned(),
            name: "reputation".to_owned(),
            values: Values::Integers { first: 1 },
            weights: vec![0.5, 0.0, 0.5],
            role: Default::default(),
        };
        assert!((spread(&m) - 1.0).abs() < 1e-12);
    }
}
