//! Counts and rates as people write them: `1000000`, `1_000_000`, `1e6`, `2.5e6`; `0.01`, `1e-3`,
//! `1%`.
//!
//! Every option that takes a count (`--items`, `--samples`, `--max-key-bytes`) reads it here,
//! exactly (decimal digits, never through a float, so `9007199254740993` stays itself), and
//! refuses what is not a whole number of things with an error that says why. A rate (`--fpr`)
//! is a fraction or a percentage; whether it is between 0 and 1 is the library's check.

/// The forms a count may take, for error messages.
const FORMS: &str = "a whole number such as 1000000, 1_000_000, 1e6 or 2.5e6";

/// Reads a count: decimal digits (`_` allowed between them), optionally with a fraction and an
/// exponent, whose value is a whole number from 0 to `u64::MAX`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let unreadable = || format!("not a count: expected {FORMS}");
    if text.starts_with('-') {
        return Err(format!("a count cannot be negative: expected {FORMS}"));
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let too_large = || format!("too large for a count (the largest is {})", u64::MAX);
    let exponent: i64 = match exponent {
        None => 0,
        Some(exponent) => {
            let negative = exponent.starts_with('-');
            let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(unreadable());
            }
            // Seven digits of exponent say the count is beyond u64 (or below one) anyway.
            let magnitude: i64 = digits.parse().unwrap_or(i64::MAX).min(9_999_999);
            if negative { -magnitude } else { magnitude }
        }
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digit_groups = |part: &str| {
        part.split('_')
            .all(|group| !group.is_empty() && group.bytes().all(|b| b.is_ascii_digit()))
    };
    let whole_ok = whole.is_empty() || digit_groups(whole);
    let fraction_ok = fraction.is_empty() || digit_groups(fraction);
    if whole.is_empty() && fraction.is_empty() || !whole_ok || !fraction_ok {
        return Err(unreadable());
    }
    let digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .filter(u8::is_ascii_digit)
        .map(|digit| digit - b'0')
        .collect();
    // The value is `digits` times 10^scale.
    let fraction_digits = fraction.bytes().filter(u8::is_ascii_digit).count() as i64;
    let scale = exponent - fraction_digits;
    let significant = digits
        .iter()
        .rposition(|&d| d != 0)
        .map_or(0, |last| last + 1);
    if significant == 0 {
        return Ok(0);
    }
    let trailing_zeros = (digits.len() - significant) as i64;
    if scale + trailing_zeros < 0 {
        return Err(format!("a count must be a whole number: expected {FORMS}"));
    }
    // Drop the trailing zeros a negative scale removes, then multiply by what is left.
    let (kept, scale) = if scale < 0 {
        (digits.len() - (-scale) as usize, 0)
    } else {
        (digits.len(), scale)
    };
    let mut value: u64 = 0;
    for &digit in &digits[..kept] {
        value = value
            .checked_mul(10)
            .and_then(|value| value.checked_add(u64::from(digit)))
            .ok_or_else(too_large)?;
    }
    for _ in 0..scale {
        value = value.checked_mul(10).ok_or_else(too_large)?;
    }
    Ok(value)
}

/// Reads a rate: a number (`0.01`, `1e-3`), or a percentage (`1%`, `0.1 %`), which is divided
/// by 100.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let (number, scale) = match text.trim_end().strip_suffix('%') {
        Some(percent) => (percent.trim_end(), 100.0),
        None => (text, 1.0),
    };
    number.parse::<f64>().map(|rate| rate / scale).map_err(|_| {
        "not a rate: write a fraction such as 0.01 or 1e-3, or a percentage such as 1%".to_owned()
    })
}

/// [`parse_count`] for a count held in a `usize`.
pub fn parse_usize_count(text: &str) -> Result<usize, String> {
    let count = parse_count(text)?;
    usize::try_from(count)
        .map_err(|_| format!("too large for a count (the largest is {})", usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::{parse_count, parse_rate};

    #[test]
    fn rates_as_fractions_or_percentages() {
        for (text, rate) in [
            ("0.01", 0.01),
            ("1e-3", 0.001),
            ("1%", 0.01),
            ("0.1%", 0.001),
            ("2.5 %", 0.025),
            ("150%", 1.5),
        ] {
            assert_eq!(parse_rate(text), Ok(rate), "{text}");
        }
        for text in ["", "%", "one percent", "1%%", "0,01"] {
            let error = parse_rate(text).unwrap_err();
            assert!(
                error.contains("1%") && error.contains("0.01"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn counts_in_every_form() {
        for (text, count) in [
            ("0", 0),
            ("1000000", 1_000_000),
            ("1_000_000", 1_000_000),
            ("1e6", 1_000_000),
            ("1E6", 1_000_000),
            ("+1e+6", 1_000_000),
            ("2.5e6", 2_500_000),
            ("2.50e1", 25),
            ("1.0", 1),
            ("150e-1", 15),
            ("0.0e9", 0),
            ("9007199254740993", 9_007_199_254_740_993),
            ("18446744073709551615", u64::MAX),
            ("1.8446744073709551615e19", u64::MAX),
        ] {
            assert_eq!(parse_count(text), Ok(count), "{text}");
        }
    }

    #[test]
    fn what_is_not_a_count_says_why() {
        for (text, why) in [
            ("1.5", "whole number"),
            ("2.55e1", "whole number"),
            ("1e-1", "whole number"),
            ("1e-99999999", "whole number"),
            ("-1", "negative"),
            ("-0", "negative"),
            ("18446744073709551616", "too large"),
            ("1e20", "too large"),
            ("1e999999999", "too large"),
            ("", "not a count"),
            ("abc", "not a count"),
            ("1e", "not a count"),
            ("_1", "not a count"),
            ("1__0", "not a count"),
            ("1_", "not a count"),
            (".", "not a count"),
            ("0x10", "not a count"),
            (" 1", "not a count"),
            ("inf", "not a count"),
            ("NaN", "not a count"),
        ] {
            let error = parse_count(text).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
