"""Checks the numpy peer fights the same engagement as warcrunch.

    python3 benches/peer/agree.py PEER.json RUN_DIR/distributions.csv

For every outcome both report, a two-sample test of the two proportions; the
peer agrees when no difference exceeds the Bonferroni bound that keeps the
chance of a false alarm over all outcomes at 1 in 1,000. Exit 1 otherwise.
"""

import csv
import json
import math
import sys
from statistics import NormalDist

FAMILY_ALPHA = 0.001


def main():
    peer = json.load(open(sys.argv[1]))
    rows = list(csv.DictReader(open(sys.argv[2])))
    ours = {}
    for row in rows:
        key = f"{row['subject']}/{row['metric']}"
        ours.setdefault(key, {})[row["value"]] = int(row["count"])
    n_peer = peer["trials"]
    tests = []
    for key, counts in ours.items():
        n_ours = sum(counts.values())
        peer_counts = peer["counts"].get(key, {})
        for value in set(counts) | set(peer_counts):
            tests.append((key, value, counts.get(value, 0), n_ours, peer_counts.get(value, 0)))
    bound = NormalDist().inv_cdf(1 - FAMILY_ALPHA / (2 * len(tests)))
    worst = 0.0
    failed = []
    for key, value, a, n_a, b in tests:
        pooled = (a + b) / (n_a + n_peer)
        sd = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_peer))
        z = 0.0 if sd == 0 else abs(a / n_a - b / n_peer) / sd
        worst = max(worst, z)
        if z > bound:
            failed.append(f"{key}={value}: warcrunch {a / n_a:.5f}, peer {b / n_peer:.5f} (z {z:.1f})")
    print(f"{len(tests)} outcomes, largest difference {worst:.2f} sd, bound {bound:.2f} sd")
    for line in failed:
        print("differs:", line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
