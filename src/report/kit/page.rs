//! What every HTML page of warcrunch shares: the stylesheet, the
//! provenance table, charts drawn inline and the writing of a page.
//!
//! Pages are askama templates under `templates/report/`: checked when the
//! crate compiles (a misspelt field is a build error, not a broken report)
//! and escaped by default, so no text reaches a page unescaped unless a
//! template marks it `safe` (only the SVG charts warcrunch draws itself).

use std::path::Path;

use anyhow::{Context, Result};
use askama::Template;
use plotters::prelude::*;

use crate::report::RunInfo;
use crate::report::kit::draw::{Caption, annotate_svg, ensure_font};
use crate::stats::format::thousands;

/// The stylesheet every HTML page of warcrunch shares.
pub const CSS: &str = include_str!("../../../assets/report.css");

/// The provenance of a page: how to reproduce it and what it read.
pub struct Provenance {
    /// Label and value of each line.
    pub rows: Vec<(&'static str, String)>,
    /// Every table used.
    pub tables: Vec<TableLine>,
    /// Rules in use whose published form is unknown.
    pub stand_in_rules: Vec<String>,
}

/// One table of the provenance.
pub struct TableLine {
    /// Table name.
    pub name: String,
    /// `built-in` or the file read.
    pub source: String,
    /// Its stand-in values, listed (empty: none).
    pub stand_ins: String,
    /// The first 16 hex digits of its SHA-256.
    pub sha256: String,
}

impl Provenance {
    /// The provenance of a run, as every page shows it.
    pub fn of(info: &RunInfo) -> Self {
        let mut rows = vec![
            ("tool", format!("warcrunch {}", info.tool_version)),
            ("build", info.tool_commit.clone()),
            ("system", info.system.clone()),
        ];
        let mut add = |label, value: Option<String>| {
            if let Some(value) = value {
                rows.push((label, value));
            }
        };
        add("scenario", info.scenario_path.clone());
        add("scenario SHA-256", info.scenario_sha256.clone());
        add("seed", info.seed.map(|s| s.to_string()));
        add("trials", info.trials.map(thousands));
        add("chunk size", info.chunk_size.map(thousands));
        add("stream layout", info.stream_layout.map(|v| v.to_string()));
        add("threads", info.threads.map(|t| t.to_string()));
        add("elapsed", info.elapsed_seconds.map(|e| format!("{e:.3} s")));
        add("shards merged", info.shards.map(|n| n.to_string()));
        add("why it stopped", info.stop_reason.clone());
        rows.push(("reproduce with", info.command.clone()));
        Provenance {
            rows,
            tables: info
                .tables
                .iter()
                .map(|t| TableLine {
                    name: t.name.clone(),
                    source: t.source.clone(),
                    stand_ins: t.stand_ins.join(", "),
                    sha256: t.sha256[..16].to_owned(),
                })
                .collect(),
            stand_in_rules: info.stand_in_rules.clone(),
        }
    }
}

/// `text` escaped for HTML as a phone should wrap it: a line may break
/// between words and after a path's `/` (`<wbr>`), nowhere else. A name
/// stays whole (`even_field_battle`), and so does each part of a word that
/// holds a dash: a range (`56.35%–56.96%`), an option (`--out`), a
/// negative number (`risk=-6`), kept on one line by `<span class="nb">`, no
/// invisible character a pasted sentence would carry. Written into a
/// template with `|safe`.
pub fn breakable(text: &str) -> String {
    let escaped = askama::filters::escape(text, askama::filters::Html)
        .map(|safe| safe.to_string())
        .unwrap_or_default();
    escaped
        .split(' ')
        .map(|word| {
            word.split('/')
                .map(|part| {
                    if holds_a_dash(part) {
                        format!("<span class=\"nb\">{part}</span>")
                    } else {
                        part.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("/<wbr>")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `part` holds a dash a line must not break after: a range's en
/// dash, or a hyphen-minus but a compound word's (`stand-in` may break as
/// prose does; `--out`, `risk=-6` may not).
fn holds_a_dash(part: &str) -> bool {
    let chars: Vec<char> = part.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        let compound = i > 0
            && chars[i - 1].is_alphabetic()
            && chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
        c == '\u{2013}' || (c == '-' && !compound)
    })
}

/// A chart drawn into a string with its title and description, ready to
/// sit inside a page.
pub fn svg_string(
    size: (u32, u32),
    caption: &Caption,
    draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<String> {
    Ok(inline(&svg_document(size, caption, draw)?))
}

/// A chart as a file of its own (`<img src="data:image/svg+xml,…">` needs
/// its namespace), with its title and description.
pub fn svg_document(
    size: (u32, u32),
    caption: &Caption,
    draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<String> {
    ensure_font()?;
    let mut s = String::new();
    draw(SVGBackend::with_string(&mut s, size).into_drawing_area())?;
    Ok(annotate_svg(&s, &caption.title, &caption.description))
}

/// An SVG without its XML declaration and namespace (HTML5 needs neither).
fn inline(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "")
}

/// Renders `page` to `report.html` in `dir`.
pub fn write_report(page: &impl Template, dir: &Path) -> Result<Vec<String>> {
    let html = page.render().context("cannot render report.html")?;
    std::fs::write(dir.join("report.html"), html).context("cannot write report.html")?;
    Ok(vec!["report.html".into()])
}

#[cfg(test)]
mod tests {
    use super::breakable;

    #[test]
    fn a_range_an_option_and_a_name_stay_whole_and_a_path_breaks_after_its_slashes() {
        let html = breakable("won 56.35%–56.96% in even_field/b --out risk=-6 stand-in <&>");
        assert_eq!(
            html,
            "won <span class=\"nb\">56.35%–56.96%</span> in even_field/<wbr>b \
             <span class=\"nb\">--out</span> <span class=\"nb\">risk=-6</span> stand-in \
             &#60;&#38;&#62;"
        );
        assert!(!html.contains('\u{2060}'));
        assert_eq!(
            breakable("/tmp/runs-2/x_y"),
            "/<wbr>tmp/<wbr><span class=\"nb\">runs-2</span>/<wbr>x_y"
        );
    }
}
