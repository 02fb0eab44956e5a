//! `splitbloom info`: what a filter file holds, as text and as JSON.

use splitbloom::{Filter, FilterHasher};

use crate::support::{GxHash, Xxh3, fails, path, run, scratch, succeeded, with_hasher_id};

#[test]
fn info_reports_the_filter_as_text_and_json() {
    let dir = scratch("info");
    let filter_path = path(&dir, "f.sbf");
    let keys: Vec<u8> = (0..5000)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    succeeded(run(
        &[
            "build",
            "-n",
            "5000",
            "-p",
            "0.01",
            "--hasher",
            "xxh3",
            "-o",
            &filter_path,
        ],
        &keys,
    ));
    let filter =
        Filter::<Xxh3>::from_bytes_with_hasher_type(&std::fs::read(&filter_path).unwrap()).unwrap();

    let text = String::from_utf8(succeeded(run(&["info", &filter_path], b""))).unwrap();
    assert!(text.contains("hasher           xxh3 (seed 0)"), "{text}");
    assert!(
        text.contains(&format!("blocks           {}\n", filter.num_blocks())),
        "{text}"
    );

    let json = succeeded(run(&["info", "--json", &filter_path], b""));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["hasher"], "xxh3");
    assert_eq!(json["seed"], 0);
    assert_eq!(json["blocks"], filter.num_blocks() as u64);
    assert_eq!(json["bytes"], filter.serialized_len() as u64);
    let items = json["estimated_items"].as_f64().unwrap();
    assert!((items - 5000.0).abs() < 250.0, "{items}");
    let fpr = json["estimated_fpr"].as_f64().unwrap();
    assert!(fpr > 0.002 && fpr < 0.012, "{fpr}");
    let bits = json["bits_per_key"].as_f64().unwrap();
    assert!((bits * items / (256.0 * filter.num_blocks() as f64) - 1.0).abs() < 1e-3);

    // An empty filter has no bits per key.
    succeeded(run(
        &["build", "-n", "10", "-p", "0.01", "-o", &filter_path],
        b"",
    ));
    let json = succeeded(run(&["info", "--json", &filter_path], b""));
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(json["bits_per_key"].is_null());
    assert_eq!(json["estimated_fpr"], 0.0);
}

/// `info` on a scalable filter shows its parameters and stages.
#[test]
fn info_shows_a_scalable_filters_header() {
    let dir = scratch("info_scalable");
    let mut scalable = splitbloom::ScalableFilter::with_fpr(100, 0.01).unwrap();
    for key in 0..1000u64 {
        scalable.insert(&key).unwrap();
    }
    let stages = scalable.stages().len();
    assert!(stages > 1);
    let file = path(&dir, "scalable.sbs");
    let bytes = scalable.to_bytes();
    std::fs::write(&file, &bytes).unwrap();
    let text = String::from_utf8(succeeded(run(&["info", &file], b""))).unwrap();
    assert!(text.contains("scalable filter"), "{text}");
    assert!(
        text.contains(&format!("stages           {stages}\n")),
        "{text}"
    );
    assert!(text.contains("initial capacity 100\n"), "{text}");
    assert!(text.contains("target FPR       0.01\n"), "{text}");
    assert!(
        text.contains(&format!("bytes            {}\n", bytes.len())),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&succeeded(run(&["info", "--json", &file], b""))).unwrap();
    assert_eq!(json["format"], "scalable");
    assert_eq!(json["stages"].as_array().unwrap().len(), stages);
    assert_eq!(json["bytes"], bytes.len());
    assert_eq!(
        json["stages"][0]["bytes"],
        scalable.stages()[0].serialized_len()
    );
    // Damaged: truncated, and a flipped parameter (header checksum).
    let truncated = path(&dir, "truncated.sbs");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).unwrap();
    fails(run(&["info", &truncated], b""), "truncated");
    let mut flipped = bytes.clone();
    flipped[8] ^= 1;
    let flipped_file = path(&dir, "flipped.sbs");
    std::fs::write(&flipped_file, &flipped).unwrap();
    fails(run(&["info", &flipped_file], b""), "corrupt");
    // Reserved bytes set, under a valid checksum: refused as the library refuses them (info
    // read this header with its own copy of the reader, which skipped these bytes).
    let mut reserved = bytes.clone();
    reserved[6] = 1;
    let checksum = xxhash_rust::xxh3::xxh3_64(&reserved[..56]);
    reserved[56..64].copy_from_slice(&checksum.to_le_bytes());
    assert!(splitbloom::ScalableFilter::from_bytes(&reserved).is_err());
    let reserved_file = path(&dir, "reserved.sbs");
    std::fs::write(&reserved_file, &reserved).unwrap();
    fails(run(&["info", &reserved_file], b""), "flags");
}

/// `info` on a Parquet file points to `parquet-info`.
#[cfg(feature = "parquet")]
#[test]
fn info_on_a_parquet_file_points_to_parquet_info() {
    let dir = scratch("info_parquet");
    let file = path(&dir, "data.parquet");
    crate::support::parquet_file(std::path::Path::new(&file));
    fails(run(&["info", &file], b""), "is a Parquet file");
    fails(run(&["info", &file], b""), "splitbloom parquet-info");
    fails(run(&["query", &file, "x"], b""), "splitbloom parquet-info");
}

/// A filter hashed with gxhash, made from an xxh3 filter by rewriting its hasher byte and
/// checksum, so the bytes are the same whether or not this build has AES.
fn gxhash_filter_bytes(xxh3_filter: &[u8]) -> Vec<u8> {
    with_hasher_id(xxh3_filter, GxHash::KIND.id())
}

/// `info` shows a gxhash filter's header and statistics in every build (it needs no hashing);
/// `query` in a build without AES says what to do.
#[test]
fn info_shows_a_gxhash_filter_without_hashing() {
    let dir = scratch("info_gxhash");
    let source = path(&dir, "xxh3.sbf");
    succeeded(run(
        &[
            "build", "-n", "100", "-p", "0.01", "--hasher", "xxh3", "-o", &source,
        ],
        b"a\nb\nc\n",
    ));
    let reference: serde_json::Value =
        serde_json::from_slice(&succeeded(run(&["info", "--json", &source], b""))).unwrap();
    let file = path(&dir, "gxhash.sbf");
    std::fs::write(&file, gxhash_filter_bytes(&std::fs::read(&source).unwrap())).unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&succeeded(run(&["info", "--json", &file], b""))).unwrap();
    assert_eq!(json["hasher"], "gxhash");
    for field in [
        "blocks",
        "bytes",
        "fill_ratio",
        "estimated_items",
        "estimated_fpr",
    ] {
        assert_eq!(json[field], reference[field], "{field}");
    }
    let text = String::from_utf8(succeeded(run(&["info", &file], b""))).unwrap();
    assert!(text.contains("hasher           gxhash"), "{text}");
    if !GxHash::KIND.is_available() {
        fails(run(&["query", &file, "a"], b""), "target-feature=+aes");
    }
}
