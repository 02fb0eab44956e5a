//! The inserts and lookups of [`WindowFilter`]: the reads through `filter::view`, the writes
//! through `filter::write`, as every filter type's.

use core::hash::{BuildHasher, Hash};

use super::WindowFilter;
use crate::arch::PreHashed;
use crate::filter::view::Probe;
use crate::layout::window::with_shape;

/// The text of the read methods' doc examples: a `filter` holding `"apple"` and `"pear"`.
macro_rules! window_setup {
    () => {
        "let mut filter = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
filter.insert(\"apple\");
filter.rotate();
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}"
    };
}

/// How a [`WindowFilter`] answers, in each read method's docs.
macro_rules! window_note {
    () => {
        "Every generation is asked: the key's block index holds their planes side by side (one \
         line for up to four generations), and the answer is `true` when any one holds every \
         bit of the key. Batches prefetch each key's generations 128 keys ahead on windows \
         whose generations reach half the L2 cache."
    };
}

/// The answers every read of [`WindowFilter`] is written from (see `filter::view`): each
/// operation chooses the window's shape once (`with_shape!`), so that its loop, or its
/// single-key probe, is compiled with the shape's constants.
impl<S> Probe for WindowFilter<S> {
    type Hasher = S;

    #[inline(always)]
    fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Always inlined, down to the kernel's probe, as `View`'s is: a caller's loop of single
    /// lookups then keeps the probe inline, where a call per lookup costs as much as the probe.
    #[inline(always)]
    fn probe(&self, hash: u64) -> bool {
        // Every word, the last unit's padding included: the length is then a field, not a
        // product, and the layout addresses only its groups.
        let words = bytemuck::cast_slice(&self.units);
        self.kernel.window_contains_hash(self.layout(), words, hash)
    }

    #[inline]
    fn probe_all(&self, hashes: &[u64], out: &mut [bool]) {
        let (kernel, words, distance) = (self.kernel, self.words(), self.prefetch_distance());
        with_shape!(self.layout(), layout => {
            kernel.contains_keys(layout, words, &PreHashed, hashes, out, distance)
        });
    }

    #[inline]
    fn probe_keys<K: Hash>(&self, keys: &[K], out: &mut [bool])
    where
        S: BuildHasher,
    {
        let (kernel, words, distance) = (self.kernel, self.words(), self.prefetch_distance());
        let hasher = &self.hasher;
        with_shape!(self.layout(), layout => {
            kernel.contains_keys(layout, words, hasher, keys, out, distance)
        });
    }
}

read_methods! {
    type: WindowFilter,
    setup: window_setup!(),
    note: window_note!(),
    reader: |filter| filter,
    bytes: yes,
}

write_methods! {
    type: {S} WindowFilter {S},
    writer: exclusive,
    error: Infallible,
    // Newly inserted means absent from the whole window, so that a stream deduplicated through
    // `insert` passes a key once per window; its bits are set in the newest generation either
    // way, so it stays for `G − 1` more rotations.
    insert_one: |filter, hash| {
        let (kernel, generations) = (filter.kernel, filter.layout());
        let words = filter.words_mut();
        Ok(!with_shape!(generations, layout => kernel.insert_hash(layout, words, hash)))
    },
    // Each hash into the newest generation, its line prefetched a batch's distance ahead.
    insert_all: |filter, hashes| {
        let (kernel, generations, distance) = (filter.kernel, filter.layout(), filter.prefetch_distance());
        let words = filter.words_mut();
        with_shape!(generations, layout => {
            kernel.insert_keys(layout, words, &PreHashed, hashes, distance)
        });
        Ok(())
    },
    // Hashing and inserting run inside the kernel, each key hashed as its line is prefetched.
    insert_keys: |filter, keys| {
        let (kernel, generations, distance) = (filter.kernel, filter.layout(), filter.prefetch_distance());
        let len = generations.total_words().unwrap_or(0);
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut filter.units);
        let (words, hasher) = (&mut words[..len], &filter.hasher);
        with_shape!(generations, layout => {
            kernel.insert_keys(layout, words, hasher, keys, distance)
        });
        Ok(())
    },
    setup: "let mut filter = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;",
    lookup: "filter",
    note: "The key goes into the newest generation; `true` means no generation of the window \
           held it (as [`contains`](WindowFilter::contains) would have answered `false`), so \
           a stream deduplicated with `insert` passes each key once per window. A key found \
           in an older generation is set in the newest too, so it stays `G − 1` more \
           rotations:

```
let mut seen = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
assert!(seen.insert(\"a\"));
seen.rotate();
assert!(!seen.insert(\"a\")); // still in the window: refreshed into the newest generation
seen.rotate();
assert!(!seen.insert(\"a\")); // the refresh kept it
# Ok::<(), splitbloom::Error>(())
```",
    batch_note: "Into the newest generation, with one call into the kernel for the whole batch, \
                 each key's line prefetched a batch's distance ahead.",
    extend_note: "A window never refuses a key, so this cannot fail.",
}
