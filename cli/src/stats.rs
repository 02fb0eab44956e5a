//! What `info` and the summaries of `build` and `merge` report about a filter.

use splitbloom::format;
use splitbloom::{Filter, LayoutKind, WideFilter, math};

use crate::json;

/// Everything `info` and the build summary report about a filter.
pub struct Stats {
    /// The filter's layout.
    pub layout: LayoutKind,
    /// Blocks a key's bits go into: 1, or 2 for a two-probe wide filter.
    pub probes: u8,
    /// Blocks (32 bytes each in the split-block layout, 64 in the wide one).
    pub blocks: usize,
    /// Serialized size: header and bitset.
    pub bytes: usize,
    /// Fraction of bits set.
    pub fill_ratio: f64,
    /// Distinct keys estimated from the fill.
    pub estimated_items: f64,
    /// False-positive rate of the filter as it is.
    pub estimated_fpr: f64,
}

impl Stats {
    /// The statistics of a split-block filter of `blocks` blocks with this fill and rate.
    pub fn new(blocks: usize, fill_ratio: f64, estimated_fpr: f64) -> Stats {
        Stats {
            layout: LayoutKind::SplitBlock,
            probes: 1,
            blocks,
            bytes: format::HEADER_BYTES + blocks * splitbloom::BLOCK_BYTES,
            fill_ratio,
            estimated_items: math::keys_per_block_for_fill(fill_ratio) * blocks as f64,
            estimated_fpr,
        }
    }

    /// The statistics of `filter`.
    pub fn of<S>(filter: &Filter<S>) -> Stats {
        Stats::new(
            filter.num_blocks(),
            filter.fill_ratio(),
            filter.estimated_fpr(),
        )
    }

    /// The statistics of a wide filter of `blocks` blocks and `probes` probes with this fill:
    /// the keys the fill implies (`math::wide::items_for_fill`), and the layout's rate at that
    /// many keys (`math::wide::false_positive_rate`).
    pub fn wide(blocks: usize, probes: u8, fill_ratio: f64) -> Stats {
        let estimated_items = math::wide::items_for_fill(fill_ratio, blocks, probes);
        let items = if estimated_items.is_finite() {
            estimated_items.round() as usize
        } else {
            usize::MAX
        };
        Stats {
            layout: LayoutKind::Wide,
            probes,
            blocks,
            bytes: format::HEADER_BYTES + blocks * math::wide::WIDE_BLOCK_BYTES,
            fill_ratio,
            estimated_items,
            estimated_fpr: math::wide::false_positive_rate(items, blocks, probes),
        }
    }

    /// The statistics of a wide `filter`.
    pub fn of_wide<S>(filter: &WideFilter<S>) -> Stats {
        Stats::wide(filter.num_blocks(), filter.probes(), filter.fill_ratio())
    }

    /// The layout as the summaries name it: `split-block`, or `wide (2 probes)`.
    pub fn describe_layout(&self) -> String {
        match self.layout {
            LayoutKind::Wide => format!(
                "wide ({} {})",
                self.probes,
                if self.probes == 1 { "probe" } else { "probes" }
            ),
            layout => layout.name().to_owned(),
        }
    }

    /// The JSON members the summaries of `build` and `merge` share, without braces: layout,
    /// probes, estimated items, bytes, blocks and estimated rate.
    pub fn json_members(&self) -> String {
        format!(
            "\"layout\":\"{}\",\"probes\":{},\"estimated_items\":{},\"bytes\":{},\"blocks\":{},\"estimated_fpr\":{}",
            self.layout.name(),
            self.probes,
            json::number(self.estimated_items.round()),
            self.bytes,
            self.blocks,
            json::number(self.estimated_fpr),
        )
    }

    /// Bits of bitset per estimated key, once at least one key is estimated.
    pub fn bits_per_key(&self) -> Option<f64> {
        let bits = self.blocks as f64 * self.layout.block_bytes() as f64 * 8.0;
        (self.estimated_items >= 0.5).then(|| bits / self.estimated_items)
    }
}
