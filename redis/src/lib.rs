//! splitbloom as a Redis and Valkey module: a `SBFfilter` data type holding a scaling chain of
//! filters ([`bloom::chain`], sized as RedisBloom sizes its sub-filters) or one filter
//! (`NONSCALING`), each a [`splitbloom::Filter`], or a [`splitbloom::WideFilter`] for values
//! reserved at error rates of 0.1% and below (see [`bloom::stage`]), the `SBF.*` commands, and,
//! with the module argument `BF_COMMANDS yes`, RedisBloom's own `BF.*` names with RedisBloom's
//! replies (`redis/README.md` lists every command and difference); and a `SBFwindow` type
//! (`SBF.WRESERVE`, [`window`]) holding a [`splitbloom::WindowFilter`] rotated by the
//! primary's clock.
//!
//! Laid out by concern: this file declares the module and registers the commands; [`config`]
//! reads the module arguments; [`alloc`] is the global allocator and [`memory`] the limits every
//! new value is checked against; [`types`] holds one file per data type (its `RedisType` and
//! encodings, over callbacks written once); [`bloom`] and [`window`] are the values, which know
//! nothing of Redis; [`commands`] are the commands, one file per concern.
//!
//! Load it with `redis-server --loadmodule target/release/libsplitbloom_redis.so`; it needs
//! Redis 7.0 or later, or Valkey 8. Module arguments, as name/value pairs: `BF_COMMANDS
//! yes|no`, `ERROR_RATE r` and `INITIAL_SIZE n` (what `ADD`/`INSERT` create filters with, 0.01
//! and 100 by default, as RedisBloom's), `MAX_FILTER_BYTES n` (the largest filter or
//! sub-filter a command may create, default 4 GiB).
//!
//! Memory: every allocation goes through the server's allocator, so filters count in
//! `used_memory`, `maxmemory` and eviction see them, and `MEMORY USAGE` reports each value
//! exactly; new filters are zero pages nobody writes ([`alloc`]). Every path that creates or
//! grows a value first checks that it fits ([`memory::check_value`]): under
//! `MAX_FILTER_BYTES`, and under `maxmemory` whatever the eviction policy. An allocation the
//! system refuses is an error reply, not an abort (`RedisModule_TryAlloc`, `TryCalloc`).

use std::mem::ManuallyDrop;
use std::os::raw::c_int;
use std::sync::atomic::Ordering;

use redis_module::{Context, RedisString, Status, raw, redis_module};

mod alloc;
mod bloom;
mod commands;
mod config;
mod memory;
mod stream;
mod types;
mod window;

use alloc::TryRedisAlloc;
use types::bloom::SBF_TYPE;
use types::window::WINDOW_TYPE;

/// The hasher every filter of this module uses: the crate's default, named once here.
type Hash = splitbloom::Xxh3;

/// The largest count a client may set or a value may hold (capacities, items added, rotations,
/// times in ms): RESP's largest integer, so every count is printed as what it is, and counts
/// that grow saturate there instead of wrapping.
const MAX_COUNT: u64 = i64::MAX as u64;

/// Registers one command: `$handler` gets the command's arguments as Redis passes them, lent
/// for the command's duration. (`redis_module!`'s own wrapper retains every argument and frees
/// it again afterwards, two calls into Redis per item of a 1,000-item batch; the strings in
/// `argv` live until the command returns, so borrowing them is enough.)
macro_rules! register {
    ($ctx:expr, $name:literal, $handler:expr, $flags:literal, $first:literal, $last:literal, $step:literal) => {{
        extern "C" fn command(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            let context = Context::new(ctx);
            let strings: &[*mut raw::RedisModuleString] = if argv.is_null() {
                &[]
            } else {
                // SAFETY: Redis passes `argc` valid argument pointers in `argv`.
                unsafe { std::slice::from_raw_parts(argv, argc as usize) }
            };
            let args: Vec<ManuallyDrop<RedisString>> = strings
                .iter()
                .map(|&arg| ManuallyDrop::new(RedisString::from_redis_module_string(ctx, arg)))
                .collect();
            // SAFETY: `ManuallyDrop<T>` has `T`'s layout (`repr(transparent)`), so the slice
            // is one of `RedisString`s; they are never dropped (no `FreeString` for strings
            // this module did not retain), and the handler does not keep them past the call.
            let args = unsafe {
                &*(args.as_slice() as *const [ManuallyDrop<RedisString>] as *const [RedisString])
            };
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
                $first,
                $last,
                $step,
            )
        };
        if status != raw::Status::Ok as c_int {
            $ctx.log_warning(&format!(
                "splitbloom: cannot register {}: a command of that name exists already (for \
                 bf.*: RedisBloom or valkey-bloom, module name bf, is loaded; load splitbloom \
                 without BF_COMMANDS to run it beside them)",
                $name.to_str().unwrap_or("a command")
            ));
            return Status::Err;
        }
    }};
}

/// Applies the module arguments ([`config::apply`]), registers the `SBF.*` commands and, with
/// `BF_COMMANDS yes`, RedisBloom's names for the same handlers.
fn init(ctx: &Context, args: &[RedisString]) -> Status {
    // `rdb_load` checks every read, so a truncated RDB is an error, not a crash.
    ctx.set_module_options(redis_module::ModuleOptions::HANDLE_IO_ERRORS);
    alloc::find_try_calloc();
    if let Err(message) = config::apply(args) {
        ctx.log_warning(&message);
        return Status::Err;
    }
    use commands::*;
    register!(ctx, c"SBF.RESERVE", reserve, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.ADD", add, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.MADD", madd, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.INSERT", insert, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.EXISTS", exists, c"readonly fast", 1, 1, 1);
    register!(ctx, c"SBF.MEXISTS", mexists, c"readonly fast", 1, 1, 1);
    register!(ctx, c"SBF.INFO", sbf_info, c"readonly", 1, 1, 1);
    register!(ctx, c"SBF.CARD", card, c"readonly fast", 1, 1, 1);
    register!(ctx, c"SBF.SCANDUMP", scandump, c"readonly fast", 1, 1, 1);
    register!(ctx, c"SBF.LOADCHUNK", loadchunk, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.MERGE", merge, c"write deny-oom", 1, -1, 1);
    register!(ctx, c"SBF.DUMP", dump, c"readonly", 1, 1, 1);
    register!(ctx, c"SBF.LOAD", load, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.WRESERVE", wreserve, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.WROTATE", wrotate, c"write", 1, 1, 1);
    register!(ctx, c"SBF.WLOAD", wload, c"write deny-oom", 1, 1, 1);
    register!(ctx, c"SBF.WDUMP", wdump, c"readonly", 1, 1, 1);
    if config::BF_COMMANDS.load(Ordering::Relaxed) {
        // Lower case, as RedisBloom registers them: Redis names the command in its errors
        // ("wrong number of arguments for 'bf.add' command") as it was registered.
        register!(ctx, c"bf.reserve", reserve, c"write deny-oom", 1, 1, 1);
        register!(ctx, c"bf.add", add, c"write deny-oom", 1, 1, 1);
        register!(ctx, c"bf.madd", madd, c"write deny-oom", 1, 1, 1);
        register!(ctx, c"bf.insert", insert, c"write deny-oom", 1, 1, 1);
        register!(ctx, c"bf.exists", exists, c"readonly fast", 1, 1, 1);
        register!(ctx, c"bf.mexists", mexists, c"readonly fast", 1, 1, 1);
        register!(ctx, c"bf.info", bf_info, c"readonly fast", 1, 1, 1);
        register!(ctx, c"bf.card", card, c"readonly fast", 1, 1, 1);
        register!(ctx, c"bf.scandump", scandump, c"readonly fast", 1, 1, 1);
        register!(ctx, c"bf.loadchunk", loadchunk, c"write deny-oom", 1, 1, 1);
    }
    Status::Ok
}

redis_module! {
    name: "splitbloom",
    version: 1,
    allocator: (TryRedisAlloc, TryRedisAlloc),
    data_types: [SBF_TYPE, WINDOW_TYPE],
    init: init,
    commands: [],
}
