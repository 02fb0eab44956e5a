//! The filter family: [`Filter`] (the owned, mutable split-block Bloom filter) and the types
//! built on the same blocks, block choice, lane bits and hashing.
//!
//! | file | holds |
//! |---|---|
//! | `layout.rs` | [`Layout`]: the policy parameter of [`BloomFilter`] and [`BloomFilterRef`], implemented by the split-block and the wide layout |
//! | `bloom.rs` | [`BloomFilter`], with its two names [`Filter`] and [`WideFilter`] |
//! | `view.rs` | every read, written once over a `Probe` each type provides |
//! | `write.rs` | every write, written once over an `Insert` each type provides |
//! | `shared.rs` | the constructors and accessors every type shares |
//! | `persist.rs` | a filter's bytes: `to_bytes`, `write_to`, `from_bytes` |
//! | `filter_ref.rs` | [`BloomFilterRef`] ([`FilterRef`], [`WideFilterRef`]): a zero-copy view of serialized bytes |
//! | `atomic.rs` | [`AtomicFilter`]: inserts through `&self` from many threads |
//! | `counting.rs` | [`CountingFilter`]: 4-bit counters, so keys can be removed |
//! | `scalable/` | [`ScalableFilter`]: a chain of filters that grows, and its `SBLS` bytes |
//! | `window.rs` | [`WindowFilter`]: generations side by side, a sliding window that forgets old keys |
//! | `atomic_window.rs` | [`AtomicWindowFilter`]: lock-free readers, one [`WindowWriter`] inserting and rotating |
//! | `fold.rs` | [`BloomFilter::union`], [`BloomFilter::intersect`], [`Filter::fold`] |
//! | `quotient/` | [`QuotientFilter`]: tags in 64-byte blocks, so keys can be removed at the memory of a Bloom filter; [`QuotientFilterRef`], a zero-copy view of its bytes; the reads both answer through |
//! | `serde.rs` | `Serialize` and `Deserialize` as the bytes of `to_bytes` |
//!
//! The modules that add methods to [`Filter`] are declared after `owned.rs`, because rustdoc
//! lists a type's methods in that order: constructors, inserts and lookups first, conversions
//! and set operations last.

// First: they define `shared_methods!`, `read_methods!` and `write_methods!`, which the other
// files use.
#[macro_use]
mod shared;
#[macro_use]
mod read_methods;
#[macro_use]
mod write_methods;
pub(crate) mod view;
pub(crate) mod write;

// rustdoc lists the methods of a type module by module, in declaration order: the filter's own
// first, then its bytes, then the conversions and set operations of the other files.
pub(crate) mod layout;
pub use layout::Layout;
mod bloom;
pub use bloom::{BloomFilter, Filter, WideFilter};

// The other types of the family, and the methods of `Filter` that convert to them or combine
// filters, after `Filter`'s own methods (see the module docs).
mod filter_ref;
pub use filter_ref::{BloomFilterRef, FilterRef, WideFilterRef};
#[cfg(target_has_atomic = "32")]
mod atomic;
#[cfg(target_has_atomic = "32")]
pub use atomic::AtomicFilter;
mod counting;
pub use counting::CountingFilter;
mod scalable;
pub use scalable::ScalableFilter;
mod window;
pub use window::WindowFilter;
mod quotient;
pub use quotient::{QuotientFilter, QuotientFilterRef};
#[cfg(target_has_atomic = "64")]
mod atomic_window;
#[cfg(target_has_atomic = "64")]
pub use atomic_window::{AtomicWindowFilter, WindowWriter};
#[cfg(feature = "serde")]
mod serde;
