//! The commands. `SBF.X` and `BF.X` share one handler, with RedisBloom 2.4's replies and error
//! strings (clients and their tests match them); only `INFO` differs: `BF.INFO` has exactly
//! RedisBloom's five fields, `SBF.INFO` adds the filter's own.

use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue, raw};
use splitbloom::FilterHasher;

use crate::bloom::{Meta, Sbf};
use crate::memory::{check_memory, check_value};
use crate::{Hash, SBF_TYPE};

mod bloom;
mod cuckoo;
mod info;
mod merge;
mod transfer;
mod window;

use bloom::{add_, card_, exists_, insert_, madd_, mexists_, reserve_};
use cuckoo::{
    cf_add_, cf_addnx_, cf_count_, cf_del_, cf_exists_, cf_info_, cf_insert_, cf_insertnx_,
    cf_loadchunk_, cf_mexists_, cf_reserve_, cf_scandump_, scf_info_,
};
use info::{bf_info_, sbf_info_};
use merge::merge_;
use transfer::{dump_, load_, loadchunk_, scandump_};
use window::{wdump_, wload_, wreserve_, wrotate_};

/// Redis's own WRONGTYPE error for keys of other types: redis-module 2.0.7 says only "Existing
/// key has wrong Redis type", without the `WRONGTYPE` code clients look for. A command that
/// does not apply to windowed keys says so when one of its keys is one.
fn redis_errors(ctx: &Context, keys: &[RedisString], result: RedisResult) -> RedisResult {
    const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
    result
        .map_err(|error| match error {
            RedisError::WrongType => RedisError::Str(WRONGTYPE),
            RedisError::Str(message) if message.contains("wrong Redis type") => {
                RedisError::Str(WRONGTYPE)
            }
            error => error,
        })
        .map_err(|error| match error {
            RedisError::Str(WRONGTYPE) if keys.iter().any(|key| window::is_window(ctx, key)) => {
                RedisError::Str(window::NOT_FOR_WINDOW)
            }
            error => error,
        })
}

/// Public handlers: each maps the module crate's WRONGTYPE to Redis's. The arguments are
/// lent, never copied (a copy of a 1,000-item batch is 1,000 string objects).
macro_rules! handlers {
    ($($name:ident => $inner:ident),* $(,)?) => {
        $(
            pub fn $name(ctx: &Context, args: &[RedisString]) -> RedisResult {
                let result = $inner(ctx, args);
                redis_errors(ctx, args.get(1..).unwrap_or(&[]), result)
            }
        )*
    };
}

handlers! {
    reserve => reserve_,
    add => add_,
    madd => madd_,
    insert => insert_,
    exists => exists_,
    mexists => mexists_,
    bf_info => bf_info_,
    sbf_info => sbf_info_,
    card => card_,
    scandump => scandump_,
    loadchunk => loadchunk_,
    merge => merge_,
    dump => dump_,
    load => load_,
    wreserve => wreserve_,
    wrotate => wrotate_,
    wload => wload_,
    wdump => wdump_,
    cf_reserve => cf_reserve_,
    cf_add => cf_add_,
    cf_addnx => cf_addnx_,
    cf_insert => cf_insert_,
    cf_insertnx => cf_insertnx_,
    cf_exists => cf_exists_,
    cf_mexists => cf_mexists_,
    cf_count => cf_count_,
    cf_del => cf_del_,
    cf_info => cf_info_,
    scf_info => scf_info_,
    cf_scandump => cf_scandump_,
    cf_loadchunk => cf_loadchunk_,
}

fn err(message: &'static str) -> RedisError {
    RedisError::Str(message)
}

const NOT_FOUND: &str = "ERR not found";
const RESTORING: &str = "ERR the filter is being restored: finish its LOADCHUNK sequence first";
const FULL: &str = "ERR non scaling filter is full";
const NO_STAGE: &str = "OOM cannot create a new sub-filter: maxmemory, MAX_FILTER_BYTES or the system allocator refused it";

fn text(arg: &RedisString) -> Option<&str> {
    arg.try_as_str().ok()
}

fn parse_f64(arg: &RedisString) -> Option<f64> {
    text(arg)?
        .parse::<f64>()
        .ok()
        .filter(|value| !value.is_nan())
}

fn parse_i64(arg: &RedisString) -> Option<i64> {
    text(arg)?.parse::<i64>().ok()
}

/// A count a client sets (a capacity, an item count, a time in ms): from 0 to
/// [`MAX_COUNT`](crate::MAX_COUNT).
fn parse_count(arg: &RedisString) -> Option<u64> {
    text(arg)?
        .parse::<u64>()
        .ok()
        .filter(|&count| count <= crate::MAX_COUNT)
}

/// A count as a reply: saturating at RESP's largest integer, so it never prints negative.
fn count(value: u64) -> RedisValue {
    RedisValue::Integer(i64::try_from(value).unwrap_or(i64::MAX))
}

fn is(arg: &RedisString, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

/// `error_rate capacity`, as `RESERVE` and `SBF.WRESERVE` take them, with RedisBloom's errors:
/// a rate strictly between 0 and 1, a capacity of at least 1.
fn rate_and_capacity(rate: &RedisString, capacity: &RedisString) -> Result<(f64, u64), RedisError> {
    let error_rate = parse_f64(rate).ok_or_else(|| err("ERR bad error rate"))?;
    if !(error_rate > 0.0 && error_rate < 1.0) {
        return Err(err("ERR (0 < error rate range < 1) "));
    }
    let capacity = parse_i64(capacity).ok_or_else(|| err("ERR bad capacity"))?;
    if capacity <= 0 {
        return Err(err("ERR (capacity should be larger than 0)"));
    }
    Ok((error_rate, capacity as u64))
}

/// A predicate's answer (`ADD`: the item was new; `EXISTS`: it may be present), as current
/// RedisBloom (2.6 and later, and Redis 8) sends it: a RESP3 boolean, which Redis sends to a
/// RESP2 client as the integer 1 or 0, as RedisBloom 2.4 answers both.
/// Written straight to the reply, as [`answers`] are.
fn answer(ctx: &Context, yes: bool) -> RedisResult {
    // SAFETY: the API pointers are set before any command runs; `ctx` is this command's
    // context, which gets this one reply.
    unsafe {
        let reply_bool = raw::RedisModule_ReplyWithBool.expect("Redis 7.0 provides ReplyWithBool");
        reply_bool(ctx.ctx, std::os::raw::c_int::from(yes));
    }
    Ok(RedisValue::NoReply)
}

/// Replies with an array of answers ([`answer`]), ending with the error that stopped the batch.
/// Written straight to the reply, one call per answer: building a `RedisValue` per answer first
/// was a measurable part of a pipelined batch's time (`redis/README.md`, "Where the time goes").
fn answers(ctx: &Context, new: &[bool], stop: Option<&'static str>) -> RedisResult {
    let elements = new.iter().map(|&new| Element::Bool(new));
    elements_reply(ctx, elements, stop)
}

/// One element of an array of answers.
enum Element {
    Bool(bool),
    Integer(i64),
}

/// Replies with an array of `elements`, then the error `stop`, if any, written straight to the
/// reply ([`answers`]).
fn elements_reply(
    ctx: &Context,
    elements: impl ExactSizeIterator<Item = Element>,
    stop: Option<&'static str>,
) -> RedisResult {
    let len = elements.len() + usize::from(stop.is_some());
    // SAFETY: the API pointers are set before any command runs; `ctx` is this command's
    // context, and the array gets exactly `len` elements: one per element, then the error.
    unsafe {
        let reply_array = raw::RedisModule_ReplyWithArray.expect("Redis provides ReplyWithArray");
        let reply_bool = raw::RedisModule_ReplyWithBool.expect("Redis 7.0 provides ReplyWithBool");
        let reply_integer =
            raw::RedisModule_ReplyWithLongLong.expect("Redis provides ReplyWithLongLong");
        reply_array(ctx.ctx, len as std::os::raw::c_long);
        for element in elements {
            match element {
                Element::Bool(yes) => reply_bool(ctx.ctx, std::os::raw::c_int::from(yes)),
                Element::Integer(value) => reply_integer(ctx.ctx, value),
            };
        }
    }
    if let Some(message) = stop {
        ctx.reply_error_string(message);
    }
    Ok(RedisValue::NoReply)
}
