//! What each Bloom layout asks of every kernel, written down once: one trait per layout
//! ([`SplitBlockKernel`], [`WideKernel`], [`WindowKernel`]) that every kernel's folder
//! implements, and
//! [`BloomOps`], each layout's whole-key test and insert written once over its trait, which the
//! operations of `batch.rs` call; and the single-key operations ([`ContainsHash`],
//! [`InsertHash`]), here because the kernels' single-key hooks default to them.
//!
//! A layout's primitives work on one block and an in-block hash; where a key's blocks are comes
//! from the layout's [`Policy`]. The primitives must match the layout's scalar reference
//! (`crate::layout`) bit for bit, on every output: the answer and the bytes a write leaves.

use super::{Operation, OperationOn, Token};
use crate::layout::Policy;
use crate::layout::split_block::{BlockAndKey, LANES, SplitBlock};
use crate::layout::wide::{WORDS, Wide, WideLocation};
use crate::layout::window::{Fixed, Generations, Plane};

/// The split-block layout's primitives ([`crate::layout::split_block`]).
pub(crate) trait SplitBlockKernel: Token {
    /// The eight-lane mask of `x`: one bit per lane.
    fn mask(self, x: u32) -> [u32; LANES];
    /// ORs the mask of `x` into `block`; `true` when every bit was already set.
    fn insert(self, block: &mut [u32; LANES], x: u32) -> bool;
    /// Whether every bit of the mask of `x` is set in `block` (branch-free).
    fn contains(self, block: &[u32; LANES], x: u32) -> bool;

    /// The single-key lookup a filter makes from outside the kernel's features: a call into
    /// the kernel's entry point, unless the kernel has something cheaper (AVX2 and AVX-512:
    /// inline assembly, which inlines into the caller).
    // Called by `Dispatch` for the x86 kernels alone, which override it.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    fn contains_hash(self, blocks: &[[u32; LANES]], hash: u64) -> bool {
        self.run(ContainsHash {
            layout: SplitBlock,
            blocks,
            hash,
        })
    }

    /// The single-key insert a filter makes from outside the kernel's features (see
    /// [`contains_hash`](SplitBlockKernel::contains_hash)); `true` when every bit was set.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn insert_hash(self, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        self.run(InsertHash {
            layout: SplitBlock,
            blocks,
            hash,
        })
    }
}

/// The wide layout's primitives ([`crate::layout::wide`]).
pub(crate) trait WideKernel: Token {
    /// ORs the mask of `x` into `block`; `true` when every bit was already set.
    fn insert(self, block: &mut [u64; WORDS], x: u32) -> bool;
    /// Whether some bit of the mask of `x` is clear in `block` (branch-free).
    fn missing(self, block: &[u64; WORDS], x: u32) -> bool;

    /// The single-key lookup a filter makes from outside the kernel's features (see
    /// [`SplitBlockKernel::contains_hash`]).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn contains_hash(self, layout: Wide, blocks: &[[u64; WORDS]], hash: u64) -> bool {
        self.run(ContainsHash {
            layout,
            blocks,
            hash,
        })
    }
}

/// The window layout's primitives ([`crate::layout::window`]): a block index's `G` planes
/// (`group`, `G × plane.words()` words) tested together, and one of them written.
pub(crate) trait WindowKernel: Token {
    /// Whether any plane of `group` holds every bit of `x`'s mask (branch-free over the
    /// planes).
    fn contains_any(self, group: &[u32], plane: Plane, x: u32) -> bool;
    /// ORs `x`'s mask into `words`, one plane of size `plane`.
    fn insert_plane(self, words: &mut [u32], plane: Plane, x: u32);

    /// ORs `x`'s mask into the plane of slot `slot`; `true` when some plane already held every
    /// bit (before the insert).
    #[inline(always)]
    fn insert(self, group: &mut [u32], plane: Plane, slot: usize, x: u32) -> bool {
        let present = self.contains_any(group, plane, x);
        let words = plane.words();
        self.insert_plane(&mut group[slot * words..(slot + 1) * words], plane, x);
        present
    }

    /// [`contains_any`](WindowKernel::contains_any) for a group of a shape known at compile
    /// time (`group` is `G` planes of `PLANE_WORDS` words): by default the general test,
    /// which the constants fold.
    #[inline(always)]
    fn contains_fixed<const PLANE_WORDS: usize, const G: usize>(
        self,
        group: &[u32],
        x: u32,
    ) -> bool {
        self.contains_any(group, Fixed::<PLANE_WORDS, G>::PLANE, x)
    }

    /// The single-key lookup of window `layout` from outside the kernel's features, where the
    /// kernel has something cheaper than a call into its entry point for the window's shape
    /// (AVX2 and AVX-512: inline assembly for groups of whole lines); `None` where it has not.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn contains_hash_inline(self, layout: Generations, words: &[u32], hash: u64) -> Option<bool> {
        let _ = (layout, words, hash);
        None
    }
}

/// A Bloom layout's whole-key operations on kernel `K`, written once per layout over its
/// primitives trait: what the operations of `batch.rs` call.
pub(crate) trait BloomOps<K: Token>: Policy {
    /// Whether every bit of the key at `at` is set (branch-free).
    ///
    /// # Safety
    ///
    /// `self.accepts(blocks.len())`, and `at` is `self.locate(_, blocks.len())`: the blocks it
    /// refers to are then below `blocks.len()` (the promise every layout keeps, see
    /// [`Policy`]), and are read unchecked.
    unsafe fn contains(self, kernel: K, blocks: &[Self::Block], at: Self::Location) -> bool;

    /// Sets every bit of the key at `at`; `true` when every one was already set.
    ///
    /// # Safety
    ///
    /// As for [`contains`](BloomOps::contains).
    unsafe fn insert(self, kernel: K, blocks: &mut [Self::Block], at: Self::Location) -> bool;

    /// The single-key lookup from outside the kernel's features: the kernel's hook.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn contains_hash(self, kernel: K, blocks: &[Self::Block], hash: u64) -> bool;

    /// The single-key insert from outside the kernel's features: the kernel's hook.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn insert_hash(self, kernel: K, blocks: &mut [Self::Block], hash: u64) -> bool;
}

impl<K: SplitBlockKernel> BloomOps<K> for SplitBlock {
    #[inline(always)]
    unsafe fn contains(self, kernel: K, blocks: &[[u32; LANES]], at: BlockAndKey) -> bool {
        // SAFETY: `at.block < blocks.len()`: the caller's contract, and `SplitBlock`'s promise.
        let block = unsafe { blocks.get_unchecked(at.block as usize) };
        SplitBlockKernel::contains(kernel, block, at.x)
    }

    #[inline(always)]
    unsafe fn insert(self, kernel: K, blocks: &mut [[u32; LANES]], at: BlockAndKey) -> bool {
        // SAFETY: as for `contains`.
        let block = unsafe { blocks.get_unchecked_mut(at.block as usize) };
        SplitBlockKernel::insert(kernel, block, at.x)
    }

    #[inline(always)]
    fn contains_hash(self, kernel: K, blocks: &[[u32; LANES]], hash: u64) -> bool {
        SplitBlockKernel::contains_hash(kernel, blocks, hash)
    }

    #[inline(always)]
    fn insert_hash(self, kernel: K, blocks: &mut [[u32; LANES]], hash: u64) -> bool {
        SplitBlockKernel::insert_hash(kernel, blocks, hash)
    }
}

impl<K: WideKernel> BloomOps<K> for Wide {
    /// Both probes tested, then one branch-free answer.
    #[inline(always)]
    unsafe fn contains(self, kernel: K, blocks: &[[u64; WORDS]], at: WideLocation) -> bool {
        // SAFETY: the first block, and with two probes the second, are below `blocks.len()`:
        // the caller's contract, and `Wide`'s promise.
        let first = unsafe { blocks.get_unchecked(at.first as usize) };
        let mut missing = kernel.missing(first, at.x0);
        if self.probes() == 2 {
            // SAFETY: as above.
            let second = unsafe { blocks.get_unchecked(at.second()) };
            missing |= kernel.missing(second, at.x1);
        }
        !missing
    }

    #[inline(always)]
    unsafe fn insert(self, kernel: K, blocks: &mut [[u64; WORDS]], at: WideLocation) -> bool {
        // SAFETY: as for `contains`.
        let first = unsafe { blocks.get_unchecked_mut(at.first as usize) };
        let mut present = WideKernel::insert(kernel, first, at.x0);
        if self.probes() == 2 {
            // SAFETY: as for `contains`.
            let second = unsafe { blocks.get_unchecked_mut(at.second()) };
            present &= WideKernel::insert(kernel, second, at.x1);
        }
        present
    }

    #[inline(always)]
    fn contains_hash(self, kernel: K, blocks: &[[u64; WORDS]], hash: u64) -> bool {
        WideKernel::contains_hash(kernel, self, blocks, hash)
    }

    #[inline(always)]
    fn insert_hash(self, kernel: K, blocks: &mut [[u64; WORDS]], hash: u64) -> bool {
        kernel.run(InsertHash {
            layout: self,
            blocks,
            hash,
        })
    }
}

impl<K: WindowKernel> BloomOps<K> for Generations {
    #[inline(always)]
    unsafe fn contains(self, kernel: K, blocks: &[u32], at: BlockAndKey) -> bool {
        // SAFETY: every word of the key's block index's group is below `blocks.len()`: the
        // caller's contract, and `Generations`' promise.
        let group = unsafe { blocks.get_unchecked(self.group(at.block as usize)) };
        WindowKernel::contains_any(kernel, group, self.plane, at.x)
    }

    /// `true` when some generation already held every bit (before the insert, which writes
    /// the newest generation's plane).
    #[inline(always)]
    unsafe fn insert(self, kernel: K, blocks: &mut [u32], at: BlockAndKey) -> bool {
        // SAFETY: as for `contains`.
        let group = unsafe { blocks.get_unchecked_mut(self.group(at.block as usize)) };
        WindowKernel::insert(kernel, group, self.plane, self.newest, at.x)
    }

    #[inline(always)]
    fn contains_hash(self, kernel: K, blocks: &[u32], hash: u64) -> bool {
        kernel.run(ContainsHash {
            layout: self,
            blocks,
            hash,
        })
    }

    #[inline(always)]
    fn insert_hash(self, kernel: K, blocks: &mut [u32], hash: u64) -> bool {
        kernel.run(InsertHash {
            layout: self,
            blocks,
            hash,
        })
    }
}

impl<K: WindowKernel, const PLANE_WORDS: usize, const G: usize> BloomOps<K>
    for Fixed<PLANE_WORDS, G>
{
    #[inline(always)]
    unsafe fn contains(self, kernel: K, blocks: &[u32], at: BlockAndKey) -> bool {
        let start = Self::group_start(at.block);
        // SAFETY: every word of the key's block index's group is below `blocks.len()`: the
        // caller's contract, and `Fixed`'s promise (that of `Generations`).
        let group = unsafe { blocks.get_unchecked(start..start + Self::GROUP_WORDS) };
        kernel.contains_fixed::<PLANE_WORDS, G>(group, at.x)
    }

    /// As for [`Generations`], with the shape's constants.
    #[inline(always)]
    unsafe fn insert(self, kernel: K, blocks: &mut [u32], at: BlockAndKey) -> bool {
        let start = Self::group_start(at.block);
        // SAFETY: as for `contains`.
        let group = unsafe { blocks.get_unchecked_mut(start..start + Self::GROUP_WORDS) };
        let present = kernel.contains_fixed::<PLANE_WORDS, G>(group, at.x);
        let newest = self.newest * PLANE_WORDS;
        // SAFETY: `self.newest < G` (`accepts`, which the caller checked), so the newest plane
        // is words of the group.
        let plane = unsafe { group.get_unchecked_mut(newest..newest + PLANE_WORDS) };
        kernel.insert_plane(plane, Self::PLANE, at.x);
        present
    }

    #[inline(always)]
    fn contains_hash(self, kernel: K, blocks: &[u32], hash: u64) -> bool {
        kernel.run(ContainsHash {
            layout: self,
            blocks,
            hash,
        })
    }

    #[inline(always)]
    fn insert_hash(self, kernel: K, blocks: &mut [u32], hash: u64) -> bool {
        kernel.run(InsertHash {
            layout: self,
            blocks,
            hash,
        })
    }
}

/// The single-key lookup: locate, then the layout's test, inside one entry point.
pub(crate) struct ContainsHash<'a, P: Policy> {
    pub(crate) layout: P,
    pub(crate) blocks: &'a [P::Block],
    pub(crate) hash: u64,
}

impl<P: Policy> Operation for ContainsHash<'_, P> {
    type Output = bool;
}

impl<K: Token, P: BloomOps<K>> OperationOn<K> for ContainsHash<'_, P> {
    #[inline(always)]
    fn run_on(self, kernel: K) -> bool {
        let Self {
            layout,
            blocks,
            hash,
        } = self;
        assert!(layout.accepts(blocks.len()), "a filter's shape");
        let at = layout.locate(hash, blocks.len());
        // SAFETY: `at` is the location of `hash` among `blocks`, whose length the layout
        // accepts (checked above).
        unsafe { layout.contains(kernel, blocks, at) }
    }
}

/// The single-key insert: locate, then the layout's insert; `true` when every bit was set.
pub(crate) struct InsertHash<'a, P: Policy> {
    pub(crate) layout: P,
    pub(crate) blocks: &'a mut [P::Block],
    pub(crate) hash: u64,
}

impl<P: Policy> Operation for InsertHash<'_, P> {
    type Output = bool;
}

impl<K: Token, P: BloomOps<K>> OperationOn<K> for InsertHash<'_, P> {
    #[inline(always)]
    fn run_on(self, kernel: K) -> bool {
        let Self {
            layout,
            blocks,
            hash,
        } = self;
        assert!(layout.accepts(blocks.len()), "a filter's shape");
        let at = layout.locate(hash, blocks.len());
        // SAFETY: as for `ContainsHash`.
        unsafe { layout.insert(kernel, blocks, at) }
    }
}
