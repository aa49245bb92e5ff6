"""warcrunch against the numpy peer on every bundled war-cards battle.

    cargo build --release
    pip install numpy
    python3 benches/peer/compare.py [--warcrunch target/release/warcrunch] [--json FILE]

For each scenario, best of three, interleaved: warcrunch's simulation time on
one thread (run.json's elapsed_seconds, 32 M battles) against the peer's (4 M
battles; numpy's loops run on one thread), as battles a second; and the
peer's counts checked against warcrunch's distributions.csv of the same
number of battles (agree.py). Prints one line per scenario and, with --json,
writes them as benches/reference.json's `numpy_peer[]` entries.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
SCENARIOS = ["knights_vs_pikes", "longbows_vs_men_at_arms", "cavalry_clash_deck", "guard_vs_levy"]
OURS_TRIALS = 32_000_000
PEER_TRIALS = 4_000_000
ROUNDS = 3


def warcrunch_rate(binary, scenario, trials, out):
    subprocess.run(
        [binary, "run", scenario, "--trials", str(trials), "--threads", "1", "--out", out, "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    info = json.loads((pathlib.Path(out) / "run.json").read_text())
    return trials / info["elapsed_seconds"]


def peer_rate(scenario, trials, json_out):
    subprocess.run(
        [sys.executable, HERE / "war_cards.py", scenario, "--trials", str(trials), "--json", json_out],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return trials / json.loads(pathlib.Path(json_out).read_text())["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warcrunch", default=str(ROOT / "target/release/warcrunch"))
    parser.add_argument("--json", help="write the numpy_peer[] entries here")
    args = parser.parse_args()
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SCENARIOS:
            scenario = str(ROOT / "scenarios/war_cards" / f"{name}.toml")
            peer_json = f"{tmp}/{name}.json"
            ours = peer = 0.0
            for _ in range(ROUNDS):
                ours = max(ours, warcrunch_rate(args.warcrunch, scenario, OURS_TRIALS, f"{tmp}/ours"))
                peer = max(peer, peer_rate(scenario, PEER_TRIALS, peer_json))
            warcrunch_rate(args.warcrunch, scenario, PEER_TRIALS, f"{tmp}/same")
            check = subprocess.run(
                [sys.executable, HERE / "agree.py", peer_json, f"{tmp}/same/distributions.csv"],
                capture_output=True,
                text=True,
            )
            if check.returncode != 0:
                sys.exit(f"{name}: the peer disagrees with warcrunch:\n{check.stdout}")
            entry = {
                "scenario": f"scenarios/war_cards/{name}.toml",
                "warcrunch_battles_per_second": round(ours),
                "peer_battles_per_second": round(peer),
                "ratio": round(ours / peer, 2),
                "agreement": check.stdout.strip(),
            }
            entries.append(entry)
            print(
                f"{name}: warcrunch {ours / 1e6:.1f} M/s, peer {peer / 1e6:.2f} M/s, "
                f"{ours / peer:.1f}x ({entry['agreement']})"
            )
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(entries, indent=2) + "\n")


if __name__ == "__main__":
    main()
