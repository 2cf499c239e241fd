//! Line charts as PNG files, for `sprung plot`: a canvas, lines, a 5 x 7 pixel font and the few
//! lines of a PNG file around miniz_oxide's deflate; and a PNG reader, for tests that check a
//! picture.

use std::io::Write;

/// An RGB colour.
pub type Colour = [u8; 3];

/// One curve of a chart: its name in the legend, its colour and its (x, y) points.
pub type Series<'a> = (&'a str, Colour, Vec<(f64, f64)>);

/// A picture being drawn.
pub struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<Colour>,
}

/// Rows of the glyphs of the 5 x 7 font: each row's low 5 bits, most significant on the left.
fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'B' => [30, 17, 17, 30, 17, 17, 30],
        'C' => [14, 17, 16, 16, 16, 17, 14],
        'D' => [30, 17, 17, 17, 17, 17, 30],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'F' => [31, 16, 16, 30, 16, 16, 16],
        'G' => [14, 17, 16, 23, 17, 17, 15],
        'H' => [17, 17, 17, 31, 17, 17, 17],
        'I' => [14, 4, 4, 4, 4, 4, 14],
        'J' => [7, 2, 2, 2, 2, 18, 12],
        'K' => [17, 18, 20, 24, 20, 18, 17],
        'L' => [16, 16, 16, 16, 16, 16, 31],
        'M' => [17, 27, 21, 21, 17, 17, 17],
        'N' => [17, 17, 25, 21, 19, 17, 17],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'P' => [30, 17, 17, 30, 16, 16, 16],
        'Q' => [14, 17, 17, 17, 21, 18, 13],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'S' => [15, 16, 16, 14, 1, 1, 30],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        'U' => [17, 17, 17, 17, 17, 17, 14],
        'V' => [17, 17, 17, 17, 17, 10, 4],
        'W' => [17, 17, 17, 21, 21, 21, 10],
        'X' => [17, 17, 10, 4, 10, 17, 17],
        'Y' => [17, 17, 10, 4, 4, 4, 4],
        'Z' => [31, 1, 2, 4, 8, 16, 31],
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        ',' => [0, 0, 0, 0, 12, 4, 8],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '=' => [0, 0, 31, 0, 31, 0, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        '/' => [1, 1, 2, 4, 8, 16, 16],
        _ => [0; 7],
    }
}

impl Canvas {
    /// A white canvas.
    pub fn new(width: usize, height: usize) -> Self {
        Canvas {
            width,
            height,
            pixels: vec![[255, 255, 255]; width * height],
        }
    }

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

    /// Sets one pixel (outside the canvas: nothing).
    pub fn dot(&mut self, x: i64, y: i64, colour: Colour) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            self.pixels[y as usize * self.width + x as usize] = colour;
        }
    }

    /// A line `thickness` pixels wide from (x0, y0) to (x1, y1).
    pub fn line(
        &mut self,
        (x0, y0): (f64, f64),
        (x1, y1): (f64, f64),
        thickness: i64,
        colour: Colour,
    ) {
        let steps = ((x1 - x0).abs().max((y1 - y0).abs()).ceil() as i64).max(1);
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            for dx in 0..thickness {
                for dy in 0..thickness {
                    self.dot(
                        x.round() as i64 + dx - thickness / 2,
                        y.round() as i64 + dy - thickness / 2,
                        colour,
                    );
                }
            }
        }
    }

    /// Text in the 5 x 7 font, `scale` pixels per font pixel, top-left at (x, y).
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: i64, colour: Colour) {
        for (i, c) in text.chars().enumerate() {
            for (row, bits) in glyph(c).iter().enumerate() {
                for col in 0..5 {
                    if bits & (16 >> col) != 0 {
                        for sx in 0..scale {
                            for sy in 0..scale {
                                let px = x + (i as i64 * 6 + col) * scale + sx;
                                self.dot(px, y + row as i64 * scale + sy, colour);
                            }
                        }
                    }
                }
            }
        }
    }

    /// A filled rectangle.
    pub fn fill(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), colour: Colour) {
        for y in y0..y1 {
            for x in x0..x1 {
                self.dot(x, y, colour);
            }
        }
    }

    /// How many different colours the picture holds.
    pub fn colours(&self) -> usize {
        let mut seen: Vec<Colour> = self.pixels.clone();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// The picture as a PNG file.
    pub fn png(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity((self.width * 3 + 1) * self.height);
        for row in self.pixels.chunks(self.width) {
            raw.push(0); // filter: none
            raw.extend(row.iter().flatten());
        }
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
        let mut header = Vec::new();
        header.extend((self.width as u32).to_be_bytes());
        header.extend((self.height as u32).to_be_bytes());
        header.extend([8, 2, 0, 0, 0]); // 8-bit RGB, no interlace
        let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
        for (kind, data) in [(b"IHDR", header), (b"IDAT", zlib), (b"IEND", Vec::new())] {
            out.extend((data.len() as u32).to_be_bytes());
            let mut chunk = kind.to_vec();
            chunk.extend(&data);
            out.extend(&chunk);
            out.extend(crc32(&chunk).to_be_bytes());
        }
        out
    }

    /// Writes the PNG to `path`.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::File::create(path)?.write_all(&self.png())
    }
}

/// Reads a PNG file back into a canvas: 8-bit RGB or RGBA (alpha dropped), not interlaced,
/// any of the five row filters; CRCs are not checked. Enough to check the pictures this crate
/// and the viewer write; other PNGs are refused with the reason.
pub fn decode_png(png: &[u8]) -> Result<Canvas, String> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    if png.len() < 8 || png[..8] != SIGNATURE {
        return Err("not a PNG file".into());
    }
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut zlib = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().expect("4 bytes")) as usize;
        let kind = &png[at + 4..at + 8];
        let data = png
            .get(at + 8..at + 8 + len)
            .ok_or("a chunk runs past the end")?;
        match kind {
            b"IHDR" => {
                if data.len() != 13 {
                    return Err("bad IHDR".into());
                }
                width = u32::from_be_bytes(data[0..4].try_into().expect("4 bytes")) as usize;
                height = u32::from_be_bytes(data[4..8].try_into().expect("4 bytes")) as usize;
                channels = match (data[8], data[9], data[12]) {
                    (8, 2, 0) => 3,
                    (8, 6, 0) => 4,
                    (depth, colour, interlace) => {
                        return Err(format!(
                            "unsupported: bit depth {depth}, colour type {colour}, interlace {interlace}"
                        ))
                    }
                };
            }
            b"IDAT" => zlib.extend_from_slice(data),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    if channels == 0 {
        return Err("no IHDR".into());
    }
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&zlib)
        .map_err(|e| format!("bad deflate stream: {e:?}"))?;
    let stride = width * channels;
    if raw.len() != height * (stride + 1) {
        return Err(format!(
            "{} bytes of pixels for {width} x {height}",
            raw.len()
        ));
    }
    let mut previous = vec![0u8; stride];
    let mut pixels = Vec::with_capacity(width * height);
    for row in raw.chunks(stride + 1) {
        let (filter, bytes) = (row[0], &row[1..]);
        let mut line = vec![0u8; stride];
        for i in 0..stride {
            let left = if i >= channels { line[i - channels] } else { 0 };
            let up = previous[i];
            let up_left = if i >= channels {
                previous[i - channels]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((left as u16 + up as u16) / 2) as u8,
                4 => paeth(left, up, up_left),
                f => return Err(format!("unknown row filter {f}")),
            };
            line[i] = bytes[i].wrapping_add(predicted);
        }
        pixels.extend(line.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        previous = line;
    }
    Ok(Canvas {
        width,
        height,
        pixels,
    })
}

/// The PNG spec's Paeth predictor: whichever of left, up and up-left is nearest to
/// left + up - up-left.
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = a as i16 + b as i16 - c as i16;
    let (pa, pb, pc) = (
        (p - a as i16).abs(),
        (p - b as i16).abs(),
        (p - c as i16).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A chart: named series of (x, y) points drawn in a box with axes, ticks and a legend.
pub fn chart(
    title: &str,
    x_range: (f64, f64),
    y_range: (f64, f64),
    series: &[Series<'_>],
) -> Canvas {
    let (width, height) = (960usize, 600usize);
    let (left, right, top, bottom) = (70.0, 930.0, 60.0, 540.0);
    let mut canvas = Canvas::new(width, height);
    let map = |(x, y): (f64, f64)| {
        let px = left + (x - x_range.0) / (x_range.1 - x_range.0) * (right - left);
        let py = bottom - (y - y_range.0) / (y_range.1 - y_range.0) * (bottom - top);
        (px, py)
    };
    let grey = [200, 200, 200];
    let black = [40, 40, 40];
    // Grid and tick labels every 0.5 on x, 0.25 on y.
    let mut x = x_range.0;
    while x <= x_range.1 + 1e-9 {
        canvas.line(map((x, y_range.0)), map((x, y_range.1)), 1, grey);
        let (px, _) = map((x, y_range.0));
        canvas.text(
            px as i64 - 9,
            bottom as i64 + 8,
            &format!("{x:.1}"),
            2,
            black,
        );
        x += 0.5;
    }
    let mut y = y_range.0;
    while y <= y_range.1 + 1e-9 {
        canvas.line(map((x_range.0, y)), map((x_range.1, y)), 1, grey);
        let (_, py) = map((x_range.0, y));
        canvas.text(8, py as i64 - 7, &format!("{y:.2}"), 2, black);
        y += 0.25;
    }
    canvas.line((left, top), (left, bottom), 2, black);
    canvas.line((left, bottom), (right, bottom), 2, black);
    canvas.text(left as i64, 18, title, 3, black);
    canvas.text(right as i64 - 130, bottom as i64 + 32, "TIME (S)", 2, black);
    for (_, colour, points) in series {
        for pair in points.windows(2) {
            canvas.line(map(pair[0]), map(pair[1]), 3, *colour);
        }
    }
    // The legend in a box at the lower right, over the grid.
    let (lx, ly) = (
        right as i64 - 380,
        bottom as i64 - 24 - 24 * series.len() as i64,
    );
    canvas.fill(
        (lx - 10, ly - 10),
        (right as i64 - 6, bottom as i64 - 12),
        [255, 255, 255],
    );
    for (i, (name, colour, _)) in series.iter().enumerate() {
        let y = ly + i as i64 * 24;
        canvas.line(
            (lx as f64, y as f64 + 6.0),
            (lx as f64 + 36.0, y as f64 + 6.0),
            4,
            *colour,
        );
        canvas.text(lx + 46, y, name, 2, black);
    }
    canvas
}
