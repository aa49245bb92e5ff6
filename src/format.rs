//! How numbers are written for people: thousands separators and
//! percentages that never print a seen outcome as zero.

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

/// A probability as a percentage with two decimals (`56.80%`). A positive
/// probability too small to show is `< 0.01%`, and one short of certain
/// is `> 99.99%`, so an outcome seen 12 times never reads as `0.00%`.
pub fn percent(p: f64) -> String {
    let shown = 100.0 * p;
    if p > 0.0 && shown < 0.005 {
        "< 0.01%".to_owned()
    } else if p < 1.0 && shown >= 99.995 {
        "> 99.99%".to_owned()
    } else {
        format!("{shown:.2}%")
    }
}

/// An interval's end as a percentage: like [`percent`], but a small
/// positive end keeps two significant digits (`0.0019%`) instead of
/// reading as a bound of its own.
pub fn percent_bound(p: f64) -> String {
    let shown = 100.0 * p;
    if p > 0.0 && shown < 0.005 {
        let decimals = ((-shown.log10()).ceil() as usize + 1).min(8);
        format!("{shown:.decimals$}%")
    } else {
        percent(p)
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
    use super::*;

    #[test]
    fn trimmed_decimals() {
        assert_eq!(trim_decimal(5.0, 2), "5");
        assert_eq!(trim_decimal(2.5, 2), "2.5");
        assert_eq!(trim_decimal(0.254, 2), "0.25");
        assert_eq!(trim_decimal(10.0, 0), "10");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn a_seen_outcome_is_never_zero_percent() {
        assert_eq!(percent(12.0 / 1_000_000.0), "< 0.01%");
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(1.0), "100.00%");
        assert_eq!(percent(1.0 - 12.0 / 1_000_000.0), "> 99.99%");
        assert_eq!(percent(0.568), "56.80%");
        assert_eq!(percent(0.00005), "0.01%");
        assert_eq!(percent_bound(1.9e-5), "0.0019%");
        assert_eq!(percent_bound(1.2e-6), "0.00012%");
        assert_eq!(percent_bound(0.5), "50.00%");
    }
}
