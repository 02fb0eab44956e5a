//! The module's global allocator: Redis's own, so that every filter counts in `used_memory`,
//! `maxmemory` and eviction see it, and `MEMORY USAGE` is true.
//!
//! New filters are zeroed memory (the crate allocates their blocks with `alloc_zeroed`), and
//! zeroed memory must come zeroed from the system, not be written: writing a 2 GB filter's
//! zeros stalls every client for seconds and makes all of it resident at once, where pages the
//! kernel hands out zeroed cost nothing until a key lands in them. jemalloc's `calloc` gives
//! such pages for large sizes (fresh mappings, or pages it purged), so `alloc_zeroed` goes to
//! `RedisModule_TryCalloc` where the server has it (Redis 7.4 and later, Valkey 8), and on an
//! older server to `RedisModule_Calloc` after a `RedisModule_TryAlloc` of the same size has
//! shown that the memory can be had (`RedisModule_Calloc` aborts the server when it cannot).
//!
//! The server's allocator takes a size only, and promises what `malloc` promises: an address
//! aligned to [`SERVER_ALIGN`]. A larger alignment (the crate's 32- and 64-byte blocks) is
//! made here: the allocation is larger by the alignment, the address returned is the first
//! aligned one at least a pointer past its start, and the start is kept in the pointer just
//! before it, where `dealloc` finds it.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::sync::OnceLock;

use redis_module::raw;

/// `RedisModule_TryCalloc`'s signature (`redismodule.h`): null when the memory cannot be had.
type TryCalloc = unsafe extern "C" fn(nmemb: usize, size: usize) -> *mut c_void;

/// The server's `RedisModule_TryCalloc`, looked up once at load ([`find_try_calloc`]); unset on
/// servers without it and outside Redis.
static TRY_CALLOC: OnceLock<TryCalloc> = OnceLock::new();

/// Below this size, a zeroed allocation on a server without `RedisModule_TryCalloc` is an
/// allocation and a `memset` (a small filter, an answer buffer), which never aborts; from it
/// on, the probe-then-calloc path, whose extra allocation is nothing beside the filter.
const LAZY_ZERO_BYTES: usize = 1 << 20;

/// The alignment the server's allocator guarantees for any size of at least this many bytes
/// (smaller sizes, to their size): `malloc`'s (`alignof(max_align_t)` on 64-bit Linux). jemalloc often gives more, by the size
/// class an allocation lands in, but nothing promises it.
pub const SERVER_ALIGN: usize = 16;

/// Looks up `RedisModule_TryCalloc` in the server's API table, which `redismodule.h` does not
/// list for Redis 7.0 (the version redis-module's bindings were made for). Called once, from
/// the module's init, after `RedisModule_Init` set the API pointers.
pub fn find_try_calloc() {
    // SAFETY: `RedisModule_GetApi` is set by `RedisModule_Init`, which ran before the module's
    // init; it writes the function's address into `address` or leaves it null.
    let address = unsafe {
        let Some(get_api) = raw::RedisModule_GetApi else {
            return;
        };
        let mut address: *mut c_void = std::ptr::null_mut();
        if get_api(
            c"RedisModule_TryCalloc".as_ptr(),
            (&raw mut address).cast::<c_void>(),
        ) != raw::REDISMODULE_OK as i32
        {
            return;
        }
        address
    };
    if !address.is_null() {
        // SAFETY: the server's API table holds `RedisModule_TryCalloc` under that name, with
        // the signature `redismodule.h` gives it (`void *(*)(size_t nmemb, size_t size)`), as
        // `RedisModule_Init` itself reads every other entry of that table.
        let try_calloc = unsafe { std::mem::transmute::<*mut c_void, TryCalloc>(address) };
        let _ = TRY_CALLOC.set(try_calloc);
    }
}

/// Whether `layout` needs more alignment than the server's allocator promises for its size
/// (as the standard library's `System` decides when `malloc` will do).
fn over_aligned(layout: Layout) -> bool {
    layout.align() > SERVER_ALIGN || layout.align() > layout.size()
}

/// Bytes an allocation of `layout` asks of the server's allocator: its size, plus the
/// alignment when the alignment is made here. What `MEMORY USAGE` counts.
pub fn allocation_size(layout: Layout) -> usize {
    if over_aligned(layout) {
        layout
            .size()
            .saturating_add(layout.align().max(SERVER_ALIGN))
    } else {
        layout.size()
    }
}

/// An allocator that takes sizes only and returns addresses aligned to at least a pointer:
/// the server's (or, in the tests, one that aligns no further than it must).
trait SizeAllocator {
    /// `size` bytes (zeroed when `zeroed`), or null.
    ///
    /// # Safety
    ///
    /// `size` is not 0.
    unsafe fn allocate(&self, size: usize, zeroed: bool) -> *mut u8;

    /// Frees what [`allocate`](SizeAllocator::allocate) returned.
    ///
    /// # Safety
    ///
    /// `ptr` came from `allocate` on this allocator and is freed once.
    unsafe fn free(&self, ptr: *mut u8);
}

/// An allocation of `layout` from `allocator`, aligned to `layout.align()` whatever the
/// allocator's own alignment (see the module docs); null when the allocator refuses.
///
/// # Safety
///
/// `layout` has a non-zero size.
unsafe fn allocate_aligned(
    allocator: &impl SizeAllocator,
    layout: Layout,
    zeroed: bool,
) -> *mut u8 {
    if !over_aligned(layout) {
        // SAFETY: a non-zero size (the caller's contract).
        return unsafe { allocator.allocate(layout.size(), zeroed) };
    }
    let align = layout.align().max(SERVER_ALIGN);
    let total = allocation_size(layout);
    if total == usize::MAX {
        return std::ptr::null_mut();
    }
    // SAFETY: `total` is above `layout.size()`, so not 0.
    let start = unsafe { allocator.allocate(total, zeroed) };
    if start.is_null() {
        return start;
    }
    let offset = (start as usize)
        .checked_add(size_of::<*mut u8>())
        .and_then(|first| first.checked_next_multiple_of(align))
        .map(|aligned| aligned - start as usize)
        .filter(|&offset| offset <= align);
    let Some(offset) = offset else {
        // An allocator that aligns to less than a pointer: no room for the start.
        // SAFETY: `start` was just allocated by `allocator`.
        unsafe { allocator.free(start) };
        return std::ptr::null_mut();
    };
    // SAFETY: `offset <= align`, so `offset + layout.size()` bytes fit in the `total` bytes
    // allocated; `offset >= size_of::<*mut u8>()`, so the pointer before `aligned` lies inside
    // the allocation, and it is aligned for a pointer because `aligned` is aligned to `align`,
    // a multiple of a pointer's alignment.
    unsafe {
        let aligned = start.add(offset);
        aligned.cast::<*mut u8>().sub(1).write(start);
        aligned
    }
}

/// Frees what [`allocate_aligned`] returned for `layout`.
///
/// # Safety
///
/// `ptr` came from `allocate_aligned(allocator, layout, _)` with this `layout`, once.
unsafe fn free_aligned(allocator: &impl SizeAllocator, ptr: *mut u8, layout: Layout) {
    // SAFETY: the caller's contract; an over-aligned allocation keeps its start in the pointer
    // just before `ptr` (`allocate_aligned`).
    unsafe {
        if over_aligned(layout) {
            allocator.free(ptr.cast::<*mut u8>().sub(1).read());
        } else {
            allocator.free(ptr);
        }
    }
}

/// The server's allocator, through its module API.
struct Server;

impl SizeAllocator for Server {
    unsafe fn allocate(&self, size: usize, zeroed: bool) -> *mut u8 {
        // SAFETY: see `TryRedisAlloc`'s impl: inside Redis the API pointers are set before the
        // first allocation and never change; the probe is freed at once.
        unsafe {
            if !zeroed {
                return match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
                    (Some(try_alloc), _) => try_alloc(size).cast(),
                    (None, Some(alloc)) => alloc(size).cast(),
                    (None, None) => std::ptr::null_mut(),
                };
            }
            match (
                TRY_CALLOC.get(),
                raw::RedisModule_TryAlloc,
                raw::RedisModule_Calloc,
            ) {
                (Some(try_calloc), _, _) => try_calloc(1, size).cast(),
                (None, Some(try_alloc), Some(calloc)) if size >= LAZY_ZERO_BYTES => {
                    let probe = try_alloc(size);
                    if probe.is_null() {
                        return std::ptr::null_mut();
                    }
                    self.free(probe.cast());
                    calloc(1, size).cast()
                }
                _ => {
                    let block = self.allocate(size, false);
                    if !block.is_null() {
                        block.write_bytes(0, size);
                    }
                    block
                }
            }
        }
    }

    unsafe fn free(&self, ptr: *mut u8) {
        // SAFETY: `ptr` came from the server's allocator (`allocate`).
        unsafe {
            if let Some(free) = raw::RedisModule_Free {
                free(ptr.cast());
            }
        }
    }
}

/// Redis's allocator, through `RedisModule_TryAlloc` when the server has it, so that an
/// allocation that cannot be satisfied returns null (an error reply for the crate's fallible
/// allocations) instead of aborting the server as `RedisModule_Alloc` does; every alignment
/// honoured ([`allocate_aligned`]). Outside Redis (the library's unit tests) the API pointers
/// are never set and it is the system allocator.
pub struct TryRedisAlloc;

/// Whether the module runs inside Redis (the API pointers are set), not in a unit test.
fn inside_redis() -> bool {
    // SAFETY: a read of a pointer Redis sets once, before any allocation of the module's.
    unsafe { raw::RedisModule_Alloc }.is_some()
}

// SAFETY: inside Redis the API pointers are set by RedisModule_Init before the module's first
// allocation (redis-module's OnLoad copies the name into a stack buffer before Init) and never
// change (TRY_CALLOC is set once, at init), so every pointer comes from Redis's allocator
// (TryAlloc, Alloc, TryCalloc, Calloc: all zmalloc), aligned as `layout` asks by
// `allocate_aligned`, and goes back to RedisModule_Free through `free_aligned` with the same
// layout. Outside Redis they are never set, and every call goes to `System` with the caller's
// layout.
unsafe impl GlobalAlloc for TryRedisAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout has a non-zero size (GlobalAlloc's contract).
        unsafe {
            if inside_redis() {
                allocate_aligned(&Server, layout, false)
            } else {
                std::alloc::System.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if inside_redis() {
                allocate_aligned(&Server, layout, true)
            } else {
                std::alloc::System.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` or `alloc_zeroed` above with `layout`.
        unsafe {
            if inside_redis() {
                free_aligned(&Server, ptr, layout);
            } else {
                std::alloc::System.dealloc(ptr, layout);
            }
        }
    }
}

/// Whether Redis's allocator can give `bytes` bytes now: a value's copy allocates through
/// `Vec`'s infallible path, so `COPY` asks first and answers with an error instead of aborting.
pub fn can_allocate(bytes: usize) -> bool {
    let Ok(layout) = Layout::from_size_align(bytes.max(1), 64) else {
        return false;
    };
    // SAFETY: a non-zero size, freed at once with the same layout.
    unsafe {
        let probe = TryRedisAlloc.alloc(layout);
        if probe.is_null() {
            return false;
        }
        TryRedisAlloc.dealloc(probe, layout);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// An allocator that aligns to exactly 16 bytes, never more (as `malloc` may), and checks
    /// that every pointer it frees is one it gave.
    #[derive(Default)]
    struct SixteenOnly {
        live: RefCell<HashMap<usize, Layout>>,
    }

    impl SizeAllocator for SixteenOnly {
        unsafe fn allocate(&self, size: usize, zeroed: bool) -> *mut u8 {
            // 16 bytes past a 4096-aligned block: aligned to 16, to nothing larger.
            let layout = Layout::from_size_align(size + 16, 4096).unwrap();
            // SAFETY: a non-zero size.
            let block = unsafe {
                if zeroed {
                    std::alloc::System.alloc_zeroed(layout)
                } else {
                    std::alloc::System.alloc(layout)
                }
            };
            assert!(!block.is_null());
            // SAFETY: 16 bytes into an allocation of `size + 16`.
            let ptr = unsafe { block.add(16) };
            self.live.borrow_mut().insert(ptr as usize, layout);
            ptr
        }

        unsafe fn free(&self, ptr: *mut u8) {
            let layout = self
                .live
                .borrow_mut()
                .remove(&(ptr as usize))
                .expect("a pointer this allocator gave, freed once");
            // SAFETY: `ptr - 16` is the block allocated with `layout`.
            unsafe { std::alloc::System.dealloc(ptr.sub(16), layout) };
        }
    }

    /// Every alignment up to a page is honoured by an allocator that promises only 16 bytes,
    /// zeroed memory is zeroed, and every allocation goes back whole.
    #[test]
    fn alignments_above_the_servers_are_honoured() {
        let allocator = SixteenOnly::default();
        for align in [1, 8, 16, 32, 64, 128, 256, 4096] {
            for size in [1, 7, 16, 100, 128, 4096, 100_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                for zeroed in [false, true] {
                    // SAFETY: a non-zero size; freed below with the same layout.
                    unsafe {
                        let ptr = allocate_aligned(&allocator, layout, zeroed);
                        assert!(!ptr.is_null());
                        assert_eq!(ptr as usize % align, 0, "{size} bytes at {align}");
                        if zeroed {
                            let bytes = std::slice::from_raw_parts(ptr, size);
                            assert!(bytes.iter().all(|&byte| byte == 0));
                        }
                        ptr.write_bytes(0xa5, size);
                        free_aligned(&allocator, ptr, layout);
                    }
                }
                assert!(allocation_size(layout) >= size);
            }
        }
        assert!(allocator.live.borrow().is_empty());
    }
}
