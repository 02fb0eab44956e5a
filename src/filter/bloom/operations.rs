//! The inserts and lookups of [`BloomFilter`], in the order its documentation lists them:
//! keys of any `Hash` type, pre-hashed keys, keys as exactly their bytes. The writes go through
//! `filter::write` over the `Insert` impl that `write_methods!` writes, the reads through `filter::view` over the
//! filter's `View`, so every layout shares them.

use crate::arch::PreHashed;
use crate::filter::{BloomFilter, Layout};

write_methods! {
    type: {S, L: Layout} BloomFilter {S, L},
    writer: exclusive,
    error: Infallible,
    // The kernels answer whether every bit was already set.
    insert_one: |filter, hash| Ok(!filter.kernel.insert_hash(filter.layout, filter.words_mut(), hash)),
    insert_all: |filter, hashes| {
        let (kernel, layout, distance) = (filter.kernel, filter.layout, filter.prefetch_distance());
        kernel.insert_keys(layout, filter.words_mut(), &PreHashed, hashes, distance);
        Ok(())
    },
    // Hashing and inserting run inside the kernel, as for `insert_all`.
    insert_keys: |filter, keys| {
        let (kernel, layout, distance) = (filter.kernel, filter.layout, filter.prefetch_distance());
        let blocks = bytemuck::cast_slice_mut(&mut filter.blocks);
        kernel.insert_keys(layout, blocks, &filter.hasher, keys, distance);
        Ok(())
    },
    setup: "let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;",
    lookup: "filter",
    note: "The key's bits are one block (one cache line), or two neighbouring ones for a wide \
           filter below 0.1%: `insert` answers `false` when they were all set already, so a \
           dedup loop is written the `HashSet` way:

```
let mut seen = splitbloom::Filter::with_fpr(1000, 0.01)?;
let mut unique = Vec::new();
for word in [\"a\", \"b\", \"a\", \"c\", \"b\"] {
    if seen.insert(word) {
        unique.push(word);
    }
}
assert_eq!(unique, [\"a\", \"b\", \"c\"]);
# Ok::<(), splitbloom::Error>(())
```",
    batch_note: "One call into the kernel for the whole batch; on filters of at least half the \
                 L2 cache each key is hashed and its lines prefetched well before it is \
                 inserted, so the cache misses of a batch overlap.",
    extend_note: "A filter never refuses a key, it only fills up, so this cannot fail.",
}

/// The text of the read methods' doc examples: a `filter` holding `"apple"` and `"pear"`.
macro_rules! filter_setup {
    () => {
        "let mut filter = splitbloom::Filter::with_fpr(100, 0.01)?;
for key in [\"apple\", \"pear\"] {
    filter.insert(key);
    filter.insert_bytes(key.as_bytes());
}"
    };
}

/// How a [`BloomFilter`] answers, in each read method's docs.
macro_rules! filter_note {
    () => {
        "A key's bits are in one block (one cache line), or two neighbouring ones for a wide \
         filter below 0.1%. Batches run inside the kernel, which on filters of at least half \
         the L2 cache hashes each key and prefetches its lines well before probing it."
    };
}

read_methods!(@reader {S, L: Layout} BloomFilter {S, L}, |filter| filter.view());
read_methods!(@keys {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());

read_methods!(@hashes {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());

read_methods!(@bytes yes, {S, L: Layout} BloomFilter {S, L}, filter_setup!(), filter_note!());
