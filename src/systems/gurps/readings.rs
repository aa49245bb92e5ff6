//! What the battle's declared readings of the seed hold fixed, said where a
//! user compares variants: under `leader_fall = "next_day"` no PC's own
//! rolls reach a one-day battle's Strategy contest, so a sweep of a PC's
//! Risk cannot change the winner.

use super::rules::BattleRules;
use super::scenario::{LeaderFall, Parsed, Role};

/// A PC's keys that reach only his own Survival and Glory rolls (and his
/// Combat skill), never the Strategy contest before them.
const OWN_ROLL_KEYS: [&str; 11] = [
    "tactics",
    "iq",
    "weapon_skill",
    "combat_reflexes",
    "danger_sense",
    "risk",
    "luck",
    "coward",
    "reserve",
    "overconfident",
    "berserk",
];

/// A PC's keys that also decide whether a Catastrophe's wound knocks him
/// out before the contest, which for an army commander halves that day's
/// Strategy under either reading.
const BODY_KEYS: [&str; 4] = ["hp", "ht", "dr", "toughness"];

/// The sentence a sweep over `paths` says beside its verdict, if every
/// path is a PC's key that cannot reach the day's contest under the
/// battle's `leader_fall` reading and the battle lasts one day.
pub fn victory_held(parsed: &Parsed, rules: &BattleRules, paths: &[Vec<String>]) -> Option<String> {
    if rules.days != 1 || paths.is_empty() {
        return None;
    }
    let mut pcs: Vec<&str> = Vec::new();
    let mut generals: Vec<&str> = Vec::new();
    for path in paths {
        let [first, pc, key] = path.as_slice() else {
            return None;
        };
        let hero = parsed.heroes.iter().enumerate().find(|(i, h)| {
            first == "heroes" && (h.file.name == *pc || i.to_string() == *pc)
        });
        let (i, hero) = hero?;
        let name = hero.file.name.as_str();
        let general = rules.heroes[i].role == Role::ArmyCommander;
        let own = OWN_ROLL_KEYS.contains(&key.as_str());
        let body = BODY_KEYS.contains(&key.as_str()) && !general;
        if !(own || body) || (general && rules.leader_fall == LeaderFall::SameDay) {
            return None;
        }
        if !pcs.contains(&name) {
            pcs.push(name);
        }
        if general && !generals.contains(&name) {
            generals.push(name);
        }
    }
    let whose = pcs.join(" and ");
    let why = match rules.leader_fall {
        LeaderFall::NextDay => format!(
            "under leader_fall = \"next_day\" (the default) a PC's fall and Glory reach only the next day's \
             Strategy contest, and this battle lasts one day: the settings swept move {whose}'s own fate and \
             Reputation only"
        ),
        LeaderFall::SameDay => format!(
            "under leader_fall = \"same_day\" only a PC army commander's fall reaches the day's Strategy \
             contest, {whose} commands no army, and Glory reaches only the next day, which this one-day \
             battle does not have"
        ),
    };
    let free = match (rules.leader_fall, generals.is_empty()) {
        (LeaderFall::NextDay, false) => format!(
            "; leader_fall = \"same_day\" would let {}'s fall decide the day",
            generals.join(" and ")
        ),
        (LeaderFall::NextDay, true) => format!(
            "; under leader_fall = \"same_day\" only a PC army commander's fall would, and {whose} commands no army"
        ),
        (LeaderFall::SameDay, _) => String::new(),
    };
    Some(format!("The winner cannot change across these variants: {why}{free}"))
}
