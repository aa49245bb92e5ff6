//! What a writer copies out of any answer reads back from the answer's own
//! tables: every bundled battle run, a sweep, compares (with asked
//! targets), sensitivities, a solve and tunes (exact and sampled), each
//! read as a person reads it (the console, the pages' words, the charts'
//! text). No percentage shown disagrees with a number of its tables, no
//! asked target is shown in its raw `--target` form, and no CSV cell
//! carries the float noise of a sum (`0.30000000000000004`).

use std::collections::BTreeSet;
use std::path::Path;

use warcrunch::stats::{wilson, z95};

use crate::report::{Answered, every_kind_of_answer, words_read};
use crate::util::csv_rows;

/// Every file under `dir` (sub-folders too) ending in `.extension`.
fn files_under(dir: &Path, extension: &str, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
}

/// Texts, each with where it was read.
type Texts = Vec<(String, String)>;

/// What a person reads of an answer, each with where it was read: its
/// console (but the command lines it repeats and the files it names), its
/// pages' words (but code) and its charts' text; and of those, the
/// sentences and titles alone: the console's unindented lines (not the
/// listings under them), the pages' words outside tables, and each chart's
/// title and description.
fn read_by_a_person(answered: &Answered) -> (Texts, Texts) {
    let console: Vec<&str> = (answered.console.lines())
        .filter(|l| !l.contains("warcrunch ") && !l.starts_with("Wrote "))
        .collect();
    let name = format!("{}: console", answered.asked);
    let mut all = vec![(name.clone(), console.join("\n"))];
    let headlines: Vec<&str> = (console.iter().copied())
        .filter(|l| !l.starts_with(' '))
        .collect();
    let mut sentences = vec![(name, headlines.join("\n"))];
    for extension in ["html", "svg"] {
        let mut files = Vec::new();
        files_under(&answered.out, extension, &mut files);
        files.sort();
        for file in files {
            let markup = std::fs::read_to_string(&file).unwrap();
            let name = format!(
                "{} → {}",
                answered.asked,
                file.strip_prefix(&answered.out).unwrap().display()
            );
            let code = [("<code", "</code>"), ("<pre", "</pre>")];
            all.push((name.clone(), words_read(&markup, &code)));
            let said = if extension == "html" {
                words_read(&markup, &[code[0], code[1], ("<table", "</table>")])
            } else {
                ["title", "desc"]
                    .iter()
                    .filter_map(|tag| {
                        let open = markup.find(&format!("<{tag}"))?;
                        let start = open + markup[open..].find('>')? + 1;
                        let end = start + markup[start..].find(&format!("</{tag}>"))?;
                        Some(markup[start..end].to_owned())
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            sentences.push((name, said));
        }
    }
    (all, sentences)
}

/// Every number in the CSV files under `dir`, as written.
fn csv_numbers(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    files_under(dir, "csv", &mut files);
    files.sort();
    let mut numbers = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().skip(1) {
            // Quoted cells hold words, never a number of ours.
            for cell in line.split(',') {
                if cell.parse::<f64>().is_ok_and(f64::is_finite) {
                    numbers.push((name.clone(), cell.to_owned()));
                }
            }
        }
    }
    numbers
}

/// The shares a verdict combines from one metric's rows of a
/// `distributions.csv` (the ground held: holds and holds on morale), each
/// with its interval from the summed counts, as percentages with two
/// decimals: they agree with the table without being a row of it.
fn combined_shares(dir: &Path) -> BTreeSet<String> {
    let mut files = Vec::new();
    files_under(dir, "csv", &mut files);
    let mut shares = BTreeSet::new();
    for file in files.iter().filter(|f| f.ends_with("distributions.csv")) {
        let mut metrics: std::collections::BTreeMap<(String, String, String), Vec<u64>> =
            std::collections::BTreeMap::new();
        for row in csv_rows(file) {
            let key = ["variant", "subject", "metric"].map(|c| row.get(c).cloned().unwrap_or_default());
            let count: u64 = row["count"].parse().unwrap();
            metrics.entry(key.into()).or_default().push(count);
        }
        for counts in metrics.values().filter(|c| c.len() <= 10) {
            let trials: u64 = counts.iter().sum();
            for subset in 1..(1u32 << counts.len()) {
                let k: u64 = (0..counts.len())
                    .filter(|&i| subset & (1 << i) != 0)
                    .map(|i| counts[i])
                    .sum();
                let (low, high) = wilson(k, trials, z95());
                for x in [k as f64 / trials as f64, low, high] {
                    shares.insert(format!("{:.2}", 100.0 * x));
                }
            }
        }
    }
    shares
}

/// Every `12.34%` in `text` (two decimals, the probabilities' style), as
/// the digits before the `%`.
fn percentages(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        if c != '%' || i < 4 {
            continue;
        }
        let [a, b, dot] = [chars[i - 1], chars[i - 2], chars[i - 3]];
        if !(a.is_ascii_digit() && b.is_ascii_digit() && dot == '.') {
            continue;
        }
        let mut start = i - 3;
        while start > 0 && chars[start - 1].is_ascii_digit() {
            start -= 1;
        }
        if start == i - 3 {
            continue;
        }
        // A number's tail (`1.2345.67%`) or a version is not a percentage.
        if start > 0 && (chars[start - 1] == '.' || chars[start - 1].is_alphabetic()) {
            continue;
        }
        found.push(chars[start..i].iter().collect());
    }
    found
}

/// A target as `--target` writes it: `hero:Titus/state=dead`,
/// `side:Megalos/victory=won`, `party/any_dead=yes`,
/// `hero:Isabeau/reputation:mean`.
fn raw_targets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for start in ["hero:", "side:", "unit:", "party:", "party/", "battle/"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            if at > 0 && text[..at].chars().last().is_some_and(char::is_alphanumeric) {
                continue;
            }
            let rest = &text[at..];
            let end = rest.find(['\n', ',', ')', ';']).unwrap_or(rest.len()).min(60);
            let said = &rest[..rest.floor_char_boundary(end)];
            // The target form: a subject, a slash, a metric key.
            if let Some((_, metric)) = said.split_once('/')
                && metric.starts_with(|c: char| c.is_ascii_lowercase())
                && metric
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .all(|c| c.is_ascii_alphanumeric() || "_=:|<>.".contains(c))
            {
                found.push(said.to_owned());
            }
        }
    }
    found
}

/// Float noise: a number written with 15 or more significant digits whose
/// value rounded to 12 has at most 6 (`0.30000000000000004`,
/// `1.0000000000000016`, `0.14999999999999999`).
fn is_float_noise(cell: &str) -> bool {
    let digits = |s: &str| -> usize {
        let mantissa = s.split(['e', 'E']).next().unwrap_or(s);
        mantissa
            .trim_start_matches('-')
            .replace('.', "")
            .trim_start_matches('0')
            .trim_end_matches('0')
            .len()
    };
    let Ok(x) = cell.parse::<f64>() else {
        return false;
    };
    if digits(cell) < 15 || x == 0.0 {
        return false;
    }
    let magnitude = x.abs().log10().floor() as i32;
    let places = (11 - magnitude).max(0) as usize;
    let rounded = format!("{:.*}", places, x);
    let short = rounded.trim_end_matches('0').trim_end_matches('.');
    digits(short) <= 6
}

#[test]
fn the_float_noise_finder_tells_a_sum_from_a_long_value() {
    assert!(is_float_noise("0.30000000000000004"));
    assert!(is_float_noise("1.0000000000000016"));
    assert!(is_float_noise("0.14999999999999999"));
    assert!(is_float_noise("12.300000000000001"));
    assert!(!is_float_noise("0.3"));
    assert!(!is_float_noise("0.050553123456789014"));
    assert!(!is_float_noise("0.6699"));
    assert!(!is_float_noise("1372"));
}

#[test]
fn the_readers_find_percentages_and_raw_targets() {
    assert_eq!(
        percentages("won 56.46% (56.24%–56.68%), 5% cap, v1.2.3.45% 0.05%"),
        ["56.46", "56.24", "56.68", "0.05"]
    );
    assert_eq!(
        raw_targets("hero:Titus/state=dead in 0.33%, Titus: state = dead; party/any_dead=yes"),
        ["hero:Titus/state=dead in 0.33%", "party/any_dead=yes"]
    );
    assert!(raw_targets("the party: anyone dead, side: Megalos / Raiders").is_empty());
}

/// The done-when of the last mile: every kind of answer, read as a person
/// reads it, agrees with its tables and speaks in words.
#[test]
fn every_answer_reads_back_from_its_tables_in_words_without_float_noise() {
    let dir = tempfile::tempdir().unwrap();
    let (mut found, mut read_back, mut cells, mut said) = (Vec::new(), 0, 0, 0);
    for answered in every_kind_of_answer(dir.path()) {
        let numbers = csv_numbers(&answered.out);
        cells += numbers.len();
        for (file, cell) in &numbers {
            if is_float_noise(cell) {
                found.push(format!("{} → {file}: float noise {cell}", answered.asked));
            }
        }
        // Each number of its tables as a percentage shows it (a share, or
        // a number already in percent).
        let mut shown: BTreeSet<String> = (numbers.iter())
            .filter_map(|(_, c)| c.parse::<f64>().ok())
            .flat_map(|x| [format!("{:.2}", 100.0 * x), format!("{x:.2}")])
            .collect();
        shown.extend(combined_shares(&answered.out));
        let (all, sentences) = read_by_a_person(&answered);
        for (name, text) in all {
            for p in percentages(&text) {
                read_back += 1;
                if !shown.contains(&p) {
                    found.push(format!("{name}: {p}% is in none of its tables"));
                }
            }
        }
        for (name, text) in sentences {
            said += 1;
            for raw in raw_targets(&text) {
                found.push(format!("{name}: a target in its raw form: {raw:?}"));
            }
        }
    }
    eprintln!(
        "{read_back} percentages read back from {cells} table numbers; {said} texts' sentences and titles read"
    );
    assert!(said > 200, "only {said} texts' sentences read");
    assert!(read_back > 1000, "only {read_back} percentages read back");
    found.dedup();
    assert!(found.is_empty(), "{} found: {found:#?}", found.len());
}
