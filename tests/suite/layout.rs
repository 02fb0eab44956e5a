//! Known answers that pin the bit layout, so it can never drift from Parquet's.

use splitbloom::__kernel_testing as kernel;
use splitbloom::{Filter, Kernel, block_index, mask};

/// (hash, blocks, block index, mask), computed independently from the Parquet SBBF definition
/// with Python's arbitrary-precision integers.
const GOLDEN: [(u64, usize, usize, [u32; 8]); 7] = [
    (
        0x0000000000000000,
        1,
        0,
        [0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1],
    ),
    (
        0xffffffffffffffff,
        1000,
        999,
        [
            0x800000, 0x800000, 0x4000, 0x800, 0x20000, 0x4000000, 0x1000, 0x100000,
        ],
    ),
    (
        0x0123456789abcdef,
        97,
        0,
        [
            0x40000, 0x80000, 0x40000000, 0x800000, 0x10, 0x10000, 0x1000, 0x1000000,
        ],
    ),
    (
        0xdeadbeefcafebabe,
        4096,
        3562,
        [
            0x10000000, 0x40, 0x8000, 0x1, 0x4000, 0x400, 0x1, 0x40000000,
        ],
    ),
    (
        0x8000000000000001,
        3,
        1,
        [
            0x100, 0x100, 0x20000, 0x100000, 0x4000, 0x20, 0x80000, 0x800,
        ],
    ),
    (
        0x00000001ffffffff,
        1048576,
        0,
        [
            0x800000, 0x800000, 0x4000, 0x800, 0x20000, 0x4000000, 0x1000, 0x100000,
        ],
    ),
    (
        0x7fffffff00000000,
        12345,
        6172,
        [0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1],
    ),
];

#[test]
fn golden_block_indices_and_masks() {
    for (hash, blocks, index, expected) in GOLDEN {
        assert_eq!(
            block_index(hash, blocks),
            index,
            "{hash:#x} in {blocks} blocks"
        );
        assert_eq!(mask(hash as u32), expected, "{hash:#x}");
        for kernel in Kernel::available() {
            assert_eq!(
                kernel::mask(kernel, hash as u32),
                Some(expected),
                "{kernel} {hash:#x}"
            );
        }
    }
}

#[test]
fn golden_hashes_land_in_the_filter_where_parquet_puts_them() {
    for (hash, blocks, index, expected) in GOLDEN {
        for kernel in Kernel::available() {
            let mut filter = Filter::with_num_blocks(blocks)
                .unwrap()
                .with_kernel(kernel)
                .unwrap();
            filter.insert_hash(hash);
            let words = &filter.as_words()[index * 8..index * 8 + 8];
            assert_eq!(words, expected, "{kernel} {hash:#x}");
            assert_eq!(
                filter
                    .as_words()
                    .iter()
                    .map(|w| w.count_ones())
                    .sum::<u32>(),
                8
            );
        }
    }
}

/// A one-block filter written by parquet-mr (Spark) with the strings "a0".."a9" (XXH64, seed 0).
/// Its bits must contain each string's mask in every kernel.
#[test]
fn parquet_mr_fixture_contains_its_strings() {
    const FIXTURE: [u8; 32] = [
        200, 1, 80, 20, 64, 68, 8, 109, 6, 37, 4, 67, 144, 80, 96, 32, 8, 132, 43, 33, 0, 5, 99,
        65, 2, 0, 224, 44, 64, 78, 96, 4,
    ];
    let block: [u32; 8] =
        core::array::from_fn(|i| u32::from_le_bytes(FIXTURE[4 * i..4 * i + 4].try_into().unwrap()));
    assert_eq!(
        xxhash_rust::xxh64::xxh64(b"", 0),
        17_241_709_254_077_376_921
    );
    for i in 0..10 {
        let hash = xxhash_rust::xxh64::xxh64(format!("a{i}").as_bytes(), 0);
        assert_eq!(block_index(hash, 1), 0);
        for kernel in Kernel::available() {
            assert_eq!(
                kernel::contains(kernel, &block, hash as u32),
                Some(true),
                "{kernel} a{i}"
            );
        }
    }
    // And the fixture is not trivially full: most other strings are absent.
    let absent = (0..1000)
        .filter(|i| {
            !kernel::contains(
                Kernel::Scalar,
                &block,
                xxhash_rust::xxh64::xxh64(format!("b{i}").as_bytes(), 0) as u32,
            )
            .unwrap()
        })
        .count();
    assert!(absent > 900, "{absent}");
}
