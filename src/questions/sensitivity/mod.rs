//! The knobs of a scenario and their one-step moves, for
//! `warcrunch sensitivity`: every setting the file sets (each side's,
//! unit's, PC's and Hero's, and the battle's): a number moved one step down
//! and one step up, a yes/no toggled, a word to each other word it may be,
//! a list with each entry removed and each missing one added. What a
//! sensitivity asks and the moves it plans are in [`plan`]; each move's
//! row measured from the battles fought, in [`measure`].

pub mod measure;
pub mod plan;

use anyhow::Result;
use serde::Serialize;
use toml::Value;

use crate::stats::DifferenceInterval;
use crate::tables::cells::Cell;

/// Settings that are not rules of the battle.
const NOT_KNOBS: [&str; 4] = ["trials", "seed", "system", "name"];

/// Integers up to this size move by 1; larger ones by a tenth.
const SMALL_INTEGER: i64 = 20;

/// How [`Knob::moves`] steps each kind of value, in words for a report.
pub fn step_rule() -> String {
    format!(
        "Each knob moves one step down and one step up: a whole number by 1 below {SMALL_INTEGER}, by a tenth (rounded, at least 1) from {SMALL_INTEGER} up; a fraction by a tenth (0.05 at 0); a yes/no is toggled; a word moves to each other word it may be, a damage column to its neighbours, dice to one die fewer and one more; a list loses each of its entries and gains each it lacks."
    )
}

/// One number the scenario sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Knob {
    /// Its sweep path: `sides.Raiders.troop_strength`, `heroes.Titus.risk`.
    pub path: Vec<String>,
    /// Its value in the file.
    pub value: Value,
    /// The table cell it is, if it is one.
    pub cell: Option<Cell>,
    /// The words a word may be, in their order; the entries a list may
    /// hold. Empty for a number or a yes/no.
    pub choices: Vec<String>,
}

impl Knob {
    /// The path as written: `heroes.Titus.risk`.
    pub fn name(&self) -> String {
        self.path.join(".")
    }

    /// One step down and one step up (in the value's own order): ±1 for
    /// integers below [`SMALL_INTEGER`], ±10% (rounded, at least 1) for
    /// larger ones, ±10% for reals (±0.05 at 0); a yes/no toggled; a damage
    /// column to its neighbours (A, B, C, D); dice `XkY` to one die fewer
    /// and one more rolled (`-`, no damage, below `1k1`).
    pub fn moves(&self) -> Vec<Value> {
        match &self.value {
            &Value::Integer(v) => {
                let step = if v.abs() < SMALL_INTEGER {
                    1
                } else {
                    ((v.abs() as f64 * 0.1).round() as i64).max(1)
                };
                vec![Value::Integer(v - step), Value::Integer(v + step)]
            }
            &Value::Float(v) => {
                let step = if v == 0.0 { 0.05 } else { 0.1 * v.abs() };
                let round = |x: f64| (x * 1e9).round() / 1e9;
                vec![Value::Float(round(v - step)), Value::Float(round(v + step))]
            }
            &Value::Boolean(b) => vec![Value::Boolean(!b)],
            Value::String(text) if !self.choices.is_empty() => self
                .choices
                .iter()
                .filter(|c| *c != text)
                .map(|c| Value::String(c.clone()))
                .collect(),
            Value::String(text) => neighbours(text).into_iter().map(Value::String).collect(),
            Value::Array(entries) => {
                let without = (0..entries.len()).map(|i| {
                    let mut fewer = entries.clone();
                    fewer.remove(i);
                    Value::Array(fewer)
                });
                let with = self
                    .choices
                    .iter()
                    .filter(|c| !entries.iter().any(|e| e.as_str() == Some(c.as_str())))
                    .map(|c| {
                        let mut more = entries.clone();
                        more.push(Value::String(c.clone()));
                        Value::Array(more)
                    });
                without.chain(with).collect()
            }
            _ => Vec::new(),
        }
    }
}

impl Knob {
    /// Whether moving to `to` lowers the knob in its own order (a smaller
    /// number, `false` from `true`, an earlier column, fewer dice): the
    /// tornado draws such a move as the lower bar.
    pub fn lowers(&self, to: &Value) -> bool {
        match (&self.value, to) {
            (Value::String(from), Value::String(to)) if !self.choices.is_empty() => {
                let at = |w: &String| self.choices.iter().position(|c| c == w);
                at(to) < at(from)
            }
            (Value::Array(from), Value::Array(to)) => to.len() < from.len(),
            _ => place(to) < place(&self.value),
        }
    }
}

/// Where a value stands in the order [`Knob::moves`] steps through.
fn place(value: &Value) -> f64 {
    match value {
        &Value::Integer(v) => v as f64,
        &Value::Float(v) => v,
        &Value::Boolean(b) => f64::from(u8::from(b)),
        Value::String(text) => {
            if let Some(i) = COLUMNS.iter().position(|c| c == text) {
                return i as f64;
            }
            text.split_once('k')
                .and_then(|(x, y)| Some(100.0 * x.parse::<f64>().ok()? + y.parse::<f64>().ok()?))
                .unwrap_or(0.0)
        }
        _ => 0.0,
    }
}

/// Damage columns, in the table's order.
const COLUMNS: [&str; 4] = ["A", "B", "C", "D"];

/// The values beside a word in its own order: a damage column's
/// neighbours, or dice `XkY` one die fewer and one more rolled.
fn neighbours(text: &str) -> Vec<String> {
    if let Some(i) = COLUMNS.iter().position(|c| *c == text) {
        return [i.checked_sub(1), Some(i + 1).filter(|&j| j < COLUMNS.len())]
            .into_iter()
            .flatten()
            .map(|j| COLUMNS[j].to_owned())
            .collect();
    }
    if text == NO_DICE {
        return vec!["1k1".to_owned()];
    }
    let Some((x, y)) = text
        .split_once('k')
        .and_then(|(x, y)| Some((x.parse::<i64>().ok()?, y.parse::<i64>().ok()?)))
    else {
        return Vec::new();
    };
    let fewer = if x == 1 {
        NO_DICE.to_owned()
    } else {
        format!("{}k{}", x - 1, y.min(x - 1))
    };
    vec![fewer, format!("{}k{y}", x + 1)]
}

/// Dice text for no damage.
const NO_DICE: &str = "-";

/// Keys of a table file that are not cells: what the file is, its
/// stand-ins, and the names its rows go by.
const NOT_CELLS: [&str; 5] = [
    "kind",
    "stand_ins",
    crate::tables::orders::KEY,
    "label",
    "name",
];

/// A band's catch-all bound (`min_margin = -999`, a casualty row's 999):
/// every roll already lands in its row, so no move of it changes a battle.
const CATCH_ALL_BOUND: i64 = 999;

/// Every cell of a table a one-step move can change: numbers, yes/no,
/// damage columns and dice, named by their path after `tables.NAME.` (rows
/// by label, else by position from 0). A list of numbers (a range's
/// bounds, `roll = [3, 7]`) is left out: one bound moved alone leaves a
/// gap or an overlap the table refuses; move it with `--set`. A catch-all
/// bound ([`CATCH_ALL_BOUND`]) is left out too.
/// A word with no order of its own (a Catastrophe row's `commander =
/// "killed"`) moves to each other word `words` (the table's schema) lists
/// at its path within the table.
pub fn table_cells(name: &str, table: &toml::Table, words: &Words) -> Vec<Knob> {
    let mut found = Vec::new();
    cells_in(
        table,
        &mut vec!["tables".to_owned(), name.to_owned()],
        (None, words),
        &mut found,
    );
    found
}

fn cells_in(
    table: &toml::Table,
    path: &mut Vec<String>,
    (row_end, words): (Option<usize>, &Words),
    out: &mut Vec<Knob>,
) {
    for (key, value) in table {
        if NOT_CELLS.contains(&key.as_str()) {
            continue;
        }
        path.push(key.clone());
        match value {
            Value::Table(inner) => cells_in(inner, path, (row_end, words), out),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Table(row) = item {
                        path.push(
                            crate::tables::toml_path::entry_name(item)
                                .map_or_else(|| i.to_string(), str::to_owned),
                        );
                        cells_in(row, path, (row_end.or(Some(path.len())), words), out);
                        path.pop();
                    }
                }
            }
            Value::Integer(v) if v.abs() == CATCH_ALL_BOUND => {}
            other => {
                // The row ends at the first list's entry; a key outside any
                // list is its own column, in the row of its section.
                let end = row_end.unwrap_or(path.len() - 1).max(2);
                let choices = match other {
                    Value::String(text) if neighbours(text).is_empty() => words.of(&path[2..]),
                    _ => Vec::new(),
                };
                let knob = Knob {
                    path: path.clone(),
                    value: other.clone(),
                    choices,
                    cell: Some(Cell {
                        table: path[1].clone(),
                        row: path[2..end].join("."),
                        column: path[end..].join("."),
                    }),
                };
                if !knob.moves().is_empty() {
                    out.push(knob);
                }
            }
        }
        path.pop();
    }
}

/// What each word, or list of words, of a document may hold (see
/// [`Knob::choices`]), as data: the places a schema allows only certain
/// words, then the lists that take a table's entries by their last key. A
/// key in neither takes any word.
#[derive(Debug, Clone, Default)]
pub struct Words {
    /// A path pattern (a key, or `None` for any key or list entry) and the
    /// words allowed there.
    pub at: Vec<(Vec<Option<String>>, Vec<String>)>,
    /// A list's last key and the entries it may hold.
    pub by_key: Vec<(String, Vec<String>)>,
}

impl Words {
    /// The words a key at `path` may hold; empty when any word goes.
    pub fn of(&self, path: &[String]) -> Vec<String> {
        let fits = |pattern: &[Option<String>]| {
            pattern.len() == path.len()
                && pattern
                    .iter()
                    .zip(path)
                    .all(|(p, key)| p.as_ref().is_none_or(|p| p == key))
        };
        let schema = self.at.iter().find(|(pattern, _)| fits(pattern));
        let table = || self.by_key.iter().find(|(key, _)| path.last() == Some(key));
        schema
            .map(|(_, words)| words)
            .or_else(|| table().map(|(_, words)| words))
            .cloned()
            .unwrap_or_default()
    }
}

/// Every setting a scenario document sets, keys in alphabetical order,
/// with sweep paths (elements of arrays of tables by their `name`): numbers
/// and yes/no, words that `words` lists two or more values for, and lists
/// of words (each entry can be removed; `words` names those that can be
/// added).
pub fn knobs(doc: &toml::Table, words: &Words) -> Vec<Knob> {
    let mut out = Vec::new();
    walk(doc, &mut Vec::new(), words, &mut out);
    out
}

fn walk(table: &toml::Table, path: &mut Vec<String>, words: &Words, out: &mut Vec<Knob>) {
    for (key, value) in table {
        if path.is_empty() && (NOT_KNOBS.contains(&key.as_str()) || key == "tables") {
            continue;
        }
        path.push(key.clone());
        let knob = |choices: Vec<String>| Knob {
            path: path.clone(),
            value: value.clone(),
            cell: None,
            choices,
        };
        match value {
            Value::Integer(_) | Value::Float(_) | Value::Boolean(_) => out.push(knob(Vec::new())),
            Value::String(_) => {
                let allowed = words.of(path);
                if allowed.len() > 1 {
                    out.push(knob(allowed));
                }
            }
            Value::Array(items) if items.iter().all(Value::is_str) => {
                let allowed = words.of(path);
                if !items.is_empty() || !allowed.is_empty() {
                    out.push(knob(allowed));
                }
            }
            Value::Table(inner) => walk(inner, path, words, out),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Table(element) = item {
                        let name = element
                            .get("name")
                            .and_then(Value::as_str)
                            .map_or_else(|| i.to_string(), str::to_owned);
                        path.push(name);
                        walk(element, path, words, out);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// The knobs `named` (`--knobs`), each found among `all` or refused with
/// the names allowed; none named: every setting, or none with `cells`
/// (the cells are then the knobs).
pub fn chosen_knobs(all: Vec<Knob>, named: &[String], cells: bool) -> Result<Vec<Knob>> {
    if named.is_empty() {
        return Ok(if cells { Vec::new() } else { all });
    }
    named
        .iter()
        .map(|n| {
            all.iter().find(|k| k.name() == *n).cloned().ok_or_else(|| {
                // A cell is listed among its own table's cells; a setting
                // among the settings.
                let table = n
                    .strip_prefix("tables.")
                    .map(|rest| rest.split('.').next().unwrap_or(rest));
                let allowed: Vec<String> = all
                    .iter()
                    .filter(|k| k.cell.as_ref().map(|c| c.table.as_str()) == table)
                    .map(Knob::name)
                    .collect();
                match (table, allowed.is_empty()) {
                    (Some(t), true) => anyhow::anyhow!(
                        "--knobs {n}: this scenario reads no table `{t}`, or none of its cells can move"
                    ),
                    (Some(t), false) => anyhow::anyhow!(
                        "--knobs {n}: table `{t}` has no cell there that can move; allowed: {}",
                        allowed.join(", ")
                    ),
                    (None, _) => anyhow::anyhow!(
                        "--knobs {n}: the scenario sets no setting at `{n}` that can move; allowed: {}",
                        allowed.join(", ")
                    ),
                }
            })
        })
        .collect()
}

/// A value as a move's row shows it: a word bare, a list of words as its
/// entries joined with `+` (`none` when empty).
pub fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        // A list of words: its entries joined (`none` when empty).
        Value::Array(items) if items.iter().all(Value::is_str) => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if words.is_empty() {
                "none".to_owned()
            } else {
                words.join("+")
            }
        }
        other => other.to_string(),
    }
}

/// How a difference's interval was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// From the battle-by-battle pairs of a common-random-numbers run
    /// (Newcombe's paired interval).
    PairedNewcombe,
    /// From the battle-by-battle differences of a mean (Student's t on
    /// the differences).
    PairedT,
    /// Exact: no sampling, no interval.
    Exact,
}

impl Method {
    /// The name written in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Method::PairedNewcombe => "paired_newcombe",
            Method::PairedT => "paired_t",
            Method::Exact => "exact",
        }
    }
}

/// One knob moved one step, and what it did to the target's probability
/// or mean.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Move {
    /// The knob's path.
    pub knob: String,
    /// Whether the move lowers the knob in its own order.
    #[serde(skip)]
    pub lowers: bool,
    /// The table cell the knob is, if it is one.
    pub cell: Option<Cell>,
    /// Its value in the scenario.
    pub from: String,
    /// The value it was moved to.
    pub to: String,
    /// The target's probability or mean in the scenario as written.
    pub base_estimate: f64,
    /// The target's probability or mean after the move.
    pub estimate: f64,
    /// `estimate - base_estimate`, with its 95% interval.
    pub difference: DifferenceInterval,
    /// The interval two independent runs would have given (none when exact).
    pub unpaired: Option<DifferenceInterval>,
    /// For a simulated move: the battles in which the target came out
    /// differently after the move (an event happened in one of the two
    /// only, a numeric outcome took another value), and the two-sided
    /// p-value of the paired test (McNemar's, or the t-test on the
    /// differences); none when exact.
    pub paired: Option<PairedTest>,
    /// Whether the move changes the target beyond noise, family-wise over
    /// the analysis's moves (Holm at 5% on the paired tests); an exact move
    /// whenever it changes it at all. Set by [`judge`].
    pub differs: bool,
    /// How the interval was found.
    pub method: Method,
}

/// A simulated move's paired test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedTest {
    /// Battles in which the target came out differently.
    pub changed: u64,
    /// Two-sided p-value.
    pub p_value: f64,
}

impl Move {
    /// `knob` moved from `from` to `to`, nothing measured yet.
    pub fn unmeasured(
        knob: String,
        lowers: bool,
        cell: Option<Cell>,
        from: String,
        to: String,
    ) -> Move {
        Move {
            knob,
            lowers,
            cell,
            from,
            to,
            base_estimate: 0.0,
            estimate: 0.0,
            difference: DifferenceInterval {
                difference: 0.0,
                low: 0.0,
                high: 0.0,
            },
            unpaired: None,
            paired: None,
            differs: false,
            method: Method::Exact,
        }
    }

    /// Whether the target came out the same in every battle, as written and
    /// after the move (or, exactly, has the same probability or mean).
    pub fn unchanged(&self) -> bool {
        match self.paired {
            Some(t) => t.changed == 0,
            None => self.difference.difference == 0.0,
        }
    }

    /// Whether the move's 95% interval (an exact move: its change) lies
    /// within ± `amount`, in the target's own scale (a probability's
    /// fraction, a mean's units): too small to matter to one who set that
    /// amount, however sure.
    pub fn within(&self, amount: f64) -> bool {
        self.difference.low > -amount && self.difference.high < amount
    }

    /// The move's verdict in words, as every report writes it.
    pub fn verdict(&self) -> &'static str {
        match (self.unchanged(), self.paired.is_some(), self.differs) {
            (true, true, _) => "unchanged in every battle",
            (true, false, _) => "unchanged (exact)",
            (false, _, true) => "differs",
            (false, _, false) => "tied",
        }
    }
}

/// Marks which moves differ beyond noise: every exact move that changes
/// the target, and the simulated moves Holm's procedure keeps at 5%
/// family-wise over all simulated moves.
pub fn judge(moves: &mut [Move]) {
    let sampled: Vec<usize> = (0..moves.len())
        .filter(|&i| moves[i].paired.is_some())
        .collect();
    let p_values: Vec<f64> = sampled
        .iter()
        .map(|&i| moves[i].paired.expect("a simulated move").p_value)
        .collect();
    for m in moves.iter_mut() {
        m.differs = m.paired.is_none() && m.difference.difference != 0.0;
    }
    for (&i, differs) in sampled.iter().zip(crate::stats::holm(&p_values, 0.05)) {
        moves[i].differs = differs;
    }
}

/// A move that could not be made: the value is outside what the setting allows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    /// The knob's path.
    pub knob: String,
    /// The value refused.
    pub to: String,
    /// Why, as the scenario's validation says it.
    pub reason: String,
}

/// Moves ranked by how far they move the probability, largest first (ties
/// in knob order, so the ranking is reproducible).
pub fn rank(moves: &mut [Move]) {
    moves.sort_by(|a, b| {
        b.difference
            .difference
            .abs()
            .total_cmp(&a.difference.difference.abs())
            .then_with(|| a.knob.cmp(&b.knob))
            .then_with(|| a.to.cmp(&b.to))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule a report states is the rule the moves follow: whole
    /// numbers by 1 below the bound, by a tenth from it up.
    #[test]
    fn unknown_knobs_list_the_known_ones() {
        let all = vec![Knob {
            path: vec!["days".into()],
            value: Value::Integer(1),
            cell: None,
            choices: Vec::new(),
        }];
        let err = chosen_knobs(all.clone(), &["dayz".into()], false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--knobs dayz") && err.contains("allowed: days"),
            "{err}"
        );
        assert_eq!(chosen_knobs(all.clone(), &[], false).unwrap().len(), 1);
        assert!(
            chosen_knobs(all, &[], true).unwrap().is_empty(),
            "--cells alone moves cells only"
        );
    }

    #[test]
    fn the_step_rule_said_is_the_step_taken() {
        let number = |v: i64| Knob {
            path: vec!["x".into()],
            value: Value::Integer(v),
            cell: None,
            choices: Vec::new(),
        };
        let below = SMALL_INTEGER - 1;
        assert_eq!(
            number(below).moves(),
            [Value::Integer(below - 1), Value::Integer(below + 1)]
        );
        assert_eq!(number(21).moves(), [Value::Integer(19), Value::Integer(23)]);
        assert_eq!(
            number(300).moves(),
            [Value::Integer(270), Value::Integer(330)]
        );
        let rule = step_rule();
        assert!(
            rule.contains(&format!("by 1 below {SMALL_INTEGER}"))
                && rule.contains(&format!(
                    "by a tenth (rounded, at least 1) from {SMALL_INTEGER} up"
                )),
            "{rule}"
        );
    }

    #[test]
    fn words_yes_no_and_lists_are_knobs_too() {
        let doc: toml::Table = toml::from_str(
            "name = \"x\"\nsystem = \"gurps\"\n[[sides]]\nname = \"A\"\narmour = \"light\"\nluck = true\nposition = [\"hill\"]\nmotto = \"onward\"\n",
        )
        .unwrap();
        let words = Words {
            at: vec![(
                vec![Some("sides".into()), None, Some("armour".into())],
                vec!["none".into(), "light".into(), "heavy".into()],
            )],
            by_key: vec![("position".into(), vec!["hill".into(), "river".into()])],
        };
        let found = knobs(&doc, &words);
        let names: Vec<String> = found.iter().map(Knob::name).collect();
        // `motto` takes any word: not a knob; `name` and `system` never are.
        assert_eq!(
            names,
            ["sides.A.armour", "sides.A.luck", "sides.A.position"]
        );
        let word = |s: &str| Value::String(s.into());
        let armour = &found[0];
        assert_eq!(armour.moves(), [word("none"), word("heavy")]);
        assert!(armour.lowers(&word("none")) && !armour.lowers(&word("heavy")));
        assert_eq!(found[1].moves(), [Value::Boolean(false)]);
        let position = &found[2];
        let list = |w: &[&str]| Value::Array(w.iter().map(|s| word(s)).collect());
        assert_eq!(position.moves(), [list(&[]), list(&["hill", "river"])]);
        assert!(position.lowers(&list(&[])) && !position.lowers(&list(&["hill", "river"])));
    }

    #[test]
    fn knobs_are_the_numbers_the_file_sets() {
        let doc: toml::Table = toml::from_str(
            "seed = 1\ntrials = 5\ndays = 1\n[[sides]]\nname = \"A\"\nstrategy = 12\ntroop_strength = 800\ncommander = { wits = 3 }\n[engagement]\nrally_chance = 0.5\ndraw = \"die\"\n",
        )
        .unwrap();
        let names: Vec<String> = knobs(&doc, &Words::default())
            .iter()
            .map(Knob::name)
            .collect();
        assert_eq!(
            names,
            [
                "days",
                "engagement.rally_chance",
                "sides.A.commander.wits",
                "sides.A.strategy",
                "sides.A.troop_strength",
            ]
        );
        let moves: Vec<Vec<Value>> = knobs(&doc, &Words::default())
            .iter()
            .map(Knob::moves)
            .collect();
        assert_eq!(moves[3], [Value::Integer(11), Value::Integer(13)]);
        assert_eq!(moves[4], [Value::Integer(720), Value::Integer(880)]);
        assert_eq!(moves[1], [Value::Float(0.45), Value::Float(0.55)]);
        let risk = &knobs(&doc, &Words::default())[3];
        assert!(risk.lowers(&moves[3][0]) && !risk.lowers(&moves[3][1]));
    }

    #[test]
    fn a_word_with_no_order_moves_to_each_word_its_schema_allows() {
        let table: toml::Table =
            toml::from_str("[[rows]]\nlabel = \"x\"\ncommander = \"wounded\"\ncolumn = \"B\"\n")
                .unwrap();
        let allowed = Words {
            at: vec![
                (
                    vec![Some("rows".into()), None, Some("commander".into())],
                    vec!["none".into(), "wounded".into(), "killed".into()],
                ),
                (
                    vec![Some("rows".into()), None, Some("column".into())],
                    vec!["A".into(), "B".into(), "C".into(), "D".into(), "E".into()],
                ),
            ],
            by_key: Vec::new(),
        };
        let cells: Vec<(String, Vec<Value>)> = table_cells("c", &table, &allowed)
            .iter()
            .map(|k| (k.name(), k.moves()))
            .collect();
        let s = |x: &str| Value::String(x.to_owned());
        assert_eq!(
            cells,
            [
                // A damage column keeps its own order: its neighbours only.
                ("tables.c.rows.x.column".into(), vec![s("A"), s("C")]),
                (
                    "tables.c.rows.x.commander".into(),
                    vec![s("none"), s("killed")]
                ),
            ]
        );
    }

    #[test]
    fn a_tables_cells_move_in_their_own_order() {
        let table: toml::Table = toml::from_str(
            "kind = \"x\"\nstand_ins = [\"rows\"]\n[[rows]]\nlabel = \"A\"\nmin_margin = -2\ncolumn = \"A\"\nroll = [3, 7]\n\
             [[rows]]\nlabel = \"D\"\ncolumn = \"D\"\nmin_margin = -999\n[[chart]]\nengaged = { damage = \"4k3\", opportunity = true }\n\
             rear = { damage = \"-\" }\nfront = { damage = \"1k1\" }\n",
        )
        .unwrap();
        let cells: Vec<(String, Vec<Value>)> = table_cells("t", &table, &Words::default())
            .iter()
            .map(|k| (k.name(), k.moves()))
            .collect();
        let s = |x: &str| Value::String(x.to_owned());
        assert_eq!(
            cells,
            [
                (
                    "tables.t.chart.0.engaged.damage".into(),
                    vec![s("3k3"), s("5k3")]
                ),
                (
                    "tables.t.chart.0.engaged.opportunity".into(),
                    vec![Value::Boolean(false)]
                ),
                (
                    "tables.t.chart.0.front.damage".into(),
                    vec![s("-"), s("2k1")]
                ),
                ("tables.t.chart.0.rear.damage".into(), vec![s("1k1")]),
                ("tables.t.rows.A.column".into(), vec![s("B")]),
                (
                    "tables.t.rows.A.min_margin".into(),
                    vec![Value::Integer(-3), Value::Integer(-1)]
                ),
                ("tables.t.rows.D.column".into(), vec![s("C")]),
            ]
        );
        let where_: Vec<(String, String, String)> = table_cells("t", &table, &Words::default())
            .into_iter()
            .map(|k| k.cell.unwrap())
            .map(|c| (c.table, c.row, c.column))
            .collect();
        assert_eq!(
            where_[0],
            ("t".into(), "chart.0".into(), "engaged.damage".into())
        );
        assert_eq!(where_[6], ("t".into(), "rows.D".into(), "column".into()));
        let flat: toml::Table = toml::from_str("green = 10\n[weights]\ncharge = 1\n").unwrap();
        let flat: Vec<Cell> = table_cells("m", &flat, &Words::default())
            .into_iter()
            .map(|k| k.cell.unwrap())
            .collect();
        assert_eq!(
            (flat[0].row.as_str(), flat[0].column.as_str()),
            ("", "green")
        );
        assert_eq!(
            (flat[1].row.as_str(), flat[1].column.as_str()),
            ("weights", "charge")
        );
    }
}
