//! The XXH3 hashers: [`Xxh3Plain`] (hasher id 4, the default) and [`Xxh3Hash`] (id 2, the
//! default of earlier versions). The [`hash`](crate::hash) module documents both contracts.

use core::hash::BuildHasher;
use core::marker::PhantomData;

use super::xxh3_long::{MID_SIZE_MAX, SECRET_SIZE, hash_long};
use super::{
    Always, BytesHash, DEFAULT_SEED, FilterHasher, HasherKind, INITIAL_STATE, KeyHasher,
    PlainHasher, hash_bytes_out_of_line,
};
use crate::error::Error;

/// XXH3-64 over byte strings.
///
/// ```
/// use splitbloom::hash::{BytesHash, Xxh3Bytes};
/// assert_ne!(Xxh3Bytes::hash_bytes(b"a", 0), Xxh3Bytes::hash_bytes(b"b", 0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Xxh3Bytes;

impl BytesHash for Xxh3Bytes {
    /// Inputs of up to 3 bytes inline, longer ones out of line: see
    /// [`BytesHash::hash_bytes_in_write`].
    #[inline(always)]
    fn hash_bytes_in_write(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() > INLINE_MAX {
            return hash_bytes_out_of_line::<Self>(bytes, seed);
        }
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
    }

    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() > MID_SIZE_MAX {
            // The default seed's secret is a constant (see `INITIAL_STATE_SECRET`).
            xxh3_long_initial_state(bytes, seed)
        } else if seed != INITIAL_STATE {
            xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
        } else {
            // The default seed's first write (every byte-contract hash and every `str` key of a
            // default hasher), with the seed a constant the compiler folds into XXH3's secret
            // words rather than a value loaded and mixed on every call.
            xxhash_rust::xxh3::xxh3_64_with_seed(bytes, INITIAL_STATE)
        }
    }
}

/// The longest input the XXH3 hashers' `write` hashes inline: XXH3's 0-byte and 1-3-byte paths,
/// a dozen instructions, where a call would cost most against the hash itself. With its
/// 4-8-byte path inlined too, `<str as Hash>::hash` was no longer inlined in a `-C
/// target-cpu=native` build (`contains(&str)` 1.25-1.45x plain XXH3 on AMD Zen 5, against
/// 1.04-1.11x with this). Measured again with each benchmark variant written into its own
/// loop (issue 13's sixth stop, `contains(&str)` at 0-32 bytes): the 0-16-byte paths inline
/// gave 1.28-1.56x in default and native builds alike, and the 4-16-byte paths written out
/// from XXH3's definition in two dozen instructions 1.29-1.58x, against 1.09-1.16x with
/// this: each time `<str as Hash>::hash` stayed out of line. LLVM's inline remarks (`-C
/// remark=inline`, rustc 1.95) give the reason: `<str as Hash>::hash` may cost 325 to be
/// inlined (std marks it `#[inline]`), and it costs 60 with every length out of line, 240 with
/// this (XXH3's 1-3-byte path adds 175-180, whoever writes it), 285 with the 4-16-byte paths
/// instead, and 455-460 with 0-16. Inlining 4-16 and calling out for 1-3 bytes measured
/// 1.06-1.11x at 4-16 bytes but 1.20x at 1 byte and 1.17-1.19x at 24-32. The call this leaves
/// ([`hash_bytes_out_of_line`], direct since it is generic) cost the default build
/// 1.09-1.11x from 1 to 16 bytes; through the GOT, as a non-generic function, it cost
/// 1.15-1.16x at 12-16 (README, "Hashing"). Filters no longer take this path for byte-string
/// keys (`hash_key` hashes them through the byte contract), only `Hasher` users and keys such
/// as `&&str` or `(u32, &str)` do.
pub(super) const INLINE_MAX: usize = 3;

/// XXH3's secret for seed [`INITIAL_STATE`] (the state of every hasher of id 2 with the
/// default seed before its first write), derived once at compile time. XXH3 defines the seeded
/// hash of a long input as the hash with the secret derived from the seed, so a constant one
/// saves deriving 192 bytes on every call: measured at 256 bytes, 1.6x plain `xxh3_64` with the
/// derivation, 1.01x without.
const INITIAL_STATE_SECRET: [u8; SECRET_SIZE] =
    xxhash_rust::const_xxh3::const_custom_default_secret(INITIAL_STATE);

/// XXH3's default secret: the secret of seed 0 (the default seed of id 4).
const DEFAULT_SECRET: [u8; SECRET_SIZE] = xxhash_rust::const_xxh3::const_custom_default_secret(0);

/// `XXH3_64_withSeed(bytes, seed)` for an input of more than 240 bytes, with the secret of
/// `seed`: `constant_secret` when `seed` is `constant_seed` (the default seed's, derived at
/// compile time), else derived here as XXH3 derives it; then the long-input loop in the widest
/// SIMD this CPU has ([`hash_long`]). Where xxhash-rust's own loop is as wide (`hash_long`
/// returns `None`), xxhash-rust's: `constant` for the constant seed (for seed 0 its unseeded
/// entry point, whose built-in secret it reads faster than one passed in: 1.2x at 256 bytes
/// in a `-C target-cpu=native` build on AMD Zen 5).
///
/// Its callers reach it through [`xxh3_long_plain`] and [`xxh3_long_initial_state`], out of
/// line: inlined into the byte hash, the detection and the calls made the short keys' code
/// slower (default build, Zen 5: `contains_bytes` 1.15-1.21x plain XXH3 at 1-16 bytes, against
/// 1.01-1.07x).
#[inline(always)]
fn xxh3_long(
    bytes: &[u8],
    seed: u64,
    constant_seed: u64,
    constant_secret: &[u8; SECRET_SIZE],
    constant: impl FnOnce(&[u8]) -> u64,
) -> u64 {
    if seed == constant_seed {
        hash_long(bytes, constant_secret).unwrap_or_else(|| constant(bytes))
    } else {
        let secret = xxhash_rust::const_xxh3::const_custom_default_secret(seed);
        hash_long(bytes, &secret)
            .unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed))
    }
}

/// [`xxh3_long`] for [`Xxh3Plain`], whose default seed is 0.
#[inline(never)]
fn xxh3_long_plain(bytes: &[u8], seed: u64) -> u64 {
    xxh3_long(bytes, seed, 0, &DEFAULT_SECRET, xxhash_rust::xxh3::xxh3_64)
}

/// [`xxh3_long`] for [`Xxh3Hash`], whose default seed's first write is seeded with
/// [`INITIAL_STATE`].
#[inline(never)]
fn xxh3_long_initial_state(bytes: &[u8], seed: u64) -> u64 {
    xxh3_long(bytes, seed, INITIAL_STATE, &INITIAL_STATE_SECRET, |bytes| {
        xxhash_rust::xxh3::xxh3_64_with_secret(bytes, &INITIAL_STATE_SECRET)
    })
}

seeded_build_hasher!(
    /// Keys hashed with XXH3-64 and a final folded multiply: hasher id 2, the default of
    /// earlier versions. Its output never changes, so filters written with it keep opening
    /// and answering; new filters default to [`Xxh3Plain`], which is faster (no final
    /// multiply) and whose byte contract is plain XXH3.
    ///
    /// ```
    /// use splitbloom::{Filter, Xxh3Hash};
    /// let mut filter = Filter::with_num_blocks_and_hasher(64, Xxh3Hash::with_seed(7))?;
    /// filter.insert_bytes(b"key");
    /// assert!(filter.contains_bytes(b"key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    Xxh3Hash,
    Xxh3Bytes,
    KeyHasher<Xxh3Bytes>,
    HasherKind::Xxh3,
    Always
);

impl Xxh3Hash {
    /// The hasher with `seed` (every build can compute XXH3, so this cannot fail).
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Xxh3Hash};
    /// assert_eq!(Xxh3Hash::with_seed(9).seed(), 9);
    /// ```
    pub const fn with_seed(seed: u64) -> Xxh3Hash {
        Xxh3Hash {
            initial_state: seed ^ INITIAL_STATE,
            proof: Always,
        }
    }
}

impl Default for Xxh3Hash {
    /// Seed [`DEFAULT_SEED`](crate::DEFAULT_SEED).
    fn default() -> Self {
        Xxh3Hash::with_seed(DEFAULT_SEED)
    }
}

impl BuildHasher for Xxh3Hash {
    type Hasher = KeyHasher<Xxh3Bytes>;

    #[inline(always)]
    fn build_hasher(&self) -> Self::Hasher {
        KeyHasher {
            state: self.initial_state,
            bytes: PhantomData,
        }
    }
}

/// Keys hashed with exactly XXH3-64 (byte strings) and one folded multiply (an integer): hasher
/// id 4, the default hasher ([`DefaultHasher`](crate::DefaultHasher)) of every build, on every target.
///
/// Its byte-key contract is `XXH3_64_withSeed(bytes, seed)` with nothing added, so any XXH3
/// implementation reproduces it (with the default seed 0, plain `XXH3_64bits(bytes)`), and
/// `insert(&str)`, `insert(&[u8])` and `insert_bytes` give the same hash today (see the
/// [module docs](crate::hash#the-hasher-of-xxh3plain-id-4-gxplain-id-5-and-gxhybrid-id-6) for the framing of every [`Hasher`](core::hash::Hasher) call).
///
/// ```
/// use core::hash::BuildHasher;
/// use splitbloom::{Filter, FilterHasher, Xxh3Plain};
/// let hasher = Xxh3Plain::with_seed(7);
/// assert_eq!(hasher.hash_bytes(b"key"), xxhash_rust::xxh3::xxh3_64_with_seed(b"key", 7));
/// assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
/// let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
/// filter.insert_bytes(b"key");
/// assert!(filter.contains("key"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Xxh3Plain {
    seed: u64,
}

impl core::fmt::Debug for Xxh3Plain {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Xxh3Plain")
            .field("seed", &self.seed)
            .finish()
    }
}

impl Xxh3Plain {
    /// The hasher with `seed` (every build can compute XXH3, so this cannot fail).
    ///
    /// ```
    /// use splitbloom::{FilterHasher, Xxh3Plain};
    /// assert_eq!(Xxh3Plain::with_seed(9).seed(), 9);
    /// ```
    pub const fn with_seed(seed: u64) -> Xxh3Plain {
        Xxh3Plain { seed }
    }
}

impl Default for Xxh3Plain {
    /// Seed [`DEFAULT_SEED`](crate::DEFAULT_SEED).
    fn default() -> Self {
        Xxh3Plain::with_seed(DEFAULT_SEED)
    }
}

impl FilterHasher for Xxh3Plain {
    const KIND: HasherKind = HasherKind::Xxh3Plain;

    fn try_with_seed(seed: u64) -> Result<Self, Error> {
        Ok(Xxh3Plain::with_seed(seed))
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    #[inline(always)]
    fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        xxh3_seeded(bytes, self.seed)
    }
}

impl BuildHasher for Xxh3Plain {
    type Hasher = Xxh3PlainHasher;

    #[inline(always)]
    fn build_hasher(&self) -> Xxh3PlainHasher {
        PlainHasher::new(self.seed)
    }
}

/// Exactly `XXH3_64_withSeed(bytes, seed)`: the byte hash of [`Xxh3Plain`] and of every byte
/// write of its hasher.
///
/// ```
/// use splitbloom::hash::{BytesHash, Xxh3PlainBytes};
/// let xxh3 = xxhash_rust::xxh3::xxh3_64_with_seed(b"abc", 1);
/// assert_eq!(Xxh3PlainBytes::hash_bytes(b"abc", 1), xxh3);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Xxh3PlainBytes;

impl BytesHash for Xxh3PlainBytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        xxh3_seeded(bytes, seed)
    }

    /// Inputs of up to 3 bytes inline (the empty key of seed 0 as a constant),
    /// longer ones out of line: see [`BytesHash::hash_bytes_in_write`].
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

/// The [`Hasher`](core::hash::Hasher) of [`Xxh3Plain`]: [`PlainHasher`] over XXH3. Integer words are buffered, so
/// one integer costs one folded multiply in all; see the
/// [module docs](crate::hash#the-hasher-of-xxh3plain-id-4-gxplain-id-5-and-gxhybrid-id-6) for the exact definition.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// let fold = |a: u64, b: u64| {
///     let product = u128::from(a) * u128::from(b);
///     (product as u64) ^ ((product >> 64) as u64)
/// };
/// let hasher = splitbloom::Xxh3Plain::with_seed(3);
/// let mut state: splitbloom::hash::Xxh3PlainHasher = hasher.build_hasher();
/// state.write_u64(42);
/// let a = 3 ^ 42 ^ 0x243f_6a88_85a3_08d3u64;
/// assert_eq!(state.finish(), fold(a, a.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15));
/// assert_eq!(hasher.hash_one(42u64), state.finish());
/// ```
pub type Xxh3PlainHasher = PlainHasher<Xxh3PlainBytes>;

/// `XXH3_64_withSeed(bytes, seed)`. Seed 0 (the default) takes xxhash-rust's unseeded entry
/// point, whose secret is a constant: the same value (XXH3 defines seed 0 as the default
/// secret), without adding a seed the compiler cannot see into every secret word.
#[inline(always)]
fn xxh3_seeded(bytes: &[u8], seed: u64) -> u64 {
    // The seed is tested before the length: with the length first, the empty key of seed 0
    // took 1.22-1.32x plain XXH3 in `contains_bytes` (key_lengths, AMD Zen 5), against 1.11x.
    if seed == 0 {
        if bytes.len() <= MID_SIZE_MAX {
            xxhash_rust::xxh3::xxh3_64(bytes)
        } else {
            xxh3_long_plain(bytes, seed)
        }
    } else if bytes.len() <= MID_SIZE_MAX {
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, seed)
    } else {
        xxh3_long_plain(bytes, seed)
    }
}
