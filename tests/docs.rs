//! Docs that cannot go stale: every output README.md and docs/ quote (a
//! quoted sentence holding a percentage) is printed by a command the docs
//! give, run here as they give it; every `warcrunch` command in their code
//! blocks parses, and every bundled file it names exists.

use std::path::Path;

use clap::Parser;
use warcrunch::cli::Cli;

use crate::util::{read, repo, warcrunch};

/// Each document and the commands whose output it quotes, as it gives them.
const QUOTED: &[(&str, &[&str])] = &[
    (
        "README.md",
        &[
            "run scenarios/gurps/ambush_at_the_ford.toml --trials 200000",
            "sweep scenarios/gurps/ambush_at_the_ford.toml --set heroes.Titus.risk=-6..6",
            "solve scenarios/gurps/ambush_at_the_ford.toml --vary sides.Raiders.troop_strength=200..3000 --target side:Megalos/victory=won --equals 0.5",
        ],
    ),
    (
        "docs/usage.md",
        &[
            "run scenarios/gurps/ambush_at_the_ford.toml --trials 200000",
            "solve scenarios/gurps/siege_assault.toml --vary sides.Garrison.troop_strength=100..40000 --balance side:Imperial+army",
            "solve scenarios/gurps/ambush_at_the_ford.toml --vary sides.Raiders.troop_strength=200..3000 --target side:Megalos/victory=won --equals 0.5",
        ],
    ),
];

/// Every document the test reads.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned()];
    let mut more: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| format!("docs/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The quoted sentences of `text` that report a probability: between
/// straight double quotes, holding a digit and `%`, whitespace folded.
fn quoted_outputs(text: &str) -> Vec<String> {
    let prose: String = text.split("```").step_by(2).collect::<Vec<_>>().join(" ");
    prose
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|q| q.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|q| q.contains('%') && q.chars().any(|c| c.is_ascii_digit()))
        .collect()
}

/// Whether `quote` (`…` standing for anything) is in `output`.
fn printed(quote: &str, output: &str) -> bool {
    let mut rest = output;
    for part in quote.split('…') {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn every_quoted_output_is_what_its_command_prints() {
    let dir = tempfile::tempdir().unwrap();
    for document in documents() {
        let quotes = quoted_outputs(&read(&repo().join(&document)));
        if quotes.is_empty() {
            continue;
        }
        let commands = QUOTED
            .iter()
            .find(|(d, _)| *d == document)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| {
                panic!("{document} quotes outputs {quotes:?}; name the commands that print them")
            });
        let mut output = String::new();
        for (i, command) in commands.iter().enumerate() {
            let words: Vec<String> = command.split(' ').map(|w| w.replace('+', " ")).collect();
            let assert = warcrunch()
                .args(&words)
                .arg("--out")
                .arg(
                    dir.path()
                        .join(format!("{}-{i}", document.replace('/', "_"))),
                )
                .assert()
                .success();
            let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
            output.push_str(&stdout.split_whitespace().collect::<Vec<_>>().join(" "));
            output.push('\n');
        }
        for quote in quotes {
            assert!(
                output.lines().any(|line| printed(&quote, line)),
                "{document} quotes \"{quote}\", which none of its commands prints:\n{output}"
            );
        }
    }
}

/// `word` with each `$NAME` and `{}`/`{N}` replaced by `1`.
fn placeholders_as_one(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                while chars
                    .peek()
                    .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '_')
                {
                    chars.next();
                }
                out.push('1');
            }
            '{' => {
                for n in chars.by_ref() {
                    if n == '}' {
                        break;
                    }
                }
                out.push('1');
            }
            c => out.push(c),
        }
    }
    out
}

#[test]
fn every_command_in_the_docs_parses_and_names_files_that_exist() {
    let mut checked = 0;
    for document in documents() {
        let text = read(&repo().join(&document));
        for block in text.split("```").skip(1).step_by(2) {
            let (language, body) = block.split_once('\n').unwrap_or((block, ""));
            if !matches!(language.trim(), "sh" | "console" | "") {
                continue;
            }
            // A command continued with `\` is one line.
            let joined = body.replace("\\\n", " ");
            for line in joined.lines() {
                let line = line.trim().trim_start_matches("$ ");
                let line = line.split(" # ").next().unwrap_or(line);
                // A synopsis (`[--out DIR]`, `a..b|v1,...`) is no command.
                let synopsis = line.contains("...") || line.contains('|') || line.contains(" [");
                if !line.starts_with("warcrunch ") || synopsis {
                    continue;
                }
                let Some(words) = shlex::split(line) else {
                    panic!("{document}: cannot split `{line}`")
                };
                // A job script's variables and placeholders stand for numbers.
                let words: Vec<String> = words.iter().map(|w| placeholders_as_one(w)).collect();
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("{document}: `{line}` does not parse:\n{e}");
                }
                for word in &words {
                    if word.starts_with("scenarios/") && !word.contains('*') {
                        let path = word.split('=').next_back().unwrap_or(word);
                        assert!(
                            Path::new(&repo().join(path)).exists(),
                            "{document}: `{line}` names {path}, which is not in the repository"
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    // The README's tour alone gives more than fifteen: the reader works.
    assert!(checked > 15, "only {checked} commands found");
}

/// Every recipe under `docs/recipes/` is quoted whole in docs/usage.md, so
/// the text a reader copies is the file the tests run.
#[test]
fn every_recipe_is_quoted_whole() {
    let usage = read(&repo().join("docs/usage.md"));
    let mut quoted = 0;
    for folder in std::fs::read_dir(repo().join("docs/recipes")).unwrap() {
        for file in std::fs::read_dir(folder.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let text = read(&path);
            let name = path.strip_prefix(repo()).unwrap().display().to_string();
            let language = match path.extension().and_then(|e| e.to_str()) {
                Some("yaml") => "yaml",
                _ => "sh",
            };
            assert!(
                usage.contains(&format!("```{language}\n{text}```")),
                "docs/usage.md does not quote {name} as it is"
            );
            assert!(
                usage.contains(&format!("(`{name}`)")),
                "{name} is not named"
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 4, "only {quoted} recipes");
}

/// docs/rules.md lists, word for word, every stand-in rule a report can
/// list (those of every bundled scenario and of each declared reading the
/// bundled scenarios leave at its default), and lists no other: the docs'
/// tags and the reports' stand-in rules cannot drift apart.
#[test]
fn the_rules_doc_lists_every_stand_in_rule_a_report_lists_and_no_other() {
    let mut texts: Vec<(std::path::PathBuf, String)> = crate::util::bundled_scenarios()
        .into_iter()
        .map(|p| {
            let text = read(&p);
            (p, text)
        })
        .collect();
    // The other reading of each setting the bundled scenarios leave at
    // its default.
    for (file, system, readings) in [
        (
            // Several days: its commander_gone line is one only they list.
            "gurps/three_days_at_hollin.toml",
            "system = \"gurps\"\n",
            "defector = \"leaves\"\nleader_fall = \"same_day\"\ncommander_gone = \"row_spent\"\n",
        ),
        (
            "seventh_sea/even_field_battle.toml",
            "system = \"seventh_sea\"\n",
            "free_raises = \"each_roll\"\n",
        ),
    ] {
        let path = repo().join("scenarios").join(file);
        let text = read(&path);
        let other = text.replacen(system, &format!("{system}{readings}"), 1);
        assert_ne!(other, text, "{file}");
        texts.push((path, other));
    }
    let mut reported = std::collections::BTreeSet::new();
    for (path, text) in &texts {
        let s = warcrunch::scenario::load_text(path, text).unwrap();
        reported.extend(s.battle.stand_in_rules());
    }
    let systems: std::collections::BTreeSet<&str> = reported
        .iter()
        .filter_map(|l| l.split(':').next())
        .collect();
    let doc = read(&repo().join("docs/rules.md"));
    let documented: std::collections::BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter(|l| l.split(':').next().is_some_and(|s| systems.contains(s)))
        .map(str::to_owned)
        .collect();
    let undocumented: Vec<&String> = reported.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "reported, not in docs/rules.md: {undocumented:#?}"
    );
    let stale: Vec<&String> = documented.difference(&reported).collect();
    assert!(
        stale.is_empty(),
        "in docs/rules.md, reported by no battle: {stale:#?}"
    );
}

/// The README is a front door (issue 76, point 14): what the tool answers,
/// the two set-up commands, a short tour and where the rest is; the
/// detail lives in docs/.
#[test]
fn the_readme_is_a_front_door_of_at_most_350_lines() {
    let lines = read(&repo().join("README.md")).lines().count();
    assert!(lines <= 350, "README.md has {lines} lines; move detail into docs/");
}
