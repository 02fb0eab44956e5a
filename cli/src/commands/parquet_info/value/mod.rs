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

use encode::{decimal_example, int_range};
use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as PhysicalType};
use parquet::schema::types::ColumnDescriptor;

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
}

mod encode;
pub use encode::{Hashes, decode_hex};

#[cfg(test)]
mod tests;
