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

#[test]
fn absurd_sizes_are_refused_quickly() {
    let start = std::time::Instant::now();
    assert!(matches!(
        Filter::with_fpr(usize::MAX, 0.01).unwrap_err(),
        Error::TooLarge { .. }
    ));
    assert!(matches!(
        Filter::with_fpr(1, f64::MIN_POSITIVE).unwrap_err(),
        Error::TooLarge { .. }
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
