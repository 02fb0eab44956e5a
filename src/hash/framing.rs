//! The framing shared by [`Xxh3`](crate::Xxh3) and [`GxHash`](crate::GxHash): how each
//! [`Hasher`](core::hash::Hasher) call of std's `Hash` impls becomes part of the 64-bit hash, over a byte hash `B`.
//! The [module docs](crate::hash#the-hasher-of-xxh3-and-gxhash) give the definition.

use core::marker::PhantomData;

/// Mixed into every folded word, so that state 0 (the default seed) and word 0 do not fold to 0,
/// which would make a folded zero word look like a dropped one.
pub(crate) const WORD_OFFSET: u64 = 0x243f_6a88_85a3_08d3;
/// The constant of the folded multiply's second factor (the 64-bit golden ratio).
pub(crate) const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// The value std's `Hash for str` writes after a string's bytes (`write_u8(0xff)`), which
/// [`Framing`] drops when it directly follows a byte write.
pub(crate) const STR_TERMINATOR: u64 = 0xff;

/// The longest input the framed hashers' `write` hashes inline: XXH3's 0-byte and 1-3-byte
/// paths, a dozen instructions, where a call would cost most against the hash itself. More would
/// make std's `<str as Hash>::hash`, which calls `write`, too large for LLVM to inline into a
/// filter's `contains(&key)` (`BENCHMARKS.md`, "Hashing"). Filters take this path only for keys
/// `hash_key` cannot recognise as byte strings, such as `&&str` or `(u32, &str)`.
pub(crate) const INLINE_MAX: usize = 3;

/// XOR of the low and high halves of the full 128-bit product.
#[inline(always)]
pub(crate) fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// One integer word folded into the state: with `a = state ^ word ^ WORD_OFFSET`,
/// `fold(a, a.rotate_left(32) ^ MIX)`. Both factors depend on the key: with a constant factor
/// (`fold(a, MIX)`) a key's high bits would reach only the high half of the low product word,
/// and keys that differ only in their top bits would share more blocks than chance
/// (`tests/suite/fpr.rs`); the rotation costs a rotate and an XOR, no second multiply.
#[inline(always)]
pub(crate) fn fold_word(state: u64, word: u64) -> u64 {
    let a = state ^ word ^ WORD_OFFSET;
    fold(a, a.rotate_left(32) ^ MIX)
}

/// A byte-string hash that [`Framing`] builds on.
pub(crate) trait BytesHash {
    /// The 64-bit hash of `bytes` with `seed`; must read nothing outside `bytes`.
    fn hash_bytes(bytes: &[u8], seed: u64) -> u64;

    /// The same value as [`hash_bytes`](BytesHash::hash_bytes), as [`Hasher::write`](core::hash::Hasher::write) computes
    /// it. An implementation may move long inputs out of line, so that std's `Hash` impls of
    /// `str` and `[u8]`, which call `write` and are only hinted `#[inline]`, stay small enough
    /// to inline into a filter's `contains(&key)`, with the hasher's state in registers; the
    /// byte contract (`hash_bytes`) keeps the whole hash inline.
    #[inline(always)]
    fn hash_bytes_in_write(bytes: &[u8], seed: u64) -> u64 {
        Self::hash_bytes(bytes, seed)
    }
}

/// `B::hash_bytes(bytes, seed)`, never inlined: where a [`BytesHash::hash_bytes_in_write`]
/// moves longer inputs out of line.
///
/// Generic, so that each crate that hashes keys compiles its own copy and calls it directly:
/// a non-generic function of this crate is reached from another crate through the GOT, an
/// indirect call.
#[inline(never)]
pub(crate) fn hash_bytes_out_of_line<B: BytesHash>(bytes: &[u8], seed: u64) -> u64 {
    B::hash_bytes(bytes, seed)
}

/// The state of a framed hasher over the byte hash `B`: integer words are buffered, so one
/// integer costs one folded multiply in all, and a byte write is exactly `B::hash_bytes(bytes,
/// state)`, std's framing words around it dropped.
#[derive(Clone, Debug)]
pub(crate) struct Framing<B> {
    /// The state: the seed, then each byte hash or folded word.
    state: u64,
    /// The buffered integer word, when `pending`.
    word: u64,
    /// Whether `word` is buffered and not yet folded into `state`.
    pending: bool,
    /// Whether the last call was a byte write (`state` is then a byte hash).
    after_bytes: bool,
    bytes: PhantomData<B>,
}

impl<B> Framing<B> {
    /// A fresh hasher with state `seed`, nothing buffered.
    #[inline(always)]
    pub(crate) const fn new(seed: u64) -> Framing<B> {
        Framing {
            state: seed,
            word: 0,
            pending: false,
            after_bytes: false,
            bytes: PhantomData,
        }
    }

    /// Folds the buffered word, if any, into the state.
    #[inline(always)]
    fn flush(&mut self) {
        if self.pending {
            self.state = fold_word(self.state, self.word);
        }
    }

    /// One integer word: folds the previous buffered one and buffers this one, except std's
    /// `str` terminator directly after a byte write, which is dropped.
    #[inline(always)]
    pub(crate) fn word(&mut self, value: u64) {
        self.flush();
        self.word = value;
        self.pending = !(self.after_bytes && value == STR_TERMINATOR);
        self.after_bytes = false;
    }
}

impl<B: BytesHash> Framing<B> {
    /// A byte write.
    #[inline(always)]
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        // A buffered word equal to the length is std's length prefix of `[u8]`: the byte hash
        // already depends on the length, so it is dropped; any other buffered word is folded
        // in first.
        if self.word != bytes.len() as u64 {
            self.flush();
        }
        self.state = B::hash_bytes_in_write(bytes, self.state);
        self.pending = false;
        self.after_bytes = true;
    }

    /// The hash: a buffered word folded in, else the state.
    #[inline(always)]
    pub(crate) fn finish(&self) -> u64 {
        if self.pending {
            fold_word(self.state, self.word)
        } else {
            self.state
        }
    }
}

/// Defines `$name`, a public [`Hasher`](core::hash::Hasher) over [`Framing<$bytes>`](Framing), forwarding every
/// call: one named type per hasher, so that the framing and the byte hashes stay private.
macro_rules! framed_hasher {
    ($(#[$doc:meta])* $name:ident, $bytes:ty) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name(pub(crate) $crate::hash::framing::Framing<$bytes>);

        impl core::hash::Hasher for $name {
            #[inline(always)]
            fn write(&mut self, bytes: &[u8]) {
                self.0.write(bytes);
            }

            #[inline(always)]
            fn write_u8(&mut self, value: u8) {
                self.0.word(u64::from(value));
            }

            #[inline(always)]
            fn write_u16(&mut self, value: u16) {
                self.0.word(u64::from(value));
            }

            #[inline(always)]
            fn write_u32(&mut self, value: u32) {
                self.0.word(u64::from(value));
            }

            #[inline(always)]
            fn write_u64(&mut self, value: u64) {
                self.0.word(value);
            }

            #[inline(always)]
            fn write_u128(&mut self, value: u128) {
                self.0.word(value as u64);
                self.0.word((value >> 64) as u64);
            }

            #[inline(always)]
            fn write_usize(&mut self, value: usize) {
                self.0.word(value as u64);
            }

            #[inline(always)]
            fn finish(&self) -> u64 {
                self.0.finish()
            }
        }
    };
}
