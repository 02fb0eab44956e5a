//! `shared_methods!`: the accessors and constructors every filter type shares.

/// Writes the methods the filter types share beyond the reads (which `read_methods!` in
/// `view.rs` writes) and the writes (`write.rs`): the kernel and hasher accessors and the size,
/// and, for the types that own their memory, the sized constructors, each from the type's
/// `with_num_blocks_and_hasher`. Each part is invoked on its own, where it belongs in the
/// type's documentation (constructors first).
///
/// * `@layout {generics} Type {arguments}, make`: `layout`, `probes`, `as_words` and the
///   statistics of the bits (`fill_ratio`, `estimated_fpr`, `estimated_items`), for
///   [`BloomFilter`](crate::BloomFilter) and its view; `make` binds `filter`, a wide filter of
///   two probes holding 10,000 keys;
/// * `@constructors Type`: `with_fpr`, `with_bits_per_key`, `with_num_blocks` and the
///   `_and_hasher` forms of the first two;
/// * `@accessors Type, make, block_bytes` (or `{generics} Type {arguments}` for a generic
///   type, whose hasher parameter is named `S`): `with_kernel`, `kernel`, `hasher`,
///   `num_blocks`, `size_in_bytes`; `make` is doc-example lines that bind an empty `filter` of
///   8 blocks and `block_bytes` the bytes one block takes in it, for the examples.
macro_rules! shared_methods {
    (@accessors $Type:ident, $make:literal, $block_bytes:literal) => {
        shared_methods!(@accessors {S} $Type {S}, $make, $block_bytes);
    };
    (@accessors {$($gen:tt)*} $Type:ident {$($args:tt)*}, $make:literal, $block_bytes:literal) => {
        impl<$($gen)*> $Type<$($args)*> {
            /// The same filter running on `kernel`; errors when this CPU cannot run it. Results
            /// never depend on the kernel, only speed does.
            ///
            /// ```
            /// use splitbloom::Kernel;
            #[doc = $make]
            /// let filter = filter.with_kernel(Kernel::Scalar)?;
            /// assert_eq!(filter.kernel(), Kernel::Scalar);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_kernel(mut self, kernel: $crate::Kernel) -> Result<Self, $crate::Error> {
                self.kernel = $crate::arch::Dispatch::new(kernel)
                    .ok_or($crate::Error::KernelUnavailable(kernel))?;
                Ok(self)
            }

            /// The kernel this filter runs on ([`Kernel::best`](crate::Kernel::best) unless
            /// chosen with `with_kernel`).
            ///
            /// ```
            #[doc = $make]
            /// assert!(filter.kernel().is_available());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn kernel(&self) -> $crate::Kernel {
                self.kernel.kernel()
            }

            /// The hasher keys go through.
            ///
            /// ```
            #[doc = $make]
            /// assert_eq!(*filter.hasher(), splitbloom::Xxh3::default());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn hasher(&self) -> &S {
                &self.hasher
            }

            /// The number of blocks.
            ///
            /// ```
            #[doc = $make]
            /// assert_eq!(filter.num_blocks(), 8);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn num_blocks(&self) -> usize {
                self.blocks.len()
            }

            #[doc = concat!("The size of the blocks in bytes (", stringify!($block_bytes), " per block).")]
            ///
            /// ```
            #[doc = $make]
            #[doc = concat!("assert_eq!(filter.size_in_bytes(), 8 * ", stringify!($block_bytes), ");")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn size_in_bytes(&self) -> usize {
                core::mem::size_of_val(&self.blocks[..])
            }
        }
    };
    (@layout {$($gen:tt)*} $Type:ident {$($args:tt)*}, $make:literal) => {
        /// The layout and what the bits say, read through the filter's view (`view.rs`).
        impl<$($gen)*> $Type<$($args)*> {
            /// The layout, with what it decided when the filter was sized (a wide filter's
            /// probes per key).
            ///
            /// ```
            /// use splitbloom::Layout;
            #[doc = $make]
            /// assert_eq!((filter.layout().probes(), filter.layout().id()), (2, 2));
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn layout(&self) -> L {
                self.layout
            }

            /// The blocks each key sets its bits in: 1 (one cache line per lookup), or 2 for a
            /// [`WideFilter`](crate::WideFilter) sized below 0.1%.
            ///
            /// ```
            #[doc = $make]
            /// assert_eq!(filter.probes(), 2);
            /// assert_eq!(splitbloom::WideFilter::with_fpr(1000, 1e-2)?.probes(), 1);
            /// assert_eq!(splitbloom::Filter::with_num_blocks(1)?.probes(), 1);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn probes(&self) -> u8 {
                $crate::filter::Layout::probes(self.layout)
            }

            /// The bitset as words in native byte order, block after block: `u32` lanes for a
            /// [`Filter`](crate::Filter), `u64` words for a [`WideFilter`](crate::WideFilter)
            /// (word `j` of block `b` at `8b + j`; bit `i` of a word is `1 << i`).
            ///
            /// ```
            /// let mut one = splitbloom::Filter::with_num_blocks(2)?;
            /// one.insert_hash(0);
            /// assert_eq!(one.as_words().len(), 16);
            /// assert_eq!(one.as_words().iter().map(|w| w.count_ones()).sum::<u32>(), 8);
            #[doc = $make]
            /// assert_eq!(filter.as_words().len(), 8 * filter.num_blocks());
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn as_words(&self) -> &[L::Word] {
                bytemuck::cast_slice(&self.blocks)
            }

            /// The fraction of bits that are set, from 0 to 1.
            ///
            /// ```
            /// let mut one = splitbloom::Filter::with_num_blocks(1)?;
            /// one.insert_hash(0);
            /// assert_eq!(one.fill_ratio(), 8.0 / 256.0);
            #[doc = $make]
            /// assert!(filter.fill_ratio() > 0.1 && filter.fill_ratio() < 0.5);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn fill_ratio(&self) -> f64 {
                self.view().fill_ratio()
            }

            /// The false-positive rate of the filter as it is now: the chance that a random
            /// hash finds every bit of its blocks set, from the fill of each block's words,
            /// averaged over blocks. Exact for uniformly distributed hashes, whatever was
            /// inserted.
            ///
            /// ```
            #[doc = $make]
            /// assert!(filter.estimated_fpr() > 1e-6 && filter.estimated_fpr() < 1e-4);
            /// assert_eq!(splitbloom::Filter::with_num_blocks(8)?.estimated_fpr(), 0.0);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn estimated_fpr(&self) -> f64 {
                self.view().estimated_fpr()
            }

            /// An estimate of how many distinct keys were inserted, from the fill ratio (see
            /// [`math::keys_per_block_for_fill`](crate::math::keys_per_block_for_fill) and
            /// [`math::wide::items_for_fill`](crate::math::wide::items_for_fill)). Accurate to
            /// a few percent until the filter is far past its planned size.
            ///
            /// ```
            #[doc = $make]
            /// assert!((filter.estimated_items() - 10_000.0).abs() < 500.0);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn estimated_items(&self) -> f64 {
                self.view().estimated_items()
            }
        }
    };
    (@constructors $Type:ident) => {
        impl $Type {
            /// An empty filter for `items` keys with a false-positive rate of at most `fpr`,
            /// sized with the split-block formula
            /// ([`math::num_blocks_for_fpr`](crate::math::num_blocks_for_fpr)).
            ///
            /// Errors when `items` is 0, `fpr` is not strictly between 0 and 1, or the filter
            /// would be too large to allocate.
            ///
            /// This and the other constructors without a hasher argument build the default
            /// hasher. For another one, pass it:
            #[doc = concat!("`", stringify!($Type), "::with_fpr_and_hasher(items, fpr, ParquetHash::default())`.")]
            /// They are not generic over the hasher because Rust does not fall back to a type
            /// parameter's default when it infers a call: a generic `with_fpr` would make every
            #[doc = concat!("`", stringify!($Type), "::with_fpr(..)` need a type annotation, as `HashMap::new` would.")]
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_fpr(1_000_000, 0.01)?;")]
            /// assert_eq!(filter.num_blocks(), 41_130); // 10.53 bits per key
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_fpr(1000, 1.0).is_err());")]
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_fpr(0, 0.01).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_fpr(items: usize, fpr: f64) -> Result<Self, $crate::Error> {
                Self::with_fpr_and_hasher(items, fpr, $crate::Xxh3::default())
            }

            /// An empty filter for `items` keys with `bits_per_key` bits each (rounded up to
            /// whole blocks of 256 bits).
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_bits_per_key(1000, 10.0)?;")]
            /// assert_eq!(filter.num_blocks(), 40);
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_bits_per_key(1000, f64::NAN).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_bits_per_key(items: usize, bits_per_key: f64) -> Result<Self, $crate::Error> {
                Self::with_bits_per_key_and_hasher(
                    items,
                    bits_per_key,
                    $crate::Xxh3::default(),
                )
            }

            /// An empty filter of exactly `num_blocks` blocks.
            ///
            /// ```
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_num_blocks(100)?;")]
            /// assert_eq!(filter.num_blocks(), 100);
            #[doc = concat!("assert!(splitbloom::", stringify!($Type), "::with_num_blocks(0).is_err());")]
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_num_blocks(num_blocks: usize) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(num_blocks, $crate::Xxh3::default())
            }
        }

        impl<S> $Type<S> {
            #[doc = concat!("[`", stringify!($Type), "::with_fpr`] with a given hasher.")]
            ///
            /// ```
            /// use splitbloom::{FilterHasher, Xxh3};
            /// // The default hasher with a seed of one's own.
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_fpr_and_hasher(1000, 0.01, Xxh3::with_seed(9))?;")]
            /// assert_eq!(filter.hasher().seed(), 9);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_fpr_and_hasher(
                items: usize,
                fpr: f64,
                hasher: S,
            ) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(
                    $crate::math::num_blocks_for_fpr(items, fpr)?,
                    hasher,
                )
            }

            #[doc = concat!("[`", stringify!($Type), "::with_bits_per_key`] with a given hasher.")]
            ///
            /// ```
            /// use splitbloom::parquet::ParquetHash;
            #[doc = concat!("let filter = splitbloom::", stringify!($Type), "::with_bits_per_key_and_hasher(1000, 16.0, ParquetHash::default())?;")]
            /// assert_eq!(filter.num_blocks(), 63);
            /// # Ok::<(), splitbloom::Error>(())
            /// ```
            pub fn with_bits_per_key_and_hasher(
                items: usize,
                bits_per_key: f64,
                hasher: S,
            ) -> Result<Self, $crate::Error> {
                Self::with_num_blocks_and_hasher(
                    $crate::math::num_blocks_for_bits(items, bits_per_key)?,
                    hasher,
                )
            }
        }
    };
}
