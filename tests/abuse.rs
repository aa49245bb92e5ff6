//! The workbench's server under abuse: deep paths, a table file swapped
//! for a link while it is checked, questions and queues far beyond the
//! cap, stops that must take effect within a second, and bodies that are
//! refused in JSON whatever is wrong with them.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::serve::{Server, ambush, resident_kib};

/// The server still answers.
fn alive(server: &Server) {
    let (status, _) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 200, "the server answers");
}

#[test]
fn a_path_thousands_of_steps_deep_is_refused_and_the_server_lives() {
    let server = Server::start(&[]);
    for (op, steps) in [("set", 8000), ("append", 20_000), ("remove", 100)] {
        let path: Vec<&str> = vec!["x"; steps];
        let edit = match op {
            "remove" => json!({ "op": op, "path": path }),
            _ => json!({ "op": op, "path": path, "value": 1 }),
        };
        let (status, body) = server.json(
            "POST",
            "/api/edit",
            Some(json!({ "toml": "a = 1\n", "edits": [edit] })),
        );
        assert_eq!(status, 422, "{op}: {body}");
        assert!(
            body.to_string()
                .contains(&format!("`path` has {steps} steps; at most 16")),
            "{body}"
        );
        alive(&server);
    }
    // A TOML key thousands of tables deep is refused by the parser's limit.
    let deep = format!("{} = 1\n", vec!["a"; 8000].join("."));
    let (status, _) = server.json("POST", "/api/check", Some(json!({ "toml": deep })));
    assert_eq!(status, 422);
    alive(&server);
}

#[test]
fn a_table_file_swapped_for_a_link_outside_is_never_read() {
    let root = tempfile::tempdir().unwrap();
    let scenarios = root.path().join("scenarios");
    std::fs::create_dir_all(scenarios.join("gurps")).unwrap();
    let glory = warcrunch::tables::built_in_text("glory");
    let inside = format!("{glory}\n# inside\n");
    let outside = format!("{glory}\n# OUTSIDE the scenarios folder\n");
    let outside_file = root.path().join("secret.toml");
    std::fs::write(&outside_file, &outside).unwrap();
    let outside_digest = format!("{:x}", Sha256::digest(outside.as_bytes()));
    let table = scenarios.join("gurps/t.toml");
    std::fs::write(&table, &inside).unwrap();
    let scenario = format!("{}\n[tables]\nglory = \"t.toml\"\n", ambush());
    let server = Server::start(&["--scenarios", scenarios.to_str().unwrap()]);
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": scenario, "name": "gurps/battle.toml", "trials": 1000 })),
    );
    assert_eq!(status, 200, "{body}");
    // 3,000 swaps of the table for a link to the file outside and back,
    // each by an atomic rename, while checks and runs read it.
    let swapper = {
        let (table, outside_file, inside) = (table.clone(), outside_file.clone(), inside.clone());
        std::thread::spawn(move || {
            let staged = table.with_extension("staged");
            for i in 0..3000 {
                let _ = std::fs::remove_file(&staged);
                if i % 2 == 0 {
                    std::os::unix::fs::symlink(&outside_file, &staged).unwrap();
                } else {
                    std::fs::write(&staged, &inside).unwrap();
                }
                std::fs::rename(&staged, &table).unwrap();
            }
        })
    };
    let (mut checks, mut leaks) = (0, Vec::new());
    while !swapper.is_finished() || checks < 200 {
        let (_, text) = server.request(
            "POST",
            "/api/check",
            Some(
                &json!({ "toml": scenario, "name": "gurps/battle.toml", "trials": 1000 })
                    .to_string(),
            ),
        );
        checks += 1;
        if text.contains(&outside_digest) || text.contains("OUTSIDE") {
            leaks.push(text);
        }
    }
    swapper.join().unwrap();
    assert!(checks >= 200, "{checks} checks");
    assert!(
        leaks.is_empty(),
        "{} of {checks} replies read the file outside: {}",
        leaks.len(),
        leaks[0]
    );
    alive(&server);
}

#[test]
fn a_sweep_of_twenty_thousand_variants_is_refused_and_memory_stays_flat() {
    let server = Server::start(&["--max-trials", "100000"]);
    let before = resident_kib(server.pid());
    for (asked, expect) in [
        (
            json!({ "sweep": { "set": ["sides.Raiders.troop_strength=1..20000"], "max_variants": 100000, "trials": 1 } }),
            "`set` makes 20000 variants; this server runs at most 200 in one sweep",
        ),
        (
            json!({ "sweep": { "set": ["heroes.Titus.risk=-6..6", "heroes.Varro.risk=-6..6"], "trials": 1000 } }),
            "make",
        ),
        (
            json!({ "sweep": { "set": ["sides.Raiders.troop_strength=100..1000:10"], "trials": 1000 } }),
            "91 variants × 1000 battles is 91000 battles",
        ),
        (
            json!({ "sweep": { "set": ["sides.Raiders.troop_strength=100..200:1"], "trials": 1000 } }),
            "101 variants × 1000 battles is 101000 battles; this server fights at most 100000",
        ),
    ] {
        let (status, body) = server.json(
            "POST",
            "/api/analyses",
            Some(json!({ "toml": ambush(), "ask": asked })),
        );
        if expect == "91 variants × 1000 battles is 91000 battles" {
            // Within the cap: accepted, then stopped.
            assert_eq!(status, 200, "{body}");
            let id = body["id"].as_u64().unwrap();
            server.json("DELETE", &format!("/api/runs/{id}"), None);
            continue;
        }
        if expect == "make" {
            // 169 variants are allowed; 169 × 1000 is above the cap.
            assert_eq!(status, 422, "{body}");
            assert!(body.to_string().contains("169 variants"), "{body}");
            continue;
        }
        assert_eq!(status, 422, "{asked}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(expect)),
            "{body}"
        );
    }
    let grown = resident_kib(server.pid()).saturating_sub(before);
    assert!(grown < 64 * 1024, "the server grew by {grown} KiB");
}

#[test]
fn three_hundred_queued_runs_are_bounded_and_every_kind_stops_within_a_second() {
    let server = Server::start(&["--max-runs", "1"]);
    // A run of nearly a megabyte each (a long comment), a billion battles.
    let padded = format!("{}\n# {}\n", ambush(), "x".repeat(900_000));
    let before = resident_kib(server.pid());
    let (mut accepted, mut busy) = (Vec::new(), 0);
    for seed in 0..300 {
        let (status, body) = server.json(
            "POST",
            "/api/runs",
            Some(json!({ "toml": padded, "trials": 1_000_000_000, "seed": seed })),
        );
        match status {
            200 => {
                let id = body["id"].as_u64().unwrap();
                if accepted.is_empty() {
                    // The first takes the only slot before the rest queue.
                    server.wait_for(id, |s| s["status"] == "running");
                }
                accepted.push(id);
            }
            429 => {
                busy += 1;
                assert!(
                    body["error"]
                        .as_str()
                        .is_some_and(|e| e.contains("waiting for a free slot")),
                    "{body}"
                );
            }
            _ => panic!("{status}: {body}"),
        }
    }
    // One runs, 32 wait, the rest are told to come back.
    assert_eq!(accepted.len(), 33, "{busy} refused");
    assert_eq!(busy, 267);
    let grown = resident_kib(server.pid()).saturating_sub(before);
    assert!(grown < 256 * 1024, "the server grew by {grown} KiB");
    // A queued run stops at once; the running one within a second.
    for &id in accepted.iter().rev() {
        let asked = Instant::now();
        server.json("DELETE", &format!("/api/runs/{id}"), None);
        let state = server.wait_for(id, |s| s["status"] != "queued" && s["status"] != "running");
        assert_eq!(state["status"], "stopped", "{state}");
        assert!(
            state["stopped_after_ms"]
                .as_u64()
                .is_some_and(|ms| ms < 1000),
            "run {id}: {state} ({:?} as the client saw it)",
            asked.elapsed()
        );
    }
    // Every kind of question (a compare of the page's Glory table with the
    // built-in one too) stops within a second of DELETE, once running.
    let questions = [
        json!({ "sweep": { "set": ["heroes.Titus.risk=-2..2"], "trials": 100_000_000 } }),
        // A rare outcome aimed at: each probe stays undecided to its last battle.
        json!({ "solve": { "vary": "sides.Raiders.troop_strength=600..1000", "target": "hero:Ilsa/state=wounded", "goal": { "equals": 0.064 }, "max_trials": 100_000_000 } }),
        json!({ "sensitivity": { "target": "party/any_down_or_dead=yes", "trials": 5_000_000 } }),
    ];
    let glory =
        warcrunch::tables::built_in_text("glory").replace("reputation = 2", "reputation = 3");
    let compare = json!({ "compare": { "trials": 200_000_000 } });
    for asked in questions.into_iter().chain([compare]) {
        let (status, body) = server.json(
            "POST",
            "/api/analyses",
            Some(json!({ "toml": ambush(), "ask": asked, "tables": { "glory": glory } })),
        );
        assert_eq!(status, 200, "{asked}: {body}");
        let id = body["id"].as_u64().unwrap();
        server.wait_for(id, |s| s["status"] == "running");
        // Let it get into its battles.
        std::thread::sleep(Duration::from_millis(500));
        let asked_at = Instant::now();
        server.json("DELETE", &format!("/api/runs/{id}"), None);
        let state = server.wait_for(id, |s| s["status"] != "running");
        assert_eq!(state["status"], "stopped", "{asked}: {state}");
        // The server's own measure: the client's includes its polling.
        assert!(
            state["stopped_after_ms"]
                .as_u64()
                .is_some_and(|ms| ms < 1000),
            "{asked}: {} ms ({:?} as the client saw it)",
            state["stopped_after_ms"],
            asked_at.elapsed()
        );
        eprintln!("{asked}: stopped in {} ms", state["stopped_after_ms"]);
    }
    // A question whose battles in all (moves × battles) exceed the cap is
    // refused when it is asked, as a sweep's are.
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(json!({ "toml": ambush(), "ask": { "sensitivity": { "target": "party/any_down_or_dead=yes", "trials": 50_000_000 } } })),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|n| n.contains("this server fights at most 1000000000 for one question")),
        "{body}"
    );
    alive(&server);
}

#[test]
fn every_refused_body_is_json_and_says_what_is_wrong() {
    let server = Server::start(&["--max-trials", "20000"]);
    let host = format!("Host: {}", server.address);
    let raw = |headers: &[&str], body: &str| {
        server.request_with("POST", "/api/check", headers, Some(body))
    };
    let json_type = "Content-Type: application/json";
    let big = "x".repeat(2 << 20);
    for (headers, body, status, says) in [
        (
            vec![host.as_str(), json_type],
            "not json",
            400,
            "Failed to parse the request body as JSON",
        ),
        (
            vec![host.as_str()],
            "{}",
            415,
            "Content-Type: application/json",
        ),
        (
            vec![host.as_str(), json_type],
            big.as_str(),
            413,
            "length limit exceeded",
        ),
        (
            vec![host.as_str(), json_type],
            "{\"toml\": 7}",
            422,
            "invalid type",
        ),
    ] {
        let (got, text) = raw(&headers, body);
        assert_eq!(got, status, "{text}");
        let parsed: Value =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        assert!(
            parsed["error"].as_str().is_some_and(|e| e.contains(says)),
            "{text}"
        );
    }
    // A precision far below what any run reaches, in few digits.
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "precision": 1e-300 })),
    );
    assert_eq!(status, 422);
    let text = body.to_string();
    assert!(
        text.contains(
            "`precision` = 1e-300 is out of range; allowed: a half-width from 1e-9 to 0.2"
        ),
        "{text}"
    );
    assert!(text.len() < 1000, "{text}");
    // A name of 200,000 characters costs no more than a short one.
    let long = format!("{}.toml", "n".repeat(200_000));
    let started = Instant::now();
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": ambush(), "name": long })),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body.to_string()
            .contains("`name` is 200005 bytes long; at most 255"),
        "{}",
        &body.to_string()[..200]
    );
    assert!(body.to_string().len() < 1000);
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A usage count (`/api/usage`) is work like a run: it waits in the same
/// queue, holds a slot while it counts, is refused when the queue is full,
/// and stops when its client leaves or the server is told to end.
#[test]
fn a_usage_count_queues_as_a_run_does_and_stops_when_its_client_leaves() {
    use std::io::Write;
    let mut server = Server::start(&["--max-runs", "1"]);
    let usage = |trials: u64| {
        let body = json!({ "toml": ambush(), "trials": trials, "seed": 1 }).to_string();
        let mut stream = std::net::TcpStream::connect(&server.address).unwrap();
        write!(
            stream,
            "POST /api/usage HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            server.address,
            body.len()
        )
        .unwrap();
        stream
    };
    // A count of a billion battles takes the only slot; a run waits behind it.
    let counting = usage(1_000_000_000);
    std::thread::sleep(Duration::from_millis(500));
    let waiting = server.start_run(json!({ "toml": ambush(), "trials": 1000, "seed": 2 }));
    std::thread::sleep(Duration::from_millis(500));
    let (_, state) = server.json("GET", &format!("/api/runs/{waiting}"), None);
    assert_eq!(state["status"], "queued", "{state}");
    // Its client gone, the count stops and the run gets the slot.
    drop(counting);
    let state = server.wait_for(waiting, |s| {
        s["status"] != "queued" && s["status"] != "running"
    });
    assert_eq!(state["status"], "done", "{state}");
    // With the slot held and 32 runs waiting, a count is refused as a run is.
    let holder = server.start_run(json!({ "toml": ambush(), "trials": 1_000_000_000, "seed": 3 }));
    server.wait_for(holder, |s| s["status"] == "running");
    let queued: Vec<u64> = (0..32)
        .map(|seed| server.start_run(json!({ "toml": ambush(), "trials": 1000, "seed": seed })))
        .collect();
    let (status, body) = server.json(
        "POST",
        "/api/usage",
        Some(json!({ "toml": ambush(), "trials": 1000 })),
    );
    assert_eq!(status, 429, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("waiting for a free slot")),
        "{body}"
    );
    for id in queued.into_iter().chain([holder]) {
        server.json("DELETE", &format!("/api/runs/{id}"), None);
    }
    // A count in flight ends with the server.
    let _counting = usage(1_000_000_000);
    std::thread::sleep(Duration::from_millis(500));
    let ended = server.terminate(Duration::from_secs(5));
    assert!(ended.is_some(), "the server still runs 5 s after SIGTERM");
}
