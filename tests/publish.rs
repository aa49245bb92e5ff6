//! Reports people publish: many battles in one table, tidy tables in CSV
//! and Parquet alike, a run rerun from its `run.json` alone, one rule for
//! printing probabilities, stand-ins that travel with the number, and
//! charts with their words, tails and sizes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{csv_rows, number, read, repo, scenario, warcrunch};

type Row = BTreeMap<String, String>;

fn ambush() -> std::path::PathBuf {
    repo().join("scenarios/gurps/ambush_at_the_ford.toml")
}

/// A row's cells from `from` on, joined: what two tables of the same
/// numbers share whatever columns lead them.
fn from(row: &Row, header: &[String], first: &str) -> String {
    let at = header.iter().position(|h| h == first).unwrap();
    header[at..]
        .iter()
        .map(|h| row[h].as_str())
        .collect::<Vec<_>>()
        .join(",")
}

fn header(path: &Path) -> Vec<String> {
    read(path)
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect()
}

#[test]
fn many_battles_make_one_table_holding_each_battles_own_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    let assert = warcrunch()
        .args(["run", "--trials", "3000", "--exact", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let (battles, tables) = crate::util::bundled_counts();
    assert!(
        stdout.contains(&format!("left out {tables} table files")),
        "table files are left out with a note: {stdout}"
    );
    assert!(
        stdout.contains("no exact odds: ") && stdout.contains("one-day battles"),
        "a battle no exact method covers runs without, saying why: {stdout}"
    );
    let combined = csv_rows(&out.join("distributions.csv"));
    let names: BTreeSet<&str> = combined.iter().map(|r| r["scenario"].as_str()).collect();
    assert_eq!(names.len(), battles, "{names:?}");
    let top = header(&out.join("distributions.csv"));
    assert_eq!(&top[..3], ["scenario", "system", "subject"]);
    assert_eq!(
        top.last().unwrap(),
        "uses_stand_ins",
        "last, as in every file"
    );
    for name in &names {
        let own_path = out.join(name).join("distributions.csv");
        let own_header = header(&own_path);
        let own: Vec<String> = csv_rows(&own_path)
            .iter()
            .map(|r| from(r, &own_header, "subject"))
            .collect();
        let in_combined: Vec<String> = combined
            .iter()
            .filter(|r| r["scenario"] == *name)
            .map(|r| from(r, &top, "subject"))
            .collect();
        assert_eq!(own, in_combined, "{name}: the same rows, in order");
        let json: serde_json::Value =
            serde_json::from_str(&read(&out.join(name).join("run.json"))).unwrap();
        assert!(
            combined
                .iter()
                .filter(|r| r["scenario"] == *name)
                .all(|r| r["system"] == json["system"].as_str().unwrap())
        );
    }
    let summary = csv_rows(&out.join("summary.csv"));
    assert!(summary.iter().any(|r| r["scenario"] == "siege_assault"));
    // The headline outcomes as rows of numbers, each the other tables' own.
    let key = csv_rows(&out.join("key_outcomes.csv"));
    let keyed: BTreeSet<&str> = key.iter().map(|r| r["scenario"].as_str()).collect();
    assert_eq!(keyed, names, "every battle has its headline rows");
    for r in &key {
        let estimate = number(r, "estimate");
        let battles = number(r, "battles");
        let in_the_battle = |t: &&Row| {
            t["scenario"] == r["scenario"]
                && t["subject"] == r["subject"]
                && t["metric"] == r["metric"]
        };
        if r["kind"] == "mean" {
            let s = summary.iter().find(in_the_battle).expect("its summary row");
            assert_eq!(
                (estimate, battles),
                (number(s, "mean"), number(s, "trials")),
                "{r:?}"
            );
        } else {
            let counted: f64 = combined
                .iter()
                .filter(in_the_battle)
                .filter(|t| r["value"].split('|').any(|v| v == t["value"]))
                .map(|t| number(t, "count"))
                .sum();
            assert_eq!(estimate, counted / battles, "{r:?}");
            assert!(number(r, "ci_low") <= estimate && estimate <= number(r, "ci_high"));
        }
        assert!(
            !r["outcome"].contains('_') && !r["outcome"].contains(':') || r["kind"] == "mean",
            "{r:?}"
        );
        // The number as the battle's own report prints it.
        let report = read(&out.join(&r["scenario"]).join("report.html"));
        let mut words = String::new();
        for piece in report.split('<') {
            words.push_str(piece.split_once('>').map_or(piece, |(_, after)| after));
        }
        assert!(words.contains(&r["printed"]), "{r:?}");
    }
    assert!(
        key.iter()
            .any(|r| r["outcome"] == "Titus ends down or dead")
    );
    for file in [
        "distributions.csv",
        "summary.csv",
        "key_outcomes.csv",
        "exact.csv",
    ] {
        assert!(
            !read(&out.join(file)).contains("NaN"),
            "{file} writes no NaN"
        );
    }
    let exact = csv_rows(&out.join("exact.csv"));
    assert!(exact.iter().any(|r| r["scenario"] == "knights_vs_pikes"));
    assert!(
        !exact
            .iter()
            .any(|r| r["scenario"] == "three_days_at_hollin")
    );
    let index = read(&out.join("report.html"));
    for name in &names {
        assert!(
            index.contains(&format!("href=\"{name}/report.html\"")),
            "the index links {name}"
        );
    }
    assert!(index.contains("Ambush at the ford</a>"));
    assert!(index.contains("Megalos won"), "key odds per battle");
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    let (battles, tables) = crate::util::bundled_counts();
    assert_eq!(run["scenarios"].as_array().unwrap().len(), battles);
    assert_eq!(run["left_out"].as_array().unwrap().len(), tables);
    assert!(
        run["left_out"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("a table file")
    );
}

#[test]
fn a_folder_of_no_scenario_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("none");
    let assert = warcrunch()
        .args(["run", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/tables/gurps"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no scenario among") && stderr.contains("a table file (kind = \"glory\")"),
        "{stderr}"
    );
    assert!(!out.exists());
    let missing = warcrunch()
        .args(["run", "--out"])
        .arg(&out)
        .arg(ambush())
        .arg("no_such_battle.toml")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&missing.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no_such_battle.toml: no such scenario file or folder"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn the_verdicts_combined_outcomes_are_rows_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--exact", "--trials", "20000", "--out"])
        .arg(&out)
        .arg(ambush())
        .assert()
        .success();
    let rows = csv_rows(&out.join("distributions.csv"));
    let count = |subject: &str, metric: &str, value: &str| -> f64 {
        rows.iter()
            .find(|r| r["subject"] == subject && r["metric"] == metric && r["value"] == value)
            .map(|r| number(r, "count"))
            .unwrap_or_else(|| panic!("no {subject}/{metric}={value}"))
    };
    for pc in ["Titus", "Varro", "Ilsa", "Brother Anselm"] {
        let hero = format!("hero:{pc}");
        assert_eq!(
            count(&hero, "state=down|dead", "yes"),
            count(&hero, "state", "down") + count(&hero, "state", "dead"),
            "{pc}: down or dead"
        );
    }
    // The exact odds of the combined rows too, every value listed.
    let exact = csv_rows(&out.join("exact.csv"));
    let varro: Vec<&Row> = exact
        .iter()
        .filter(|r| r["subject"] == "hero:Varro" && r["metric"] == "state=down|dead")
        .collect();
    assert_eq!(varro.len(), 2);
    let (p_down, p_dead) = [("state", "down"), ("state", "dead")]
        .map(|(m, v)| {
            exact
                .iter()
                .find(|r| r["subject"] == "hero:Varro" && r["metric"] == m && r["value"] == v)
                .map(|r| number(r, "exact_probability"))
                .unwrap()
        })
        .into();
    let yes = varro.iter().find(|r| r["value"] == "yes").unwrap();
    assert!((number(yes, "exact_probability") - (p_down + p_dead)).abs() < 1e-12);
}

#[test]
fn exact_csv_lists_every_value_zeros_included() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--exact", "--trials", "2000", "--out"])
        .arg(&out)
        .arg(ambush())
        .assert()
        .success();
    let exact = csv_rows(&out.join("exact.csv"));
    // Every Survival row of the table, reached or not, for every PC.
    for pc in ["Titus", "Varro", "Ilsa", "Brother Anselm"] {
        let labels: Vec<&str> = exact
            .iter()
            .filter(|r| r["subject"] == format!("hero:{pc}") && r["metric"] == "survival")
            .map(|r| r["value"].as_str())
            .collect();
        assert_eq!(
            labels,
            ["no_roll", "unhurt", "1hp", "2hp", "A", "B", "C", "D"],
            "{pc}"
        );
    }
    let zero = exact
        .iter()
        .find(|r| number(r, "exact_probability") == 0.0)
        .expect("a value of probability 0 is listed");
    assert_eq!(zero["agrees"], "true");
}

/// Every cell of a CSV file, by column: the text between the commas as
/// written (quotes kept), so `""` and an empty cell differ.
fn raw_cells(path: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let names: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect();
    let mut cells = Vec::new();
    for line in lines {
        let (mut cell, mut quoted, mut column) = (String::new(), false, 0);
        for c in line.chars().chain(std::iter::once(',')) {
            if c == ',' && !quoted {
                cells.push((names[column].clone(), std::mem::take(&mut cell)));
                column += 1;
            } else {
                quoted ^= c == '"';
                cell.push(c);
            }
        }
        assert_eq!(column, names.len(), "{}: {line}", path.display());
    }
    cells
}

/// A blank is missing in both files: an empty CSV cell (never `""`) and a
/// Parquet null (never an empty string), column by column the same count,
/// for a run (stand-in tables, subject names) and a sensitivity analysis
/// (moves that are no table cell).
#[test]
fn a_blank_cell_is_missing_in_csv_and_parquet_alike() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let asked: [(&str, Vec<&str>); 2] = [
        ("run", vec!["run", "--trials", "3000"]),
        (
            "sensitivity",
            vec![
                "sensitivity",
                "--target",
                "side:Megalos/victory=won",
                "--knobs",
                "days,tables.survival.rows.D.column",
                "--trials",
                "2000",
            ],
        ),
    ];
    for (name, args) in asked {
        let out = dir.path().join(name);
        warcrunch()
            .args(&args)
            .args(["--quiet", "--format", "csv,parquet", "--out"])
            .arg(&out)
            .arg(ambush())
            .assert()
            .success();
        let stems: Vec<&str> = match name {
            "run" => vec!["distributions", "summary"],
            _ => vec!["sensitivity"],
        };
        for stem in stems {
            let cells = raw_cells(&out.join(format!("{stem}.csv")));
            assert!(
                cells.iter().all(|(_, v)| v != "\"\""),
                "{stem}.csv writes no `\"\"`"
            );
            let file = std::fs::File::open(out.join(format!("{stem}.parquet"))).unwrap();
            let frame = ParquetReader::new(file).finish().unwrap();
            let mut blanks = 0;
            for column in frame.columns() {
                let empty_in_csv = (cells.iter())
                    .filter(|(c, v)| c == column.name().as_str() && v.is_empty())
                    .count();
                assert_eq!(
                    column.null_count(),
                    empty_in_csv,
                    "{stem}: {} nulls in Parquet, empty cells in CSV",
                    column.name()
                );
                if let Ok(text) = column.str() {
                    assert!(
                        text.iter().flatten().all(|v| !v.is_empty()),
                        "{stem}.parquet: {} holds an empty string",
                        column.name()
                    );
                }
                blanks += empty_in_csv;
            }
            assert!(
                blanks > 0,
                "{stem}: some cell is blank, so the test reads one"
            );
        }
    }
}

#[test]
fn tables_are_tidy_in_csv_and_parquet_alike() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    warcrunch()
        .args([
            "run",
            "--quiet",
            "--trials",
            "3000",
            "--format",
            "csv,parquet",
            "--out",
        ])
        .arg(&plain)
        .arg(ambush())
        .assert()
        .success();
    let top = header(&plain.join("distributions.csv"));
    assert!(
        !top.contains(&"variant".to_owned()),
        "a plain run has no variant"
    );
    for r in csv_rows(&plain.join("distributions.csv")) {
        let joined = if r["subject_name"].is_empty() {
            r["subject_kind"].clone()
        } else {
            format!("{}:{}", r["subject_kind"], r["subject_name"])
        };
        assert_eq!(joined, r["subject"]);
    }
    // Parquet: the CSV's types, strings any reader takes, as the Arrow
    // schema the file carries tells readers that restore Arrow types.
    for table in ["distributions", "summary"] {
        let mut file = std::fs::File::open(plain.join(format!("{table}.parquet"))).unwrap();
        let metadata = polars_parquet::read::read_metadata(&mut file).unwrap();
        let encoded = metadata
            .key_value_metadata()
            .iter()
            .flatten()
            .find(|kv| kv.key == "ARROW:schema")
            .and_then(|kv| kv.value.clone())
            .expect("an Arrow schema");
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap();
        let message = if bytes[..4] == [255; 4] {
            &bytes[8..]
        } else {
            &bytes[..]
        };
        let (schema, _, _) = polars_arrow::io::ipc::read::deserialize_schema(message).unwrap();
        let schema = format!("{schema:?}");
        assert!(
            !schema.contains("View"),
            "{table}: no string views: {schema}"
        );
        assert!(schema.contains("LargeUtf8"), "{table}: {schema}");
        assert!(
            !schema.contains("UInt64"),
            "{table}: counts as Int64: {schema}"
        );
        assert!(schema.contains("Int64"), "{table}: {schema}");
        // What the file is, said in the file: the run and its units.
        let said = |key: &str| {
            metadata
                .key_value_metadata()
                .iter()
                .flatten()
                .find(|kv| kv.key == format!("warcrunch.{key}"))
                .and_then(|kv| kv.value.clone())
                .unwrap_or_else(|| panic!("{table}: no warcrunch.{key}"))
        };
        assert_eq!(said("battles"), "3000", "{table}");
        assert_eq!(said("seed"), "7", "{table}");
        assert_eq!(said("interval_level"), "0.95", "{table}");
        assert_eq!(said("system"), "gurps", "{table}");
        assert_eq!(said("tool_version"), env!("CARGO_PKG_VERSION"), "{table}");
        let units: serde_json::Value = serde_json::from_str(&said("units")).unwrap();
        assert_eq!(units["casualties_pct"], "% of Troop Strength", "{table}");
    }
    // Several battles' index says which warcrunch wrote it, as a run does.
    let batch = dir.path().join("batch");
    warcrunch()
        .args([
            "run",
            "--quiet",
            "--trials",
            "2000",
            "--format",
            "csv,parquet",
        ])
        .arg("--out")
        .arg(&batch)
        .arg(ambush())
        .arg(repo().join("scenarios/war_cards/knights_vs_pikes.toml"))
        .assert()
        .success();
    let mut file = std::fs::File::open(batch.join("key_outcomes.parquet")).unwrap();
    let metadata = polars_parquet::read::read_metadata(&mut file).unwrap();
    let commit = metadata
        .key_value_metadata()
        .iter()
        .flatten()
        .find(|kv| kv.key == "warcrunch.tool_commit")
        .and_then(|kv| kv.value.clone());
    assert_eq!(commit.as_deref(), Some(warcrunch::report::TOOL_COMMIT));
    // A sweep: one column per swept setting, numbers as numbers.
    let sweep = dir.path().join("sweep");
    warcrunch()
        .args(["sweep", "--quiet", "--trials", "2000", "--out"])
        .arg(&sweep)
        .arg(ambush())
        .args([
            "--set",
            "heroes.Titus.risk=-1,1",
            "--set",
            "sides.Megalos.armour=light,heavy",
        ])
        .assert()
        .success();
    for table in ["distributions", "summary", "comparison"] {
        let rows = csv_rows(&sweep.join(format!("{table}.csv")));
        assert!(!rows.is_empty());
        for r in rows {
            let variant = &r["variant"];
            assert_eq!(
                variant,
                &format!("risk={},armour={}", r["risk"], r["armour"]),
                "{table}: the settings' columns name the variant"
            );
            r["risk"].parse::<i64>().expect("risk is a number");
        }
    }
}

#[test]
fn a_run_json_alone_runs_the_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let glory = dir.path().join("my glory.toml");
    std::fs::write(
        &glory,
        read(&repo().join("scenarios/tables/gurps/glory.toml")).replacen(
            "reputation = 1",
            "reputation = 2",
            1,
        ),
    )
    .unwrap();
    let first = dir.path().join("first");
    warcrunch()
        .args(["run", "--quiet", "--trials", "8000", "--seed", "3", "--out"])
        .arg(&first)
        .arg(ambush())
        .arg("--table")
        .arg(format!("glory={}", glory.display()))
        .args(["--target", "hero:Titus/reputation>=2"])
        .assert()
        .success();
    let recorded: serde_json::Value = serde_json::from_str(&read(&first.join("run.json"))).unwrap();
    let commit = recorded["tool_commit"].as_str().unwrap();
    assert!(
        commit == "unknown"
            || commit
                .trim_end_matches("-modified")
                .chars()
                .all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );
    assert_eq!(recorded["scenario_text"].as_str().unwrap(), read(&ambush()));
    let glory_use = recorded["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "glory")
        .unwrap();
    assert_eq!(glory_use["text"].as_str().unwrap(), read(&glory));
    // Only run.json, in a folder of its own; the table file gone.
    let kept = dir.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::copy(first.join("run.json"), kept.join("run.json")).unwrap();
    std::fs::remove_file(&glory).unwrap();
    let again = dir.path().join("again");
    warcrunch()
        .args(["run", "--quiet", "--threads", "1", "--from"])
        .arg(kept.join("run.json"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    for file in ["distributions.csv", "summary.csv"] {
        assert_eq!(
            read(&first.join(file)),
            read(&again.join(file)),
            "{file} byte for byte"
        );
    }
    let mut rerun: serde_json::Value =
        serde_json::from_str(&read(&again.join("run.json"))).unwrap();
    let mut was = recorded.clone();
    // Its command writes where the rerun wrote: pasted, it makes these files.
    let command = was["command"].as_str().unwrap();
    assert!(
        command.contains(&format!("--out {}", first.display())),
        "{command}"
    );
    let moved = command.replace(&first.display().to_string(), &again.display().to_string());
    assert_eq!(rerun["command"].as_str().unwrap(), moved);
    for key in ["elapsed_seconds", "threads", "command"] {
        rerun[key] = serde_json::Value::Null;
        was[key] = serde_json::Value::Null;
    }
    assert_eq!(
        rerun, was,
        "the same record but for time, threads and --out"
    );
    // A record whose scenario was edited is refused, writing nothing.
    let edited = dir.path().join("edited.json");
    let mut tampered = recorded.clone();
    tampered["scenario_text"] = recorded["scenario_text"]
        .as_str()
        .unwrap()
        .replace("strategy = 14", "strategy = 17")
        .into();
    std::fs::write(&edited, tampered.to_string()).unwrap();
    let refused_out = dir.path().join("refused");
    let assert = warcrunch()
        .args(["run", "--from"])
        .arg(&edited)
        .arg("--out")
        .arg(&refused_out)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("does not match its recorded SHA-256"),
        "{stderr}"
    );
    assert!(!refused_out.exists());
}

#[test]
fn a_probability_near_certain_prints_the_digits_that_tell_it_apart() {
    let assert = warcrunch()
        .args(["run", "--trials", "131072", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("rout"))
        .arg(repo().join("scenarios/seventh_sea/rout_of_a_weaker_army.toml"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        !stdout.contains("< 0.01%") && !stdout.contains("> 99.99%"),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Eisen won "))
        .unwrap_or_else(|| panic!("{stdout}"));
    // "Eisen won 99.9939% (99.9880%–99.9969%) of …": the three differ.
    let numbers: Vec<&str> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| w.contains('.'))
        .take(3)
        .collect();
    assert_eq!(numbers.len(), 3, "{line}");
    assert!(numbers[0].starts_with("99.99"), "{line}");
    assert!(numbers.iter().collect::<BTreeSet<_>>().len() == 3, "{line}");
}

#[test]
fn stand_ins_travel_with_the_number() {
    let dir = tempfile::tempdir().unwrap();
    let knights = scenario("knights_vs_pikes.toml");
    let run = |table: Option<&Path>, out: &Path| -> String {
        let mut cmd = warcrunch();
        cmd.args(["run", "--trials", "4000", "--out"])
            .arg(out)
            .arg(&knights);
        if let Some(table) = table {
            cmd.arg("--table").arg(format!("cards={}", table.display()));
        }
        String::from_utf8_lossy(&cmd.assert().success().get_output().stdout).into_owned()
    };
    let shipped = dir.path().join("shipped");
    let stdout = run(None, &shipped);
    let verdict = stdout
        .lines()
        .find(|l| l.starts_with("Knights (attacker) won"))
        .unwrap();
    assert!(verdict.ends_with(" †"), "{verdict}");
    assert!(
        stdout.contains("† Rests on stand-in table values")
            && stdout.contains("table cards: row_order")
    );
    assert!(
        csv_rows(&shipped.join("distributions.csv"))
            .iter()
            .all(|r| r["uses_stand_ins"] == "true")
    );
    let html = read(&shipped.join("report.html"));
    assert!(html.contains("engagements †.</p>") && html.contains("id=\"stand-ins\""));
    // The same deck with its stand-in confirmed: no mark anywhere.
    let deck = dir.path().join("deck.toml");
    std::fs::write(
        &deck,
        read(&repo().join("scenarios/tables/war_cards.toml"))
            .replace("stand_ins = [\"row_order\"]", "stand_ins = []"),
    )
    .unwrap();
    let confirmed = dir.path().join("confirmed");
    let stdout = run(Some(&deck), &confirmed);
    assert!(!stdout.contains('†'), "{stdout}");
    assert!(
        csv_rows(&confirmed.join("distributions.csv"))
            .iter()
            .all(|r| r["uses_stand_ins"] == "false")
    );
    assert!(!read(&confirmed.join("report.html")).contains('†'));
}

/// PNG width and height, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn charts_say_what_they_show_at_both_extremes() {
    let dir = tempfile::tempdir().unwrap();
    // One value: the siege's party never goes down.
    let siege = dir.path().join("siege");
    warcrunch()
        .args(["run", "--quiet", "--trials", "3000", "--out"])
        .arg(&siege)
        .arg(repo().join("scenarios/gurps/siege_assault.toml"))
        .assert()
        .success();
    let single = read(&siege.join("hist_party_down_or_dead.svg"));
    assert!(single.contains("<title>The party — PCs down or dead †</title>"));
    assert!(single.contains(
        "It rests on the catastrophe and damage tables, which hold stand-in values.</desc>"
    ));
    // The description reads as a sentence, without the title's dash.
    assert!(
        single.contains("<desc>Histogram of PCs down or dead for the party over 3,000 battles")
    );
    assert!(single.contains("font-family=\"'DejaVu Sans', Verdana"));
    assert!(!single.contains("width=\"-"), "no bar of negative width");
    let (w, h) = png_size(&siege.join("hist_party_down_or_dead.png"));
    assert_eq!(
        png_size(&siege.join("hist_party_down_or_dead@2x.png")),
        (2 * w, 2 * h)
    );
    // Hundreds of battles reach the rare casualties: the axis stops and says so.
    let ambush_out = dir.path().join("ambush");
    warcrunch()
        .args(["run", "--quiet", "--trials", "400000", "--out"])
        .arg(&ambush_out)
        .arg(ambush())
        .assert()
        .success();
    let casualties = read(&ambush_out.join("hist_side_Megalos_casualties_pct.svg"));
    assert!(casualties.contains("<title>Megalos — casualties, % of Troop Strength †</title>"));
    let tail = casualties
        .split("Not drawn: ")
        .nth(1)
        .expect("the tail left off is said")
        .split('<')
        .next()
        .unwrap()
        .to_owned();
    // The battles it names are those of the values it leaves off.
    let above: i64 = tail
        .split(" above ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let said: f64 = tail
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    let left_off: f64 = csv_rows(&ambush_out.join("distributions.csv"))
        .iter()
        .filter(|r| r["subject"] == "side:Megalos" && r["metric"] == "casualties_pct")
        .filter(|r| r["value"].parse::<i64>().unwrap() > above)
        .map(|r| number(r, "count"))
        .sum();
    assert_eq!(said, left_off, "{tail}");
    assert!(said / 400_000.0 <= 1e-4, "at most the 99.99% tail: {tail}");
    // Whole values only on the axes: no tick at a half.
    assert!(!casualties.contains(".5</text>"), "a tick at a half");
    // Steps, not slopes: each value's share is a flat stretch, joined to
    // the next by an upright one.
    let mut lines: Vec<Vec<(f64, f64)>> = casualties
        .split("points=\"")
        .skip(1)
        .map(|rest| {
            rest.split('"')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect();
    lines.sort_by_key(|l| std::cmp::Reverse(l.len()));
    for curve in &lines[..2] {
        assert!(curve.len() > 40, "{} points", curve.len());
        for (i, pair) in curve.windows(2).enumerate() {
            let (flat, upright) = (pair[0].1 == pair[1].1, pair[0].0 == pair[1].0);
            assert!(
                if i % 2 == 0 { flat } else { upright },
                "point {i} of a step curve: {pair:?}"
            );
        }
    }
}

/// Every chart file `dir` holds: its SVG names what it shows (`<title>`,
/// a `<desc>` of some substance, `role="img"`), and its PNG comes at 1×
/// and 2× the SVG's size. Returns the charts' stems.
fn charts_fit_to_publish(dir: &Path) -> Vec<String> {
    let mut stems = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("svg") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let svg = read(&path);
        let inner = |tag: &str| {
            svg.split(&format!("<{tag}>"))
                .nth(1)
                .and_then(|rest| rest.split(&format!("</{tag}>")).next())
                .unwrap_or_else(|| panic!("{stem}.svg has no <{tag}>"))
                .to_owned()
        };
        assert!(!inner("title").trim().is_empty(), "{stem}: empty title");
        let desc = inner("desc");
        assert!(
            desc.split_whitespace().count() >= 12,
            "{stem}: a description of substance, not {desc:?}"
        );
        assert!(svg.contains("role=\"img\""), "{stem}");
        // A y axis's ticks (right-aligned beside it) read as short as they
        // can: 8 and 0.2, not 8.0 and 0.20.
        let zeros = texts(&svg)
            .into_iter()
            .filter(|(tag, _)| tag.contains("text-anchor=\"end\""))
            .map(|(_, t)| t)
            .filter(|t| {
                let digits = t.trim_start_matches(['−', '-']);
                digits.split_once('.').is_some_and(|(whole, decimals)| {
                    !whole.is_empty()
                        && whole.chars().all(|c| c.is_ascii_digit())
                        && decimals.ends_with('0')
                })
            })
            .collect::<Vec<_>>();
        assert!(
            zeros.is_empty(),
            "{stem}: ticks with trailing zeros: {zeros:?}"
        );
        let overflows = texts_off_the_chart(&svg);
        assert!(
            overflows.is_empty(),
            "{stem}: text off the chart: {overflows:#?}"
        );
        let width: u32 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        let (w, h) = png_size(&dir.join(format!("{stem}.png")));
        assert_eq!(w, width, "{stem}.png is the SVG's size");
        assert_eq!(
            png_size(&dir.join(format!("{stem}@2x.png"))),
            (2 * w, 2 * h),
            "{stem}@2x.png"
        );
        stems.push(stem);
    }
    stems.sort();
    stems
}

/// Every `<text>` of a chart: its tag's attributes and its text.
fn texts(svg: &str) -> Vec<(String, String)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|part| part.split_once('>'))
        .map(|(tag, rest)| {
            let text = rest.split("</text>").next().unwrap().trim();
            (tag.to_owned(), text.to_owned())
        })
        .collect()
}

/// Each horizontal `<text>` of a chart that runs past its left or right
/// edge, as the charts' font lays it out.
fn texts_off_the_chart(svg: &str) -> Vec<String> {
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..].split('"').next()?.to_owned())
    };
    let width: f64 = attribute(svg, "width").unwrap().parse().unwrap();
    let mut off = Vec::new();
    for part in svg.split("<text").skip(1) {
        let (tag, rest) = part.split_once('>').unwrap();
        if tag.contains("transform") {
            continue; // a rotated axis title
        }
        let text = rest.split("</text>").next().unwrap().trim();
        let text = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&");
        let x: f64 = attribute(tag, "x").unwrap().parse().unwrap();
        let size: f64 = attribute(tag, "font-size").unwrap().parse().unwrap();
        let w = f64::from(warcrunch::report::kit::draw::text_width(&text, size * 1.24).unwrap());
        let (left, right) = match attribute(tag, "text-anchor").as_deref() {
            Some("middle") => (x - w / 2.0, x + w / 2.0),
            Some("end") => (x - w, x),
            _ => (x, x + w),
        };
        if left < -1.0 || right > width + 1.0 {
            off.push(format!("{text:?} spans {left:.0} to {right:.0} of {width}"));
        }
    }
    off
}

/// Every inline chart of a report carries its title and description.
fn report_charts_are_named(dir: &Path) {
    let html = read(&dir.join("report.html"));
    let charts = html.matches("<svg").count();
    assert!(charts > 0, "{}: no chart", dir.display());
    assert_eq!(
        html.matches("role=\"img\"><title>").count(),
        charts,
        "{}: a chart without its title",
        dir.display()
    );
}

#[test]
fn every_commands_charts_are_fit_to_publish() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name);
    let run = |args: &[&str], at: &Path| {
        warcrunch()
            .args(args)
            .arg("--quiet")
            .arg("--out")
            .arg(at)
            .assert()
            .success();
    };
    let ambush = ambush();
    let ambush = ambush.to_str().unwrap();
    let even = repo().join("scenarios/seventh_sea/even_field_battle.toml");
    let even = even.to_str().unwrap();
    run(
        &[
            "sweep",
            ambush,
            "--set",
            "heroes.Titus.risk=-1..1",
            "--trials",
            "3000",
        ],
        &out("sweep"),
    );
    let stems = charts_fit_to_publish(&out("sweep"));
    assert!(stems.contains(&"frontier".to_owned()), "{stems:?}");
    assert!(stems.iter().any(|s| s.starts_with("compare_")), "{stems:?}");
    report_charts_are_named(&out("sweep"));
    let frontier = read(&out("sweep").join("frontier.svg"));
    assert!(
        frontier.contains("Titus: risk=\u{2212}1 P(down or dead) "),
        "the points in words"
    );

    run(
        &["run", ambush, "--usage", "--trials", "2000"],
        &out("usage"),
    );
    let stems = charts_fit_to_publish(&out("usage"));
    assert!(stems.iter().any(|s| s.starts_with("usage_")), "{stems:?}");
    report_charts_are_named(&out("usage"));

    run(
        &[
            "solve",
            ambush,
            "--vary",
            "sides.Raiders.troop_strength=200..3000",
            "--target",
            "party/any_down_or_dead=yes",
            "--at-most",
            "0.1",
            "--max-trials",
            "4000",
        ],
        &out("solve"),
    );
    assert_eq!(charts_fit_to_publish(&out("solve")), ["solve"]);
    report_charts_are_named(&out("solve"));

    run(
        &[
            "sensitivity",
            ambush,
            "--target",
            "party/any_down_or_dead=yes",
            "--trials",
            "2000",
        ],
        &out("sensitivity"),
    );
    assert_eq!(charts_fit_to_publish(&out("sensitivity")), ["tornado"]);
    report_charts_are_named(&out("sensitivity"));
    // A word's move whose bar reaches the chart's edge (the Raiders off
    // their hill: about +24 points) keeps its label on the chart.
    run(
        &[
            "sensitivity",
            ambush,
            "--target",
            "side:Megalos/victory=won",
            "--knobs",
            "sides.Raiders.position,days",
            "--trials",
            "20000",
        ],
        &out("sensitivity_edge"),
    );
    assert_eq!(charts_fit_to_publish(&out("sensitivity_edge")), ["tornado"]);
    assert!(read(&out("sensitivity_edge").join("tornado.svg")).contains("uphill→none"));

    let chart = repo().join("scenarios/tables/seventh_sea/battle_chart.toml");
    run(
        &[
            "compare",
            even,
            "--table",
            &format!("battle_chart=builtin,{}", chart.display()),
            "--trials",
            "2000",
        ],
        &out("tables"),
    );
    assert_eq!(charts_fit_to_publish(&out("tables")), ["tables"]);
    report_charts_are_named(&out("tables"));

    run(&["cards"], &out("cards"));
    assert_eq!(charts_fit_to_publish(&out("cards")), ["skew_heatmap"]);
    report_charts_are_named(&out("cards"));
}

/// The README's combined table is what its command writes: the command
/// is run as the README gives it (into a folder of the test's own), and
/// every row the README shows is a row of the table, to the digits shown.
#[test]
fn the_readmes_combined_table_is_what_its_command_writes() {
    let readme = read(&repo().join("README.md"));
    let section = readme
        .split("**9. Publish it.**")
        .nth(1)
        .expect("the README's publishing step");
    let command = section
        .lines()
        .find(|l| l.starts_with("warcrunch run "))
        .expect("its command");
    let words = shlex::split(command).unwrap();
    let out_at = words.iter().position(|w| w == "--out").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("article");
    let mut args: Vec<String> = words[1..out_at].to_vec();
    args.extend(["--quiet".to_owned(), "--out".to_owned()]);
    warcrunch().args(&args).arg(&out).assert().success();
    let rows = csv_rows(&out.join("distributions.csv"));
    let table: Vec<Vec<&str>> = section
        .lines()
        .skip_while(|l| !l.starts_with("| scenario |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert!(table.len() >= 3, "the README shows rows");
    let columns = [
        "scenario",
        "system",
        "stand_in_tables",
        "subject",
        "metric",
        "value",
        "count",
        "probability",
        "ci_low",
        "ci_high",
    ];
    for shown in table {
        let row = rows
            .iter()
            .find(|r| columns[..6].iter().zip(&shown).all(|(c, v)| r[*c] == *v))
            .unwrap_or_else(|| panic!("the README's row {shown:?} is in no row of the table"));
        for (column, value) in columns.iter().zip(&shown).skip(6) {
            let decimals = value.split('.').nth(1).map_or(0, str::len);
            let actual = format!("{:.decimals$}", number(row, column));
            assert_eq!(&actual, value, "{column} of {shown:?}");
        }
    }
}
