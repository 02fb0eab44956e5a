//! [`Xxh3`] (hasher id 4), the default: XXH3-64 for strings and byte strings, one folded
//! multiply for an integer. The [`hash`](crate::hash) module documents its contract.

use core::hash::BuildHasher;

use super::framing::{BytesHash, Framing, INLINE_MAX, hash_bytes_out_of_line};
use super::xxh3_long::{MID_SIZE_MAX, SECRET_SIZE, hash_long};
use super::{DEFAULT_SEED, FilterHasher, HasherKind};
use crate::error::Error;

/// Keys hashed with exactly XXH3-64 (strings and byte strings) and one folded multiply (an
/// integer): hasher id 4, the default hasher of every filter, on every target and under every
/// build flag.
///
/// Its byte contract is `XXH3_64_withSeed(bytes, seed)` with nothing added, so any XXH3
/// implementation reproduces it (with the default seed 0, plain `XXH3_64bits(bytes)`, e.g.
/// `xxhsum -H3`), and a string key hashes as its bytes: `insert("key")`, `insert(&b"key"[..])`
/// and `insert_bytes(b"key")` give the same hash (see the [module docs](crate::hash) for the
/// framing of every [`Hasher`](core::hash::Hasher) call).
///
/// ```
/// use core::hash::BuildHasher;
/// use splitbloom::{Filter, FilterHasher, Xxh3};
/// let hasher = Xxh3::with_seed(7);
/// assert_eq!(hasher.hash_bytes(b"key"), xxhash_rust::xxh3::xxh3_64_with_seed(b"key", 7));
/// assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
/// let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
/// filter.insert_bytes(b"key");
/// assert!(filter.contains("key"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Xxh3 {
    seed: u64,
}

impl core::fmt::Debug for Xxh3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Xxh3").field("seed", &self.seed).finish()
    }
}

impl Xxh3 {
    /// The hasher with `seed` (every build can compute XXH3, so this cannot fail).
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Xxh3};
    /// assert_eq!(Xxh3::with_seed(9).seed(), 9);
    /// ```
    pub const fn with_seed(seed: u64) -> Xxh3 {
        Xxh3 { seed }
    }
}

impl Default for Xxh3 {
    /// Seed [`DEFAULT_SEED`].
    fn default() -> Self {
        Xxh3::with_seed(DEFAULT_SEED)
    }
}

impl FilterHasher for Xxh3 {
    const KIND: HasherKind = HasherKind::Xxh3;

    fn try_with_seed(seed: u64) -> Result<Self, Error> {
        Ok(Xxh3::with_seed(seed))
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    #[inline(always)]
    fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        xxh3_seeded(bytes, self.seed)
    }
}

impl BuildHasher for Xxh3 {
    type Hasher = Xxh3Hasher;

    #[inline(always)]
    fn build_hasher(&self) -> Xxh3Hasher {
        Xxh3Hasher(Framing::new(self.seed))
    }
}

/// Exactly `XXH3_64_withSeed(bytes, seed)`: the byte hash of [`Xxh3`] and of every byte write of
/// its hasher.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Xxh3Bytes;

impl BytesHash for Xxh3Bytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        xxh3_seeded(bytes, seed)
    }

    /// Inputs of up to 3 bytes inline (the empty key of seed 0 as a constant), longer ones out
    /// of line: see [`BytesHash::hash_bytes_in_write`].
    #[inline(always)]
    fn hash_bytes_in_write(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() > INLINE_MAX {
            return hash_bytes_out_of_line::<Self>(bytes, seed);
        }
        if bytes.is_empty() && seed == 0 {
            return EMPTY_KEY_SEED_0;
        }
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
    }
}

/// `XXH3_64bits` of the empty input: what [`xxh3_seeded`] folds to for the empty key with seed
/// 0, where the secret and the seed are both constants.
const EMPTY_KEY_SEED_0: u64 = xxhash_rust::const_xxh3::xxh3_64(&[]);

framed_hasher!(
    /// The [`Hasher`](core::hash::Hasher) of [`Xxh3`]: integer words are buffered, so one integer
    /// costs one folded multiply in all, and a byte write is exactly `XXH3_64_withSeed(bytes,
    /// state)`; see the [module docs](crate::hash#the-hasher-of-xxh3-and-gxhash) for the exact
    /// definition.
    ///
    /// ```
    /// use core::hash::{BuildHasher, Hasher};
    /// let fold = |a: u64, b: u64| {
    ///     let product = u128::from(a) * u128::from(b);
    ///     (product as u64) ^ ((product >> 64) as u64)
    /// };
    /// let hasher = splitbloom::Xxh3::with_seed(3);
    /// let mut state: splitbloom::hash::Xxh3Hasher = hasher.build_hasher();
    /// state.write_u64(42);
    /// let a = 3 ^ 42 ^ 0x243f_6a88_85a3_08d3u64;
    /// assert_eq!(state.finish(), fold(a, a.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15));
    /// assert_eq!(hasher.hash_one(42u64), state.finish());
    /// ```
    Xxh3Hasher,
    Xxh3Bytes
);

/// XXH3's default secret: the secret of seed 0, the default seed.
const DEFAULT_SECRET: [u8; SECRET_SIZE] = xxhash_rust::const_xxh3::const_custom_default_secret(0);

/// `XXH3_64_withSeed(bytes, seed)` for an input of more than 240 bytes: the long-input loop in
/// the widest SIMD this CPU has ([`hash_long`]), with the secret of `seed` (a constant for the
/// default seed 0, else derived here as XXH3 derives it); xxhash-rust's own loop where it is as
/// wide (`hash_long` returns `None`), its unseeded entry point for seed 0, whose built-in
/// secret it reads faster than one passed in.
///
/// Out of line: inlined into the byte hash, the detection and the calls made the short keys'
/// code slower (`BENCHMARKS.md`, "Hashing").
#[inline(never)]
fn xxh3_long(bytes: &[u8], seed: u64) -> u64 {
    if seed == 0 {
        hash_long(bytes, &DEFAULT_SECRET).unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64(bytes))
    } else {
        let secret = xxhash_rust::const_xxh3::const_custom_default_secret(seed);
        hash_long(bytes, &secret)
            .unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed))
    }
}

/// `XXH3_64_withSeed(bytes, seed)`. Seed 0 (the default) takes xxhash-rust's unseeded entry
/// point, whose secret is a constant: the same value (XXH3 defines seed 0 as the default
/// secret), without adding a seed the compiler cannot see into every secret word.
#[inline(always)]
pub(crate) fn xxh3_seeded(bytes: &[u8], seed: u64) -> u64 {
    // The seed is tested before the length: the empty key of seed 0 then folds to a constant
    // sooner (`BENCHMARKS.md`, "Hashing").
    if seed == 0 {
        if bytes.len() <= MID_SIZE_MAX {
            xxhash_rust::xxh3::xxh3_64(bytes)
        } else {
            xxh3_long(bytes, seed)
        }
    } else if bytes.len() <= MID_SIZE_MAX {
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
    } else {
        xxh3_long(bytes, seed)
    }
}
