//! Nothing to link: this package exists for its benchmarks (`filters.rs`, `atomic.rs`), which
//! keep criterion, plotters and the peer filters out of the splitbloom crate's own builds.
