//! The module's global allocator: Redis's own, so that every filter counts in `used_memory`,
//! `maxmemory` and eviction see it, and `MEMORY USAGE` is true.

use std::alloc::{GlobalAlloc, Layout};

use redis_module::raw;

/// Redis's allocator, through `RedisModule_TryAlloc` when the server has it, so that an
/// allocation that cannot be satisfied returns null (an error reply for the crate's fallible
/// allocations) instead of aborting the server as `RedisModule_Alloc` does. Outside Redis (the
/// library's unit tests) the API pointers are never set and it is the system allocator.
pub struct TryRedisAlloc;

// SAFETY: inside Redis the API pointers are set by RedisModule_Init before the module's first
// allocation (redis-module's OnLoad copies the name into a stack buffer before Init) and never
// change, so every pointer comes from Redis's allocator and goes back to RedisModule_Free;
// sizes are rounded up to the alignment, which jemalloc honours for the size classes Rust asks
// for (the reasoning of redis-module's `RedisAlloc`). Outside Redis they are never set, and
// every call goes to `System` with the caller's layout.
unsafe impl GlobalAlloc for TryRedisAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let size = (layout.size() + layout.align() - 1) & !(layout.align() - 1);
        // SAFETY: see the impl; `layout` is the caller's, valid for `System`.
        unsafe {
            match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
                (Some(try_alloc), _) => try_alloc(size).cast(),
                (None, Some(alloc)) => alloc(size).cast(),
                (None, None) => std::alloc::System.alloc(layout),
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, from the same allocator (see the impl).
        unsafe {
            match raw::RedisModule_Free {
                Some(free) => free(ptr.cast()),
                None => std::alloc::System.dealloc(ptr, layout),
            }
        }
    }
}

/// Whether Redis's allocator can give `bytes` bytes now: a value's copy allocates through
/// `Vec`'s infallible path, so `COPY` asks first and answers with an error instead of aborting.
pub fn can_allocate(bytes: usize) -> bool {
    let Ok(layout) = Layout::from_size_align(bytes, 64) else {
        return false;
    };
    // SAFETY: a non-zero size (every value holds a struct and a bitset), freed at once with
    // the same layout.
    unsafe {
        let probe = TryRedisAlloc.alloc(layout);
        if probe.is_null() {
            return false;
        }
        TryRedisAlloc.dealloc(probe, layout);
    }
    true
}
