//! The doors a reliability and security probe found open, each held shut:
//! cross-site requests, slow clients, pipes and devices, planted links,
//! unbounded threads and names, half-written files, contradicting shards,
//! two writers to one folder, and options misnamed in messages.

use std::io::Write as _;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::serve::Server;
use crate::util::{failure_stderr, is_root, read, repo, skipped, warcrunch};

const AMBUSH: &str = "scenarios/gurps/ambush_at_the_ford.toml";
const KNIGHTS: &str = "scenarios/war_cards/knights_vs_pikes.toml";

fn ambush() -> String {
    read(&repo().join(AMBUSH))
}

/// A named pipe at `path`.
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

#[test]
fn a_cross_site_get_neither_follows_nor_stops_a_run_and_ids_are_not_guessable() {
    let server = Server::start(&[]);
    let id = server.start_run(json!({ "toml": ambush(), "trials": 1_000_000_000, "seed": 1 }));
    let other = server.start_run(json!({ "toml": ambush(), "trials": 1000, "seed": 1 }));
    // Random ids below 2^53: not 1, 2, 3…, and not one after the other.
    assert!(
        id > 1 << 20 && other > 1 << 20 && id.abs_diff(other) != 1,
        "{id} {other}"
    );
    server.wait_for(id, |s| s["status"] == "running");
    let host = format!("Host: {}", server.address);
    for from in ["Origin: https://evil.example", "Sec-Fetch-Site: cross-site"] {
        let (status, text) = server.request_with(
            "GET",
            &format!("/api/runs/{id}/events"),
            &[&host, from],
            None,
        );
        assert_eq!(status, 403, "{from}: {text}");
    }
    std::thread::sleep(Duration::from_millis(200));
    let (_, state) = server.json("GET", &format!("/api/runs/{id}"), None);
    assert_eq!(state["status"], "running", "the run goes on: {state}");
    let (status, _) = server.json("DELETE", &format!("/api/runs/{id}"), None);
    assert_eq!(status, 200);
}

/// Two slow clients of `server`: one whose header never ends, one whose
/// body stops short of its Content-Length.
fn slow_clients(server: &Server) -> (TcpStream, TcpStream) {
    let mut half_header = TcpStream::connect(&server.address).unwrap();
    write!(
        half_header,
        "GET /api/scenarios HTTP/1.1\r\nHost: {}\r\n",
        server.address
    )
    .unwrap();
    let mut short_body = TcpStream::connect(&server.address).unwrap();
    write!(
        short_body,
        "POST /api/check HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"toml\":",
        server.address
    )
    .unwrap();
    (half_header, short_body)
}

#[test]
fn slow_clients_do_not_hold_the_server_after_sigterm() {
    let mut server = Server::start(&[]);
    let files = crate::util::server_files(server.pid());
    assert!(files.is_dir());
    let (half_header, short_body) = slow_clients(&server);
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let ended = server.terminate(Duration::from_secs(3));
    assert!(ended.is_some(), "still serving 3 s after SIGTERM");
    assert!(asked.elapsed() < Duration::from_secs(3));
    assert!(!files.exists(), "{} is left behind", files.display());
    drop((half_header, short_body));
}

#[test]
fn a_slow_client_is_cut_off_while_the_server_runs() {
    use std::io::Read as _;
    let server = Server::start(&[]);
    let (mut half_header, mut short_body) = slow_clients(&server);
    let started = Instant::now();
    for stream in [&mut half_header, &mut short_body] {
        stream
            .set_read_timeout(Some(Duration::from_secs(40)))
            .unwrap();
    }
    // The half-sent header: the connection is closed (10 s).
    let mut answer = Vec::new();
    half_header.read_to_end(&mut answer).unwrap();
    assert!(
        !String::from_utf8_lossy(&answer).contains("200 OK"),
        "{answer:?}"
    );
    // The short body: refused once its time is up (10 s).
    let mut answer = String::new();
    short_body.read_to_string(&mut answer).ok();
    assert!(
        answer.starts_with("HTTP/1.1 4") && answer.contains("designated timeout"),
        "{answer}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // The server still answers others.
    let (status, _) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 200);
}

#[test]
fn the_servers_folder_is_new_unpredictable_and_never_a_planted_link() {
    let temp = std::env::temp_dir();
    let target = tempfile::tempdir().unwrap();
    // Links where a server of the next few hundred process ids would once
    // have put its files.
    let me = std::process::id();
    let planted: Vec<PathBuf> = (me..me + 400)
        .map(|pid| temp.join(format!("warcrunch-serve-{pid}")))
        .filter(|link| std::os::unix::fs::symlink(target.path(), link).is_ok())
        .collect();
    let server = Server::start(&[]);
    let knights = read(&repo().join(KNIGHTS));
    let id = server.start_run(json!({ "toml": knights, "trials": 2000, "seed": 1 }));
    assert_eq!(server.follow(id)["status"], "done");
    let files = crate::util::server_files(server.pid());
    let kind = std::fs::symlink_metadata(&files).unwrap();
    assert!(kind.is_dir(), "{} is a real folder", files.display());
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(kind.permissions().mode() & 0o777, 0o700, "ours alone");
    let name = files.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.len() > format!("warcrunch-serve-{}-", server.pid()).len() + 4,
        "{name} ends in random characters"
    );
    assert_eq!(
        std::fs::read_dir(target.path()).unwrap().count(),
        0,
        "nothing written through a planted link"
    );
    for link in planted {
        std::fs::remove_file(link).ok();
    }
}

#[test]
fn pipes_and_devices_are_refused_at_once_by_the_cli_and_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("fifo.toml");
    fifo(&pipe);
    let zero = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for (file, what) in [(&pipe, "a named pipe"), (&zero, "a device")] {
        let started = Instant::now();
        let error = failure_stderr(warcrunch().arg("check").arg(file));
        assert!(
            error.contains(&format!("it is {what}, not a regular file")),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }
    // A scenario whose table is a pipe: refused by `check` and by the server.
    let scenario = dir.path().join("ambush.toml");
    let text = ambush().replacen(
        "[[sides]]",
        "[tables]\nglory = \"fifo.toml\"\n\n[[sides]]",
        1,
    );
    std::fs::write(&scenario, &text).unwrap();
    let error = failure_stderr(warcrunch().arg("check").arg(&scenario));
    assert!(
        error.contains("table file") && error.contains("a named pipe"),
        "{error}"
    );
    let server = Server::start_in(dir.path(), &["--scenarios", "."]);
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": text, "name": "ambush.toml" })),
    );
    assert!((400..500).contains(&status), "{status} {body}");
    assert!(body.to_string().contains("named pipe"), "{body}");
    let (status, body) = server.json("GET", "/api/scenarios/fifo.toml", None);
    assert_eq!(status, 404, "{body}");
    assert!(body.to_string().contains("named pipe"), "{body}");
}

#[test]
fn threads_are_capped_and_a_long_name_neither_breaks_a_file_nor_floods_a_message() {
    let error = failure_stderr(warcrunch().args(["run", KNIGHTS, "--threads", "100000"]));
    assert!(
        error.contains("--threads") && error.contains("per core"),
        "{error}"
    );
    let error = failure_stderr(warcrunch().args(["run", KNIGHTS, "--threads", "4294967296"]));
    assert!(error.contains("--threads"), "{error}");
    // A hero named with the most characters a name may have (120): charts
    // get a cut name with a digest.
    let dir = tempfile::tempdir().unwrap();
    let long = "Titus".repeat(24);
    let scenario = dir.path().join("long.toml");
    std::fs::write(
        &scenario,
        ambush().replace("\"Titus\"", &format!("\"{long}\"")),
    )
    .unwrap();
    let out = dir.path().join("out");
    warcrunch()
        .args(["run", "--quiet", "--trials", "2000"])
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let longest = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().len())
        .max()
        .unwrap();
    assert!(longest < 200, "a file name of {longest} bytes");
    // A name as long as one argument may be (128 KiB): the message quotes
    // a few hundred bytes of it.
    let huge = "x".repeat(120_000);
    let error = failure_stderr(warcrunch().args([
        "sweep",
        AMBUSH,
        "--set",
        &format!("heroes.{huge}.risk=1,2"),
    ]));
    assert!(error.len() < 4096, "a message of {} bytes", error.len());
    assert!(error.contains("more characters"), "{error}");
}

#[test]
fn generated_files_are_written_whole_or_not_at_all_on_a_full_disk() {
    if !is_root() {
        return skipped("a full disk is made with a small tmpfs, which needs root");
    }
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=12k", "tmpfs"])
        .arg(&disk)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount a 12 KiB tmpfs");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            std::process::Command::new("umount")
                .arg(&self.0)
                .status()
                .ok();
        }
    }
    let _unmount = Unmount(disk.clone());
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    // Schemas of every kind: tens of kilobytes, more than the disk holds.
    let error = failure_stderr(
        warcrunch()
            .args(["schema", "--out"])
            .arg(disk.join("schema")),
    );
    assert!(error.contains("cannot write"), "{error}");
    assert!(
        names(&disk.join("schema")).is_empty(),
        "{:?}",
        names(&disk.join("schema"))
    );
    let error = failure_stderr(
        warcrunch()
            .args(["tables", "--export"])
            .arg(disk.join("tables")),
    );
    assert!(error.contains("cannot write"), "{error}");
    let written: Vec<String> = names(&disk.join("tables"))
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(written.is_empty(), "hidden leftovers {written:?}");
    // Fill the disk, then `new`: no empty file that a retry calls existing.
    std::fs::write(disk.join("filler"), vec![0u8; 12 * 1024]).ok();
    let mine = disk.join("mine.toml");
    let error = failure_stderr(warcrunch().args(["new", "gurps", "--out"]).arg(&mine));
    assert!(error.contains("cannot write"), "{error}");
    assert!(!mine.exists(), "a half-written {}", mine.display());
    // Completions to a full device: an error, not a panic.
    let full = std::fs::File::create("/dev/full").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_warcrunch"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot write to standard output"));
}

#[test]
fn a_reader_that_closes_early_ends_the_command_quietly() {
    for args in [&["completions", "bash"][..], &["man"][..], &["tables"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_warcrunch"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt as _;
        let quiet = output.status.success() || output.status.signal() == Some(13);
        assert!(
            quiet,
            "{args:?}: {:?} {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    }
}

#[test]
fn merge_refuses_parts_that_contradict_themselves_and_an_out_holding_a_part() {
    let dir = tempfile::tempdir().unwrap();
    let part = |i: u32| dir.path().join(format!("part{i}"));
    for i in 0..2 {
        warcrunch()
            .args([
                "run",
                "--quiet",
                "--trials",
                "20000",
                "--shard",
                &format!("{i}/2"),
                AMBUSH,
                "--out",
            ])
            .arg(part(i))
            .assert()
            .success();
    }
    // Megalos wins 500 battles more, Raiders lose none more: totals kept,
    // the digest recomputed.
    let file = part(1).join("partial.json");
    let mut partial: warcrunch::report::exporters::partial::Partial =
        serde_json::from_str(&read(&file)).unwrap();
    let victory = partial.variants[0]
        .metrics
        .iter_mut()
        .find(|m| m.subject == "side:Megalos" && m.name == "victory")
        .unwrap();
    victory.weights[0] += 500;
    victory.weights[1] -= 500;
    partial.counts_sha256 = partial.counts_digest();
    std::fs::write(&file, serde_json::to_string(&partial).unwrap()).unwrap();
    let merged_into = |out: &Path| {
        failure_stderr(
            warcrunch()
                .arg("merge")
                .arg(part(0))
                .arg(part(1))
                .arg("--out")
                .arg(out),
        )
    };
    let error = merged_into(&dir.path().join("whole"));
    assert!(
        error.contains("part1")
            && error.contains("side:Megalos/victory")
            && error.contains("side:Raiders/victory"),
        "{error}"
    );
    assert!(!dir.path().join("whole").exists());
    // An output folder holding one of the parts is refused, the part kept.
    let error = merged_into(&part(0));
    assert!(
        error.contains("merge --out") && error.contains("choose another --out"),
        "{error}"
    );
    assert!(part(0).join("partial.json").exists());
}

#[test]
fn messages_name_the_option_typed() {
    let error = failure_stderr(warcrunch().args([
        "run",
        KNIGHTS,
        "--precision",
        "0.01",
        "--max-trials",
        "0",
    ]));
    assert!(
        error.contains("--max-trials") && !error.contains("--trials:"),
        "{error}"
    );
}

#[test]
fn a_folder_swapped_for_a_link_during_requests_never_serves_the_file_outside() {
    let root = tempfile::tempdir().unwrap();
    let (inside, outside) = (root.path().join("scenarios"), root.path().join("outside"));
    let (sub, parked) = (inside.join("sub"), root.path().join("parked"));
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let knights = read(&repo().join(KNIGHTS));
    std::fs::write(sub.join("x.toml"), &knights).unwrap();
    let secret = knights.replacen("name = \"", "name = \"OUTSIDE SECRET ", 1);
    std::fs::write(outside.join("x.toml"), &secret).unwrap();
    let server = Server::start_in(root.path(), &["--scenarios", "scenarios"]);
    // `sub` is a real folder one moment and a link out the next, while the
    // page asks for the file in it and for the listing.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, sub, parked, outside) =
            (stop.clone(), sub.clone(), parked.clone(), outside.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::rename(&sub, &parked).unwrap();
                std::os::unix::fs::symlink(&outside, &sub).unwrap();
                std::thread::yield_now();
                std::fs::remove_file(&sub).unwrap();
                std::fs::rename(&parked, &sub).unwrap();
                std::thread::yield_now();
            }
        })
    };
    let mut served = 0;
    for i in 0..1500 {
        let path = if i % 5 == 0 {
            "/api/scenarios"
        } else {
            "/api/scenarios/sub/x.toml"
        };
        let (status, text) = server.request("GET", path, None);
        assert!(
            !text.contains("OUTSIDE SECRET"),
            "request {i} served the file outside"
        );
        served += usize::from(status == 200);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        served > 300,
        "the page is still answered ({served} answers)"
    );
}

#[test]
fn a_sweep_that_would_write_more_than_100_mb_says_so_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big");
    let error = failure_stderr(
        warcrunch()
            .args([
                "sweep",
                AMBUSH,
                "--set",
                "heroes.Titus.risk=-6..6",
                "--set",
                "heroes.Varro.risk=-6..6",
                "--set",
                "heroes.Ilsa.risk=-6..6",
                "--max-variants",
                "2200",
                "--trials",
                "1000",
                "--out",
            ])
            .arg(&out),
    );
    assert!(
        error.contains("this sweep would write about")
            && error.contains("2,197 variants")
            && error.contains("--yes"),
        "{error}"
    );
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // Its size is told from the first variant, before any other is built
    // (20,000 variants took 28 s and 1 GB to build before): a sweep whose
    // later variants the rules would refuse (Risk 7) is refused for its
    // size first.
    let error = failure_stderr(
        warcrunch()
            .args([
                "sweep",
                AMBUSH,
                "--set",
                "heroes.Titus.risk=-6..7",
                "--set",
                "heroes.Varro.risk=-6..7",
                "--set",
                "heroes.Ilsa.risk=-6..7",
                "--max-variants",
                "3000",
                "--out",
            ])
            .arg(&out),
    );
    assert!(
        error.contains("this sweep would write about") && error.contains("2,744 variants"),
        "{error}"
    );
}

#[test]
fn a_capped_server_shares_its_cap_among_a_sensitivitys_moves_as_among_a_sweeps_variants() {
    // The ambush's own 200,000 battles for each of its moves would be far
    // over a cap of 60,000: each gets an equal share instead.
    let server = Server::start(&["--max-trials", "60000"]);
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "ask": { "sensitivity": { "target": "side:Megalos/victory=won" } } })),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    let done = server.follow(id);
    assert_eq!(
        done["status"], "done",
        "accepted and answered, not failed: {done}"
    );
    let (_, record) = server.json("GET", &format!("/api/runs/{id}/files/run.json"), None);
    let each = record["trials"].as_u64().unwrap();
    let (_, table) = server.request(
        "GET",
        &format!("/api/runs/{id}/files/sensitivity.csv"),
        None,
    );
    let moves = table.lines().count() as u64 - 1;
    assert!(moves > 2 && each > 0, "{record}");
    assert!(
        each * (moves + 1) <= 60_000,
        "{each} battles × {moves} moves and the base"
    );
}

#[test]
fn a_name_longer_than_120_characters_is_refused_by_check_naming_its_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for (what, text) in [
        (
            "name",
            ambush().replacen(
                "name = \"Ambush at the ford\"",
                &format!("name = \"{}\"", "Ambush ".repeat(1_500)),
                1,
            ),
        ),
        (
            "heroes[1].name",
            ambush().replace("\"Varro\"", &format!("\"{}\"", "V".repeat(121))),
        ),
    ] {
        assert_ne!(text, ambush(), "{what}: the name was planted");
        let file = dir.path().join("long.toml");
        std::fs::write(&file, &text).unwrap();
        let error = failure_stderr(warcrunch().arg("check").arg(&file));
        assert!(
            error.contains(&format!("`{what}` is")) && error.contains("allowed: 1 to 120"),
            "{error}"
        );
        assert!(error.len() < 400, "the message quotes no name: {error}");
    }
    // At the bound it is a name like any other.
    let file = dir.path().join("bound.toml");
    std::fs::write(
        &file,
        ambush().replace("\"Varro\"", &format!("\"{}\"", "V".repeat(120))),
    )
    .unwrap();
    warcrunch().arg("check").arg(&file).assert().success();
}

#[test]
fn a_lock_file_planted_as_a_link_is_refused_and_what_it_points_at_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let plant = dir.path().join("plant");
    std::fs::create_dir(&plant).unwrap();
    std::os::unix::fs::symlink(&victim, plant.join(".r.lock")).unwrap();
    let error = failure_stderr(
        warcrunch()
            .args(["run", KNIGHTS, "--trials", "1000", "--quiet", "--out"])
            .arg(plant.join("r")),
    );
    assert!(
        error.contains(".r.lock") && error.contains("is a link, not a regular file"),
        "{error}"
    );
    assert_eq!(read(&victim), "keep me");
    assert!(!plant.join("r").exists());
}

#[test]
fn force_replaces_a_regular_file_only_never_a_pipe_a_device_or_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe.toml");
    fifo(&pipe);
    let error = failure_stderr(
        warcrunch()
            .args(["new", "gurps", "--force", "--out"])
            .arg(&pipe),
    );
    assert!(
        error.contains("is a named pipe, not a regular file"),
        "{error}"
    );
    assert!(
        !dir.path().join("gurps.schema.json").exists(),
        "nothing written beside it"
    );
    // A device, named by a link to it: the link is neither followed nor replaced.
    let device = dir.path().join("full.toml");
    std::os::unix::fs::symlink("/dev/null", &device).unwrap();
    let error = failure_stderr(
        warcrunch()
            .args(["new", "gurps", "--force", "--out"])
            .arg(&device),
    );
    assert!(error.contains("is a link, not a regular file"), "{error}");
    assert!(
        std::fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A table export where one of the files is a folder: none is written.
    let export = dir.path().join("export");
    std::fs::create_dir_all(export.join("gurps/survival.toml")).unwrap();
    let error = failure_stderr(
        warcrunch()
            .args(["tables", "--force", "--export"])
            .arg(&export),
    );
    assert!(error.contains("is a folder, not a regular file"), "{error}");
    assert!(
        !export.join("war_cards.toml").exists(),
        "none of the set is written"
    );
    // A regular file is replaced, as --force says.
    let file = dir.path().join("mine.toml");
    std::fs::write(&file, "old").unwrap();
    warcrunch()
        .args(["new", "gurps", "--force", "--out"])
        .arg(&file)
        .assert()
        .success();
    assert!(read(&file).contains("system = \"gurps\""));
}

/// The head of `GET path`'s answer, its header lines in lower case.
fn head_of(server: &Server, path: &str) -> String {
    let mut stream = TcpStream::connect(&server.address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.address
    )
    .unwrap();
    let mut raw = String::new();
    std::io::Read::read_to_string(&mut stream, &mut raw).unwrap();
    raw.split("\r\n\r\n").next().unwrap().to_ascii_lowercase()
}

#[test]
fn no_site_may_frame_the_page_a_link_starts_no_run_and_a_bad_run_id_gets_json() {
    let server = Server::start(&[]);
    for path in ["/", "/api/scenarios", "/api/runs/1"] {
        let head = head_of(&server, path);
        assert!(
            head.contains("x-frame-options: sameorigin"),
            "{path}: {head}"
        );
        assert!(
            head.contains("content-security-policy: frame-ancestors 'self'"),
            "{path}: {head}"
        );
    }
    // The page reads a scenario from its address, never a run.
    let script = read(&repo().join("assets/workbench.js"));
    assert!(!script.contains("query.has(\"run\")"));
    // A run id that is not a number: a 400 in JSON, naming it.
    for method in ["GET", "DELETE"] {
        let (status, body) = server.json(method, "/api/runs/abc", None);
        assert_eq!(status, 400, "{method}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("`abc` is not a run id"),
            "{body}"
        );
    }
    let (status, body) = server.json("GET", "/api/runs/abc/files/x.csv", None);
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].is_string(), "{body}");
}

#[test]
fn an_out_holding_a_file_the_command_reads_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("own");
    std::fs::create_dir(&own).unwrap();
    let scenario = own.join("ambush.toml");
    std::fs::write(&scenario, ambush()).unwrap();
    for force in [false, true] {
        let mut command = warcrunch();
        command
            .args(["run", "--quiet", "--trials", "1000"])
            .arg(&scenario)
            .arg("--out")
            .arg(&own);
        if force {
            command.arg("--force");
        }
        let error = failure_stderr(&mut command);
        assert!(
            error.contains("which this command reads") && error.contains("ambush.toml"),
            "{error}"
        );
        assert!(scenario.is_file(), "the scenario is still there");
    }
    // A table file inside the out folder counts too.
    let table = own.join("survival.toml");
    warcrunch()
        .args(["tables", "--export"])
        .arg(dir.path().join("t"))
        .arg("survival")
        .assert()
        .success();
    std::fs::copy(dir.path().join("t/gurps/survival.toml"), &table).unwrap();
    let error = failure_stderr(
        warcrunch()
            .args([
                "run", "--quiet", "--trials", "1000", AMBUSH, "--force", "--table",
            ])
            .arg(format!("survival={}", table.display()))
            .arg("--out")
            .arg(&own)
            .current_dir(repo()),
    );
    assert!(
        error.contains("survival.toml") && error.contains("which this command reads"),
        "{error}"
    );
    assert!(table.is_file());
}

/// Every identity a system declares holds on the counts of each bundled
/// battle of it, and `merge` refuses shards that break any one of them
/// (the digest recomputed, the totals kept).
#[test]
fn merge_refuses_counts_that_break_any_identity_each_system_declares() {
    use warcrunch::report::exporters::partial::Partial;
    use warcrunch::stats::identity::{Identity, Pick};
    let dir = tempfile::tempdir().unwrap();
    let mut broken_by_system: std::collections::BTreeMap<String, usize> = Default::default();
    for (n, file) in crate::util::bundled_scenarios().iter().enumerate() {
        let part = |i: u32| dir.path().join(format!("{n}-part{i}"));
        for i in 0..2 {
            warcrunch()
                .args(["run", "--quiet", "--trials", "20000", "--seed", "3"])
                .args(["--shard", &format!("{i}/2"), "--out"])
                .arg(part(i))
                .arg(file)
                .assert()
                .success();
        }
        let path = part(1).join("partial.json");
        let partial: Partial = serde_json::from_str(&read(&path)).unwrap();
        let identities = warcrunch::systems::registry::identities(&partial.info.system);
        let metrics = &partial.variants[0].metrics;
        assert_eq!(
            warcrunch::stats::identity::check(identities, metrics),
            Ok(()),
            "{}",
            file.display()
        );
        for identity in identities {
            let (Identity::Same(a, b) | Identity::Within(a, b)) = *identity;
            let Some(at) = metrics
                .iter()
                .position(|m| m.name == a.metric && a.subject.reads(&m.subject))
            else {
                continue;
            };
            let Some(partner) = metrics.iter().find(|m| {
                m.name == b.metric
                    && b.subject.reads(&m.subject)
                    && (m.subject == metrics[at].subject || !b.subject.reads(&metrics[at].subject))
            }) else {
                continue;
            };
            // Battles moved into the first side's bins from its others:
            // one for an equality, past the second's count for a bound.
            let (x, y) = (a.pick.count(&metrics[at]), b.pick.count(partner));
            let need = match identity {
                Identity::Same(..) => 1,
                Identity::Within(..) => y - x + 1,
            };
            let mut tampered = partial.clone();
            let m = &mut tampered.variants[0].metrics[at];
            let picked: Vec<bool> = (0..m.weights.len())
                .map(|i| {
                    let one = warcrunch::stats::Metric::<u64> {
                        weights: (0..m.weights.len()).map(|j| u64::from(i == j)).collect(),
                        ..m.clone()
                    };
                    Pick::count(a.pick, &one) == 1
                })
                .collect();
            let Some(from) = (0..m.weights.len()).find(|&i| !picked[i] && m.weights[i] >= need)
            else {
                continue;
            };
            let to = picked.iter().position(|&p| p).unwrap();
            m.weights[from] -= need;
            m.weights[to] += need;
            tampered.counts_sha256 = tampered.counts_digest();
            std::fs::write(&path, serde_json::to_string(&tampered).unwrap()).unwrap();
            let merged = dir.path().join(format!("{n}-merged"));
            let error = failure_stderr(
                warcrunch()
                    .arg("merge")
                    .arg(part(0))
                    .arg(part(1))
                    .arg("--out")
                    .arg(&merged),
            );
            assert!(
                error.contains(&format!("{}/{}", metrics[at].subject, a.metric))
                    && error.contains("the file was changed after the shard wrote it")
                    && !merged.exists(),
                "{}: {identity:?}: {error}",
                file.display()
            );
            *broken_by_system
                .entry(partial.info.system.clone())
                .or_default() += 1;
        }
        std::fs::write(&path, serde_json::to_string(&partial).unwrap()).unwrap();
    }
    // Each system's every identity was broken on some battle of it.
    for (system, declared) in ["gurps", "seventh_sea", "war_cards"]
        .map(|s| (s, warcrunch::systems::registry::identities(s).len()))
    {
        assert!(declared > 0, "{system} declares none");
        assert!(
            broken_by_system.get(system).is_some_and(|&n| n >= declared),
            "{system}: {broken_by_system:?}"
        );
    }
}

/// A scenario whose file stem fills a file name (245 characters) runs and
/// answers a question into its default folders: the stem is cut to fit,
/// ending in a digest of the whole.
#[test]
fn a_stem_as_long_as_a_file_name_allows_writes_its_default_folders() {
    let dir = tempfile::tempdir().unwrap();
    let stem = "a".repeat(245);
    let file = dir.path().join(format!("{stem}.toml"));
    std::fs::write(&file, read(&repo().join(AMBUSH))).unwrap();
    let quiet = ["--quiet", "--trials", "1000"];
    warcrunch()
        .current_dir(dir.path())
        .arg("run")
        .arg(&file)
        .args(quiet)
        .assert()
        .success();
    warcrunch()
        .current_dir(dir.path())
        .arg("sensitivity")
        .arg(&file)
        .args(["--target", "party/any_down_or_dead=yes"])
        .args(quiet)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].starts_with(&"a".repeat(71)) && names[0].len() == 80,
        "{names:?}"
    );
    assert!(
        names[1].starts_with(&format!("{}.sensitivity.", names[0])),
        "{names:?}"
    );
}

/// The keys a mutation testbed found refused without a line now name it:
/// `system`, the battle's `name`, a table's `kind` and a war card's results.
#[test]
fn a_refused_system_name_kind_or_card_result_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = read(&repo().join(AMBUSH));
    let cases = [
        ("system = \"gurps\"", "system = \"gurpz\"", "`system`"),
        ("system = \"gurps\"", "system = 5", "`system`"),
    ];
    for (from, to, key) in cases {
        let file = dir.path().join("s.toml");
        std::fs::write(&file, ambush.replacen(from, to, 1)).unwrap();
        let line = 1 + ambush[..ambush.find(from).unwrap()].matches('\n').count();
        let error = failure_stderr(warcrunch().arg("check").arg(&file));
        assert!(
            error.contains(&format!("s.toml:{line}:1: {key}")),
            "{error}"
        );
    }
    let first_name = ambush.lines().find(|l| l.starts_with("name = ")).unwrap();
    let file = dir.path().join("n.toml");
    std::fs::write(&file, ambush.replacen(first_name, "name = \" \"", 1)).unwrap();
    let line = 1 + ambush[..ambush.find(first_name).unwrap()]
        .matches('\n')
        .count();
    let error = failure_stderr(warcrunch().arg("check").arg(&file));
    assert!(
        error.contains(&format!("n.toml:{line}:1: `name` is empty")),
        "{error}"
    );
    // Tables: a kind no table has, and a card row's results.
    let glory = warcrunch::tables::built_in_text("glory");
    let table = dir.path().join("g.toml");
    std::fs::write(
        &table,
        glory.replacen("kind = \"glory\"", "kind = \"glorx\"", 1),
    )
    .unwrap();
    let line = 1 + glory[..glory.find("kind = ").unwrap()]
        .matches('\n')
        .count();
    let error = failure_stderr(
        warcrunch()
            .args(["check", AMBUSH, "--table"])
            .arg(format!("glory={}", table.display())),
    );
    assert!(error.contains(&format!("g.toml:{line}: `kind`")), "{error}");
    let cards = warcrunch::tables::built_in_text("cards");
    let row = "sword_shield   = \"- F H H F H R\"";
    let table = dir.path().join("c.toml");
    std::fs::write(
        &table,
        cards.replacen(row, "sword_shield   = \"- F H H F H X\"", 1),
    )
    .unwrap();
    let line = 1 + cards[..cards.find(row).unwrap()].matches('\n').count();
    let error = failure_stderr(
        warcrunch()
            .args(["check", KNIGHTS, "--table"])
            .arg(format!("cards={}", table.display())),
    );
    assert!(
        error.contains(&format!("c.toml:{line}: cards[0].sword_shield")),
        "{error}"
    );
}
