//! The dice duel by the book, die by die: the plain reference the fast
//! duel is checked against. It imports nothing from the fast path.

use crate::tables::cells::CellReads;

/// What the book's duel reads.
pub struct Duel<'a> {
    /// Each champion's bonus.
    pub bonus: [i64; 2],
    /// The die's faces, and their labels.
    pub faces: &'a [i64],
    pub labels: &'a [String],
    /// Rolls before a draw.
    pub max_rolls: u32,
}

/// One duel: each roll, each champion rolls the die and adds the bonus;
/// the higher total wins, a tie rolls again. Returns the winner (0, 1, or
/// 2 for a draw) and the rolls taken, noting each face read.
pub fn duel<R: rand::Rng>(d: Duel<'_>, rng: &mut R, reads: &mut CellReads) -> (u8, u32) {
    for roll in 1..=d.max_rolls {
        let mut totals = [0; 2];
        for (total, bonus) in totals.iter_mut().zip(d.bonus) {
            let face = crate::engine::dice::below(rng, d.faces.len() as u32) as usize;
            reads.note("duel_die", || format!("faces.{}", d.labels[face]), "value");
            *total = d.faces[face] + bonus;
        }
        if totals[0] > totals[1] {
            return (0, roll);
        }
        if totals[1] > totals[0] {
            return (1, roll);
        }
    }
    (2, d.max_rolls)
}
