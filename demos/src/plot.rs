//! Pictures: line charts drawn by plotters into an RGB buffer with an embedded TrueType font
//! (DejaVu Sans, `assets/`: no system fonts needed), PNG files written and read back by the
//! png crate. `sprung plot` draws them; the tests and the viewer's screenshots read them.

use std::error::Error;
use std::ops::Range;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::FontStyle;

/// An RGB colour.
pub type Colour = [u8; 3];

/// One curve of a chart: its name in the legend, its colour and its (x, y) points.
pub type Series<'a> = (&'a str, Colour, Vec<(f64, f64)>);

/// A picture: RGB pixels, row after row from the top.
#[derive(Clone, Debug, PartialEq)]
pub struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<Colour>,
}

impl Canvas {
    /// A canvas of `pixels`, row after row from the top; `None` unless there are
    /// `width * height` of them.
    pub fn from_pixels(width: usize, height: usize, pixels: Vec<Colour>) -> Option<Self> {
        (pixels.len() == width * height).then_some(Canvas {
            width,
            height,
            pixels,
        })
    }

    /// Width and height (pixels).
    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// The pixels, row after row from the top.
    pub fn pixels(&self) -> &[Colour] {
        &self.pixels
    }

    /// How many distinct colours the picture holds.
    pub fn colours(&self) -> usize {
        let mut seen: Vec<Colour> = self.pixels.clone();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// How many pixels are within `tolerance` (per channel) of `colour`.
    pub fn count_near(&self, colour: Colour, tolerance: u8) -> usize {
        self.pixels
            .iter()
            .filter(|p| {
                p.iter()
                    .zip(colour)
                    .all(|(a, b)| a.abs_diff(b) <= tolerance)
            })
            .count()
    }

    /// The picture as a PNG file (8-bit RGB).
    pub fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Best);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut writer = encoder.write_header().expect("a PNG header in memory");
        writer
            .write_image_data(self.pixels.as_flattened())
            .expect("the pixels fill the picture");
        writer.finish().expect("a PNG in memory");
        out
    }

    /// Writes the PNG to `path`.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.png())
    }
}

/// Reads a PNG file into a canvas: 8-bit RGB, RGBA (alpha dropped), grey or grey with alpha,
/// any filter or interlacing the png crate reads; other PNGs are refused with the reason.
pub fn decode_png(bytes: &[u8]) -> Result<Canvas, String> {
    let mut decoder = png::Decoder::new(bytes);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).map_err(|e| e.to_string())?;
    let data = &buffer[..info.buffer_size()];
    let channels = info.color_type.samples();
    if info.bit_depth != png::BitDepth::Eight {
        return Err(format!("{:?} bits a sample: 8 expected", info.bit_depth));
    }
    let pixels: Vec<Colour> = data
        .chunks(channels)
        .map(|p| match channels {
            1 | 2 => [p[0]; 3],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    Canvas::from_pixels(info.width as usize, info.height as usize, pixels)
        .ok_or_else(|| "pixel data of the wrong size".to_string())
}

/// The embedded font, registered with plotters once.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let font = include_bytes!("../assets/DejaVuSans.ttf");
        // The bytes are a valid TrueType font (a test draws text with them).
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, font);
    });
}

/// What a chart shows: its title, its axes' labels (with units) and ranges, and its curves.
pub struct Chart<'a> {
    /// The title, above the plot.
    pub title: &'a str,
    /// The x axis's label.
    pub x_label: &'a str,
    /// The y axis's label.
    pub y_label: &'a str,
    /// The curves.
    pub series: Vec<Series<'a>>,
    /// Where the legend goes (where the curves leave room).
    pub legend: SeriesLabelPosition,
}

/// An axis label: the shortest decimal that names the `f32` nearest the tick, in scientific
/// notation below 0.001 (a log axis's ticks carry `f64` rounding: 0.0070000000001).
fn tick(value: &f64) -> String {
    let v = *value as f32;
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A part of a picture being drawn.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

/// Draws one panel of a picture into its area.
pub type Panel<'p> = &'p dyn Fn(&Area<'_>) -> Result<(), Box<dyn Error>>;

/// A picture of `width` x `height` pixels split into panels side by side, each drawn by one
/// function of its area.
pub fn panels((width, height): (usize, usize), draw: &[Panel<'_>]) -> Canvas {
    register_font();
    let mut buffer = vec![0u8; width * height * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (width as u32, height as u32))
            .into_drawing_area();
        root.fill(&WHITE).expect("drawing in memory");
        let areas = root.split_evenly((1, draw.len().max(1)));
        for (area, draw) in areas.iter().zip(draw) {
            // A failure to draw one panel leaves it blank rather than losing the picture.
            if let Err(e) = draw(area) {
                eprintln!("plot: {e}");
            }
        }
        root.present().expect("drawing in memory");
    }
    let pixels = buffer.chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    Canvas::from_pixels(width, height, pixels).expect("the buffer is the picture's size")
}

/// Draws `chart` into `area` on axes `x` and `y` (plain ranges, or `.log_scale()` ones).
pub fn draw_chart<X, Y>(
    area: &Area<'_>,
    chart: &Chart<'_>,
    x: X,
    y: Y,
) -> Result<(), Box<dyn Error>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut context = ChartBuilder::on(area)
        .caption(chart.title, ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)?;
    context
        .configure_mesh()
        .x_desc(chart.x_label)
        .y_desc(chart.y_label)
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (name, [r, g, b], points) in &chart.series {
        let colour = RGBColor(*r, *g, *b);
        context
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    context
        .configure_series_labels()
        .position(chart.legend.clone())
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .label_font(("sans-serif", 14))
        .draw()?;
    Ok(())
}

/// One chart, linear axes over `x` and `y`, as a `width` x `height` picture.
pub fn chart(size: (usize, usize), chart: &Chart<'_>, x: Range<f64>, y: Range<f64>) -> Canvas {
    panels(
        size,
        &[&|area| draw_chart(area, chart, x.clone(), y.clone())],
    )
}
