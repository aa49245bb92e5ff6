//! Nothing the user has is lost: a re-run keeps the files a user added to
//! an output folder, subjects whose names clean alike keep their own
//! charts, and a run or a server stopped by SIGTERM or killed leaves no
//! staging or temporary folder behind for long.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::serve::{Server, ambush};
use crate::util::{read, repo, sigterm, warcrunch};

fn ambush_path() -> PathBuf {
    repo().join("scenarios/gurps/ambush_at_the_ford.toml")
}

/// Hidden staging folders (`.NAME.partial-…`) in `dir`.
fn staging_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-"))
        .collect()
}

/// A run of a billion battles into `out`, started in the background.
fn long_run(out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_warcrunch"))
        .current_dir(repo())
        .args(["run", "--quiet", "--trials", "1000000000"])
        .arg(ambush_path())
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits (at most a minute) until `ready` holds.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_rerun_names_the_files_the_user_added_instead_of_deleting_them() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let run = || {
        let mut cmd = warcrunch();
        cmd.args(["run", "--quiet", "--trials", "20000"])
            .arg(ambush_path())
            .arg("--out")
            .arg(&out);
        cmd
    };
    run().assert().success();
    // A folder warcrunch wrote is replaced by the next run.
    run().assert().success();
    std::fs::write(out.join("my_notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(out.join("sub/deeper")).unwrap();
    std::fs::write(out.join("sub/deeper/draft.md"), "mine").unwrap();
    let refused = run().assert().failure().code(1);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("would delete: my_notes.txt, sub/deeper/draft.md;")
            && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("my_notes.txt")), "mine");
    assert_eq!(read(&out.join("sub/deeper/draft.md")), "mine");
    assert!(staging_folders(root.path()).is_empty());
    let mut forced = run();
    forced.arg("--force").assert().success();
    assert!(!out.join("my_notes.txt").exists());
}

#[test]
fn heroes_whose_names_clean_alike_keep_their_own_charts() {
    let root = tempfile::tempdir().unwrap();
    let text = read(&ambush_path())
        .replace("\"Titus\"", "\"Ti tus\"")
        .replace("\"Varro\"", "\"Ti_tus\"");
    let scenario = root.path().join("alike.toml");
    std::fs::write(&scenario, text).unwrap();
    let (alike, plain) = (root.path().join("alike"), root.path().join("plain"));
    for (file, out) in [
        (scenario.as_path(), &alike),
        (ambush_path().as_path(), &plain),
    ] {
        warcrunch()
            .args(["run", "--quiet", "--trials", "20000"])
            .arg(file)
            .arg("--out")
            .arg(out)
            .assert()
            .success();
    }
    let charts = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".svg") || n.ends_with(".png"))
            .collect();
        names.sort();
        names
    };
    let (a, p) = (charts(&alike), charts(&plain));
    assert_eq!(a.len(), p.len(), "one chart per subject:\n{a:#?}\n{p:#?}");
    for name in [
        "outcome_hero_Ti_tus_state.svg",
        "outcome_hero_Ti_tus_state-2.svg",
    ] {
        assert!(a.contains(&name.to_owned()), "{name} in {a:#?}");
    }
    // The second is Ti_tus's own chart, not a copy of the first's.
    let svg = |name: &str| read(&alike.join(name));
    assert_ne!(
        svg("outcome_hero_Ti_tus_state.svg"),
        svg("outcome_hero_Ti_tus_state-2.svg")
    );
    assert!(svg("outcome_hero_Ti_tus_state-2.svg").contains("Ti_tus"));
}

#[test]
fn sigterm_removes_a_runs_staging_folder_and_kill_9_leaves_one_the_next_run_removes() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    // SIGTERM: the run stops at its next chunk and removes its staging folder.
    let mut child = long_run(&out);
    wait_until("the run stages its files", || {
        !staging_folders(root.path()).is_empty()
    });
    sigterm(child.id());
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted run fails");
    assert!(staging_folders(root.path()).is_empty());
    assert!(!out.exists());
    // kill -9 leaves the staging folder; the next run into the same place
    // removes it.
    let mut child = long_run(&out);
    wait_until("the run stages its files", || {
        !staging_folders(root.path()).is_empty()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(staging_folders(root.path()).len(), 1);
    warcrunch()
        .args(["run", "--quiet", "--trials", "20000"])
        .arg(ambush_path())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(staging_folders(root.path()).is_empty());
    assert!(out.join("run.json").exists());
}

#[test]
fn sigterm_stops_the_server_with_its_runs_and_removes_its_files() {
    let temp = std::env::temp_dir();
    // A folder left by a killed server (no process has this PID).
    let stale = temp.join("warcrunch-serve-4294967295");
    std::fs::create_dir_all(stale.join("1")).unwrap();
    let mut server = Server::start(&[]);
    assert!(
        !stale.exists(),
        "a stopped server's files are removed at start"
    );
    let id = server.start_run(json!({ "toml": ambush(), "trials": 1_000_000_000, "seed": 1 }));
    server.wait_for(id, |s| {
        s["status"] == "running" && s["done"].as_u64() > Some(0)
    });
    let files = crate::util::server_files(server.pid());
    assert!(files.exists(), "{} while running", files.display());
    let ended = server.terminate(Duration::from_secs(5));
    assert!(ended.is_some(), "the server ends within 5 s of SIGTERM");
    assert!(!files.exists(), "{} removed", files.display());
}
