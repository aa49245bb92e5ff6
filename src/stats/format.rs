//! How numbers are written for people: thousands separators and
//! percentages that never print a seen outcome as zero.

/// An input as a message quotes it: whole up to `most` characters, else
/// its first `most` and how many more there were, so a message never
/// echoes a megabyte someone typed.
pub fn clipped(text: &str, most: usize) -> String {
    let count = text.chars().count();
    if count <= most {
        return text.to_owned();
    }
    let head: String = text.chars().take(most).collect();
    format!(
        "{head}… ({} more characters)",
        thousands((count - most) as u64)
    )
}

/// A message with every overlong stretch of input in it clipped (see
/// [`clipped`]): a run of more than [`MAX_ECHOED`] characters without a
/// space keeps its first [`MAX_ECHOED`], so an error never repeats a
/// megabyte-long name back.
pub fn clip_echoes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(64 * 1024));
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&clipped(word, MAX_ECHOED));
        word.clear();
    };
    for c in message.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The longest stretch of input a message repeats whole.
pub const MAX_ECHOED: usize = 200;

/// Writes a number with thousands separators (1,000,000).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The most decimals a percentage is written with; a probability nearer 0
/// or 1 than that shows is written as a bound (`< 0.000000000001%`).
const MAX_DECIMALS: usize = 12;

/// A probability as a percentage: two decimals (`56.80%`), more where it
/// lies within 0.1 point of 0% or of 100%, enough for two significant
/// digits of its distance from there (`0.0084%`, `99.9916%`), so a seen
/// outcome never reads as 0 or as certain. Exactly 0 and 1 (never seen,
/// always seen; an exact answer) are `0%` and `100%`, with no decimals to
/// suggest a rounding. The one rule of every console line, page and report.
pub fn percent(p: f64) -> String {
    percent_with(p, decimals(p))
}

/// A probability and its interval's ends, written alike: with the
/// decimals [`percent`] gives the estimate (so it reads the same alone and
/// in its interval; an estimate of 0 or 1 takes its ends' most), and more
/// while two that differ would read the same; an end that would read as a
/// bound at those takes the decimals it needs (`0.0084% (0.0071%–0.0099%)`,
/// `0.00010% (0.000004%–0.00057%)`).
pub fn percent_interval(p: f64, low: f64, high: f64) -> [String; 3] {
    let values = [p, low, high];
    let mut places = if p > 0.0 && p < 1.0 {
        decimals(p)
    } else {
        values.into_iter().map(decimals).max().unwrap_or(2)
    };
    // An end that would read as a bound takes the decimals it needs.
    let written = |v: f64, mut places: usize| loop {
        let text = percent_with(v, places);
        if !text.starts_with(['<', '>']) || places >= MAX_DECIMALS {
            return text;
        }
        places += 1;
    };
    loop {
        let shown = values.map(|v| written(v, places));
        let alike =
            (0..3).any(|i| (i + 1..3).any(|j| values[i] != values[j] && shown[i] == shown[j]));
        if !alike || places >= MAX_DECIMALS {
            return shown;
        }
        places += 1;
    }
}

/// Decimals [`percent`] writes `p` with.
fn decimals(p: f64) -> usize {
    let shown = 100.0 * p;
    let distance = shown.min(100.0 - shown);
    if distance <= 0.0 || distance >= 0.1 {
        2
    } else {
        ((-distance.log10()).ceil() as usize + 1).clamp(2, MAX_DECIMALS)
    }
}

/// `p` as a percentage with `places` decimals, as a bound where that
/// would read as 0% or 100% though it is neither.
fn percent_with(p: f64, places: usize) -> String {
    if p == 0.0 {
        return "0%".to_owned();
    }
    if p == 1.0 {
        return "100%".to_owned();
    }
    let shown = 100.0 * p;
    let text = format!("{shown:.places$}");
    let zero = format!("{:.places$}", 0.0);
    let whole = format!("{:.places$}", 100.0);
    if p > 0.0 && text == zero {
        format!("< {:.places$}%", 10f64.powi(-(places as i32)))
    } else if p < 1.0 && text == whole {
        format!("> {:.places$}%", 100.0 - 10f64.powi(-(places as i32)))
    } else {
        format!("{text}%")
    }
}

/// A number with `decimals` decimals and a true minus sign (`−0.12`);
/// `−0.0` reads `0.0`.
pub fn signed(x: f64, decimals: usize, plus: bool) -> String {
    let text = format!("{x:.decimals$}");
    let zero = text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.');
    match text.strip_prefix('-') {
        Some(magnitude) if !zero => format!("\u{2212}{magnitude}"),
        Some(magnitude) => magnitude.to_owned(),
        None if plus && !zero => format!("+{text}"),
        None => text,
    }
}

/// `x` without the noise a float sum leaves on a short value: where `x`
/// rounded to 14 significant digits has 6 or fewer (`0.12500000000000003`
/// is `0.125`, the 27 of 216 it sums), that value; else `x` as it is. The
/// change is at most 5 parts in 10¹⁵, below the sums' own rounding.
pub fn without_float_noise(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let rounded: f64 = format!("{x:.13e}").parse().unwrap_or(x);
    let mantissa = format!("{rounded:e}");
    let digits = mantissa
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    if digits <= 6 { rounded } else { x }
}

/// A setting's value as a person reads it: a whole number with its
/// thousands marked and a true minus (`1,200`, `−3`), any other value as
/// [`minus`] writes it (`−0.5`, `uphill`). The CSV keeps the value as
/// written.
pub fn value_read(text: &str) -> String {
    match text.parse::<i64>() {
        Ok(n) if n < 0 => format!("\u{2212}{}", thousands(n.unsigned_abs())),
        Ok(n) => thousands(n.unsigned_abs()),
        Err(_) => minus(text),
    }
}

/// A label or a value as a person reads it (`risk=-6` → `risk=−6`, `-1`
/// → `−1`, `-3..3` → `−3..3`): each ASCII hyphen-minus that is a
/// number's sign (a digit after it, and at the start or after `=`, `,`,
/// `(`, `.`, `:`, `/` or a space) becomes a true minus; a hyphen inside a
/// word stays (`leaving-cover`, `SHA-256`). The CSV keeps the label as
/// written: this is for the console, the page and the charts.
pub fn minus(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut before: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let sign = c == '-'
            && chars.peek().is_some_and(char::is_ascii_digit)
            && before.is_none_or(|b| "=,(.:/ ".contains(b));
        out.push(if sign { '\u{2212}' } else { c });
        before = Some(c);
    }
    out
}

/// A difference and its 95% interval in the one style of every report:
/// a sign on the difference, true minus signs, `to` between the bounds,
/// and the decimals the interval's width calls for (its first significant
/// digit, at least one decimal): `+19.3 pt (18.9 to 19.6)`,
/// `−0.12 (−0.13 to −0.11)`. `unit` follows the difference (` pt`).
pub fn change(diff: f64, (lo, hi): (f64, f64), unit: &str) -> String {
    let [diff, lo, hi] = with_interval(diff, (lo, hi), true);
    format!("{diff}{unit} ({lo} to {hi})")
}

/// An estimate (a mean) and its 95% interval in the same style, unsigned,
/// an en dash between bounds that are both at least 0 and `to` where one
/// is negative: `7.34 (7.30–7.37)`, `−0.5 (−0.7 to −0.3)`.
pub fn estimate(x: f64, (lo, hi): (f64, f64)) -> String {
    let [x, lo_text, hi_text] = with_interval(x, (lo, hi), false);
    format!("{x} ({})", range(&lo_text, &hi_text, lo < 0.0))
}

/// A number known about as well as an estimate whose 95% interval is
/// `(lo, hi)` (its spread, the estimate alone), written as [`estimate`]
/// writes that estimate: with the decimals the interval's width calls for.
pub fn as_known(x: f64, (lo, hi): (f64, f64)) -> String {
    signed(x, decimals_for(hi - lo), false)
}

/// Two bounds as a range: `a–b`, or `a to b` when a bound is negative.
pub fn range(lo: &str, hi: &str, negative: bool) -> String {
    if negative {
        format!("{lo} to {hi}")
    } else {
        format!("{lo}\u{2013}{hi}")
    }
}

/// A number and its interval's ends, each with the decimals the
/// interval's width calls for and true minus signs (`plus`: a sign on
/// the number too, as a difference has). An interval that holds zero
/// keeps the sign of each end: more decimals, until neither end reads 0
/// (`−0.04 to 0.09`, not `0.0 to 0.1`).
pub fn with_interval(x: f64, (lo, hi): (f64, f64), plus: bool) -> [String; 3] {
    let mut decimals = decimals_for(hi - lo);
    let reads_zero = |v: f64, d: usize| {
        v != 0.0
            && signed(v, d, false)
                .trim_start_matches('\u{2212}')
                .chars()
                .all(|c| c == '0' || c == '.')
    };
    while decimals < 6
        && lo < 0.0
        && hi > 0.0
        && (reads_zero(lo, decimals) || reads_zero(hi, decimals))
    {
        decimals += 1;
    }
    [
        signed(x, decimals, plus),
        signed(lo, decimals, false),
        signed(hi, decimals, false),
    ]
}

/// Decimals for numbers known to within an interval `width` wide: its
/// first significant digit, at least one decimal (three for an exact
/// value).
fn decimals_for(width: f64) -> usize {
    if width > 0.0 && width.is_finite() {
        ((-width.log10()).ceil() as i64).clamp(1, 6) as usize
    } else {
        3
    }
}

/// A word of a command line as a shell reads it back: as it is when it
/// holds nothing a shell treats specially, else quoted.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,@+%".contains(c));
    if plain {
        word.to_owned()
    } else {
        shlex::try_quote(word).map_or_else(|_| word.to_owned(), |q| q.into_owned())
    }
}

/// A number with at most `decimals` decimals and no trailing zeros
/// (`5`, `2.5`, `0.25`).
pub fn trim_decimal(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn float_noise_is_taken_off_short_values_only() {
        assert_eq!(without_float_noise(0.12500000000000003), 0.125);
        assert_eq!(without_float_noise(1.0000000000000016), 1.0);
        assert_eq!(without_float_noise(0.30000000000000004), 0.3);
        // A long value keeps every digit.
        assert_eq!(
            without_float_noise(0.050553123456789014),
            0.050553123456789014
        );
        assert_eq!(without_float_noise(0.5663333333333334), 0.5663333333333334);
        assert_eq!(without_float_noise(0.0), 0.0);
    }

    #[test]
    fn a_settings_value_reads_with_its_thousands_and_a_true_minus() {
        assert_eq!(super::value_read("1200"), "1,200");
        assert_eq!(super::value_read("-1500"), "\u{2212}1,500");
        assert_eq!(super::value_read("12"), "12");
        assert_eq!(super::value_read("-0.5"), "\u{2212}0.5");
        assert_eq!(
            super::value_read("uphill+leaving_cover"),
            "uphill+leaving_cover"
        );
        assert_eq!(super::value_read("true"), "true");
    }
    #[test]
    fn a_numbers_sign_is_a_true_minus_and_a_words_hyphen_stays() {
        use super::minus;
        assert_eq!(minus("risk=-6"), "risk=\u{2212}6");
        assert_eq!(minus("-1"), "\u{2212}1");
        assert_eq!(minus("risk=-6,dr=-1"), "risk=\u{2212}6,dr=\u{2212}1");
        assert_eq!(minus("-3..-1"), "\u{2212}3..\u{2212}1");
        assert_eq!(minus("(-2 or -3)"), "(\u{2212}2 or \u{2212}3)");
        assert_eq!(minus("leaving-cover"), "leaving-cover");
        assert_eq!(minus("SHA-256 and IQ-6"), "SHA-256 and IQ-6");
        assert_eq!(minus("a - b"), "a - b");
    }

    use super::*;

    #[test]
    fn an_interval_holding_zero_shows_the_sign_of_each_end() {
        assert_eq!(
            change(0.023, (-0.039, 0.085), " pt"),
            "+0.02 pt (\u{2212}0.04 to 0.09)"
        );
        // An interval clear of zero keeps the decimals its width calls for.
        assert_eq!(change(19.3, (18.9, 19.6), " pt"), "+19.3 pt (18.9 to 19.6)");
        // An end that is truly 0 reads 0.
        assert_eq!(change(0.0, (0.0, 0.1), " pt"), "0.0 pt (0.0 to 0.1)");
    }

    #[test]
    fn a_long_input_is_clipped_with_its_length() {
        assert_eq!(clipped("short", 10), "short");
        let long = "é".repeat(1_000_000);
        let shown = clipped(&long, 100);
        assert!(shown.starts_with(&"é".repeat(100)), "{shown}");
        assert!(shown.ends_with("… (999,900 more characters)"), "{shown}");
        assert!(shown.len() < 300);
        let message = format!(
            "hero \"{}\" is unknown;\nsee `check`",
            "n".repeat(1_000_000)
        );
        let clipped = clip_echoes(&message);
        assert!(clipped.len() < 400, "{}", clipped.len());
        assert!(
            clipped.starts_with("hero \"nnn")
                && clipped.ends_with("more characters) is unknown;\nsee `check`"),
            "{clipped}"
        );
        assert_eq!(clip_echoes("a  b\tc"), "a  b\tc");
    }

    #[test]
    fn a_change_reads_in_one_style() {
        assert_eq!(
            change(0.193, (0.189, 0.196), " pt"),
            "+0.193 pt (0.189 to 0.196)"
        );
        assert_eq!(change(19.3, (18.9, 19.6), " pt"), "+19.3 pt (18.9 to 19.6)");
        assert_eq!(
            change(-0.124, (-0.127, -0.121), ""),
            "\u{2212}0.124 (\u{2212}0.127 to \u{2212}0.121)"
        );
        assert_eq!(
            change(0.0, (-0.04, 0.04), " pt"),
            "0.00 pt (\u{2212}0.04 to 0.04)"
        );
        assert_eq!(signed(-0.0001, 2, true), "0.00");
        assert_eq!(estimate(7.337, (7.302, 7.371)), "7.34 (7.30\u{2013}7.37)");
        assert_eq!(
            estimate(-0.5, (-0.7, -0.3)),
            "\u{2212}0.5 (\u{2212}0.7 to \u{2212}0.3)"
        );
    }

    #[test]
    fn trimmed_decimals() {
        assert_eq!(trim_decimal(5.0, 2), "5");
        assert_eq!(trim_decimal(2.5, 2), "2.5");
        assert_eq!(trim_decimal(0.254, 2), "0.25");
        assert_eq!(trim_decimal(10.0, 0), "10");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("cards=/tmp/deck.toml"), "cards=/tmp/deck.toml");
        assert_eq!(shell_word("my deck.toml"), "'my deck.toml'");
        assert_eq!(shlex::split(&shell_word("it's")).unwrap(), ["it's"]);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn a_seen_outcome_is_never_zero_percent_nor_certain() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.568), "56.80%");
        assert_eq!(percent(0.00005), "0.0050%");
        assert_eq!(percent(12.0 / 1_000_000.0), "0.0012%");
        assert_eq!(percent(1.0 - 12.0 / 1_000_000.0), "99.9988%");
        assert_eq!(percent(8.4e-5), "0.0084%");
        assert_eq!(percent(1.0 - 8.4e-5), "99.9916%");
        assert_eq!(percent(0.0015), "0.15%");
        assert_eq!(percent(0.0005), "0.050%");
        assert_eq!(percent(1e-16), "< 0.000000000001%");
        assert_eq!(percent(1.0 - 1e-16), "> 99.999999999999%");
    }

    #[test]
    fn a_spread_reads_with_its_means_decimals() {
        assert_eq!(estimate(14.46, (14.37, 14.55)), "14.5 (14.4–14.6)");
        assert_eq!(as_known(9.568, (14.37, 14.55)), "9.6");
        assert_eq!(as_known(7.3421, (7.30, 7.37)), "7.34");
        assert_eq!(as_known(-0.0304, (-0.034, -0.026)), "\u{2212}0.030");
    }

    #[test]
    fn an_interval_never_prints_two_different_ends_alike() {
        assert_eq!(
            percent_interval(0.9999, 0.99985, 0.99994),
            ["99.990%", "99.985%", "99.994%"]
        );
        // The estimate as `percent` writes it alone, two significant digits.
        assert_eq!(
            percent_interval(1e-6, 1.8e-7, 5.7e-6),
            ["0.00010%", "0.00002%", "0.00057%"]
        );
        assert_eq!(percent_interval(1e-6, 1.8e-7, 5.7e-6)[0], percent(1e-6));
        assert_eq!(
            percent_interval(1e-6, 4e-8, 5.7e-6),
            ["0.00010%", "0.000004%", "0.00057%"]
        );
        assert_eq!(
            percent_interval(0.5, 0.49999, 0.50001),
            ["50.000%", "49.999%", "50.001%"]
        );
        assert_eq!(
            percent_interval(0.5, 0.49, 0.51),
            ["50.00%", "49.00%", "51.00%"]
        );
        let [p, lo, hi] = percent_interval(0.0, 0.0, 3e-6);
        assert_eq!((p.as_str(), lo.as_str()), ("0%", "0%"));
        assert_eq!(hi, "0.00030%");
    }
}
