//! Crawler URL deduplication when the number of URLs is not known in advance: a
//! `ScalableFilter` grows stage by stage and keeps its false-positive rate below the target.
//! The library version of `splitbloom dedup`.
//!
//! `cargo run --release --example url_dedup` (well under a second)
//!
//! A crawler's frontier sees each URL many times (every page links to the home page). Before
//! fetching, it asks the filter: "probably seen" means skip. A false positive skips a new URL,
//! which a crawler tolerates at a small rate; a false negative never happens, so no page is
//! fetched twice. A plain `Filter` must be sized up front; a `ScalableFilter` starts small and
//! adds tighter stages as URLs arrive. A `HashSet` runs alongside only to check the answers.

use std::collections::HashSet;

use splitbloom::ScalableFilter;

const DISTINCT: u64 = 200_000;
const LINKS: u64 = 600_000;

/// Link `i` of the crawl: URL number `n` of `DISTINCT`, with small numbers (popular pages)
/// much more frequent.
fn link(i: u64) -> String {
    let mixed = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
    let n = if i.is_multiple_of(3) {
        mixed % 1000
    } else {
        mixed % DISTINCT
    };
    format!("https://example.org/section/{}/page-{n}.html", n % 97)
}

fn main() -> Result<(), splitbloom::Error> {
    // Sized for 10,000 URLs; the crawl brings 20 times as many distinct ones.
    let mut seen = ScalableFilter::with_fpr(10_000, 0.001)?;
    let mut truth = HashSet::new();
    let (mut fetched, mut skipped, mut wrongly_skipped) = (0u64, 0u64, 0u64);
    for i in 0..LINKS {
        let url = link(i);
        // Both answer `true` for a key they did not hold yet.
        let new = seen.insert(url.as_str())?;
        let really_new = truth.insert(url);
        // Never a false negative: a URL seen before is always recognized.
        assert!(really_new || !new);
        if new {
            fetched += 1;
        } else {
            skipped += 1;
            wrongly_skipped += u64::from(really_new);
        }
    }
    println!("{LINKS} links, {} distinct URLs", truth.len());
    println!(
        "fetched {fetched}, skipped {skipped}, of which {wrongly_skipped} new URLs wrongly skipped ({:.4}% of the distinct URLs; target below 0.1%)",
        100.0 * wrongly_skipped as f64 / truth.len() as f64
    );
    println!(
        "filter: {} stages, {} keys, {} bytes ({:.1} bits per URL), estimated FPR now {:.4}%",
        seen.stages().len(),
        seen.len(),
        seen.size_in_bytes(),
        8.0 * seen.size_in_bytes() as f64 / seen.len() as f64,
        100.0 * seen.estimated_fpr()
    );
    Ok(())
}
