//! The HTML report: structure, self-containment and agreement with the CSV.

use crate::util::{csv_rows, number, read, repo, scenario, warcrunch};

fn no_network(html: &str) {
    for needle in ["http://", "https://", "<script", "src=\"//", "url("] {
        assert!(
            !html.contains(needle),
            "report must be self-contained; found {needle:?}"
        );
    }
}

#[test]
fn a_run_report_has_every_section_chart_and_table_and_matches_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    warcrunch()
        .args(["run", "--quiet", "--trials", "50000", "--exact", "--out"])
        .arg(&out)
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    no_network(&html);
    assert!(html.starts_with("<!DOCTYPE html>"));
    for heading in [
        "<h1>Knights charge the pike square</h1>",
        "<h2>Verdict</h2>",
        "<h2>Balance flags</h2>",
        "<h2>Outcomes</h2>",
        "<h2 id=\"provenance\">Provenance</h2>",
    ] {
        assert!(html.contains(heading), "missing {heading}");
    }
    assert!(html.contains("Knights (attacker) won"));
    // The stand-in values are said once, in the note the † marks lead to
    // (issue 58, point 7), not again among the flags.
    assert_eq!(
        html.matches("Rests on stand-in table values, our defaults where the published figure is unknown: table cards: ").count(),
        1
    );
    assert!(!html.contains("Stand-in values in use"));
    assert!(html.contains("Exact check:"));
    assert!(html.contains("warcrunch run"));
    // One chart, with its caption and description, and one table per metric.
    let distributions = csv_rows(&out.join("distributions.csv"));
    let metrics: std::collections::BTreeSet<String> = distributions
        .iter()
        .map(|r| format!("{}/{}", r["subject"], r["metric"]))
        .collect();
    assert_eq!(
        html.matches("<figure role=\"group\" aria-label=\"").count(),
        metrics.len()
    );
    assert_eq!(html.matches("<figcaption>").count(), metrics.len());
    assert_eq!(
        html.matches("<svg").count(),
        html.matches("<title>").count() - 1
    );
    assert!(html.matches("<table>").count() > metrics.len());
    // Every count in the CSV appears in the report's tables, its value in
    // words (the winner by the unit's name).
    for r in &distributions {
        let words = match (r["metric"].as_str(), r["value"].as_str()) {
            ("winner", "attacker") => "Knights (attacker)".to_owned(),
            ("winner", "defender") => "Pikes (defender)".to_owned(),
            (_, value) => value.replace('_', " "),
        };
        let count: u64 = r["count"].parse().unwrap();
        let cell = format!(
            "<td class=\"l\">{words}</td><td>{}</td>",
            warcrunch::stats::format::thousands(count)
        );
        assert!(
            html.contains(&cell),
            "report lacks {}/{} = {} count {}",
            r["subject"],
            r["metric"],
            r["value"],
            r["count"]
        );
    }
}

#[test]
fn a_sweep_report_has_its_comparison_and_recommendation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--quiet",
            "--trials",
            "20000",
            "--set",
            "heroes.Titus.risk=-3..3",
            "--out",
        ])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    no_network(&html);
    assert!(html.contains("<h2>Comparison of variants</h2>"));
    assert!(html.contains("(recommended)") || html.contains("(tied)"));
    assert!(
        html.contains("<p>For Titus: "),
        "the verdict names whom it advises"
    );
    assert!(html.contains("<h2 id=\"provenance\">Provenance</h2>"));
}

/// A side's numbers are no PC's choice: a sweep of the Raiders' troop
/// strength never calls one of its values "never worth taking" for a PC,
/// and says how to name the PCs to recommend for, on the command line and
/// the page alike. Titus's own Risk swept, his flags stay.
#[test]
fn a_sweep_never_blames_a_pc_for_a_setting_that_is_not_his() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |set: &str, out: &str| {
        let out = dir.path().join(out);
        let said = warcrunch()
            .args([
                "sweep", "--trials", "20000", "--seed", "3", "--set", set, "--out",
            ])
            .arg(&out)
            .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .output()
            .unwrap();
        assert!(said.status.success());
        (
            String::from_utf8_lossy(&said.stdout).into_owned(),
            read(&out.join("report.html")),
        )
    };
    let (console, html) = sweep("sides.Raiders.troop_strength=400..1600:300", "troops");
    for text in [&console, &html] {
        assert!(!text.contains("never worth taking"), "{text}");
    }
    assert!(console.contains(
        "No recommendation: no swept setting belongs to a PC (name one with --recommend-for NAME)."
    ));
    assert!(html.contains("Name the PCs to recommend a value for (the page’s “Recommend a value for”, or <code><span class=\"nb\">--recommend-for</span> NAME</code>)."));
    let (_, html) = sweep("heroes.Titus.risk=-6..6:3", "risk");
    assert!(
        html.contains("Titus: "),
        "the risk sweep's findings name Titus"
    );
}

/// A sweep's page charts the outcomes some variant moves, and names in one
/// sentence those every variant left the same in every battle: Titus's
/// Risk moves his own fate, never Varro's, nor (in a one-day battle) who
/// wins; their counts agree in every variant. Variants not fought on the
/// same battles (a sweep of the seed) claim nothing and chart every outcome.
#[test]
fn a_sweep_charts_what_its_variants_move_and_names_what_they_leave() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |set: &str| {
        let out = dir.path().join(set);
        warcrunch()
            .args([
                "sweep", "--quiet", "--trials", "5000", "--set", set, "--out",
            ])
            .arg(&out)
            .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .assert()
            .success();
        out
    };
    let out = sweep("heroes.Titus.risk=-1..1");
    let html = read(&out.join("report.html"));
    assert!(html.contains("<h3>Titus — state after the battle</h3>"));
    let unchanged = ["Varro — state after the battle", "Megalos — victory"];
    let sentence = html
        .split("The same in every battle of every variant")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("the page names what no variant moved");
    for heading in unchanged {
        assert!(sentence.contains(heading), "{heading} named: {sentence}");
        assert!(
            !html.contains(&format!("<h3>{heading}</h3>")),
            "{heading} not charted"
        );
    }
    let rows = csv_rows(&out.join("distributions.csv"));
    for (subject, metric) in [("hero:Varro", "state"), ("side:Megalos", "victory")] {
        let counts = |variant: &str| -> Vec<String> {
            (rows.iter())
                .filter(|r| {
                    r["variant"] == variant && r["subject"] == subject && r["metric"] == metric
                })
                .map(|r| r["count"].clone())
                .collect()
        };
        assert!(!counts("risk=0").is_empty());
        assert_eq!(counts("risk=-1"), counts("risk=0"), "{subject} {metric}");
        assert_eq!(counts("risk=1"), counts("risk=0"), "{subject} {metric}");
    }
    let unpaired = read(&sweep("seed=1,2").join("report.html"));
    assert!(unpaired.contains("<h3>Varro — state after the battle</h3>"));
    assert!(!unpaired.contains("The same in every battle"));
}

#[test]
fn the_cards_report_ranks_what_is_out_of_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cards");
    warcrunch()
        .args(["cards", "--out"])
        .arg(&out)
        .assert()
        .success();
    // Read as text: without the places a line may break.
    let html = read(&out.join("report.html")).replace("<wbr>", "");
    no_network(&html);
    for part in [
        "<h2>Heatmaps</h2>",
        "<h2>Cards ranked by impact</h2>",
        "Cell sword_banner at &#62;=+3",
        "Impacts average to zero over the cards.",
        "a random deck as uneven",
    ] {
        assert!(html.contains(part), "missing {part}");
    }
    assert!(
        !html.contains("differ from the deck mean"),
        "no difference claimed on an enumeration"
    );
    // A negative impact reads with a true minus in the console, the page's
    // ranking and the heat map's labels (`−1.58`, never `-1.58`).
    let console = warcrunch()
        .args(["cards", "--force", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let console = String::from_utf8(console.stdout).unwrap();
    let svg = read(&out.join("skew_heatmap.svg"));
    let impacts = |text: &str, after: &str| -> Vec<String> {
        text.split(after)
            .skip(1)
            .map(|rest| rest.chars().take(6).collect())
            .collect()
    };
    for (place, shown) in [
        ("console", impacts(&console, "impact ")),
        ("page", impacts(&html, "</td><td>")),
        ("heat map", impacts(&svg, "impact ")),
    ] {
        assert!(
            shown.iter().any(|s| s.contains('\u{2212}')),
            "{place}: no negative impact in words: {shown:?}"
        );
        assert!(
            !shown.iter().any(|s| s.trim_start().starts_with('-')),
            "{place}: an ASCII minus: {shown:?}"
        );
    }
}

/// Issue 58, point 12: a comparison says what a run's verdict says of each
/// PC, in the same words: `Varro ends down or dead in 10.96% vs 10.67%`,
/// tested battle by battle (its row in `comparison.csv`), its shares those
/// of each battle's own run; asked as a target, the same event is said
/// once, in those words, and any other event in words, not as typed.
#[test]
fn a_comparison_says_each_pcs_being_out_of_action_as_a_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let stronger = dir.path().join("stronger_raiders.toml");
    std::fs::write(
        &stronger,
        read(&ambush).replace("strategy = 12", "strategy = 13"),
    )
    .unwrap();
    let console = |args: &[&str], out: &str| -> String {
        let done = warcrunch()
            .args(args)
            .args(["--trials", "20000", "--out"])
            .arg(dir.path().join(out))
            .assert()
            .success();
        String::from_utf8(done.get_output().stdout.clone()).unwrap()
    };
    let (ambush_path, stronger_path) = (ambush.to_str().unwrap(), stronger.to_str().unwrap());
    // Each battle's own run, on the same battles.
    let share = |run: &str, pc: &str| -> String {
        let line = run
            .lines()
            .find(|l| l.starts_with(&format!("{pc} ends down or dead in ")))
            .unwrap_or_else(|| panic!("{pc} in the run:\n{run}"));
        line.split(" in ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned()
    };
    let as_written = console(&["run", ambush_path], "a");
    let changed = console(&["run", stronger_path], "b");
    let compared = console(&["compare", ambush_path, stronger_path], "ab");
    for pc in ["Varro", "Brother Anselm"] {
        let said = format!(
            "{pc} ends down or dead in {} vs {} of battles",
            share(&changed, pc),
            share(&as_written, pc)
        );
        assert!(compared.contains(&said), "{said}:\n{compared}");
        let rows = csv_rows(&dir.path().join("ab/comparison.csv"));
        let tested = rows.iter().filter(|r| {
            r["subject"] == format!("hero:{pc}")
                && r["metric"] == "state=down|dead"
                && r["test"] == "mcnemar"
        });
        assert_eq!(tested.count(), 1, "{pc}'s row in comparison.csv");
    }
    // Asked: the same event once, in words; another event in words.
    let asked = console(
        &[
            "compare",
            ambush_path,
            stronger_path,
            "--target",
            "hero:Varro/state=down|dead",
            "--target",
            "side:Megalos/casualties_pct>=20",
        ],
        "asked",
    );
    assert_eq!(
        asked.matches("Varro ends down or dead in ").count(),
        1,
        "{asked}"
    );
    assert!(
        asked.contains("Megalos: casualties ≥ 20% of Troop Strength in "),
        "{asked}"
    );
    assert!(!asked.contains("hero:Varro/state=down|dead in"), "{asked}");
    let rows = csv_rows(&dir.path().join("asked/comparison.csv"));
    let varro = rows
        .iter()
        .filter(|r| r["subject"] == "hero:Varro" && r["metric"] == "state=down|dead");
    assert_eq!(varro.count(), 1);
}

#[test]
fn compare_tests_every_difference_and_flags_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let better = dir.path().join("better_general.toml");
    std::fs::write(
        &better,
        read(&repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
            .replace("strategy = 14", "strategy = 17"),
    )
    .unwrap();
    let out = dir.path().join("cmp");
    let ran = warcrunch()
        .args(["compare", "--trials", "50000", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .arg(&better)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "better_general against ambush_at_the_ford",
        ));
    std::fs::write(dir.path().join("console.txt"), &ran.get_output().stdout).unwrap();
    let csv = read(&out.join("comparison.csv"));
    assert!(csv.starts_with(
        "variant,baseline,subject,subject_kind,subject_name,metric,scope,value,test,"
    ));
    let rows = csv_rows(&out.join("comparison.csv"));
    let won = rows
        .iter()
        .find(|r| {
            (
                r["subject"].as_str(),
                r["metric"].as_str(),
                r["value"].as_str(),
            ) == ("side:Megalos", "victory", "won")
                && (r["test"].as_str(), r["method"].as_str()) == ("mcnemar", "paired_newcombe")
        })
        .expect("a row for Megalos winning");
    assert_eq!(
        won["significant"], "true",
        "three more Strategy is a significant change: {won:?}"
    );
    // A test of a whole distribution or of a mean names no value.
    assert!(
        rows.iter().any(
            |r| (r["scope"].as_str(), r["value"].as_str()) == ("distribution", "")
                && r["test"] == "chi_square"
        )
    );
    assert!(
        rows.iter()
            .all(|r| (r["scope"] == "value") != r["value"].is_empty())
    );
    // Means on the battles' differences, with the battles whose value moved.
    assert!(rows.iter().any(|r| r["scope"] == "mean"
        && r["test"] == "paired_t"
        && r["method"] == "paired_t"
        && number(r, "discordant") > 0.0));
    assert!(
        !rows.iter().any(|r| r["test"] == "welch_t"),
        "every mean of two variants on the same battles is paired"
    );
    assert!(
        rows.iter()
            .all(|r| r["p_value"].is_empty() || number(r, "p_value") > 0.0),
        "no p-value is written as 0"
    );
    let html = read(&out.join("report.html"));
    no_network(&html);
    assert!(html.contains("<h2>Significant differences</h2>"));
    // The verdict says what changed and by how much, in the CSV's numbers.
    let sentence = format!(
        "Megalos won in {} vs {} of battles, {}",
        warcrunch::stats::format::percent(number(won, "estimate")),
        warcrunch::stats::format::percent(number(won, "baseline_estimate")),
        warcrunch::stats::format::change(
            100.0 * number(won, "difference"),
            (
                100.0 * number(won, "ci_low"),
                100.0 * number(won, "ci_high")
            ),
            " pt"
        )
    );
    assert!(html.contains(&sentence), "{sentence}");
    let console = read(&out.join("../console.txt"));
    assert!(console.contains(&sentence), "{sentence}");
    // The same scenario twice: nothing significant.
    let same = dir.path().join("same");
    warcrunch()
        .args(["compare", "--trials", "20000", "--out"])
        .arg(&same)
        .arg(scenario("knights_vs_pikes.toml"))
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .success()
        .stdout(predicates::str::contains(": 0 of"))
        .stdout(predicates::str::contains(
            "Knights (attacker) won in 51.48% vs 51.48% of battles, the same in every battle †.",
        ));
}

#[test]
fn table_overrides_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let deck = dir.path().join("deck.toml");
    std::fs::write(
        &deck,
        warcrunch::tables::built_in_text("cards").replace(
            "row_order = \"attacker_defender\"",
            "row_order = \"defender_attacker\"",
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    warcrunch()
        .args([
            "run",
            "--quiet",
            "--trials",
            "20000",
            "--format",
            "csv,parquet,json",
            "--table",
        ])
        .arg(format!("cards={}", deck.display()))
        .arg("--out")
        .arg(&out)
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .success();
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    assert!(
        run["tables"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("deck.toml")
    );
    assert!(run["command"].as_str().unwrap().contains("--table cards="));
    let results: serde_json::Value =
        serde_json::from_str(&read(&out.join("results.json"))).unwrap();
    let csv_lines = read(&out.join("distributions.csv")).lines().count() - 1;
    assert_eq!(
        results["distributions"].as_array().unwrap().len(),
        csv_lines
    );
    assert_eq!(results["run"]["trials"], 20000);
    let parquet = std::fs::read(out.join("distributions.parquet")).unwrap();
    assert_eq!(&parquet[..4], b"PAR1");
    warcrunch()
        .args(["run", "--format", "xml"])
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "possible values: csv, parquet, json",
        ));
    warcrunch()
        .args(["run", "--table", "cards=/nonexistent/deck.toml", "--out"])
        .arg(dir.path().join("none"))
        .arg(scenario("knights_vs_pikes.toml"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("cannot read table file"));
    assert!(!dir.path().join("none").exists());
}

#[test]
fn two_decks_are_compared_scenario_by_scenario_and_swept() {
    let dir = tempfile::tempdir().unwrap();
    let deck = dir.path().join("deadly.toml");
    // Card 1's first row: every column destroys.
    let built_in = warcrunch::tables::built_in_text("cards");
    let first = built_in
        .lines()
        .find(|l| l.starts_with("sword_shield"))
        .unwrap();
    std::fs::write(
        &deck,
        built_in.replacen(first, "sword_shield   = \"D D D D D D D\"", 1),
    )
    .unwrap();
    let knights = scenario("knights_vs_pikes.toml");
    let out = dir.path().join("cmp");
    // One --table for every scenario would compare a deck with itself: refused.
    let refused = warcrunch()
        .args(["compare", "--trials", "20000", "--out"])
        .arg(&out)
        .args([&knights, &knights])
        .arg("--table")
        .arg(format!("cards={}", deck.display()))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("--table N:cards="), "{stderr}");
    assert!(!out.exists());
    warcrunch()
        .args(["compare", "--trials", "20000", "-q", "--out"])
        .arg(&out)
        .args([&knights, &knights])
        .arg("--table")
        .arg(format!("2:cards={}", deck.display()))
        .assert()
        .success();
    let attacker_won = |r: &&std::collections::BTreeMap<String, String>| {
        (
            r["subject"].as_str(),
            r["metric"].as_str(),
            r["value"].as_str(),
        ) == ("battle", "winner", "attacker")
            && r["test"] == "mcnemar"
    };
    let compared = csv_rows(&out.join("comparison.csv"));
    let won = compared
        .iter()
        .find(attacker_won)
        .expect("a paired row for the attacker winning");
    assert_eq!(won["method"], "paired_newcombe");
    assert_eq!(won["significant"], "true", "{won:?}");
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("run.json"))).unwrap();
    assert_eq!(json["scenarios"][0]["tables"][0]["source"], "built-in");
    assert_eq!(
        json["scenarios"][1]["tables"][0]["source"],
        deck.display().to_string()
    );
    // The same two decks as a sweep, on a scenario without [tables].
    let sweep = dir.path().join("sweep");
    warcrunch()
        .args(["sweep", "--trials", "20000", "-q", "--out"])
        .arg(&sweep)
        .arg(&knights)
        .arg("--set")
        .arg(format!("tables.cards=builtin,{}", deck.display()))
        .assert()
        .success();
    let swept = csv_rows(&sweep.join("comparison.csv"));
    let rows: Vec<_> = swept.iter().filter(attacker_won).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0]["difference"], won["difference"],
        "same difference as compare"
    );
}

/// Names come from users' files: every page escapes them, and no text a
/// user wrote becomes markup (the pages are templates escaped by default).
#[test]
fn names_with_markup_are_shown_as_text_on_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let text = read(&scenario("knights_vs_pikes.toml"))
        .replace(
            "name = \"Knights charge the pike square\"",
            "name = \"Knights <b>&</b> \\\"pikes\\\"\"",
        )
        .replace("name = \"Pikes\"", "name = \"<i>Pikes</i>\"");
    let file = dir.path().join("marked.toml");
    std::fs::write(&file, text).unwrap();
    let run = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--trials", "2000", "--out"])
        .arg(&run)
        .arg(&file)
        .assert()
        .success();
    let sweep = dir.path().join("sweep");
    warcrunch()
        .args(["sweep", "--quiet", "--trials", "2000", "--set"])
        .arg("attacker.melee=3,4")
        .arg("--out")
        .arg(&sweep)
        .arg(&file)
        .assert()
        .success();
    for page in [run.join("report.html"), sweep.join("report.html")] {
        // Read as text: without the places a line may break.
        let html = read(&page).replace("<wbr>", "");
        for raw in ["<b>", "</b>", "<i>", "</i>", "\"pikes\""] {
            assert!(!html.contains(raw), "{page:?} shows {raw:?} unescaped");
        }
        assert!(
            html.contains("<h1>Knights &#60;b&#62;&#38;&#60;/b&#62; &#34;pikes&#34;</h1>"),
            "{page:?} lacks the escaped title"
        );
        assert!(html.contains("&#60;i&#62;Pikes&#60;/i&#62;"), "{page:?}");
    }
}

/// A metric with a single value (nobody in the siege's party goes down)
/// draws one proper bar, and so does a comparison chart only one scenario
/// can fill (the ambush's Megalos are not in the siege): no SVG holds a
/// shape of negative width.
#[test]
fn a_single_value_draws_a_proper_bar() {
    let dir = tempfile::tempdir().unwrap();
    let siege = repo().join("scenarios/gurps/siege_assault.toml");
    let ambush = repo().join("scenarios/gurps/ambush_at_the_ford.toml");
    let run = dir.path().join("run");
    warcrunch()
        .args(["run", "--quiet", "--trials", "5000", "--out"])
        .arg(&run)
        .arg(&siege)
        .assert()
        .success();
    let single = read(&run.join("hist_party_down_or_dead.svg"));
    assert!(
        read(&run.join("distributions.csv")).contains("party,party,,down_or_dead,0,0,0,5000,1.0,"),
        "the party's count has one value"
    );
    assert!(single.contains("<title>The party — PCs down or dead †</title>"));
    assert!(single.contains("fill=\"#0072B2\""), "a bar is drawn");
    let compare = dir.path().join("compare");
    warcrunch()
        .args(["compare", "--quiet", "--trials", "5000", "--out"])
        .arg(&compare)
        .arg(&ambush)
        .arg(&siege)
        .assert()
        .success();
    for folder in [&run, &compare] {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "svg") {
                let svg = read(&path);
                assert!(
                    !svg.contains("width=\"-"),
                    "{}: a negative width",
                    path.display()
                );
            }
        }
    }
}

/// War-cards charts count engagements, as the console does, and say a unit
/// once: `exchanges fought`, never `exchanges fought, exchanges`.
#[test]
fn war_cards_charts_count_engagements_and_say_a_unit_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("knights");
    warcrunch()
        .args(["run", "--quiet", "--trials", "2000", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/war_cards/knights_vs_pikes.toml"))
        .assert()
        .success();
    let mut charts = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "svg") {
            continue;
        }
        let svg = read(&path);
        charts += 1;
        assert!(!svg.contains("battles"), "{}: says battles", path.display());
        assert!(
            !svg.contains("The battle"),
            "{}: says battle",
            path.display()
        );
        assert!(svg.contains("engagements"), "{}", path.display());
        assert!(
            !svg.contains("exchanges fought, exchanges"),
            "{}",
            path.display()
        );
    }
    assert!(charts >= 5, "{charts} charts");
    // The engagement's own outcomes are its subject, in titles and headings.
    let page = read(&out.join("report.html"));
    assert!(
        page.contains("The engagement — winner"),
        "the winner's title"
    );
    assert!(!page.contains("The battle"), "report.html says battle");
}

/// Issue 58, point 11: every number a person reads carries a true minus
/// (−), in the console, report.html and every chart: a variant's label
/// (`risk=−6`), a value (`−1`), an axis tick, a recommendation, the
/// stand-in rules. Only what is code keeps the hyphen-minus: a command line
/// to copy (`<code>`, `<pre>`) and the CSV.
#[test]
fn every_number_a_person_reads_has_a_true_minus() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = "scenarios/gurps/ambush_at_the_ford.toml".to_owned();
    let hollin = "scenarios/gurps/three_days_at_hollin.toml".to_owned();
    let asked: [(&str, Vec<String>); 4] = [
        (
            "sweep",
            vec![
                "sweep".into(),
                ambush.clone(),
                "--set".into(),
                "heroes.Ilsa.risk=-6..6:3".into(),
            ],
        ),
        ("run", vec!["run".into(), hollin]),
        (
            "sensitivity",
            vec![
                "sensitivity".into(),
                ambush.clone(),
                "--target".into(),
                "hero:Ilsa/reputation:mean".into(),
                "--knobs".into(),
                "heroes.Ilsa.risk".into(),
            ],
        ),
        // The tuned table's cells (margins of −2, −4, …) on its page.
        (
            "tune",
            vec![
                "tune".into(),
                ambush,
                "--goal".into(),
                "party/any_down_or_dead=yes <= 10%".into(),
                "--tables".into(),
                "survival".into(),
            ],
        ),
    ];
    // A sign: a hyphen-minus before a digit, at the start or after a
    // space, `(`, `=`, `,`, `:` or `/`.
    let sign = |text: &str| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        (0..chars.len())
            .filter(|&i| {
                chars[i] == '-'
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                    && (i == 0 || " \n(=,:/".contains(chars[i - 1]))
            })
            .map(|i| {
                chars[i.saturating_sub(40)..(i + 10).min(chars.len())]
                    .iter()
                    .collect()
            })
            .collect()
    };
    // A number in e notation (`8.42e-31`, `4.68e-3`): a p-value a person
    // reads is written `8.42 × 10⁻³¹` or `0.00468`.
    let e_notation = |text: &str| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        (1..chars.len().saturating_sub(2))
            .filter(|&i| {
                // A mantissa (`8.42`) standing alone before the `e`, not
                // the middle of a hash.
                let mut start = i;
                while start > 0 && (chars[start - 1].is_ascii_digit() || chars[start - 1] == '.') {
                    start -= 1;
                }
                let mantissa: String = chars[start..i].iter().collect();
                chars[i] == 'e'
                    && mantissa.contains('.')
                    && mantissa.starts_with(|c: char| c.is_ascii_digit())
                    && (start == 0 || !chars[start - 1].is_alphanumeric())
                    && (chars[i + 1] == '-' || chars[i + 1].is_ascii_digit())
            })
            .map(|i| {
                chars[i.saturating_sub(30)..(i + 6).min(chars.len())]
                    .iter()
                    .collect()
            })
            .collect()
    };
    // The words of a page or a chart: no tags, no code.
    let words = |markup: &str| words_read(markup, &[("<code", "</code>"), ("<pre", "</pre>")]);
    let mut found = Vec::new();
    let mut checked = 0;
    for (name, args) in asked {
        let out = dir.path().join(name);
        let done = warcrunch()
            .args(&args)
            .args(["--trials", "20000", "--out"])
            .arg(&out)
            .assert()
            .success();
        let console = String::from_utf8(done.get_output().stdout.clone()).unwrap();
        let console: String = console
            .lines()
            .filter(|l| !l.contains("warcrunch "))
            .collect::<Vec<_>>()
            .join("\n");
        found.extend(
            sign(&console)
                .into_iter()
                .chain(e_notation(&console))
                .map(|s| format!("{name} console: {s}")),
        );
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "html" || ext == "svg" {
                checked += 1;
                let shown = path.file_name().unwrap().to_string_lossy().into_owned();
                let read_words = words(&read(&path));
                found.extend(
                    sign(&read_words)
                        .into_iter()
                        .chain(e_notation(&read_words))
                        .map(|s| format!("{name}/{shown}: {s}")),
                );
            }
        }
    }
    assert!(checked > 20, "only {checked} pages and charts");
    assert!(
        found.is_empty(),
        "hyphen-minus as a sign, or e notation: {found:#?}"
    );
    // The sweep's five variants are named in its verdict, not compared in
    // words: that sentence was read too, and its p-values.
    let sweep = read(&dir.path().join("sweep/report.html"));
    assert!(sweep.contains(" × 10⁻"), "a p-value below 0.001 was read");
    assert!(
        sweep.contains("5 variants compared: risk=−6, risk=−3, risk=0"),
        "the sweep's verdict names its variants"
    );
}

/// One number, one way: in a run's report every count a person reads has
/// its thousands marked (`934,390`, as `1,000,000 battles` beside it), a
/// numeric outcome's standard deviation has its mean's decimals, and the
/// mean its chart's description reads aloud is the one its table shows.
#[test]
fn a_runs_counts_means_and_spreads_read_one_way() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    warcrunch()
        .args(["run", "--trials", "40000", "--quiet", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    // The words a person reads: no code, no tags, no attributes.
    let words = words_read(&html, &[("<code", "</code>"), ("<svg", "</svg>")]);
    // A whole number of four digits or more with no thousands mark, not
    // part of a word (a hash) nor after a decimal point.
    let unmarked: Vec<&str> = words
        .split(|c: char| c.is_whitespace() || "()–;:%".contains(c))
        .filter(|w| {
            let digits = w.trim_end_matches(['.', ',']);
            let whole = digits.split('.').next().unwrap_or("");
            !w.starts_with('.')
                && whole.len() >= 4
                && whole.chars().all(|c| c.is_ascii_digit())
                && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .collect();
    assert!(
        unmarked.is_empty(),
        "counts without thousands marks: {unmarked:?}"
    );
    let marked = html.split("<td>").skip(1).any(|cell| {
        let cell = cell.split('<').next().unwrap();
        cell.contains(',')
            && cell.split(',').skip(1).all(|group| group.len() == 3)
            && cell.chars().all(|c| c.is_ascii_digit() || c == ',')
    });
    assert!(
        marked,
        "the tables hold counts of thousands, so the test reads some"
    );
    // Each numeric outcome's table row: `14.5 (14.4–14.6), standard
    // deviation 9.6, …`; and its chart read aloud: `mean 14.5, median …`.
    let summaries: Vec<&str> = html
        .split("<td class=\"l\">mean</td><td colspan=\"3\">")
        .skip(1)
        .map(|rest| rest.split("</td>").next().unwrap())
        .collect();
    let spoken: Vec<&str> = html
        .split("aria-label=\"Histogram of ")
        .skip(1)
        .map(|rest| {
            rest.split(": mean ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
        })
        .collect();
    assert!(summaries.len() >= 3, "{} numeric outcomes", summaries.len());
    assert_eq!(summaries.len(), spoken.len(), "a chart for each table");
    let decimals = |x: &str| x.split('.').nth(1).map_or(0, str::len);
    for (summary, spoken) in summaries.iter().zip(&spoken) {
        let mean = summary.split(" (").next().unwrap();
        let sd = summary
            .split("standard deviation ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        assert_eq!(decimals(sd), decimals(mean), "{summary}");
        assert_eq!(
            mean, *spoken,
            "the chart reads aloud the table's mean: {summary}"
        );
    }
}

/// A sweep's Reputation reads as its table says: the recommendation's
/// sentence and the frontier's description give each variant's expected
/// Reputation as the frontier table shows it (`0.71`, not `+0.709` beside
/// it, nor `0.37` where the table says `0.371`).
#[test]
fn a_sweeps_reputation_reads_as_its_table_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    warcrunch()
        .args([
            "sweep",
            "--set",
            "heroes.Titus.risk=-6..6:3",
            "--trials",
            "20000",
        ])
        .args(["--quiet", "--out"])
        .arg(&out)
        .arg(repo().join("scenarios/gurps/ambush_at_the_ford.toml"))
        .assert()
        .success();
    let html = read(&out.join("report.html"));
    // The frontier table's rows: variant, P(out), its interval, Reputation.
    let frontier = html
        .split("<th>expected Reputation</th>")
        .nth(1)
        .expect("the frontier table")
        .split("</table>")
        .next()
        .unwrap();
    let rows: Vec<(String, String)> = frontier
        .split("<tr><td class=\"l\">risk=")
        .skip(1)
        .filter_map(|row| {
            let row = row.split("</tr>").next().unwrap();
            let cells: Vec<&str> = row
                .split("<td>")
                .skip(1)
                .map(|c| c.trim_end_matches("</td>"))
                .collect();
            let variant = format!("risk={}", row.split([' ', '<']).next().unwrap());
            (cells.len() == 4).then(|| (variant, cells[2].to_owned()))
        })
        .collect();
    assert_eq!(rows.len(), 5, "{rows:?}");
    for (variant, reputation) in &rows {
        let described = format!("{variant} P(down or dead) ");
        let at = html
            .find(&described)
            .unwrap_or_else(|| panic!("{described}"));
        let said = html[at..].split("expected Reputation ").nth(1).unwrap();
        let said = said.split([';', '.']).collect::<Vec<_>>();
        let said = format!("{}.{}", said[0], said[1]);
        assert!(
            said.starts_with(reputation.as_str())
                && !said[reputation.len()..].starts_with(|c: char| c.is_ascii_digit()),
            "{variant}: the description says {said}, the table {reputation}"
        );
    }
    let recommended = html
        .split("Recommended: ")
        .nth(1)
        .expect("a recommendation");
    let variant = recommended.split(',').next().unwrap();
    let said = recommended
        .split("expected Reputation (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let (_, shown) = rows
        .iter()
        .find(|(v, _)| v == variant)
        .expect("the variant's row");
    assert_eq!(said.trim_start_matches('+'), shown, "{variant}");
}

/// The words a person reads in `markup`: no tags, no style sheet, nothing
/// between each of `left_out`'s opening and closing tags (code, a chart).
pub(crate) fn words_read(markup: &str, left_out: &[(&str, &str)]) -> String {
    let mut text = markup.to_owned();
    for (open, close) in left_out.iter().chain(&[("<style", "</style>")]) {
        while let Some(start) = text.find(open) {
            let end = text[start..]
                .find(close)
                .map_or(text.len(), |e| start + e + close.len());
            text.replace_range(start..end, " ");
        }
    }
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The text of an SVG chart that runs off its picture: each `<text>`'s
/// extent, measured in the charts' own font (`draw::text_width`, at the
/// size the SVG's `font-size` was laid out at), along its direction (a
/// `rotate(270, …)` label runs up the picture) from its anchor.
fn clipped(svg: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next().map(str::to_owned)
    };
    let number = |tag: &str, name: &str| attr(tag, name).and_then(|v| v.parse::<f64>().ok());
    let head = svg.split('>').next().unwrap_or("");
    let (Some(width), Some(height)) = (number(head, "width"), number(head, "height")) else {
        return vec!["an SVG without its size".to_owned()];
    };
    let mut found = Vec::new();
    for piece in svg.split("<text").skip(1) {
        let Some((tag, rest)) = piece.split_once('>') else {
            continue;
        };
        let tag = format!(" {tag}");
        let text = rest.split("</text>").next().unwrap_or("").trim();
        let text = text
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&apos;", "'")
            .replace("&amp;", "&");
        if text.is_empty() {
            continue;
        }
        let (Some(x), Some(y), Some(size)) = (
            number(&tag, "x"),
            number(&tag, "y"),
            number(&tag, "font-size"),
        ) else {
            continue;
        };
        let w = f64::from(warcrunch::report::kit::draw::text_width(&text, size * 1.24).unwrap());
        let (from, to) = match attr(&tag, "text-anchor").as_deref() {
            Some("middle") => (-w / 2.0, w / 2.0),
            Some("end") => (-w, 0.0),
            _ => (0.0, w),
        };
        let upright = !tag.contains("rotate(270");
        let (lo, hi, room) = if upright {
            (x + from, x + to, width)
        } else {
            (y - to, y - from, height)
        };
        if lo < -1.0 || hi > room + 1.0 {
            found.push(format!("{text:?} spans {lo:.0}…{hi:.0} of 0…{room:.0}"));
        }
    }
    found
}

/// What a person reads of one question answered: its command, its
/// console output and the folder it wrote.
pub(crate) struct Answered {
    pub(crate) asked: String,
    pub(crate) console: String,
    pub(crate) out: std::path::PathBuf,
}

impl Answered {
    /// Each file the question wrote with `extension`, by name, with its text.
    fn files(&self, extension: &str) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = std::fs::read_dir(&self.out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(extension))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (format!("{} → {name}", self.asked), read(&p))
            })
            .collect();
        found.sort();
        found
    }
}

/// Every bundled battle run (with `--usage`), a run and a compare asked
/// for targets, a sweep, two compares, two sensitivities (table cells;
/// settings), two tunes (exact; sampled), a solve and a run of several
/// battles with exact odds, each on a few thousand battles, into `dir`.
pub(crate) fn every_kind_of_answer(dir: &std::path::Path) -> Vec<Answered> {
    let ambush = "scenarios/gurps/ambush_at_the_ford.toml";
    let mut asked: Vec<Vec<String>> = crate::util::bundled_scenarios()
        .iter()
        .map(|s| vec!["run".into(), s.display().to_string(), "--usage".into()])
        .collect();
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    // The ambush with Titus at Risk −2 and at +2.
    let text = read(&repo().join(ambush));
    let titus: Vec<String> = ["-2", "2"]
        .iter()
        .map(|risk| {
            let at = text.find("name = \"Titus\"").unwrap();
            let risk_at = at + text[at..].find("risk = 0").unwrap();
            let mut moved = text.clone();
            moved.replace_range(risk_at..risk_at + "risk = 0".len(), &format!("risk = {risk}"));
            let file = dir.join(format!("titus_risk_{risk}.toml"));
            std::fs::write(&file, moved).unwrap();
            file.display().to_string()
        })
        .collect();
    asked.extend([
        words(&[
            "sweep",
            ambush,
            "--set",
            "heroes.Brother Anselm.risk=-1..5:3",
        ]),
        words(&[
            "compare",
            ambush,
            "scenarios/gurps/three_days_at_hollin.toml",
        ]),
        words(&[
            "compare",
            "scenarios/seventh_sea/even_field_battle.toml",
            "scenarios/seventh_sea/officer_tips_the_balance.toml",
        ]),
        words(&[
            "sensitivity",
            ambush,
            "--target",
            "hero:Brother Anselm/state=down|dead",
            "--cells",
            "--tables",
            "survival",
        ]),
        // Settings of four digits (troop strengths) and a word (position).
        words(&[
            "sensitivity",
            ambush,
            "--target",
            "side:Megalos/victory=won",
            "--knobs",
            "sides.Megalos.troop_strength,sides.Raiders.troop_strength,sides.Raiders.position",
        ]),
        words(&[
            "run",
            ambush,
            "--target",
            "hero:Titus/state=dead",
            "--target",
            "side:Megalos/casualties_pct>=20",
        ]),
        words(&[
            "compare",
            &titus[0],
            &titus[1],
            "--name",
            "Titus Risk −2",
            "--name",
            "Titus Risk +2",
            "--target",
            "hero:Titus/state=dead",
            "--target",
            "party/any_dead=yes",
        ]),
        // Exact odds in the search; sampled battles and the race.
        words(&[
            "tune",
            ambush,
            "--goal",
            "party/any_down_or_dead=yes <= 10%",
            "--goal",
            "hero:Varro/state=dead <= 0.5%",
            "--tables",
            "survival",
        ]),
        words(&[
            "tune",
            "scenarios/seventh_sea/even_field_battle.toml",
            "--goal",
            "hero:Isabeau/state=knocked_out <= 45%",
            "--goal",
            "hero:Isabeau/reputation:mean >= 9",
            "--tables",
            "battle_chart",
        ]),
    ]);
    for args in &mut asked {
        args.extend(words(&["--trials", "3000"]));
    }
    let mut solve = words(&["solve", ambush]);
    solve.extend(words(&crate::util::AMBUSH_FAIR_FIGHT));
    solve.extend(words(&["--precision", "0.02", "--max-trials", "3000"]));
    asked.push(solve);
    // Several battles run at once with their exact odds (one folder each
    // and one table of them all).
    asked.push(words(&[
        "run",
        "scenarios/gurps",
        "scenarios/war_cards",
        "--exact",
        "--trials",
        "3000",
    ]));
    asked
        .iter()
        .enumerate()
        .map(|(i, args)| {
            let out = dir.join(i.to_string());
            let done = warcrunch()
                .args(args)
                .arg("--out")
                .arg(&out)
                .assert()
                .success();
            Answered {
                asked: args[..args.len().min(2)].join(" "),
                console: String::from_utf8(done.get_output().stdout.clone()).unwrap(),
                out,
            }
        })
        .collect()
}

/// Issue 58, points 8 and 11: no chart's text runs off its picture (a
/// compare's, a sweep's, the tornado's and the solve's titles, a usage
/// map's, every run chart of every bundled battle), and no page, chart or
/// console line carries an invisible word joiner (U+2060), which a pasted
/// sentence would carry along.
#[test]
fn no_chart_text_runs_off_its_picture_and_no_text_hides_a_character() {
    let dir = tempfile::tempdir().unwrap();
    let (mut found, mut charts) = (Vec::new(), 0);
    for answered in every_kind_of_answer(dir.path()) {
        if answered.console.contains('\u{2060}') {
            found.push(format!("{}: the console has U+2060", answered.asked));
        }
        for (name, svg) in answered.files("svg") {
            charts += 1;
            found.extend(clipped(&svg).into_iter().map(|c| format!("{name}: {c}")));
            if svg.contains('\u{2060}') {
                found.push(format!("{name}: U+2060"));
            }
        }
        for (name, html) in answered.files("html") {
            if html.contains('\u{2060}') {
                found.push(format!("{name}: U+2060"));
            }
        }
    }
    assert!(charts > 100, "only {charts} charts");
    assert!(found.is_empty(), "{found:#?}");
}

/// Every row of a page's tables of significant differences and every
/// significant test the console lists, read back against the
/// `comparison.csv` beside them: the row's shares, change, interval and
/// p-value are what the formatters write of the CSV's numbers
/// (`format::percent`, `format::change` or its cells from
/// `format::with_interval`, `format_p`). How many were read, and each
/// that disagrees.
fn significance_read_back(answered: &Answered) -> (usize, Vec<String>) {
    use warcrunch::stats::compare::format_p;
    use warcrunch::stats::format::{change, percent, signed, with_interval};
    let path = answered.out.join("comparison.csv");
    if !path.exists() {
        return (0, Vec::new());
    }
    let rows = csv_rows(&path);
    let number = |r: &std::collections::BTreeMap<String, String>, key: &str| -> f64 {
        r[key].parse().unwrap_or(f64::NAN)
    };
    // The outcome as a page names a test (`Difference::outcome`).
    let outcome = |r: &std::collections::BTreeMap<String, String>| match r["test"].as_str() {
        "chi_square" => format!("{}/{} (whole distribution)", r["subject"], r["metric"]),
        "welch_t" => format!("{}/{} (mean)", r["subject"], r["metric"]),
        _ if r["value"].is_empty() => format!("{}/{} = {}", r["subject"], r["metric"], r["scope"]),
        _ => format!("{}/{} = {}", r["subject"], r["metric"], r["value"]),
    };
    // What the formatters write of a row: its six cells, and its console line.
    let expected = |r: &std::collections::BTreeMap<String, String>| -> ([String; 6], String) {
        let p = format_p(number(r, "p_value"));
        if r["test"] == "chi_square" {
            let line = format!(
                "{}: chi-square {:.1}, p {p}",
                outcome(r),
                number(r, "statistic")
            );
            let dash = "\u{2013}".to_owned();
            return (
                [
                    outcome(r),
                    dash.clone(),
                    dash.clone(),
                    dash.clone(),
                    dash,
                    p,
                ],
                line,
            );
        }
        let share = matches!(r["test"].as_str(), "mcnemar" | "two_proportion_z");
        let (scale, unit) = if share { (100.0, " pt") } else { (1.0, "") };
        let shown = |x: f64| {
            if share {
                percent(x)
            } else {
                signed(x, 3, false)
            }
        };
        let (d, lo, hi) = (
            number(r, "difference"),
            number(r, "ci_low"),
            number(r, "ci_high"),
        );
        let [d_, lo_, hi_] = with_interval(scale * d, (scale * lo, scale * hi), true);
        let line = format!(
            "{}: {}, p {p}",
            outcome(r),
            change(scale * d, (scale * lo, scale * hi), unit)
        );
        let cells = [
            outcome(r),
            shown(number(r, "baseline_estimate")),
            shown(number(r, "estimate")),
            format!("{d_}{unit}"),
            format!("{lo_} to {hi_}"),
            p,
        ];
        (cells, line)
    };
    let row_of = |variant: &str, named: &str| {
        rows.iter()
            .find(|r| r["variant"] == variant && r["significant"] == "true" && outcome(r) == named)
    };
    let plain = |markup: &str| {
        words_read(markup, &[])
            .replace("&#60;", "<")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (mut read_back, mut found) = (0, Vec::new());
    // The page: each `<h3>` naming a variant against the baseline, then its table.
    for (name, html) in answered.files("html") {
        for section in html.split("<h3>").skip(1) {
            let heading = plain(&section[..section.find("</h3>").unwrap_or(0)]);
            let Some((variant, _)) = heading.split_once(" against ") else {
                continue;
            };
            let variant = variant.replace('\u{2212}', "-");
            let Some(table) = section
                .split("</table>")
                .next()
                .filter(|t| t.contains("<th>p-value</th>"))
            else {
                continue;
            };
            for row in table.split("<tr>").filter(|r| r.starts_with("<td")) {
                let cells: Vec<String> = row
                    .split("</td>")
                    .map(plain)
                    .filter(|c| !c.is_empty())
                    .collect();
                read_back += 1;
                match row_of(&variant, &cells[0]) {
                    Some(r) if expected(r).0.as_slice() == cells.as_slice() => {}
                    Some(r) => found.push(format!(
                        "{name}: {variant}: {cells:?}, the CSV's {:?}",
                        expected(r).0
                    )),
                    None => found.push(format!(
                        "{name}: {variant}: no significant row in comparison.csv for {cells:?}"
                    )),
                }
            }
        }
    }
    // The console: a variant's heading, then its tests, indented.
    let mut variant = None;
    for line in answered.console.lines() {
        if let Some((v, _)) = line
            .split_once(" against ")
            .filter(|_| !line.starts_with(' '))
        {
            variant = Some(v.replace('\u{2212}', "-"));
        } else if let (Some(v), Some(test)) = (&variant, line.strip_prefix("  ")) {
            let Some((named, _)) = test.split_once(": ").filter(|_| test.contains(", p ")) else {
                continue;
            };
            read_back += 1;
            match row_of(v, named) {
                Some(r) if expected(r).1 == test => {}
                Some(r) => found.push(format!(
                    "console: {v}: {test:?}, the CSV's {:?}",
                    expected(r).1
                )),
                None => found.push(format!(
                    "console: {v}: no significant row in comparison.csv for {test:?}"
                )),
            }
        }
    }
    (read_back, found)
}

/// Issue 58, point 9: a chart met on its own says where it comes from and
/// what its mark means. Every chart of every kind of answer carries its
/// source line (`warcrunch VERSION · seed N`, as `run.json` records them);
/// every chart whose title is marked † says on the chart what the mark
/// means; a sweep's and a comparison's stacked bars carry their shares,
/// each one the chart's description gives.
#[test]
fn every_chart_says_where_it_comes_from_what_its_mark_means_and_a_stack_its_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (mut charts, mut marked, mut shares) = (0, 0, 0);
    let mut found = Vec::new();
    let between = |text: &str, open: &str, close: &str| -> String {
        text.split_once(open)
            .and_then(|(_, rest)| rest.split_once(close))
            .map_or(String::new(), |(inside, _)| inside.to_owned())
    };
    for answered in every_kind_of_answer(dir.path()) {
        let run: serde_json::Value =
            serde_json::from_str(&read(&answered.out.join("run.json"))).unwrap();
        let source = format!(
            "warcrunch {} · seed {}",
            run["tool_version"].as_str().unwrap(),
            run["seed"]
        );
        for (name, svg) in answered.files("svg") {
            charts += 1;
            let texts: Vec<String> = (svg.split("<text").skip(1))
                .map(|t| between(t, ">", "</text>"))
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
            if !texts.contains(&source) {
                found.push(format!("{name}: no source line {source:?}"));
            }
            if between(&svg, "<title>", "</title>").contains('†') {
                marked += 1;
                if !texts.iter().any(|t| t.starts_with("† rests on ")) {
                    found.push(format!("{name}: marked †, and nothing says what it means"));
                }
            }
            if name.contains("→ compare_") {
                let description = between(&svg, "<desc>", "</desc>");
                let labels: Vec<&String> = texts
                    .iter()
                    .filter(|t| t.ends_with('%') && t[..t.len() - 1].parse::<f64>().is_ok())
                    .collect();
                if labels.is_empty() {
                    found.push(format!("{name}: no share on its bars"));
                }
                for label in labels {
                    shares += 1;
                    if !description.contains(&format!(" {label}")) {
                        found.push(format!("{name}: {label} is no share of its description"));
                    }
                }
            }
        }
    }
    assert!(
        charts > 100 && marked > 30 && shares > 30,
        "{charts} charts, {marked} marked, {shares} shares"
    );
    assert!(found.is_empty(), "{found:#?}");
}

/// Each probability written with its interval in `text`: in a sentence
/// (`56.45% (55.76%–57.14%)`, or `(55.76% to 57.14%)`), or in a table's
/// cells, the estimate's cell followed by the interval's (`56.45%`
/// `55.76%–57.14%`, a page's text read with a space for each tag): its
/// three numbers as probabilities, and the three as written.
fn probability_intervals(text: &str) -> Vec<([f64; 3], [String; 3])> {
    let number_before = |end: usize| {
        let start = (text[..end].char_indices().rev())
            .find(|&(_, c)| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        &text[start..end]
    };
    let number_after = |start: usize| {
        let end = text[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(text.len(), |i| start + i);
        (&text[start..end], end)
    };
    let mut found = Vec::new();
    for (at, _) in text.match_indices('%') {
        let p = number_before(at);
        let after = &text[at + 1..];
        // In a sentence, in parentheses; in a table, the next cell.
        let (opened, low_at) = if let Some(rest) = after.strip_prefix(" (") {
            (true, text.len() - rest.len())
        } else {
            let rest = after.trim_start_matches([' ', '\n']);
            if rest.len() == after.len() || !after.starts_with(' ') {
                continue;
            }
            (false, text.len() - rest.len())
        };
        let (low, after_low) = number_after(low_at);
        // Written with an en dash, or (the style a probability never
        // takes) with "to".
        let Some(rest) = (text[after_low..].strip_prefix("%–"))
            .or_else(|| text[after_low..].strip_prefix("% to "))
        else {
            continue;
        };
        let high_at = text.len() - rest.len();
        let (high, after_high) = number_after(high_at);
        // Closed as it opened; a cell's range ends the cell, no digit runs on.
        let closed = if opened {
            text[after_high..].starts_with("%)")
        } else {
            text[after_high..]
                .strip_prefix('%')
                .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
        };
        if !closed || [p, low, high].iter().any(|n| n.is_empty()) {
            continue;
        }
        let parsed = [p, low, high].map(|n| n.parse::<f64>().unwrap() / 100.0);
        found.push((parsed, [p, low, high].map(|n| format!("{n}%"))));
    }
    found
}

/// Each number written with its interval in `text` that is no
/// percentage (a mean, a change: `7.34 (7.30–7.37)`, `−0.5 (−0.7 to
/// −0.3)`, `+0.12 (0.10 to 0.14)`), as written, where it breaks the one
/// style `format::estimate` and `format::change` write: the three with as
/// many decimals, and `to` between the ends exactly where the number is a
/// signed change or an end is negative (an en dash otherwise).
fn off_style_intervals(text: &str) -> (usize, Vec<String>) {
    let chars: Vec<char> = text.chars().collect();
    let is_number = |c: char| c.is_ascii_digit() || c == '.';
    // A signed or unsigned number starting at `i`: its text and end.
    let number_at = |i: usize| -> Option<(String, usize)> {
        let mut j = i;
        if chars.get(j).is_some_and(|&c| c == '\u{2212}' || c == '+') {
            j += 1;
        }
        let digits = j;
        while chars.get(j).copied().is_some_and(is_number) {
            j += 1;
        }
        (j > digits && chars[digits].is_ascii_digit()).then(|| (chars[i..j].iter().collect(), j))
    };
    let decimals = |n: &str| n.split_once('.').map_or(0, |(_, d)| d.len());
    let (mut checked, mut found) = (0, Vec::new());
    for open in (0..chars.len()).filter(|&i| chars[i] == '(') {
        // The number before ` (`.
        if open < 2 || chars[open - 1] != ' ' {
            continue;
        }
        let mut start = open - 1;
        while start > 0 && (is_number(chars[start - 1]) || "\u{2212}+".contains(chars[start - 1])) {
            start -= 1;
        }
        if start > 0 && (chars[start - 1].is_alphanumeric() || "_=:/".contains(chars[start - 1])) {
            continue;
        }
        let Some((x, x_end)) = number_at(start) else {
            continue;
        };
        if x_end != open - 1 {
            continue;
        }
        let Some((low, low_end)) = number_at(open + 1) else {
            continue;
        };
        let rest: String = chars[low_end..(low_end + 4).min(chars.len())]
            .iter()
            .collect();
        let (dash, high_at) = if rest.starts_with('\u{2013}') {
            (true, low_end + 1)
        } else if rest.starts_with(" to ") {
            (false, low_end + 4)
        } else {
            continue;
        };
        let Some((high, high_end)) = number_at(high_at) else {
            continue;
        };
        if chars.get(high_end) != Some(&')') {
            continue;
        }
        let written: String = chars[start..=high_end].iter().collect();
        checked += 1;
        let to_wanted = x.starts_with('+') || low.starts_with('\u{2212}');
        let alike = decimals(&x) == decimals(&low) && decimals(&low) == decimals(&high);
        if dash == to_wanted || !alike {
            found.push(written);
        }
    }
    (checked, found)
}

/// [`off_style_intervals`] for a table's cells, read with a space for each
/// tag: a mean or a change in one cell and its interval bare in the next
/// (`0.69` `0.67–0.71`; `−38.5 pt` `−40.4 to −36.7`), held to the same
/// style. How many were read, and each written out of it.
fn off_style_cells(text: &str) -> (usize, Vec<String>) {
    // Words with where each starts and ends, in characters.
    let chars: Vec<char> = text.chars().collect();
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() {
            i += 1;
        }
        words.push((start, i));
    }
    let word = |k: usize| -> String {
        words
            .get(k)
            .map_or(String::new(), |&(a, b)| chars[a..b].iter().collect())
    };
    let is_number = |w: &str| {
        let digits = w.trim_start_matches(['\u{2212}', '+']);
        !digits.is_empty()
            && digits.starts_with(|c: char| c.is_ascii_digit())
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
    };
    let decimals = |n: &str| n.split_once('.').map_or(0, |(_, d)| d.len());
    let (mut checked, mut found) = (0, Vec::new());
    for k in 0..words.len() {
        let x = word(k);
        if !is_number(&x) {
            continue;
        }
        // A change's unit stays in its cell.
        let unit = usize::from(word(k + 1) == "pt");
        let next = k + 1 + unit;
        let Some(&(range_start, _)) = words.get(next) else {
            continue;
        };
        // The next cell: two spaces or more (a tag's and the text's).
        let gap = range_start - words[next - 1].1;
        if gap < 2 {
            continue;
        }
        let first = word(next);
        let (low, high, dash, last) = match first.split_once('\u{2013}') {
            Some((low, high)) => (low.to_owned(), high.to_owned(), true, next),
            None if word(next + 1) == "to" => (first.clone(), word(next + 2), false, next + 2),
            None => continue,
        };
        if !is_number(&low) || !is_number(&high) {
            continue;
        }
        checked += 1;
        let to_wanted = x.starts_with('+') || low.starts_with('\u{2212}');
        let alike = decimals(&x) == decimals(&low) && decimals(&low) == decimals(&high);
        if dash == to_wanted || !alike {
            found.push(chars[words[k].0..words[last].1].iter().collect());
        }
    }
    (checked, found)
}

/// A whole number of four digits or more written without its thousands
/// marked, where it stands as a number (not inside a name, a path, a hash
/// or a setting's value such as `troop_strength=1000`).
fn unmarked_counts(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let part_of_name = |c: char| c.is_alphanumeric() || "_.=-−:/#,'@+".contains(c);
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let before = start.checked_sub(1).map(|b| chars[b]);
        let after = chars.get(i).copied();
        let decimal = after == Some('.') && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let standing = !before.is_some_and(part_of_name)
            && !decimal
            && !after.is_some_and(|c| c.is_alphanumeric() || "_=%/#".contains(c));
        // A seed is a name to type back (`--seed 11400714819323198492`),
        // not a count: it is written as the option takes it.
        let words_before: String = chars[start.saturating_sub(12)..start].iter().collect();
        let seed = words_before.trim_end().ends_with("seed");
        if i - start >= 4 && standing && !seed {
            found.push(
                chars[start.saturating_sub(30)..(i + 10).min(chars.len())]
                    .iter()
                    .collect(),
            );
        }
    }
    found
}

/// The readers of rendered numbers find what they look for, and only that.
#[test]
fn the_number_readers_tell_the_one_style_from_others() {
    let (checked, off) = off_style_intervals(
        "mean 7.34 (7.30–7.37); −0.5 (−0.7 to −0.3); +0.12 (0.10 to 0.14); \
         7.34 (7.3–7.37); +0.12 (0.10–0.14); 0.5 (0.3 to 0.7); risk=1 (2–3)",
    );
    assert_eq!(checked, 6);
    assert_eq!(
        off,
        ["7.34 (7.3–7.37)", "+0.12 (0.10–0.14)", "0.5 (0.3 to 0.7)"]
    );
    let (checked, off) = off_style_cells(
        " 0.69  0.67–0.71  −38.5 pt  −40.4 to −36.7  +13.9 pt  12.0 to 15.7 \
         0.7  0.67–0.71  −0.5  −0.7–−0.3  7.34 (7.30–7.37) 3  1–3 ",
    );
    assert_eq!(checked, 6);
    assert_eq!(off, ["0.7  0.67–0.71", "−0.5  −0.7–−0.3"]);
    let read = probability_intervals(
        "won 56.45% (55.76%–57.14%), at 1 2.0% (1.5% to 2.5%) <td> 12.5%  10.1%–15.0% </td> 3% 4%–5%6",
    );
    let written: Vec<_> = read.iter().map(|(_, w)| w.join(" ")).collect();
    assert_eq!(
        written,
        [
            "56.45% 55.76% 57.14%",
            "2.0% 1.5% 2.5%",
            "12.5% 10.1% 15.0%"
        ]
    );
    assert_eq!(read[2].0, [12.5 / 100.0, 10.1 / 100.0, 15.0 / 100.0]);
    assert_eq!(
        unmarked_counts(
            "12,000 battles, 1600 troops, troop_strength=1600, 12.5000, seed 7, seed 11400714819323198492"
        ),
        ["12,000 battles, 1600 troops, t"]
    );
}

/// Issue 58, point 10: the numbers a person reads are written by the one
/// formatter. Read back from the console, every page and every chart of
/// every kind of answer, each probability with its interval, in a sentence
/// or in a table's two cells, is what `format::percent_interval` writes of
/// its own three numbers; every whole number of a thousand or more has its
/// thousands marked; every mean and change with its interval keeps the one
/// style; and every significant difference, in a page's table or the
/// console, is the formatters' of its row in `comparison.csv`, p-value
/// included.
#[test]
fn every_probability_and_count_read_is_the_formatters() {
    use warcrunch::stats::format::percent_interval;
    let dir = tempfile::tempdir().unwrap();
    let (mut found, mut read_back, mut styled, mut significant) = (Vec::new(), 0, 0, 0);
    let words = |markup: &str| words_read(markup, &[("<code", "</code>"), ("<pre", "</pre>")]);
    for answered in every_kind_of_answer(dir.path()) {
        let (read, disagree) = significance_read_back(&answered);
        significant += read;
        found.extend(disagree);
        let console: String = (answered.console.lines())
            .filter(|l| !l.contains("warcrunch ") && !l.starts_with("Wrote "))
            .collect::<Vec<_>>()
            .join("\n");
        let mut texts = vec![(format!("{}: console", answered.asked), console)];
        for ext in ["html", "svg"] {
            texts.extend(answered.files(ext).into_iter().map(|(n, t)| (n, words(&t))));
        }
        for (name, text) in texts {
            for ([p, low, high], written) in probability_intervals(&text) {
                read_back += 1;
                let formatted = percent_interval(p, low, high);
                if formatted != written {
                    found.push(format!(
                        "{name}: {written:?}, the formatter writes {formatted:?}"
                    ));
                }
            }
            found.extend(
                unmarked_counts(&text)
                    .into_iter()
                    .map(|c| format!("{name}: a count unmarked: {c:?}")),
            );
            let (checked, mut off_style) = off_style_intervals(&text);
            styled += checked;
            let (cells, off_cells) = off_style_cells(&text);
            styled += cells;
            off_style.extend(off_cells);
            found.extend(
                off_style
                    .into_iter()
                    .map(|w| format!("{name}: an interval off the style: {w:?}")),
            );
        }
    }
    assert!(read_back > 300, "only {read_back} probabilities read back");
    assert!(styled > 100, "only {styled} means and changes read");
    eprintln!(
        "read back: {read_back} probabilities with their intervals, {significant} significant tests; {styled} means and changes in style"
    );
    assert!(
        significant > 30,
        "only {significant} significant tests read back"
    );
    assert!(found.is_empty(), "{found:#?}");
}
