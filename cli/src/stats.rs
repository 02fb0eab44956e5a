//! What `info` and the summaries of `build` and `merge` report about a filter.

use splitbloom::format;
use splitbloom::{Filter, LayoutKind, TagBits, WideFilter, math};

use crate::json;

/// Everything `info` and the build summary report about a filter.
pub struct Stats {
    /// The filter's layout.
    pub layout: LayoutKind,
    /// Blocks a key's bits go into: 1, or 2 for a two-probe wide filter; 2 for a quotient
    /// filter (the blocks a key's tag may be in).
    pub probes: u8,
    /// The tag width of a quotient filter; `None` for the Bloom layouts.
    pub tag_bits: Option<TagBits>,
    /// Blocks (32 bytes each in the split-block layout, 64 in the wide and quotient ones).
    pub blocks: usize,
    /// Serialized size: header and bitset.
    pub bytes: usize,
    /// Fraction of bits set (of a quotient filter: of slots in use, its load).
    pub fill_ratio: f64,
    /// Distinct keys estimated from the fill (of a quotient filter: the tags it holds, exact).
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
            tag_bits: None,
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
            tag_bits: None,
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

    /// The statistics of a quotient filter of `blocks` blocks of `tag_bits` tags holding
    /// `len` of them (copies counted), with this rate: its fill is its load.
    pub fn quotient(blocks: usize, tag_bits: TagBits, len: usize, estimated_fpr: f64) -> Stats {
        let slots = blocks as f64 * tag_bits.slots_per_block() as f64;
        Stats {
            layout: LayoutKind::Quotient,
            probes: 2,
            tag_bits: Some(tag_bits),
            blocks,
            bytes: format::HEADER_BYTES + blocks * math::quotient::QUOTIENT_BLOCK_BYTES,
            fill_ratio: len as f64 / slots,
            estimated_items: len as f64,
            estimated_fpr,
        }
    }

    /// The layout as the summaries name it: `split-block`, `wide (2 probes)` or
    /// `quotient (8-bit tags)`.
    pub fn describe_layout(&self) -> String {
        if let Some(tag_bits) = self.tag_bits {
            return format!("{} ({}-bit tags)", self.layout.name(), tag_bits.bits());
        }
        match self.layout {
            LayoutKind::Wide => format!(
                "wide ({} {})",
                self.probes,
                if self.probes == 1 { "probe" } else { "probes" }
            ),
            layout => layout.name().to_owned(),
        }
    }

    /// The JSON members the summaries of `build`, `merge` and `remove` share, without braces:
    /// layout, probes (and a quotient filter's tag width), estimated items, bytes, blocks and
    /// estimated rate.
    pub fn json_members(&self) -> String {
        format!(
            "\"layout\":\"{}\",\"probes\":{},{}\"estimated_items\":{},\"bytes\":{},\"blocks\":{},\"estimated_fpr\":{}",
            self.layout.name(),
            self.probes,
            self.tag_bits_member(),
            json::number(self.estimated_items.round()),
            self.bytes,
            self.blocks,
            json::number(self.estimated_fpr),
        )
    }

    /// `"tag_bits":8,` for a quotient filter, nothing for the Bloom layouts.
    pub fn tag_bits_member(&self) -> String {
        self.tag_bits.map_or(String::new(), |bits| {
            format!("\"tag_bits\":{},", bits.bits())
        })
    }

    /// Bits of bitset per estimated key, once at least one key is estimated.
    pub fn bits_per_key(&self) -> Option<f64> {
        let bits = self.blocks as f64 * self.layout.block_bytes() as f64 * 8.0;
        (self.estimated_items >= 0.5).then(|| bits / self.estimated_items)
    }
}
