//! The Combat Card deck: nine (or any number of) cards, each a grid of
//! 9 sign-pair rows × 7 modifier columns holding one result `- F H R D`.

use std::fmt;

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A morale sign printed on a unit card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Sign {
    /// М, Меч.
    Sword,
    /// Щ, Щит.
    Shield,
    /// Б, Баннер.
    Banner,
}

impl Sign {
    /// The sign's name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Sign::Sword => "sword",
            Sign::Shield => "shield",
            Sign::Banner => "banner",
        }
    }
}

/// The rows of a card, in the seed's order (МЩ МБ ММ ЩЩ ЩБ ЩМ БЩ ББ БМ).
pub const ROWS: [(Sign, Sign); 9] = [
    (Sign::Sword, Sign::Shield),
    (Sign::Sword, Sign::Banner),
    (Sign::Sword, Sign::Sword),
    (Sign::Shield, Sign::Shield),
    (Sign::Shield, Sign::Banner),
    (Sign::Shield, Sign::Sword),
    (Sign::Banner, Sign::Shield),
    (Sign::Banner, Sign::Banner),
    (Sign::Banner, Sign::Sword),
];

/// Column labels, from `<=-3` to `>=+3`.
pub const COLUMNS: [&str; 7] = ["<=-3", "-2", "-1", "0", "+1", "+2", ">=+3"];

/// The key of row `index` as written in table files (`sword_shield`).
pub fn row_key(index: usize) -> String {
    let (first, second) = ROWS[index];
    format!("{}_{}", first.name(), second.name())
}

/// The row index of a (first sign, second sign) pair.
pub fn row_index(first: Sign, second: Sign) -> usize {
    ROWS.iter()
        .position(|&row| row == (first, second))
        .expect("every sign pair has a row")
}

/// The column of a modifier: clamp(modifier, −3, +3) shifted to 0..7.
pub fn column_index(modifier: i64) -> usize {
    (modifier.clamp(-3, 3) + 3) as usize
}

/// One cell of a Combat Card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CardResult {
    /// `-`: nothing happens.
    Miss,
    /// `F`: the attacking unit must retreat (shooters ignore it).
    Retreat,
    /// `H`: the defender takes 1 damage.
    Hit,
    /// `R`: the defender takes 1 damage and is routed.
    Rout,
    /// `D`: the defender is destroyed.
    Destroy,
}

impl CardResult {
    /// Every result, in reporting order.
    pub const ALL: [CardResult; 5] = [
        CardResult::Miss,
        CardResult::Retreat,
        CardResult::Hit,
        CardResult::Rout,
        CardResult::Destroy,
    ];
    /// Result symbols in reporting order.
    pub const SYMBOLS: [&'static str; 5] = ["-", "F", "H", "R", "D"];

    /// Position in [`CardResult::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The symbol printed on the card.
    pub fn symbol(self) -> &'static str {
        Self::SYMBOLS[self.index()]
    }

    fn parse(token: &str) -> Option<Self> {
        Self::SYMBOLS
            .iter()
            .position(|&s| s == token)
            .map(|i| Self::ALL[i])
    }
}

impl fmt::Display for CardResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Which sign comes first in a row key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowOrder {
    /// Row = (attacking unit's sign, defending unit's sign).
    AttackerDefender,
    /// Row = (defending unit's sign, attacking unit's sign).
    DefenderAttacker,
}

/// A card grid: `[row][column]`.
pub type Card = [[CardResult; 7]; 9];

/// The deck as loaded from a table file.
#[derive(Debug, Clone, PartialEq)]
pub struct Deck {
    /// The cards, in file order.
    pub cards: Vec<Card>,
    /// How a row is chosen from the two signs.
    pub row_order: RowOrder,
    /// Settings of this table that are stand-ins for unknown published values.
    pub stand_ins: Vec<String>,
}

/// The most cards a deck may hold.
pub const MAX_CARDS: usize = 64;

/// A Combat Card deck table, as written.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "War cards: the Combat Card deck")]
pub struct DeckFile {
    /// Which table this file is: `cards`.
    #[schemars(extend("const" = "cards"))]
    pub kind: String,
    /// Which sign comes first in a row key.
    row_order: RowOrder,
    /// Settings of this file whose published value is unknown (row_order, cards); reports mark them.
    #[serde(default)]
    #[schemars(extend("uniqueItems" = true))]
    stand_ins: Vec<String>,
    /// The cards, one drawn per attack.
    #[schemars(length(min = 1, max = MAX_CARDS))]
    cards: Vec<CardFile>,
}

/// One Combat Card: a row of seven results (columns <=-3 to >=+3) per pair
/// of signs, attacker's first unless `row_order` says otherwise.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CardFile {
    #[schemars(regex(pattern = CARD_ROW))]
    sword_shield: String,
    #[schemars(regex(pattern = CARD_ROW))]
    sword_banner: String,
    #[schemars(regex(pattern = CARD_ROW))]
    sword_sword: String,
    #[schemars(regex(pattern = CARD_ROW))]
    shield_shield: String,
    #[schemars(regex(pattern = CARD_ROW))]
    shield_banner: String,
    #[schemars(regex(pattern = CARD_ROW))]
    shield_sword: String,
    #[schemars(regex(pattern = CARD_ROW))]
    banner_shield: String,
    #[schemars(regex(pattern = CARD_ROW))]
    banner_banner: String,
    #[schemars(regex(pattern = CARD_ROW))]
    banner_sword: String,
}

/// A row as the schema checks it: seven results `- F H R D` apart.
const CARD_ROW: &str = r"^\s*[-FHRD](\s+[-FHRD]){6}\s*$";

impl CardFile {
    /// Row strings in [`ROWS`] order.
    fn rows(&self) -> [&str; 9] {
        [
            &self.sword_shield,
            &self.sword_banner,
            &self.sword_sword,
            &self.shield_shield,
            &self.shield_banner,
            &self.shield_sword,
            &self.banner_shield,
            &self.banner_banner,
            &self.banner_sword,
        ]
    }
}

/// Keys a deck table may hold under `stand_ins`.
const STAND_IN_KEYS: [&str; 2] = ["row_order", "cards"];

impl Deck {
    /// Parses a deck table; `origin` names the file in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Deck> {
        let file: DeckFile = crate::tables::parse_table(text, origin, "cards")?;
        let place = crate::tables::Place { origin, text };
        if file.cards.is_empty() || file.cards.len() > MAX_CARDS {
            bail!(
                "{}: `cards` holds {} cards; allowed: 1 to {MAX_CARDS}",
                place.at("cards"),
                file.cards.len()
            );
        }
        for key in &file.stand_ins {
            if !STAND_IN_KEYS.contains(&key.as_str()) {
                bail!(
                    "{}: `stand_ins` names `{key}`; allowed: {}",
                    place.at("stand_ins"),
                    STAND_IN_KEYS.join(", ")
                );
            }
        }
        let mut cards = Vec::with_capacity(file.cards.len());
        for (c, card_file) in file.cards.iter().enumerate() {
            let mut card = [[CardResult::Miss; 7]; 9];
            for (r, text) in card_file.rows().iter().enumerate() {
                let tokens: Vec<&str> = text.split_whitespace().collect();
                let at = || place.at(&format!("cards.{c}.{}", row_key(r)));
                if tokens.len() != 7 {
                    bail!(
                        "{}: cards[{c}].{} = \"{text}\": expected 7 results (one per column {}), found {}",
                        at(),
                        row_key(r),
                        COLUMNS.join(" "),
                        tokens.len()
                    );
                }
                for (col, token) in tokens.iter().enumerate() {
                    card[r][col] = CardResult::parse(token).ok_or_else(|| {
                        anyhow::anyhow!(
                            "{}: cards[{c}].{}, column {}: `{token}` is not a result; allowed: - F H R D",
                            at(),
                            row_key(r),
                            COLUMNS[col]
                        )
                    })?;
                }
            }
            cards.push(card);
        }
        Ok(Deck {
            cards,
            row_order: file.row_order,
            stand_ins: file.stand_ins,
        })
    }

    /// The row an attack uses, given the attacker's and the defender's signs.
    pub fn row_for(&self, attacker: Sign, defender: Sign) -> usize {
        match self.row_order {
            RowOrder::AttackerDefender => row_index(attacker, defender),
            RowOrder::DefenderAttacker => row_index(defender, attacker),
        }
    }

    /// The result on every card for one (row, column), in card order.
    pub fn results_at(&self, row: usize, column: usize) -> Vec<CardResult> {
        self.cards.iter().map(|card| card[row][column]).collect()
    }

    /// Counts of each result across the deck at one (row, column).
    pub fn counts_at(&self, row: usize, column: usize) -> [u64; 5] {
        let mut counts = [0; 5];
        for card in &self.cards {
            counts[card[row][column].index()] += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_deck_parses_with_nine_cards() {
        let deck = Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap();
        assert_eq!(deck.cards.len(), 9);
        assert_eq!(deck.row_order, RowOrder::AttackerDefender);
        assert_eq!(deck.stand_ins, vec!["row_order"]);
        // Card 1, row МЩ reads "- F H H F H R".
        let first: String = deck.cards[0][0].iter().map(|r| r.symbol()).collect();
        assert_eq!(first, "-FHHFHR");
    }

    #[test]
    fn row_order_swaps_the_signs() {
        let mut deck = Deck::parse(crate::tables::built_in_text("cards"), "built-in").unwrap();
        assert_eq!(deck.row_for(Sign::Sword, Sign::Shield), 0);
        deck.row_order = RowOrder::DefenderAttacker;
        assert_eq!(deck.row_for(Sign::Sword, Sign::Shield), 5);
    }

    #[test]
    fn columns_clamp_at_three() {
        assert_eq!(column_index(-9), 0);
        assert_eq!(column_index(0), 3);
        assert_eq!(column_index(2), 5);
        assert_eq!(column_index(12), 6);
    }

    #[test]
    fn malformed_rows_name_the_card_row_and_allowed_values() {
        let bad = crate::tables::built_in_text("cards").replacen(
            "\"- F H H F H R\"",
            "\"- F H H F H X\"",
            1,
        );
        let err = Deck::parse(&bad, "deck.toml").unwrap_err().to_string();
        assert!(
            err.contains("deck.toml") && err.contains("cards[0].sword_shield"),
            "{err}"
        );
        assert!(err.contains("- F H R D"), "{err}");
        let short =
            crate::tables::built_in_text("cards").replacen("\"- F H H F H R\"", "\"- F H\"", 1);
        let err = Deck::parse(&short, "deck.toml").unwrap_err().to_string();
        assert!(err.contains("expected 7 results"), "{err}");
    }

    #[test]
    fn a_missing_row_is_refused() {
        let bad = crate::tables::built_in_text("cards").replacen(
            "sword_shield   = \"- F H H F H R\"\n",
            "",
            1,
        );
        let err = Deck::parse(&bad, "deck.toml").unwrap_err().to_string();
        assert!(err.contains("sword_shield"), "{err}");
    }
}
