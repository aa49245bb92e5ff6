//! The chart toolkit every report draws with: the palette, the embedded
//! font, SVG and PNG drawn from one picture, and file-safe names.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use image::ImageEncoder as _;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::kit::scaled::Scaled;

/// Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
];

/// The font family every chart uses.
pub const FONT: &str = "sans-serif";

/// The size of every chart's axis numbers and legend: one size, large
/// enough that a 1× PNG tells a thousands comma from a decimal point
/// (`1,200` read as `1.200` at the 13 the question charts had).
pub const LABEL_SIZE: u32 = 15;

/// Registers the embedded font with plotters (once per process).
pub fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let bytes: &'static [u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
        [FontStyle::Normal, FontStyle::Bold]
            .into_iter()
            .all(|style| plotters::style::register_font(FONT, style, bytes).is_ok())
    });
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the embedded chart font could not be loaded"))
    }
}

/// Turns a plotters error into an anyhow error.
pub fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("chart drawing failed: {e}")
}

/// The fonts an SVG names: the embedded font the text was measured with
/// first, then look-alikes a reader's machine may have.
pub const FONT_STACK: &str = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', Arial, sans-serif";

/// An SVG picture made accessible and portable: its `<title>` and `<desc>`
/// first inside the root (what screen readers and search engines read),
/// `role="img"`, and the named font stack in place of plotters' family.
pub fn annotate_svg(svg: &str, title: &str, description: &str) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let fonts = round_font_sizes(&svg.replace(
        &format!("font-family=\"{FONT}\""),
        &format!("font-family=\"{FONT_STACK}\""),
    ));
    let Some(open) = fonts.find("<svg") else {
        return fonts;
    };
    let Some(end) = fonts[open..].find('>') else {
        return fonts;
    };
    let at = open + end;
    format!(
        "{} role=\"img\"><title>{}</title><desc>{}</desc>{}",
        &fonts[..at],
        escape(title),
        escape(description),
        &fonts[at + 1..]
    )
}

/// Every `font-size="12.096774193548388"` written to one decimal
/// (`12.1`), as a person would set it.
fn round_font_sizes(svg: &str) -> String {
    const KEY: &str = "font-size=\"";
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find(KEY) {
        let (before, after) = rest.split_at(at + KEY.len());
        out.push_str(before);
        let end = after.find('"').unwrap_or(after.len());
        match after[..end].parse::<f64>() {
            Ok(size) => out.push_str(&crate::stats::format::trim_decimal(size, 1)),
            Err(_) => out.push_str(&after[..end]),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// An axis tick as a person writes it: no pointless decimals (`60`, not
/// `60.0`; `0.25`), a whole number's thousands marked (`1,600`), a true
/// minus sign, never `−0`.
pub fn tick(v: &f64) -> String {
    let text = crate::stats::format::trim_decimal(*v, 4);
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(m) => (m != "0", m),
        None => (false, text.as_str()),
    };
    let magnitude = match magnitude.parse::<u64>() {
        Ok(whole) => crate::stats::format::thousands(whole),
        Err(_) => magnitude.to_owned(),
    };
    if negative {
        format!("\u{2212}{magnitude}")
    } else {
        magnitude
    }
}

/// What a chart says in words: the title it is drawn under and the
/// chart described for someone who cannot see it.
pub struct Caption {
    /// The chart's title.
    pub title: String,
    /// The chart in words.
    pub description: String,
}

/// Draws a picture for publication: `<stem>.svg` (with its title and
/// description, [`annotate_svg`]), `<stem>.png` and `<stem>@2x.png` (the
/// same layout at twice the pixels, [`Scaled`]).
pub fn draw_publication(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    caption: &Caption,
    draw_svg: impl Fn(DrawingArea<SVGBackend, Shift>) -> Result<()>,
    draw_png: impl Fn(DrawingArea<Scaled<BitMapBackend>, Shift>) -> Result<()>,
) -> Result<Vec<String>> {
    ensure_font()?;
    let svg = format!("{stem}.svg");
    let mut text = String::new();
    draw_svg(SVGBackend::with_string(&mut text, size).into_drawing_area())?;
    std::fs::write(
        dir.join(&svg),
        annotate_svg(&text, &caption.title, &caption.description),
    )
    .map_err(|e| anyhow!("cannot write {svg}: {e}"))?;
    let mut written = vec![svg];
    for (factor, name) in [(1, format!("{stem}.png")), (2, format!("{stem}@2x.png"))] {
        let (width, height) = (size.0 * factor, size.1 * factor);
        // Drawn in memory and written here, so a failed write names the
        // file and the system's reason ("No space left on device").
        let mut rgb = vec![0u8; width as usize * height as usize * 3];
        {
            let backend = BitMapBackend::with_buffer(&mut rgb, (width, height));
            draw_png(Scaled::new(backend, factor).into_drawing_area())?;
        }
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&rgb, width, height, image::ColorType::Rgb8)
            .map_err(|e| anyhow!("cannot encode {name}: {e}"))?;
        std::fs::write(dir.join(&name), png).map_err(|e| anyhow!("cannot write {name}: {e}"))?;
        written.push(name);
    }
    Ok(written)
}

/// The x range of `n` bars on a segmented axis, one segment each: a lone
/// bar gets an empty segment on either side (a range of one value has no
/// width to draw in).
pub fn bar_range(n: i32) -> std::ops::Range<i32> {
    if n <= 1 { -1..1 } else { 0..n - 1 }
}

/// File stems handed out once each: two subjects whose names reduce to the
/// same stem ([`file_safe`]: `Ti tus`, `Ti_tus`) get `STEM` and `STEM-2`,
/// in the order asked, so no chart overwrites another.
#[derive(Debug, Default)]
pub struct Stems(std::collections::HashSet<String>);

impl Stems {
    /// `wanted`, or `wanted-N` for the smallest N from 2 not yet handed out.
    pub fn claim(&mut self, wanted: String) -> String {
        let mut stem = wanted.clone();
        let mut n = 2;
        while !self.0.insert(stem.clone()) {
            stem = format!("{wanted}-{n}");
            n += 1;
        }
        stem
    }
}

/// A name reduced to letters, digits and underscores.
pub fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() => c.to_string(),
            '<' => "_lt_".to_owned(),
            '>' => "_gt_".to_owned(),
            '=' => "_eq_".to_owned(),
            '|' => "_or_".to_owned(),
            _ => "_".to_owned(),
        })
        .collect();
    if safe.len() <= MAX_FILE_PART {
        return safe;
    }
    // A name too long for a file name (a hero's, a value's) keeps its
    // start and gains a digest of the whole, so two stay apart.
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", &safe[..MAX_FILE_PART - 9])
}

/// The longest part a name gives a file name (two parts, a prefix and an
/// extension stay well inside the 255 bytes a file name may have).
const MAX_FILE_PART: usize = 64;

/// A grid of coloured cells with labels.
pub struct Grid {
    /// Title above the grid.
    pub title: String,
    /// Row labels, flagged ones in colour.
    pub row_labels: Vec<(String, bool)>,
    /// Column labels.
    pub column_labels: Vec<String>,
    /// `[row][column]`: cell text, fill colour, outlined.
    pub cells: Vec<Vec<(String, RGBColor, bool)>>,
}

/// A colour `t` (0 to 1) of the way from `a` to `b`.
pub fn mix(a: RGBColor, b: RGBColor, t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let ch = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    RGBColor(ch(a.0, b.0), ch(a.1, b.1), ch(a.2, b.2))
}

/// White at 0 to blue at 1.
pub fn sequential(p: f64) -> RGBColor {
    mix(WHITE, PALETTE[0], p)
}

/// How wide `text` is laid out in the charts' font at `px` pixels (the
/// size plotters lays out; an SVG writes it as `font-size` `px / 1.24`).
pub fn text_width(text: &str, px: f64) -> Result<u32> {
    ensure_font()?;
    let (w, _) = (FONT, px)
        .into_font()
        .box_size(text)
        .map_err(|e| anyhow!("measuring {text:?}: {e:?}"))?;
    Ok(w)
}

/// The largest size from `px` down to `smallest` at which `text` is at
/// most `room` pixels wide (`smallest` when none is).
pub fn size_fitting(text: &str, px: u32, smallest: u32, room: u32) -> u32 {
    (smallest..=px)
        .rev()
        .find(|&size| text_width(text, f64::from(size)).is_ok_and(|w| w <= room))
        .unwrap_or(smallest)
}

/// The smallest a title is made to fit its chart, in pixels.
const SMALLEST_TITLE: u32 = 12;

/// `text` at `size` px, or smaller (to [`SMALLEST_TITLE`]) until it fits
/// `area`'s width less `margin` on each side; still too wide, it is cut
/// with an ellipsis (the chart's description in its file keeps it whole).
/// A title never runs off its chart.
pub fn fitted<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
    margin: u32,
) -> (String, u32) {
    let room = area.dim_in_pixel().0.saturating_sub(2 * margin);
    let fits = |t: &str, px: u32| {
        let style = TextStyle::from((FONT, px).into_font());
        area.estimate_text_size(t, &style)
            .is_ok_and(|(w, _)| w <= room)
    };
    fit(text, size, room as usize + 1, fits)
}

/// [`fitted`]'s choice, given whether a text fits at a size: no
/// measurement is of more than `most` characters (no glyph is narrower
/// than a pixel, so a text with more characters than the room has pixels
/// cannot fit whole), and a cut text's length is found by halving (a
/// longer start is never narrower); so a title costs a few short
/// measurements however long its text.
fn fit(
    text: &str,
    size: u32,
    most: usize,
    mut fits: impl FnMut(&str, u32) -> bool,
) -> (String, u32) {
    let chars: Vec<char> = text.chars().collect();
    let whole = chars.len() <= most;
    let mut px = size;
    while px > SMALLEST_TITLE && !(whole && fits(text, px)) {
        px -= 1;
    }
    if whole && fits(text, px) {
        return (text.to_owned(), px);
    }
    let cut = |k: usize| format!("{}…", chars[..k].iter().collect::<String>().trim_end());
    let (mut fitting, mut too_long) = (0, chars.len().min(most));
    if fits(&cut(too_long), px) {
        return (cut(too_long), px);
    }
    while too_long - fitting > 1 {
        let k = (fitting + too_long) / 2;
        if fits(&cut(k), px) {
            fitting = k;
        } else {
            too_long = k;
        }
    }
    (cut(fitting), px)
}

/// Black or white, whichever reads better on `background` (the larger
/// contrast ratio of WCAG's relative luminance).
pub fn text_on(background: RGBColor) -> RGBColor {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let RGBColor(r, g, b) = background;
    let luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    // Against black: (L + 0.05) / 0.05; against white: 1.05 / (L + 0.05).
    if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) {
        BLACK
    } else {
        WHITE
    }
}

/// A chart's footnotes: the source of its numbers
/// ([`crate::report::RunInfo::source_line`]) and, when its title is marked †,
/// what the mark means (`† rests on the survival table, which holds
/// stand-in values`).
pub fn footnotes(info: &crate::report::RunInfo, stand_ins: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    if !stand_ins.is_empty() {
        notes.push(crate::report::kit::words::rests_on_line(stand_ins));
    }
    notes.push(info.source_line());
    notes
}

/// Height of one footnote line.
const FOOTNOTE_LINE: u32 = 18;

/// The height `notes` take under a chart.
pub fn footnotes_height(notes: &[String]) -> u32 {
    FOOTNOTE_LINE * notes.len() as u32 + 6
}

/// Draws `notes` in grey along the bottom of `area`, each fitted to its
/// width, and returns the area above them for the chart.
pub fn footnoted<DB: DrawingBackend>(
    area: DrawingArea<DB, Shift>,
    notes: &[String],
) -> Result<DrawingArea<DB, Shift>> {
    let height = area.dim_in_pixel().1;
    let (chart, foot) = area.split_vertically(height.saturating_sub(footnotes_height(notes)));
    let left = Pos::new(HPos::Left, VPos::Top);
    for (i, note) in notes.iter().enumerate() {
        let (text, px) = fitted(&foot, note, 13, 12);
        let style = TextStyle::from((FONT, px).into_font())
            .pos(left)
            .color(&RGBColor(90, 90, 90));
        foot.draw(&Text::new(
            text,
            (12, (FOOTNOTE_LINE * i as u32) as i32),
            style,
        ))
        .map_err(plot_err)?;
    }
    Ok(chart)
}

/// Draws `grid` filling `area`: labels left and above, one coloured cell
/// per value.
pub fn draw_grid<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, grid: &Grid) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let label_width = 220;
    let top = 70;
    let n_rows = grid.cells.len().max(1) as i32;
    let n_cols = grid.column_labels.len().max(1) as i32;
    let cell_w = (w - label_width - 20) / n_cols;
    let cell_h = (h - top - 20) / n_rows;
    let centred = |size: u32| {
        TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center))
    };
    let left = |size: u32, colour: &'static RGBColor| {
        TextStyle::from((FONT, size).into_font())
            .color(colour)
            .pos(Pos::new(HPos::Left, VPos::Center))
    };
    let (title, px) = fitted(area, &grid.title, 17, 10);
    area.draw(&Text::new(title, (10, 20), left(px, &BLACK)))
        .map_err(plot_err)?;
    // One size for every column's label, the largest at which each fits
    // its column; where that would be under 12 px, the labels take two
    // staggered lines, each with two columns' room. A label wider still
    // is kept inside the picture.
    let size_in = |room: i32| {
        (grid.column_labels.iter())
            .map(|label| size_fitting(label, 15, 9, (room - 4).max(1) as u32))
            .min()
            .unwrap_or(15)
    };
    let staggered = size_in(cell_w) < 12;
    let label_px = if staggered {
        size_in(2 * cell_w)
    } else {
        size_in(cell_w)
    };
    for (c, label) in grid.column_labels.iter().enumerate() {
        let half = text_width(label, f64::from(label_px))? as i32 / 2;
        let x = (label_width + c as i32 * cell_w + cell_w / 2).min(w - 2 - half);
        let y = if staggered && c % 2 == 1 {
            top - 33
        } else {
            top - 15
        };
        area.draw(&Text::new(label.clone(), (x, y), centred(label_px)))
            .map_err(plot_err)?;
    }
    for (r, row) in grid.cells.iter().enumerate() {
        let y = top + r as i32 * cell_h;
        let (label, flagged) = &grid.row_labels[r];
        let colour = if *flagged { &PALETTE[5] } else { &BLACK };
        area.draw(&Text::new(
            label.clone(),
            (10, y + cell_h / 2),
            left(14, colour),
        ))
        .map_err(plot_err)?;
        for (c, (cell_text, fill, outlined)) in row.iter().enumerate() {
            let x = label_width + c as i32 * cell_w;
            area.draw(&Rectangle::new(
                [(x, y), (x + cell_w, y + cell_h)],
                fill.filled(),
            ))
            .map_err(plot_err)?;
            area.draw(&Rectangle::new(
                [(x, y), (x + cell_w, y + cell_h)],
                RGBColor(200, 200, 200).stroke_width(1),
            ))
            .map_err(plot_err)?;
            if *outlined {
                area.draw(&Rectangle::new(
                    [(x + 2, y + 2), (x + cell_w - 2, y + cell_h - 2)],
                    BLACK.stroke_width(4),
                ))
                .map_err(plot_err)?;
            }
            area.draw(&Text::new(
                cell_text.clone(),
                (x + cell_w / 2, y + cell_h / 2),
                centred(14),
            ))
            .map_err(plot_err)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_on_a_colour_is_black_or_white_whichever_reads_better() {
        // Blue, green and vermilion take white; orange, pink, sky blue and
        // yellow take black.
        let on: Vec<RGBColor> = PALETTE.iter().map(|&c| text_on(c)).collect();
        assert_eq!(on, [WHITE, BLACK, BLACK, BLACK, BLACK, BLACK, BLACK]);
        assert_eq!(text_on(BLACK), WHITE);
        assert_eq!(text_on(WHITE), BLACK);
    }

    #[test]
    fn font_sizes_and_ticks_read_as_a_person_writes_them() {
        assert_eq!(
            round_font_sizes(
                r#"<text font-size="12.096774193548388">a</text><text font-size="15">b</text>"#
            ),
            r#"<text font-size="12.1">a</text><text font-size="15">b</text>"#
        );
        assert_eq!(tick(&60.0), "60");
        assert_eq!(tick(&0.30000000000000004), "0.3");
        assert_eq!(tick(&-2.5), "\u{2212}2.5");
        assert_eq!(tick(&-0.00001), "0");
        assert_eq!(tick(&1600.0), "1,600");
        assert_eq!(tick(&-12500.0), "\u{2212}12,500");
        assert_eq!(tick(&1250.5), "1250.5");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_names_the_file_and_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        // /dev/full refuses every write with ENOSPC, as a full disk does.
        std::os::unix::fs::symlink("/dev/full", dir.path().join("t.png")).unwrap();
        let caption = Caption {
            title: "t".into(),
            description: "t".into(),
        };
        let e = draw_publication(
            dir.path(),
            "t",
            (40, 30),
            &caption,
            |root| root.fill(&WHITE).map_err(plot_err),
            |root| root.fill(&WHITE).map_err(plot_err),
        )
        .unwrap_err();
        assert_eq!(
            format!("{e:#}"),
            "cannot write t.png: No space left on device (os error 28)"
        );
    }

    #[test]
    fn a_title_shrinks_then_is_cut_to_fit_its_chart_and_a_short_one_stays() {
        ensure_font().unwrap();
        let mut svg = String::new();
        let area = SVGBackend::with_string(&mut svg, (400, 100)).into_drawing_area();
        let width = |t: &str, px: u32| {
            let style = TextStyle::from((FONT, px).into_font());
            area.estimate_text_size(t, &style).unwrap().0
        };
        assert_eq!(fitted(&area, "Short", 18, 10), ("Short".to_owned(), 18));
        // A little too wide: smaller, whole.
        let medium = "Victory of the attacker by variant over 20,000 battles each, as written";
        assert!(width(medium, 18) > 380);
        let (text, px) = fitted(&area, medium, 18, 10);
        assert_eq!(text, medium);
        assert!(px < 18 && width(&text, px) <= 380, "{px}");
        // Far too wide: the smallest size, cut with an ellipsis.
        let long = medium.repeat(4);
        let (text, px) = fitted(&area, &long, 18, 10);
        assert_eq!(px, SMALLEST_TITLE);
        assert!(text.ends_with('…') && width(&text, px) <= 380, "{text}");
    }

    #[test]
    fn a_title_of_any_length_costs_a_few_short_measurements() {
        // Each character 10 px wide, 400 px of room: 40 characters fit.
        for length in [10, 1_000, 10_000, 100_000] {
            let text = "x".repeat(length);
            let (mut calls, mut measured) = (0, 0);
            let (shown, _) = fit(&text, 17, 401, |t, _| {
                calls += 1;
                measured += t.chars().count();
                10 * t.chars().count() <= 400
            });
            if length <= 40 {
                assert_eq!(shown, text);
            } else {
                // The longest start that fits with its ellipsis.
                assert_eq!(shown.chars().count(), 40, "{length}");
                assert!(shown.ends_with('…'));
            }
            // The sizes tried, then halving: never more, however long.
            assert!(
                calls <= 17 - SMALLEST_TITLE as usize + 12,
                "{length}: {calls} calls"
            );
            assert!(
                measured <= calls * 402,
                "{length}: {measured} characters measured"
            );
        }
    }

    #[test]
    fn a_long_name_is_cut_with_a_digest_that_keeps_two_apart() {
        let (a, b) = (
            format!("{}a", "x".repeat(300)),
            format!("{}b", "x".repeat(300)),
        );
        let (a, b) = (file_safe(&a), file_safe(&b));
        assert_eq!(a.len(), MAX_FILE_PART);
        assert_ne!(a, b);
        assert!(a.starts_with(&"x".repeat(50)), "{a}");
        assert_eq!(file_safe("hero:Titus"), "hero_Titus");
    }

    #[test]
    fn stems_that_collide_are_numbered() {
        let mut stems = Stems::default();
        let mut claim = |name: &str| stems.claim(format!("hist_{}", file_safe(name)));
        assert_eq!(claim("hero:Ti tus"), "hist_hero_Ti_tus");
        assert_eq!(claim("hero:Ti_tus"), "hist_hero_Ti_tus-2");
        assert_eq!(claim("hero:Ti:tus"), "hist_hero_Ti_tus-3");
        assert_eq!(claim("hero:Varro"), "hist_hero_Varro");
    }
}
