//! `--target "SUBJECT/METRIC=VALUE[|VALUE…]"`, or a threshold on a
//! numeric metric (`SUBJECT/METRIC>=N`, also `<=`, `>`, `<`): the event a
//! question is about, e.g. `side:Megalos/victory=won`,
//! `party/any_down_or_dead=yes` or `hero:Isabeau/reputation>=10`; or a
//! numeric metric's mean, `SUBJECT/METRIC:mean`
//! (`hero:Isabeau/reputation:mean`), for the questions that compare
//! variants (`sensitivity`, `solve`, `compare`).

use anyhow::{Result, bail};

use crate::engine::paired::Event;
use crate::stats::{Metric, MetricRole, Values, Weight};

/// An event named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The subject: `side:Megalos`, `hero:Titus`, `party`, `battle`.
    pub subject: String,
    /// The metric: `victory`, `state`, `any_down_or_dead`.
    pub metric: String,
    /// What makes the event.
    pub condition: Condition,
}

/// What makes a target's event: one of some values, or a numeric metric
/// against a threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// `=VALUE|VALUE…`.
    OneOf(Vec<String>),
    /// `>=N`, `<=N`, `>N`, `<N`.
    Threshold(Comparison, i64),
    /// `:mean`: not an event but the metric's mean.
    Mean,
}

/// How a value compares with a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `>=`
    AtLeast,
    /// `<=`
    AtMost,
    /// `>`
    Above,
    /// `<`
    Below,
}

impl Comparison {
    const ALL: [(&'static str, Comparison); 4] = [
        (">=", Comparison::AtLeast),
        ("<=", Comparison::AtMost),
        (">", Comparison::Above),
        ("<", Comparison::Below),
    ];

    fn symbol(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .expect("every comparison has a symbol")
            .0
    }

    fn holds(self, value: i64, threshold: i64) -> bool {
        match self {
            Comparison::AtLeast => value >= threshold,
            Comparison::AtMost => value <= threshold,
            Comparison::Above => value > threshold,
            Comparison::Below => value < threshold,
        }
    }
}

const USAGE: &str = "expected SUBJECT/METRIC=VALUE[|VALUE...] or, for a numeric metric, SUBJECT/METRIC>=N (also <=, >, <) or SUBJECT/METRIC:mean, e.g. \"side:Megalos/victory=won\", \"hero:Titus/state=down|dead\", \"hero:Isabeau/reputation>=10\" or \"hero:Isabeau/reputation:mean\"";

/// The suffix that makes a target a mean.
const MEAN: &str = ":mean";

/// A target's text split into the metric (`hero:Titus/state`) and the
/// condition as written (`down|dead`, `>=10`, `mean`).
pub fn split_text(text: &str) -> (&str, &str) {
    if let Some(metric) = text.strip_suffix(MEAN) {
        return (metric, &MEAN[1..]);
    }
    match text.find(['<', '>', '=']) {
        Some(i) => {
            let condition = &text[i..];
            (&text[..i], condition.strip_prefix('=').unwrap_or(condition))
        }
        None => (text, ""),
    }
}

impl Target {
    /// Parses the text of `--target`.
    pub fn parse(text: &str) -> Result<Target> {
        if let Some(name) = text.trim().strip_suffix(MEAN)
            && !name.contains(['<', '>', '='])
        {
            return match name.rsplit_once('/') {
                Some((subject, metric))
                    if !subject.trim().is_empty() && !metric.trim().is_empty() =>
                {
                    Ok(Target {
                        subject: subject.trim().to_owned(),
                        metric: metric.trim().to_owned(),
                        condition: Condition::Mean,
                    })
                }
                _ => bail!("--target {text}: {USAGE}"),
            };
        }
        let Some(at) = text.find(['<', '>', '=']) else {
            bail!("--target {text}: {USAGE}");
        };
        let (name, rest) = text.split_at(at);
        let Some((subject, metric)) = name.trim().rsplit_once('/') else {
            bail!("--target {text}: {USAGE}");
        };
        let condition = match Comparison::ALL
            .iter()
            .find(|(symbol, _)| rest.starts_with(symbol))
        {
            Some(&(symbol, comparison)) => {
                let number = rest[symbol.len()..].trim();
                let threshold = number.parse::<i64>().map_err(|_| {
                    anyhow::anyhow!(
                        "--target {text}: `{number}` is not a whole number; a threshold compares a numeric metric with one, e.g. \"hero:Isabeau/reputation>=10\""
                    )
                })?;
                Condition::Threshold(comparison, threshold)
            }
            None => {
                let values: Vec<String> =
                    rest[1..].split('|').map(|v| v.trim().to_owned()).collect();
                if values.iter().any(String::is_empty) {
                    bail!("--target {text}: {USAGE}");
                }
                Condition::OneOf(values)
            }
        };
        if subject.trim().is_empty() || metric.trim().is_empty() {
            bail!("--target {text}: {USAGE}");
        }
        Ok(Target {
            subject: subject.trim().to_owned(),
            metric: metric.trim().to_owned(),
            condition,
        })
    }

    /// The event as written: `side:Megalos/victory=won`,
    /// `hero:Isabeau/reputation>=10`.
    pub fn text(&self) -> String {
        match &self.condition {
            Condition::OneOf(values) => {
                format!("{}/{}={}", self.subject, self.metric, values.join("|"))
            }
            Condition::Threshold(comparison, n) => {
                format!("{}/{}{}{n}", self.subject, self.metric, comparison.symbol())
            }
            Condition::Mean => format!("{}/{}{MEAN}", self.subject, self.metric),
        }
    }

    /// Whether the target is a mean, not an event.
    pub fn is_mean(&self) -> bool {
        self.condition == Condition::Mean
    }

    /// What is measured of it: a probability or a mean.
    pub fn quantity(&self) -> Quantity {
        if self.is_mean() {
            Quantity::Mean
        } else {
            Quantity::Probability
        }
    }

    /// The index in `metrics` of the metric the target names, or an error
    /// listing what there is.
    fn find<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<usize> {
        let shown = self.text();
        if let Some(i) = metrics
            .iter()
            .position(|m| m.subject == self.subject && m.name == self.metric)
        {
            return Ok(i);
        }
        let same_subject: Vec<&str> = metrics
            .iter()
            .filter(|m| m.subject == self.subject)
            .map(|m| m.name.as_str())
            .collect();
        if same_subject.is_empty() {
            let mut subjects: Vec<&str> = Vec::new();
            for m in metrics {
                if !subjects.contains(&m.subject.as_str()) {
                    subjects.push(&m.subject);
                }
            }
            bail!(
                "--target {shown}: no subject `{}`; allowed: {}",
                self.subject,
                subjects.join(", ")
            );
        }
        bail!(
            "--target {shown}: `{}` has no metric `{}`; allowed: {}",
            self.subject,
            self.metric,
            same_subject.join(", ")
        )
    }

    /// The index in `metrics` of the numeric metric whose mean the target
    /// asks for; an error for an event, or for a metric that is no number.
    pub fn mean_metric<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<usize> {
        let shown = self.text();
        if !self.is_mean() {
            bail!("--target {shown}: an event, not a mean (SUBJECT/METRIC:mean)");
        }
        let metric = self.find(metrics)?;
        let m = &metrics[metric];
        if let Values::Categories(labels) = &m.values {
            bail!(
                "--target {shown}: `{}/{}` is not a number, so it has no mean; name its values instead: {}/{}=VALUE[|VALUE...], allowed: {}",
                self.subject,
                self.metric,
                self.subject,
                self.metric,
                labels.join(", ")
            );
        }
        Ok(metric)
    }

    /// The event in `metrics`, or an error listing what there is.
    pub fn event<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<Event> {
        let shown = self.text();
        let metric = self.find(metrics)?;
        let m = &metrics[metric];
        let values = match &self.condition {
            Condition::Mean => bail!(
                "--target {shown}: a mean is not an event; this question takes an event: SUBJECT/METRIC=VALUE[|VALUE...] or SUBJECT/METRIC>=N (sensitivity, solve and compare also take a mean)"
            ),
            Condition::OneOf(values) => values,
            &Condition::Threshold(comparison, threshold) => {
                let Values::Integers { first } = m.values else {
                    let Values::Categories(labels) = &m.values else {
                        unreachable!("a metric is categorical or numeric")
                    };
                    bail!(
                        "--target {shown}: `{}/{}` is not a number, so it takes no threshold; name its values instead: =VALUE[|VALUE...], allowed: {}",
                        self.subject,
                        self.metric,
                        labels.join(", ")
                    );
                };
                let bins = (0..m.weights.len())
                    .filter(|&b| comparison.holds(first + b as i64, threshold))
                    .collect();
                return Ok(Event { metric, bins });
            }
        };
        let mut bins = Vec::new();
        for value in values {
            let bin = match &m.values {
                Values::Categories(labels) => labels.iter().position(|l| l == value),
                Values::Integers { first } => value
                    .parse::<i64>()
                    .ok()
                    .and_then(|v| usize::try_from(v - first).ok())
                    .filter(|&b| b < m.weights.len()),
            };
            let Some(bin) = bin else {
                let allowed = match &m.values {
                    Values::Categories(labels) => labels.join(", "),
                    Values::Integers { first } => {
                        format!("integers {first} to {}", first + m.weights.len() as i64 - 1)
                    }
                };
                bail!(
                    "--target {shown}: `{}/{}` has no value `{value}`; allowed: {allowed}",
                    self.subject,
                    self.metric
                );
            };
            if !bins.contains(&bin) {
                bins.push(bin);
            }
        }
        Ok(Event { metric, bins })
    }

    /// The name of the yes/no outcome the target adds to a run's results:
    /// the metric with its condition, `reputation>=10`, `state=down|dead`.
    pub fn outcome_name(&self) -> String {
        let text = self.text();
        text[self.subject.len() + 1..].to_owned()
    }

    /// The event as an outcome of its own (bins `no`, `yes`), read off
    /// `metrics`: what `--target` adds to a run's, a sweep's or a
    /// comparison's results.
    pub fn outcome<W: Weight>(&self, metrics: &[Metric<W>]) -> Result<Metric<W>> {
        let event = self.event(metrics)?;
        let (mut no, mut yes) = (W::default(), W::default());
        for (bin, &w) in metrics[event.metric].weights.iter().enumerate() {
            if event.bins.contains(&bin) {
                yes += w;
            } else {
                no += w;
            }
        }
        Ok(
            Metric::categorical(&self.subject, &self.outcome_name(), &YES_NO, &[no, yes])
                .with_role(MetricRole::Target),
        )
    }

    /// The mean of the target's metric in exact distributions.
    pub fn exact_mean(&self, metrics: &[Metric<f64>]) -> Result<f64> {
        let m = &metrics[self.mean_metric(metrics)?];
        let Values::Integers { first } = m.values else {
            unreachable!("a mean target's metric is numeric")
        };
        let total: f64 = m.weights.iter().sum();
        Ok(m.weights
            .iter()
            .enumerate()
            .map(|(b, &w)| (first + b as i64) as f64 * w)
            .sum::<f64>()
            / total)
    }

    /// The target's estimate in exact distributions: the event's
    /// probability, or the metric's mean.
    pub fn exact_estimate(&self, metrics: &[Metric<f64>]) -> Result<f64> {
        if self.is_mean() {
            self.exact_mean(metrics)
        } else {
            self.exact_probability(metrics)
        }
    }

    /// The event's probability in exact distributions.
    pub fn exact_probability(&self, metrics: &[Metric<f64>]) -> Result<f64> {
        let event = self.event(metrics)?;
        Ok(event
            .bins
            .iter()
            .map(|&b| metrics[event.metric].weights[b])
            .sum())
    }
}

/// What an analysis measures of its target: an event's probability or a
/// numeric outcome's mean; how each is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// `P(side:A/victory=won)`, in percent; changes in percentage points.
    Probability,
    /// The mean of `hero:A/reputation`, in the outcome's own units.
    Mean,
}

impl Quantity {
    /// Its name in column headers: `probability`, `mean`.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Probability => "probability",
            Quantity::Mean => "mean",
        }
    }

    /// The quantity of `target` (as written) in words:
    /// `P(side:A/victory=won)`, `the mean of hero:A/reputation`.
    pub fn of_target(self, target: &str) -> String {
        match self {
            Quantity::Probability => format!("P({target})"),
            Quantity::Mean => format!(
                "the mean of {}",
                target.strip_suffix(":mean").unwrap_or(target)
            ),
        }
    }

    /// A value as written: `12.30%`, `4.512`.
    pub fn value(self, x: f64) -> String {
        match self {
            Quantity::Probability => crate::stats::format::percent(x),
            Quantity::Mean => crate::stats::format::signed(x, 3, false),
        }
    }

    /// A value as the user asked for it, with no digits it was not given:
    /// `50%`, `4.5`, `−2`.
    pub fn asked(self, x: f64) -> String {
        match self {
            Quantity::Probability => {
                format!("{}%", crate::stats::format::trim_decimal(100.0 * x, 6))
            }
            Quantity::Mean => {
                crate::stats::format::value_read(&crate::stats::format::trim_decimal(x, 6))
            }
        }
    }

    /// What a value is multiplied by on a chart's axis.
    pub fn scale(self) -> f64 {
        match self {
            Quantity::Probability => 100.0,
            Quantity::Mean => 1.0,
        }
    }

    /// A value and its 95% interval as written: `12.30%`, `11.90%`,
    /// `12.71%`; `4.512`, `4.401`, `4.623`.
    pub fn interval(self, x: f64, low: f64, high: f64) -> [String; 3] {
        match self {
            Quantity::Probability => crate::stats::format::percent_interval(x, low, high),
            Quantity::Mean => crate::stats::format::with_interval(x, (low, high), false),
        }
    }

    /// A change and its interval's ends as written, signed on the change,
    /// without its unit, in the reports' one style: `+2.2`, `1.9`, `2.5`
    /// (percentage points); `−0.41`, `−0.44`, `−0.38`.
    pub fn change(self, (d, low, high): (f64, f64, f64)) -> [String; 3] {
        let k = self.scale();
        crate::stats::format::with_interval(k * d, (k * low, k * high), true)
    }

    /// The unit of a change, after a space where it has one: ` pt`, ``.
    pub fn change_unit(self) -> &'static str {
        match self {
            Quantity::Probability => " pt",
            Quantity::Mean => "",
        }
    }

    /// The unit of a change in words: `percentage points`, `the outcome's units`.
    pub fn change_words(self) -> &'static str {
        match self {
            Quantity::Probability => "percentage points",
            Quantity::Mean => "the outcome's own units",
        }
    }
}

/// `--balance SUBJECT`: a side's battles won against those it lost
/// (`side:Megalos`), or a war-cards battle's attacker against its defender
/// (`battle`). Draws count for neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    /// The subject whose victory (or winner) metric is balanced.
    pub subject: String,
}

/// What a balance compares, found in a battle's metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceEvents {
    /// Battles the first party won.
    pub won: Event,
    /// Battles either party won (the first won or lost).
    pub decided: Event,
    /// The event in words: `side:Megalos won, of the battles it won or lost`.
    pub text: String,
}

impl Balance {
    /// The won and decided events in `metrics`, or an error listing the
    /// subjects that can be balanced.
    pub fn events<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<BalanceEvents> {
        for (i, m) in metrics.iter().enumerate() {
            if m.subject != self.subject {
                continue;
            }
            let text = match &m.role {
                MetricRole::Victory { .. } => {
                    format!("{} won, of the battles it won or lost", self.subject)
                }
                MetricRole::Winner { units } => format!(
                    "{} (attacker) won, of the battles {} or {} won",
                    units[0], units[0], units[1]
                ),
                _ => continue,
            };
            return Ok(BalanceEvents {
                won: Event {
                    metric: i,
                    bins: vec![0],
                },
                decided: Event {
                    metric: i,
                    bins: vec![0, 1],
                },
                text,
            });
        }
        let allowed: Vec<&str> = metrics
            .iter()
            .filter(|m| {
                matches!(
                    m.role,
                    MetricRole::Victory { .. } | MetricRole::Winner { .. }
                )
            })
            .map(|m| m.subject.as_str())
            .collect();
        bail!(
            "--balance {}: no side or battle of that name wins or loses here; allowed: {}",
            self.subject,
            allowed.join(", ")
        )
    }
}

impl BalanceEvents {
    /// P(won | won or lost) in exact distributions; `None` when no
    /// battle is won or lost.
    pub fn exact_share(&self, metrics: &[Metric<f64>]) -> Option<f64> {
        let sum = |e: &Event| -> f64 { e.bins.iter().map(|&b| metrics[e.metric].weights[b]).sum() };
        let decided = sum(&self.decided);
        (decided > 0.0).then(|| sum(&self.won) / decided)
    }
}

/// The bins of a target's outcome.
pub const YES_NO: [&str; 2] = ["no", "yes"];

/// Parses every `--target` of a run, a sweep or a comparison.
pub fn parse_all(texts: &[String]) -> Result<Vec<Target>> {
    let targets = texts
        .iter()
        .map(|t| Target::parse(t))
        .collect::<Result<Vec<_>>>()?;
    for (i, t) in targets.iter().enumerate() {
        if targets[..i].contains(t) {
            bail!("--target {}: given twice", t.text());
        }
    }
    Ok(targets)
}

/// Parses the `--target`s of a question that takes events only (`run`,
/// `sweep`): a mean is refused, saying where it is reported.
pub fn parse_events(texts: &[String], command: &str) -> Result<Vec<Target>> {
    let targets = parse_all(texts)?;
    if let Some(t) = targets.iter().find(|t| t.is_mean()) {
        bail!(
            "--target {}: `{command}` takes events, and reports every numeric outcome's mean already (summary.csv); a mean is a target of `sensitivity`, `solve` and `compare`",
            t.text()
        );
    }
    Ok(targets)
}

/// `metrics` with each event target's yes/no outcome appended (a mean
/// target adds none: its metric is reported already).
pub fn add_outcomes<W: Weight>(metrics: &mut Vec<Metric<W>>, targets: &[Target]) -> Result<()> {
    for t in targets.iter().filter(|t| !t.is_mean()) {
        let outcome = t.outcome(metrics)?;
        metrics.push(outcome);
    }
    Ok(())
}

/// The outcomes the verdict combines from several values, as targets:
/// each PC out of action where that is more than one state
/// (`hero:Titus/state=down|dead`).
pub fn combined_targets<W: Copy>(metrics: &[Metric<W>]) -> Vec<Target> {
    metrics
        .iter()
        .filter_map(|m| match &m.role {
            MetricRole::Fate { out, .. } if out.len() > 1 => Some(Target {
                subject: m.subject.clone(),
                metric: m.name.clone(),
                condition: Condition::OneOf(out.iter().map(|&b| m.label(b)).collect()),
            }),
            _ => None,
        })
        .collect()
}

/// `metrics` with the verdict's combined outcomes ([`combined_targets`])
/// appended as yes/no outcomes, those a `--target` already added left
/// out: what the tables list, so each number the verdict states is a row.
pub fn with_combined<W: Weight>(metrics: &[Metric<W>]) -> Vec<Metric<W>> {
    with_combined_as(metrics, metrics)
}

/// [`with_combined`] of `metrics` (exact odds, which carry no roles) with
/// the outcomes `layout` (the simulation's metrics of the same battle)
/// combines; one whose values `metrics` lack is left out.
pub fn with_combined_as<W: Weight, L: Copy>(
    layout: &[Metric<L>],
    metrics: &[Metric<W>],
) -> Vec<Metric<W>> {
    let mut all = metrics.to_vec();
    for t in combined_targets(layout) {
        let name = t.outcome_name();
        if metrics
            .iter()
            .any(|m| m.subject == t.subject && m.name == name)
        {
            continue;
        }
        if let Ok(outcome) = t.outcome(metrics) {
            all.push(outcome);
        }
    }
    all
}

/// Checks a probability given to `option`: strictly between 0 and 1.
pub fn check_probability(option: &str, p: f64) -> Result<f64> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        bail!(
            "{option} = {p} is out of range; allowed: a probability above 0 and below 1, e.g. 0.5"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Vec<Metric<u64>> {
        vec![
            Metric::categorical("hero:Titus", "state", &["fine", "down", "dead"], &[5, 3, 2]),
            Metric::integers("party", "down_or_dead", 0, &[4, 5, 1]),
        ]
    }

    #[test]
    fn a_target_names_bins_of_a_metric() {
        let t = Target::parse("hero:Titus/state=down|dead").unwrap();
        assert_eq!(
            t.event(&metrics()).unwrap(),
            Event {
                metric: 0,
                bins: vec![1, 2]
            }
        );
        let t = Target::parse("party/down_or_dead=2").unwrap();
        assert_eq!(
            t.event(&metrics()).unwrap(),
            Event {
                metric: 1,
                bins: vec![2]
            }
        );
        assert_eq!(t.text(), "party/down_or_dead=2");
    }

    #[test]
    fn a_threshold_takes_every_value_on_its_side() {
        // `party/down_or_dead` counts 0, 1 and 2.
        let bins = |text: &str| {
            let t = Target::parse(text).unwrap();
            assert_eq!(t.text(), text.replace(' ', ""));
            t.event(&metrics()).unwrap().bins
        };
        assert_eq!(bins("party/down_or_dead>=1"), [1, 2]);
        assert_eq!(bins("party/down_or_dead> 1"), [2]);
        assert_eq!(bins("party/down_or_dead<=1"), [0, 1]);
        assert_eq!(bins("party/down_or_dead<1"), [0]);
        assert!(bins("party/down_or_dead>=5").is_empty(), "never reached");
        assert_eq!(
            split_text("hero:Ann/reputation>=10"),
            ("hero:Ann/reputation", ">=10")
        );
        assert_eq!(
            split_text("hero:Ann/state=down|dead"),
            ("hero:Ann/state", "down|dead")
        );
    }

    #[test]
    fn a_wrong_target_says_what_is_allowed() {
        let err = |text: &str| {
            Target::parse(text)
                .and_then(|t| t.event(&metrics()))
                .unwrap_err()
                .to_string()
        };
        assert!(err("hero:Tutus/state=down").contains("allowed: hero:Titus, party"));
        assert!(err("hero:Titus/fame=3").contains("allowed: state"));
        assert!(err("hero:Titus/state=hurt").contains("allowed: fine, down, dead"));
        assert!(err("party/down_or_dead=3").contains("integers 0 to 2"));
        assert!(err("party=3").contains("SUBJECT/METRIC=VALUE"));
        assert!(err("hero:Titus/state>=1").contains("takes no threshold"));
        assert!(err("hero:Titus/state>=1").contains("allowed: fine, down, dead"));
        assert!(err("party/down_or_dead>=x").contains("not a whole number"));
        assert!(check_probability("--equals", 1.0).is_err());
        assert!(check_probability("--equals", 0.5).is_ok());
    }
}
