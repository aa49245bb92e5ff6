//! A drawing backend at a whole multiple of its pixels: a chart drawn on
//! `Scaled::new(backend, 2)` lays out exactly as at 1× (the same sizes,
//! the same text measures) and is rasterised at twice the resolution.
//! Made for the bitmap backend, whose filled rectangles end before their
//! far corner.

use plotters::prelude::*;
use plotters::style::text_anchor::Pos;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// `inner` seen as a canvas `factor` times smaller in each direction.
pub struct Scaled<B> {
    inner: B,
    factor: u32,
}

impl<B: DrawingBackend> Scaled<B> {
    /// `inner`, drawn on at `factor` device pixels a chart pixel (1 or more).
    pub fn new(inner: B, factor: u32) -> Self {
        Self {
            inner,
            factor: factor.max(1),
        }
    }

    fn k(&self) -> i32 {
        self.factor as i32
    }

    fn point(&self, (x, y): BackendCoord) -> BackendCoord {
        (x * self.k(), y * self.k())
    }
}

/// A style with its stroke widened by the scale.
struct Widened<'a, S> {
    style: &'a S,
    factor: u32,
}

impl<S: BackendStyle> BackendStyle for Widened<'_, S> {
    fn color(&self) -> BackendColor {
        self.style.color()
    }

    fn stroke_width(&self) -> u32 {
        self.style.stroke_width() * self.factor
    }
}

impl<B: DrawingBackend> DrawingBackend for Scaled<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        let (w, h) = self.inner.get_size();
        (w / self.factor, h / self.factor)
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if self.factor == 1 {
            return self.inner.draw_pixel(point, color);
        }
        // A filled rectangle of the bitmap backend ends before its far corner.
        let (from, to) = (self.point(point), self.point((point.0 + 1, point.1 + 1)));
        self.inner.draw_rect(from, to, &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (from, to) = (self.point(from), self.point(to));
        let style = Widened {
            style,
            factor: self.factor,
        };
        self.inner.draw_line(from, to, &style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (from, to) = (self.point(upper_left), self.point(bottom_right));
        let style = Widened {
            style,
            factor: self.factor,
        };
        self.inner.draw_rect(from, to, &style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let points: Vec<BackendCoord> = path.into_iter().map(|p| self.point(p)).collect();
        let style = Widened {
            style,
            factor: self.factor,
        };
        self.inner.draw_path(points, &style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let center = self.point(center);
        let style = Widened {
            style,
            factor: self.factor,
        };
        self.inner
            .draw_circle(center, radius * self.factor, &style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let points: Vec<BackendCoord> = vert.into_iter().map(|p| self.point(p)).collect();
        self.inner.fill_polygon(points, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let font = FontDesc::new(
            style.family(),
            style.size() * self.factor as f64,
            style.style(),
        )
        .transform(style.transform());
        let larger = TextStyle {
            font,
            color: style.color(),
            pos: Pos::new(style.anchor().h_pos, style.anchor().v_pos),
        };
        let pos = self.point(pos);
        self.inner.draw_text(text, &larger, pos)
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        // Measured at 1×, so the layout is the 1× layout.
        self.inner.estimate_text_size(text, style)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1× picture and its 2× copy: every 2×2 block of the copy is the
    /// colour of its pixel in the original wherever the picture is flat
    /// (rectangles), and the copy is twice the size.
    #[test]
    fn a_doubled_picture_is_the_picture_at_twice_the_pixels() {
        let draw = |factor: u32| -> Vec<u8> {
            let mut buffer = vec![0u8; (40 * factor * 30 * factor * 3) as usize];
            {
                let backend = BitMapBackend::with_buffer(&mut buffer, (40 * factor, 30 * factor));
                let root = Scaled::new(backend, factor).into_drawing_area();
                assert_eq!(root.dim_in_pixel(), (40, 30));
                root.fill(&WHITE).unwrap();
                root.draw(&Rectangle::new([(5, 4), (20, 12)], BLUE.filled()))
                    .unwrap();
                root.draw(&Rectangle::new([(25, 15), (35, 25)], RED.filled()))
                    .unwrap();
                root.present().unwrap();
            }
            buffer
        };
        let (one, two) = (draw(1), draw(2));
        assert_eq!(two.len(), 4 * one.len());
        let pixel = |buf: &[u8], width: usize, x: usize, y: usize| {
            let at = 3 * (y * width + x);
            [buf[at], buf[at + 1], buf[at + 2]]
        };
        let mut differing = 0;
        for y in 0..30 {
            for x in 0..40 {
                let original = pixel(&one, 40, x, y);
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    if pixel(&two, 80, 2 * x + dx, 2 * y + dy) != original {
                        differing += 1;
                    }
                }
            }
        }
        assert_eq!(differing, 0, "the 2× copy differs from the 1× picture");
        assert_ne!(
            pixel(&one, 40, 10, 8),
            pixel(&one, 40, 1, 1),
            "nothing drawn"
        );
    }
}
