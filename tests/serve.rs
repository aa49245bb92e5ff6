//! The workbench's API against a real server on an ephemeral port: listing,
//! reading, checking, running, streaming, stopping, files, the CSV identity
//! with `warcrunch run`, and every refusal.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{garble, read, repo, warcrunch};

/// A `warcrunch serve` process, killed when dropped.
pub(crate) struct Server {
    child: Child,
    /// Where to connect (`127.0.0.1:PORT`, also for a server bound to every address).
    pub(crate) address: String,
    /// The token of the address it printed, if any.
    token: Option<String>,
}

impl Server {
    pub(crate) fn start(extra: &[&str]) -> Server {
        Server::start_in(&repo(), extra)
    }

    /// A server started in `dir` (as after `cargo install`, anywhere).
    pub(crate) fn start_in(dir: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warcrunch"))
            .current_dir(dir)
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let (address, rest) = url.split_once('/').unwrap_or((url, ""));
        let token = rest.strip_prefix("?token=").map(str::to_owned);
        let address = address.replace("0.0.0.0:", "127.0.0.1:");
        Server {
            child,
            address,
            token,
        }
    }

    /// One request; returns the status and the body (chunked bodies decoded).
    pub(crate) fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let host = format!("Host: {}", self.address);
        self.request_with(
            method,
            path,
            &[&host, "Content-Type: application/json"],
            body,
        )
    }

    /// One request with exactly these header lines (`Host` included).
    pub(crate) fn request_with(
        &self,
        method: &str,
        path: &str,
        headers: &[&str],
        body: Option<&str>,
    ) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let body = body.unwrap_or("");
        let mut head = format!("{method} {path} HTTP/1.1\r\n");
        for line in headers {
            head.push_str(line);
            head.push_str("\r\n");
        }
        write!(
            stream,
            "{head}Connection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, rest) = text.split_once("\r\n\r\n").expect("a response head");
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        (
            status,
            if chunked {
                dechunk(rest)
            } else {
                rest.to_owned()
            },
        )
    }

    pub(crate) fn json(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let (status, text) = self.request(method, path, body.map(|b| b.to_string()).as_deref());
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Asks for a run's state until `ready` holds (at most a minute, every
    /// 20 ms); returns that state.
    pub(crate) fn wait_for(&self, id: u64, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let (_, state) = self.json("GET", &format!("/api/runs/{id}"), None);
            if ready(&state) {
                return state;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "run {id} never got there: {state}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts a run of `body` (a `POST /api/runs`); returns its id.
    pub(crate) fn start_run(&self, body: Value) -> u64 {
        let (status, answer) = self.json("POST", "/api/runs", Some(body));
        assert_eq!(status, 200, "{answer}");
        answer["id"].as_u64().unwrap()
    }

    /// Follows a run's event stream to its end; returns the last state.
    pub(crate) fn follow(&self, id: u64) -> Value {
        let (status, text) = self.request("GET", &format!("/api/runs/{id}/events"), None);
        assert_eq!(status, 200);
        let last = text
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("data:"))
            .expect("at least one event");
        assert!(
            text.contains("event: end") || text.contains("event:end"),
            "{text}"
        );
        serde_json::from_str(last.trim()).unwrap()
    }
}

impl Server {
    /// Sends the server SIGTERM and waits (at most `limit`) for it to end;
    /// `None` if it is still running then.
    pub(crate) fn terminate(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        crate::util::sigterm(self.pid());
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

const AMBUSH: &str = "gurps/ambush_at_the_ford.toml";

/// `warcrunch run` of a bundled scenario into `cli/` of a new folder.
fn cli_run(name: &str, trials: &str, seed: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    warcrunch()
        .args([
            "run", "--quiet", "--trials", trials, "--seed", seed, "--out",
        ])
        .arg(dir.path().join("cli"))
        .arg(repo().join("scenarios").join(name))
        .assert()
        .success();
    dir
}

pub(crate) fn ambush() -> String {
    read(&repo().join("scenarios").join(AMBUSH))
}

#[test]
fn lists_and_reads_scenarios_and_refuses_every_way_out() {
    let server = Server::start(&[]);
    let (status, page) = server.request("GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("warcrunch workbench") && page.contains("/assets/workbench.js"));
    let (_, script) = server.request("GET", "/assets/workbench.js", None);
    assert!(script.contains("EventSource"));
    // Every asset the page names is served by the binary itself (no CDN).
    for asset in [
        "/assets/form.js",
        "/assets/dom.js",
        "/assets/designer.js",
        "/assets/questions.js",
        "/assets/report.css",
        "/assets/workbench.css",
        "/assets/DejaVuSans.ttf",
    ] {
        let (status, body) = server.request("GET", asset, None);
        assert_eq!(status, 200, "{asset}");
        assert!(!body.is_empty(), "{asset}");
    }
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "the page loads nothing from elsewhere"
    );
    let (status, list) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 200);
    // The page's "exact odds" label: what the registered systems declare.
    assert_eq!(
        list["exact_odds"],
        warcrunch::systems::registry::exact_odds(),
        "{list}"
    );
    assert!(
        list["exact_odds"]
            .as_str()
            .unwrap()
            .contains("one-day GURPS"),
        "{list}"
    );
    let names: Vec<&str> = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&AMBUSH), "{names:?}");
    assert_eq!(
        names.len(),
        warcrunch::scenario::bundled::SCENARIOS.len(),
        "the bundled scenarios, no tables: {names:?}"
    );
    let (status, text) = server.request("GET", &format!("/api/scenarios/{AMBUSH}"), None);
    assert_eq!((status, text), (200, ambush()));
    for path in [
        "/api/scenarios/../Cargo.toml",
        "/api/scenarios/%2e%2e/Cargo.toml",
        "/api/scenarios/gurps/%2e%2e/%2e%2e/Cargo.toml",
        "/api/scenarios//etc/passwd",
    ] {
        let (status, body) = server.json("GET", path, None);
        assert_eq!(status, 403, "{path}: {body}");
    }
    let (status, _) = server.json("GET", "/api/scenarios/gurps/none.toml", None);
    assert_eq!(status, 404);
    // A posted scenario's table paths stay inside the folder too.
    let outside = format!(
        "{}\n[tables]\ncatastrophe = \"../../Cargo.toml\"\n",
        ambush()
    );
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": outside, "name": AMBUSH })),
    );
    assert_eq!(status, 403, "{body}");
    // So do those of a table with cells set; the built-in table's cells
    // need no file and are answered.
    let edited_outside = format!(
        "{}\n[tables.catastrophe]\nfile = \"../../Cargo.toml\"\nset = {{ \"rows.none.strategy\" = 1 }}\n",
        ambush()
    );
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": edited_outside, "name": AMBUSH })),
    );
    assert_eq!(status, 403, "{body}");
    assert!(
        body.to_string().contains("[tables.catastrophe] file"),
        "{body}"
    );
    let edited_built_in = format!(
        "{}\n[tables.survival]\nset = {{ \"rows.D.column\" = \"C\" }}\n",
        ambush()
    );
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": edited_built_in, "name": AMBUSH })),
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn check_gives_the_normalized_battle_or_the_clis_errors() {
    let server = Server::start(&["--max-trials", "5000000"]);
    let (status, body) = server.json("POST", "/api/check", Some(json!({ "toml": ambush() })));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["system"], "gurps");
    assert_eq!(body["name"], "Ambush at the ford");
    assert!(body["description"].as_str().unwrap().contains("Megalos"));
    // Out of range: 422 with the key, the line and the CLI's words.
    let bad = ambush().replacen("strategy = 14", "strategy = 40", 1);
    assert_ne!(bad, ambush(), "the scenario has the line the test edits");
    let (status, body) = server.json("POST", "/api/check", Some(json!({ "toml": bad })));
    assert_eq!(status, 422, "{body}");
    let error = &body["errors"][0];
    assert!(
        error["key"].as_str().unwrap().contains("strategy"),
        "{error}"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("allowed: 0 to 30"),
        "{error}"
    );
    assert!(
        !error["message"]
            .as_str()
            .unwrap()
            .contains(repo().to_str().unwrap()),
        "no server path: {error}"
    );
    // Bad TOML: its line.
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": "system = \"gurps\"\nname = \n" })),
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["line"], 2, "{body}");
    // Too many battles for this server.
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "trials": 6_000_000 })),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("1 to 5000000"),
        "{body}"
    );
    // A body over 1 MiB.
    let huge = json!({ "toml": "#".repeat(warcrunch::serve::MAX_BODY + 10) }).to_string();
    let (status, _) = server.request("POST", "/api/check", Some(&huge));
    assert_eq!(status, 413);
    // Not JSON at all, and a run that does not exist.
    let (status, _) = server.request("POST", "/api/check", Some("toml = nonsense"));
    assert!((400..500).contains(&status), "{status}");
    let (status, _) = server.json("GET", "/api/runs/999", None);
    assert_eq!(status, 404);
}

#[test]
fn a_run_streams_to_the_same_csv_as_warcrunch_run() {
    let server = Server::start(&[]);
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "trials": 300_000, "seed": 7 })),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    let last = server.follow(id);
    assert_eq!(last["status"], "done", "{last}");
    assert_eq!(last["done"], 300_000);
    assert!(
        last["verdict"][0].as_str().unwrap().contains("Megalos"),
        "{last}"
    );
    let files: Vec<&str> = last["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"distributions.csv") && files.contains(&"report.html"),
        "{files:?}"
    );
    let dir = cli_run(AMBUSH, "300000", "7");
    for name in ["distributions.csv", "summary.csv"] {
        let (status, served) = server.request("GET", &format!("/api/runs/{id}/files/{name}"), None);
        assert_eq!(status, 200);
        assert!(
            served == read(&dir.path().join("cli").join(name)),
            "{name} differs from warcrunch run's"
        );
    }
    let (status, _) = server.json("GET", &format!("/api/runs/{id}/files/..%2Frun.json"), None);
    assert_eq!(status, 404);
}

#[test]
fn runs_wait_for_a_slot_and_stop_on_request() {
    let server = Server::start(&["--max-runs", "1"]);
    let long = |seed: u64| {
        let (status, body) = server.json(
            "POST",
            "/api/runs",
            Some(json!({ "toml": ambush(), "trials": 1_000_000_000, "seed": seed })),
        );
        assert_eq!(status, 200, "{body}");
        body["id"].as_u64().unwrap()
    };
    let first = long(1);
    let second = long(2);
    // The first holds the only slot (it reports battles done); the second waits.
    server.wait_for(first, |s| {
        s["status"] == "running" && s["done"].as_u64() > Some(0)
    });
    let (_, state) = server.json("GET", &format!("/api/runs/{second}"), None);
    assert_eq!(state["status"], "queued", "one run at a time: {state}");
    let (status, _) = server.json("DELETE", &format!("/api/runs/{first}"), None);
    assert_eq!(status, 200);
    let stopped = server.follow(first);
    assert_eq!(stopped["status"], "stopped", "{stopped}");
    assert!(stopped["files"].as_array().unwrap().is_empty());
    // The second now runs; stop it too.
    let state = server.wait_for(second, |s| s["status"] != "queued");
    assert_eq!(state["status"], "running", "{state}");
    server.json("DELETE", &format!("/api/runs/{second}"), None);
    assert_eq!(server.follow(second)["status"], "stopped");
}

#[test]
fn garbled_requests_never_crash_the_server() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let server = Server::start(&["--max-trials", "20000"]);
    let scenario = ambush();
    // The CLI parsers' fuzz edits (lines dropped, doubled, garbled, values
    // replaced), posted to every endpoint that reads a body: check and run
    // with any trials and seed, the form's reading and edits at any path,
    // the designer with a garbled deck, and questions.
    let deck = warcrunch::tables::built_in_text("cards");
    let edits = prop::collection::vec((0usize..80, 0u8..4, ".{0,12}"), 0..6);
    let request = (edits, 0u8..9, any::<u64>(), any::<u64>(), ".{0,8}");
    let mut runner = TestRunner::new(Config::with_cases(160));
    runner
        .run(&request, |(edits, endpoint, trials, seed, word)| {
            let toml = garble(&scenario, edits.clone());
            let (path, body) = match endpoint {
                0 => ("/api/check", json!({ "toml": toml })),
                1 => (
                    "/api/runs",
                    json!({ "toml": toml, "trials": trials % 30_000, "seed": seed }),
                ),
                2 => (
                    "/api/check",
                    json!({ "toml": toml, "trials": "many", "name": "../x.toml" }),
                ),
                3 => ("/api/document", json!({ "toml": toml })),
                4 => (
                    "/api/edit",
                    json!({ "toml": toml, "edits": [{ "op": "set", "path": ["sides", trials % 5, word], "value": seed }] }),
                ),
                5 => {
                    let op = ["remove", "append", "set"][(seed % 3) as usize];
                    let mut edit = json!({ "op": op, "path": [word, trials % 7] });
                    if op != "remove" {
                        edit["value"] = json!({ "name": word });
                    }
                    ("/api/edit", json!({ "toml": toml, "edits": [edit] }))
                }
                6 => ("/api/cards", json!({ "toml": garble(deck, edits) })),
                7 => (
                    "/api/analyses",
                    json!({ "toml": toml, "ask": { "sensitivity": { "target": word, "trials": trials % 2000 } } }),
                ),
                _ => (
                    "/api/analyses",
                    json!({ "toml": toml, "ask": { "sweep": { "set": [word], "seed": seed % 100 } } }),
                ),
            };
            let (status, answer) = server.json("POST", path, Some(body));
            prop_assert!(
                status == 200 || (400..500).contains(&status),
                "{path} answered {status}: {answer}"
            );
            Ok(())
        })
        .unwrap();
    let (status, _) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 200, "the server still answers");
}

#[test]
fn the_forms_edits_keep_the_file_and_the_designer_answers_exactly() {
    let server = Server::start(&[]);
    let (status, body) = server.json("POST", "/api/document", Some(json!({ "toml": ambush() })));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["schema"], "gurps");
    assert_eq!(body["document"]["sides"][1]["troop_strength"], 800);
    // A set and a new PC: every other line, comments included, unchanged.
    let edits = json!([
        { "op": "set", "path": ["sides", 1, "troop_strength"], "value": 1000 },
        { "op": "append", "path": ["heroes"], "value": { "weapon_skill": 12, "side": "Megalos", "name": "Cato", "ht": 10, "iq": 10 } },
    ]);
    let (status, body) = server.json(
        "POST",
        "/api/edit",
        Some(json!({ "toml": ambush(), "edits": edits })),
    );
    assert_eq!(status, 200, "{body}");
    let expected = format!(
        "{}\n[[heroes]]\nname = \"Cato\"\nside = \"Megalos\"\nht = 10\niq = 10\nweapon_skill = 12\n",
        ambush().replace("troop_strength = 800", "troop_strength = 1000")
    );
    assert_eq!(body["toml"], expected);
    let (status, body) = server.json("POST", "/api/check", Some(json!({ "toml": expected })));
    assert_eq!(status, 200, "the edited file is a valid scenario: {body}");
    // An error names the path of its line, so the form can put it beside the field.
    let bad = ambush().replace("risk = -3", "risk = -9");
    let (status, body) = server.json("POST", "/api/check", Some(json!({ "toml": bad })));
    assert_eq!(status, 422);
    assert_eq!(
        body["errors"][0]["path"],
        json!(["heroes", 1, "risk"]),
        "{body}"
    );
    // Edits of what is not there, and unreadable text: 422 with the reason.
    for (edits, expect) in [
        (
            json!([{ "op": "remove", "path": ["heroes", 9] }]),
            "`heroes[9]` is not in the file",
        ),
        (
            json!([{ "op": "set", "path": ["name"], "value": null }]),
            "cannot be empty",
        ),
        (
            json!([{ "op": "append", "path": ["name"], "value": 1 }]),
            "not a list",
        ),
    ] {
        let (status, body) = server.json(
            "POST",
            "/api/edit",
            Some(json!({ "toml": ambush(), "edits": edits })),
        );
        assert_eq!(status, 422, "{body}");
        assert!(
            body["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains(expect),
            "{body}"
        );
    }
    let (status, body) = server.json("POST", "/api/document", Some(json!({ "toml": "a = [" })));
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["line"], 1);

    // The designer: the built-in deck's grid and the CLI's findings.
    let (status, deck) = server.json("POST", "/api/cards", Some(json!({})));
    assert_eq!(status, 200, "{deck}");
    let text = warcrunch::tables::built_in_text("cards");
    let parsed =
        warcrunch::systems::war_cards::deck::Deck::parse(text, "the built-in deck").unwrap();
    let analysis = warcrunch::systems::war_cards::skew::analyse(&parsed);
    assert_eq!(
        deck["findings"],
        warcrunch::report::findings::deck::findings(&parsed, "the built-in deck", &analysis)
    );
    assert_eq!(deck["cards"].as_array().unwrap().len(), 9);
    assert_eq!(
        deck["cards"][0][0],
        json!(["-", "F", "H", "H", "F", "H", "R"])
    );
    assert_eq!(
        deck["anomalies"].as_array().unwrap().len(),
        analysis.anomalies.len()
    );
    assert!(deck["heatmap"].as_str().unwrap().starts_with("<svg"));
    let broken = text.replacen("\"- F H H F H R\"", "\"- F H H F H X\"", 1);
    let (status, body) = server.json("POST", "/api/cards", Some(json!({ "toml": broken })));
    assert_eq!(status, 422, "{body}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("`X` is not a result; allowed: - F H R D"),
        "{body}"
    );
}

/// Resident memory of a process, in KiB.
pub(crate) fn resident_kib(pid: u32) -> u64 {
    let status = read(Path::new(&format!("/proc/{pid}/status")));
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS in /proc")
}

const KNIGHTS: &str = "war_cards/knights_vs_pikes.toml";

/// Runs Knights vs Pikes on the server (seed 11) to its end; its id.
fn knights_run(server: &Server, trials: u64) -> u64 {
    let knights = read(&repo().join("scenarios").join(KNIGHTS));
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": knights, "name": KNIGHTS, "trials": trials, "seed": 11 })),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    assert_eq!(server.follow(id)["status"], "done");
    id
}

#[test]
fn twenty_clients_at_once_get_the_clis_numbers() {
    let server = Server::start(&["--max-runs", "2"]);
    let dir = cli_run(KNIGHTS, "200000", "11");
    let expected = read(&dir.path().join("cli").join("distributions.csv"));
    // Twenty clients, each on its own connections, all at once.
    std::thread::scope(|scope| {
        for _ in 0..20 {
            scope.spawn(|| {
                let id = knights_run(&server, 200_000);
                let (status, csv) = server.request(
                    "GET",
                    &format!("/api/runs/{id}/files/distributions.csv"),
                    None,
                );
                assert_eq!(status, 200);
                assert!(
                    csv == expected,
                    "run {id}'s distributions.csv differs from warcrunch run's"
                );
            });
        }
    });
}

#[test]
fn two_hundred_runs_keep_the_servers_memory_and_disk_flat() {
    let server = Server::start(&["--max-runs", "1"]);
    let pid = server.pid();
    // After 50 runs (past the 32 kept) the server holds what it will hold;
    // a run's threads, tallies or files kept for good would grow it by
    // megabytes over the next 150 (here it moves by a few hundred KiB).
    // Resident memory is a fair measure because the server hands freed pages
    // back after each run: without that, each worker thread's malloc arena
    // kept a report's ~7 MB and the figure climbed in steps (CI saw 35 -> 42 MB).
    // A run is reported done before its worker has handed back the last
    // pages (on a busy machine, a good while before): what the server holds
    // for good is the least of a few readings taken after the run.
    let held = || {
        (0..10)
            .map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(30));
                resident_kib(pid)
            })
            .min()
            .expect("ten readings")
    };
    let mut settled = 0;
    let mut first = None;
    for i in 0..200 {
        let id = knights_run(&server, 20_000);
        first.get_or_insert(id);
        if i == 49 {
            settled = held();
        }
    }
    let end = held();
    eprintln!("server memory: {settled} KiB after 50 runs, {end} KiB after 200");
    assert!(
        end < settled + 4 * 1024,
        "memory grew from {settled} KiB to {end} KiB"
    );
    let folder = crate::util::server_files(pid);
    let kept = std::fs::read_dir(&folder)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("run-"))
        })
        .count();
    // A new run forgets all but the last 32 ended runs: those, and the last.
    assert_eq!(
        kept,
        33,
        "the last 33 runs' folders, no more, in {}",
        folder.display()
    );
    let (status, body) = server.json("GET", &format!("/api/runs/{}", first.unwrap()), None);
    assert_eq!(status, 404, "the oldest run is forgotten: {body}");
}

#[test]
fn a_running_question_says_how_many_battles_it_has_fought() {
    let server = Server::start(&[]);
    let asked = json!({ "sweep": { "set": ["heroes.Titus.risk=-1..1"], "trials": 4_000_000 } });
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "ask": asked })),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["battles"], "4,000,000 battles a variant", "{body}");
    assert_eq!(body["plans_ahead"], true, "{body}");
    let id = body["id"].as_u64().unwrap();
    // Three variants in lockstep: 12,000,000 battles set out, some fought.
    let state = server.wait_for(id, |s| {
        s["status"] != "queued" && (s["status"] != "running" || s["done"].as_u64() > Some(0))
    });
    assert_eq!(
        state["status"], "running",
        "ended before any report: {state}"
    );
    let (done, planned) = (
        state["done"].as_u64().unwrap(),
        state["planned"].as_u64().unwrap(),
    );
    assert_eq!(planned, 12_000_000, "{state}");
    assert!(done > 0 && done < planned, "{state}");
    let (status, _) = server.request("DELETE", &format!("/api/runs/{id}"), None);
    assert_eq!(status, 200);
}

#[test]
fn questions_from_the_page_write_the_commands_files() {
    let server = Server::start(&["--max-trials", "1000000"]);
    let options = [
        "--set",
        "sides.Raiders.troop_strength=600..1000:200",
        "--trials",
        "20000",
        "--seed",
        "3",
    ];
    let asked = json!({ "sweep": { "set": ["sides.Raiders.troop_strength=600..1000:200"], "trials": 20000, "seed": 3 } });
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "ask": asked })),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    let last = server.follow(id);
    assert_eq!(last["status"], "done", "{last}");
    assert!(
        last["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "report.html"),
        "{last}"
    );
    let dir = tempfile::tempdir().unwrap();
    warcrunch()
        .arg("sweep")
        .arg(repo().join("scenarios").join(AMBUSH))
        .args(options)
        .arg("--quiet")
        .arg("--out")
        .arg(dir.path())
        .arg("--force")
        .assert()
        .success();
    for name in ["comparison.csv", "distributions.csv"] {
        let (status, served) = server.request("GET", &format!("/api/runs/{id}/files/{name}"), None);
        assert_eq!(status, 200);
        assert!(
            served == read(&dir.path().join(name)),
            "{name} differs from warcrunch sweep's"
        );
    }
    // What the page may not ask, and questions the types refuse, before
    // anything runs; then a question the analysis itself refuses.
    for (asked, code, expect) in [
        (
            json!({ "sweep": { "set": ["heroes.Titus.risk=0,1"], "out": "/tmp/elsewhere" } }),
            422,
            "unknown field `out`",
        ),
        (
            json!({ "sweep": { "set": ["heroes.Titus.risk=0,1"], "tables": ["cards=/etc/passwd"] } }),
            422,
            "unknown field `tables`",
        ),
        (
            json!({ "sweep": { "set": ["tables.cards=/etc/passwd"] } }),
            403,
            "reads no table file",
        ),
        (
            json!({ "sweep": { "set": ["trials=1000,2000000"] } }),
            422,
            "this server's cap",
        ),
        (
            json!({ "solve": {
                "vary": "sides.Raiders.troop_strength=200..3000",
                "target": "side:Megalos/victory=won",
                "goal": { "equals": 0.5 },
                "max_trials": 5000000
            } }),
            422,
            "this server's cap",
        ),
        (
            json!({ "solve": { "vary": "sides.Raiders.troop_strength=200..3000", "target": "side:Megalos/victory=won" } }),
            422,
            "missing field `goal`",
        ),
        (json!({ "sensitivity": {} }), 422, "missing field `target`"),
        (
            json!({ "sensitivity": { "target": "party/x=yes", "trials": "banana" } }),
            422,
            "banana",
        ),
        (json!({ "run": {} }), 422, "unknown variant `run`"),
    ] {
        let (status, body) = server.json(
            "POST",
            "/api/analyses",
            Some(json!({ "toml": ambush(), "ask": asked })),
        );
        assert_eq!(status, code, "{asked}: {body}");
        assert!(body["error"].as_str().unwrap().contains(expect), "{body}");
    }
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "ask": { "sensitivity": { "target": "party/nothing=yes", "trials": 1000 } } })),
    );
    // Its moves are counted when it is asked (to share the cap), so an
    // unknown target is refused then.
    assert_eq!(status, 422, "{body}");
    let note = body["error"].as_str().unwrap();
    assert!(
        note.contains("nothing") && !note.contains("input-"),
        "the CLI's message, naming no server folder: {note}"
    );
}

/// Every endpoint, with a body for those that read one.
fn endpoints() -> Vec<(&'static str, &'static str, Option<String>)> {
    let posted = json!({ "toml": ambush(), "trials": 1000 }).to_string();
    vec![
        ("GET", "/api/scenarios", None),
        ("GET", "/api/scenarios/gurps/ambush_at_the_ford.toml", None),
        ("GET", "/api/schema/gurps", None),
        ("POST", "/api/check", Some(posted.clone())),
        ("POST", "/api/document", Some(posted.clone())),
        ("POST", "/api/edit", Some(posted.clone())),
        ("POST", "/api/cards", Some("{}".to_owned())),
        (
            "POST",
            "/api/tables",
            Some(json!({ "name": "survival" }).to_string()),
        ),
        ("POST", "/api/runs", Some(posted.clone())),
        ("POST", "/api/analyses", Some(posted)),
        ("GET", "/api/runs/1", None),
        ("DELETE", "/api/runs/1", None),
        ("GET", "/api/runs/1/events", None),
        ("GET", "/api/runs/1/files/run.json", None),
    ]
}

#[test]
fn a_foreign_host_or_origin_is_refused_on_every_endpoint() {
    let server = Server::start(&[]);
    let port = server.address.rsplit(':').next().unwrap().to_owned();
    for (method, path, body) in endpoints() {
        for host in [
            "evil.example".to_owned(),
            format!("evil.example:{port}"),
            format!("127.0.0.1.nip.example:{port}"),
        ] {
            let host = format!("Host: {host}");
            let (status, text) = server.request_with(
                method,
                path,
                &[&host, "Content-Type: application/json"],
                body.as_deref(),
            );
            assert_eq!(status, 403, "{method} {path} with {host}: {text}");
            assert!(text.contains("answers requests addressed to"), "{text}");
        }
    }
    // The names the server listens under are answered.
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let host = format!("Host: {host}");
        let (status, _) = server.request_with("GET", "/api/scenarios", &[&host], None);
        assert_eq!(status, 200, "{host}");
    }
    // Any request from another site's page, GET included (a run's events:
    // dropping them stops the run), is refused before any work: by its
    // Origin, or by the browser's Sec-Fetch-Site where it sends no Origin.
    let host = format!("Host: {}", server.address);
    for (method, path, body) in endpoints() {
        for from in ["Origin: http://evil.example", "Sec-Fetch-Site: cross-site"] {
            let (status, text) = server.request_with(
                method,
                path,
                &[&host, from, "Content-Type: application/json"],
                body.as_deref(),
            );
            if path.starts_with("/api/") || from.starts_with("Origin") {
                assert_eq!(status, 403, "{method} {path} with {from}: {text}");
                assert!(text.contains("another site's page"), "{text}");
            }
        }
    }
    let own = format!("Origin: http://{}", server.address);
    let (status, text) = server.request_with(
        "POST",
        "/api/check",
        &[&host, &own, "Content-Type: application/json"],
        Some(&json!({ "toml": ambush() }).to_string()),
    );
    assert_eq!(status, 200, "the page's own posts pass: {text}");
}

#[test]
fn a_server_on_every_address_wants_its_token() {
    let server = Server::start(&["--host", "0.0.0.0"]);
    let token = server
        .token
        .clone()
        .expect("the start-up address carries a token");
    assert_eq!(token.len(), 32, "{token}");
    let host = format!("Host: {}", server.address);
    for (method, path, body) in endpoints() {
        let (status, text) = server.request_with(
            method,
            path,
            &[&host, "Content-Type: application/json"],
            body.as_deref(),
        );
        assert_eq!(status, 401, "{method} {path} without the token: {text}");
    }
    let header = format!("x-warcrunch-token: {token}");
    let (status, _) = server.request_with("GET", "/api/scenarios", &[&host, &header], None);
    assert_eq!(status, 200);
    // The page opened from the printed address hands the token back as a cookie.
    let mut stream = TcpStream::connect(&server.address).unwrap();
    write!(
        stream,
        "GET /?token={token} HTTP/1.1\r\n{host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    assert!(
        raw.contains(&format!("set-cookie: warcrunch_token={token}")),
        "{}",
        raw.lines().take(10).collect::<Vec<_>>().join("\n")
    );
    let cookie = format!("Cookie: warcrunch_token={token}");
    let (status, _) = server.request_with("GET", "/api/scenarios", &[&host, &cookie], None);
    assert_eq!(status, 200);
    // A loopback server given --token wants it too.
    let server = Server::start(&["--token", "abcdefghijklmnop1234"]);
    assert_eq!(server.token.as_deref(), Some("abcdefghijklmnop1234"));
    let (status, _) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 401);
}

#[test]
fn every_way_to_ask_for_battles_is_capped() {
    let server = Server::start(&["--max-trials", "20000"]);
    let small = ambush().replace("trials = 1_000_000", "trials = 10_000");
    assert_ne!(small, ambush());
    let ask = |asked: Value| {
        server.json(
            "POST",
            "/api/analyses",
            Some(json!({ "toml": small, "name": AMBUSH, "ask": asked })),
        )
    };
    for (asked, expect) in [
        (
            json!({ "sweep": { "set": ["trials=50000000,60000000"] } }),
            "trials = 50000000 is out of range; allowed: 1 to 20000",
        ),
        (
            json!({ "sweep": { "set": ["trials=1000..30000:1000"], "seed": 2 } }),
            "allowed: 1 to 20000",
        ),
        (
            json!({ "sweep": { "set": ["heroes.Titus.risk=-1..1"], "trials": 20001 } }),
            "`trials` = 20001 is out of range",
        ),
        (
            json!({ "sensitivity": { "target": "party/any_down_or_dead=yes", "set": [] } }),
            "unknown field `set`",
        ),
    ] {
        let (status, body) = ask(asked.clone());
        assert_eq!(status, 422, "{asked}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(expect)),
            "{asked}: {body}"
        );
    }
    // A solve without `max_trials` probes with at most 1/16 of the cap
    // (the cap is on the whole question): its answer equals the command
    // line's with --max-trials 1250.
    let solve = [
        "--vary",
        "sides.Raiders.troop_strength=600..1000",
        "--target",
        "side:Megalos/victory=won",
        "--equals",
        "0.5",
        "--seed",
        "4",
    ];
    let (status, body) = ask(json!({ "solve": {
        "vary": "sides.Raiders.troop_strength=600..1000",
        "target": "side:Megalos/victory=won",
        "goal": { "equals": 0.5 },
        "seed": 4
    } }));
    assert_eq!(status, 200, "{body}");
    let last = server.follow(body["id"].as_u64().unwrap());
    assert_eq!(last["status"], "done", "{last}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ambush_at_the_ford.toml");
    std::fs::write(&file, &small).unwrap();
    warcrunch()
        .arg("solve")
        .arg(&file)
        .args(solve)
        .args(["--max-trials", "1250", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .arg("--force")
        .assert()
        .success();
    let (status, served) = server.request(
        "GET",
        &format!("/api/runs/{}/files/solve.csv", body["id"]),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(served, read(&dir.path().join("out/solve.csv")));
    // The scenario's own `trials` (1,000,000) above the cap: a check says
    // the cap, and a sweep of three variants fights a third of it each.
    let (status, body) = server.json("POST", "/api/check", Some(json!({ "toml": ambush() })));
    assert_eq!((status, &body["trials"]), (200, &json!(20000)), "{body}");
    let (status, body) = server.json("POST", "/api/choices", Some(json!({ "toml": ambush() })));
    assert_eq!(status, 200, "{body}");
    assert!(!body["settings"].as_array().unwrap().is_empty(), "{body}");
    let (status, body) = server.json(
        "POST",
        "/api/analyses",
        Some(
            json!({ "toml": ambush(), "ask": { "sweep": { "set": ["heroes.Titus.risk=-1..1"] } } }),
        ),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    assert_eq!(server.follow(id)["status"], "done");
    let (_, run_json) = server.request("GET", &format!("/api/runs/{id}/files/run.json"), None);
    assert!(run_json.contains("\"trials\": 6666"), "{run_json}");
    // A sensitivity without `trials`, its moves prepared once to be
    // counted: the base and Titus's Risk one down and one up fight a third
    // of the cap each (fewer than the scenario's 10,000), and its command
    // says so.
    let (status, body) = ask(json!({ "sensitivity": {
        "target": "party/any_down_or_dead=yes", "knobs": ["heroes.Titus.risk"]
    } }));
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    assert_eq!(server.follow(id)["status"], "done");
    let (_, run_json) = server.request("GET", &format!("/api/runs/{id}/files/run.json"), None);
    let record: Value = serde_json::from_str(&run_json).unwrap();
    assert_eq!(record["trials"], json!(6666), "{run_json}");
    assert!(
        record["command"]
            .as_str()
            .unwrap()
            .contains("--trials 6666"),
        "{run_json}"
    );
    let (_, csv) = server.request(
        "GET",
        &format!("/api/runs/{id}/files/sensitivity.csv"),
        None,
    );
    assert_eq!(csv.lines().count(), 3, "two moves of Titus's Risk: {csv}");
    // Battles named in the request beyond the cap for the whole question.
    let (status, body) =
        ask(json!({ "sweep": { "set": ["heroes.Titus.risk=-1..1"], "trials": 10000 } }));
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| e.contains(
            "3 variants × 10000 battles is 30000 battles; this server fights at most 20000"
        )),
        "{body}"
    );
}

#[test]
fn a_name_climbing_out_and_a_body_that_is_not_json_are_refused() {
    let server = Server::start(&[]);
    for name in [
        "../escape.toml",
        "gurps/../../escape.toml",
        "/etc/escape.toml",
    ] {
        let (status, body) = server.json(
            "POST",
            "/api/runs",
            Some(json!({ "toml": ambush(), "name": name, "trials": 1000 })),
        );
        assert_eq!(status, 403, "{name}: {body}");
    }
    let host = format!("Host: {}", server.address);
    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let header = format!("Content-Type: {content_type}");
        let (status, text) =
            server.request_with("POST", "/api/runs", &[&host, &header], Some("toml=x"));
        assert_eq!(status, 415, "{content_type}: {text}");
    }
}

#[test]
fn a_table_of_the_wrong_kind_is_refused_from_the_page_too() {
    let server = Server::start(&[]);
    // The bundled Glory table named as the Survival table (both inside the
    // scenarios folder, so the server reads it).
    let toml = format!(
        "{}\n[tables]\nsurvival = \"../tables/gurps/glory.toml\"\n",
        ambush()
    );
    for path in ["/api/check", "/api/runs"] {
        let (status, body) = server.json(
            "POST",
            path,
            Some(json!({ "toml": toml, "name": AMBUSH, "trials": 1000 })),
        );
        assert_eq!(status, 422, "{path}: {body}");
        let text = body.to_string();
        assert!(
            text.contains("this is a `glory` table")
                && text.contains("given as the `survival` table"),
            "{path}: {body}"
        );
    }
}

/// A run beside an earlier one of the same battles (seed and battles) with
/// one PC's Risk changed: every outcome of every other PC and of the sides
/// is "unchanged"; the PC's own state is not.
#[test]
fn a_change_to_one_pc_leaves_the_others_unchanged_beside_the_run_before() {
    let server = Server::start(&[]);
    let start = |body: Value| server.start_run(body);
    let toml = ambush();
    assert_eq!(toml.matches("risk = -3").count(), 1, "Varro's Risk");
    let first = start(json!({ "toml": toml, "trials": 20000, "seed": 1 }));
    assert_eq!(server.follow(first)["status"], "done");
    let moved = toml.replace("risk = -3", "risk = -2");
    let second = start(json!({ "toml": moved, "trials": 20000, "seed": 1, "baseline": first }));
    let after = server.follow(second);
    assert_eq!(after["status"], "done", "{after}");
    let (mut others, mut varro) = (0, 0);
    for metric in after["metrics"].as_array().unwrap() {
        let subject = metric["subject"].as_str().unwrap();
        for share in metric["shares"].as_array().unwrap() {
            let verdict = share["before"]["verdict"].as_str().unwrap();
            if subject.starts_with("side:")
                || (subject.starts_with("hero:") && subject != "hero:Varro")
            {
                assert_eq!(verdict, "unchanged", "{subject}: {share}");
                others += 1;
            } else if subject == "hero:Varro" && metric["metric"] == "state" {
                varro += usize::from(verdict != "unchanged");
            }
        }
    }
    assert!(others > 30, "{others} outcomes of the others");
    assert!(varro > 0, "Varro's own state did not move");
}

#[test]
fn a_run_beside_an_earlier_one_shows_the_servers_difference_interval() {
    let server = Server::start(&[]);
    let start = |body: Value| server.start_run(body);
    let first = start(json!({ "toml": ambush(), "trials": 20000, "seed": 1 }));
    let before = server.follow(first);
    assert_eq!(before["status"], "done", "{before}");
    let second = start(json!({ "toml": ambush(), "trials": 30000, "seed": 2, "baseline": first }));
    let after = server.follow(second);
    assert_eq!(after["status"], "done", "{after}");
    // Every outcome of every metric the two share carries the earlier share
    // and the interval stats.rs gives for two independent proportions.
    let count =
        |share: &Value, n: u64| (share["probability"].as_f64().unwrap() * n as f64).round() as u64;
    let mut checked = 0;
    let mut verdicts = Vec::new();
    for metric in after["metrics"].as_array().unwrap() {
        let earlier = before["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["subject"] == metric["subject"] && m["metric"] == metric["metric"])
            .expect("the same battle has the same metrics");
        for share in metric["shares"].as_array().unwrap() {
            let was = earlier["shares"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["value"] == share["value"]);
            let x1 = was.map_or(0, |s| count(s, 20000));
            let x2 = count(share, 30000);
            let d = warcrunch::stats::unpaired_difference(x1, 20000, x2, 30000);
            let shown = &share["before"];
            assert_eq!(
                shown["probability"].as_f64().unwrap(),
                x1 as f64 / 20000.0,
                "{share}"
            );
            // Written by the one rule the console and the report follow.
            let [p, lo, hi] = warcrunch::stats::format::percent_interval(
                share["probability"].as_f64().unwrap(),
                share["ci_low"].as_f64().unwrap(),
                share["ci_high"].as_f64().unwrap(),
            );
            assert_eq!(share["shown"], format!("{p} ({lo}–{hi})"));
            assert_eq!(
                shown["shown"],
                warcrunch::stats::format::percent(x1 as f64 / 20000.0)
            );
            for (key, want) in [
                ("difference", d.difference),
                ("low", d.low),
                ("high", d.high),
            ] {
                let got = shown[key].as_f64().unwrap();
                assert!(
                    (got - want).abs() < 1e-12,
                    "{key}: {got} against {want}: {share}"
                );
            }
            let p = warcrunch::stats::two_proportion(x1, 20000, x2, 30000).1;
            verdicts.push((p, shown["verdict"].as_str().unwrap().to_owned()));
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} outcomes compared");
    // Each difference is judged family-wise over every outcome shown.
    let holm = warcrunch::stats::holm(&verdicts.iter().map(|(p, _)| *p).collect::<Vec<_>>(), 0.05);
    for ((p, verdict), differs) in verdicts.iter().zip(holm) {
        let want = if differs { "differs" } else { "tied" };
        assert_eq!(verdict, want, "p = {p}");
    }
    assert!(
        before["metrics"][0]["shares"][0].get("before").is_none(),
        "a run with no baseline shows none"
    );
    // A baseline the server does not hold (or that has not finished) is refused.
    let (status, answer) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "trials": 1000, "baseline": 999 })),
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer.to_string().contains("no finished run 999"),
        "{answer}"
    );
}

#[test]
fn started_anywhere_it_offers_the_bundled_battles_and_only_scenarios() {
    let empty = tempfile::tempdir().unwrap();
    let server = Server::start_in(empty.path(), &[]);
    let (status, list) = server.json("GET", "/api/scenarios", None);
    assert_eq!(status, 200, "{list}");
    let listed = list["scenarios"].as_array().unwrap();
    assert_eq!(listed.len(), crate::util::bundled_counts().0, "{list}");
    assert!(
        listed
            .iter()
            .all(|s| s["bundled"] == true && s["title"].is_string()),
        "{list}"
    );
    let (status, text) = server.request("GET", &format!("/api/scenarios/{AMBUSH}"), None);
    assert_eq!((status, text), (200, ambush()));
    // A run of a bundled battle from an empty folder is warcrunch run's.
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "trials": 20_000, "seed": 7 })),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        server.follow(body["id"].as_u64().unwrap())["status"],
        "done"
    );
    drop(server);
    // A folder of the user's: its scenarios beside the bundled ones; a
    // table file, a file of no known system and a copy of a bundled
    // battle under its own name are not listed twice or at all.
    let mine = tempfile::tempdir().unwrap();
    let folder = mine.path().join("battles");
    std::fs::create_dir_all(folder.join("gurps")).unwrap();
    std::fs::write(folder.join("gurps/mine.toml"), ambush()).unwrap();
    std::fs::write(folder.join("gurps/ambush_at_the_ford.toml"), ambush()).unwrap();
    std::fs::write(
        folder.join("my_deck.toml"),
        crate::util::read(&repo().join("scenarios/tables/war_cards.toml")),
    )
    .unwrap();
    std::fs::write(folder.join("notes.toml"), "system = \"chess\"\n").unwrap();
    let server = Server::start_in(empty.path(), &["--scenarios", folder.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/scenarios", None);
    let names: Vec<(&str, bool)> = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["bundled"].as_bool().unwrap()))
        .collect();
    // The bundled scenarios and the one of the folder's files that is a scenario.
    assert_eq!(
        names.len(),
        warcrunch::scenario::bundled::SCENARIOS.len() + 1,
        "{names:?}"
    );
    assert!(names.contains(&("gurps/mine.toml", false)), "{names:?}");
    assert!(names.contains(&(AMBUSH, true)), "{names:?}");
    // A folder that is not there is the option's error, before serving.
    warcrunch()
        .current_dir(empty.path())
        .args(["serve", "--port", "0", "--scenarios", "nowhere"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "--scenarios nowhere: no such folder",
        ));
}

#[test]
fn every_table_is_a_grid_and_an_edited_one_is_the_runs() {
    let server = Server::start(&[]);
    // Each table the ambush reads, as typed cells.
    let (status, checked) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": ambush(), "name": AMBUSH })),
    );
    assert_eq!(status, 200, "{checked}");
    for table in checked["tables"].as_array().unwrap() {
        let name = table["name"].as_str().unwrap();
        let (status, body) = server.json("POST", "/api/tables", Some(json!({ "name": name })));
        assert_eq!(status, 200, "{name}: {body}");
        assert_eq!(body["errors"], json!([]), "{name}");
        assert!(
            !body["grid"]["sections"].as_array().unwrap().is_empty(),
            "{name}"
        );
    }
    let (_, survival) = server.json("POST", "/api/tables", Some(json!({ "name": "survival" })));
    let text = survival["toml"].as_str().unwrap().to_owned();
    // A bad cell: its message, beside its cell.
    let (_, bad) = server.json(
        "POST",
        "/api/edit",
        Some(json!({ "toml": text, "edits": [{ "op": "set", "path": ["rows", 3, "column"], "value": "Q" }] })),
    );
    let (status, body) = server.json(
        "POST",
        "/api/tables",
        Some(json!({ "name": "survival", "toml": bad["toml"] })),
    );
    assert_eq!(status, 200, "{body}");
    let error = &body["errors"][0];
    assert_eq!(error["path"], json!(["rows", 3, "column"]), "{body}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("`A`, `B`, `C`, `D`"),
        "{body}"
    );
    assert!(
        !error["message"]
            .as_str()
            .unwrap()
            .contains("warcrunch-serve"),
        "{body}"
    );
    // The same table sent with a check is refused beside the same cell.
    let (status, body) = server.json(
        "POST",
        "/api/check",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "tables": { "survival": bad["toml"] } })),
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["table"], "survival", "{body}");
    assert_eq!(
        body["errors"][0]["path"],
        json!(["rows", 3, "column"]),
        "{body}"
    );
    // A good edit is the run's: the CSV of warcrunch run --table survival=FILE.
    let (_, edited) = server.json(
        "POST",
        "/api/edit",
        Some(json!({ "toml": text, "edits": [{ "op": "set", "path": ["rows", 3, "column"], "value": "B" }] })),
    );
    let edited = edited["toml"].as_str().unwrap().to_owned();
    let (status, body) = server.json(
        "POST",
        "/api/runs",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "trials": 100_000, "seed": 7, "tables": { "survival": edited } })),
    );
    assert_eq!(status, 200, "{body}");
    let id = body["id"].as_u64().unwrap();
    assert_eq!(server.follow(id)["status"], "done");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("survival.toml");
    std::fs::write(&file, &edited).unwrap();
    warcrunch()
        .args([
            "run", "--quiet", "--trials", "100000", "--seed", "7", "--out",
        ])
        .arg(dir.path().join("cli"))
        .arg(format!("--table=survival={}", file.display()))
        .arg(repo().join("scenarios").join(AMBUSH))
        .assert()
        .success();
    let plain = cli_run(AMBUSH, "100000", "7");
    for name in ["distributions.csv", "summary.csv"] {
        let (_, served) = server.request("GET", &format!("/api/runs/{id}/files/{name}"), None);
        assert!(served == read(&dir.path().join("cli").join(name)), "{name}");
        assert!(
            served != read(&plain.path().join("cli").join(name)),
            "{name}: the edit moved nothing"
        );
    }
    let (status, _) = server.json(
        "POST",
        "/api/tables",
        Some(json!({ "name": "no_such_table" })),
    );
    assert_eq!(status, 404);
    // How often each cell is read: warcrunch run --usage's counts, cell by cell.
    let (status, usage) = server.json(
        "POST",
        "/api/usage",
        Some(json!({ "toml": ambush(), "name": AMBUSH, "trials": 20_000, "seed": 7 })),
    );
    assert_eq!(status, 200, "{usage}");
    let counted = tempfile::tempdir().unwrap();
    warcrunch()
        .args([
            "run", "--quiet", "--usage", "--trials", "20000", "--seed", "7", "--out",
        ])
        .arg(counted.path().join("cli"))
        .arg(repo().join("scenarios").join(AMBUSH))
        .assert()
        .success();
    // usage.csv also lists the cells never read, in the file's order.
    let read: std::collections::BTreeMap<String, (String, String)> =
        crate::util::csv_rows(&counted.path().join("cli/usage.csv"))
            .into_iter()
            .filter(|row| row["reads"] != "0")
            .map(|row| {
                let path: Vec<&str> = [row["row"].as_str(), row["column"].as_str()]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect();
                let name = format!("tables.{}.{}", row["table"], path.join("."));
                (name, (row["reads"].clone(), row["battles_reading"].clone()))
            })
            .collect();
    let cells = usage["cells"].as_array().unwrap();
    assert_eq!(cells.len(), read.len(), "{usage}");
    for cell in cells {
        let (reads, battles) = &read[cell["sweep"].as_str().unwrap()];
        assert_eq!(&cell["reads"].to_string(), reads, "{cell}");
        assert_eq!(&cell["battles"].to_string(), battles, "{cell}");
    }
}

/// A run and a question asked from the page record the command that asks
/// them again, naming their inputs by file name; the inputs are served
/// beside the answer, so in a folder of the served files the recorded
/// command writes the same tables (a table edited on the page included).
#[test]
fn the_pages_records_reproduce_from_the_files_it_serves() {
    let server = Server::start(&["--max-trials", "1000000"]);
    let survival = read(&repo().join("scenarios/tables/gurps/survival.toml")).replacen(
        "column = \"D\"",
        "column = \"C\"",
        1,
    );
    let tables = json!({ "survival": survival });
    let asked = [
        (
            "/api/runs",
            json!({ "toml": ambush(), "name": AMBUSH, "trials": 20000, "seed": 3, "tables": tables }),
        ),
        (
            "/api/analyses",
            json!({ "toml": ambush(), "name": AMBUSH, "tables": tables, "ask": { "sensitivity": {
                "target": "party/down_or_dead:mean", "knobs": ["heroes.Titus.risk"], "trials": 20000, "seed": 3
            } } }),
        ),
    ];
    for (endpoint, body) in asked {
        let (status, started) = server.json("POST", endpoint, Some(body));
        assert_eq!(status, 200, "{started}");
        let id = started["id"].as_u64().unwrap();
        let last = server.follow(id);
        assert_eq!(last["status"], "done", "{last}");
        let work = tempfile::tempdir().unwrap();
        let mut served = Vec::new();
        for file in last["files"].as_array().unwrap() {
            let name = file.as_str().unwrap();
            if [".toml", ".csv", ".json"].iter().any(|e| name.ends_with(e)) {
                let (status, text) =
                    server.request("GET", &format!("/api/runs/{id}/files/{name}"), None);
                assert_eq!(status, 200, "{name}");
                std::fs::write(work.path().join(name), &text).unwrap();
                served.push(name.to_owned());
            }
        }
        assert!(
            served.iter().any(|n| n == "survival.table.toml"),
            "the page's table beside the answer: {served:?}"
        );
        let record: Value = serde_json::from_str(&read(&work.path().join("run.json"))).unwrap();
        let line = record["command"].as_str().unwrap();
        assert!(
            line.contains("--table survival=survival.table.toml")
                && !line.contains(&*std::env::temp_dir().display().to_string()),
            "names its inputs by file name, and no server folder: {line}"
        );
        let status = Command::new("sh")
            .current_dir(work.path())
            .env("PATH", crate::util::path_with_warcrunch())
            .args(["-c", &format!("{line} --quiet")])
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
        let again = work.path().join(format!("run-{id}"));
        let csvs: Vec<&String> = served.iter().filter(|n| n.ends_with(".csv")).collect();
        assert!(!csvs.is_empty(), "{served:?}");
        for name in csvs {
            assert!(
                read(&again.join(name)) == read(&work.path().join(name)),
                "{line}: {name} differs from the served one"
            );
        }
    }
}
