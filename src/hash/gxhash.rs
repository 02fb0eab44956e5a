//! The gxhash hashers, [`GxHybrid`] (hasher id 6, opt-in), [`GxPlain`] (id 5) and [`GxHash`]
//! (id 1, legacy): nameable in every build, computable only where the target has AES at
//! compile time. The [`hash`](crate::hash) module documents their contracts.

use core::hash::{BuildHasher, Hasher};
#[cfg(splitbloom_gxhash)]
use core::marker::PhantomData;

#[cfg(splitbloom_gxhash)]
use super::{BytesHash, KeyHasher, MIX, Xxh3PlainBytes};
use super::{FilterHasher, HasherKind};
use crate::error::Error;

/// gxhash 3.x over byte strings, never reading past the input. Exists only in builds that can
/// compute gxhash (AES at compile time); [`GxHash`] exists in every build.
///
/// Inputs shorter than 16 bytes (gxhash would read 16 bytes from them) are hashed as the
/// 16-byte value holding the input followed by zeros, with the seed increased by
/// `(len + 1) · 0x9e37_79b9_7f4a_7c15` (wrapping) so that "a" and "a\0" stay apart. That value
/// is assembled in registers from two overlapping loads inside the input, as XXH3 does for
/// short inputs, rather than copied into a stack buffer: the copy (a `memcpy` call, then a
/// 16-byte load over narrower stores, which store-to-load forwarding cannot serve) took 10 ns
/// of a 12 ns hash on short keys.
///
/// ```
/// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] {
/// # if splitbloom::HasherKind::GxHash.is_available() {
/// use splitbloom::hash::{BytesHash, GxBytes};
/// // Short inputs are padded, with the length folded in: "a" and "a\0" stay apart.
/// assert_ne!(GxBytes::hash_bytes(b"a", 0), GxBytes::hash_bytes(b"a\0", 0));
/// # } }
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
            let seed = seed.wrapping_add((bytes.len() as u64 + 1).wrapping_mul(MIX));
            gxhash::gxhash64(&zero_padded(bytes), seed as i64)
        }
    }
}

/// `bytes` (at most 15) followed by zeros, as 16 bytes, from at most two loads of 8, 4 or 1
/// bytes that stay inside `bytes` (overlapping when the length is not a power of two).
#[inline(always)]
#[cfg_attr(not(splitbloom_gxhash), allow(dead_code))]
pub(super) fn zero_padded(bytes: &[u8]) -> [u8; 16] {
    let len = bytes.len();
    // Little-endian words of `bytes[at..at + N]`.
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
    let (low, high) = match len {
        0 => (0, 0),
        // Bytes 0, len / 2 and len - 1 cover every byte of a 1..=3-byte input.
        1..=3 => {
            let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
            (byte(0) | byte(len / 2) | byte(len - 1), 0)
        }
        // Two 4-byte loads, the second ending at the last byte; overlapping bytes are equal.
        4..=8 => {
            let last = u64::from(u32_at(len - 4)) << (8 * (len - 4));
            (u64::from(u32_at(0)) | last, 0)
        }
        // The first 8 bytes, then the 8 ending at the last byte shifted down to start at byte 8.
        _ => (u64_at(0), u64_at(len - 8) >> (8 * (16 - len))),
    };
    // One 16-byte vector, not two 8-byte halves: gxhash loads the 16 bytes as one vector, and
    // a load that spans two narrower stores cannot be served by store-to-load forwarding (it
    // waits until both stores have reached the cache). Built in a register, the value is
    // stored whole: on AMD Zen 3, id 5's hash alone went from 5.6 to 4.3 ns at 4-15 bytes
    // (`key_lengths` bench). `to_le` makes the lanes' native bytes the little-endian ones on
    // every target.
    bytemuck::cast(wide::u64x2::new([low.to_le(), high.to_le()]))
}

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

seeded_build_hasher!(
    /// Keys hashed with gxhash (byte strings) and a folded multiply (integers): hasher id 1,
    /// opt-in.
    ///
    /// The type exists in every build; a value of it only where the target has AES at compile
    /// time (this repository's `.cargo/config.toml` enables it on x86_64; dependent crates need
    /// `RUSTFLAGS="-C target-feature=+aes"` or `-C target-cpu=native`). Elsewhere
    /// [`GxHash::new`] and [`FilterRef::<GxHash>::from_bytes_with_hasher`](crate::FilterRef::from_bytes_with_hasher)
    /// return [`Error::HasherUnavailable`]. Filters written by earlier versions with gxhash keep
    /// opening, with the same answers, wherever they could before.
    ///
    /// ```
    /// use splitbloom::{Error, Filter, GxHash, HasherKind};
    /// match GxHash::new(7) {
    ///     Ok(hasher) => {
    ///         let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
    ///         filter.insert_bytes(b"key");
    ///         assert!(filter.contains_bytes(b"key"));
    ///     }
    ///     Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHash)),
    /// }
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    GxHash,
    GxBytes,
    GxHasher,
    HasherKind::GxHash,
    GxAvailable
);

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

/// The [`Hasher`] of [`GxHash`]: [`KeyHasher`](super::KeyHasher) over `GxBytes` where gxhash can run; in other
/// builds no [`GxHash`] value, and so no `GxHasher`, can exist.
///
/// ```
/// use core::hash::{BuildHasher, Hasher};
/// if let Ok(hasher) = splitbloom::GxHash::new(0) {
///     let mut state: splitbloom::hash::GxHasher = hasher.build_hasher();
///     state.write(b"key");
///     assert_eq!(state.finish(), splitbloom::FilterHasher::hash_bytes(&hasher, b"key"));
/// }
/// ```
#[derive(Clone, Debug)]
pub struct GxHasher {
    #[cfg(splitbloom_gxhash)]
    inner: KeyHasher<GxBytes>,
    #[cfg(not(splitbloom_gxhash))]
    never: GxAvailable,
}

impl BuildHasher for GxHash {
    type Hasher = GxHasher;

    #[inline(always)]
    fn build_hasher(&self) -> GxHasher {
        #[cfg(splitbloom_gxhash)]
        return GxHasher {
            inner: KeyHasher {
                state: self.initial_state,
                bytes: PhantomData,
            },
        };
        // Uninhabited: this build has no GxHash value to call this on.
        #[cfg(not(splitbloom_gxhash))]
        match self.proof {}
    }
}

#[cfg(splitbloom_gxhash)]
impl super::ContractWrite for GxHasher {
    #[inline(always)]
    fn write_contract(&mut self, bytes: &[u8]) {
        self.inner.write_contract(bytes);
    }
}

/// Uninhabited in this build (see [`GxHasher`]).
#[cfg(not(splitbloom_gxhash))]
impl super::ContractWrite for GxHasher {
    fn write_contract(&mut self, _bytes: &[u8]) {
        match self.never {}
    }
}

/// Forwards every call to the [`KeyHasher`](super::KeyHasher) inside (see the [module docs](crate::hash)).
#[cfg(splitbloom_gxhash)]
impl Hasher for GxHasher {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.inner.write(bytes);
    }

    #[inline(always)]
    fn write_u8(&mut self, value: u8) {
        self.inner.write_u8(value);
    }

    #[inline(always)]
    fn write_u16(&mut self, value: u16) {
        self.inner.write_u16(value);
    }

    #[inline(always)]
    fn write_u32(&mut self, value: u32) {
        self.inner.write_u32(value);
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.inner.write_u64(value);
    }

    #[inline(always)]
    fn write_u128(&mut self, value: u128) {
        self.inner.write_u128(value);
    }

    #[inline(always)]
    fn write_usize(&mut self, value: usize) {
        self.inner.write_usize(value);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.inner.finish()
    }
}

/// Uninhabited in this build (see [`GxHasher`]).
#[cfg(not(splitbloom_gxhash))]
impl Hasher for GxHasher {
    fn write(&mut self, _bytes: &[u8]) {
        match self.never {}
    }

    fn finish(&self) -> u64 {
        match self.never {}
    }
}

/// The byte hash of [`GxPlain`] (hasher id 5): `gxhash64(b, seed ^ len)`, where `b` is `bytes`
/// when at least 16 bytes long and `bytes` zero-padded to 16 bytes when shorter, and `len` is
/// `bytes.len()`. Never reads outside `bytes` (the padded value is built by the same
/// overlapping loads as `GxBytes`). Exists only in builds that can compute gxhash.
///
/// ```
/// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] {
/// # if splitbloom::HasherKind::GxPlain.is_available() {
/// use splitbloom::hash::{BytesHash, GxPlainBytes};
/// // The length in the seed keeps "a" and "a\0" apart although both pad to the same 16 bytes.
/// assert_ne!(GxPlainBytes::hash_bytes(b"a", 0), GxPlainBytes::hash_bytes(b"a\0", 0));
/// # } }
/// ```
#[cfg(splitbloom_gxhash)]
#[derive(Clone, Copy, Debug)]
pub struct GxPlainBytes;

#[cfg(splitbloom_gxhash)]
impl BytesHash for GxPlainBytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        const VECTOR: usize = 16;
        if bytes.is_empty() && seed == 0 {
            return EMPTY_KEY_SEED_0;
        }
        let seed = (seed ^ bytes.len() as u64) as i64;
        if bytes.len() >= VECTOR {
            // gxhash reads whole 16-byte vectors, all inside `bytes` at this length.
            gxhash::gxhash64(bytes, seed)
        } else {
            gxhash::gxhash64(&zero_padded(bytes), seed)
        }
    }
}

/// `gxhash64` of 16 zero bytes with seed 0: [`GxPlainBytes`]'s hash of the empty key with seed 0,
/// the default. A constant, as the empty key's XXH3 is to the compiler, which cannot evaluate
/// AES rounds at compile time; checked against the `gxhash` crate by the unit tests (and by the
/// known answers in tests/suite/hash_known_answers.rs).
#[cfg(splitbloom_gxhash)]
const EMPTY_KEY_SEED_0: u64 = 0xad8f_372c_a53d_9274;

/// Defines a gxhash hasher over [`PlainHasher`](super::PlainHasher) (the framing of
/// [`Xxh3Plain`](crate::Xxh3Plain)) with byte hash `$bytes`: the type, which exists in every
/// build and has a value only where gxhash can run, its `new`, and its [`Hasher`], which is
/// uninhabited in builds without gxhash.
macro_rules! plain_gx_hasher {
    (
        $(#[$doc:meta])*
        $name:ident,
        $bytes:ident,
        $(#[$hasher_doc:meta])*
        $hasher:ident,
        $kind:ident
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name {
            seed: u64,
            proof: GxAvailable,
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name)).field("seed", &self.seed).finish()
            }
        }

        impl $name {
            /// The hasher with `seed`, or [`Error::HasherUnavailable`] where this build cannot
            /// compute gxhash (no AES at compile time).
            ///
            /// ```
            #[doc = concat!("use splitbloom::{", stringify!($name), ", HasherKind};")]
            #[doc = concat!(
                "assert_eq!(", stringify!($name), "::new(0).is_ok(), HasherKind::",
                stringify!($kind), ".is_available());"
            )]
            /// ```
            pub fn new(seed: u64) -> Result<$name, Error> {
                <$name as FilterHasher>::try_with_seed(seed)
            }
        }

        impl FilterHasher for $name {
            const KIND: HasherKind = HasherKind::$kind;

            fn try_with_seed(seed: u64) -> Result<Self, Error> {
                Ok($name {
                    seed,
                    proof: GxAvailable::new().ok_or(Error::HasherUnavailable(HasherKind::$kind))?,
                })
            }

            fn seed(&self) -> u64 {
                self.seed
            }

            #[inline(always)]
            #[cfg_attr(not(splitbloom_gxhash), allow(unused_variables))]
            fn hash_bytes(&self, bytes: &[u8]) -> u64 {
                #[cfg(splitbloom_gxhash)]
                return $bytes::hash_bytes(bytes, self.seed);
                // Uninhabited: this build has no value of this type to call this on.
                #[cfg(not(splitbloom_gxhash))]
                match self.proof {}
            }
        }

        $(#[$hasher_doc])*
        #[cfg(splitbloom_gxhash)]
        pub type $hasher = super::PlainHasher<$bytes>;

        $(#[$hasher_doc])*
        #[cfg(not(splitbloom_gxhash))]
        #[derive(Clone, Debug)]
        pub struct $hasher {
            never: GxAvailable,
        }

        /// Uninhabited in this build (no AES at compile time).
        #[cfg(not(splitbloom_gxhash))]
        impl Hasher for $hasher {
            fn write(&mut self, _bytes: &[u8]) {
                match self.never {}
            }

            fn finish(&self) -> u64 {
                match self.never {}
            }
        }

        impl BuildHasher for $name {
            type Hasher = $hasher;

            #[inline(always)]
            fn build_hasher(&self) -> $hasher {
                #[cfg(splitbloom_gxhash)]
                return super::PlainHasher::new(self.seed);
                // Uninhabited: this build has no value of this type to call this on.
                #[cfg(not(splitbloom_gxhash))]
                match self.proof {}
            }
        }
    };
}

plain_gx_hasher!(
    /// Keys hashed with plain gxhash (byte strings) and one folded multiply (an integer): hasher
    /// id 5, opt-in. Kept for the files written with it: new gxhash filters use [`GxHybrid`]
    /// (id 6), the same from 16 bytes up and XXH3 below, where id 5 is 1-8% slower than XXH3
    /// (the README's key-length table).
    ///
    /// Its byte-key contract is `gxhash64(b, seed ^ len)`, `b` being the key zero-padded to 16 bytes
    /// when shorter (see [`module docs`](crate::hash#the-byte-key-contract-stable-reproducible-in-any-language)):
    /// no final multiply and no length multiply, so it costs gxhash64 and one XOR. Integer keys and
    /// every other [`Hasher`] call are framed exactly as for [`Xxh3Plain`](crate::Xxh3Plain), with
    /// this byte hash in place of XXH3; so `insert(&str)`, `insert(&[u8])` and `insert_bytes` give
    /// the same hash.
    ///
    /// Like [`GxHash`], the type exists in every build and a value of it only where the target has
    /// AES at compile time; elsewhere [`GxPlain::new`] and reading a filter with hasher id 5 return
    /// [`Error::HasherUnavailable`].
    ///
    /// ```
    /// use core::hash::BuildHasher;
    /// use splitbloom::{Error, Filter, FilterHasher, GxPlain, HasherKind};
    /// match GxPlain::new(7) {
    ///     Ok(hasher) => {
    ///         assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
    ///         let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
    ///         filter.insert_bytes(b"key");
    ///         assert!(filter.contains("key"));
    ///     }
    ///     Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxPlain)),
    /// }
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    GxPlain,
    GxPlainBytes,
    /// The [`Hasher`] of [`GxPlain`]: [`PlainHasher`](super::PlainHasher) over `GxPlainBytes`
    /// where gxhash can run; in other builds no [`GxPlain`] value, and so no `GxPlainHasher`, can
    /// exist.
    ///
    /// ```
    /// use core::hash::{BuildHasher, Hasher};
    /// if let Ok(hasher) = splitbloom::GxPlain::new(0) {
    ///     let mut state: splitbloom::hash::GxPlainHasher = hasher.build_hasher();
    ///     state.write(b"key");
    ///     assert_eq!(state.finish(), splitbloom::FilterHasher::hash_bytes(&hasher, b"key"));
    /// }
    /// ```
    GxPlainHasher,
    GxPlain
);

/// Keys shorter than this many bytes are hashed by [`GxHybridBytes`] with XXH3, longer ones
/// with gxhash: gxhash's vector width, below which gxhash64 pads the key and still runs its
/// four AES rounds, and XXH3's 0-16-byte paths are shorter.
#[cfg(splitbloom_gxhash)]
const HYBRID_GXHASH_MIN: usize = 16;

/// The byte hash of [`GxHybrid`] (hasher id 6): `XXH3_64_withSeed(bytes, seed)` (as
/// [`Xxh3PlainBytes`]) when `bytes` is shorter than 16 bytes, `gxhash64(bytes, seed ^ len)`
/// (as [`GxPlainBytes`], which needs no padding at these lengths) from 16 bytes up. Exists only
/// in builds that can compute gxhash.
///
/// ```
/// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] {
/// # if splitbloom::HasherKind::GxHybrid.is_available() {
/// use splitbloom::hash::{BytesHash, GxHybridBytes, GxPlainBytes, Xxh3PlainBytes};
/// let short = b"fifteen bytes!!";
/// assert_eq!(GxHybridBytes::hash_bytes(short, 3), Xxh3PlainBytes::hash_bytes(short, 3));
/// let long = b"sixteen bytes!!!";
/// assert_eq!(GxHybridBytes::hash_bytes(long, 3), GxPlainBytes::hash_bytes(long, 3));
/// # } }
/// ```
#[cfg(splitbloom_gxhash)]
#[derive(Clone, Copy, Debug)]
pub struct GxHybridBytes;

#[cfg(splitbloom_gxhash)]
impl BytesHash for GxHybridBytes {
    #[inline(always)]
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() < HYBRID_GXHASH_MIN {
            Xxh3PlainBytes::hash_bytes(bytes, seed)
        } else {
            GxPlainBytes::hash_bytes(bytes, seed)
        }
    }

    /// As the default's `write`: inputs of up to 3 bytes inline, longer ones (XXH3 or gxhash)
    /// out of line (see [`BytesHash::hash_bytes_in_write`]).
    #[inline(always)]
    fn hash_bytes_in_write(bytes: &[u8], seed: u64) -> u64 {
        if bytes.len() > super::xxh3::INLINE_MAX {
            super::hash_bytes_out_of_line::<Self>(bytes, seed)
        } else {
            Xxh3PlainBytes::hash_bytes_in_write(bytes, seed)
        }
    }
}

plain_gx_hasher!(
    /// Keys hashed with XXH3 under 16 bytes and gxhash from 16 bytes up (byte strings), and one
    /// folded multiply (an integer): hasher id 6, opt-in. The hasher to choose for new filters
    /// that want gxhash's speed on long keys without its cost on short ones.
    ///
    /// Its byte-key contract (see the [module docs](crate::hash#the-byte-key-contract-stable-reproducible-in-any-language))
    /// is `XXH3_64_withSeed(bytes, seed)` for a key shorter than 16 bytes, exactly the default
    /// [`Xxh3Plain`](crate::Xxh3Plain)'s hash, and `gxhash64(bytes, seed ^ len)` for a longer
    /// one, exactly [`GxPlain`]'s. Under 16 bytes gxhash64 pads the key to one vector and still
    /// runs its four dependent AES rounds, which cost more than XXH3's short paths; from 16 up
    /// gxhash is the faster (the README's key-length table). Integer keys and every other
    /// [`Hasher`] call are framed exactly as for [`Xxh3Plain`](crate::Xxh3Plain).
    ///
    /// Like [`GxPlain`], the type exists in every build and a value of it only where the target
    /// has AES at compile time; elsewhere [`GxHybrid::new`] and reading a filter with hasher id
    /// 6 return [`Error::HasherUnavailable`].
    ///
    /// ```
    /// use core::hash::BuildHasher;
    /// use splitbloom::{Error, Filter, FilterHasher, GxHybrid, HasherKind, Xxh3Plain};
    /// match GxHybrid::new(7) {
    ///     Ok(hasher) => {
    ///         assert_eq!(hasher.hash_one("key"), hasher.hash_bytes(b"key"));
    ///         // Under 16 bytes, the default's hash.
    ///         assert_eq!(hasher.hash_bytes(b"key"), Xxh3Plain::with_seed(7).hash_bytes(b"key"));
    ///         let mut filter = Filter::with_num_blocks_and_hasher(64, hasher)?;
    ///         filter.insert_bytes(b"https://example.com/a/long/key");
    ///         assert!(filter.contains("https://example.com/a/long/key"));
    ///     }
    ///     Err(error) => assert_eq!(error, Error::HasherUnavailable(HasherKind::GxHybrid)),
    /// }
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    GxHybrid,
    GxHybridBytes,
    /// The [`Hasher`] of [`GxHybrid`]: [`PlainHasher`](super::PlainHasher) over `GxHybridBytes`
    /// where gxhash can run; in other builds no [`GxHybrid`] value, and so no `GxHybridHasher`,
    /// can exist.
    ///
    /// ```
    /// use core::hash::{BuildHasher, Hasher};
    /// if let Ok(hasher) = splitbloom::GxHybrid::new(0) {
    ///     let mut state: splitbloom::hash::GxHybridHasher = hasher.build_hasher();
    ///     state.write(b"key");
    ///     assert_eq!(state.finish(), splitbloom::FilterHasher::hash_bytes(&hasher, b"key"));
    /// }
    /// ```
    GxHybridHasher,
    GxHybrid
);
