//! Subjects and metrics in words, with their units: what a chart's title,
//! axis and description say where the tables say `side:Megalos` and
//! `casualties_pct`.

/// A subject in words, as `system` names its battles: `side:Megalos` →
/// `Megalos`, `party` → `The party`, `party:Rebels` → `The Rebels' PCs`,
/// `battle` → `The battle` (the war cards: `The engagement`).
pub fn subject(system: &str, subject: &str) -> String {
    match subject.split_once(':') {
        Some(("party", side)) => format!("The {side} side's PCs"),
        Some((_, name)) => name.to_owned(),
        None if subject == "party" => "The party".to_owned(),
        None if subject == "battle" => {
            format!("The {}", crate::systems::registry::battle_noun(system)[0])
        }
        None => subject.to_owned(),
    }
}

/// A subject in words inside a sentence: `the party`, `Titus`.
pub fn subject_within(system: &str, subject_name: &str) -> String {
    let words = subject(system, subject_name);
    match words.strip_prefix("The ") {
        Some(rest) => format!("the {rest}"),
        None => words,
    }
}

/// A metric in words, with its unit where it has one: (`casualties`,
/// `% of Troop Strength`), as `system`, which reports it, says. A metric
/// the system does not word (an outcome a `--target` adds,
/// `reputation>=10`) is shown as it is named.
pub fn metric(system: &str, metric: &str) -> (String, Option<&'static str>) {
    match crate::systems::registry::metric_words(system, metric) {
        // A unit the words already say is not said again (`exchanges
        // fought`, not `exchanges fought, exchanges`).
        Some((words, unit)) => (
            words.to_owned(),
            unit.filter(|u| !words.split(' ').any(|w| w == *u)),
        ),
        None => (metric.replace('_', " "), None),
    }
}

/// A metric's value in words, as a table row or a chart's bar names it:
/// an engagement's winner by the unit's name (`Knights (attacker)`),
/// other words with spaces (`at or below 0hp`, `knocked out`). The CSV
/// keeps the value as the commands' targets spell it.
pub fn value<W: Copy>(system: &str, m: &crate::stats::Metric<W>, bin: usize) -> String {
    let label = m.label(bin);
    match &m.role {
        crate::stats::MetricRole::Winner { units } if bin < 2 => {
            format!("{} ({label})", units[bin])
        }
        _ => crate::systems::registry::value_words(system, &m.name, &label)
            .map_or_else(|| label.replace('_', " "), str::to_owned),
    }
}

/// A party's risk in words: `Someone in the party ends down or dead`,
/// `Some PC on the Rebels side ends knocked out`.
pub fn party_risk(side: &str, whole: bool, words: &str) -> String {
    if whole {
        format!("Someone in the party ends {words}")
    } else {
        format!("Some PC on the {side} side ends {words}")
    }
}

/// A target as `--target` writes it, in words: `party/any_down_or_dead=yes`
/// → `the party: anyone down or dead = yes`, `hero:Isabeau/reputation>=10`
/// → `Isabeau: Reputation gained ≥ 10 points`, `side:A/victory=won|draw` →
/// `A: victory = won or draw`, `side:A/casualties_pct>=20` → `A:
/// casualties ≥ 20% of Troop Strength` (a number compared carries the
/// metric's unit); a mean's `:mean` is left to its quantity.
pub fn target(system: &str, target: &str) -> String {
    let Some((who, what)) = target.split_once('/') else {
        return target.to_owned();
    };
    let what = what.strip_suffix(":mean").unwrap_or(what);
    let cut = what.find(['=', '<', '>']).unwrap_or(what.len());
    let (name, condition) = what.split_at(cut);
    let condition = match condition {
        "" => String::new(),
        c => {
            let (op, values) =
                match c.split_at(c.find(|ch: char| !"<>=".contains(ch)).unwrap_or(c.len())) {
                    (">=", v) => ("\u{2265}", v),
                    ("<=", v) => ("\u{2264}", v),
                    (op, v) => (op, v),
                };
            let values: Vec<String> = values.split('|').map(|v| v.replace('_', " ")).collect();
            format!(" {op} {}", values.join(" or "))
        }
    };
    let (words, unit) = metric(system, name);
    // A number compared carries the metric's unit: `casualties ≥ 20% of
    // Troop Strength`.
    let unit = match unit {
        Some(unit) if condition.ends_with(|c: char| c.is_ascii_digit()) => {
            if unit.starts_with('%') {
                unit.to_owned()
            } else {
                format!(" {unit}")
            }
        }
        _ => String::new(),
    };
    format!("{}: {words}{condition}{unit}", subject_within(system, who))
}

/// Outcomes (`subject/metric` keys or targets) in words, one after
/// another: `Megalos: victory; the party: anyone dead`.
pub fn targets(system: &str, keys: &[String]) -> String {
    (keys.iter())
        .map(|k| target(system, k))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A key or a `--set` path as people read it: `min_margin` → `Min margin`,
/// `rear.damage` → `Rear · damage`, `heroes.Varro.ht` → `Heroes · Varro ·
/// HT`, with the games' abbreviations in capitals.
pub fn setting(key: &str) -> String {
    let words: Vec<String> = key
        .split('.')
        .map(|part| {
            part.split('_')
                .map(|w| match w {
                    "ts" | "tl" | "hp" | "pc" | "pcs" | "tn" | "dr" | "ht" | "iq" | "gm" => {
                        w.to_uppercase()
                    }
                    "pct" => "%".to_owned(),
                    _ => w.to_owned(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut text = words.join(" \u{b7} ");
    if let Some(first) = text.chars().next() {
        text = first.to_uppercase().collect::<String>() + &text[first.len_utf8()..];
    }
    text
}

/// A chart's title: `Megalos — casualties, % of Troop Strength`.
pub fn title(system: &str, subject_name: &str, metric_name: &str) -> String {
    let (words, unit) = metric(system, metric_name);
    match unit {
        Some(unit) => format!("{} — {words}, {unit}", subject(system, subject_name)),
        None => format!("{} — {words}", subject(system, subject_name)),
    }
}

/// A numeric metric's axis label: `casualties (% of Troop Strength)`.
pub fn axis(system: &str, metric_name: &str) -> String {
    match metric(system, metric_name) {
        (words, Some(unit)) => format!("{words} ({unit})"),
        (words, None) => words,
    }
}

/// Tables named in words: `the glory table`, `the morale and casualties
/// tables`, `the glory, morale and casualties tables` (names with `_` read
/// as words: `battle chart`).
pub fn tables(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| n.replace('_', " ")).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => format!("the {one} table"),
        [first @ .., last] => format!("the {} and {last} tables", first.join(", ")),
    }
}

/// The mark a number resting on stand-in values carries, leading to
/// their list (the report's stand-in note).
pub const STAND_IN_MARK: &str = "†";

/// ` †` when `tables` (stand-in tables a number rests on) is not empty.
pub fn mark_if(tables: &[String]) -> String {
    if tables.is_empty() {
        String::new()
    } else {
        format!(" {STAND_IN_MARK}")
    }
}

/// What resting on stand-in `tables` means, in words: `rests on the
/// survival table, which holds stand-in values`.
pub fn rests_on_words(tables: &[String]) -> String {
    let verb = if tables.len() == 1 { "holds" } else { "hold" };
    format!(
        "rests on {}, which {verb} stand-in values",
        self::tables(tables)
    )
}

/// The line a † leads to: `† rests on the survival table, which holds
/// stand-in values`.
pub fn rests_on_line(tables: &[String]) -> String {
    format!("{STAND_IN_MARK} {}", rests_on_words(tables))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_as_settings() {
        assert_eq!(setting("min_margin"), "Min margin");
        assert_eq!(setting("own_ts_pct"), "Own TS %");
        assert_eq!(setting("rear.damage"), "Rear \u{b7} damage");
        assert_eq!(
            setting("heroes.Varro.gm_modifier"),
            "Heroes \u{b7} Varro \u{b7} GM modifier"
        );
    }

    #[test]
    fn tables_read_as_a_list() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(tables(&names(&["glory"])), "the glory table");
        assert_eq!(
            tables(&names(&["battle_chart", "spoils"])),
            "the battle chart and spoils tables"
        );
        assert_eq!(tables(&names(&["a", "b", "c"])), "the a, b and c tables");
    }

    #[test]
    fn a_target_reads_in_words() {
        assert_eq!(
            target("gurps", "side:Megalos/casualties_pct>=20"),
            "Megalos: casualties \u{2265} 20% of Troop Strength"
        );
        assert_eq!(
            target("gurps", "party/any_down_or_dead=yes"),
            "the party: anyone down or dead = yes"
        );
        assert_eq!(
            target("gurps", "side:Megalos/victory=won|draw"),
            "Megalos: victory = won or draw"
        );
        assert_eq!(
            target("seventh_sea", "hero:Isabeau/reputation>=10"),
            "Isabeau: Reputation gained \u{2265} 10 points"
        );
        assert_eq!(
            target("gurps", "hero:Titus/state=at_or_below_0hp"),
            "Titus: state after the battle = at or below 0hp"
        );
        assert_eq!(
            target("seventh_sea", "hero:Isabeau/reputation:mean"),
            "Isabeau: Reputation gained"
        );
    }

    #[test]
    fn values_read_as_words_a_reader_cannot_confuse() {
        use crate::stats::{Metric, MetricRole};
        let spoils = Metric::categorical(
            "hero:A",
            "spoils",
            &["none", "nothing", "fine_weapon_or_horse"],
            &[1, 1, 1],
        );
        let shown: Vec<String> = (0..3).map(|b| value("seventh_sea", &spoils, b)).collect();
        assert_eq!(
            shown,
            [
                "none (the Hero's side did not win)",
                "nothing (won, rolled nothing)",
                "fine weapon or horse"
            ]
        );
        let winner = Metric::categorical(
            "battle",
            "winner",
            &["attacker", "defender", "none"],
            &[1, 1, 1],
        )
        .with_role(MetricRole::Winner {
            units: ["Knights".into(), "Pikes".into()],
        });
        let shown: Vec<String> = (0..3).map(|b| value("war_cards", &winner, b)).collect();
        assert_eq!(shown, ["Knights (attacker)", "Pikes (defender)", "none"]);
    }

    #[test]
    fn titles_read_as_words_with_units() {
        assert_eq!(
            title("gurps", "side:Megalos", "casualties_pct"),
            "Megalos — casualties, % of Troop Strength"
        );
        assert_eq!(
            title("gurps", "hero:Titus", "state"),
            "Titus — state after the battle"
        );
        assert_eq!(
            title("gurps", "party", "any_down_or_dead"),
            "The party — anyone down or dead"
        );
        assert_eq!(
            title("gurps", "party:Rebels", "down_or_dead"),
            "The Rebels side's PCs — PCs down or dead"
        );
        assert_eq!(
            title("seventh_sea", "hero:Isabeau", "reputation>=10"),
            "Isabeau — reputation>=10"
        );
        assert_eq!(axis("gurps", "hp_lost"), "HP lost");
        // The battle as each system names it.
        assert_eq!(
            title("war_cards", "battle", "exchanges"),
            "The engagement — exchanges fought"
        );
        assert_eq!(
            title("gurps", "battle", "result"),
            "The battle — battle result"
        );
        // Each system its own words: one that does not word a metric shows
        // it as named, whatever another system calls a metric of that name.
        assert_eq!(
            metric("seventh_sea", "reputation"),
            ("Reputation gained".to_owned(), Some("points"))
        );
        assert_eq!(
            metric("war_cards", "reputation"),
            ("reputation".to_owned(), None)
        );
        assert_eq!(metric("gurps", "rounds"), ("rounds".to_owned(), None));
        assert_eq!(axis("gurps", "victory"), "victory");
    }
}
