//! `read_methods!`: the public read methods of every filter type, written from the functions of
//! `view.rs` with their docs and a runnable example each.

/// Writes the public read methods of a filter type from the functions of
/// `view.rs`, with their docs
/// and a runnable example each, so that every type offers the same reads with the same
/// contract.
///
/// * `type`: the type, or `{generics} Type {arguments}` for a generic one (`{'a, S, L: Layout}
///   BloomFilterRef {'a, S, L}`), whose hasher parameter is named `S`;
/// * `setup`: doc-example lines that bind `filter` holding the keys `"apple"` and `"pear"`,
///   inserted both with `insert` and with `insert_bytes`;
/// * `note`: a sentence on how this type answers, added to each method's docs;
/// * `reader`: how a `&self` becomes a [`Probe`](crate::filter::view::Probe), or `probe`: how the type answers a hash (and
///   optionally `probe_all`, a batch of them, and `probe_keys`, a batch of keys it hashes
///   itself), from which its `Probe` impl is written;
/// * `bytes`: whether to write the byte-key methods too.
macro_rules! read_methods {
    (
        type: $Type:ident,
        setup: $setup:expr,
        note: $note:expr,
        probe: |$this:ident, $hash:ident| $probe:expr,
        $(probe_all: |$this_all:ident, $hashes:ident, $out:ident| $probe_all:expr,)?
        $(probe_keys: |$this_keys:ident, $keys:ident, $out_keys:ident| $probe_keys:expr,)?
        bytes: $bytes:tt $(,)?
    ) => {
        read_methods! {
            type: {S} $Type {S},
            setup: $setup,
            note: $note,
            probe: |$this, $hash| $probe,
            $(probe_all: |$this_all, $hashes, $out| $probe_all,)?
            $(probe_keys: |$this_keys, $keys, $out_keys| $probe_keys,)?
            bytes: $bytes,
        }
    };
    (
        type: {$($gen:tt)*} $Type:ident {$($args:tt)*},
        setup: $setup:expr,
        note: $note:expr,
        probe: |$this:ident, $hash:ident| $probe:expr,
        $(probe_all: |$this_all:ident, $hashes:ident, $out:ident| $probe_all:expr,)?
        $(probe_keys: |$this_keys:ident, $keys:ident, $out_keys:ident| $probe_keys:expr,)?
        bytes: $bytes:tt $(,)?
    ) => {
        /// The answers every read of this type is written from (see `filter::view`).
        impl<$($gen)*> $crate::filter::view::Probe for $Type<$($args)*> {
            type Hasher = S;

            #[inline(always)]
            fn hasher(&self) -> &S {
                &self.hasher
            }

            #[inline]
            fn probe(&self, $hash: u64) -> bool {
                let $this = self;
                $probe
            }

            $(
                #[inline]
                fn probe_all(&self, $hashes: &[u64], $out: &mut [bool]) {
                    let $this_all = self;
                    $probe_all
                }
            )?

            $(
                #[inline]
                fn probe_keys<K: core::hash::Hash>(&self, $keys: &[K], $out_keys: &mut [bool])
                where
                    S: core::hash::BuildHasher,
                {
                    let $this_keys = self;
                    $probe_keys
                }
            )?
        }

        read_methods! {
            type: {$($gen)*} $Type {$($args)*},
            setup: $setup,
            note: $note,
            reader: |filter| filter,
            bytes: $bytes,
        }
    };
    (
        type: $Type:ident,
        setup: $setup:expr,
        note: $note:expr,
        reader: |$this:ident| $reader:expr,
        bytes: $bytes:tt $(,)?
    ) => {
        read_methods! {
            type: {S} $Type {S},
            setup: $setup,
            note: $note,
            reader: |$this| $reader,
            bytes: $bytes,
        }
    };
    (
        type: {$($gen:tt)*} $Type:ident {$($args:tt)*},
        setup: $setup:expr,
        note: $note:expr,
        reader: |$this:ident| $reader:expr,
        bytes: $bytes:tt $(,)?
    ) => {
        read_methods!(@reader {$($gen)*} $Type {$($args)*}, |$this| $reader);
        read_methods!(@keys {$($gen)*} $Type {$($args)*}, $setup, $note);
        read_methods!(@hashes {$($gen)*} $Type {$($args)*}, $setup, $note);
        read_methods!(@bytes $bytes, {$($gen)*} $Type {$($args)*}, $setup, $note);
    };
    (@reader {$($gen:tt)*} $Type:ident {$($args:tt)*}, |$this:ident| $reader:expr) => {
        impl<$($gen)*> $Type<$($args)*> {
            /// The [`Probe`](crate::filter::view::Probe) every read goes through.
            #[inline(always)]
            fn reader(&self) -> impl $crate::filter::view::Probe<Hasher = S> + '_ {
                let $this = self;
                $reader
            }
        }
    };
    (@hashes {$($gen:tt)*} $Type:ident {$($args:tt)*}, $setup:expr, $note:expr) => {
        /// Pre-hashed keys, for callers that hash keys themselves (storage engines): every bit
        /// of the 64-bit hash is used, so it must be well mixed (the type's docs say which
        /// bits choose what).
        impl<$($gen)*> $Type<$($args)*> {
            /// Whether a pre-hashed key may be present: `false` means certainly absent.
            ///
            #[doc = $note]
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.contains_hash(filter.hash_bytes(b"apple")));
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            // Always inlined, down to the kernel's probe: a caller's loop of single lookups then
            // keeps the probe inline and the kernel choice hoisted out of the loop, instead of
            // a call and a jump table per lookup (`benches/workload.rs`; see BENCHMARKS.md).
            #[inline(always)]
            pub fn contains_hash(&self, hash: u64) -> bool {
                $crate::filter::view::Probe::probe(&self.reader(), hash)
            }

            /// Writes into `out[i]` whether `hashes[i]` may be present: the answers of
            #[doc = concat!("[`contains_hash`](", stringify!($Type), "::contains_hash),")]
            /// through this type's batch path.
            ///
            #[doc = $note]
            ///
            /// # Panics
            ///
            /// When `out.len() != hashes.len()`.
            ///
            /// ```
            #[doc = $setup]
            /// let hashes = [filter.hash_bytes(b"apple"), filter.hash_bytes(b"kiwi")];
            /// let mut out = [false; 2];
            /// filter.contains_hash_batch(&hashes, &mut out);
            /// assert!(out[0]);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[track_caller]
            pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
                $crate::filter::view::contains_hash_batch(&self.reader(), hashes, out);
            }

            /// How many of `hashes` may be present: the number of `true` answers
            #[doc = concat!("[`contains_hash_batch`](", stringify!($Type), "::contains_hash_batch)")]
            /// would give, without an output slice.
            ///
            /// ```
            #[doc = $setup]
            /// let hashes = [filter.hash_bytes(b"apple"), filter.hash_bytes(b"pear")];
            /// assert_eq!(filter.count_contained_hashes(&hashes), 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn count_contained_hashes(&self, hashes: &[u64]) -> usize {
                $crate::filter::view::count_contained_hashes(&self.reader(), hashes)
            }
        }
    };
    (@keys {$($gen:tt)*} $Type:ident {$($args:tt)*}, $setup:expr, $note:expr) => {
        impl<$($gen)*> $Type<$($args)*>
        where
            S: core::hash::BuildHasher,
        {
            /// Whether `key` may be present: `false` means certainly absent.
            ///
            #[doc = $note]
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.contains("apple"));
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline(always)]
            pub fn contains<K: core::hash::Hash + ?Sized>(&self, key: &K) -> bool {
                $crate::filter::view::contains(&self.reader(), key)
            }

            /// Writes into `out[i]` whether `keys[i]` may be present: the answers of
            #[doc = concat!("[`contains`](", stringify!($Type), "::contains),")]
            /// through this type's batch path.
            ///
            #[doc = $note]
            ///
            /// # Panics
            ///
            /// When `out.len() != keys.len()`.
            ///
            /// ```
            #[doc = $setup]
            /// let mut out = [false; 3];
            /// filter.contains_batch(&["apple", "kiwi", "pear"], &mut out);
            /// assert!(out[0] && out[2]);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[track_caller]
            pub fn contains_batch<K: core::hash::Hash>(&self, keys: &[K], out: &mut [bool]) {
                $crate::filter::view::contains_batch(&self.reader(), keys, out);
            }

            /// How many of `keys` may be present: the number of `true` answers
            #[doc = concat!("[`contains_batch`](", stringify!($Type), "::contains_batch)")]
            /// would give, without an output slice (for example the selectivity of a join's
            /// probe side).
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.count_contained(&["apple", "pear", "kiwi"]) >= 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn count_contained<K: core::hash::Hash>(&self, keys: &[K]) -> usize {
                $crate::filter::view::count_contained(&self.reader(), keys)
            }
        }
    };
    (@bytes no, $($rest:tt)*) => {};
    (@bytes yes, {$($gen:tt)*} $Type:ident {$($args:tt)*}, $setup:expr, $note:expr) => {
        /// The byte-key contract: keys given as exactly their bytes, hashed with
        /// [`FilterHasher::hash_bytes`](crate::FilterHasher::hash_bytes), whose framing the
        /// [`hash`](crate::hash) module documents so another program can reproduce it. Use these
        /// for persisted string and byte keys.
        impl<$($gen)*> $Type<$($args)*>
        where
            S: $crate::hash::FilterHasher,
        {
            /// The hash `insert_bytes` gives `key`: exactly its bytes, with the framing of the
            /// [byte-key contract](crate::hash).
            ///
            /// ```
            /// use splitbloom::FilterHasher;
            #[doc = $setup]
            /// assert_eq!(filter.hash_bytes(b"key"), filter.hasher().hash_bytes(b"key"));
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            pub fn hash_bytes(&self, key: &[u8]) -> u64 {
                $crate::filter::view::hash_bytes(&self.reader(), key)
            }

            /// Whether the key made of exactly `key`'s bytes may be present: `false` means
            /// certainly absent.
            ///
            #[doc = $note]
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.contains_bytes(b"apple"));
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            // Always inlined, hash included, as `contains_hash` is: otherwise LLVM may keep it
            // out of line in a caller's loop, where each lookup pays a call and reloads the
            // filter's fields (`benches/key_lengths.rs` measures it; see BENCHMARKS.md).
            #[inline(always)]
            pub fn contains_bytes(&self, key: &[u8]) -> bool {
                $crate::filter::view::contains_bytes(&self.reader(), key)
            }

            /// Writes into `out[i]` whether `keys[i]` (exactly its bytes) may be present.
            ///
            #[doc = $note]
            ///
            /// # Panics
            ///
            /// When `out.len() != keys.len()`.
            ///
            /// ```
            #[doc = $setup]
            /// let mut out = [false; 2];
            /// filter.contains_bytes_batch(&["apple", "kiwi"], &mut out);
            /// assert!(out[0]);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[track_caller]
            pub fn contains_bytes_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [bool]) {
                $crate::filter::view::contains_bytes_batch(&self.reader(), keys, out);
            }

            /// How many of `keys` (each exactly its bytes) may be present: the number of `true`
            /// answers
            #[doc = concat!("[`contains_bytes_batch`](", stringify!($Type), "::contains_bytes_batch)")]
            /// would give, without an output slice.
            ///
            /// ```
            #[doc = $setup]
            /// assert!(filter.count_contained_bytes(&["apple", "pear", "kiwi"]) >= 2);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn count_contained_bytes<K: AsRef<[u8]>>(&self, keys: &[K]) -> usize {
                $crate::filter::view::count_contained_bytes(&self.reader(), keys)
            }
        }
    };
}
