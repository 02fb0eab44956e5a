//! splitbloom as a Redis module: a `SBFfilter` data type holding a scaling chain of filters
//! ([`chain`], sized as RedisBloom sizes its sub-filters) or one filter (`NONSCALING`), each
//! a [`splitbloom::Filter`], or a [`splitbloom::WideFilter`] for values reserved at error
//! rates of 0.1% and below (see [`stage`]), the `SBF.*` commands, and, with the module argument `BF_COMMANDS yes`,
//! RedisBloom's own `BF.*` names with RedisBloom 2.4's replies (`redis/README.md` lists every
//! command and difference); and a `SBFwindow` type (`SBF.WRESERVE`, [`window`]) holding a
//! [`splitbloom::WindowFilter`] rotated by the primary's clock.
//!
//! Load it with `redis-server --loadmodule target/release/libsplitbloom_redis.so`; it needs
//! Redis 7.0 or later. Module arguments, as name/value pairs: `BF_COMMANDS yes|no`,
//! `ERROR_RATE r` and `INITIAL_SIZE n` (what `ADD`/`INSERT` create filters with, 0.01 and 100
//! by default, as RedisBloom's), `MAX_FILTER_BYTES n` (the largest filter or sub-filter a
//! command may create, default 4 GiB).
//!
//! Memory: every allocation goes through Redis's allocator, so filters count in `used_memory`,
//! `maxmemory` and eviction see them, and `MEMORY USAGE` reports each value exactly. A command
//! that would create a filter (or a new sub-filter) first checks that it fits: under
//! `MAX_FILTER_BYTES`, and under `maxmemory` when the policy is `noeviction` (an `OOM` error
//! reply otherwise). The allocation itself goes through `RedisModule_TryAlloc` (Redis 7.0.15
//! has it), so an allocation the system refuses is an error reply too, not an abort; on a
//! server without it the module falls back to `RedisModule_Alloc`, which aborts the server
//! on failure, and first probes the size with the system allocator to refuse what the system
//! would refuse.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use redis_module::native_types::RedisType;
use redis_module::{Context, RedisError, RedisString, Status, raw, redis_module};

mod chain;
mod commands;
mod stage;
mod value;
mod window;

use value::{Meta, Sbf};

/// The hasher every filter of this module uses: the crate's default, named once here.
type Hash = splitbloom::Xxh3;
/// One stage (sub-filter) of a value.
type Stage = splitbloom::Filter<Hash>;
/// A `NONSCALING` value's filter at low error rates.
type Wide = splitbloom::WideFilter<Hash>;

/// RedisBloom's defaults when `ADD`/`MADD`/`INSERT` create a filter; the module arguments
/// `ERROR_RATE` and `INITIAL_SIZE` change them.
static DEFAULT_ERROR_RATE_BITS: AtomicU64 = AtomicU64::new(0.01f64.to_bits());
static DEFAULT_CAPACITY: AtomicU64 = AtomicU64::new(100);
/// RedisBloom's default expansion.
const DEFAULT_EXPANSION: u64 = 2;

fn default_error_rate() -> f64 {
    f64::from_bits(DEFAULT_ERROR_RATE_BITS.load(Ordering::Relaxed))
}

fn default_capacity() -> u64 {
    DEFAULT_CAPACITY.load(Ordering::Relaxed)
}

/// The RDB encoding this module writes: a header (with the layout), each stage's `SBLM` bytes,
/// a restore's partial stage (see [`rdb_save`]). `rdb_load` refuses any other version.
const ENCODING_VERSION: c_int = 3;

/// The largest filter or sub-filter (bitset bytes) a command may create; set by the
/// `MAX_FILTER_BYTES` module argument.
static MAX_FILTER_BYTES: AtomicU64 = AtomicU64::new(4 << 30);

/// Whether `BF_COMMANDS yes` registered RedisBloom's names.
static BF_COMMANDS: AtomicBool = AtomicBool::new(false);

/// Redis's allocator, through `RedisModule_TryAlloc` when the server has it, so that an
/// allocation that cannot be satisfied returns null (an error reply for the crate's fallible
/// allocations) instead of aborting the server as `RedisModule_Alloc` does. Outside Redis (the
/// library's unit tests) the API pointers are never set and it is the system allocator.
struct TryRedisAlloc;

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

/// Checks that a new filter or sub-filter of `bytes` may be created: under `MAX_FILTER_BYTES`,
/// under `maxmemory` when the policy is `noeviction`, and, on a server without
/// `RedisModule_TryAlloc`, that the system would grant it. Commands from the primary or read
/// while loading are never refused, so replicas and restarts stay identical to the primary.
fn check_memory(ctx: &Context, bytes: u64) -> Result<(), RedisError> {
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

static SBF_TYPE: RedisType = RedisType::new(
    "SBFfilter",
    ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        free: Some(free),
        mem_usage: Some(mem_usage),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// The RDB encoding of windowed keys: one string, `window::Window::encode`'s bytes.
/// `window_rdb_load` refuses any other version.
const WINDOW_ENCODING_VERSION: c_int = 1;

/// Windowed keys (`SBF.WRESERVE`): a separate type, so the chain's encoding and its chunked
/// transfer stay as they are, and a server without windows refuses their RDB by type name.
static WINDOW_TYPE: RedisType = RedisType::new(
    "SBFwindow",
    WINDOW_ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(window_rdb_load),
        rdb_save: Some(window_rdb_save),
        aof_rewrite: Some(window_aof_rewrite),
        free: Some(window_free),
        mem_usage: Some(window_mem_usage),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(window_copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// The windowed value a type method is given.
///
/// # Safety
///
/// `value` is a live value of [`WINDOW_TYPE`], made by this module, not yet freed.
unsafe fn window_value<'a>(value: *const c_void) -> &'a window::Window {
    // SAFETY: the caller's contract.
    unsafe { &*value.cast::<window::Window>() }
}

/// Saves a windowed key as one string: its header and `SBLW` bytes.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    raw::save_slice(rdb, &unsafe { window_value(value) }.encode());
}

/// Reads [`window_rdb_save`]'s string; null (Redis refuses the RDB) for another encoding
/// version or bytes that do not validate.
///
/// # Safety
///
/// Redis calls it with `rdb` an RDB reader positioned at a value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    if encver != WINDOW_ENCODING_VERSION {
        redis_module::logging::log_warning(format!(
            "splitbloom: refusing windowed-key RDB encoding version {encver} (this module reads {WINDOW_ENCODING_VERSION})"
        ));
        return std::ptr::null_mut();
    }
    let loaded = raw::load_string_buffer(rdb)
        .map_err(|error| format!("RDB read failed: {error}"))
        .and_then(|bytes| window::Window::decode(bytes.as_ref()));
    match loaded {
        Ok(window) => Box::into_raw(Box::new(window)).cast(),
        Err(message) => {
            redis_module::logging::log_warning(format!("splitbloom: {message}"));
            std::ptr::null_mut()
        }
    }
}

/// Rewrites a windowed key as one `SBF.WLOAD key bytes`.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let bytes = unsafe { window_value(value) }.encode();
    // SAFETY: Redis set the API pointers before calling any type method; the format "sb"
    // matches the arguments: `s` the RedisModuleString Redis gave us, `b` a pointer and its
    // length.
    unsafe {
        let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
        emit(
            aof,
            c"SBF.WLOAD".as_ptr(),
            c"sb".as_ptr(),
            key,
            bytes.as_ptr(),
            bytes.len(),
        );
    }
}

/// `COPY` of a windowed key: a deep copy; null (Redis then answers an error) when its memory
/// cannot be had.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let window = unsafe { window_value(value) };
    if !can_allocate(window.memory()) {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(window.clone())).cast()
}

/// Frees a windowed value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn window_free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new`.
    drop(unsafe { Box::from_raw(value.cast::<window::Window>()) });
}

/// `MEMORY USAGE` of a windowed key: the struct and every generation's blocks.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    unsafe { window_value(value) }.memory()
}

/// The value a type method is given.
///
/// # Safety
///
/// `value` is a live value of this type, made by this module (`set_value::<Sbf>` or
/// [`rdb_load`]/[`copy`]), not yet freed.
unsafe fn value<'a>(value: *const c_void) -> &'a Sbf {
    // SAFETY: the caller's contract.
    unsafe { &*value.cast::<Sbf>() }
}

/// RDB encoding 3: the header (`value::Meta`, which names the layout) as a string, the number
/// of complete stages, each stage's `SBLM` bytes as a string (checksummed by the crate, under
/// the layout's id), then the bitset bytes of a stage a restore has received in part (empty
/// otherwise).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    raw::save_slice(rdb, &sbf.meta().encode());
    let (stages, partial): (Vec<&dyn stage::Bitset>, &[u8]) = match &sbf.body {
        value::Body::Restoring(restore) => (
            restore.done.iter().map(stage::Part::bits).collect(),
            restore
                .partial
                .get(splitbloom::format::HEADER_BYTES..)
                .unwrap_or(&[]),
        ),
        _ => (sbf.stages(), &[]),
    };
    raw::save_unsigned(rdb, stages.len() as u64);
    for stage in stages {
        raw::save_slice(rdb, &stage.to_bytes());
    }
    raw::save_slice(rdb, partial);
}

/// Reads a value saved by [`rdb_save`]; a null pointer (Redis then refuses the RDB) for an
/// unknown encoding version or bytes that do not validate.
///
/// # Safety
///
/// Redis calls it with `rdb` an RDB reader positioned at a value of this type.
unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    if encver != ENCODING_VERSION {
        redis_module::logging::log_warning(format!(
            "splitbloom: refusing RDB encoding version {encver} (this module reads {ENCODING_VERSION})"
        ));
        return std::ptr::null_mut();
    }
    match load_value(rdb) {
        Ok(sbf) => Box::into_raw(Box::new(sbf)).cast(),
        Err(message) => {
            redis_module::logging::log_warning(format!("splitbloom: {message}"));
            std::ptr::null_mut()
        }
    }
}

fn load_value(rdb: *mut raw::RedisModuleIO) -> Result<Sbf, String> {
    let io = |error: redis_module::error::Error| format!("RDB read failed: {error}");
    let meta = Meta::decode(raw::load_string_buffer(rdb).map_err(io)?.as_ref())
        .map_err(|error| format!("bad header in RDB: {error}"))?;
    let count = raw::load_unsigned(rdb).map_err(io)?;
    if count > meta.stage_blocks.len() as u64 {
        return Err("more stages in RDB than its header has".into());
    }
    let mut stages = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let bytes = raw::load_string_buffer(rdb).map_err(io)?;
        stages.push(
            stage::Part::from_bytes(bytes.as_ref())
                .map_err(|error| format!("bad filter in RDB: {error}"))?,
        );
    }
    let partial = raw::load_string_buffer(rdb).map_err(io)?;
    Sbf::assemble(meta, stages, partial.as_ref())
}

/// Rewrites a key as `SBF.LOADCHUNK` commands, as `SBF.SCANDUMP` gives them: one argument of
/// at most 16 MiB each, far below Redis's `proto-max-bulk-len`, whatever the filter's size.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    let emit_chunk = |iter: u64, bytes: &[u8]| {
        let iter = iter.to_string();
        // SAFETY: Redis set the API pointers before calling any type method; the format "sbb"
        // matches the arguments: `s` a RedisModuleString (the key Redis gave us), each `b` a
        // pointer and its length.
        unsafe {
            let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
            emit(
                aof,
                c"SBF.LOADCHUNK".as_ptr(),
                c"sbb".as_ptr(),
                key,
                iter.as_ptr(),
                iter.len(),
                bytes.as_ptr(),
                bytes.len(),
            );
        }
    };
    emit_chunk(1, &sbf.meta().encode());
    let mut offset = 0u64;
    while let Some(chunk) = sbf.chunk_at(offset) {
        offset += chunk.len() as u64;
        emit_chunk(offset + 1, &chunk);
    }
}

/// `COPY`: a deep copy; null (Redis then answers an error) when its memory cannot be had.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    // Cloning allocates the bitsets through `Vec`'s infallible path: check the size first.
    if !can_allocate(sbf.memory()) {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(sbf.clone())).cast()
}

/// Whether Redis's allocator can give `bytes` bytes now: a value's copy allocates through
/// `Vec`'s infallible path, so `COPY` asks first and answers with an error instead of aborting.
fn can_allocate(bytes: usize) -> bool {
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

/// Frees a value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new`.
    drop(unsafe { Box::from_raw(value.cast::<Sbf>()) });
}

/// `MEMORY USAGE`: the value's struct, its stages and their bitsets (`Sbf::memory`).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    unsafe { self::value(value) }.memory()
}

/// Registers one command under a name known only at load time (`BF.*`), with the wrapper
/// `redis_module!` would generate.
macro_rules! register {
    ($ctx:expr, $name:literal, $handler:expr, $flags:literal) => {{
        extern "C" fn command(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            let context = Context::new(ctx);
            let args = redis_module::decode_args(ctx, argv, argc);
            let response = $handler(&context, args);
            context.reply(response) as c_int
        }
        // SAFETY: called from OnLoad, with the API pointers set; the strings are
        // NUL-terminated literals Redis copies.
        let status = unsafe {
            raw::RedisModule_CreateCommand.expect("Redis provides RedisModule_CreateCommand")(
                $ctx.ctx,
                $name.as_ptr(),
                Some(command),
                $flags.as_ptr(),
                1,
                1,
                1,
            )
        };
        if status != raw::Status::Ok as c_int {
            $ctx.log_warning(&format!(
                "splitbloom: cannot register {} (BF_COMMANDS yes): a command of that name exists \
                 already, so RedisBloom or valkey-bloom (module name bf) is loaded; load splitbloom \
                 without BF_COMMANDS to run it beside them",
                $name.to_str().unwrap_or("a BF command")
            ));
            return Status::Err;
        }
    }};
}

/// Module arguments, as name/value pairs: `BF_COMMANDS yes|no`, `ERROR_RATE r`,
/// `INITIAL_SIZE n`, `MAX_FILTER_BYTES n`.
fn init(ctx: &Context, args: &[RedisString]) -> Status {
    // `rdb_load` checks every read, so a truncated RDB is an error, not a crash.
    ctx.set_module_options(redis_module::ModuleOptions::HANDLE_IO_ERRORS);
    if !args.len().is_multiple_of(2) {
        ctx.log_warning(
            "splitbloom: module arguments are name/value pairs: BF_COMMANDS yes|no, ERROR_RATE r, INITIAL_SIZE n, MAX_FILTER_BYTES n",
        );
        return Status::Err;
    }
    for pair in args.chunks(2) {
        let name = pair[0].to_string_lossy().to_ascii_uppercase();
        let value = pair[1].to_string_lossy();
        let ok = match name.as_str() {
            "BF_COMMANDS" => match value.to_ascii_lowercase().as_str() {
                "yes" => {
                    BF_COMMANDS.store(true, Ordering::Relaxed);
                    true
                }
                "no" => true,
                _ => false,
            },
            "ERROR_RATE" => value
                .parse::<f64>()
                .ok()
                .filter(|rate| *rate > 0.0 && *rate < 1.0)
                .map(|rate| DEFAULT_ERROR_RATE_BITS.store(rate.to_bits(), Ordering::Relaxed))
                .is_some(),
            "INITIAL_SIZE" => value
                .parse::<u64>()
                .ok()
                .filter(|&size| size >= 1)
                .map(|size| DEFAULT_CAPACITY.store(size, Ordering::Relaxed))
                .is_some(),
            "MAX_FILTER_BYTES" => value
                .parse::<u64>()
                .ok()
                .map(|max| MAX_FILTER_BYTES.store(max, Ordering::Relaxed))
                .is_some(),
            _ => {
                ctx.log_warning(&format!(
                    "splitbloom: unknown module argument {name} (known: BF_COMMANDS, ERROR_RATE, INITIAL_SIZE, MAX_FILTER_BYTES)"
                ));
                return Status::Err;
            }
        };
        if !ok {
            ctx.log_warning(&format!(
                "splitbloom: bad value {value:?} for {name} (BF_COMMANDS: yes or no; ERROR_RATE: strictly between 0 and 1; INITIAL_SIZE: an integer of at least 1; MAX_FILTER_BYTES: a byte count)"
            ));
            return Status::Err;
        }
    }
    if BF_COMMANDS.load(Ordering::Relaxed) {
        use commands::*;
        // Lower case, as RedisBloom registers them: Redis names the command in its errors
        // ("wrong number of arguments for 'bf.add' command") as it was registered.
        register!(ctx, c"bf.reserve", reserve, c"write deny-oom");
        register!(ctx, c"bf.add", add, c"write deny-oom");
        register!(ctx, c"bf.madd", madd, c"write deny-oom");
        register!(ctx, c"bf.insert", insert, c"write deny-oom");
        register!(ctx, c"bf.exists", exists, c"readonly fast");
        register!(ctx, c"bf.mexists", mexists, c"readonly fast");
        register!(ctx, c"bf.info", bf_info, c"readonly fast");
        register!(ctx, c"bf.card", card, c"readonly fast");
        register!(ctx, c"bf.scandump", scandump, c"readonly fast");
        register!(ctx, c"bf.loadchunk", loadchunk, c"write deny-oom");
    }
    Status::Ok
}

redis_module! {
    name: "splitbloom",
    version: 1,
    allocator: (TryRedisAlloc, TryRedisAlloc),
    data_types: [SBF_TYPE, WINDOW_TYPE],
    init: init,
    commands: [
        ["SBF.RESERVE", commands::reserve, "write deny-oom", 1, 1, 1],
        ["SBF.ADD", commands::add, "write deny-oom", 1, 1, 1],
        ["SBF.MADD", commands::madd, "write deny-oom", 1, 1, 1],
        ["SBF.INSERT", commands::insert, "write deny-oom", 1, 1, 1],
        ["SBF.EXISTS", commands::exists, "readonly fast", 1, 1, 1],
        ["SBF.MEXISTS", commands::mexists, "readonly fast", 1, 1, 1],
        ["SBF.INFO", commands::sbf_info, "readonly", 1, 1, 1],
        ["SBF.CARD", commands::card, "readonly fast", 1, 1, 1],
        ["SBF.SCANDUMP", commands::scandump, "readonly fast", 1, 1, 1],
        ["SBF.LOADCHUNK", commands::loadchunk, "write deny-oom", 1, 1, 1],
        ["SBF.MERGE", commands::merge, "write deny-oom", 1, -1, 1],
        ["SBF.DUMP", commands::dump, "readonly", 1, 1, 1],
        ["SBF.LOAD", commands::load, "write deny-oom", 1, 1, 1],
        ["SBF.WRESERVE", commands::wreserve, "write deny-oom", 1, 1, 1],
        ["SBF.WROTATE", commands::wrotate, "write", 1, 1, 1],
        ["SBF.WLOAD", commands::wload, "write deny-oom", 1, 1, 1],
        ["SBF.WDUMP", commands::wdump, "readonly", 1, 1, 1],
    ],
}
