//! What a command may allocate: the checks every path that creates or grows a value makes
//! before it allocates, and the bytes a filter's allocation really takes.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::Ordering;

use redis_module::{Context, RedisError, raw};

use crate::config::MAX_FILTER_BYTES;

/// Checks that a new filter or sub-filter of `bytes` may be created: under `MAX_FILTER_BYTES`,
/// under `maxmemory` when the policy is `noeviction`, and, on a server without
/// `RedisModule_TryAlloc`, that the system would grant it. Commands from the primary or read
/// while loading are never refused, so replicas and restarts stay identical to the primary.
pub fn check_memory(ctx: &Context, bytes: u64) -> Result<(), RedisError> {
    let flags = ctx.get_flags();
    if flags.contains(redis_module::ContextFlags::REPLICATED)
        || flags.contains(redis_module::ContextFlags::LOADING)
    {
        return Ok(());
    }
    let max = MAX_FILTER_BYTES.load(Ordering::Relaxed);
    if bytes > max {
        return Err(RedisError::String(format!(
            "ERR cannot create filter: {bytes} bytes is above MAX_FILTER_BYTES ({max})"
        )));
    }
    let config = |name: &str| -> Option<String> {
        match ctx.call("CONFIG", &["GET", name]).ok()? {
            redis_module::RedisValue::Array(items) => String::try_from(items.get(1)?.clone()).ok(),
            _ => None,
        }
    };
    let maxmemory: u64 = config("maxmemory")
        .and_then(|text| text.parse().ok())
        .unwrap_or(0);
    if maxmemory > 0 {
        // SAFETY: a plain getter, available since Redis 6.0.
        let ratio = unsafe { raw::RedisModule_GetUsedMemoryRatio.map_or(0.0, |ratio| ratio()) };
        let used = (f64::from(ratio) * maxmemory as f64) as u64;
        let evicts = config("maxmemory-policy").is_some_and(|policy| policy != "noeviction");
        // With an eviction policy Redis makes room after the command (evicting this filter
        // too if nothing else will do), as for any other value.
        if !evicts && used.saturating_add(bytes) > maxmemory {
            return Err(RedisError::String(format!(
                "OOM cannot create a filter of {bytes} bytes: used memory {used} would exceed 'maxmemory' ({maxmemory})"
            )));
        }
    }
    // SAFETY: the API pointers are written once, by RedisModule_Init, before any command runs.
    if unsafe { raw::RedisModule_TryAlloc }.is_none() {
        let refused = || {
            RedisError::String(format!(
                "ERR cannot create filter: the system refuses {bytes} bytes"
            ))
        };
        let size = usize::try_from(bytes).map_err(|_| refused())?;
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

/// The bytes the crate allocates for `bytes` of blocks, of either layout: their size, except
/// that bitsets of 8 MiB and more take whole 2 MiB huge pages plus one, so that the bitset can
/// start on a huge-page boundary (`storage/blocks.rs` in the crate, which does not expose the
/// figure).
pub fn allocated_for(bytes: usize) -> usize {
    const HUGE_PAGE: usize = 2 << 20;
    if bytes < 8 << 20 {
        bytes
    } else {
        bytes.next_multiple_of(HUGE_PAGE) + HUGE_PAGE
    }
}
