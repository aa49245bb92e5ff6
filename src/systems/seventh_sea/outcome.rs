//! What one 7th Sea battle leaves: the winner, the rounds fought, and each
//! Hero's Reputation, wounds, state, opportunities and spoils.

use super::scenario::MAX_HEROES;

/// A Hero's final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeroState {
    /// Fewer Dramatic Wounds than his Resolve.
    #[default]
    Fine,
    /// Dramatic Wounds ≥ Resolve.
    Crippled,
    /// Dramatic Wounds ≥ 2 × Resolve.
    KnockedOut,
}

impl HeroState {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 3] = ["fine", "crippled", "knocked_out"];
}

/// What happened to one Hero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroOutcome {
    /// Reputation after the halving rule.
    pub reputation: i32,
    /// Dramatic Wounds, counted up to the knock-out threshold.
    pub dramatic_wounds: u8,
    /// Final state.
    pub state: HeroState,
    /// Heroic Opportunities taken.
    pub opportunities_taken: u16,
    /// 0: no spoils (his side did not win); otherwise 1 + the Spoils row
    /// he rolled.
    pub spoils: u8,
    /// Duels won: he took each opponent's belongings.
    pub duels_won: u16,
}

/// What one battle produced.
#[derive(Debug, Clone, Copy)]
pub struct BattleOutcome {
    /// 0 or 1: that side won; 2: undecided at `max_rounds`.
    pub winner: u8,
    /// Rounds fought.
    pub rounds: u16,
    /// Per Hero.
    pub heroes: [HeroOutcome; MAX_HEROES],
}
