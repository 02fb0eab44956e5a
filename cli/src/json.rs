//! The one shape of every `--json` output, written out by hand: the CLI prints a few flat
//! objects, and bytes that are not UTF-8 need a rule of their own that no serializer gives.

use std::fmt::Write;

/// `--json`'s short help.
pub const SHORT_HELP: &str = "Print JSON Lines instead of text (the shape is in --help)";

/// `--json`'s long help: the convention every subcommand follows.
pub const LONG_HELP: &str = "\
Print JSON Lines instead of text: one JSON object per line on standard output. Commands that \
print records (query, dedup, parquet-info) print one object per record; the others (build, \
merge, info, bench) one object per run. A key or value is \"value\": a string when its bytes \
are UTF-8, otherwise \"value_hex\": its bytes as lowercase hex digits, so two different inputs \
never print the same object (a file name likewise: \"file\" or \"file_hex\"). Rates are \
fractions (0.01, not 1%), times nanoseconds per operation, sizes bytes. Messages and warnings \
stay text on standard error.";

/// `text` as a JSON string (quotes included).
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The member `"NAME":"text"` when `bytes` are UTF-8, else `"NAME_hex":"hex digits"`: bytes
/// that are not text are shown exactly, never replaced by look-alike characters.
pub fn bytes_member(name: &str, bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => format!("\"{name}\":{}", string(text)),
        Err(_) => {
            let mut hex = String::with_capacity(2 * bytes.len());
            for byte in bytes {
                let _ = write!(hex, "{byte:02x}");
            }
            format!("\"{name}_hex\":\"{hex}\"")
        }
    }
}

/// `value` as a JSON number (Rust prints finite floats without exponents); `null` otherwise.
pub fn number(value: f64) -> String {
    if value.is_finite() {
        format!("{value}")
    } else {
        "null".to_owned()
    }
}

/// A list of integers as a JSON array (parquet-info's row groups).
#[cfg(feature = "parquet")]
pub fn array(items: impl IntoIterator<Item = impl std::fmt::Display>) -> String {
    let items: Vec<String> = items.into_iter().map(|item| item.to_string()).collect();
    format!("[{}]", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::{bytes_member, string};

    #[test]
    fn strings_are_escaped_and_bytes_that_are_not_text_are_hex() {
        assert_eq!(string("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
        assert_eq!(bytes_member("value", b"caf\xc3\xa9"), "\"value\":\"café\"");
        assert_eq!(
            bytes_member("value", b"caf\xe9"),
            "\"value_hex\":\"636166e9\""
        );
        assert_ne!(
            bytes_member("value", b"\xff"),
            bytes_member("value", b"\xfe")
        );
    }
}
