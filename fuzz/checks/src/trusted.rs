//! The check behind the `trusted_bytes` fuzz target and the main crate's `trusted_open` tests:
//! opening any bytes with `FilterRef::from_trusted_bytes` never panics or reads out of bounds,
//! and on bytes that `from_bytes` accepts it gives exactly the same view.

use splitbloom::parquet::ParquetHash;
use splitbloom::{FilterHasher, FilterRef, GxHash, Xxh3};

/// Runs the check with every hasher type.
pub fn trusted_bytes(data: &[u8]) {
    check::<Xxh3>(data);
    check::<ParquetHash>(data);
    check::<GxHash>(data);
}

/// The check for one hasher type `S`.
fn check<S: FilterHasher + core::fmt::Debug>(data: &[u8]) {
    let trusted = FilterRef::<S>::from_trusted_bytes_with_hasher_type(data);
    let verified = FilterRef::<S>::from_bytes_with_hasher_type(data);
    match (&trusted, &verified) {
        (Ok(trusted), Ok(verified)) => {
            assert_eq!(trusted.num_blocks(), verified.num_blocks());
            assert_eq!(trusted.hasher(), verified.hasher());
            for index in 0..64u64 {
                let hash = index.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index;
                assert_eq!(trusted.contains_hash(hash), verified.contains_hash(hash));
            }
        }
        // Only the checksum is skipped: any other problem is reported by both, identically
        // (`from_bytes` checks the checksum before the hasher, so it may report that first).
        (Err(trusted), Err(verified)) => {
            if !matches!(verified, splitbloom::Error::ChecksumMismatch { .. }) {
                assert_eq!(trusted, verified);
            }
        }
        (Ok(_), Err(error)) => assert!(
            matches!(error, splitbloom::Error::ChecksumMismatch { .. }),
            "trusted open accepted bytes refused for {error:?}"
        ),
        (Err(error), Ok(_)) => panic!("trusted open refused verified bytes: {error:?}"),
    }
    if let Ok(view) = trusted {
        // Every read on possibly corrupt bytes: answers may be anything, but no panic.
        let keys: Vec<&[u8]> = data.chunks(7).take(64).collect();
        let mut out = vec![false; keys.len()];
        view.contains_bytes_batch(&keys, &mut out);
        for (key, &answer) in keys.iter().zip(&out) {
            assert_eq!(view.contains_bytes(key), answer);
        }
        assert!((0.0..=1.0).contains(&view.fill_ratio()));
        assert!((0.0..=1.0).contains(&view.estimated_fpr()));
        assert_eq!(view.to_bytes().len(), data.len());
        assert_eq!(&view.to_bytes()[32..], &data[32..]);
    }
}
