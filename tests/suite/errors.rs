//! Bad parameters give a clear error, never a panic, a hang or a runaway allocation.

use splitbloom::{Error, Filter, Xxh3, math};

#[test]
fn constructor_parameters_are_validated() {
    assert_eq!(Filter::with_fpr(0, 0.01).unwrap_err(), Error::ZeroItems);
    assert_eq!(
        Filter::with_bits_per_key(0, 10.0).unwrap_err(),
        Error::ZeroItems
    );
    assert_eq!(Filter::with_num_blocks(0).unwrap_err(), Error::ZeroBlocks);
    for fpr in [
        0.0,
        1.0,
        -0.1,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let error = Filter::with_fpr(100, fpr).unwrap_err();
        assert!(matches!(error, Error::InvalidFpr(_)), "{fpr}: {error}");
        assert!(error.to_string().contains("between 0 and 1"));
    }
    for bits in [0.0, -3.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(
                Filter::with_bits_per_key(100, bits).unwrap_err(),
                Error::InvalidBitsPerKey(_)
            ),
            "{bits}"
        );
    }
}

/// A size the rate asks for is stated in the user's units: the keys, the rate, and the largest
/// filter in bytes (not a block count the caller never chose).
#[test]
fn a_rate_too_low_for_any_filter_names_the_keys_the_rate_and_the_limit() {
    let message = splitbloom::WideFilter::with_fpr(1_000_000, 1e-300)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("1000000 keys at a false-positive rate of 1e-300 need more than")
            && message.contains("(256 GiB)")
            && message.contains("allow a higher rate"),
        "{message}"
    );
    let message = Filter::with_fpr(10, 1e-200).unwrap_err().to_string();
    assert!(
        message.contains("10 keys") && message.contains("(128 GiB)"),
        "{message}"
    );
}

#[test]
fn absurd_sizes_are_refused_quickly() {
    let start = std::time::Instant::now();
    assert!(matches!(
        Filter::with_fpr(usize::MAX, 0.01).unwrap_err(),
        Error::TooLargeForRate { .. }
    ));
    assert!(matches!(
        Filter::with_fpr(1, f64::MIN_POSITIVE).unwrap_err(),
        Error::TooLargeForRate { .. }
    ));
    assert!(matches!(
        Filter::with_bits_per_key(usize::MAX, 1e300).unwrap_err(),
        Error::TooLarge { .. }
    ));
    assert!(matches!(
        Filter::with_num_blocks(usize::MAX).unwrap_err(),
        Error::TooLarge { .. }
    ));
    assert!(matches!(
        Filter::with_num_blocks(math::MAX_BLOCKS + 1).unwrap_err(),
        Error::TooLarge { .. }
    ));
    assert!(
        start.elapsed().as_secs() < 5,
        "validation took {:?}",
        start.elapsed()
    );
}

#[test]
fn combining_incompatible_filters_is_an_error() {
    let mut a = Filter::with_num_blocks(8).unwrap();
    let b = Filter::with_num_blocks(9).unwrap();
    assert_eq!(
        a.union(&b).unwrap_err(),
        Error::ShapeMismatch { left: 8, right: 9 }
    );
    assert_eq!(
        a.intersect(&b).unwrap_err(),
        Error::ShapeMismatch { left: 8, right: 9 }
    );
    let mut seeded = Filter::with_num_blocks_and_hasher(8, Xxh3::with_seed(1)).unwrap();
    let other_seed = Filter::with_num_blocks_and_hasher(8, Xxh3::with_seed(2)).unwrap();
    assert_eq!(
        seeded.union(&other_seed).unwrap_err(),
        Error::HasherMismatch
    );
    // Nothing changed on error.
    assert!(seeded.as_words().iter().all(|&word| word == 0));
}

#[test]
fn errors_display_actionable_messages() {
    let messages = [
        Error::ZeroItems.to_string(),
        Error::TooLarge { blocks: 1e20 }.to_string(),
        Error::AllocationFailed { bytes: 10 }.to_string(),
        Error::KernelUnavailable(splitbloom::Kernel::Neon).to_string(),
    ];
    assert!(messages[0].contains("at least 1"));
    assert!(messages[1].contains("maximum"));
    assert!(messages[2].contains("10 bytes"));
    assert!(messages[3].contains("neon"));
    // An absurd request stays one short line, not 300 digits.
    let absurd = Error::TooLarge { blocks: 1e300 }.to_string();
    assert!(absurd.len() < 100, "{absurd}");
    assert!(absurd.contains("1.000e300"), "{absurd}");
    assert!(
        Error::TooLarge {
            blocks: 5_000_000_000.0
        }
        .to_string()
        .contains("5.000e9")
    );
}

/// Each message states the rule the code applies, so a user can see what to change: the
/// accepted range, multiple or set, and the way out.
#[test]
fn errors_state_the_rule_that_was_applied() {
    use splitbloom::HasherKind;
    use splitbloom::parquet::{ParquetHash, header_bytes};
    // A header's numBytes: any positive multiple of 32 that is an i32, not only powers of two.
    assert!(header_bytes(96).is_ok(), "96 bytes is a multiple of 32");
    let error = header_bytes(33).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("multiple of 32"), "{message}");
    assert!(message.contains("2147483616"), "{message}");
    assert!(!message.contains("power of two"), "{message}");
    // Writing a Parquet filter: the power-of-two rule, and what to do.
    let filter = Filter::with_num_blocks_and_hasher(3, ParquetHash::default()).unwrap();
    let message = filter.to_parquet_bytes().unwrap_err().to_string();
    assert!(
        message.contains("power-of-two") && message.contains("128 MiB"),
        "{message}"
    );
    assert!(message.contains("Sizing"), "{message}");
    // A bare bitset: whole blocks, no upper bound of its own.
    let message = splitbloom::FilterRef::<ParquetHash>::from_parquet_bitset(&[0u8; 33])
        .unwrap_err()
        .to_string();
    assert!(message.contains("multiple of 32"), "{message}");
    // gxhash unavailable: the file is fine, the build lacks AES, and how to get it.
    let message = Error::HasherUnavailable(HasherKind::GxHash).to_string();
    assert!(message.contains("the filter is fine"), "{message}");
    assert!(
        message.contains("RUSTFLAGS=\"-C target-feature=+aes\""),
        "{message}"
    );
    // Hasher ids: reserved ones say so; unknown ones list what this build reads.
    assert!(Error::UnknownHasher(2).to_string().contains("reserved"));
    assert!(Error::UnknownHasher(9).to_string().contains("3, 4 and 6"));
    // Combining: the rule is the same size and the same hasher and seed.
    let shape = Error::ShapeMismatch { left: 8, right: 9 }.to_string();
    assert!(shape.contains("same number of blocks"), "{shape}");
    assert!(
        Error::HasherMismatch
            .to_string()
            .contains("same hasher and seed")
    );
    assert!(Error::UnsupportedFlags(4).to_string().contains("0x00"));
}
