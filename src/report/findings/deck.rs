//! The findings of `warcrunch cards` in plain words: the deck's mean, the
//! cards ranked by impact, the rows off the deck, the columns that step the
//! wrong way and the cells out of their column's pattern (the workbench's
//! deck designer shows the same text).

use std::fmt::Write as _;

use crate::report::RunInfo;
use crate::report::findings::Flag;
use crate::stats::format::percent;
use crate::stats::format::signed;
use crate::systems::war_cards::deck::{COLUMNS, Deck};
use crate::systems::war_cards::skew::{GroupSkew, SkewAnalysis, impact_reference};

/// A finished card-skew analysis.
#[derive(Debug, Clone)]
pub struct SkewReport {
    /// Provenance.
    pub info: RunInfo,
    /// The analysis.
    pub analysis: SkewAnalysis,
}

/// A card whose impact moves the drawer's chance to win the reference
/// engagement by at least this much (in probability) is flagged.
pub const IMPACT_FLAG: f64 = 0.01;

/// Whether a card's impact is flagged: judged on the impact as printed, in
/// points with two decimals, so a card shown as `−1.00 pt` is flagged even
/// when it is −0.996 points.
pub fn impact_flagged(impact: f64) -> bool {
    (impact * 10_000.0).round().abs() >= (IMPACT_FLAG * 10_000.0).round()
}

/// The ranked list of what is out of line, in plain words.
pub fn findings(deck: &Deck, source: &str, a: &SkewAnalysis) -> String {
    let mut out = String::new();
    let stand_ins = if deck.stand_ins.is_empty() {
        "none".to_owned()
    } else {
        deck.stand_ins.join(", ")
    };
    let _ = writeln!(
        out,
        "Deck: {source}, {} cards, {} cells (stand-ins: {stand_ins})",
        deck.cards.len(),
        deck.cards.len() * 63
    );
    let deck_group = a.scope("deck").next().expect("deck group");
    let _ = writeln!(
        out,
        "Deck mean: {}; hurt (H+R+D) {:.1}%, decisive (R+D) {:.1}%, retreat (F) {:.1}%",
        shares(deck_group),
        100.0 * deck_group.p_hurt(),
        100.0 * deck_group.p_decisive(),
        100.0 * deck_group.p_retreat()
    );
    cards_by_impact(&mut out, a);
    rows_off_the_deck(&mut out, a, deck_group);
    columns_and_cells(&mut out, a);
    out
}

/// The cards, ranked by their exact impact on the drawer's chance to win.
fn cards_by_impact(out: &mut String, a: &SkewAnalysis) {
    let _ = writeln!(
        out,
        "Cards ranked by impact: the exact change in the drawer's chance to win when he draws \
         this card instead of a random one in the first exchange (impacts average to zero; \
         * = {:.0} point or more). Reference: {}.",
        100.0 * IMPACT_FLAG,
        impact_reference()
    );
    for g in a.cards_by_impact() {
        let impact = g.impact.expect("cards carry an impact");
        let _ = writeln!(
            out,
            "  {}card {:<3} impact {:>6} pt   hurt {:>5.1}%  decisive {:>5.1}%  retreat {:>5.1}%   {}",
            if impact_flagged(impact) { "* " } else { "  " },
            g.key,
            signed(100.0 * impact, 2, true),
            100.0 * g.p_hurt(),
            100.0 * g.p_decisive(),
            100.0 * g.p_retreat(),
            shares(g)
        );
    }
}

/// The rows (sign pairs), ranked by how far their chance to hurt is from
/// the deck's.
fn rows_off_the_deck(out: &mut String, a: &SkewAnalysis, deck_group: &GroupSkew) {
    let _ = writeln!(
        out,
        "Rows (sign pairs) ranked by how far their chance to hurt is from the deck's:"
    );
    let mut rows: Vec<&GroupSkew> = a.scope("row").collect();
    let off = |g: &GroupSkew| (g.p_hurt() - deck_group.p_hurt()).abs();
    rows.sort_by(|x, y| off(y).total_cmp(&off(x)));
    for g in rows {
        let _ = writeln!(
            out,
            "    {:<16} hurt {:>5.1}% ({:+.1} pt)  decisive {:>5.1}%  retreat {:>5.1}%",
            g.key,
            100.0 * g.p_hurt(),
            100.0 * (g.p_hurt() - deck_group.p_hurt()),
            100.0 * g.p_decisive(),
            100.0 * g.p_retreat()
        );
    }
}

/// The chance to hurt by column, the columns that step the wrong way, and
/// the cells that break their column's pattern.
fn columns_and_cells(out: &mut String, a: &SkewAnalysis) {
    let columns: Vec<String> = a
        .scope("column")
        .map(|g| format!("{} {:.0}%", g.key, 100.0 * g.p_hurt()))
        .collect();
    let _ = writeln!(out, "Chance to hurt by column: {}", columns.join(", "));
    if a.breaks.is_empty() {
        let _ = writeln!(
            out,
            "Columns: lethality never falls and F never rises as the column improves."
        );
    } else {
        let _ = writeln!(
            out,
            "Columns where lethality goes the wrong way ({}):",
            a.breaks.len()
        );
        for b in &a.breaks {
            let _ = writeln!(
                out,
                "  {} {}: {} {} from {:.1}% at {} to {:.1}% at {}",
                b.scope,
                b.key,
                b.measure,
                b.direction(),
                100.0 * b.from_value,
                COLUMNS[b.from_column],
                100.0 * b.to_value,
                COLUMNS[b.from_column + 1]
            );
        }
    }
    if a.anomalies.is_empty() {
        let _ = writeln!(
            out,
            "Cells: every row has the same results across the deck in each column."
        );
    } else {
        let _ = writeln!(out, "Cells that break their column's pattern:");
        for x in &a.anomalies {
            let _ = writeln!(out, "  {}", x.sentence());
        }
    }
}

/// A group's share of each result: `- 31.7% F 12.7% …`.
fn shares(g: &GroupSkew) -> String {
    crate::systems::war_cards::deck::CardResult::ALL
        .iter()
        .map(|&r| format!("{} {:.1}%", r.symbol(), 100.0 * g.probability(r)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The card skew's verdict, sentence by sentence.
pub struct DeckVerdict {
    /// The card that matters most, and how many cards matter.
    pub lead: Option<String>,
    /// The engagement the impacts are measured on.
    pub reference: String,
    /// How many cells and columns are out of line.
    pub counts: String,
}

/// The verdict of the skew report.
pub fn deck_verdict(a: &SkewAnalysis) -> DeckVerdict {
    let ranked = a.cards_by_impact();
    let flagged = ranked
        .iter()
        .filter(|g| g.impact.is_some_and(impact_flagged))
        .count();
    let lead = ranked.first().map(|top| {
        let impact = top.impact.expect("cards carry an impact");
        format!(
            "Card {} matters most: drawing it instead of a random card in the first exchange {} \
             the drawer's chance to win by {:.2} points. {flagged} of {} cards move it by {:.0} \
             point or more.",
            top.key,
            if impact >= 0.0 { "raises" } else { "lowers" },
            100.0 * impact.abs(),
            ranked.len(),
            100.0 * IMPACT_FLAG
        )
    });
    DeckVerdict {
        lead,
        reference: format!(
            "Impact is exact, on a reference engagement: {}. Impacts average to zero over the cards.",
            impact_reference()
        ),
        counts: format!(
            "{}; {}.",
            count(
                a.anomalies.len(),
                "cell breaks its column's pattern",
                "cells break their column's pattern"
            ),
            count(
                a.breaks.len(),
                "column step goes the wrong way",
                "column steps go the wrong way"
            )
        ),
    }
}

/// The skew report's flags: cards of large impact, cells off their
/// column's pattern, columns stepping the wrong way, stand-ins in use.
pub fn skew_flags(report: &SkewReport) -> Vec<Flag> {
    let a = &report.analysis;
    let warning = |text: String| Flag { ok: false, text };
    let mut flags: Vec<Flag> = a
        .cards_by_impact()
        .into_iter()
        .filter_map(|g| {
            let impact = g.impact.filter(|&i| impact_flagged(i))?;
            Some(warning(format!(
                "Card {} moves the drawer's chance to win by {} points (hurt {}, decisive {}, retreat {}).",
                g.key,
                signed(100.0 * impact, 2, true),
                percent(g.p_hurt()),
                percent(g.p_decisive()),
                percent(g.p_retreat())
            )))
        })
        .collect();
    flags.extend(
        a.anomalies
            .iter()
            .map(|x| warning(format!("Cell {}.", x.sentence()))),
    );
    flags.extend(a.breaks.iter().map(|x| {
        warning(format!(
            "Non-monotone column: {} {}: {} {} from {} at {} to {} at {}.",
            x.scope,
            x.key,
            x.measure,
            x.direction(),
            percent(x.from_value),
            COLUMNS[x.from_column],
            percent(x.to_value),
            COLUMNS[x.from_column + 1]
        ))
    }));
    flags.extend(
        report
            .info
            .tables
            .iter()
            .filter(|t| !t.stand_ins.is_empty())
            .map(|t| {
                warning(format!(
                    "Stand-in values in use: table `{}`: {}.",
                    t.name,
                    t.stand_ins.join(", ")
                ))
            }),
    );
    flags
}

/// `n` and the words that go with it: `1 cell breaks`, `3 cells break`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::impact_flagged;

    #[test]
    fn a_card_is_flagged_as_its_impact_is_printed() {
        // −0.996 points prints as −1.00 pt: flagged, as the star says.
        assert!(impact_flagged(-0.00996));
        assert!(impact_flagged(0.01));
        // 0.9949 points prints as 0.99 pt: not flagged.
        assert!(!impact_flagged(0.009949));
        assert!(!impact_flagged(0.0));
    }
}
