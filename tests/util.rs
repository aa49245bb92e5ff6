//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The warcrunch binary, run from the repository root.
pub fn warcrunch() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("warcrunch");
    cmd.current_dir(repo());
    cmd
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A bundled scenario's path.
pub fn scenario(name: &str) -> PathBuf {
    repo().join("scenarios/war_cards").join(name)
}

/// The seed file of the war cards, if the shared folder is beside the repo.
pub fn war_cards_seed() -> Option<String> {
    let path = repo().join("../shared/seeds/004_090f5eee1dd0a3ae.txt");
    std::fs::read_to_string(path).ok()
}

/// Reads a file to a string, panicking with its path.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every result symbol of each card, `[card][row][column]`, parsed straight
/// from the seed's text (Карточка Боя N, then rows of two signs and seven
/// results) or, without the seed, from the shipped table with a parser of
/// its own.
pub fn independent_deck() -> Vec<Vec<Vec<String>>> {
    match war_cards_seed() {
        Some(seed) => {
            let mut cards: Vec<Vec<Vec<String>>> = Vec::new();
            for line in seed.lines() {
                if line.starts_with("Карточка Боя") {
                    cards.push(Vec::new());
                    continue;
                }
                let parts: Vec<&str> = line.split_whitespace().collect();
                let is_sign = |s: &str| ["М", "Щ", "Б"].contains(&s);
                if parts.len() == 9 && is_sign(parts[0]) && is_sign(parts[1]) {
                    let card = cards.last_mut().expect("a card heading precedes rows");
                    card.push(parts[2..].iter().map(|s| s.to_string()).collect());
                }
            }
            cards
        }
        None => {
            let table = read(&repo().join("scenarios/tables/war_cards.toml"));
            let mut cards: Vec<Vec<Vec<String>>> = Vec::new();
            for line in table.lines() {
                if line.starts_with("[[cards]]") {
                    cards.push(Vec::new());
                } else if let (Some((_, value)), Some(card)) =
                    (line.split_once('='), cards.last_mut())
                {
                    let value = value.trim().trim_matches('"');
                    card.push(value.split_whitespace().map(str::to_owned).collect());
                }
            }
            cards
        }
    }
}
