//! What one GURPS battle leaves: the winner, the last day's result, each
//! side's casualties and first Catastrophe, and each PC's fate.

use super::scenario::MAX_HEROES;

/// Final state of a PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum State {
    /// No HP lost.
    #[default]
    Unhurt,
    /// HP lost, still above 0 HP.
    Wounded,
    /// At or below 0 HP and still conscious (made every HT roll so far).
    AtOrBelowZeroHp,
    /// Unconscious.
    Down,
    /// Dead.
    Dead,
}

impl State {
    /// Labels in reporting order.
    pub const LABELS: [&'static str; 5] = ["unhurt", "wounded", "at_or_below_0hp", "down", "dead"];
    /// Every state, in that order.
    pub const ALL: [State; 5] = [
        State::Unhurt,
        State::Wounded,
        State::AtOrBelowZeroHp,
        State::Down,
        State::Dead,
    ];
}

/// What happened to one PC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeroOutcome {
    /// 0: never rolled; otherwise 1 + the worst Survival row reached.
    pub survival: u8,
    /// HP lost over the battle.
    pub hp_lost: u16,
    /// Final state.
    pub state: State,
    /// 0: never rolled; otherwise 1 + the last Glory row.
    pub glory: u8,
    /// Reputation gained (negative: lost).
    pub reputation: i16,
    /// Captured by the enemy's overwhelming victory (an army commander):
    /// out of the battle from then on.
    pub captured: bool,
}

/// What one battle produced.
#[derive(Debug, Clone, Copy)]
pub struct BattleOutcome {
    /// 0 or 1: that side won; 2: draw.
    pub winner: u8,
    /// Battle-result row of the last day.
    pub result: u8,
    /// Percent of initial Troop Strength lost, per side.
    pub casualties_pct: [u8; 2],
    /// First day's Catastrophe roll per side (3..18).
    pub catastrophe: [u8; 2],
    /// Per PC, in scenario order.
    pub heroes: [HeroOutcome; MAX_HEROES],
    /// The defender's ground after the last day
    /// ([`super::ground::Fate`]); 0 where no side attacks.
    pub ground: u8,
}
