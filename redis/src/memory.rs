//! What a command may allocate: the checks every path that creates or grows a value makes
//! before it allocates, and the bytes a filter's allocation really takes.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::CStr;
use std::sync::atomic::Ordering;

use redis_module::{Context, ContextFlags, RedisError, raw};

use crate::config::MAX_FILTER_BYTES;

/// Checks that a command may create a new filter or sub-filter of `bytes` bitset bytes
/// ([`check_value`] with the command's context: the bitset under `MAX_FILTER_BYTES`, what its
/// allocation takes under `maxmemory`), as an error reply.
pub fn check_memory(ctx: &Context, bytes: u64) -> Result<(), RedisError> {
    let allocated =
        usize::try_from(bytes).map_or(u64::MAX, |bytes| allocated_for(bytes, 64) as u64);
    check_value(Some(ctx), bytes, allocated).map_err(RedisError::String)
}

/// Checks that a new value, or a new part of one, may be allocated: its largest filter under
/// `MAX_FILTER_BYTES`, all of it (`total` bytes) under `maxmemory` whatever the eviction
/// policy, and, on a server without `RedisModule_TryAlloc`, that the system would grant it.
///
/// Under `noeviction` the memory in use plus `total` must fit. Under an eviction policy Redis
/// makes room after the command, so the value must fit beside what eviction cannot free: the
/// server's own overhead (`used_memory_overhead`), what is left after every key is gone. A
/// value larger than that would be evicted as soon as it is made (after pushing out every other
/// key), and meanwhile hold memory the limit exists to deny.
///
/// Nothing the primary sends, and nothing read while loading (an RDB, the AOF, a full sync), is
/// ever refused, so replicas and restarts stay identical to the primary. `ctx` is the command's
/// context; without one (`RESTORE`'s RDB reader, `COPY`) a replica counts as the primary's.
pub fn check_value(ctx: Option<&Context>, largest: u64, total: u64) -> Result<(), String> {
    if trusted(ctx) {
        return Ok(());
    }
    let max = MAX_FILTER_BYTES.load(Ordering::Relaxed);
    if largest > max {
        return Err(format!(
            "ERR cannot create filter: {largest} bytes is above MAX_FILTER_BYTES ({max})"
        ));
    }
    let memory = ServerMemory::read();
    if memory.maxmemory > 0 {
        if !memory.evicts {
            if memory.used.saturating_add(total) > memory.maxmemory {
                return Err(format!(
                    "OOM cannot create a filter of {total} bytes: used memory {} would exceed 'maxmemory' ({})",
                    memory.used, memory.maxmemory
                ));
            }
        } else if memory.overhead.saturating_add(total) > memory.maxmemory {
            return Err(format!(
                "OOM cannot create a filter of {total} bytes: with maxmemory-policy {}, evicting every key leaves {} bytes, and the filter would still exceed 'maxmemory' ({})",
                memory.policy, memory.overhead, memory.maxmemory
            ));
        }
    }
    // SAFETY: the API pointers are written once, by RedisModule_Init, before any command runs.
    if unsafe { raw::RedisModule_TryAlloc }.is_none() {
        let refused = || format!("ERR cannot create filter: the system refuses {total} bytes");
        let size = usize::try_from(total).map_err(|_| refused())?;
        let layout = Layout::from_size_align(size.max(1), 64).map_err(|_| refused())?;
        // SAFETY: a non-zero size; the block is freed at once with the same layout.
        unsafe {
            let probe = std::alloc::System.alloc(layout);
            if probe.is_null() {
                return Err(refused());
            }
            std::alloc::System.dealloc(probe, layout);
        }
    }
    Ok(())
}

/// Whether what is running now is the primary's (a replicated command; without a context, any
/// command on a replica) or a load (RDB, AOF, full sync), which are never refused.
fn trusted(ctx: Option<&Context>) -> bool {
    let flags = match ctx {
        Some(ctx) => ctx.get_flags(),
        None => {
            // SAFETY: set by RedisModule_Init before any callback runs; for a null context
            // Redis reads only its global state (loading, replica, ...).
            let flags = unsafe {
                match raw::RedisModule_GetContextFlags {
                    Some(flags) => flags(std::ptr::null_mut()),
                    None => 0,
                }
            };
            ContextFlags::from_bits_truncate(flags)
        }
    };
    flags.contains(ContextFlags::REPLICATED)
        || flags.contains(ContextFlags::LOADING)
        || (ctx.is_none() && flags.contains(ContextFlags::SLAVE))
}

/// The `maxmemory` figures a check needs, from `INFO memory` (readable without a context).
struct ServerMemory {
    /// `maxmemory`, 0 for no limit.
    maxmemory: u64,
    /// Whether `maxmemory-policy` evicts keys (anything but `noeviction`).
    evicts: bool,
    policy: String,
    /// Memory in use as eviction counts it (without replication and AOF buffers).
    used: u64,
    /// `used_memory_overhead`: what the server holds apart from the keys' data.
    overhead: u64,
}

impl ServerMemory {
    fn read() -> ServerMemory {
        let mut memory = ServerMemory {
            maxmemory: 0,
            evicts: false,
            policy: String::new(),
            used: 0,
            overhead: 0,
        };
        // SAFETY: the API pointers are set by RedisModule_Init before any command or callback
        // runs; Redis accepts a null context for server info (it then skips auto-memory), the
        // data is read while alive and freed once, and the C string it gives points into it.
        unsafe {
            let (Some(get), Some(unsigned), Some(text), Some(free)) = (
                raw::RedisModule_GetServerInfo,
                raw::RedisModule_ServerInfoGetFieldUnsigned,
                raw::RedisModule_ServerInfoGetFieldC,
                raw::RedisModule_FreeServerInfo,
            ) else {
                return memory;
            };
            let info = get(std::ptr::null_mut(), c"memory".as_ptr());
            if info.is_null() {
                return memory;
            }
            let mut error = 0;
            memory.maxmemory = unsigned(info, c"maxmemory".as_ptr(), &mut error);
            memory.overhead = unsigned(info, c"used_memory_overhead".as_ptr(), &mut error);
            let policy = text(info, c"maxmemory_policy".as_ptr());
            if !policy.is_null() {
                memory.policy = CStr::from_ptr(policy).to_string_lossy().into_owned();
            }
            free(std::ptr::null_mut(), info);
        }
        memory.evicts = !memory.policy.is_empty() && memory.policy != "noeviction";
        // SAFETY: a plain getter, available since Redis 6.0.
        let ratio = unsafe { raw::RedisModule_GetUsedMemoryRatio.map_or(0.0, |ratio| ratio()) };
        memory.used = (f64::from(ratio) * memory.maxmemory as f64) as u64;
        memory
    }
}

/// The bytes the crate allocates for `bytes` of blocks aligned to `align`, as the server's
/// allocator is asked for them: their size (plus the alignment, which the module's allocator
/// makes itself: [`allocation_size`](crate::alloc::allocation_size)), except that bitsets of
/// 8 MiB and more take whole 2 MiB huge pages plus one, so that the bitset can start on a
/// huge-page boundary (`storage/blocks.rs` in the crate, which does not expose the figure).
pub fn allocated_for(bytes: usize, align: usize) -> usize {
    const HUGE_PAGE: usize = 2 << 20;
    if bytes < 8 << 20 {
        Layout::from_size_align(bytes.max(1), align).map_or(bytes, crate::alloc::allocation_size)
    } else {
        let huge = bytes.checked_next_multiple_of(HUGE_PAGE);
        huge.and_then(|huge| huge.checked_add(HUGE_PAGE))
            .unwrap_or(usize::MAX)
    }
}
