//! Values as users write them, turned into the hashes a Parquet writer put in a column's bloom
//! filters.
//!
//! A writer hashes the *plain encoding* of the stored value (XXH64, seed 0), and what is
//! stored depends on the column's logical type: a DATE is days since 1970 in an INT32, a
//! DECIMAL(9,2) `0.05` is the unscaled integer 5 (in an INT32, an INT64, big-endian
//! two's-complement bytes of a FIXED_LEN_BYTE_ARRAY, or the shortest such bytes in a
//! BYTE_ARRAY), a UUID is its 16 bytes. So each value is parsed per the column's [`Kind`] into
//! those bytes; text that does not parse is an error naming the type and an accepted form,
//! never a silent "absent".
//!
//! Dates and times are parsed with `jiff`, UUIDs with `uuid`, FLOAT16 with `half`; decimals have
//! no crate that keeps 38 digits exactly and every storage width, so they are parsed here.

use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as PhysicalType};
use parquet::schema::types::ColumnDescriptor;
use splitbloom::parquet::hash;

/// The unit of a TIME or TIMESTAMP column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    Millis,
    Micros,
    Nanos,
}

impl Unit {
    fn from_parquet(unit: &TimeUnit) -> Unit {
        match unit {
            TimeUnit::MILLIS => Unit::Millis,
            TimeUnit::MICROS => Unit::Micros,
            TimeUnit::NANOS => Unit::Nanos,
        }
    }

    /// Nanoseconds in one unit.
    fn nanos(self) -> i128 {
        match self {
            Unit::Millis => 1_000_000,
            Unit::Micros => 1_000,
            Unit::Nanos => 1,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Unit::Millis => "MILLIS",
            Unit::Micros => "MICROS",
            Unit::Nanos => "NANOS",
        }
    }
}

/// How a DECIMAL's unscaled integer is stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DecimalStorage {
    Int32,
    Int64,
    /// Big-endian two's complement in exactly this many bytes.
    Fixed(usize),
    /// Big-endian two's complement in the fewest bytes.
    Bytes,
}

/// What a column's values are, as far as hashing them goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// An integer of `bits` bits stored in an INT32 (`bits` ≤ 32) or an INT64.
    Int {
        bits: u32,
        signed: bool,
        int64: bool,
    },
    Float,
    Double,
    Float16,
    /// Days since 1970-01-01 in an INT32.
    Date,
    /// Time of day since midnight (INT32 for MILLIS, INT64 otherwise).
    Time {
        unit: Unit,
    },
    /// Instants (`utc`) or local date-times since 1970-01-01T00:00 in an INT64.
    Timestamp {
        unit: Unit,
        utc: bool,
    },
    Decimal {
        precision: u32,
        scale: u32,
        storage: DecimalStorage,
    },
    Uuid,
    /// Text (STRING, ENUM, JSON): the argument's bytes.
    String,
    /// Other BYTE_ARRAY columns: the argument's bytes (`--hex` for arbitrary bytes).
    Bytes,
    /// FIXED_LEN_BYTE_ARRAY of this length without a logical type this tool reads.
    Fixed(usize),
    /// A type only `--hex` can express (INT96, INTERVAL, ...), or none (BOOLEAN).
    Other {
        name: String,
        width: Option<usize>,
        hashable: bool,
    },
}

impl Kind {
    /// The kind of `column`, from its logical type, else its converted (legacy) type.
    pub fn of(column: &ColumnDescriptor) -> Kind {
        let physical = column.physical_type();
        let int64 = physical == PhysicalType::INT64;
        let length = usize::try_from(column.type_length()).unwrap_or(0);
        let decimal = |precision: i32, scale: i32| {
            // Parquet allows up to 38 digits in 16 bytes (76 in 32); more, or a scale beyond
            // the precision, is a malformed schema: only --hex then.
            if !(1..=76).contains(&precision) || !(0..=precision).contains(&scale) {
                return Kind::Other {
                    name: format!("DECIMAL({precision},{scale})"),
                    width: (physical == PhysicalType::FIXED_LEN_BYTE_ARRAY).then_some(length),
                    hashable: true,
                };
            }
            let storage = match physical {
                PhysicalType::INT32 => DecimalStorage::Int32,
                PhysicalType::INT64 => DecimalStorage::Int64,
                PhysicalType::FIXED_LEN_BYTE_ARRAY => DecimalStorage::Fixed(length),
                _ => DecimalStorage::Bytes,
            };
            Kind::Decimal {
                precision: u32::try_from(precision).unwrap_or(0),
                scale: u32::try_from(scale).unwrap_or(0),
                storage,
            }
        };
        let by_logical = match column.logical_type_ref() {
            Some(LogicalType::Integer(int))
                if matches!(physical, PhysicalType::INT32 | PhysicalType::INT64) =>
            {
                Some(Kind::Int {
                    bits: u32::try_from(int.bit_width).unwrap_or(64).clamp(1, 64),
                    signed: int.is_signed,
                    int64,
                })
            }
            Some(LogicalType::Date) if physical == PhysicalType::INT32 => Some(Kind::Date),
            Some(LogicalType::Time(time))
                if matches!(physical, PhysicalType::INT32 | PhysicalType::INT64) =>
            {
                Some(Kind::Time {
                    unit: Unit::from_parquet(&time.unit),
                })
            }
            Some(LogicalType::Timestamp(stamp)) if int64 => Some(Kind::Timestamp {
                unit: Unit::from_parquet(&stamp.unit),
                utc: stamp.is_adjusted_to_u_t_c,
            }),
            Some(LogicalType::Decimal(d)) if physical != PhysicalType::BOOLEAN => {
                Some(decimal(d.precision, d.scale))
            }
            Some(LogicalType::Uuid) if physical == PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                (length == 16).then_some(Kind::Uuid)
            }
            Some(LogicalType::Float16) if physical == PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                (length == 2).then_some(Kind::Float16)
            }
            Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
                if physical == PhysicalType::BYTE_ARRAY =>
            {
                Some(Kind::String)
            }
            _ => None,
        };
        if let Some(kind) = by_logical {
            return kind;
        }
        let int = |bits, signed| Kind::Int {
            bits,
            signed,
            int64,
        };
        let by_converted = match column.converted_type() {
            ConvertedType::INT_8 => Some(int(8, true)),
            ConvertedType::INT_16 => Some(int(16, true)),
            ConvertedType::INT_32 => Some(int(32, true)),
            ConvertedType::INT_64 => Some(int(64, true)),
            ConvertedType::UINT_8 => Some(int(8, false)),
            ConvertedType::UINT_16 => Some(int(16, false)),
            ConvertedType::UINT_32 => Some(int(32, false)),
            ConvertedType::UINT_64 => Some(int(64, false)),
            ConvertedType::DATE => Some(Kind::Date),
            ConvertedType::TIME_MILLIS => Some(Kind::Time { unit: Unit::Millis }),
            ConvertedType::TIME_MICROS => Some(Kind::Time { unit: Unit::Micros }),
            // The legacy TIMESTAMP types are instants (UTC-adjusted).
            ConvertedType::TIMESTAMP_MILLIS => Some(Kind::Timestamp {
                unit: Unit::Millis,
                utc: true,
            }),
            ConvertedType::TIMESTAMP_MICROS => Some(Kind::Timestamp {
                unit: Unit::Micros,
                utc: true,
            }),
            ConvertedType::DECIMAL => Some(decimal(column.type_precision(), column.type_scale())),
            ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON => Some(Kind::String),
            _ => None,
        };
        // A logical or converted type that does not fit the physical type is ignored.
        let fits = |kind: &Kind| match kind {
            Kind::Int { bits, .. } => {
                (physical == PhysicalType::INT32 && *bits <= 32) || (int64 && *bits == 64)
            }
            Kind::Date => physical == PhysicalType::INT32,
            Kind::Time { unit } => {
                (physical == PhysicalType::INT32) == (*unit == Unit::Millis)
                    && matches!(physical, PhysicalType::INT32 | PhysicalType::INT64)
            }
            Kind::Timestamp { .. } => int64,
            Kind::Decimal { .. } | Kind::Other { .. } => physical != PhysicalType::BOOLEAN,
            Kind::String => physical == PhysicalType::BYTE_ARRAY,
            Kind::Uuid | Kind::Float16 => physical == PhysicalType::FIXED_LEN_BYTE_ARRAY,
            _ => false,
        };
        if let Some(kind) = by_logical.filter(fits) {
            return kind;
        }
        if let Some(kind) = by_converted.filter(fits) {
            return kind;
        }
        match physical {
            PhysicalType::INT32 => int(32, true),
            PhysicalType::INT64 => int(64, true),
            PhysicalType::FLOAT => Kind::Float,
            PhysicalType::DOUBLE => Kind::Double,
            PhysicalType::BYTE_ARRAY => Kind::Bytes,
            PhysicalType::FIXED_LEN_BYTE_ARRAY => Kind::Fixed(length),
            PhysicalType::INT96 => Kind::Other {
                name: "INT96".to_owned(),
                width: Some(12),
                hashable: true,
            },
            PhysicalType::BOOLEAN => Kind::Other {
                name: "BOOLEAN".to_owned(),
                width: Some(1),
                hashable: false,
            },
        }
    }

    /// The type as this tool reads it, for listings and error messages.
    pub fn name(&self) -> String {
        match self {
            Kind::Int { bits, signed, .. } => {
                format!("{}INT{bits}", if *signed { "" } else { "U" })
            }
            Kind::Float => "FLOAT".to_owned(),
            Kind::Double => "DOUBLE".to_owned(),
            Kind::Float16 => "FLOAT16".to_owned(),
            Kind::Date => "DATE".to_owned(),
            Kind::Time { unit } => format!("TIME({})", unit.name()),
            Kind::Timestamp { unit, utc } => format!(
                "TIMESTAMP({}, {})",
                unit.name(),
                if *utc { "UTC" } else { "local" }
            ),
            Kind::Decimal {
                precision, scale, ..
            } => format!("DECIMAL({precision},{scale})"),
            Kind::Uuid => "UUID".to_owned(),
            Kind::String => "STRING".to_owned(),
            Kind::Bytes => "BYTE_ARRAY".to_owned(),
            Kind::Fixed(length) => format!("FIXED_LEN_BYTE_ARRAY({length})"),
            Kind::Other { name, .. } => name.clone(),
        }
    }

    /// An example of a value this kind accepts, for error messages.
    fn example(&self) -> String {
        match self {
            Kind::Int { bits, signed, .. } => {
                let (low, high) = int_range(*bits, *signed);
                format!("an integer from {low} to {high}")
            }
            Kind::Float | Kind::Double | Kind::Float16 => {
                "a number such as 1.5, -2e3, inf or NaN".to_owned()
            }
            Kind::Date => "a date such as 2024-01-31".to_owned(),
            Kind::Time { .. } => "a time of day such as 13:45:00.250".to_owned(),
            Kind::Timestamp { utc: true, .. } => {
                "a date-time such as 2024-01-31T13:45:00.250Z or 2024-01-31T14:45:00+01:00 \
                 (without an offset: UTC)"
                    .to_owned()
            }
            Kind::Timestamp { utc: false, .. } => {
                "a local date-time without offset, such as 2024-01-31T13:45:00.250".to_owned()
            }
            Kind::Decimal {
                precision, scale, ..
            } => {
                format!(
                    "a decimal number of at most {precision} digits, {scale} after the point, \
                     such as {}",
                    decimal_example(*precision, *scale)
                )
            }
            Kind::Uuid => "a UUID such as 67e55044-10b1-426f-9247-bb680e5fe0c8".to_owned(),
            Kind::Fixed(length) => format!("{length} bytes (or --hex with {} digits)", 2 * length),
            Kind::Other { .. } | Kind::String | Kind::Bytes => "--hex bytes".to_owned(),
        }
    }

    /// The bytes of one plain-encoded value, if the kind has a fixed width.
    fn width(&self) -> Option<usize> {
        match self {
            Kind::Int { int64: false, .. } | Kind::Float | Kind::Date => Some(4),
            Kind::Int { int64: true, .. } | Kind::Double | Kind::Timestamp { .. } => Some(8),
            Kind::Time { unit } => Some(if *unit == Unit::Millis { 4 } else { 8 }),
            Kind::Float16 => Some(2),
            Kind::Uuid => Some(16),
            Kind::Fixed(length) => Some(*length),
            Kind::Decimal { storage, .. } => match storage {
                DecimalStorage::Int32 => Some(4),
                DecimalStorage::Int64 => Some(8),
                DecimalStorage::Fixed(length) => Some(*length),
                DecimalStorage::Bytes => None,
            },
            Kind::String | Kind::Bytes => None,
            Kind::Other { width, .. } => *width,
        }
    }

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
    first: u64,
    second: Option<u64>,
}

impl Hashes {
    fn one(first: u64) -> Hashes {
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
fn int_range(bits: u32, signed: bool) -> (i128, i128) {
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
fn decimal_example(precision: u32, scale: u32) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u32, signed: bool, int64: bool) -> Kind {
        Kind::Int {
            bits,
            signed,
            int64,
        }
    }

    #[test]
    fn integers_of_every_width_and_sign() {
        let u32_max = int(32, false, false).hashes(b"4294967295").unwrap();
        assert_eq!(u32_max, Hashes::one(hash(&(-1i32))));
        assert!(int(32, false, false).hashes(b"-1").is_err());
        assert!(int(8, true, false).hashes(b"128").is_err());
        assert_eq!(
            int(8, true, false).hashes(b"-128").unwrap(),
            Hashes::one(hash(&(-128i32)))
        );
        assert_eq!(
            int(64, false, true)
                .hashes(b"18446744073709551615")
                .unwrap(),
            Hashes::one(hash(&(-1i64)))
        );
        let error = int(16, false, false).hashes(b"x").unwrap_err();
        assert!(
            error.contains("UINT16") && error.contains("0 to 65535"),
            "{error}"
        );
    }

    #[test]
    fn decimals_in_every_storage() {
        let decimal = |storage| Kind::Decimal {
            precision: 9,
            scale: 2,
            storage,
        };
        let h = |kind: Kind, text: &str| kind.hashes(text.as_bytes()).unwrap();
        assert_eq!(
            h(decimal(DecimalStorage::Int32), "0.05"),
            Hashes::one(hash(&5i32))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Int32), "-1.5"),
            Hashes::one(hash(&(-150i32)))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Int32), ".5"),
            Hashes::one(hash(&50i32))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Int64), "0.050"),
            Hashes::one(hash(&5i64))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Fixed(4)), "0.05"),
            Hashes::one(hash(&[0u8, 0, 0, 5]))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Fixed(4)), "-0.01"),
            Hashes::one(hash(&[0xffu8; 4]))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Bytes), "1.28"),
            Hashes::one(hash(&[0u8, 128]))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Bytes), "-1.28"),
            Hashes::one(hash(&[0x80u8]))
        );
        assert_eq!(
            h(decimal(DecimalStorage::Bytes), "0"),
            Hashes::one(hash(&[0u8]))
        );
        for bad in ["0.001", "10000000.00", "1e3", "", "-", "1.2.3", "0x10"] {
            assert!(
                decimal(DecimalStorage::Int32)
                    .hashes(bad.as_bytes())
                    .is_err(),
                "{bad}"
            );
        }
        let wide = Kind::Decimal {
            precision: 38,
            scale: 0,
            storage: DecimalStorage::Fixed(16),
        };
        assert!(
            wide.hashes(b"99999999999999999999999999999999999999")
                .is_ok()
        );
        assert!(
            wide.hashes(b"100000000000000000000000000000000000000")
                .is_err()
        );
    }

    #[test]
    fn dates_times_and_time_stamps() {
        assert_eq!(
            Kind::Date.hashes(b"1970-01-02").unwrap(),
            Hashes::one(hash(&1i32))
        );
        assert_eq!(
            Kind::Date.hashes(b"1969-12-31").unwrap(),
            Hashes::one(hash(&(-1i32)))
        );
        assert!(Kind::Date.hashes(b"2024-02-30").is_err());
        let stamp = |unit, utc| Kind::Timestamp { unit, utc };
        let second = |unit, utc, text: &str| stamp(unit, utc).hashes(text.as_bytes()).unwrap();
        assert_eq!(
            second(Unit::Millis, true, "1970-01-01T00:00:01Z"),
            Hashes::one(hash(&1000i64))
        );
        assert_eq!(
            second(Unit::Micros, true, "1970-01-01T01:00:01+01:00"),
            Hashes::one(hash(&1_000_000i64))
        );
        assert_eq!(
            second(Unit::Nanos, false, "1970-01-01 00:00:00.000000001"),
            Hashes::one(hash(&1i64))
        );
        assert!(
            stamp(Unit::Millis, true)
                .hashes(b"1970-01-01T00:00:00.0001Z")
                .is_err()
        );
        assert!(
            stamp(Unit::Micros, false)
                .hashes(b"1970-01-01T00:00:00Z")
                .is_err()
        );
        assert_eq!(
            Kind::Time { unit: Unit::Millis }
                .hashes(b"00:00:01.5")
                .unwrap(),
            Hashes::one(hash(&1500i32))
        );
    }

    #[test]
    fn floats_zeros_uuids_and_bytes() {
        let zero = Kind::Double.hashes(b"0").unwrap();
        assert_eq!(zero.len(), 2);
        assert_eq!(zero, Kind::Double.hashes(b"-0.0").unwrap());
        assert_eq!(zero.first.min(zero.second.unwrap()), zero.first);
        assert!([zero.first, zero.second.unwrap()].contains(&hash(&(-0.0f64))));
        assert_eq!(
            Kind::Float16.hashes(b"958.5").unwrap(),
            Hashes::one(hash(&[0x7du8, 0x63]))
        );
        assert_eq!(
            Kind::Uuid
                .hashes(b"00000000-0000-0000-0000-0000000000ff")
                .unwrap(),
            Hashes::one(hash(&{
                let mut b = [0u8; 16];
                b[15] = 0xff;
                b
            }))
        );
        assert!(Kind::Uuid.hashes(b"not-a-uuid").is_err());
        assert!(Kind::Fixed(4).hashes(b"abc").is_err());
        assert_eq!(decode_hex(b"00fF").unwrap(), vec![0, 255]);
        assert!(decode_hex(b"0").is_err() && decode_hex(b"zz").is_err());
        assert!(Kind::Double.hex_hash(&[0; 4]).is_err());
    }
}
