//! How many samples per pixel the window asks for, when `--msaa` does not say.
//!
//! Under software GL (Mesa's llvmpipe: CI, a machine without a GPU, a virtual display) four
//! samples per pixel cost more than any scene: at 1280x720 on two cores a frame of the nearly
//! empty `bullet` scene took 44 ms with four samples against 14 ms with one. On a GPU they cost
//! nothing. But the window's sample count is fixed before there is a GL to ask what it is, so
//! the default is a guess from what the machine has ([`likely_software_gl`]), checked once the
//! window is open ([`software_gl`]): a wrong guess is said on stderr with the option that fixes
//! it. (Multisampling offscreen, chosen after the GL is known, was tried: macroquad's render
//! targets have a 16-bit depth buffer, which z-fights at the viewer's depth range.)

use std::ffi::CStr;

/// Samples per pixel on a GPU unless asked otherwise.
pub const GPU_SAMPLES: i32 = 4;

/// The window's samples per pixel: `requested`, or [`GPU_SAMPLES`] unless the GL is likely
/// software, then one.
pub fn samples(requested: Option<i32>) -> i32 {
    requested.unwrap_or(if likely_software_gl() { 1 } else { GPU_SAMPLES })
}

/// Whether GL will likely render in software: Mesa is told to (`LIBGL_ALWAYS_SOFTWARE`,
/// `GALLIUM_DRIVER`), or, on Linux, there is no GPU device to render on (no DRI render node and
/// no NVIDIA device), so that Mesa can only fall back to llvmpipe.
pub fn likely_software_gl() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if set("LIBGL_ALWAYS_SOFTWARE") {
        return true;
    }
    if let Some(driver) = std::env::var_os("GALLIUM_DRIVER") {
        let driver = driver.to_string_lossy().to_ascii_lowercase();
        if ["llvmpipe", "softpipe", "swr"].contains(&driver.as_str()) {
            return true;
        }
    }
    if cfg!(target_os = "linux") {
        let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        });
        let nvidia = std::path::Path::new("/dev/nvidia0").exists();
        return !render_node && !nvidia;
    }
    false
}

/// Whether the current GL renders in software (its renderer names one of Mesa's software
/// rasterisers). Needs the window's GL context.
pub fn software_gl() -> bool {
    use macroquad::miniquad::gl::glGetString;
    /// GL's name for the renderer string (miniquad does not export it).
    const GL_RENDERER: u32 = 0x1F01;
    // SAFETY: called on the window's thread with its context current (inside macroquad's
    // main future); glGetString returns a static NUL-terminated string, or null.
    let renderer = unsafe { glGetString(GL_RENDERER) };
    if renderer.is_null() {
        return false;
    }
    // SAFETY: not null, and GL promises NUL termination.
    let name = unsafe { CStr::from_ptr(renderer.cast()) }.to_string_lossy();
    let name = name.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "software"]
        .iter()
        .any(|s| name.contains(s))
}
