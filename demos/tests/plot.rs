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
