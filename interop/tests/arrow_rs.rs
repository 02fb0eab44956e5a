//! Interoperability with arrow-rs's `parquet` crate, an independent SBBF implementation:
//! bitsets built by either side answer identically on the other, byte for byte, and a real
//! Parquet file written by arrow-rs yields its column chunks' filters to splitbloom.

use std::collections::HashSet;
use std::sync::Arc;

use parquet::bloom_filter::Sbbf;
use parquet::data_type::{
    AsBytes, ByteArray, ByteArrayType, DoubleType, FixedLenByteArray, FixedLenByteArrayType,
    FloatType, Int32Type, Int64Type,
};
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use splitbloom::parquet::{ParquetHash, ParquetValue, Sizing};
use splitbloom::{Filter, FilterRef};

const COUNT: usize = 100_000;

/// A seeded RNG, so failures reproduce.
fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// `count` distinct members and `count` distinct non-members drawn with `draw`.
fn distinct<V: Clone + Eq + std::hash::Hash>(
    count: usize,
    mut draw: impl FnMut() -> V,
) -> (Vec<V>, Vec<V>) {
    let mut seen = HashSet::new();
    let mut all = Vec::with_capacity(2 * count);
    while all.len() < 2 * count {
        let value = draw();
        if seen.insert(value.clone()) {
            all.push(value);
        }
    }
    let strangers = all.split_off(count);
    (all, strangers)
}

/// Both directions for one physical type; `arrow` gives the value as arrow-rs hashes it.
fn check_both_directions<V: ParquetValue, A: AsBytes + ?Sized>(
    name: &str,
    members: &[V],
    strangers: &[V],
    arrow: impl Fn(&V) -> &A,
) {
    // (a) splitbloom builds, arrow-rs reads.
    let mut ours = Sizing::for_items(members.len() as u64, 0.01)
        .unwrap()
        .filter()
        .unwrap();
    for value in members {
        ours.insert_value(value);
    }
    let bytes = ours.to_parquet_bytes().unwrap();
    let theirs = Sbbf::from_bytes(&bytes).unwrap();
    assert!(
        members.iter().all(|value| theirs.check(arrow(value))),
        "{name}: arrow-rs misses a member of a splitbloom-built filter"
    );
    let mut false_positives = 0;
    for value in strangers {
        let answer = ours.contains_value(value);
        assert_eq!(theirs.check(arrow(value)), answer, "{name}: answers differ");
        false_positives += usize::from(answer);
    }
    let fpr = false_positives as f64 / strangers.len() as f64;
    assert!(fpr < 0.015, "{name}: {fpr}");
    let bare = Sbbf::new(&ours.to_parquet_bitset());
    assert!(members.iter().all(|value| bare.check(arrow(value))));

    // (b) arrow-rs builds, splitbloom reads.
    let mut theirs = Sbbf::new_with_ndv_fpp(members.len() as u64, 0.01).unwrap();
    for value in members {
        theirs.insert(arrow(value));
    }
    let mut written = Vec::new();
    theirs.write(&mut written).unwrap();
    let (ours, len) = Filter::<ParquetHash>::from_parquet_bytes(&written).unwrap();
    assert_eq!(len, written.len());
    let (view, _) = FilterRef::<ParquetHash>::from_parquet_bytes(&written).unwrap();
    assert!(
        members
            .iter()
            .all(|value| ours.contains_value(value) && view.contains_value(value)),
        "{name}: splitbloom misses a member of an arrow-rs-built filter"
    );
    for value in strangers {
        let answer = theirs.check(arrow(value));
        assert_eq!(ours.contains_value(value), answer, "{name}: answers differ");
        assert_eq!(view.contains_value(value), answer, "{name}: answers differ");
    }

    // Same size, same values: the same bytes, header included.
    let mut same_size =
        Filter::with_num_blocks_and_hasher(theirs.num_blocks(), ParquetHash::default()).unwrap();
    for value in members {
        same_size.insert_value(value);
    }
    assert!(same_size.to_parquet_bytes().unwrap() == written, "{name}");
    println!(
        "{name}: {} members found both ways, {} non-members agree both ways, {} bytes identical",
        members.len(),
        strangers.len(),
        written.len()
    );
}

#[test]
fn int32() {
    let mut rng = rng(1);
    let (members, strangers) = distinct(COUNT, || rng.random::<i32>());
    check_both_directions("INT32", &members, &strangers, |v| v);
}

#[test]
fn int64() {
    let mut rng = rng(2);
    let (members, strangers) = distinct(COUNT, || rng.random::<i64>());
    check_both_directions("INT64", &members, &strangers, |v| v);
}

#[test]
fn float_and_double() {
    let mut rng = rng(3);
    let (members, strangers) = distinct(COUNT, || rng.random::<u32>());
    let members: Vec<f32> = members.into_iter().map(f32::from_bits).collect();
    let strangers: Vec<f32> = strangers.into_iter().map(f32::from_bits).collect();
    check_both_directions("FLOAT", &members, &strangers, |v| v);
    let (members, strangers) = distinct(COUNT, || rng.random::<u64>());
    let members: Vec<f64> = members.into_iter().map(f64::from_bits).collect();
    let strangers: Vec<f64> = strangers.into_iter().map(f64::from_bits).collect();
    check_both_directions("DOUBLE", &members, &strangers, |v| v);
}

#[test]
fn byte_array_strings() {
    let mut rng = rng(4);
    let (members, strangers) = distinct(COUNT, || {
        let len = rng.random_range(0..40);
        (0..len)
            .map(|_| char::from(rng.random_range(b' '..=b'~')))
            .collect::<String>()
    });
    check_both_directions("BYTE_ARRAY", &members, &strangers, |v| v.as_str());
}

#[test]
fn fixed_len_byte_array() {
    let mut rng = rng(5);
    let (members, strangers) = distinct(COUNT, || rng.random::<[u8; 16]>());
    check_both_directions("FIXED_LEN_BYTE_ARRAY(16)", &members, &strangers, |v| &v[..]);
}

/// arrow-rs folds its filters after writing; folding the same filter as often in splitbloom
/// gives the same bytes.
#[test]
fn folding_matches_arrow_rs() {
    let mut rng = rng(6);
    let (members, _) = distinct(20_000, || rng.random::<i64>());
    let mut theirs = Sbbf::new_with_num_of_bytes(1 << 20);
    let mut ours =
        Filter::with_num_blocks_and_hasher(theirs.num_blocks(), ParquetHash::default()).unwrap();
    for value in &members {
        theirs.insert(value);
        ours.insert_value(value);
    }
    theirs.fold_to_target_fpp(0.01);
    let folds = (ours.num_blocks() / theirs.num_blocks()).trailing_zeros();
    assert!(folds >= 2, "{folds}");
    for _ in 0..folds {
        ours.fold().unwrap();
    }
    let mut written = Vec::new();
    theirs.write(&mut written).unwrap();
    assert!(ours.to_parquet_bytes().unwrap() == written);
}

/// A real Parquet file with bloom filters, written by arrow-rs: splitbloom reads every column
/// chunk's filter at its `bloom_filter_offset` and finds every value.
#[test]
fn real_parquet_file_bloom_filters() {
    let rows = 20_000;
    let mut rng = rng(7);
    let (ints, other_ints) = distinct(rows, || rng.random::<i32>());
    let (longs, other_longs) = distinct(rows, || rng.random::<i64>());
    let (floats, other_floats) = distinct(rows, || rng.random::<u32>());
    let (doubles, other_doubles) = distinct(rows, || rng.random::<u64>());
    let (strings, other_strings) = distinct(rows, || format!("key-{}", rng.random::<u64>()));
    let (fixed, other_fixed) = distinct(rows, || rng.random::<[u8; 16]>());
    let floats: Vec<f32> = floats.into_iter().map(f32::from_bits).collect();
    let doubles: Vec<f64> = doubles.into_iter().map(f64::from_bits).collect();

    let schema = Arc::new(
        parse_message_type(
            "message test {
                REQUIRED INT32 i;
                REQUIRED INT64 l;
                REQUIRED FLOAT f;
                REQUIRED DOUBLE d;
                REQUIRED BYTE_ARRAY s (UTF8);
                REQUIRED FIXED_LEN_BYTE_ARRAY (16) x;
            }",
        )
        .unwrap(),
    );
    let properties = Arc::new(
        WriterProperties::builder()
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_max_ndv(rows as u64)
            .set_bloom_filter_fpp(0.01)
            .build(),
    );
    let mut file = Vec::new();
    {
        let mut writer = SerializedFileWriter::new(&mut file, schema, properties).unwrap();
        let mut row_group = writer.next_row_group().unwrap();
        let mut column = 0;
        while let Some(mut writer) = row_group.next_column().unwrap() {
            match column {
                0 => writer.typed::<Int32Type>().write_batch(&ints, None, None),
                1 => writer.typed::<Int64Type>().write_batch(&longs, None, None),
                2 => writer.typed::<FloatType>().write_batch(&floats, None, None),
                3 => writer
                    .typed::<DoubleType>()
                    .write_batch(&doubles, None, None),
                4 => {
                    let values: Vec<ByteArray> = strings
                        .iter()
                        .map(|s| ByteArray::from(s.as_str()))
                        .collect();
                    writer
                        .typed::<ByteArrayType>()
                        .write_batch(&values, None, None)
                }
                _ => {
                    let values: Vec<FixedLenByteArray> = fixed
                        .iter()
                        .map(|v| FixedLenByteArray::from(v.to_vec()))
                        .collect();
                    writer
                        .typed::<FixedLenByteArrayType>()
                        .write_batch(&values, None, None)
                }
            }
            .unwrap();
            writer.close().unwrap();
            column += 1;
        }
        row_group.close().unwrap();
        writer.close().unwrap();
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bloom_filters.parquet");
    std::fs::write(&path, &file).unwrap();

    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader =
        SerializedFileReader::new_with_options(std::fs::File::open(&path).unwrap(), options)
            .unwrap();
    let row_group = reader.get_row_group(0).unwrap();
    let metadata = reader.metadata().row_group(0);
    let mut filters = Vec::new();
    for column in 0..6 {
        let chunk = metadata.column(column);
        let offset = chunk.bloom_filter_offset().expect("a bloom filter") as usize;
        let (filter, len) = Filter::<ParquetHash>::from_parquet_bytes(&file[offset..]).unwrap();
        if let Some(length) = chunk.bloom_filter_length() {
            assert_eq!(len, length as usize);
        }
        assert!(row_group.get_column_bloom_filter(column).is_some());
        filters.push(filter);
    }

    /// Members all found; non-members answered as arrow-rs's own reader answers.
    fn check<V: ParquetValue, A: AsBytes + ?Sized>(
        filter: &Filter<ParquetHash>,
        theirs: &Sbbf,
        members: &[V],
        strangers: &[V],
        arrow: impl Fn(&V) -> &A,
    ) {
        assert!(members.iter().all(|value| filter.contains_value(value)));
        for value in strangers {
            assert_eq!(filter.contains_value(value), theirs.check(arrow(value)));
        }
        let hits = strangers
            .iter()
            .filter(|v| filter.contains_value(*v))
            .count();
        assert!(hits < strangers.len() / 20, "{hits}");
    }
    let theirs = |column| row_group.get_column_bloom_filter(column).unwrap();
    check(&filters[0], theirs(0), &ints, &other_ints, |v| v);
    check(&filters[1], theirs(1), &longs, &other_longs, |v| v);
    let other_floats: Vec<f32> = other_floats.into_iter().map(f32::from_bits).collect();
    check(&filters[2], theirs(2), &floats, &other_floats, |v| v);
    let other_doubles: Vec<f64> = other_doubles.into_iter().map(f64::from_bits).collect();
    check(&filters[3], theirs(3), &doubles, &other_doubles, |v| v);
    check(&filters[4], theirs(4), &strings, &other_strings, |v| {
        v.as_str()
    });
    check(&filters[5], theirs(5), &fixed, &other_fixed, |v| &v[..]);
    std::fs::remove_file(&path).unwrap();
}
