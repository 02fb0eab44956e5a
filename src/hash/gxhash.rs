//! [`GxHash`] (hasher id 6, opt-in): XXH3 under 16 bytes, gxhash 3.x from 16 bytes up.
//! Nameable in every build, computable only where the target has AES at compile time. The
//! [`hash`](crate::hash) module documents its contract.

use core::hash::BuildHasher;
#[cfg(not(splitbloom_gxhash))]
use core::hash::Hasher;

#[cfg(splitbloom_gxhash)]
use super::framing::{BytesHash, Framing, INLINE_MAX, hash_bytes_out_of_line};
#[cfg(splitbloom_gxhash)]
use super::xxh3::Xxh3Bytes;
use super::{FilterHasher, HasherKind};
use crate::error::Error;

/// The proof that gxhash can run in this build: constructible only where it can.
#[cfg(splitbloom_gxhash)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct GxAvailable;

/// The proof that gxhash can run in this build: uninhabited, since it cannot.
#[cfg(not(splitbloom_gxhash))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GxAvailable {}

impl GxAvailable {
    /// The proof, where this build can compute gxhash.
    const fn new() -> Option<GxAvailable> {
        #[cfg(splitbloom_gxhash)]
        return Some(GxAvailable);
        #[cfg(not(splitbloom_gxhash))]
        return None;
    }
}

/// Keys shorter than this many bytes are hashed by [`GxHash`] with XXH3, longer ones with
/// gxhash: gxhash's vector width, below which gxhash64 pads the key and still runs its four AES
/// rounds, and XXH3's 0-16-byte paths are shorter.
#[cfg(splitbloom_gxhash)]
const GXHASH_MIN: usize = 16;

/// The byte hash of [`GxHash`]: `XXH3_64_withSeed(bytes, seed)` when `bytes` is shorter than 16
/// bytes, `gxhash64(bytes, seed ^ len)` from 16 bytes up (where gxhash reads whole 16-byte
/// vectors, all inside `bytes`).
#[cfg(splitbloom_gxhash)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GxBytes;

#[cfg(splitbloom_gxhash)]
impl BytesHash for GxBytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() < GXHASH_MIN {
            Xxh3Bytes::hash_bytes(bytes, seed)
        } else {
            gxhash::gxhash64(bytes, (seed ^ bytes.len() as u64) as i64)
        }
    }

    /// As [`Xxh3`](crate::Xxh3)'s `write`: inputs of up to 3 bytes inline, longer ones (XXH3 or
    /// gxhash) out of line (see [`BytesHash::hash_bytes_in_write`]).
    #[inline(always)]
    fn hash_bytes_in_write(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() > INLINE_MAX {
            hash_bytes_out_of_line::<Self>(bytes, seed)
        } else {
            Xxh3Bytes::hash_bytes_in_write(bytes, seed)
        }
    }
}

/// Keys hashed with XXH3 under 16 bytes and gxhash from 16 bytes up (strings and byte
/// strings), and one folded multiply (an integer): hasher id 6, opt-in, for long keys, where
/// gxhash is the faster (`BENCHMARKS.md`, "Hashing"), without its cost on short ones.
///
/// Its byte contract (see the [module docs](crate::hash#the-byte-contract-stable-reproducible-in-any-language)) is
/// `XXH3_64_withSeed(bytes, seed)` for a key shorter than 16 bytes, exactly [`Xxh3`](crate::Xxh3)'s
/// hash, and `gxhash64(bytes, seed ^ len)` (gxhash 3.x) for a longer one. Integer keys and every
/// other [`Hasher`] call are framed exactly as for [`Xxh3`](crate::Xxh3), so
/// a string key hashes as its bytes.
///
/// The type exists in every build; a value of it only where the target has AES at compile time
/// (`RUSTFLAGS="-C target-feature=+aes"` or `-C target-cpu=native` on x86_64; the crypto
/// extension on aarch64). Elsewhere [`GxHash::new`] and reading a filter with hasher id 6 return
/// [`Error::HasherUnavailable`]: the filter is fine, and a build with AES reads it.
///
/// ```
/// use core::hash::BuildHasher;
/// use splitbloom::{Error, Filter, FilterHasher, GxHash, HasherKind, Xxh3};
/// match GxHash::new(7) {
///     Ok(hasher) => {
///         assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
///         // Under 16 bytes, the default's hash.
///         assert_eq!(hasher.hash_bytes(b"key"), Xxh3::with_seed(7).hash_bytes(b"key"));
///         let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
///         filter.insert_bytes(b"https://example.com/a/long/key");
///         assert!(filter.contains("https://example.com/a/long/key"));
///     }
///     Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash)),
/// }
/// # Ok::<(), splitbloom::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GxHash {
    seed: u64,
    proof: GxAvailable,
}

impl core::fmt::Debug for GxHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GxHash").field("seed", &self.seed).finish()
    }
}

impl GxHash {
    /// The hasher with `seed`, or [`Error::HasherUnavailable`] where this build cannot compute
    /// gxhash (no AES at compile time).
    ///
    /// ```
    /// use splitbloom::{GxHash, HasherKind};
    /// assert_eq!(GxHash::new(0).is_ok(), HasherKind::GxHash.is_available());
    /// ```
    pub fn new(seed: u64) -> Result<GxHash, Error> {
        <GxHash as FilterHasher>::try_with_seed(seed)
    }
}

impl FilterHasher for GxHash {
    const KIND: HasherKind = HasherKind::GxHash;

    fn try_with_seed(seed: u64) -> Result<Self, Error> {
        Ok(GxHash {
            seed,
            proof: GxAvailable::new().ok_or(Error::HasherUnavailable(HasherKind::GxHash))?,
        })
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    #[inline(always)]
    #[cfg_attr(not(splitbloom_gxhash), allow(unused_variables))]
    fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        #[cfg(splitbloom_gxhash)]
        return GxBytes::hash_bytes(bytes, self.seed);
        // Uninhabited: this build has no value of this type to call this on.
        #[cfg(not(splitbloom_gxhash))]
        match self.proof {}
    }
}

#[cfg(splitbloom_gxhash)]
framed_hasher!(
    /// The [`Hasher`](core::hash::Hasher) of [`GxHash`], framed as [`Xxh3`](crate::Xxh3)'s; in
    /// builds without AES no [`GxHash`] value, and so no `GxHasher`, can exist.
    ///
    /// ```
    /// use core::hash::{BuildHasher, Hasher};
    /// if let Ok(hasher) = splitbloom::GxHash::new(0) {
    ///     let mut state: splitbloom::hash::GxHasher = hasher.build_hasher();
    ///     state.write(b"key");
    ///     assert_eq!(state.finish(), splitbloom::FilterHasher::hash_bytes(&hasher, b"key"));
    /// }
    /// ```
    GxHasher,
    GxBytes
);

/// The [`Hasher`] of [`GxHash`], framed as [`Xxh3`](crate::Xxh3)'s; in builds without AES, as
/// this one, no [`GxHash`] value, and so no `GxHasher`, can exist.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// if let Ok(hasher) = splitbloom::GxHash::new(0) {
///     let mut state: splitbloom::hash::GxHasher = hasher.build_hasher();
///     state.write(b"key");
///     assert_eq!(state.finish(), splitbloom::FilterHasher::hash_bytes(&hasher, b"key"));
/// }
/// ```
#[cfg(not(splitbloom_gxhash))]
#[derive(Clone, Debug)]
pub struct GxHasher {
    never: GxAvailable,
}

/// Uninhabited in this build (no AES at compile time).
#[cfg(not(splitbloom_gxhash))]
impl Hasher for GxHasher {
    fn write(&mut self, _bytes: &[u8]) {
        match self.never {}
    }

    fn finish(&self) -> u64 {
        match self.never {}
    }
}

impl BuildHasher for GxHash {
    type Hasher = GxHasher;

    #[inline(always)]
    fn build_hasher(&self) -> GxHasher {
        #[cfg(splitbloom_gxhash)]
        return GxHasher(Framing::new(self.seed));
        // Uninhabited: this build has no value of this type to call this on.
        #[cfg(not(splitbloom_gxhash))]
        match self.proof {}
    }
}
