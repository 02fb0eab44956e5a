//! Key hashing: a [`BuildHasher`] with a stable, documented output, so a filter built in one
//! process answers correctly in another (and, through the on-disk format, in another program).
//!
//! A filter needs one 64-bit hash per key: the high 32 bits pick the block, the low 32 bits the
//! bits inside it. [`KeyHasher`] produces it with one of two byte hashes:
//!
//! * [`GxHash`] (the default where the target has AES at compile time): gxhash 3.x.
//! * [`Xxh3Hash`] (the default elsewhere): XXH3-64 from `xxhash-rust`.
//!
//! The hasher's state is one `u64`, starting at `seed ^ 0x243f_6a88_85a3_08d3`:
//!
//! * `write(bytes)` replaces the state with the byte hash of `bytes` seeded with the state.
//!   gxhash reads 16 bytes even from shorter inputs, which sanitizers rightly report, so inputs
//!   shorter than 16 bytes are copied into a zeroed 16-byte buffer and the seed is adjusted by
//!   `(len + 1) * 0x9e37_79b9_7f4a_7c15` to keep lengths apart.
//! * `write_u8` ... `write_u64` (all integer keys) mix the value in with one folded multiply,
//!   `state = fold(state ^ value, 0x9e37_79b9_7f4a_7c15)` where `fold(a, b)` is the XOR of the
//!   low and high halves of the 128-bit product: well under a nanosecond.
//! * `finish` returns `fold(state, 0xd6e8_feb8_6659_fd93)`.
//!
//! Both hashers are deterministic: the default seed is [`DEFAULT_SEED`], and any other seed can
//! be given with [`FilterHasher::with_seed`].
//!
//! ```
//! use core::hash::BuildHasher;
//! use splitbloom::{FilterHasher, Xxh3Hash};
//! // The same key, seed and algorithm give the same hash in every process.
//! assert_eq!(Xxh3Hash::with_seed(5).hash_one("key"), Xxh3Hash::with_seed(5).hash_one("key"));
//! ```

use core::hash::{BuildHasher, Hasher};
use core::marker::PhantomData;

/// The seed of [`DefaultHasher::default()`]: zero.
///
/// ```
/// use splitbloom::{DEFAULT_SEED, DefaultHasher, FilterHasher};
/// assert_eq!(DefaultHasher::default().seed(), DEFAULT_SEED);
/// ```
pub const DEFAULT_SEED: u64 = 0;

/// Start of the state, so that seed 0 does not start from 0.
const INITIAL_STATE: u64 = 0x243f_6a88_85a3_08d3;
/// Multiplier of the integer mix (the 64-bit golden ratio).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
/// Multiplier of the final avalanche.
const FINISH: u64 = 0xd6e8_feb8_6659_fd93;

/// XOR of the low and high halves of the full 128-bit product.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Which algorithm a hasher computes; stored in serialized filters so a reader can refuse a
/// filter whose hashes it cannot reproduce.
///
/// ```
/// use splitbloom::{FilterHasher, HasherKind, Xxh3Hash};
/// assert_eq!(Xxh3Hash::KIND, HasherKind::Xxh3);
/// assert_eq!(HasherKind::from_id(HasherKind::Xxh3.id()), Some(HasherKind::Xxh3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HasherKind {
    /// [`GxHash`]: gxhash 3.x for byte strings, folded multiply for integers.
    GxHash,
    /// [`Xxh3Hash`]: XXH3-64 for byte strings, folded multiply for integers.
    Xxh3,
    /// [`ParquetHash`](crate::parquet::ParquetHash): XXH64 over the value's Parquet plain
    /// encoding, as Parquet bloom filters hash values.
    ParquetXxh64,
}

impl HasherKind {
    /// The stable numeric id (1 = gxhash, 2 = xxh3, 3 = Parquet XXH64).
    ///
    /// ```
    /// assert_eq!(splitbloom::HasherKind::Xxh3.id(), 2);
    /// ```
    pub const fn id(self) -> u8 {
        match self {
            HasherKind::GxHash => 1,
            HasherKind::Xxh3 => 2,
            HasherKind::ParquetXxh64 => 3,
        }
    }

    /// The kind with numeric id `id`, if any.
    ///
    /// ```
    /// use splitbloom::HasherKind;
    /// assert_eq!(HasherKind::from_id(3), Some(HasherKind::ParquetXxh64));
    /// assert_eq!(HasherKind::from_id(0), None);
    /// ```
    pub const fn from_id(id: u8) -> Option<HasherKind> {
        match id {
            1 => Some(HasherKind::GxHash),
            2 => Some(HasherKind::Xxh3),
            3 => Some(HasherKind::ParquetXxh64),
            _ => None,
        }
    }

    /// Whether this build can compute this kind of hash (gxhash needs AES at compile time).
    ///
    /// ```
    /// assert!(splitbloom::HasherKind::Xxh3.is_available());
    /// ```
    pub const fn is_available(self) -> bool {
        match self {
            HasherKind::GxHash => cfg!(splitbloom_gxhash),
            HasherKind::Xxh3 | HasherKind::ParquetXxh64 => true,
        }
    }
}

/// A [`BuildHasher`] with a stable identity (kind and seed), as filters need.
///
/// ```
/// use splitbloom::{FilterHasher, Xxh3Hash};
/// use core::hash::BuildHasher;
/// let hasher = Xxh3Hash::with_seed(42);
/// assert_eq!(hasher.seed(), 42);
/// assert_eq!(hasher.hash_one(7u64), Xxh3Hash::with_seed(42).hash_one(7u64));
/// ```
pub trait FilterHasher: BuildHasher + Clone + PartialEq {
    /// The algorithm.
    const KIND: HasherKind;
    /// A hasher of this kind with `seed`.
    fn with_seed(seed: u64) -> Self;
    /// The seed.
    fn seed(&self) -> u64;
}

/// A byte-string hash that [`KeyHasher`] builds on.
///
/// ```
/// use splitbloom::hash::{BytesHash, Xxh3Bytes};
/// assert_eq!(Xxh3Bytes::hash_bytes(b"abc", 1), xxhash_rust::xxh3::xxh3_64_with_seed(b"abc", 1));
/// ```
pub trait BytesHash {
    /// The 64-bit hash of `bytes` with `seed`; must read nothing outside `bytes`.
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64;
}

/// The [`Hasher`] of [`GxHash`] and [`Xxh3Hash`]: see the [module docs](self) for the algorithm.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// let mut hasher = splitbloom::DefaultHasher::default().build_hasher();
/// hasher.write(b"key");
/// let _hash: u64 = hasher.finish();
/// ```
#[derive(Clone, Debug)]
pub struct KeyHasher<B> {
    state: u64,
    bytes: PhantomData<B>,
}

impl<B: BytesHash> Hasher for KeyHasher<B> {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.state = B::hash_bytes(bytes, self.state);
    }

    #[inline(always)]
    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    #[inline(always)]
    fn write_u16(&mut self, value: u16) {
        self.write_u64(u64::from(value));
    }

    #[inline(always)]
    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.state = fold(self.state ^ value, MIX);
    }

    #[inline(always)]
    fn write_u128(&mut self, value: u128) {
        self.write_u64(value as u64);
        self.write_u64((value >> 64) as u64);
    }

    #[inline(always)]
    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        fold(self.state, FINISH)
    }
}

/// Defines a seeded [`BuildHasher`] over a [`BytesHash`].
///
/// It stores the hasher's initial state (`seed ^ INITIAL_STATE`) rather than the seed, so that
/// starting a hash is one load: integer keys hash in four instructions plus two multiplies.
macro_rules! seeded_build_hasher {
    ($(#[$doc:meta])* $name:ident, $bytes:ty, $kind:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name {
            initial_state: u64,
        }

        impl Default for $name {
            fn default() -> Self {
                <$name as FilterHasher>::with_seed(DEFAULT_SEED)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("seed", &self.seed())
                    .finish()
            }
        }

        impl BuildHasher for $name {
            type Hasher = KeyHasher<$bytes>;

            #[inline(always)]
            fn build_hasher(&self) -> Self::Hasher {
                KeyHasher {
                    state: self.initial_state,
                    bytes: PhantomData,
                }
            }
        }

        impl FilterHasher for $name {
            const KIND: HasherKind = $kind;

            fn with_seed(seed: u64) -> Self {
                $name {
                    initial_state: seed ^ INITIAL_STATE,
                }
            }

            fn seed(&self) -> u64 {
                self.initial_state ^ INITIAL_STATE
            }
        }
    };
}

/// XXH3-64 over byte strings.
///
/// ```
/// use splitbloom::hash::{BytesHash, Xxh3Bytes};
/// assert_ne!(Xxh3Bytes::hash_bytes(b"a", 0), Xxh3Bytes::hash_bytes(b"b", 0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Xxh3Bytes;

impl BytesHash for Xxh3Bytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
    }
}

seeded_build_hasher!(
    /// Keys hashed with XXH3-64 (byte strings) and a folded multiply (integers); available on
    /// every target. The default hasher where gxhash is not.
    ///
    /// ```
    /// use splitbloom::{Filter, Xxh3Hash, FilterHasher};
    /// let mut filter = Filter::with_num_blocks_and_hasher(64, Xxh3Hash::with_seed(7)).unwrap();
    /// filter.insert("key");
    /// assert!(filter.contains("key"));
    /// ```
    Xxh3Hash,
    Xxh3Bytes,
    HasherKind::Xxh3
);

/// gxhash 3.x over byte strings, never reading past the input.
///
/// ```
/// use splitbloom::hash::{BytesHash, GxBytes};
/// // Short inputs are padded, with the length folded in: "a" and "a\0" stay apart.
/// assert_ne!(GxBytes::hash_bytes(b"a", 0), GxBytes::hash_bytes(b"a\0", 0));
/// ```
#[cfg(splitbloom_gxhash)]
#[derive(Clone, Copy, Debug)]
pub struct GxBytes;

#[cfg(splitbloom_gxhash)]
impl BytesHash for GxBytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        const VECTOR: usize = 16;
        if bytes.len() >= VECTOR {
            // gxhash reads whole 16-byte vectors, all inside `bytes` at this length.
            gxhash::gxhash64(bytes, seed as i64)
        } else {
            // gxhash would read 16 bytes from a shorter input: hash a padded copy instead, with
            // the length folded into the seed so that "a" and "a\0" stay apart.
            let mut padded = [0u8; VECTOR];
            padded[..bytes.len()].copy_from_slice(bytes);
            let seed = seed.wrapping_add((bytes.len() as u64 + 1).wrapping_mul(MIX));
            gxhash::gxhash64(&padded, seed as i64)
        }
    }
}

#[cfg(splitbloom_gxhash)]
seeded_build_hasher!(
    /// Keys hashed with gxhash (byte strings) and a folded multiply (integers). Available when
    /// the target has AES at compile time (this repository's `.cargo/config.toml` enables it on
    /// x86_64); the default hasher there.
    ///
    /// ```
    /// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] {
    /// # if splitbloom::HasherKind::GxHash.is_available() {
    /// use splitbloom::{Filter, GxHash, FilterHasher};
    /// let mut filter = Filter::with_num_blocks_and_hasher(64, GxHash::with_seed(7)).unwrap();
    /// filter.insert("key");
    /// assert!(filter.contains("key"));
    /// # } }
    /// ```
    GxHash,
    GxBytes,
    HasherKind::GxHash
);

/// The default hasher of this build: [`GxHash`] where the target has AES, else [`Xxh3Hash`].
///
/// ```
/// use splitbloom::{DefaultHasher, FilterHasher, HasherKind};
/// let expected = if HasherKind::GxHash.is_available() { HasherKind::GxHash } else { HasherKind::Xxh3 };
/// assert_eq!(DefaultHasher::KIND, expected);
/// ```
#[cfg(splitbloom_gxhash)]
pub type DefaultHasher = GxHash;

/// The default hasher of this build: [`GxHash`] where the target has AES, else [`Xxh3Hash`].
///
/// ```
/// use splitbloom::{DefaultHasher, FilterHasher, HasherKind};
/// let expected = if HasherKind::GxHash.is_available() { HasherKind::GxHash } else { HasherKind::Xxh3 };
/// assert_eq!(DefaultHasher::KIND, expected);
/// ```
#[cfg(not(splitbloom_gxhash))]
pub type DefaultHasher = Xxh3Hash;

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of<S: BuildHasher>(hasher: &S, bytes: &[u8]) -> u64 {
        let mut state = hasher.build_hasher();
        state.write(bytes);
        state.finish()
    }

    /// Short inputs that differ only by trailing zeros must not collide.
    #[test]
    fn trailing_zeros_are_distinguished() {
        let hasher = DefaultHasher::default();
        let mut seen = std::collections::HashSet::new();
        for len in 0..=40 {
            assert!(
                seen.insert(hash_of(&hasher, &vec![0u8; len])),
                "length {len} collided"
            );
        }
    }

    /// Seeds change every hash; the same seed reproduces it.
    #[test]
    fn seeds_are_deterministic_and_matter() {
        let a = Xxh3Hash::with_seed(1);
        let b = Xxh3Hash::with_seed(2);
        for key in 0u64..1000 {
            assert_eq!(a.hash_one(key), Xxh3Hash::with_seed(1).hash_one(key));
            assert_ne!(a.hash_one(key), b.hash_one(key));
        }
    }

    /// gxhash is the default exactly where the target has AES (and this build can compute it).
    #[test]
    fn default_hasher_follows_the_target() {
        let aes = cfg!(all(
            target_feature = "aes",
            any(target_arch = "x86_64", target_arch = "aarch64")
        ));
        assert_eq!(DefaultHasher::KIND == HasherKind::GxHash, aes);
        assert!(DefaultHasher::KIND.is_available());
        std::println!("default hasher: {:?}", DefaultHasher::KIND);
    }

    /// Pinned outputs: the algorithm is part of the on-disk contract and must never drift.
    #[test]
    fn known_answers() {
        let xxh3 = Xxh3Hash::default();
        let mut state = xxh3.build_hasher();
        state.write(b"splitbloom");
        let expected_bytes = fold(
            xxhash_rust::xxh3::xxh3_64_with_seed(b"splitbloom", INITIAL_STATE),
            FINISH,
        );
        assert_eq!(state.finish(), expected_bytes);
        assert_eq!(xxh3.hash_one(0u64), fold(fold(INITIAL_STATE, MIX), FINISH));
        // Independent of the code above: the integer path for key 1, seed 0, computed by hand
        // with 128-bit arithmetic in Python.
        assert_eq!(xxh3.hash_one(1u64), 0xedde_968d_3723_7e9f);
    }
}
