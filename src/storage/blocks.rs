//! The filter's bitset storage: a zeroed, fixed-size array of blocks, 2 MiB-aligned and marked
//! for transparent huge pages when it is large.
//!
//! A filter larger than the last-level cache costs a DRAM access per key; on 4 KiB pages it
//! also costs a TLB miss (a few thousand L2 TLB entries cover only megabytes). Filters of at least
//! [`HUGE_PAGE_THRESHOLD`] bytes are therefore allocated on a 2 MiB boundary, rounded up to a
//! whole number of 2 MiB pages, and on Linux given `madvise(MADV_HUGEPAGE)` *before* their
//! pages are first touched, so that the kernel can back them with huge pages when it is
//! configured to (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise` or `always`).
//! Whether it did shows in `AnonHugePages` in `/proc/meminfo`. The hint never changes results.
//!
//! The memory comes from the global allocator (so `no_std` + `alloc` builds work, and a custom
//! allocator is honoured), always through `alloc_zeroed`, so that the operating system's
//! lazily zeroed pages serve it: a new 1 GiB filter raises resident memory by nothing until
//! its blocks are written. (Asking the allocator for 2 MiB alignment would defeat that: the
//! standard library's `System` serves over-aligned `alloc_zeroed` with an aligned allocation
//! and a `memset` of every byte, which touches every page at once; under overcommit a filter
//! between free and total memory then gets the process OOM-killed instead of being usable.
//! Large filters therefore ask for one extra huge page at the allocator's natural alignment,
//! which glibc's `calloc` maps fresh from the kernel without touching it, and start at the first
//! 2 MiB boundary inside.) A failed allocation is reported as `None`, never a panic, except in
//! `Clone`, which follows `Vec` and aborts through `handle_alloc_error`.

use alloc::alloc::{Layout, alloc_zeroed, dealloc, handle_alloc_error};
use core::marker::PhantomData;
use core::mem::{ManuallyDrop, align_of, size_of};
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use crate::error::Error;
use crate::layout::split_block::Block;

/// The element types [`Blocks`] can hold: a filter block's bytes, plain or atomic, or a block
/// of counters.
///
/// # Safety
///
/// Implementors must be valid when all-zero and valid for every bit pattern, with an
/// alignment of at most [`HUGE_PAGE_BYTES`], so that zeroed memory is a valid array of them
/// and [`Blocks::cast`] between two of them of equal size and alignment (which it checks at
/// compile time) keeps every value valid and the allocation's layout.
pub(crate) unsafe trait BlockStorage {}

// SAFETY: `Block` is `#[repr(C, align(32))] [u32; 8]`: 32 bytes, every bit pattern valid.
unsafe impl BlockStorage for Block {}

const _: () = assert!(size_of::<Block>() == 32 && align_of::<Block>() == 32);

/// Size (and alignment) of an x86_64 / aarch64 transparent huge page.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Filters of at least this many bytes are allocated for huge pages: above the TLB's 4 KiB
/// reach, and large enough that rounding up to whole 2 MiB pages wastes at most a fifth.
pub(crate) const HUGE_PAGE_THRESHOLD: usize = 8 << 20;

/// The alignment large filters are allocated with: small enough that every allocator serves
/// `alloc_zeroed` with its plain zeroing path (`calloc` for the standard library's `System`,
/// whose threshold is 16 bytes on 64-bit targets), and the blocks' own alignment comes from
/// placing them at a 2 MiB boundary inside the allocation.
const LARGE_ALLOCATION_ALIGN: usize = 8;

/// An owned, zero-initialised `[T]` of fixed length (see the module docs); `T` is [`Block`],
/// `atomic::AtomicBlock` or `counters::CounterBlock`, and [`Blocks::cast`] switches between
/// the first two without copying.
pub(crate) struct Blocks<T: BlockStorage = Block> {
    /// The first block: the allocation's start for small filters, its first 2 MiB boundary for
    /// huge ones; dangling (and never freed) when `layout.size() == 0`.
    start: NonNull<T>,
    /// Number of blocks in use (at most the allocation's capacity).
    len: usize,
    /// The allocation, as returned by the allocator, to free.
    allocation: NonNull<u8>,
    /// The layout `allocation` was allocated with.
    layout: Layout,
    /// `Blocks` owns its `T`s.
    owns: PhantomData<T>,
}

// SAFETY: `Blocks` owns its memory exclusively, like `Vec<T>`.
unsafe impl<T: BlockStorage + Send> Send for Blocks<T> {}
// SAFETY: shared access only hands out `&[T]`, like `Vec<T>`.
unsafe impl<T: BlockStorage + Sync> Sync for Blocks<T> {}

impl<T: BlockStorage> Blocks<T> {
    /// `len` zeroed blocks, or [`Error::AllocationFailed`] with the bytes that were asked
    /// for: the one fallible allocation every filter's constructor makes.
    pub(crate) fn try_zeroed(len: usize) -> Result<Blocks<T>, Error> {
        Blocks::zeroed(len).ok_or(Error::AllocationFailed {
            bytes: len.saturating_mul(size_of::<T>()),
        })
    }

    /// `len` zeroed blocks, or `None` when the size overflows or the allocator refuses.
    pub(crate) fn zeroed(len: usize) -> Option<Blocks<T>> {
        let bytes = len.checked_mul(size_of::<T>())?;
        if bytes == 0 {
            return Some(Blocks {
                start: NonNull::dangling(),
                len,
                allocation: NonNull::dangling(),
                layout: Layout::new::<()>(),
                owns: PhantomData,
            });
        }
        if bytes < HUGE_PAGE_THRESHOLD {
            let layout = Layout::array::<T>(len).ok()?;
            // SAFETY: `layout` has a non-zero size.
            let start = NonNull::new(unsafe { alloc_zeroed(layout) })?;
            return Some(Blocks {
                start: start.cast(),
                len,
                allocation: start,
                layout,
                owns: PhantomData,
            });
        }
        // Whole huge pages, plus one more so that a 2 MiB boundary with all of them after it
        // lies inside the allocation whatever address the allocator returns.
        let huge_bytes = bytes.checked_next_multiple_of(HUGE_PAGE_BYTES)?;
        let layout = Layout::from_size_align(
            huge_bytes.checked_add(HUGE_PAGE_BYTES)?,
            LARGE_ALLOCATION_ALIGN,
        )
        .ok()?;
        // SAFETY: `layout` has a non-zero size.
        let allocation = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        let offset = allocation.as_ptr().align_offset(HUGE_PAGE_BYTES);
        if offset >= HUGE_PAGE_BYTES {
            // `align_offset` may in principle decline to compute the offset.
            // SAFETY: `allocation` was just allocated with `layout` and is freed only here.
            unsafe { dealloc(allocation.as_ptr(), layout) };
            return None;
        }
        // SAFETY: `offset < HUGE_PAGE_BYTES`, so `offset + huge_bytes` bytes from `allocation`
        // stay inside the `huge_bytes + HUGE_PAGE_BYTES` bytes allocated.
        let start = unsafe { allocation.add(offset) };
        // The hint goes before any block is written, so that the first touch of each page can
        // already fault in a huge page; `alloc_zeroed` itself touched none of them when the
        // allocator took fresh pages from the kernel.
        advise_huge_pages(start, huge_bytes);
        Some(Blocks {
            start: start.cast(),
            len,
            allocation,
            layout,
            owns: PhantomData,
        })
    }

    /// [`zeroed`](Blocks::zeroed) for infallible contexts (`Clone`, copies of another filter):
    /// like `Vec`, an allocation failure aborts through `handle_alloc_error`.
    pub(crate) fn zeroed_or_abort(len: usize) -> Blocks<T> {
        Blocks::zeroed(len).unwrap_or_else(|| {
            handle_alloc_error(Layout::array::<T>(len).unwrap_or(Layout::new::<T>()))
        })
    }

    /// The same memory as blocks of another [`BlockStorage`] type, without copying.
    #[cfg_attr(
        not(target_has_atomic = "32"),
        expect(dead_code, reason = "only atomic filters cast their blocks")
    )]
    pub(crate) fn cast<U: BlockStorage>(self) -> Blocks<U> {
        const {
            assert!(size_of::<T>() == size_of::<U>() && align_of::<T>() == align_of::<U>());
        }
        let this = ManuallyDrop::new(self);
        // The sizes and alignments are equal (asserted above), so `layout` still describes the
        // allocation and `len` values of `U` fill exactly the bytes of `len` values of `T`.
        Blocks {
            start: this.start.cast(),
            len: this.len,
            allocation: this.allocation,
            layout: this.layout,
            owns: PhantomData,
        }
    }

    /// Whether this storage was allocated for huge pages (2 MiB-aligned, hinted on Linux).
    #[cfg(test)]
    fn is_huge(&self) -> bool {
        self.len * size_of::<T>() >= HUGE_PAGE_THRESHOLD
    }
}

/// Asks Linux to back `bytes` bytes at `start` with transparent huge pages. Advice only: if
/// the kernel has huge pages disabled, the call fails and is ignored.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: NonNull<u8>, bytes: usize) {
    // SAFETY: `start..start + bytes` is one allocation of ours, 2 MiB-aligned (hence
    // page-aligned); MADV_HUGEPAGE changes only how the kernel backs it, never its contents.
    let _ignored = unsafe { libc::madvise(start.as_ptr().cast(), bytes, libc::MADV_HUGEPAGE) };
}

/// Elsewhere there is no portable hint; the 2 MiB alignment still lets an OS that promotes
/// pages on its own (e.g. FreeBSD's superpages) do so.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: NonNull<u8>, _bytes: usize) {}

impl<T: BlockStorage> Deref for Blocks<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `start` points to `len` initialised blocks owned by `self` (or is dangling
        // and well aligned with `len == 0`).
        unsafe { core::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl<T: BlockStorage> DerefMut for Blocks<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` guarantees exclusive access.
        unsafe { core::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl<T: BlockStorage> Drop for Blocks<T> {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: `allocation` was allocated with `layout` by the global allocator and is
            // freed only here.
            unsafe { dealloc(self.allocation.as_ptr(), self.layout) }
        }
    }
}

impl<T: BlockStorage + Copy> Clone for Blocks<T> {
    fn clone(&self) -> Blocks<T> {
        let mut copy = Blocks::zeroed_or_abort(self.len);
        copy.copy_from_slice(self);
        copy
    }
}

impl<T: BlockStorage + PartialEq> PartialEq for Blocks<T> {
    fn eq(&self, other: &Blocks<T>) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_storage_is_block_aligned_and_zeroed() {
        let blocks: Blocks = Blocks::zeroed(100).unwrap();
        assert_eq!(blocks.len(), 100);
        assert!(!blocks.is_huge());
        assert_eq!(blocks.as_ptr() as usize % size_of::<Block>(), 0);
        assert!(blocks.iter().all(|block| *block == Block::default()));
        assert_eq!(Blocks::<Block>::zeroed(0).unwrap().len(), 0);
    }

    #[test]
    fn large_storage_is_huge_page_aligned_zeroed_and_clonable() {
        let len = HUGE_PAGE_THRESHOLD / size_of::<Block>() + 1;
        let mut blocks: Blocks = Blocks::zeroed(len).unwrap();
        assert!(blocks.is_huge());
        assert_eq!(blocks.as_ptr() as usize % HUGE_PAGE_BYTES, 0);
        // Two whole huge pages beyond the threshold: one for the last block, one of slack for
        // the alignment.
        assert_eq!(
            blocks.layout.size(),
            HUGE_PAGE_THRESHOLD + 2 * HUGE_PAGE_BYTES
        );
        assert!(blocks.iter().all(|block| *block == Block::default()));
        blocks[len - 1].0[7] = 9;
        let copy = blocks.clone();
        assert!(copy == blocks);
        assert_eq!(copy[len - 1].0[7], 9);
        assert!(Blocks::<Block>::zeroed(usize::MAX).is_none());
    }
}
