//! splitbloom as a Redis and Valkey module, with three data types:
//!
//! - `SBFfilter` ([`bloom`]): a scaling chain of filters (the crate's
//!   [`splitbloom::ScalableFilter`], sized as RedisBloom sizes its sub-filters) or one filter
//!   (`NONSCALING`), each a [`splitbloom::Filter`], or a [`splitbloom::WideFilter`] for values
//!   reserved at error rates of 0.1% and below; the `SBF.*` commands;
//! - `SBFwindow` ([`window`], `SBF.WRESERVE`): a [`splitbloom::WindowFilter`] rotated by the
//!   primary's clock;
//! - `SBFqchain` ([`quotient`]): a chain of [`splitbloom::QuotientFilter`]s for keys that are
//!   deleted too, with RedisBloom's cuckoo-filter commands as `SCF.*`.
//!
//! With the module argument `BF_COMMANDS yes`, RedisBloom's own `BF.*` and `CF.*` names too,
//! with RedisBloom's replies (`redis/README.md` lists every command and difference).
//!
//! Laid out by concern: this file declares the module and registers the commands; [`config`]
//! reads the module arguments; [`alloc`] is the global allocator and [`memory`] the limits every
//! new value is checked against; [`types`] holds one file per data type (its `RedisType` and
//! encodings, over callbacks written once); [`bloom`], [`window`] and [`quotient`] are the
//! values, which know nothing of Redis, and [`stream`] the chunked byte stream of values made
//! of stages; [`commands`] are the commands, one file per concern.
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

use std::ffi::CStr;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::os::raw::c_int;
use std::sync::atomic::Ordering;

use redis_module::{Context, RedisString, Status, raw, redis_module};

mod alloc;
mod bloom;
mod commands;
mod config;
mod memory;
mod quotient;
mod stream;
mod types;
mod window;

use alloc::TryRedisAlloc;
use types::bloom::SBF_TYPE;
use types::quotient::QUOTIENT_TYPE;
use types::window::WINDOW_TYPE;

/// The hasher every filter of this module uses: the crate's default, named once here.
type Hash = splitbloom::Xxh3;

/// The largest count a client may set or a value may hold (capacities, items added, rotations,
/// times in ms): RESP's largest integer, so every count is printed as what it is, and counts
/// that grow saturate there instead of wrapping.
const MAX_COUNT: u64 = i64::MAX as u64;

/// Arguments a command's handler gets on the stack; more go to the heap.
const STACK_ARGS: usize = 16;

/// The entry point Redis calls for `$handler`, which gets the command's arguments as Redis
/// passes them, lent for the command's duration. (`redis_module!`'s own wrapper retains every
/// argument and frees it again afterwards, two calls into Redis per item of a 1,000-item
/// batch; the strings in `argv` live until the command returns, so borrowing them is enough.)
macro_rules! entry {
    ($handler:expr) => {{
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
            // On the stack for the usual few arguments: a single-key command is a few
            // microseconds of server work, of which an allocation is a measurable part.
            let mut stack =
                [const { MaybeUninit::<ManuallyDrop<RedisString>>::uninit() }; STACK_ARGS];
            let heap: Vec<ManuallyDrop<RedisString>>;
            let wrap = |&arg| ManuallyDrop::new(RedisString::from_redis_module_string(ctx, arg));
            let args: &[ManuallyDrop<RedisString>] = if strings.len() <= STACK_ARGS {
                for (slot, arg) in stack.iter_mut().zip(strings) {
                    slot.write(wrap(arg));
                }
                // SAFETY: the first `strings.len()` elements were just written, and
                // `MaybeUninit<T>` has `T`'s layout.
                unsafe { std::slice::from_raw_parts(stack.as_ptr().cast(), strings.len()) }
            } else {
                heap = strings.iter().map(wrap).collect();
                &heap
            };
            let args = args as *const [ManuallyDrop<RedisString>] as *const [RedisString];
            // SAFETY: `ManuallyDrop<T>` has `T`'s layout (`repr(transparent)`), so the slice
            // is one of `RedisString`s; they are never dropped (no `FreeString` for strings
            // this module did not retain), and the handler does not keep them past the call.
            let args = unsafe { &*args };
            let response = $handler(&context, args);
            context.reply(response) as c_int
        }
        command as Entry
    }};
}

type Entry =
    extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int;

/// One command: the module's name for it, RedisBloom's (registered with `BF_COMMANDS yes`),
/// its entry point, its flags, and the position of its last key (all keys are from the first
/// argument on, one apart).
struct Command(
    &'static CStr,
    Option<&'static CStr>,
    Entry,
    &'static CStr,
    c_int,
);

/// Registers `name`; an error (with a log line) when a command of that name exists.
fn create(ctx: &Context, name: &CStr, entry: Entry, flags: &CStr, last_key: c_int) -> Status {
    // SAFETY: called from OnLoad, with the API pointers set; the strings are NUL-terminated
    // and Redis copies them.
    let status = unsafe {
        raw::RedisModule_CreateCommand.expect("Redis provides RedisModule_CreateCommand")(
            ctx.ctx,
            name.as_ptr(),
            Some(entry),
            flags.as_ptr(),
            1,
            last_key,
            1,
        )
    };
    if status == raw::Status::Ok as c_int {
        return Status::Ok;
    }
    ctx.log_warning(&format!(
        "splitbloom: cannot register {}: a command of that name exists already (for bf.*: \
         RedisBloom or valkey-bloom, module name bf, is loaded; load splitbloom without \
         BF_COMMANDS to run it beside them)",
        name.to_str().unwrap_or("a command")
    ));
    Status::Err
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
    let (write, read, fast) = (c"write deny-oom", c"readonly", c"readonly fast");
    // RedisBloom's names in lower case, as it registers them: Redis names the command in its
    // errors ("wrong number of arguments for 'bf.add' command") as it was registered.
    let commands = [
        Command(
            c"SBF.RESERVE",
            Some(c"bf.reserve"),
            entry!(reserve),
            write,
            1,
        ),
        Command(c"SBF.ADD", Some(c"bf.add"), entry!(add), write, 1),
        Command(c"SBF.MADD", Some(c"bf.madd"), entry!(madd), write, 1),
        Command(c"SBF.INSERT", Some(c"bf.insert"), entry!(insert), write, 1),
        Command(c"SBF.EXISTS", Some(c"bf.exists"), entry!(exists), fast, 1),
        Command(
            c"SBF.MEXISTS",
            Some(c"bf.mexists"),
            entry!(mexists),
            fast,
            1,
        ),
        Command(c"SBF.INFO", None, entry!(sbf_info), read, 1),
        Command(c"bf.info", None, entry!(bf_info), fast, 1),
        Command(c"SBF.CARD", Some(c"bf.card"), entry!(card), fast, 1),
        Command(
            c"SBF.SCANDUMP",
            Some(c"bf.scandump"),
            entry!(scandump),
            fast,
            1,
        ),
        Command(
            c"SBF.LOADCHUNK",
            Some(c"bf.loadchunk"),
            entry!(loadchunk),
            write,
            1,
        ),
        Command(c"SBF.MERGE", None, entry!(merge), write, -1),
        Command(c"SBF.DUMP", None, entry!(dump), read, 1),
        Command(c"SBF.LOAD", None, entry!(load), write, 1),
        Command(c"SBF.WRESERVE", None, entry!(wreserve), write, 1),
        Command(c"SBF.WROTATE", None, entry!(wrotate), c"write", 1),
        Command(c"SBF.WLOAD", None, entry!(wload), write, 1),
        Command(c"SBF.WDUMP", None, entry!(wdump), read, 1),
        Command(
            c"SCF.RESERVE",
            Some(c"cf.reserve"),
            entry!(cf_reserve),
            write,
            1,
        ),
        Command(c"SCF.ADD", Some(c"cf.add"), entry!(cf_add), write, 1),
        Command(c"SCF.ADDNX", Some(c"cf.addnx"), entry!(cf_addnx), write, 1),
        Command(
            c"SCF.INSERT",
            Some(c"cf.insert"),
            entry!(cf_insert),
            write,
            1,
        ),
        Command(
            c"SCF.INSERTNX",
            Some(c"cf.insertnx"),
            entry!(cf_insertnx),
            write,
            1,
        ),
        Command(
            c"SCF.EXISTS",
            Some(c"cf.exists"),
            entry!(cf_exists),
            fast,
            1,
        ),
        Command(
            c"SCF.MEXISTS",
            Some(c"cf.mexists"),
            entry!(cf_mexists),
            fast,
            1,
        ),
        Command(c"SCF.COUNT", Some(c"cf.count"), entry!(cf_count), fast, 1),
        Command(
            c"SCF.DEL",
            Some(c"cf.del"),
            entry!(cf_del),
            c"write fast",
            1,
        ),
        Command(c"SCF.INFO", None, entry!(scf_info), read, 1),
        Command(c"cf.info", None, entry!(cf_info), read, 1),
        Command(
            c"SCF.SCANDUMP",
            Some(c"cf.scandump"),
            entry!(cf_scandump),
            read,
            1,
        ),
        Command(
            c"SCF.LOADCHUNK",
            Some(c"cf.loadchunk"),
            entry!(cf_loadchunk),
            write,
            1,
        ),
    ];
    let redisbloom = config::BF_COMMANDS.load(Ordering::Relaxed);
    for Command(name, alias, entry, flags, last_key) in commands {
        // `bf.info` and `cf.info` are RedisBloom's names alone (`SBF.INFO` and `SCF.INFO` add
        // fields).
        let own = redisbloom || name.to_bytes().starts_with(b"S");
        let names = [Some(name).filter(|_| own), alias.filter(|_| redisbloom)];
        for name in names.into_iter().flatten() {
            if create(ctx, name, entry, flags, last_key) == Status::Err {
                return Status::Err;
            }
        }
    }
    Status::Ok
}

redis_module! {
    name: "splitbloom",
    version: 1,
    allocator: (TryRedisAlloc, TryRedisAlloc),
    data_types: [SBF_TYPE, WINDOW_TYPE, QUOTIENT_TYPE],
    init: init,
    commands: [],
}
