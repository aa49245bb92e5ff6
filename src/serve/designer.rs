//! The deck designer: a Combat Card table analysed exactly on every edit,
//! with the findings and the heatmap `warcrunch cards` writes.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::reply::{Body, crashed, error, unreadable};
use crate::report::findings::deck::findings;
use crate::report::writers::skew::heatmap_document;
use crate::systems::war_cards::deck::{COLUMNS, Deck, ROWS, row_key};
use crate::systems::war_cards::skew::analyse;
use crate::tables::built_in_text;

/// A deck table's text; none asks for the built-in deck.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Posted {
    #[serde(default)]
    toml: Option<String>,
}

/// How the findings name a deck the page posted, and the shipped one.
const POSTED: &str = "your deck";
const SHIPPED: &str = "the built-in deck";

/// `POST /api/cards`: the deck's grid, its exact skew analysis, the
/// findings as `warcrunch cards` prints them, and the heatmap as SVG.
pub async fn analyse_deck(Body(posted): Body<Posted>) -> Response {
    let source = if posted.toml.is_some() {
        POSTED
    } else {
        SHIPPED
    };
    let text = posted
        .toml
        .unwrap_or_else(|| built_in_text("cards").to_owned());
    let answer = tokio::task::spawn_blocking(move || {
        let deck = match Deck::parse(&text, source) {
            Ok(deck) => deck,
            Err(e) => return unreadable(format!("{e:#}"), &text),
        };
        let analysis = analyse(&deck);
        let heatmap = match heatmap_document(&analysis) {
            Ok(svg) => svg,
            Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")),
        };
        let cards: Vec<Vec<Vec<&str>>> = deck
            .cards
            .iter()
            .map(|card| {
                card.iter()
                    .map(|row| row.iter().map(|r| r.symbol()).collect())
                    .collect()
            })
            .collect();
        let anomalies: Vec<_> = analysis
            .anomalies
            .iter()
            .map(|a| {
                // The first card that holds (or may hold) the odd result.
                let card = a.extra.iter().find_map(|e| e.cards.first());
                json!({ "row": a.row, "column": a.column, "card": card, "sentence": a.sentence() })
            })
            .collect();
        Json(json!({
            "toml": text,
            "row_order": deck.row_order,
            "stand_ins": deck.stand_ins,
            "rows": (0..ROWS.len()).map(row_key).collect::<Vec<_>>(),
            "columns": COLUMNS,
            "cards": cards,
            "anomalies": anomalies,
            "findings": findings(&deck, source, &analysis),
            "heatmap": heatmap,
        }))
        .into_response()
    })
    .await;
    answer.unwrap_or_else(|e| crashed("the analysis", e))
}
