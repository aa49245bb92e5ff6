//! Exact card-skew analysis of a deck: how each card, row, column and cell
//! distributes `- F H R D`, which ones stray from the deck, and where the
//! pattern across columns or rows breaks.

use std::collections::BTreeMap;

use super::deck::{COLUMNS, CardResult, Deck, ROWS, row_key};
use super::exact::result_probabilities;
use super::rules::{ATTACKER, Combatant, DEFENDER, Winner, resolve_exchange, settle};
use crate::stats::chi_square_sf;

/// Damage each unit of the reference engagement survives (destroyed at one more).
pub const REFERENCE_MAX_DAMAGE: u32 = 2;
/// Melee exchanges the reference engagement lasts at most.
pub const REFERENCE_EXCHANGES: u32 = 20;

/// The engagement a card's impact is measured on, in plain words.
pub fn impact_reference() -> String {
    format!(
        "two identical units that each survive {REFERENCE_MAX_DAMAGE} damage (destroyed at the {}), neither a shooter, melee only, \
         cards drawn by die, at most {REFERENCE_EXCHANGES} exchanges, no rally, both attacking at the same column; \
         averaged over the 9 sign rows and the 7 columns",
        ordinal(REFERENCE_MAX_DAMAGE + 1)
    )
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The result distribution of one group of cells and how it compares with
/// the whole deck.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSkew {
    /// `deck`, `card`, `row`, `column` or `cell`.
    pub scope: &'static str,
    /// Which one: `3` (card), `sword_shield` (row), `+1` (column),
    /// `sword_shield@+1` (cell), `all` (deck).
    pub key: String,
    /// Counts of `- F H R D`.
    pub counts: [u64; 5],
    /// Chi-square against the deck's mean distribution (cards and rows only):
    /// how likely a randomly shuffled deck would look this uneven.
    pub chi_square: Option<ChiSquare>,
    /// Cards only: the exact change in the drawer's chance to win the
    /// reference engagement ([`impact_reference`]) when he draws this card
    /// instead of a random one in the first exchange. Sums to zero over the deck.
    pub impact: Option<f64>,
}

/// A chi-square goodness-of-fit test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    /// The statistic.
    pub statistic: f64,
    /// Degrees of freedom.
    pub df: usize,
    /// Upper-tail probability.
    pub p_value: f64,
}

impl GroupSkew {
    /// Cells in the group.
    pub fn cells(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Share of cells holding `result`.
    pub fn probability(&self, result: CardResult) -> f64 {
        self.counts[result.index()] as f64 / self.cells() as f64
    }

    /// Chance the defender is hurt at all: H, R or D.
    pub fn p_hurt(&self) -> f64 {
        self.probability(CardResult::Hit) + self.p_decisive()
    }

    /// Chance the attack ends the defender's fight at once: R or D.
    pub fn p_decisive(&self) -> f64 {
        self.probability(CardResult::Rout) + self.probability(CardResult::Destroy)
    }

    /// Chance the attacker must fall back: F.
    pub fn p_retreat(&self) -> f64 {
        self.probability(CardResult::Retreat)
    }
}

/// A step between neighbouring columns where lethality goes the wrong way.
#[derive(Debug, Clone, PartialEq)]
pub struct MonotonicityBreak {
    /// `deck`, `card` or `row`.
    pub scope: &'static str,
    /// Which card or row.
    pub key: String,
    /// `p_hurt` (should not fall as the column rises) or `p_retreat` (P(F),
    /// should not rise).
    pub measure: &'static str,
    /// The lower column of the pair.
    pub from_column: usize,
    /// Value at `from_column`.
    pub from_value: f64,
    /// Value at `from_column + 1`.
    pub to_value: f64,
}

impl MonotonicityBreak {
    /// Which way it goes wrong: the chance to hurt `falls`, or P(F) `rises`.
    pub fn direction(&self) -> &'static str {
        if self.measure == "p_hurt" {
            "falls"
        } else {
            "rises"
        }
    }
}

/// A cell whose 9-card multiset differs from the one most rows share in its
/// column.
#[derive(Debug, Clone, PartialEq)]
pub struct CellAnomaly {
    /// Row index.
    pub row: usize,
    /// Column index.
    pub column: usize,
    /// The cell's results across the deck, sorted (`-DDDHHHRR`).
    pub multiset: String,
    /// The multiset most rows have in this column.
    pub pattern: String,
    /// How many of the rows share the pattern.
    pub rows_with_pattern: usize,
    /// Results this cell has more of than the pattern (`+D`) or fewer (`-H`).
    pub difference: String,
    /// Where the results this cell has too many of are (`+D`): one entry
    /// per such result.
    pub extra: Vec<Extra>,
}

/// A result a cell holds more of than its column's pattern, and the cards
/// that hold it.
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    /// The result.
    pub result: CardResult,
    /// How many more than the pattern.
    pub count: usize,
    /// Every card (0-based) that holds it in this cell.
    pub cards: Vec<usize>,
    /// Whether they are exactly the odd ones (no more cards hold it than
    /// it has too many); else `count` of them are.
    pub known: bool,
}

impl CellAnomaly {
    /// The cards that hold it, in words: `card 4 holds the extra D`, or
    /// `the extra - is on one of cards 1, 5, 6`.
    pub fn cards_text(&self) -> String {
        let numbers = |cards: &[usize]| {
            cards
                .iter()
                .map(|c| (c + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.extra
            .iter()
            .map(|e| {
                let what = if e.count == 1 {
                    format!("the extra {}", e.result.symbol())
                } else {
                    format!("the {} extra {}", e.count, e.result.symbol())
                };
                match (e.known, e.cards.len()) {
                    (true, 1) => format!("card {} holds {what}", e.cards[0] + 1),
                    (true, _) => format!("cards {} hold {what}", numbers(&e.cards)),
                    (false, _) if e.count == 1 => {
                        format!("{what} is on one of cards {}", numbers(&e.cards))
                    }
                    (false, _) => {
                        format!("{what} are on {} of cards {}", e.count, numbers(&e.cards))
                    }
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The cell in words: `sword_shield at +1: -DDH where 8 other rows have
    /// -DHH (+D -H): card 4 holds the extra D`.
    pub fn sentence(&self) -> String {
        format!(
            "{} at {}: {} where {} other rows have {} ({}): {}",
            super::deck::row_key(self.row),
            super::deck::COLUMNS[self.column],
            self.multiset,
            self.rows_with_pattern,
            self.pattern,
            self.difference,
            self.cards_text()
        )
    }
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct SkewAnalysis {
    /// Deck, every card, row, column and cell, in that order.
    pub groups: Vec<GroupSkew>,
    /// Where lethality is not monotone across columns.
    pub breaks: Vec<MonotonicityBreak>,
    /// Cells out of their column's pattern.
    pub anomalies: Vec<CellAnomaly>,
}

impl SkewAnalysis {
    /// Groups of one scope.
    pub fn scope<'a>(&'a self, scope: &'a str) -> impl Iterator<Item = &'a GroupSkew> + 'a {
        self.groups.iter().filter(move |g| g.scope == scope)
    }

    /// The deck's cards, largest impact magnitude first.
    pub fn cards_by_impact(&self) -> Vec<&GroupSkew> {
        let mut cards: Vec<&GroupSkew> = self.scope("card").collect();
        let size = |g: &GroupSkew| g.impact.map_or(0.0, f64::abs);
        cards.sort_by(|x, y| size(y).total_cmp(&size(x)));
        cards
    }
}

/// Analyses a deck exactly.
pub fn analyse(deck: &Deck) -> SkewAnalysis {
    let mut deck_counts = [0u64; 5];
    let mut card_counts = vec![[0u64; 5]; deck.cards.len()];
    let mut row_counts = [[0u64; 5]; 9];
    let mut column_counts = [[0u64; 5]; 7];
    let mut cell_counts = [[[0u64; 5]; 7]; 9];
    let mut card_column = vec![[[0u64; 5]; 7]; deck.cards.len()];
    let mut row_column = [[[0u64; 5]; 7]; 9];
    for (c, card) in deck.cards.iter().enumerate() {
        for (r, row) in card.iter().enumerate() {
            for (col, result) in row.iter().enumerate() {
                let i = result.index();
                deck_counts[i] += 1;
                card_counts[c][i] += 1;
                row_counts[r][i] += 1;
                column_counts[col][i] += 1;
                cell_counts[r][col][i] += 1;
                card_column[c][col][i] += 1;
                row_column[r][col][i] += 1;
            }
        }
    }
    let against_deck = |counts: [u64; 5]| Some(chi_square_against(&counts, &deck_counts));
    let mut groups = vec![GroupSkew {
        scope: "deck",
        key: "all".into(),
        counts: deck_counts,
        chi_square: None,
        impact: None,
    }];
    let impacts = card_impacts(deck);
    groups.extend(
        card_counts
            .iter()
            .enumerate()
            .map(|(c, &counts)| GroupSkew {
                scope: "card",
                key: (c + 1).to_string(),
                counts,
                chi_square: against_deck(counts),
                impact: Some(impacts[c]),
            }),
    );
    groups.extend(row_counts.iter().enumerate().map(|(r, &counts)| GroupSkew {
        scope: "row",
        key: row_key(r),
        counts,
        chi_square: against_deck(counts),
        impact: None,
    }));
    groups.extend(
        column_counts
            .iter()
            .enumerate()
            .map(|(col, &counts)| GroupSkew {
                scope: "column",
                key: COLUMNS[col].into(),
                counts,
                chi_square: None,
                impact: None,
            }),
    );
    for (r, row) in cell_counts.iter().enumerate() {
        for (col, &counts) in row.iter().enumerate() {
            groups.push(GroupSkew {
                scope: "cell",
                key: format!("{}@{}", row_key(r), COLUMNS[col]),
                counts,
                chi_square: None,
                impact: None,
            });
        }
    }

    let mut breaks = monotonicity_breaks("deck", "all", &column_counts);
    for (c, columns) in card_column.iter().enumerate() {
        breaks.extend(monotonicity_breaks("card", &(c + 1).to_string(), columns));
    }
    for (r, columns) in row_column.iter().enumerate() {
        breaks.extend(monotonicity_breaks("row", &row_key(r), columns));
    }

    SkewAnalysis {
        groups,
        breaks,
        anomalies: cell_anomalies(deck),
    }
}

/// Each card's impact ([`GroupSkew::impact`]), exact: for every sign row
/// and column, the reference engagement's chance that the attacker wins is
/// computed by backward induction over the damage states, once with each
/// card fixed for his first attack and once with a random card; the impact is
/// the difference, averaged over the 63 (row, column) settings.
pub fn card_impacts(deck: &Deck) -> Vec<f64> {
    let units = [Combatant {
        max_damage: REFERENCE_MAX_DAMAGE,
        shooter: false,
    }; 2];
    let settings = (ROWS.len() * COLUMNS.len()) as f64;
    let mut impacts = vec![0.0; deck.cards.len()];
    for &(attacker_sign, defender_sign) in &ROWS {
        let attack_row = deck.row_for(attacker_sign, defender_sign);
        let defence_row = deck.row_for(defender_sign, attacker_sign);
        for column in 0..COLUMNS.len() {
            let attacks = deck.results_at(attack_row, column);
            let ripostes = result_probabilities(&deck.results_at(defence_row, column));
            let later = win_chances(units, &result_probabilities(&attacks), &ripostes);
            let with_card: Vec<f64> = attacks
                .iter()
                .map(|&first| {
                    let mut only = [0.0; 5];
                    only[first.index()] = 1.0;
                    exchange_win_chance(units, [0, 0], &only, &ripostes, &later)
                })
                .collect();
            let random = with_card.iter().sum::<f64>() / with_card.len() as f64;
            for (impact, p) in impacts.iter_mut().zip(&with_card) {
                *impact += (p - random) / settings;
            }
        }
    }
    impacts
}

/// The attacker's chance to win from every damage state (indexed
/// `attacker * (max + 1) + defender`) with [`REFERENCE_EXCHANGES`] − 1
/// exchanges left, both sides drawing random cards.
fn win_chances(units: [Combatant; 2], attacks: &[f64; 5], ripostes: &[f64; 5]) -> Vec<f64> {
    let width = REFERENCE_MAX_DAMAGE as usize + 1;
    let mut chances = vec![0.0; width * width];
    for _ in 1..REFERENCE_EXCHANGES {
        chances = (0..width * width)
            .map(|s| {
                let damage = [(s / width) as u32, (s % width) as u32];
                exchange_win_chance(units, damage, attacks, ripostes, &chances)
            })
            .collect();
    }
    chances
}

/// The attacker's chance to win when one exchange is fought from `damage`
/// with these result shares, and `after` gives his chance from each state
/// both units hold in.
fn exchange_win_chance(
    units: [Combatant; 2],
    damage: [u32; 2],
    attacks: &[f64; 5],
    ripostes: &[f64; 5],
    after: &[f64],
) -> f64 {
    let width = REFERENCE_MAX_DAMAGE as usize + 1;
    let mut chance = 0.0;
    for (a, &pa) in attacks.iter().enumerate() {
        for (d, &pd) in ripostes.iter().enumerate() {
            if pa * pd == 0.0 {
                continue;
            }
            let mut results = [CardResult::Miss; 2];
            results[ATTACKER] = CardResult::ALL[a];
            results[DEFENDER] = CardResult::ALL[d];
            let (next, fate) = resolve_exchange(units, damage, results);
            chance += pa
                * pd
                * match settle(fate) {
                    Some((Winner::Attacker, _)) => 1.0,
                    Some(_) => 0.0,
                    None => after[next[ATTACKER] as usize * width + next[DEFENDER] as usize],
                };
        }
    }
    chance
}

/// Chi-square of observed counts against the proportions of `reference`,
/// over the categories the reference holds.
pub fn chi_square_against(observed: &[u64; 5], reference: &[u64; 5]) -> ChiSquare {
    let n: u64 = observed.iter().sum();
    let total: u64 = reference.iter().sum();
    let mut statistic = 0.0;
    let mut categories = 0;
    for (&o, &r) in observed.iter().zip(reference) {
        if r == 0 {
            continue;
        }
        categories += 1;
        let expected = n as f64 * r as f64 / total as f64;
        statistic += (o as f64 - expected).powi(2) / expected;
    }
    let df = categories.max(1) - 1;
    ChiSquare {
        statistic,
        df,
        p_value: chi_square_sf(statistic, df),
    }
}

fn monotonicity_breaks(
    scope: &'static str,
    key: &str,
    columns: &[[u64; 5]; 7],
) -> Vec<MonotonicityBreak> {
    let share = |counts: &[u64; 5], picks: &[CardResult]| {
        let n: u64 = counts.iter().sum();
        picks.iter().map(|r| counts[r.index()]).sum::<u64>() as f64 / n as f64
    };
    let hurt = [CardResult::Hit, CardResult::Rout, CardResult::Destroy];
    let mut out = Vec::new();
    for col in 0..6 {
        let (a, b) = (&columns[col], &columns[col + 1]);
        let (ha, hb) = (share(a, &hurt), share(b, &hurt));
        if hb < ha {
            out.push(MonotonicityBreak {
                scope,
                key: key.to_owned(),
                measure: "p_hurt",
                from_column: col,
                from_value: ha,
                to_value: hb,
            });
        }
        let (fa, fb) = (
            share(a, &[CardResult::Retreat]),
            share(b, &[CardResult::Retreat]),
        );
        if fb > fa {
            out.push(MonotonicityBreak {
                scope,
                key: key.to_owned(),
                measure: "p_retreat",
                from_column: col,
                from_value: fa,
                to_value: fb,
            });
        }
    }
    out
}

fn multiset(counts: &[u64; 5]) -> String {
    // Sorted by symbol, as a designer would write it: - D F H R.
    let mut symbols: Vec<&str> = CardResult::ALL
        .iter()
        .flat_map(|r| std::iter::repeat_n(r.symbol(), counts[r.index()] as usize))
        .collect();
    symbols.sort_unstable();
    symbols.concat()
}

/// The results cell (`row`, `col`) holds more of than `pattern`, and the
/// cards holding each: exactly the odd ones when no more cards hold it
/// than it has too many (a card's results in other rows say nothing of
/// which of several is odd: rows are not the same card by card).
fn extra_results(
    deck: &Deck,
    row: usize,
    col: usize,
    counts: &[u64; 5],
    pattern: &[u64; 5],
) -> Vec<Extra> {
    CardResult::ALL
        .into_iter()
        .filter(|r| counts[r.index()] > pattern[r.index()])
        .map(|result| {
            let count = (counts[result.index()] - pattern[result.index()]) as usize;
            let cards: Vec<usize> = (0..deck.cards.len())
                .filter(|&c| deck.cards[c][row][col] == result)
                .collect();
            Extra {
                result,
                count,
                known: cards.len() == count,
                cards,
            }
        })
        .collect()
}

fn cell_anomalies(deck: &Deck) -> Vec<CellAnomaly> {
    let mut out = Vec::new();
    for col in 0..7 {
        let counts: Vec<[u64; 5]> = (0..9).map(|r| deck.counts_at(r, col)).collect();
        let mut tallies: BTreeMap<[u64; 5], usize> = BTreeMap::new();
        for c in &counts {
            *tallies.entry(*c).or_default() += 1;
        }
        let (&pattern, &agreeing) = tallies.iter().max_by_key(|&(_, &n)| n).expect("nine rows");
        if agreeing * 2 <= counts.len() {
            // No majority pattern: nothing to measure cells against.
            continue;
        }
        for (row, c) in counts.iter().enumerate() {
            if *c == pattern {
                continue;
            }
            let difference: Vec<String> = CardResult::ALL
                .iter()
                .filter_map(|r| {
                    let d = c[r.index()] as i64 - pattern[r.index()] as i64;
                    (d != 0).then(|| format!("{d:+}{}", r.symbol()))
                })
                .collect();
            let extra = extra_results(deck, row, col, c, &pattern);
            out.push(CellAnomaly {
                row,
                column: col,
                multiset: multiset(c),
                pattern: multiset(&pattern),
                rows_with_pattern: agreeing,
                difference: difference.join(" "),
                extra,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built_in() -> SkewAnalysis {
        analyse(&Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap())
    }

    #[test]
    fn an_anomaly_names_the_card_that_holds_it() {
        let built_in = Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap();
        let before = analyse(&built_in).anomalies;
        // A column following its pattern, and a result no card has in its
        // first row there: card 5 alone now holds it.
        let column = (0..7)
            .find(|&c| !before.iter().any(|a| a.column == c))
            .expect("a column following its pattern");
        let counts = built_in.counts_at(0, column);
        let absent = CardResult::ALL
            .into_iter()
            .find(|r| counts[r.index()] == 0)
            .expect("a result absent from the cell");
        let mut deck = built_in.clone();
        deck.cards[4][0][column] = absent;
        let odd = analyse(&deck)
            .anomalies
            .into_iter()
            .find(|a| (a.row, a.column) == (0, column))
            .expect("the changed cell breaks its column");
        assert_eq!(
            odd.extra,
            vec![Extra {
                result: absent,
                count: 1,
                cards: vec![4],
                known: true,
            }]
        );
        assert!(
            odd.sentence()
                .ends_with(&format!("card 5 holds the extra {}", absent.symbol())),
            "{}",
            odd.sentence()
        );
        // A result several cards hold: every one of them is named.
        let mut deck = built_in.clone();
        let was = deck.cards[4][0][column];
        let common = CardResult::ALL
            .into_iter()
            .filter(|&r| r != was)
            .max_by_key(|r| counts[r.index()])
            .unwrap();
        deck.cards[4][0][column] = common;
        let odd = analyse(&deck)
            .anomalies
            .into_iter()
            .find(|a| (a.row, a.column) == (0, column))
            .expect("the changed cell breaks its column");
        let extra = &odd.extra[0];
        assert_eq!((extra.result, extra.count, extra.known), (common, 1, false));
        let holders: Vec<usize> = (0..9)
            .filter(|&c| deck.cards[c][0][column] == common)
            .collect();
        assert_eq!(extra.cards, holders);
        let numbers: Vec<String> = holders.iter().map(|c| (c + 1).to_string()).collect();
        assert!(
            odd.sentence().ends_with(&format!(
                "the extra {} is on one of cards {}",
                common.symbol(),
                numbers.join(", ")
            )),
            "{}",
            odd.sentence()
        );
    }

    #[test]
    fn deck_totals_cover_every_cell() {
        let a = built_in();
        let deck = a.scope("deck").next().unwrap();
        assert_eq!(deck.cells(), 9 * 9 * 7);
        assert_eq!(a.scope("card").count(), 9);
        assert_eq!(a.scope("row").count(), 9);
        assert_eq!(a.scope("column").count(), 7);
        assert_eq!(a.scope("cell").count(), 63);
    }

    #[test]
    fn impacts_average_to_zero_over_the_deck() {
        let a = built_in();
        let impacts: Vec<f64> = a.scope("card").map(|g| g.impact.unwrap()).collect();
        assert_eq!(impacts.len(), 9);
        assert!(impacts.iter().sum::<f64>().abs() < 1e-12, "{impacts:?}");
        assert!(impacts.iter().any(|i| i.abs() > 1e-4), "{impacts:?}");
    }

    /// A random first card is the plain engagement: the backward induction
    /// must agree with the forward Markov chain of `exact_distribution`.
    #[test]
    fn the_reference_engagement_agrees_with_the_exact_chain() {
        use crate::systems::war_cards::exact::exact_distribution;
        use crate::systems::war_cards::rules::{Draw, EngagementRules};
        let deck = Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap();
        let units = [Combatant {
            max_damage: REFERENCE_MAX_DAMAGE,
            shooter: false,
        }; 2];
        for (row, column) in [(0, 3), (4, 0), (8, 6)] {
            let (a, d) = ROWS[row];
            let attacks = deck.results_at(deck.row_for(a, d), column);
            let ripostes = deck.results_at(deck.row_for(d, a), column);
            let later = win_chances(
                units,
                &result_probabilities(&attacks),
                &result_probabilities(&ripostes),
            );
            let backward = exchange_win_chance(
                units,
                [0, 0],
                &result_probabilities(&attacks),
                &result_probabilities(&ripostes),
                &later,
            );
            let rules = EngagementRules {
                units,
                melee: [attacks, ripostes],
                missile: [None, None],
                missile_volleys: 0,
                max_exchanges: REFERENCE_EXCHANGES,
                draw: Draw::Die,
                rally_threshold: 0,
            };
            let metrics = exact_distribution(&rules, ["a", "d"], 0.0)
                .unwrap()
                .metrics();
            let winner = metrics.iter().find(|m| m.name == "winner").unwrap();
            let forward = winner.weights[0];
            assert!(
                (backward - forward).abs() < 1e-12,
                "{backward} vs {forward}"
            );
        }
    }

    /// Making card 1 much stronger in one row (sword_shield from
    /// `- F H H F H R` to `H F H H H H D`) barely moved the old "expected
    /// damage", which scored D as nothing. The impact must move with it: up
    /// by about 1/9 of that row's gain (one row of nine), from below zero to
    /// above, while every other card's impact moves the other way.
    #[test]
    fn a_stronger_card_gains_impact() {
        let text = crate::tables::built_in_text("cards").replacen(
            "sword_shield   = \"- F H H F H R\"",
            "sword_shield   = \"H F H H H H D\"",
            1,
        );
        assert_ne!(
            text,
            crate::tables::built_in_text("cards"),
            "the edit applies"
        );
        let before = built_in();
        let after = analyse(&Deck::parse(&text, "edited").unwrap());
        let impact = |a: &SkewAnalysis, key: &str| {
            a.scope("card")
                .find(|g| g.key == key)
                .unwrap()
                .impact
                .unwrap()
        };
        assert!(impact(&before, "1") < 0.0 && impact(&after, "1") > 0.0);
        assert!(impact(&after, "1") - impact(&before, "1") > 0.004);
    }

    #[test]
    fn a_perfectly_average_group_has_chi_square_zero() {
        let c = chi_square_against(&[2, 4, 6, 0, 0], &[1, 2, 3, 0, 0]);
        assert_eq!(c.df, 2);
        assert!(c.statistic.abs() < 1e-12);
        assert!((c.p_value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_single_changed_cell_is_found() {
        let mut deck = Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap();
        let a = analyse(&deck);
        let before = a.anomalies.len();
        // Column 0 has the same multiset in every row; break one cell.
        deck.cards[4][2][0] = CardResult::Destroy;
        let after = analyse(&deck);
        assert_eq!(after.anomalies.len(), before + 1);
        let found = after.anomalies.iter().find(|x| x.column == 0).unwrap();
        assert_eq!(found.row, 2);
        assert_eq!(found.rows_with_pattern, 8);
    }
}
