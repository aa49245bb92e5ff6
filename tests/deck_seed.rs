//! The shipped deck against the seed, and the exact skew figures against an
//! independent enumeration.

use warcrunch::systems::war_cards::deck::{CardResult, Deck, ROWS, Sign};
use warcrunch::systems::war_cards::skew::analyse;

use crate::util::{independent_deck, war_cards_seed};

fn shipped() -> Deck {
    Deck::parse(warcrunch::tables::built_in_text("cards"), "built-in").unwrap()
}

#[test]
#[cfg_attr(
    seeds_absent,
    ignore = "the source documents are not beside the repository (../shared/seeds)"
)]
fn shipped_deck_matches_the_seed_cell_by_cell() {
    let seed = war_cards_seed().expect("the seed beside the repository");
    assert!(seed.contains("Карточка Боя 9"));
    let reference = independent_deck();
    let deck = shipped();
    assert_eq!(reference.len(), 9, "the seed has nine cards");
    assert_eq!(deck.cards.len(), 9);
    // The seed's row order is МЩ МБ ММ ЩЩ ЩБ ЩМ БЩ ББ БМ, the same as ROWS.
    let letter = |s: Sign| match s {
        Sign::Sword => "М",
        Sign::Shield => "Щ",
        Sign::Banner => "Б",
    };
    let seed_rows: Vec<String> = seed
        .lines()
        .skip_while(|l| !l.starts_with("Карточка Боя 1"))
        .skip(2)
        .take(9)
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(""))
        .collect();
    let our_rows: Vec<String> = ROWS
        .iter()
        .map(|&(a, b)| format!("{}{}", letter(a), letter(b)))
        .collect();
    assert_eq!(seed_rows, our_rows);
    let mut cells = 0;
    for (c, card) in reference.iter().enumerate() {
        assert_eq!(card.len(), 9, "card {} has nine rows", c + 1);
        for (r, row) in card.iter().enumerate() {
            assert_eq!(row.len(), 7);
            for (col, symbol) in row.iter().enumerate() {
                assert_eq!(
                    deck.cards[c][r][col].symbol(),
                    symbol,
                    "card {} row {} column {}",
                    c + 1,
                    r,
                    col
                );
                cells += 1;
            }
        }
    }
    assert_eq!(cells, 567);
}

fn count(cells: impl Iterator<Item = String>) -> [u64; 5] {
    let mut counts = [0u64; 5];
    for s in cells {
        let i = CardResult::SYMBOLS.iter().position(|&x| x == s).unwrap();
        counts[i] += 1;
    }
    counts
}

#[test]
fn skew_counts_match_an_independent_enumeration() {
    let reference = independent_deck();
    let a = analyse(&shipped());
    let all = count(reference.iter().flatten().flatten().cloned());
    assert_eq!(a.scope("deck").next().unwrap().counts, all);
    // The deck as a whole: 180 misses, 72 F, 224 H, 54 R, 37 D.
    assert_eq!(all, [180, 72, 224, 54, 37]);
    for (c, g) in a.scope("card").enumerate() {
        assert_eq!(
            g.counts,
            count(reference[c].iter().flatten().cloned()),
            "card {}",
            c + 1
        );
    }
    for (r, g) in a.scope("row").enumerate() {
        let cells = reference.iter().flat_map(|card| card[r].iter().cloned());
        assert_eq!(g.counts, count(cells), "row {r}");
    }
    for (col, g) in a.scope("column").enumerate() {
        let cells = reference
            .iter()
            .flat_map(|card| card.iter().map(move |row| row[col].clone()));
        assert_eq!(g.counts, count(cells), "column {col}");
    }
    for (i, g) in a.scope("cell").enumerate() {
        let (r, col) = (i / 7, i % 7);
        let cells = reference.iter().map(|card| card[r][col].clone());
        assert_eq!(g.counts, count(cells), "cell {r},{col}");
    }
}

#[test]
fn chi_square_of_each_card_matches_the_textbook_formula() {
    let reference = independent_deck();
    let all = count(reference.iter().flatten().flatten().cloned());
    let total: u64 = all.iter().sum();
    let a = analyse(&shipped());
    for (c, g) in a.scope("card").enumerate() {
        let observed = count(reference[c].iter().flatten().cloned());
        let n: u64 = observed.iter().sum();
        let statistic: f64 = observed
            .iter()
            .zip(&all)
            .map(|(&o, &e)| {
                let e = n as f64 * e as f64 / total as f64;
                (o as f64 - e).powi(2) / e
            })
            .sum();
        let chi = g.chi_square.unwrap();
        assert_eq!(chi.df, 4);
        assert!((chi.statistic - statistic).abs() < 1e-12, "card {}", c + 1);
        assert!(chi.p_value > 0.0 && chi.p_value <= 1.0);
    }
    // Card 4 is the most lopsided card: chi-square 1.711221 (hand computed:
    // 22/6/23/6/6 against 63 × 180,72,224,54,37 / 567).
    let card4 = a.scope("card").nth(3).unwrap().chi_square.unwrap();
    assert!(
        (card4.statistic - 1.711_221).abs() < 1e-5,
        "{}",
        card4.statistic
    );
}

#[test]
fn the_one_cell_out_of_pattern_is_sword_banner_at_plus_three() {
    let a = analyse(&shipped());
    assert_eq!(a.anomalies.len(), 1);
    let x = &a.anomalies[0];
    assert_eq!((x.row, x.column), (1, 6));
    assert_eq!(x.multiset, "-DDDHHHRR");
    assert_eq!(x.pattern, "-DDHHHHRR");
    assert_eq!(x.rows_with_pattern, 8);
    // Every column's lethality rises across the deck.
    assert!(a.breaks.iter().all(|b| b.scope != "deck"));
    let harm: Vec<f64> = a.scope("column").map(|g| g.p_hurt()).collect();
    assert!(harm.windows(2).all(|w| w[0] <= w[1]), "{harm:?}");
}
