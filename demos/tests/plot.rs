//! `sprung plot springs` draws a real picture: a PNG with the curves in it.

#[test]
fn the_springs_plot_is_a_picture() {
    let canvas = sprung_demos::spring_plot::springs();
    // Seven curves, grid, text and background: many colours, not a blank page.
    assert!(canvas.colours() > 8, "only {} colours", canvas.colours());
    let png = canvas.png();
    assert_eq!(&png[..8], &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    assert_eq!(&png[12..16], b"IHDR");
    assert_eq!(
        u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
        960
    );
    assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    // The pixels survive the deflate: inflating the IDAT gives one filter byte plus 3 per pixel
    // on every row.
    let idat = png.windows(4).position(|w| w == b"IDAT").unwrap();
    let len =
        u32::from_be_bytes([png[idat - 4], png[idat - 3], png[idat - 2], png[idat - 1]]) as usize;
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&png[idat + 4..idat + 4 + len]).unwrap();
    assert_eq!(raw.len(), 600 * (960 * 3 + 1));
    let inked = raw
        .chunks(3)
        .filter(|p| p.len() == 3 && p != &[255, 255, 255])
        .count();
    assert!(inked > 20_000, "{inked} non-white pixels");
}

/// The PNG reader reads back what the writer wrote, pixel for pixel.
#[test]
fn a_png_reads_back_as_written() {
    let canvas = sprung_demos::spring_plot::springs();
    let back = sprung_demos::plot::decode_png(&canvas.png()).unwrap();
    assert_eq!(back.size(), canvas.size());
    assert!(back.pixels() == canvas.pixels());
    assert!(sprung_demos::plot::decode_png(b"not a png").is_err());
}

/// Rows filtered each of the PNG's five ways (as other writers do) read back to the pixels.
#[test]
fn every_png_row_filter_reads_back() {
    let (width, height) = (7usize, 10usize);
    let pixel = |x: usize, y: usize| -> [u8; 3] {
        let v = (x * 37 + y * 91 + x * y * 13) as u8;
        [v, v.wrapping_mul(3), 255 - v]
    };
    let paeth = |a: u8, b: u8, c: u8| {
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
    };
    let mut raw = Vec::new();
    let mut previous = vec![0u8; width * 3];
    for y in 0..height {
        let line: Vec<u8> = (0..width).flat_map(|x| pixel(x, y)).collect();
        let filter = (y % 5) as u8;
        raw.push(filter);
        for i in 0..line.len() {
            let left = if i >= 3 { line[i - 3] } else { 0 };
            let up = previous[i];
            let up_left = if i >= 3 { previous[i - 3] } else { 0 };
            let predicted = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((left as u16 + up as u16) / 2) as u8,
                _ => paeth(left, up, up_left),
            };
            raw.push(line[i].wrapping_sub(predicted));
        }
        previous = line;
    }
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut header = Vec::new();
    header.extend((width as u32).to_be_bytes());
    header.extend((height as u32).to_be_bytes());
    header.extend([8, 2, 0, 0, 0]);
    let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
    for (kind, data) in [(b"IHDR", header), (b"IDAT", zlib), (b"IEND", Vec::new())] {
        png.extend((data.len() as u32).to_be_bytes());
        png.extend(kind);
        png.extend(&data);
        png.extend([0; 4]); // the reader does not check CRCs
    }
    let back = sprung_demos::plot::decode_png(&png).unwrap();
    assert_eq!(back.size(), (width, height));
    for y in 0..height {
        for x in 0..width {
            assert_eq!(back.pixels()[y * width + x], pixel(x, y), "({x}, {y})");
        }
    }
}
