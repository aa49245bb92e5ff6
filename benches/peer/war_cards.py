"""The war-cards engagement of a warcrunch scenario, vectorised with numpy.

A peer for measuring warcrunch's engine against the way a numpy user would
write the same rules: whole arrays of battles, one melee exchange (or volley)
at a time over the battles still fighting, finished battles counted with
bincount. It follows the rules as docs/rules.md states them (die or deck draw,
volleys, simultaneous melee, R and D over F, damage beyond the maximum,
rally), not warcrunch's fast path.

    python3 benches/peer/war_cards.py scenarios/war_cards/knights_vs_pikes.toml \
        --trials 4000000 [--json FILE]

prints the battles a second on one thread (numpy's own loops are
single-threaded) and, with --json, writes the counts of every outcome so
that benches/peer/agree.py can check them against warcrunch's
distributions.csv. Needs Python 3.11+ and numpy.
"""

import argparse
import json
import pathlib
import time
import tomllib

import numpy as np

MISS, RETREAT, HIT, ROUT, DESTROY = range(5)
RESULT = {"-": MISS, "F": RETREAT, "H": HIT, "R": ROUT, "D": DESTROY}
HOLDS, RETREATED, ROUTED, DESTROYED = range(4)
WINNERS = ["attacker", "defender", "none"]
ENDS = ["destroyed", "routed", "retreated", "both_out", "max_exchanges"]
FATES = ["holds", "retreated", "routed", "destroyed"]
# Battles fought as one array: the fastest of 2^14 to 2^22 on the development machine.
BATCH = 1 << 16


def load(path):
    """The scenario's units and engagement, and each side's result per card."""
    scenario = tomllib.loads(pathlib.Path(path).read_text())
    deck_path = pathlib.Path(__file__).resolve().parents[2] / "scenarios/tables/war_cards.toml"
    tables = scenario.get("tables", {})
    if "cards" in tables:
        deck_path = pathlib.Path(path).parent / tables["cards"]
    deck = tomllib.loads(deck_path.read_text())
    units = [scenario["attacker"], scenario["defender"]]
    engagement = scenario.get("engagement", {})

    def results(attacker, defender, value):
        first, second = attacker["sign"], defender["sign"]
        if deck["row_order"] == "defender_attacker":
            first, second = second, first
        column = max(-3, min(3, value - defender["defence"] + attacker.get("modifier", 0))) + 3
        return np.array(
            [RESULT[card[f"{first}_{second}"].split()[column]] for card in deck["cards"]],
            dtype=np.int8,
        )

    melee = [results(units[s], units[1 - s], units[s]["melee"]) for s in range(2)]
    missile = [
        results(units[s], units[1 - s], units[s]["missile"]) if "missile" in units[s] else None
        for s in range(2)
    ]
    return units, engagement, melee, missile


class Draws:
    """Card picks for a batch: a d9 per attack, or one shared deck per battle."""

    def __init__(self, rng, cards, deck, n):
        self.rng, self.cards, self.deck = rng, cards, deck
        if deck:
            self.remaining = np.tile(np.arange(cards, dtype=np.int8), (n, 1))
            self.left = np.full(n, cards, dtype=np.int64)

    def pick(self, alive):
        if not self.deck:
            return self.rng.integers(0, self.cards, size=alive.size, dtype=np.int8)
        left = self.left[alive]
        left[left == 0] = self.cards
        pick = (self.rng.random(alive.size) * left).astype(np.int64)
        card = self.remaining[alive, pick]
        left -= 1
        self.remaining[alive, pick] = self.remaining[alive, left]
        self.remaining[alive, left] = card
        self.left[alive] = left
        return card


class Counts:
    """The counts warcrunch's distributions.csv reports, as numpy arrays."""

    def __init__(self, limit, volleys):
        self.winner = np.zeros(3, np.int64)
        self.end = np.zeros(5, np.int64)
        self.exchanges = np.zeros(limit + 1, np.int64)
        self.volleys = np.zeros(volleys + 1, np.int64)
        self.damage = [np.zeros(0, np.int64), np.zeros(0, np.int64)]
        self.fate = [np.zeros(4, np.int64), np.zeros(4, np.int64)]

    def add(self, winner, end, exchanges, volleys, damage, fate):
        self.winner += np.bincount(winner, minlength=3)
        self.volleys[volleys] += winner.size
        self.end += np.bincount(end, minlength=5)
        self.exchanges += np.bincount(exchanges, minlength=self.exchanges.size)
        for s in range(2):
            counts = np.bincount(damage[s])
            if counts.size > self.damage[s].size:
                counts[: self.damage[s].size] += self.damage[s]
                self.damage[s] = counts
            else:
                self.damage[s][: counts.size] += counts
            self.fate[s] += np.bincount(fate[s], minlength=4)


def fight_batch(n, rng, units, engagement, melee, missile, counts):
    """Fights n battles, counting each as it ends."""
    limit = engagement.get("max_exchanges", 20)
    volleys = engagement.get("missile_volleys", 0)
    rally = engagement.get("rally_chance", 0.0)
    maximum = [units[s]["hits"] for s in range(2)]
    shooter = [("missile" in units[s]) for s in range(2)]
    draws = Draws(rng, melee[0].size, engagement.get("draw", "die") == "deck", n)
    alive = np.arange(n)
    damage = [np.zeros(n, np.int64), np.zeros(n, np.int64)]
    phases = [(0, v, missile) for v in range(1, volleys + 1)]
    phases += [(e, volleys, melee) for e in range(1, limit + 1)]
    for exchange, volley, results in phases:
        attacks = []
        for s in range(2):
            if results[s] is None:
                attacks.append(np.full(alive.size, MISS, np.int8))
            else:
                attacks.append(results[s][draws.pick(alive)])
        fate = []
        for s in range(2):
            incoming = attacks[1 - s]
            hurt = (incoming == HIT) | (incoming == ROUT)
            dmg = damage[s][alive] + hurt
            damage[s][alive] = dmg
            f = np.where(incoming == ROUT, ROUTED, HOLDS)
            f = np.where((incoming == DESTROY) | (hurt & (dmg > maximum[s])), DESTROYED, f)
            if not shooter[s]:
                f = np.maximum(f, np.where(attacks[s] == RETREAT, RETREATED, HOLDS))
            fate.append(f)
        if rally > 0:
            for s in range(2):
                back = (fate[s] == ROUTED) & (rng.random(alive.size) < rally)
                fate[s] = np.where(back, HOLDS, fate[s])
        out = [fate[0] != HOLDS, fate[1] != HOLDS]
        done = out[0] | out[1]
        if done.any():
            both = out[0] & out[1]
            winner = np.where(both, 2, np.where(out[1], 0, 1))
            loser = np.where(out[1], fate[1], fate[0])
            end = np.where(both, 3, DESTROYED - loser)
            idx = alive[done]
            counts.add(
                winner[done],
                end[done],
                np.full(idx.size, exchange),
                volley,
                [damage[0][idx], damage[1][idx]],
                [fate[0][done], fate[1][done]],
            )
            alive = alive[~done]
        if alive.size == 0:
            return
    counts.add(
        np.full(alive.size, 2),
        np.full(alive.size, 4),
        np.full(alive.size, limit),
        volleys,
        [damage[0][alive], damage[1][alive]],
        [np.zeros(alive.size, np.int64)] * 2,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("--trials", type=int, default=4_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the outcome counts here")
    args = parser.parse_args()
    units, engagement, melee, missile = load(args.scenario)
    rng = np.random.default_rng(args.seed)
    counts = Counts(engagement.get("max_exchanges", 20), engagement.get("missile_volleys", 0))
    start = time.perf_counter()
    left = args.trials
    while left:
        n = min(BATCH, left)
        fight_batch(n, rng, units, engagement, melee, missile, counts)
        left -= n
    elapsed = time.perf_counter() - start
    print(f"{args.trials} battles in {elapsed:.3f} s: {args.trials / elapsed / 1e6:.2f} M battles/s")
    if args.json:
        names = [units[0]["name"], units[1]["name"]]
        rows = {
            "battle/winner": dict(zip(WINNERS, counts.winner.tolist())),
            "battle/end": dict(zip(ENDS, counts.end.tolist())),
            "battle/exchanges": {str(i): int(c) for i, c in enumerate(counts.exchanges) if c},
        }
        if counts.volleys.size > 1:
            rows["battle/volleys"] = {str(i): int(c) for i, c in enumerate(counts.volleys) if c}
        for s in range(2):
            rows[f"unit:{names[s]}/damage"] = {str(i): int(c) for i, c in enumerate(counts.damage[s]) if c}
            rows[f"unit:{names[s]}/fate"] = dict(zip(FATES, counts.fate[s].tolist()))
        pathlib.Path(args.json).write_text(
            json.dumps({"trials": args.trials, "seconds": elapsed, "counts": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
