//! Doors that used to let a wrong answer through without a word, tried as a
//! user would: a second question replacing the first, a side's outcome
//! unnamed, a generated line quoted, an interval that answers nothing, a
//! comparison that skipped a metric, a PC that is not there, a move the
//! exact method cannot follow.

use std::path::{Path, PathBuf};

use crate::util::{read, repo};

const AMBUSH: &str = "scenarios/gurps/ambush_at_the_ford.toml";
const EVEN_FIELD: &str = "scenarios/seventh_sea/even_field_battle.toml";

/// `warcrunch ARGS` in `dir` (scenario paths absolute): its stdout, or its
/// stderr when it must fail.
fn warcrunch_in(dir: &Path, args: &[&str], succeed: bool) -> String {
    let mut command = crate::util::warcrunch();
    command.current_dir(dir).args(args);
    let output = if succeed {
        command.assert().success()
    } else {
        command.assert().failure()
    }
    .get_output()
    .clone();
    String::from_utf8_lossy(if succeed {
        &output.stdout
    } else {
        &output.stderr
    })
    .into_owned()
}

fn bundled(path: &str) -> String {
    repo().join(path).display().to_string()
}

/// The folders under `dir/reports`.
fn report_folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("reports"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_second_question_lands_in_its_own_folder_and_the_same_one_replaces_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = bundled(AMBUSH);
    let sweep = |set: &str| {
        warcrunch_in(
            dir.path(),
            &[
                "sweep", &ambush, "--set", set, "--trials", "2000", "--quiet",
            ],
            true,
        )
    };
    sweep("heroes.Titus.risk=-1..1");
    sweep("sides.Raiders.troop_strength=700,900");
    let first = "ambush_at_the_ford.sweep.heroes.Titus.risk";
    let second = "ambush_at_the_ford.sweep.sides.Raiders.troop_strength";
    assert_eq!(report_folders(dir.path()), [first, second]);
    let variants = |name: &str| read(&dir.path().join("reports").join(name).join("run.json"));
    assert!(variants(first).contains("risk=-1"));
    assert!(variants(second).contains("troop_strength=700"));
    // The same question again replaces its own folder only.
    sweep("heroes.Titus.risk=0..2");
    assert_eq!(report_folders(dir.path()), [first, second]);
    assert!(variants(first).contains("risk=2"));
    // Solve and sensitivity name their question too.
    warcrunch_in(
        dir.path(),
        &[
            "solve",
            &ambush,
            "--vary",
            "sides.Raiders.troop_strength=200..3000",
            "--target",
            "side:Megalos/victory=won",
            "--equals",
            "0.5",
            "--exact",
            "--quiet",
        ],
        true,
    );
    warcrunch_in(
        dir.path(),
        &[
            "sensitivity",
            &ambush,
            "--target",
            "party/any_down_or_dead=yes",
            "--knobs",
            "heroes.Titus.risk",
            "--exact",
            "--quiet",
        ],
        true,
    );
    let folders = report_folders(dir.path());
    assert!(
        folders.contains(
            &"ambush_at_the_ford.solve.sides.Raiders.troop_strength+side_Megalos_victory_won"
                .to_owned()
        ),
        "{folders:?}"
    );
    assert!(
        folders.contains(
            &"ambush_at_the_ford.sensitivity.party_any_down_or_dead_yes+heroes.Titus.risk"
                .to_owned()
        ),
        "{folders:?}"
    );
}

#[test]
fn sweep_rows_name_the_side_whose_outcome_they_show() {
    let dir = tempfile::tempdir().unwrap();
    let out = warcrunch_in(
        dir.path(),
        &[
            "sweep",
            &bundled(AMBUSH),
            "--set",
            "heroes.Titus.risk=-1..0",
            "--trials",
            "2000",
            "--out",
            "s",
        ],
        true,
    );
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("risk="))
        .take(2)
        .collect();
    assert!(rows.iter().all(|r| r.contains("Megalos won ")), "{rows:?}");
    let run = warcrunch_in(
        dir.path(),
        &["run", &bundled(AMBUSH), "--trials", "2000", "--out", "r"],
        true,
    );
    assert!(run.contains("side:Megalos/victory: won "), "{run}");
    let report = read(&dir.path().join("r/report.html"));
    assert!(
        report.contains("Megalos won "),
        "the verdict names the side"
    );
    assert!(
        !report.contains(" wins "),
        "no verb to agree with a plural name"
    );
}

#[test]
fn an_unknown_key_in_a_list_element_names_the_option_not_a_generated_line() {
    let dir = tempfile::tempdir().unwrap();
    let err = warcrunch_in(
        dir.path(),
        &[
            "sweep",
            &bundled(AMBUSH),
            "--set",
            "sides.Raiders.troops=1000",
            "--trials",
            "1000",
        ],
        false,
    );
    assert!(err.contains("--set sides.Raiders.troops=1000"), "{err}");
    assert!(err.contains("unknown field `troops`"), "{err}");
    assert!(err.contains("`troop_strength`"), "the allowed keys: {err}");
    assert!(!err.contains("TOML parse error"), "{err}");
    assert!(!err.contains(" | "), "no quoted generated line: {err}");
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn a_precision_that_cannot_answer_anything_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["run", AMBUSH, "--precision", "0.5"],
        vec![
            "solve",
            AMBUSH,
            "--vary",
            "sides.Raiders.troop_strength=200..3000",
            "--target",
            "side:Megalos/victory=won",
            "--equals",
            "0.5",
            "--precision",
            "0.25",
        ],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.ends_with(".toml") {
                    bundled(a)
                } else {
                    (*a).to_owned()
                }
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = warcrunch_in(dir.path(), &args, false);
        assert!(
            err.contains("--precision =") && err.contains("allowed: a half-width from 1e-9 to 0.2"),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn a_recommendation_for_a_pc_who_is_not_there_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = warcrunch_in(
        dir.path(),
        &[
            "sweep",
            &bundled(AMBUSH),
            "--set",
            "heroes.Titus.risk=-1..1",
            "--recommend-for",
            "Sir Aldric",
        ],
        false,
    );
    assert!(
        err.contains("--recommend-for Sir Aldric")
            && err.contains("allowed: Titus, Varro, Ilsa, Brother Anselm"),
        "{err}"
    );
    assert!(!dir.path().join("reports").exists());
}

/// The even field's Spoils table with a sixth row, as a designer wrote it.
fn six_row_spoils(dir: &Path) -> PathBuf {
    let shipped = read(&repo().join("scenarios/tables/seventh_sea/spoils.toml"));
    let six = shipped.replace(
        "  { min_roll = 11, label = \"noble_prisoner\" },",
        "  { min_roll = 11, label = \"noble_prisoner\" },\n  { min_roll = 12, label = \"royal_ransom\" },",
    );
    let six = six.replace(
        "{ min_roll = 1,  label = \"nothing\" },",
        "{ min_roll = 1,  label = \"nothing\" },\n  { min_roll = 3,  label = \"scraps\" },",
    );
    assert_ne!(six, shipped);
    let path = dir.join("my_spoils.toml");
    std::fs::write(&path, six).unwrap();
    path
}

#[test]
fn compare_tests_a_spoils_row_only_one_table_has() {
    let dir = tempfile::tempdir().unwrap();
    let spoils = six_row_spoils(dir.path());
    let even = bundled(EVEN_FIELD);
    let table = format!("2:spoils={}", spoils.display());
    let out = warcrunch_in(
        dir.path(),
        &[
            "compare", &even, &even, "--table", &table, "--trials", "20000", "--out", "c",
        ],
        true,
    );
    assert!(!out.contains("No significant difference"), "{out}");
    let csv = read(&dir.path().join("c/comparison.csv"));
    assert!(
        csv.lines()
            .any(|l| l.contains("hero:Isabeau") && l.contains(",spoils,value,scraps,")),
        "the new row is tested: {csv}"
    );
    let significant = out
        .lines()
        .find(|l| l.contains("tests significant"))
        .unwrap_or_default()
        .to_owned();
    assert!(!significant.starts_with("0 of"), "{significant}");
    assert!(
        out.contains("spoils = nothing") || out.contains("spoils = scraps"),
        "{out}"
    );
}

#[test]
fn sensitivity_exact_computes_what_it_can_and_simulates_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    warcrunch_in(
        dir.path(),
        &[
            "sensitivity",
            &bundled(AMBUSH),
            "--target",
            "party/any_down_or_dead=yes",
            "--knobs",
            "days,heroes.Titus.risk",
            "--exact",
            "--trials",
            "20000",
            "--out",
            "s",
        ],
        true,
    );
    let csv = read(&dir.path().join("s/sensitivity.csv"));
    let row = |knob: &str, to: &str| {
        csv.lines()
            .find(|l| l.starts_with(&format!("{knob},")) && l.contains(&format!(",{to},")))
            .unwrap_or_else(|| panic!("no row {knob} -> {to} in {csv}"))
            .to_owned()
    };
    assert!(row("days", "2").contains("paired_newcombe"), "{csv}");
    assert!(row("heroes.Titus.risk", "1").contains("exact"), "{csv}");
    let info = read(&dir.path().join("s/run.json"));
    assert!(info.contains("\"trials\": 20000"), "{info}");
}

/// An SVG's `<NAME …>` elements: each one's attributes and text content.
fn svg_elements(svg: &str, name: &str) -> Vec<(Vec<(String, String)>, String)> {
    svg.split(&format!("<{name} "))
        .skip(1)
        .map(|chunk| {
            let (tag, rest) = chunk.split_once('>').unwrap();
            let attributes = tag
                .split('"')
                .collect::<Vec<_>>()
                .chunks(2)
                .filter_map(|pair| match pair {
                    [key, value] => Some((
                        key.trim().trim_end_matches('=').to_owned(),
                        (*value).to_owned(),
                    )),
                    _ => None,
                })
                .collect();
            let content = rest.split(&format!("</{name}>")).next().unwrap_or("");
            (attributes, content.trim().to_owned())
        })
        .collect()
}

/// An attribute of an element from [`svg_elements`], as a number.
fn number(attributes: &[(String, String)], key: &str) -> f64 {
    attributes
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// An SVG's `<text>` elements: x, y, font size, upright, content.
fn svg_texts(svg: &str) -> Vec<(f64, f64, f64, bool, String)> {
    svg_elements(svg, "text")
        .into_iter()
        .map(|(a, content)| {
            let upright = a
                .iter()
                .any(|(k, v)| k == "transform" && v.contains("rotate(90"));
            (
                number(&a, "x"),
                number(&a, "y"),
                number(&a, "font-size"),
                upright,
                content,
            )
        })
        .collect()
}

/// An SVG's `<rect>` elements: x, y, width, height, fill.
fn svg_rects(svg: &str) -> Vec<(f64, f64, f64, f64, String)> {
    svg_elements(svg, "rect")
        .into_iter()
        .map(|(a, _)| {
            let fill = a
                .iter()
                .find(|(k, _)| k == "fill")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            (
                number(&a, "x"),
                number(&a, "y"),
                number(&a, "width"),
                number(&a, "height"),
                fill,
            )
        })
        .collect()
}

/// Every comparison chart of a sweep of `variants` variants draws a bar of
/// positive width for each, and names under the bars never touch.
fn assert_readable_comparisons(dir: &Path, variants: usize) {
    let mut charts = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("compare_") && name.ends_with(".svg")) {
            continue;
        }
        charts += 1;
        let svg = read(&path);
        let bars: Vec<_> = svg_rects(&svg)
            .into_iter()
            .filter(|r| r.4 != "#FFFFFF" && r.4 != "none" && r.3 > 0.0)
            .collect();
        assert!(bars.len() >= variants, "{name}: {} bars", bars.len());
        assert!(
            bars.iter().all(|r| r.2 >= 1.0),
            "{name}: a bar of no width among {variants} variants"
        );
        let mut labels: Vec<_> = svg_texts(&svg)
            .into_iter()
            .filter(|t| t.4.contains('='))
            .collect();
        assert!(!labels.is_empty(), "{name}: no variant named");
        labels.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in labels.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let room = if a.3 {
                a.2
            } else {
                0.6 * a.2 * (a.4.chars().count() + b.4.chars().count()) as f64 / 2.0
            };
            assert!(
                b.0 - a.0 >= room,
                "{name}: `{}` and `{}` touch ({} px apart, {room} needed)",
                a.4,
                b.4,
                b.0 - a.0
            );
        }
    }
    assert!(charts > 3, "{charts} comparison charts");
}

#[test]
fn charts_stay_readable_from_two_to_three_hundred_variants() {
    let dir = tempfile::tempdir().unwrap();
    let ambush = bundled(AMBUSH);
    for (sets, variants) in [
        (vec!["heroes.Titus.risk=-1,1"], 2),
        (
            vec![
                "heroes.Titus.risk=-1,1",
                "sides.Raiders.troop_strength=700,900",
            ],
            4,
        ),
        (vec!["sides.Raiders.troop_strength=700..999:1"], 300),
    ] {
        let out = dir.path().join(format!("v{variants}"));
        let mut args = vec![
            "sweep",
            ambush.as_str(),
            "--trials",
            "200",
            "--max-variants",
            "400",
            "--quiet",
        ];
        for set in &sets {
            args.extend(["--set", set]);
        }
        let out_arg = out.display().to_string();
        args.extend(["--out", out_arg.as_str()]);
        warcrunch_in(dir.path(), &args, true);
        assert_readable_comparisons(&out, variants);
        // The verdict names a few variants and counts the rest.
        let html = read(&out.join("report.html"));
        let longest = html
            .lines()
            .filter(|l| {
                l.contains("statistically tied")
                    || l.contains("statistically level")
                    || l.contains("variants compared")
            })
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(longest < 2_000, "a verdict of {longest} characters");
    }
    // The tornado's legend stands clear of every bar.
    let sens = dir.path().join("sens");
    let sens_arg = sens.display().to_string();
    warcrunch_in(
        dir.path(),
        &[
            "sensitivity",
            &ambush,
            "--target",
            "side:Megalos/victory=won",
            "--trials",
            "2000",
            "--quiet",
            "--out",
            &sens_arg,
        ],
        true,
    );
    let rects = svg_rects(&read(&sens.join("tornado.svg")));
    let legend = rects
        .iter()
        .find(|r| r.4 == "none")
        .expect("the legend's frame")
        .clone();
    let overlaps = |r: &(f64, f64, f64, f64, String)| {
        r.0 < legend.0 + legend.2
            && legend.0 < r.0 + r.2
            && r.1 < legend.1 + legend.3
            && legend.1 < r.1 + r.3
    };
    let bars: Vec<_> = rects
        .iter()
        .filter(|r| r.4 == "#0072B2" || r.4 == "#E69F00")
        .filter(|r| r.2 > 12.0 || r.3 > 12.0)
        .collect();
    assert!(bars.len() > 4);
    assert!(
        !bars.iter().any(|r| overlaps(r)),
        "the legend {legend:?} covers a bar"
    );
}

/// A cell moved or swept in a table swapped with `--table` moves that
/// table: before, the swap replaced the moved cells and every move showed
/// no change. With a copy of the built-in table swapped in, the answers
/// are the built-in table's, byte for byte; `--tables` (which tables'
/// cells move) and `--table` (which file a table is) are options apart.
#[test]
fn cells_moved_in_a_swapped_table_move_it() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("survival.toml");
    std::fs::write(
        &copy,
        read(&repo().join("scenarios/tables/gurps/survival.toml")),
    )
    .unwrap();
    let swap = format!("--table=survival={}", copy.display());
    let ambush = bundled(AMBUSH);
    let run = |out: &str, extra: &[&str], first: &[&str]| {
        let mut args: Vec<&str> = first.to_vec();
        args.extend([
            ambush.as_str(),
            "--trials",
            "4000",
            "--seed",
            "3",
            "--quiet",
            "--out",
            out,
        ]);
        args.extend(extra);
        warcrunch_in(dir.path(), &args, true);
    };
    let sweep = ["sweep", "--set", "tables.survival.rows.A.column=A,D"];
    run("sweep_builtin", &[], &sweep);
    run("sweep_swapped", &[&swap], &sweep);
    let sensitivity = [
        "sensitivity",
        "--target",
        "party/any_down_or_dead=yes",
        "--cells",
        "--tables",
        "survival",
    ];
    run("cells_builtin", &[], &sensitivity);
    run("cells_swapped", &[&swap], &sensitivity);
    let builtin = read(&dir.path().join("sweep_builtin/comparison.csv"));
    assert_eq!(
        builtin,
        read(&dir.path().join("sweep_swapped/comparison.csv"))
    );
    // Column D for row A is not the same battle: the sweep sees it.
    assert!(
        builtin
            .lines()
            .any(|l| l.contains("any_down_or_dead,value,yes")
                && l.ends_with(",true,catastrophe; damage,true")),
        "{builtin}"
    );
    let cells = read(&dir.path().join("cells_builtin/sensitivity.csv"));
    assert_eq!(
        cells,
        read(&dir.path().join("cells_swapped/sensitivity.csv"))
    );
    assert!(
        cells
            .lines()
            .skip(1)
            .all(|l| l.starts_with("tables.survival.")),
        "{cells}"
    );
}
