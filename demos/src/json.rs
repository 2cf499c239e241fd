//! The one JSON line a run reports (SCENES.md), written by hand: a handful of keys does not
//! need a serialisation crate.

use std::fmt::Write;

/// A JSON object being written, key by key, on one line.
#[derive(Default)]
pub struct Line {
    text: String,
}

impl Line {
    fn key(&mut self, key: &str) {
        self.text.push(if self.text.is_empty() { '{' } else { ',' });
        let _ = write!(self.text, "\"{key}\":");
    }

    /// A string value.
    pub fn string(mut self, key: &str, value: &str) -> Self {
        self.key(key);
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = write!(self.text, "\"{escaped}\"");
        self
    }

    /// A number (non-finite numbers become null, which JSON can hold).
    pub fn number(mut self, key: &str, value: f64) -> Self {
        self.key(key);
        if value.is_finite() {
            let _ = write!(self.text, "{value}");
        } else {
            self.text.push_str("null");
        }
        self
    }

    /// A boolean.
    pub fn boolean(mut self, key: &str, value: bool) -> Self {
        self.key(key);
        let _ = write!(self.text, "{value}");
        self
    }

    /// A nested object, already written.
    pub fn object(mut self, key: &str, value: Line) -> Self {
        self.key(key);
        self.text.push_str(&value.finish());
        self
    }

    /// The object's text.
    pub fn finish(mut self) -> String {
        if self.text.is_empty() {
            self.text.push('{');
        }
        self.text.push('}');
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_one_line_of_json() {
        let inner = Line::default()
            .number("max_drift", 0.25)
            .number("nan", f64::NAN);
        let line = Line::default()
            .string("scene", "py\"ramid")
            .boolean("ok", true)
            .object("checks", inner)
            .finish();
        assert_eq!(
            line,
            r#"{"scene":"py\"ramid","ok":true,"checks":{"max_drift":0.25,"nan":null}}"#
        );
    }
}
