//! The findings of `warcrunch cards` in plain words: the deck's mean, the
//! cards ranked by impact, the rows off the deck, the columns that step the
//! wrong way and the cells out of their column's pattern (the workbench's
//! deck designer shows the same text).

use std::fmt::Write as _;

use super::skew::IMPACT_FLAG;
use crate::systems::war_cards::deck::{COLUMNS, Deck};
use crate::systems::war_cards::skew::{GroupSkew, SkewAnalysis, impact_reference};

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
            "  {}card {:<3} impact {:>+6.2} pt   hurt {:>5.1}%  decisive {:>5.1}%  retreat {:>5.1}%   {}",
            if impact.abs() >= IMPACT_FLAG {
                "* "
            } else {
                "  "
            },
            g.key,
            100.0 * impact,
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
