//! A stop is a stop: the first SIGTERM ends any command within a second,
//! whatever it is doing (simulating, computing statistics, drawing charts,
//! writing files), leaving the previous report whole and no staging folder.
//!
//! The signal is sent at a series of moments across a whole command, so
//! every phase is hit. The contract is one second; the tests allow three,
//! for a loaded machine, and still fail on a command that ignores a stop.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{repo, sigterm, warcrunch};

const AMBUSH: &str = "scenarios/gurps/ambush_at_the_ford.toml";
const SIEGE: &str = "scenarios/gurps/siege_assault.toml";
const KNIGHTS: &str = "scenarios/war_cards/knights_vs_pikes.toml";

/// How long after SIGTERM a command may still run, here.
const ALLOWED: Duration = Duration::from_secs(3);

fn start(args: &[&str], out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_warcrunch"))
        .current_dir(repo())
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Names in `dir` a run leaves only while it writes.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-") || n.ends_with(".lock") || n.ends_with(".old"))
        .collect()
}

/// Waits for `child` at most `limit`; its exit status, or `None` (killed).
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Every file the marker of a report folder lists exists: the folder is
/// one whole report.
fn whole(out: &Path) -> bool {
    let Ok(marker) = std::fs::read_to_string(out.join(".warcrunch")) else {
        return false;
    };
    marker.lines().skip(1).all(|file| out.join(file).exists())
}

/// Sends SIGTERM `after` the start of `args`, and checks the command ended
/// within [`ALLOWED`], left nothing behind, and left a whole report (the
/// earlier one, or its own if it finished first).
fn stopped_at(args: &[&str], after: Duration) {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let mut earlier = warcrunch();
    earlier
        .args(["run", "--quiet", "--trials", "2000", KNIGHTS, "--out"])
        .arg(&out)
        .assert()
        .success();
    let before = std::fs::read(out.join("run.json")).unwrap();
    let mut child = start(args, &out);
    std::thread::sleep(after);
    let signalled = Instant::now();
    sigterm(child.id());
    let status = wait_at_most(&mut child, ALLOWED);
    assert!(
        status.is_some(),
        "{args:?} still ran {ALLOWED:?} after SIGTERM sent at {after:?}"
    );
    let took = signalled.elapsed();
    assert!(
        leftovers(root.path()).is_empty(),
        "{args:?} stopped at {after:?} left {:?}",
        leftovers(root.path())
    );
    assert!(
        whole(&out),
        "{args:?} stopped at {after:?}: the report is not whole"
    );
    let status = status.unwrap();
    assert!(
        status.success() || status.code() == Some(130),
        "{args:?} stopped at {after:?}: {status:?}, not 130"
    );
    if !status.success() {
        assert_eq!(
            std::fs::read(out.join("run.json")).unwrap(),
            before,
            "{args:?} stopped at {after:?} (in {took:?}) changed the earlier report"
        );
    }
}

#[test]
fn a_sweep_stops_within_a_second_in_every_phase() {
    // About a second and a half of battles, then statistics, 36 charts and
    // the files: a signal every 120 ms lands in each phase.
    let args = [
        "sweep",
        AMBUSH,
        "--set",
        "heroes.Titus.risk=-1,1",
        "--trials",
        "2000000",
        "--quiet",
    ];
    for step in 0..20 {
        stopped_at(&args, Duration::from_millis(50 + 120 * step));
    }
}

#[test]
fn every_simulating_command_stops_within_a_second() {
    let commands: [&[&str]; 6] = [
        &["run", AMBUSH, "--trials", "16000000", "--quiet"],
        &[
            "sweep",
            KNIGHTS,
            "--set",
            "attacker.melee=3,4",
            "--trials",
            "16000000",
            "--quiet",
        ],
        &["compare", AMBUSH, SIEGE, "--trials", "16000000", "--quiet"],
        &[
            "sensitivity",
            AMBUSH,
            "--target",
            "side:Megalos/victory=won",
            "--trials",
            "16000000",
            "--quiet",
        ],
        &[
            "solve",
            KNIGHTS,
            "--vary",
            "engagement.max_exchanges=1..40",
            "--target",
            "battle/winner=attacker",
            "--at-least",
            "0.45",
            "--max-trials",
            "16000000",
            "--quiet",
        ],
        &[
            "tune",
            AMBUSH,
            "--goal",
            "side:Megalos/victory=won in 45%..55%",
            "--vary",
            "sides.Raiders.troop_strength=400..1600:100",
            "--trials",
            "4000000",
            "--quiet",
        ],
    ];
    for args in commands {
        for after in [300, 900] {
            stopped_at(args, Duration::from_millis(after));
        }
    }
}
