//! [`AtomicWindowFilter`]: a [`WindowFilter`] that readers share lock-free while one writer,
//! holding its [`WindowWriter`], inserts and rotates.
//!
//! Readers ask every generation, so they never need to know which slot is the newest: a
//! lookup loads the key's block index's planes word by word (atomically, `Relaxed`) and tests
//! them with the kernel, whatever the writer does. The writer is one
//! handle at a time (taken with [`AtomicWindowFilter::writer`]), because a key must land in
//! the generation that is newest when it is inserted: an insert racing another thread's
//! rotation could put it in a generation about to be forgotten.
//!
//! Rotation first announces itself (the slot and the rotation count, then a `Release`
//! fence), then clears the slot that becomes the newest, which only held keys older than the
//! window. A reader that finds a key absent and then reads [`rotations`]
//! (`Acquire`) therefore sees every rotation whose clearing it observed, so it can tell a
//! forgotten key from a lost one; `tests/suite/window.rs` checks that none is ever lost.
//!
//! [`rotations`]: AtomicWindowFilter::rotations

use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};

use crate::arch::Dispatch;
use crate::filter::WindowFilter;
use crate::hash::{FilterHasher, Xxh3};
use crate::kind::Kernel;
use crate::layout::split_block::block_index;
use crate::layout::window::{self, Generations, MAX_GENERATIONS, Plane};
use crate::storage::Blocks;
use crate::storage::window::{AtomicWindowUnit, atomic_words, into_atomic_units, into_plain_units};

/// The most 32-bit words one block index's planes take: 64 generations of 256 bits.
const MOST_GROUP_WORDS: usize = MAX_GENERATIONS * Plane::Bits256.words();

/// A [`WindowFilter`] whose lookups take `&self` from any number of threads, lock-free, while
/// one [`WindowWriter`] inserts and rotates.
///
/// A key inserted since the last `G − 1` rotations is found by every reader whose lookup
/// starts after the insert returned, even while a rotation is clearing the oldest generation.
///
/// ```
/// use splitbloom::WindowFilter;
/// let window = WindowFilter::with_fpr(1000, 0.01, 2)?.into_atomic();
/// std::thread::scope(|scope| {
///     let mut writer = window.writer().expect("no other writer");
///     writer.insert("a");
///     scope.spawn(|| assert!(window.contains("a"))); // readers share `&window`
///     writer.rotate();
///     writer.insert("b");
/// });
/// assert!(window.contains("a") && window.contains("b"));
/// # Ok::<(), splitbloom::Error>(())
/// ```
pub struct AtomicWindowFilter<S = Xxh3> {
    /// As in [`WindowFilter`]: plane `g` of block index `i` is plane `i × generations + g`,
    /// here as 64-bit atomic words (a plane is two or four of them).
    units: Blocks<AtomicWindowUnit>,
    num_blocks: usize,
    items_per_generation: usize,
    generations: usize,
    plane: Plane,
    /// The slot inserts write; only the writer changes it.
    newest: AtomicUsize,
    /// Rotations so far, announced before each rotation clears its slot.
    rotations: AtomicU64,
    /// Whether a [`WindowWriter`] exists.
    writer_taken: AtomicBool,
    kernel: Dispatch,
    hasher: S,
}

impl<S> WindowFilter<S> {
    /// This window as an [`AtomicWindowFilter`], without copying its blocks.
    ///
    /// ```
    /// let mut window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?;
    /// window.insert("key");
    /// let shared = window.into_atomic();
    /// assert!(shared.contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn into_atomic(self) -> AtomicWindowFilter<S> {
        AtomicWindowFilter {
            units: into_atomic_units(self.units),
            num_blocks: self.num_blocks,
            items_per_generation: self.items_per_generation,
            generations: self.generations,
            plane: self.plane,
            newest: AtomicUsize::new(self.newest),
            rotations: AtomicU64::new(self.rotations),
            writer_taken: AtomicBool::new(false),
            kernel: self.kernel,
            hasher: self.hasher,
        }
    }
}

impl<S> AtomicWindowFilter<S> {
    /// The one writer's handle, or `None` while another exists. Dropping it lets another be
    /// taken.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.into_atomic();
    /// let writer = window.writer().unwrap();
    /// assert!(window.writer().is_none());
    /// drop(writer);
    /// assert!(window.writer().is_some());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn writer(&self) -> Option<WindowWriter<'_, S>> {
        let taken =
            self.writer_taken
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed);
        taken.ok().map(|_| WindowWriter {
            window: self,
            not_sync: PhantomData,
        })
    }

    /// How many times the window has rotated, read with `Acquire` after an acquire fence: a
    /// reader that found a block cleared by a rotation sees that rotation counted here.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.into_atomic();
    /// window.writer().unwrap().rotate();
    /// assert_eq!(window.rotations(), 1);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn rotations(&self) -> u64 {
        fence(Ordering::Acquire);
        self.rotations.load(Ordering::Acquire)
    }

    /// The number of generations, `G`.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?.into_atomic();
    /// assert_eq!(window.generations(), 3);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn generations(&self) -> usize {
        self.generations
    }

    /// The hasher keys go through.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?.into_atomic();
    /// assert_eq!(*window.hasher(), splitbloom::Xxh3::default());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The number of blocks of each generation.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?;
    /// let blocks = window.num_blocks();
    /// assert_eq!(window.into_atomic().num_blocks(), blocks);
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// The kernel lookups run on.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?.into_atomic();
    /// assert!(window.kernel().is_available());
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn kernel(&self) -> Kernel {
        self.kernel.kernel()
    }

    /// Back to a [`WindowFilter`], without copying: taking `self` by value proves no reader or
    /// writer remains.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.into_atomic();
    /// window.writer().unwrap().insert("key");
    /// assert!(window.into_window().contains("key"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn into_window(self) -> WindowFilter<S> {
        WindowFilter {
            units: into_plain_units(self.units),
            num_blocks: self.num_blocks,
            items_per_generation: self.items_per_generation,
            generations: self.generations,
            plane: self.plane,
            newest: self.newest.into_inner(),
            rotations: self.rotations.into_inner(),
            kernel: self.kernel,
            hasher: self.hasher,
        }
    }

    /// The window's shape, for the layout's arithmetic (the slot is the writer's business).
    #[inline(always)]
    fn layout(&self) -> Generations {
        Generations {
            num_blocks: self.num_blocks,
            generations: self.generations,
            plane: self.plane,
            newest: 0,
        }
    }

    /// The atomic 64-bit words of `hash`'s block index's planes: a group starts on a plane
    /// boundary, a whole number of 64-bit words (a plane is 16 or 32 bytes).
    #[inline(always)]
    fn group_of(&self, hash: u64) -> &[AtomicU64] {
        let words = atomic_words(&self.units);
        let group = self.layout().group(block_index(hash, self.num_blocks));
        &words[group.start / 2..group.end / 2]
    }

    /// Whether any plane of `group` holds every bit of `x`: the words loaded atomically
    /// (`Relaxed`) into a copy on the stack, which the kernel tests with no early exit, as in
    /// [`WindowFilter`].
    #[inline(always)]
    fn any_holds(&self, group: &[AtomicU64], x: u32) -> bool {
        let mut copy = [0u64; MOST_GROUP_WORDS / 2];
        let copy = &mut copy[..group.len()];
        for (word, atomic) in copy.iter_mut().zip(group) {
            *word = atomic.load(Ordering::Relaxed);
        }
        self.kernel
            .window_contains_any(bytemuck::cast_slice(copy), self.plane, x)
    }
}

impl<S> fmt::Debug for AtomicWindowFilter<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicWindowFilter")
            .field("num_blocks", &self.num_blocks)
            .field("generations", &self.generations)
            .field("rotations", &self.rotations())
            .finish_non_exhaustive()
    }
}

read_methods! {
    type: AtomicWindowFilter,
    setup: "let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 3)?.into_atomic();
let mut writer = window.writer().unwrap();
for key in [\"apple\", \"pear\"] {
    writer.insert(key);
    writer.insert_bytes(key.as_bytes());
}
drop(writer);
let filter = window;",
    note: "Lock-free: every generation's plane is loaded atomically, word by word, whatever \
           the writer does; a key whose insert returned before this call and that is in the \
           window is found.",
    probe: |filter, hash| filter.any_holds(filter.group_of(hash), hash as u32),
    bytes: yes,
}

/// The one writer of an [`AtomicWindowFilter`]: inserts into the newest generation and
/// rotates. It can move to another thread (`Send`) but not be shared (`!Sync`), so inserts
/// and rotations are ordered by that thread.
pub struct WindowWriter<'a, S = Xxh3> {
    window: &'a AtomicWindowFilter<S>,
    /// `Cell` makes the handle `!Sync`.
    not_sync: PhantomData<Cell<()>>,
}

impl<S> Drop for WindowWriter<'_, S> {
    fn drop(&mut self) {
        self.window.writer_taken.store(false, Ordering::Release);
    }
}

impl<S> WindowWriter<'_, S> {
    /// Forgets the oldest generation and starts a new one, as [`WindowFilter::rotate`], while
    /// readers go on: the rotation is announced (`Release`) before the slot that becomes the
    /// newest is cleared, and no other slot is written.
    ///
    /// ```
    /// let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.into_atomic();
    /// let mut writer = window.writer().unwrap();
    /// writer.insert("old");
    /// writer.rotate();
    /// writer.rotate();
    /// assert!(!window.contains("old"));
    /// # Ok::<(), splitbloom::Error>(())
    /// ```
    pub fn rotate(&mut self) {
        let window = self.window;
        let newest = (window.newest.load(Ordering::Relaxed) + 1) % window.generations;
        window.newest.store(newest, Ordering::Relaxed);
        // Only the writer changes the count, so a load and a store are enough; it saturates, as
        // a count read from bytes may start anywhere.
        let rotations = window.rotations.load(Ordering::Relaxed);
        window
            .rotations
            .store(rotations.saturating_add(1), Ordering::Release);
        // Every clear below is ordered after the announcement above for a reader that sees
        // it and then fences (`rotations`).
        fence(Ordering::Release);
        let layout = window.layout();
        // In 64-bit words: a group and a plane are whole numbers of them.
        let (group, plane) = (layout.group_words() / 2, window.plane.words() / 2);
        let slot = newest * plane;
        let words = atomic_words(&window.units);
        for group in words[..layout.total_words().unwrap_or(0) / 2].chunks_exact(group) {
            for word in &group[slot..slot + plane] {
                word.store(0, Ordering::Relaxed);
            }
        }
    }
}

impl<S: FilterHasher> WindowWriter<'_, S> {}

write_methods! {
    type: {'a, S} WindowWriter {'a, S},
    writer: exclusive,
    error: Infallible,
    hasher: |writer| &writer.window.hasher,
    insert_one: |writer, hash| {
        let window = writer.window;
        let group = window.group_of(hash);
        let present = window.any_holds(group, hash as u32);
        // The key's mask as the plane's 64-bit words, ORed into the newest plane; `Relaxed`
        // is enough for bits that are only ever set (see `AtomicFilter`).
        let mask = window::plane_mask(window.plane, hash as u32);
        let mask: &[u64] = bytemuck::cast_slice(&mask[..window.plane.words()]);
        let plane = window.plane.words() / 2;
        let newest = window.newest.load(Ordering::Relaxed) * plane;
        for (word, &bits) in group[newest..newest + plane].iter().zip(mask) {
            if bits & !word.load(Ordering::Relaxed) != 0 {
                word.fetch_or(bits, Ordering::Relaxed);
            }
        }
        Ok(!present)
    },
    setup: "let window = splitbloom::WindowFilter::with_fpr(100, 0.01, 2)?.into_atomic();
let mut filter = window.writer().unwrap();",
    lookup: "window",
    note: "The key goes into the newest generation, as [`WindowFilter::insert`]: `true` means \
           no generation held it. Readers may probe the window meanwhile; each of the key's \
           bits is set with an atomic OR.",
    batch_note: "Into the newest generation, a key at a time.",
    extend_note: "A window never refuses a key, so this cannot fail.",
}
