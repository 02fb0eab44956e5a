//! `write_methods!`: the public insert methods of every filter type and the `Insert` impl they
//! are written from, with their docs and a runnable example each, as `read_methods!` writes
//! the reads.

/// Writes a filter type's [`Insert`](crate::filter::write::Insert) impl from how it adds one
/// pre-hashed key (and, where it has faster paths, a batch of hashes or of keys), then its
/// public insert methods (`insert`, `insert_batch`, `insert_hash`, `insert_hash_batch`,
/// `insert_bytes`, `insert_bytes_batch`) and its `Extend` impl from the functions of
/// `write.rs`, so that every type offers the same writes with the same contract.
///
/// * `type`: `{generics} Type {arguments}`, whose hasher parameter is named `S`;
/// * `writer`: `exclusive` (the methods take `&mut self`) or `shared` (they take `&self`, and
///   `Insert` is implemented on `&Type`, for a type written from many threads at once);
/// * `error`: the type's `Insert::Error`: `Infallible` for a type that never refuses a key
///   (one insert returns `bool`, a batch nothing), `Error` for one that may (they return
///   `Result<bool, Error>` and `Result<(), Error>`, and the doc examples use `?`);
/// * `insert_one` and the optional `hasher` (the `hasher` field by default), `insert_all` and
///   `insert_keys`: the `Insert` impl's methods, as closures over `filter` (`&mut Self`, or
///   `&mut &Self` for a shared writer); `after`, for a type whose error says where in a batch
///   it happened (`Insert::after`);
/// * `setup`: doc-example lines that bind an empty `filter` to write to, and `lookup`: what the
///   examples ask `contains` of afterwards (`"filter"`, or the filter a writer writes to);
/// * `note`: what an insert does in this type, added to `insert`'s docs; `batch_note`: how its
///   batches run, added to the batches' docs; `extend_note`: the `Extend` impl's promise, or
///   none for a type that has no `Extend` (an insert it refuses is a normal outcome, which a
///   panic would not report).
macro_rules! write_methods {
    (
        type: {$($gen:tt)*} $Type:ident {$($args:tt)*},
        writer: $writer:ident,
        error: Infallible,
        $($rest:tt)*
    ) => {
        write_methods!(
            @insert {$($gen)*} $Type {$($args)*}, $writer, core::convert::Infallible,
            (bool, ()), "", $($rest)*
        );
    };
    (
        type: {$($gen:tt)*} $Type:ident {$($args:tt)*},
        writer: $writer:ident,
        error: Error,
        $($rest:tt)*
    ) => {
        write_methods!(
            @insert {$($gen)*} $Type {$($args)*}, $writer, $crate::Error,
            (Result<bool, $crate::Error>, Result<(), $crate::Error>), "?", $($rest)*
        );
    };
    (
        @insert {$($gen:tt)*} $Type:ident {$($args:tt)*}, $writer:ident, $Error:ty,
        ($One:ty, $Batch:ty), $try:expr,
        $(hasher: |$hasher_this:ident| $hasher:expr,)?
        insert_one: |$one_this:ident, $hash:ident| $insert_one:expr,
        $(insert_all: |$all_this:ident, $hashes:ident| $insert_all:expr,)?
        $(insert_keys: |$keys_this:ident, $keys:ident| $insert_keys:expr,)?
        $(after: |$after_error:ident, $after_processed:ident| $after:expr,)?
        setup: $setup:expr,
        lookup: $lookup:expr,
        note: $note:expr,
        batch_note: $batch_note:expr
        $(, extend_note: $extend_note:expr)? $(,)?
    ) => {
        write_methods!(@impl $writer, {$($gen)*} $Type {$($args)*}, {
            type Hasher = S;
            type Error = $Error;

            #[inline(always)]
            fn hasher(&self) -> &S {
                write_methods!(@hasher self $(, |$hasher_this| $hasher)?)
            }

            #[inline(always)]
            fn insert_one(&mut self, $hash: u64) -> Result<bool, $Error> {
                let $one_this = self;
                $insert_one
            }

            $(
                #[inline]
                fn insert_all(&mut self, $hashes: &[u64]) -> Result<(), $Error> {
                    let $all_this = self;
                    $insert_all
                }
            )?

            $(
                #[inline]
                fn insert_keys<K: core::hash::Hash>(&mut self, $keys: &[K]) -> Result<(), $Error>
                where
                    S: core::hash::BuildHasher,
                {
                    let $keys_this = self;
                    $insert_keys
                }
            )?

            $(
                #[inline]
                fn after($after_error: $Error, $after_processed: usize) -> $Error {
                    $after
                }
            )?
        });
        write_methods!(
            @methods $writer, {$($gen)*} $Type {$($args)*}, ($One, $Batch), $try,
            $setup, $lookup, $note, $batch_note, {$($extend_note)?}
        );
    };
    // The hasher: the type's `hasher` field unless the invocation says where it is.
    (@hasher $this:ident) => {
        &$this.hasher
    };
    (@hasher $this:ident, |$hasher_this:ident| $hasher:expr) => {{
        let $hasher_this = $this;
        $hasher
    }};
    (@impl exclusive, {$($gen:tt)*} $Type:ident {$($args:tt)*}, {$($items:tt)*}) => {
        /// The one primitive every write of this type is written from (see `filter::write`).
        impl<$($gen)*> $crate::filter::write::Insert for $Type<$($args)*> {
            $($items)*
        }
    };
    (@impl shared, {$($gen:tt)*} $Type:ident {$($args:tt)*}, {$($items:tt)*}) => {
        /// The one primitive every write of this type is written from (see `filter::write`),
        /// on a shared reference: writers share the filter.
        impl<'writer, $($gen)*> $crate::filter::write::Insert for &'writer $Type<$($args)*> {
            $($items)*
        }
    };
    (@methods exclusive, $($rest:tt)*) => {
        write_methods!(@write &mut Self, |filter| filter, $($rest)*);
    };
    (@methods shared, $($rest:tt)*) => {
        write_methods!(@write &Self, |filter| &mut &*filter, $($rest)*);
    };
    (
        @write $Receiver:ty, |$filter:ident| $writer:expr,
        {$($gen:tt)*} $Type:ident {$($args:tt)*}, ($One:ty, $Batch:ty), $try:expr,
        $setup:expr, $lookup:expr, $note:expr, $batch_note:expr, {$($extend_note:expr)?}
    ) => {
        impl<$($gen)*> $Type<$($args)*>
        where
            S: core::hash::BuildHasher,
        {
            /// Adds `key`; returns `true` when it was newly inserted, as `HashSet::insert`
            /// does, and `false` when it was probably present already (a false positive
            /// answers `false` too).
            ///
            #[doc = $note]
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("assert!(filter.insert(\"plum\")", $try, ");")]
            #[doc = concat!("assert!(!filter.insert(\"plum\")", $try, ");")]
            #[doc = concat!("assert!(", $lookup, ".contains(\"plum\"));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert<K: core::hash::Hash + ?Sized>(self: $Receiver, key: &K) -> $One {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert($writer, key))
            }

            /// Adds every key of `keys`: the result of
            #[doc = concat!("[`insert`](", stringify!($Type), "::insert)")]
            /// on each, in order.
            ///
            #[doc = $batch_note]
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("filter.insert_batch(&[\"apple\", \"pear\", \"plum\"])", $try, ";")]
            #[doc = concat!("filter.insert_batch(&[1u64, 2, 3])", $try, ";")]
            #[doc = concat!("assert!(", $lookup, ".contains(\"pear\") && ", $lookup, ".contains(&2u64));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert_batch<K: core::hash::Hash>(self: $Receiver, keys: &[K]) -> $Batch {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert_batch(
                    $writer, keys,
                ))
            }
        }

        /// Pre-hashed keys, for callers that hash keys themselves (storage engines): a hash
        /// must be well mixed in all 64 bits (see [`hash`](crate::hash)).
        impl<$($gen)*> $Type<$($args)*> {
            /// Adds a pre-hashed key; returns
            #[doc = concat!("as [`insert`](", stringify!($Type), "::insert).")]
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("assert!(filter.insert_hash(0x0123_4567_89ab_cdef)", $try, ");")]
            #[doc = concat!("assert!(!filter.insert_hash(0x0123_4567_89ab_cdef)", $try, ");")]
            #[doc = concat!("assert!(", $lookup, ".contains_hash(0x0123_4567_89ab_cdef));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert_hash(self: $Receiver, hash: u64) -> $One {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert_hash(
                    $writer, hash,
                ))
            }

            /// Adds every hash of `hashes`: the result of
            #[doc = concat!("[`insert_hash`](", stringify!($Type), "::insert_hash)")]
            /// on each, in order.
            ///
            #[doc = $batch_note]
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("filter.insert_hash_batch(&[1 << 40, 2 << 40, 3 << 40])", $try, ";")]
            #[doc = concat!("assert!(", $lookup, ".contains_hash(2 << 40));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert_hash_batch(self: $Receiver, hashes: &[u64]) -> $Batch {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert_hash_batch(
                    $writer, hashes,
                ))
            }
        }

        /// The byte-key contract: keys given as exactly their bytes, hashed with
        /// [`FilterHasher::hash_bytes`](crate::FilterHasher::hash_bytes), whose framing the
        /// [`hash`](crate::hash) module documents so another program can reproduce it. Use
        /// these for persisted string and byte keys.
        impl<$($gen)*> $Type<$($args)*>
        where
            S: $crate::hash::FilterHasher,
        {
            /// Adds the key made of exactly `key`'s bytes; returns
            #[doc = concat!("as [`insert`](", stringify!($Type), "::insert).")]
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("assert!(filter.insert_bytes(b\"key\")", $try, ");")]
            #[doc = concat!("assert!(", $lookup, ".contains_bytes(b\"key\") && ", $lookup, ".contains(\"key\"));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[inline]
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert_bytes(self: $Receiver, key: &[u8]) -> $One {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert_bytes(
                    $writer, key,
                ))
            }

            /// Adds every key of `keys` (each exactly its bytes): the result of
            #[doc = concat!("[`insert_bytes`](", stringify!($Type), "::insert_bytes)")]
            /// on each, in order, through the pre-hashed batch path.
            ///
            /// ```
            #[doc = $setup]
            #[doc = concat!("filter.insert_bytes_batch(&[\"apple\", \"pear\"])", $try, ";")]
            #[doc = concat!("assert!(", $lookup, ".contains_bytes(b\"pear\"));")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            #[allow(
                clippy::needless_arbitrary_self_type,
                reason = "the macro writes the receiver of shared and exclusive writers alike"
            )]
            pub fn insert_bytes_batch<K: AsRef<[u8]>>(self: $Receiver, keys: &[K]) -> $Batch {
                let $filter = self;
                $crate::filter::write::Finish::finish($crate::filter::write::insert_bytes_batch(
                    $writer, keys,
                ))
            }
        }

        write_methods!(
            @extend |$filter| $writer, {$($gen)*} $Type {$($args)*}, $setup, $lookup,
            {$($extend_note)?}
        );
    };
    // The `Extend` impl, unless the type has none.
    (
        @extend |$filter:ident| $writer:expr, {$($gen:tt)*} $Type:ident {$($args:tt)*},
        $setup:expr, $lookup:expr, {}
    ) => {};
    (
        @extend |$filter:ident| $writer:expr, {$($gen:tt)*} $Type:ident {$($args:tt)*},
        $setup:expr, $lookup:expr, {$extend_note:expr}
    ) => {
        /// Adds every key of an iterator, as
        #[doc = concat!("[`insert`](", stringify!($Type), "::insert)")]
        /// on each, a chunk of hashes at a time through the batch path.
        ///
        #[doc = $extend_note]
        ///
        /// ```
        #[doc = $setup]
        /// filter.extend(0..100u64);
        /// filter.extend(["apple", "pear"]);
        #[doc = concat!("assert!(", $lookup, ".contains(&99u64) && ", $lookup, ".contains(\"pear\"));")]
        /// # Ok::<(), splitbloom::Error>(())
        /// ```
        impl<$($gen)*, K: core::hash::Hash> Extend<K> for $Type<$($args)*>
        where
            S: core::hash::BuildHasher,
        {
            fn extend<I: IntoIterator<Item = K>>(&mut self, keys: I) {
                let $filter = self;
                if let Err(error) = $crate::filter::write::extend($writer, keys) {
                    panic!(concat!(stringify!($Type), "::extend: {}"), error);
                }
            }
        }
    };
}
