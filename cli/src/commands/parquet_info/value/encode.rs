//! From the text of a value to the hashes a writer computed: parsing per [`Kind`], the plain
//! encoding of what the column stores, and XXH64 of those bytes.

use splitbloom::parquet::hash;

use super::{DecimalStorage, Kind, Unit};

impl Kind {
    /// The hashes of `value` as a writer would have computed them: one, or two for a float
    /// zero (`0` and `-0.0` are equal in SQL but hash differently).
    pub fn hashes(&self, value: &[u8]) -> Result<Hashes, String> {
        let error = |why: String| {
            format!(
                "cannot read {:?} as {}: {why}; expected {}",
                String::from_utf8_lossy(value),
                self.name(),
                self.example()
            )
        };
        let text = || std::str::from_utf8(value).map_err(|_| error("not UTF-8".to_owned()));
        let one = |bytes: &[u8]| Hashes::one(hash(bytes));
        Ok(match self {
            Kind::String | Kind::Bytes => one(value),
            Kind::Fixed(length) => {
                if value.len() != *length {
                    return Err(error(format!("it has {} bytes", value.len())));
                }
                one(value)
            }
            Kind::Int {
                bits,
                signed,
                int64,
            } => {
                let number: i128 = text()?.parse().map_err(|e| error(format!("{e}")))?;
                let (low, high) = int_range(*bits, *signed);
                if number < low || number > high {
                    return Err(error("out of range".to_owned()));
                }
                // Unsigned values are stored with the same bits as their two's complement.
                if *int64 {
                    one(&(number as u64).to_le_bytes())
                } else {
                    one(&(number as u32).to_le_bytes())
                }
            }
            Kind::Float => {
                let number: f32 = text()?.parse().map_err(|e| error(format!("{e}")))?;
                float_hashes(
                    number == 0.0,
                    &number.to_le_bytes(),
                    &(-number).to_le_bytes(),
                )
            }
            Kind::Double => {
                let number: f64 = text()?.parse().map_err(|e| error(format!("{e}")))?;
                float_hashes(
                    number == 0.0,
                    &number.to_le_bytes(),
                    &(-number).to_le_bytes(),
                )
            }
            Kind::Float16 => {
                let number: half::f16 = text()?.parse().map_err(|e| error(format!("{e}")))?;
                let zero = number == half::f16::ZERO;
                float_hashes(zero, &number.to_le_bytes(), &(-number).to_le_bytes())
            }
            Kind::Date => {
                let date: jiff::civil::Date = text()?.parse().map_err(|e| error(format!("{e}")))?;
                let days = jiff::civil::date(1970, 1, 1)
                    .until((jiff::Unit::Day, date))
                    .map_err(|e| error(format!("{e}")))?
                    .get_days();
                one(&days.to_le_bytes())
            }
            Kind::Time { unit } => {
                let time: jiff::civil::Time = text()?.parse().map_err(|e| error(format!("{e}")))?;
                let nanos = ((i128::from(time.hour()) * 60 + i128::from(time.minute())) * 60
                    + i128::from(time.second()))
                    * 1_000_000_000
                    + i128::from(time.subsec_nanosecond());
                let units = in_units(nanos, *unit).map_err(error)?;
                if *unit == Unit::Millis {
                    one(&(units as i32).to_le_bytes())
                } else {
                    one(&(units as i64).to_le_bytes())
                }
            }
            Kind::Timestamp { unit, utc } => {
                let text = text()?;
                let nanos = timestamp_nanos(text, *utc).map_err(error)?;
                let units = in_units(nanos, *unit).map_err(error)?;
                let units = i64::try_from(units)
                    .map_err(|_| error(format!("out of range for {}", unit.name())))?;
                one(&units.to_le_bytes())
            }
            Kind::Decimal {
                precision,
                scale,
                storage,
            } => {
                let unscaled = parse_decimal(text()?, *precision, *scale).map_err(error)?;
                let bytes = decimal_bytes(unscaled, *storage).map_err(error)?;
                one(&bytes)
            }
            Kind::Uuid => {
                let uuid = uuid::Uuid::try_parse(text()?).map_err(|e| error(format!("{e}")))?;
                one(uuid.as_bytes())
            }
            Kind::Other { name, .. } => {
                return Err(format!(
                    "values of {name} columns can only be given as their plain-encoded bytes \
                     with --hex"
                ));
            }
        })
    }

    /// The hash of `bytes` given with `--hex`: the value's plain encoding (little-endian numbers,
    /// the bytes of strings and byte arrays).
    pub fn hex_hash(&self, bytes: &[u8]) -> Result<Hashes, String> {
        if let Kind::Other {
            hashable: false,
            name,
            ..
        } = self
        {
            return Err(format!("{name} columns have no bloom filter values"));
        }
        if let Some(width) = self.width()
            && bytes.len() != width
        {
            return Err(format!(
                "a {} value is {width} bytes ({} hex digits), not {}",
                self.name(),
                2 * width,
                bytes.len()
            ));
        }
        Ok(Hashes::one(hash(bytes)))
    }
}

/// The hashes one value may have in a filter: the value may be present if any of them is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hashes {
    pub(super) first: u64,
    pub(super) second: Option<u64>,
}

impl Hashes {
    pub(super) fn one(first: u64) -> Hashes {
        Hashes {
            first,
            second: None,
        }
    }

    /// Appends the hashes to `out`.
    pub fn push_to(self, out: &mut Vec<u64>) {
        out.push(self.first);
        out.extend(self.second);
    }

    /// How many hashes there are (1 or 2).
    pub fn len(self) -> usize {
        1 + usize::from(self.second.is_some())
    }
}

/// A float's hashes: both zeros for a zero (SQL's `= 0` matches `-0.0` too).
fn float_hashes(zero: bool, bytes: &[u8], negated: &[u8]) -> Hashes {
    let (a, b) = (hash(bytes), hash(negated));
    if zero {
        // In one order whichever zero was written.
        Hashes {
            first: a.min(b),
            second: Some(a.max(b)),
        }
    } else {
        Hashes::one(a)
    }
}

/// The smallest and largest integers of `bits` bits.
pub(super) fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `nanos` in `unit`s, or an error when that loses precision.
fn in_units(nanos: i128, unit: Unit) -> Result<i128, String> {
    if nanos % unit.nanos() != 0 {
        return Err(format!(
            "more precise than the column's unit ({})",
            unit.name()
        ));
    }
    Ok(nanos / unit.nanos())
}

/// Nanoseconds since 1970-01-01T00:00 of an ISO 8601 date-time: an instant with its offset, or
/// a date-time without offset (UTC for `utc` columns; the wall-clock time for local ones).
fn timestamp_nanos(text: &str, utc: bool) -> Result<i128, String> {
    if let Ok(instant) = text.parse::<jiff::Timestamp>() {
        if !utc {
            return Err(
                "the column holds local date-times without time zone: leave the offset out"
                    .to_owned(),
            );
        }
        return Ok(instant.as_nanosecond());
    }
    let local: jiff::civil::DateTime = text.parse().map_err(|e| format!("{e}"))?;
    let instant = jiff::tz::Offset::UTC
        .to_timestamp(local)
        .map_err(|e| format!("{e}"))?;
    Ok(instant.as_nanosecond())
}

/// The unscaled integer of decimal `text` at `scale`, checked against `precision`.
fn parse_decimal(text: &str, precision: u32, scale: u32) -> Result<i128, String> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err("not a decimal number".to_owned());
    }
    let scale = scale as usize;
    let kept = fraction.trim_end_matches('0');
    if kept.len() > scale {
        return Err(format!("more than {scale} digits after the point"));
    }
    let too_many = || format!("more than {precision} digits");
    let mut unscaled: i128 = 0;
    let fraction_digits = fraction.bytes().chain(std::iter::repeat(b'0')).take(scale);
    for digit in whole.bytes().chain(fraction_digits) {
        unscaled = unscaled
            .checked_mul(10)
            .and_then(|n| n.checked_add(i128::from(digit - b'0')))
            .ok_or_else(too_many)?;
    }
    if precision < 39 && unscaled >= 10i128.pow(precision) {
        return Err(too_many());
    }
    Ok(if negative { -unscaled } else { unscaled })
}

/// The plain encoding of an unscaled decimal in `storage`.
fn decimal_bytes(unscaled: i128, storage: DecimalStorage) -> Result<Vec<u8>, String> {
    let too_wide = || "too large for the column's storage".to_owned();
    Ok(match storage {
        DecimalStorage::Int32 => i32::try_from(unscaled)
            .map_err(|_| too_wide())?
            .to_le_bytes()
            .to_vec(),
        DecimalStorage::Int64 => i64::try_from(unscaled)
            .map_err(|_| too_wide())?
            .to_le_bytes()
            .to_vec(),
        DecimalStorage::Fixed(length) => {
            let full = unscaled.to_be_bytes();
            let fill = if unscaled < 0 { 0xff } else { 0 };
            if length >= 16 {
                let mut bytes = vec![fill; length - 16];
                bytes.extend_from_slice(&full);
                bytes
            } else {
                let (dropped, kept) = full.split_at(16 - length);
                let sign_kept = kept
                    .first()
                    .is_some_and(|b| (b & 0x80 != 0) == (unscaled < 0));
                if !dropped.iter().all(|&b| b == fill) || !sign_kept {
                    return Err(too_wide());
                }
                kept.to_vec()
            }
        }
        DecimalStorage::Bytes => {
            let full = unscaled.to_be_bytes();
            // Drop leading bytes that only repeat the sign.
            let mut start = 0;
            while start < 15 {
                let (byte, next) = (full[start], full[start + 1]);
                if (byte == 0 && next & 0x80 == 0) || (byte == 0xff && next & 0x80 != 0) {
                    start += 1;
                } else {
                    break;
                }
            }
            full[start..].to_vec()
        }
    })
}

/// A decimal of the given shape, for error messages: `123.45` for DECIMAL(5,2).
pub(super) fn decimal_example(precision: u32, scale: u32) -> String {
    let whole = precision.saturating_sub(scale).clamp(1, 3) as usize;
    let whole = &"123"[..whole];
    if scale == 0 {
        whole.to_owned()
    } else {
        format!("{whole}.{}", &"4567890123"[..scale.min(2) as usize])
    }
}

/// The bytes of hex text (upper or lower case, an even number of digits).
pub fn decode_hex(text: &[u8]) -> Result<Vec<u8>, String> {
    let digit = |byte: u8| match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    };
    let invalid = || {
        format!(
            "cannot read {:?} as hex: expected an even number of hex digits, such as 00ff10",
            String::from_utf8_lossy(text)
        )
    };
    if !text.len().is_multiple_of(2) {
        return Err(invalid());
    }
    text.chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)
}
