//! `FilterRef::from_trusted_bytes`: the O(1) open of bytes the caller verified. Runs the fuzz
//! target's check over valid filters, every single-byte corruption of a
//! small one, truncations, and seeded random bytes.

use splitbloom_fuzz_checks as trusted_checks;

use splitbloom::{Error, Filter, FilterRef, Xxh3};

/// A small valid filter with some keys.
fn valid() -> Vec<u8> {
    let mut filter = Filter::with_num_blocks(3).unwrap();
    filter.insert_bytes_batch(&["a", "b", "c", "d"]);
    filter.to_bytes()
}

#[test]
fn valid_filters_open_the_same_both_ways() {
    trusted_checks::trusted_bytes(&valid());
    let view = FilterRef::<Xxh3>::from_trusted_bytes(&valid()[..]).map(|view| view.to_bytes());
    assert_eq!(view.unwrap(), valid());
}

#[test]
fn every_corruption_and_truncation_is_safe() {
    let bytes = valid();
    for at in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut corrupt = bytes.clone();
            corrupt[at] ^= flip;
            trusted_checks::trusted_bytes(&corrupt);
        }
        trusted_checks::trusted_bytes(&bytes[..at]);
    }
    let mut longer = bytes.clone();
    longer.push(0);
    trusted_checks::trusted_bytes(&longer);
}

#[test]
fn random_bytes_are_safe() {
    let mut state = 0x0123_4567_89ab_cdefu64;
    for len in 0..300 {
        let mut data: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        trusted_checks::trusted_bytes(&data);
        // With a valid header in front, so the bitset path is reached.
        if len >= 32 {
            data[..32].copy_from_slice(&valid()[..32]);
            trusted_checks::trusted_bytes(&data);
        }
    }
}

/// The checksum is the only thing skipped: a flipped bitset bit opens (and may answer
/// wrongly), a flipped header field does not.
#[test]
fn only_the_checksum_is_skipped() {
    let mut corrupt = valid();
    corrupt[40] ^= 1;
    assert!(FilterRef::<Xxh3>::from_trusted_bytes(&corrupt).is_ok());
    assert!(matches!(
        FilterRef::<Xxh3>::from_bytes(&corrupt),
        Err(Error::ChecksumMismatch { .. })
    ));
    let mut wrong_blocks = valid();
    wrong_blocks[16] = 4;
    assert!(matches!(
        FilterRef::<Xxh3>::from_trusted_bytes(&wrong_blocks),
        Err(Error::Truncated { .. })
    ));
}
