//! The value parsers against hand-computed plain encodings.

use splitbloom::parquet::hash;

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
