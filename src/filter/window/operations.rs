//! The inserts and lookups of [`WindowFilter`]: the reads through `filter::view`, the writes
//! through `filter::write`, as every filter type's.

use super::WindowFilter;
use crate::arch::PreHashed;

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

read_methods! {
    type: WindowFilter,
    setup: window_setup!(),
    note: window_note!(),
    probe: |filter, hash| filter.kernel.contains_hash(filter.layout(), filter.words(), hash),
    probe_all: |filter, hashes, out| {
        let (kernel, layout) = (filter.kernel, filter.layout());
        let distance = filter.prefetch_distance();
        kernel.contains_keys(layout, filter.words(), &PreHashed, hashes, out, distance);
    },
    probe_keys: |filter, keys, out| {
        let (kernel, layout) = (filter.kernel, filter.layout());
        let distance = filter.prefetch_distance();
        let hasher = &filter.hasher;
        kernel.contains_keys(layout, filter.words(), hasher, keys, out, distance);
    },
    bytes: yes,
}

write_methods! {
    type: {S} WindowFilter {S},
    writer: exclusive,
    error: Infallible,
    // Newly inserted means absent from the whole window, so that a stream deduplicated through
    // `insert` passes a key once per window; its bits are set in the newest generation either
    // way, so it stays for `G − 1` more rotations.
    insert_one: |filter, hash| Ok(!filter.kernel.insert_hash(filter.layout(), filter.words_mut(), hash)),
    // Each hash into the newest generation, its line prefetched a batch's distance ahead.
    insert_all: |filter, hashes| {
        let (kernel, layout, distance) = (filter.kernel, filter.layout(), filter.prefetch_distance());
        kernel.insert_keys(layout, filter.words_mut(), &PreHashed, hashes, distance);
        Ok(())
    },
    // Hashing and inserting run inside the kernel, each key hashed as its line is prefetched.
    insert_keys: |filter, keys| {
        let (kernel, layout, distance) = (filter.kernel, filter.layout(), filter.prefetch_distance());
        let len = layout.total_words().unwrap_or(0);
        let words: &mut [u32] = bytemuck::cast_slice_mut(&mut filter.units);
        kernel.insert_keys(layout, &mut words[..len], &filter.hasher, keys, distance);
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
