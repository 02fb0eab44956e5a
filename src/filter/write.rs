//! The writes every filter type shares, written once, as `view.rs` does for the reads.
//!
//! A filter type tells [`Insert`] its hasher and how it adds one pre-hashed key (and, when it
//! has a faster path, a batch of them). Everything else a writer asks (keyed and byte-key
//! inserts, batches, `Extend`) is a function here over any [`Insert`], and `write_methods!`
//! writes the public methods of every filter type ([`Filter`], [`AtomicFilter`],
//! [`CountingFilter`], [`ScalableFilter`], [`WindowFilter`], the atomic window's writer,
//! [`QuotientFilter`](crate::QuotientFilter)) from these functions, so the types cannot drift
//! apart.
//!
//! Every write returns a `Result` whose error type is the type's own: [`Infallible`] for the
//! filters that never refuse a key (the public method unwraps it through [`Finish`], which
//! costs nothing), [`Error`] for [`ScalableFilter`], whose insert may need a new
//! stage, and for [`QuotientFilter`](crate::QuotientFilter), which can be full. A batch stops
//! at its first error, and the error learns how many keys of the whole batch went in before it
//! ([`Insert::after`]), however the batch was cut into chunks.
//!
//! [`Filter`]: crate::Filter
//! [`AtomicFilter`]: crate::AtomicFilter
//! [`CountingFilter`]: crate::CountingFilter
//! [`ScalableFilter`]: crate::ScalableFilter
//! [`WindowFilter`]: crate::WindowFilter

use core::convert::Infallible;
use core::hash::{BuildHasher, Hash};

use crate::error::Error;
use crate::hash::{BYTES_CHUNK, FilterHasher, hash_key};

/// Keys are hashed this many at a time into a buffer on the stack before a batch insert: long
/// enough for a kernel's prefetch pipeline to fill, short enough to stay in L1.
const CHUNK: usize = BYTES_CHUNK;

/// What a public write method returns for a write's `Result`: the value itself when the type's
/// error is [`Infallible`] (an irrefutable `let Ok(..)`, which costs nothing), the `Result` as
/// it is otherwise.
pub(crate) trait Finish<T> {
    /// The method's return value.
    fn finish(self) -> T;
}

impl<T> Finish<T> for Result<T, Infallible> {
    #[inline(always)]
    fn finish(self) -> T {
        let Ok(value) = self;
        value
    }
}

impl<T> Finish<Result<T, Error>> for Result<T, Error> {
    #[inline(always)]
    fn finish(self) -> Self {
        self
    }
}

/// What a filter type provides so that the writes are written once for all of them.
pub(crate) trait Insert {
    /// The hasher keys go through.
    type Hasher;

    /// Why an insert can fail: [`Infallible`] when it cannot.
    type Error;

    /// The hasher keys go through.
    fn hasher(&self) -> &Self::Hasher;

    /// Adds a pre-hashed key; `Ok(true)` when it was newly inserted (some of its bits, or
    /// counters, were unset), as `HashSet::insert` answers.
    fn insert_one(&mut self, hash: u64) -> Result<bool, Self::Error>;

    /// `error`, raised by a call on a chunk of a batch, as the error of the whole batch, whose
    /// first `processed` keys came before the chunk. Unchanged unless the type's error says
    /// where in a batch it happened.
    #[inline]
    fn after(error: Self::Error, processed: usize) -> Self::Error {
        let _ = processed;
        error
    }

    /// Adds every hash of `hashes`, stopping at the first error (the hashes before it are in).
    /// One at a time unless the type has a faster path.
    #[inline]
    fn insert_all(&mut self, hashes: &[u64]) -> Result<(), Self::Error> {
        for &hash in hashes {
            self.insert_one(hash)?;
        }
        Ok(())
    }

    /// Adds every key of `keys`: hashes a chunk at a time into a buffer on the stack, then
    /// inserts it with [`insert_all`](Insert::insert_all), unless the type has a faster path.
    #[inline]
    fn insert_keys<K: Hash>(&mut self, keys: &[K]) -> Result<(), Self::Error>
    where
        Self::Hasher: BuildHasher,
    {
        let mut hashes = [0u64; CHUNK];
        for (index, chunk) in keys.chunks(CHUNK).enumerate() {
            let hashes = &mut hashes[..chunk.len()];
            for (hash, key) in hashes.iter_mut().zip(chunk) {
                *hash = hash_key(self.hasher(), key);
            }
            self.insert_all(hashes)
                .map_err(|error| Self::after(error, index * CHUNK))?;
        }
        Ok(())
    }
}

/// Adds `key`; `Ok(true)` when it was newly inserted.
#[inline(always)]
pub(crate) fn insert<W: Insert, K: Hash + ?Sized>(filter: &mut W, key: &K) -> Result<bool, W::Error>
where
    W::Hasher: BuildHasher,
{
    let hash = hash_key(filter.hasher(), key);
    filter.insert_one(hash)
}

/// Adds a pre-hashed key; `Ok(true)` when it was newly inserted.
#[inline(always)]
pub(crate) fn insert_hash<W: Insert>(filter: &mut W, hash: u64) -> Result<bool, W::Error> {
    filter.insert_one(hash)
}

/// Adds every hash of `hashes`; stops at the first error.
#[inline]
pub(crate) fn insert_hash_batch<W: Insert>(filter: &mut W, hashes: &[u64]) -> Result<(), W::Error> {
    filter.insert_all(hashes)
}

/// Adds every key of `keys`; stops at the first error.
#[inline]
pub(crate) fn insert_batch<W: Insert, K: Hash>(filter: &mut W, keys: &[K]) -> Result<(), W::Error>
where
    W::Hasher: BuildHasher,
{
    filter.insert_keys(keys)
}

/// Adds the key made of exactly `key`'s bytes (the byte-key contract, see
/// [`hash`](crate::hash)); `Ok(true)` when it was newly inserted.
#[inline(always)]
pub(crate) fn insert_bytes<W: Insert>(filter: &mut W, key: &[u8]) -> Result<bool, W::Error>
where
    W::Hasher: FilterHasher,
{
    let hash = filter.hasher().hash_bytes(key);
    filter.insert_one(hash)
}

/// Adds every key of `keys`, each exactly its bytes, through the type's pre-hashed batch path;
/// stops at the first error.
#[inline]
pub(crate) fn insert_bytes_batch<W: Insert, K: AsRef<[u8]>>(
    filter: &mut W,
    keys: &[K],
) -> Result<(), W::Error>
where
    W::Hasher: FilterHasher,
{
    let mut hashes = [0u64; CHUNK];
    for (index, chunk) in keys.chunks(CHUNK).enumerate() {
        let hashes = &mut hashes[..chunk.len()];
        for (hash, key) in hashes.iter_mut().zip(chunk) {
            *hash = filter.hasher().hash_bytes(key.as_ref());
        }
        filter
            .insert_all(hashes)
            .map_err(|error| W::after(error, index * CHUNK))?;
    }
    Ok(())
}

/// Adds every key of an iterator, a chunk of hashes at a time through the batch path; stops
/// at the first error.
#[inline]
pub(crate) fn extend<W: Insert, K: Hash>(
    filter: &mut W,
    keys: impl IntoIterator<Item = K>,
) -> Result<(), W::Error>
where
    W::Hasher: BuildHasher,
{
    let mut hashes = [0u64; CHUNK];
    let mut keys = keys.into_iter();
    let mut processed = 0;
    loop {
        let mut len = 0;
        for (hash, key) in hashes.iter_mut().zip(keys.by_ref()) {
            *hash = hash_key(filter.hasher(), &key);
            len += 1;
        }
        if len == 0 {
            return Ok(());
        }
        filter
            .insert_all(&hashes[..len])
            .map_err(|error| W::after(error, processed))?;
        processed += len;
        if len < CHUNK {
            return Ok(());
        }
    }
}
