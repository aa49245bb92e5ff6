//! `--target "SUBJECT/METRIC=VALUE[|VALUE…]"`: the event a question is
//! about, e.g. `side:Megalos/victory=won` or `party/any_down_or_dead=yes`.

use anyhow::{Result, bail};

use crate::paired::Event;
use crate::stats::{Metric, Values};

/// An event named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The subject: `side:Megalos`, `hero:Titus`, `party`, `battle`.
    pub subject: String,
    /// The metric: `victory`, `state`, `any_down_or_dead`.
    pub metric: String,
    /// The values that make the event.
    pub values: Vec<String>,
}

const USAGE: &str = "expected SUBJECT/METRIC=VALUE[|VALUE...], e.g. \"side:Megalos/victory=won\" or \"hero:Titus/state=down|dead\"";

impl Target {
    /// Parses the text of `--target`.
    pub fn parse(text: &str) -> Result<Target> {
        let Some((name, values)) = text.split_once('=') else {
            bail!("--target {text}: {USAGE}");
        };
        let Some((subject, metric)) = name.trim().rsplit_once('/') else {
            bail!("--target {text}: {USAGE}");
        };
        let values: Vec<String> = values.split('|').map(|v| v.trim().to_owned()).collect();
        if subject.trim().is_empty()
            || metric.trim().is_empty()
            || values.iter().any(String::is_empty)
        {
            bail!("--target {text}: {USAGE}");
        }
        Ok(Target {
            subject: subject.trim().to_owned(),
            metric: metric.trim().to_owned(),
            values,
        })
    }

    /// The event as written: `side:Megalos/victory=won`.
    pub fn text(&self) -> String {
        format!("{}/{}={}", self.subject, self.metric, self.values.join("|"))
    }

    /// The event in `metrics`, or an error listing what there is.
    pub fn event<W: Copy>(&self, metrics: &[Metric<W>]) -> Result<Event> {
        let shown = self.text();
        let Some(metric) = metrics
            .iter()
            .position(|m| m.subject == self.subject && m.name == self.metric)
        else {
            let same_subject: Vec<&str> = metrics
                .iter()
                .filter(|m| m.subject == self.subject)
                .map(|m| m.name.as_str())
                .collect();
            if same_subject.is_empty() {
                let mut subjects: Vec<&str> = metrics.iter().map(|m| m.subject.as_str()).collect();
                subjects.dedup();
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
            );
        };
        let m = &metrics[metric];
        let mut bins = Vec::new();
        for value in &self.values {
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
        assert!(check_probability("--equals", 1.0).is_err());
        assert!(check_probability("--equals", 0.5).is_ok());
    }
}
