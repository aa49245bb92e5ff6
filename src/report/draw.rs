//! The chart toolkit every report draws with: the palette, the embedded
//! font, SVG and PNG drawn from one picture, and file-safe names.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

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

/// Registers the embedded font with plotters (once per process).
pub fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
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

/// Draws the same picture as `<stem>.svg` and `<stem>.png`.
pub fn draw_both(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    draw_svg: impl Fn(DrawingArea<SVGBackend, Shift>) -> Result<()>,
    draw_png: impl Fn(DrawingArea<BitMapBackend, Shift>) -> Result<()>,
) -> Result<Vec<String>> {
    ensure_font()?;
    let svg = format!("{stem}.svg");
    let png = format!("{stem}.png");
    let (svg_path, png_path) = (dir.join(&svg), dir.join(&png));
    draw_svg(SVGBackend::new(&svg_path, size).into_drawing_area())?;
    draw_png(BitMapBackend::new(&png_path, size).into_drawing_area())?;
    Ok(vec![svg, png])
}

/// A name reduced to letters, digits and underscores.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() => c.to_string(),
            '<' => "_lt_".to_owned(),
            '>' => "_gt_".to_owned(),
            '=' => "_eq_".to_owned(),
            '|' => "_or_".to_owned(),
            _ => "_".to_owned(),
        })
        .collect()
}
