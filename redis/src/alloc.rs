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

/// Redis's allocator, through `RedisModule_TryAlloc` when the server has it, so that an
/// allocation that cannot be satisfied returns null (an error reply for the crate's fallible
/// allocations) instead of aborting the server as `RedisModule_Alloc` does. Outside Redis (the
/// library's unit tests) the API pointers are never set and it is the system allocator.
pub struct TryRedisAlloc;

// SAFETY: inside Redis the API pointers are set by RedisModule_Init before the module's first
// allocation (redis-module's OnLoad copies the name into a stack buffer before Init) and never
// change (TRY_CALLOC is set once, at init), so every pointer comes from Redis's allocator
// (TryAlloc, Alloc, TryCalloc, Calloc: all zmalloc) and goes back to RedisModule_Free;
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

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let size = (layout.size() + layout.align() - 1) & !(layout.align() - 1);
        // SAFETY: see the impl; the probe is freed at once, the calloc'd block is the caller's.
        unsafe {
            let outside_redis = { raw::RedisModule_Alloc }.is_none();
            if outside_redis {
                return std::alloc::System.alloc_zeroed(layout);
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
                    self.dealloc(probe.cast(), layout);
                    calloc(1, size).cast()
                }
                _ => {
                    let block = self.alloc(layout);
                    if !block.is_null() {
                        block.write_bytes(0, size);
                    }
                    block
                }
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
