//! Exact card-skew analysis of a deck: how each card, row, column and cell
//! distributes `- F H R D`, which ones stray from the deck, and where the
//! pattern across columns or rows breaks.

use std::collections::BTreeMap;

use super::deck::{COLUMNS, CardResult, Deck, row_key};
use crate::stats::chi_square_sf;

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
    /// Chi-square against the deck's mean distribution (cards and rows only).
    pub chi_square: Option<ChiSquare>,
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

    /// Expected damage points per attack: H and R deal 1 (D destroys
    /// outright and is counted by [`GroupSkew::harm`]).
    pub fn expected_damage(&self) -> f64 {
        self.probability(CardResult::Hit) + self.probability(CardResult::Rout)
    }

    /// Chance the defender is hurt at all: H, R or D.
    pub fn harm(&self) -> f64 {
        self.expected_damage() + self.probability(CardResult::Destroy)
    }
}

/// A step between neighbouring columns where lethality goes the wrong way.
#[derive(Debug, Clone, PartialEq)]
pub struct MonotonicityBreak {
    /// `deck`, `card` or `row`.
    pub scope: &'static str,
    /// Which card or row.
    pub key: String,
    /// `harm` (should not fall as the column rises) or `retreat` (P(F),
    /// should not rise).
    pub measure: &'static str,
    /// The lower column of the pair.
    pub from_column: usize,
    /// Value at `from_column`.
    pub from_value: f64,
    /// Value at `from_column + 1`.
    pub to_value: f64,
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
    }];
    groups.extend(
        card_counts
            .iter()
            .enumerate()
            .map(|(c, &counts)| GroupSkew {
                scope: "card",
                key: (c + 1).to_string(),
                counts,
                chi_square: against_deck(counts),
            }),
    );
    groups.extend(row_counts.iter().enumerate().map(|(r, &counts)| GroupSkew {
        scope: "row",
        key: row_key(r),
        counts,
        chi_square: against_deck(counts),
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
            }),
    );
    for (r, row) in cell_counts.iter().enumerate() {
        for (col, &counts) in row.iter().enumerate() {
            groups.push(GroupSkew {
                scope: "cell",
                key: format!("{}@{}", row_key(r), COLUMNS[col]),
                counts,
                chi_square: None,
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
    let harm = [CardResult::Hit, CardResult::Rout, CardResult::Destroy];
    let mut out = Vec::new();
    for col in 0..6 {
        let (a, b) = (&columns[col], &columns[col + 1]);
        let (ha, hb) = (share(a, &harm), share(b, &harm));
        if hb < ha {
            out.push(MonotonicityBreak {
                scope,
                key: key.to_owned(),
                measure: "harm",
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
                measure: "retreat",
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
            out.push(CellAnomaly {
                row,
                column: col,
                multiset: multiset(c),
                pattern: multiset(&pattern),
                rows_with_pattern: agreeing,
                difference: difference.join(" "),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::BUILT_IN_CARDS;

    fn built_in() -> SkewAnalysis {
        analyse(&Deck::parse(BUILT_IN_CARDS, "built-in").unwrap())
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
    fn a_perfectly_average_group_has_chi_square_zero() {
        let c = chi_square_against(&[2, 4, 6, 0, 0], &[1, 2, 3, 0, 0]);
        assert_eq!(c.df, 2);
        assert!(c.statistic.abs() < 1e-12);
        assert!((c.p_value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_single_changed_cell_is_found() {
        let mut deck = Deck::parse(BUILT_IN_CARDS, "built-in").unwrap();
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
