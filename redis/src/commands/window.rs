//! The windowed-key commands (`SBF.WRESERVE`, `SBF.WROTATE`, `SBF.WLOAD`) and what the shared
//! commands (`ADD`, `EXISTS`, `INFO`, ...) do on a windowed key. Every path that touches a
//! window first applies the rotations its deadline makes due ([`rotate_due`]), so
//! answers never depend on whether a command happened to run in between.

use redis_module::{
    Context, ContextFlags, KeyType, RedisError, RedisResult, RedisString, RedisValue,
};
use splitbloom::{FilterHasher, WindowFilter};

use super::{count, err, is, parse_count, rate_and_capacity, text};
use crate::MAX_COUNT;
use crate::memory::check_memory;
use crate::window::{MAX_PERIOD_SECONDS, Window};
use crate::{Hash, WINDOW_TYPE};

/// The server's clock (Unix ms), as Redis reads it for commands.
pub fn now_ms() -> u64 {
    // SAFETY: a plain getter Redis sets before any command runs; outside Redis (never reached
    // by unit tests) the system clock stands in.
    let from_redis = unsafe { redis_module::raw::RedisModule_Milliseconds.map(|now| now()) };
    match from_redis {
        Some(now) => u64::try_from(now).unwrap_or(0),
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis() as u64),
    }
}

/// Whether this command may decide a rotation: only on a primary, and never for a command
/// that came from the primary or the AOF (those carry their rotations as `SBF.WROTATE`).
pub fn decides_rotation(ctx: &Context) -> bool {
    let flags = ctx.get_flags();
    !(flags.contains(ContextFlags::REPLICATED)
        || flags.contains(ContextFlags::LOADING)
        || flags.contains(ContextFlags::SLAVE))
}

/// Rotations due now on `window`, when this command decides them: applies them and
/// replicates them as `SBF.WROTATE key n next_ms`. True when the window changed.
pub fn rotate_due(ctx: &Context, key: &RedisString, window: &mut Window) -> bool {
    if !decides_rotation(ctx) {
        return false;
    }
    let n = window.due(now_ms());
    if n == 0 {
        return false;
    }
    let next = window
        .next_rotation_ms
        .saturating_add(n.saturating_mul(window.period_ms))
        .min(MAX_COUNT);
    window.rotate(n, next);
    replicate_rotation(ctx, key, n, next);
    true
}

/// Replicates (and writes to the AOF) a rotation the primary applied.
pub fn replicate_rotation(ctx: &Context, key: &RedisString, n: u64, next_ms: u64) {
    let n = n.to_string();
    let next = next_ms.to_string();
    ctx.replicate(
        "SBF.WROTATE",
        &[key.as_slice(), n.as_bytes(), next.as_bytes()][..],
    );
}

/// What the commands that do not apply to a windowed key answer on one.
pub(super) const NOT_FOR_WINDOW: &str = "ERR this command does not apply to a windowed key (SBF.WRESERVE): DUMP/RESTORE, COPY and SBF.WLOAD carry one";

const NEXT_ROTATION: &str =
    "ERR the next rotation must be a Unix time in ms, from 0 to 9223372036854775807";

const WRESERVE_OPTIONS: &str = "ERR SBF.WRESERVE key error_rate capacity_per_period GENERATIONS g PERIOD seconds [NEXTROTATION unix_ms]";

/// Whether `name` holds a windowed key.
pub(super) fn is_window(ctx: &Context, name: &RedisString) -> bool {
    matches!(
        ctx.open_key(name).get_value::<Window>(&WINDOW_TYPE),
        Ok(Some(_))
    )
}

/// `f` of the window at `name`, rotated first when rotations are due and this command decides
/// them; `None` when the key is not a window. The key is opened for writing only to rotate,
/// so reads on a replica never look a key up as a write would.
pub(super) fn read_window<R>(
    ctx: &Context,
    name: &RedisString,
    f: impl FnOnce(&Window) -> R,
) -> Option<R> {
    let key = ctx.open_key(name);
    let Ok(Some(window)) = key.get_value::<Window>(&WINDOW_TYPE) else {
        return None;
    };
    if !(decides_rotation(ctx) && window.due(now_ms()) > 0) {
        return Some(f(window));
    }
    drop(key);
    let key = ctx.open_key_writable(name);
    let window = key.get_value::<Window>(&WINDOW_TYPE).ok()??;
    rotate_due(ctx, name, window);
    Some(f(window))
}

/// Adds `items` to the window at `name` (rotated first when due) and replicates the command;
/// `None` when the key is not a window.
pub(super) fn add_to_window(
    ctx: &Context,
    name: &RedisString,
    items: &[RedisString],
) -> Option<Vec<bool>> {
    let key = ctx.open_key_writable(name);
    let window = key.get_value::<Window>(&WINDOW_TYPE).ok()??;
    rotate_due(ctx, name, window);
    let new: Vec<bool> = items
        .iter()
        .map(|item| window.filter.insert_bytes(item.as_slice()))
        .collect();
    let added = new.iter().filter(|&&new| new).count() as u64;
    window.items = window.items.saturating_add(added);
    ctx.replicate_verbatim();
    Some(new)
}

/// `BF.INFO`'s five fields for a window: capacity per period, `MEMORY USAGE`, the number of
/// generations, items added, no expansion.
pub(super) fn five_fields(window: &Window) -> [(&'static str, RedisValue); 5] {
    [
        (
            "Capacity",
            count(window.filter.items_per_generation() as u64),
        ),
        ("Size", count(window.memory() as u64)),
        (
            "Number of filters",
            count(window.filter.generations() as u64),
        ),
        ("Number of items inserted", count(window.items)),
        ("Expansion rate", RedisValue::Null),
    ]
}

/// `SBF.INFO`'s fields past the five: what makes a window a window.
pub(super) fn extra_fields(window: &Window) -> Vec<(&'static str, RedisValue)> {
    let filter = &window.filter;
    vec![
        ("Type", RedisValue::BulkString("window".into())),
        (
            "Error rate",
            RedisValue::BulkString(window.error_rate.to_string()),
        ),
        ("Generations", count(filter.generations() as u64)),
        ("Period", count(window.period_ms / 1000)),
        ("Rotations", count(filter.rotations())),
        ("Next rotation", count(window.next_rotation_ms)),
        (
            "Blocks",
            count((filter.num_blocks() as u64).saturating_mul(filter.generations() as u64)),
        ),
        ("Bytes", count(filter.size_in_bytes() as u64)),
        (
            "Estimated FPR",
            RedisValue::BulkString(format!("{:.6e}", filter.estimated_fpr())),
        ),
        (
            "Fill ratio",
            RedisValue::BulkString(format!("{:.6}", filter.fill_ratio())),
        ),
        (
            "Hasher",
            RedisValue::BulkString(format!("{:?}", Hash::KIND)),
        ),
        (
            "Seed",
            RedisValue::BulkString(filter.hasher().seed().to_string()),
        ),
        (
            "Kernel",
            RedisValue::BulkString(filter.kernel().to_string()),
        ),
        (
            "Layout",
            RedisValue::BulkString(splitbloom::LayoutKind::SplitBlock.name().into()),
        ),
    ]
}

/// Errors unless `name` is empty: `item exists` on this module's keys, WRONGTYPE on others.
fn require_empty(ctx: &Context, name: &RedisString) -> Result<(), RedisError> {
    match ctx.open_key(name).key_type() {
        KeyType::Empty => Ok(()),
        KeyType::Module => Err(err("ERR item exists")),
        _ => Err(RedisError::WrongType),
    }
}

/// `SBF.WRESERVE key error_rate capacity_per_period GENERATIONS g PERIOD seconds
/// [NEXTROTATION unix_ms]`: replicated with the primary's deadline, so replicas and the AOF
/// hold the same value.
pub(super) fn wreserve_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let (error_rate, capacity) = rate_and_capacity(&args[2], &args[3])?;
    let (mut generations, mut period, mut next) = (None, None, None);
    let options = &args[4..];
    let mut at = 0;
    while at < options.len() {
        let option = &options[at];
        if is(option, "EXPANSION") || is(option, "NONSCALING") {
            return Err(err(
                "ERR EXPANSION and NONSCALING do not apply to a windowed filter: it holds capacity_per_period keys per period and forgets the oldest period",
            ));
        }
        let value = options
            .get(at + 1)
            .and_then(text)
            .ok_or(err(WRESERVE_OPTIONS))?;
        let number = value.parse::<u64>().ok();
        if is(option, "GENERATIONS") {
            let max = splitbloom::math::MAX_GENERATIONS as u64;
            generations = Some(number.filter(|g| (1..=max).contains(g)).ok_or_else(|| {
                RedisError::String(format!(
                    "ERR GENERATIONS must be an integer from 1 to {max}"
                ))
            })?);
        } else if is(option, "PERIOD") {
            period = Some(
                number
                    .filter(|s| (1..=MAX_PERIOD_SECONDS).contains(s))
                    .ok_or_else(|| {
                        RedisError::String(format!(
                            "ERR PERIOD must be a whole number of seconds from 1 to {MAX_PERIOD_SECONDS}"
                        ))
                    })?,
            );
        } else if is(option, "NEXTROTATION") {
            next = Some(
                number
                    .filter(|&ms| ms <= MAX_COUNT)
                    .ok_or(err(NEXT_ROTATION))?,
            );
        } else {
            return Err(err(WRESERVE_OPTIONS));
        }
        at += 2;
    }
    let (Some(generations), Some(period)) = (generations, period) else {
        return Err(err(WRESERVE_OPTIONS));
    };
    require_empty(ctx, &args[1])?;
    let cannot = |error| RedisError::String(format!("ERR could not create filter: {error}"));
    let items = usize::try_from(capacity).unwrap_or(usize::MAX);
    let generation_fpr =
        splitbloom::math::generation_fpr_for_window(error_rate, generations as usize)
            .map_err(cannot)?;
    let blocks = splitbloom::math::num_blocks_for_fpr(items, generation_fpr).map_err(cannot)?;
    check_memory(
        ctx,
        (blocks as u64)
            .saturating_mul(generations)
            .saturating_mul(splitbloom::BLOCK_BYTES as u64),
    )?;
    let filter =
        WindowFilter::with_fpr_and_hasher(items, error_rate, generations as usize, Hash::default())
            .map_err(cannot)?;
    let period_ms = period * 1000;
    let next_rotation_ms =
        next.unwrap_or_else(|| now_ms().saturating_add(period_ms).min(MAX_COUNT));
    let window = Window {
        filter,
        error_rate,
        period_ms,
        next_rotation_ms,
        items: 0,
    };
    ctx.open_key_writable(&args[1])
        .set_value(&WINDOW_TYPE, window)?;
    let next = next_rotation_ms.to_string();
    let (generations, period) = (generations.to_string(), period.to_string());
    ctx.replicate(
        "SBF.WRESERVE",
        &[
            args[1].as_slice(),
            args[2].as_slice(),
            args[3].as_slice(),
            b"GENERATIONS",
            generations.as_bytes(),
            b"PERIOD",
            period.as_bytes(),
            b"NEXTROTATION",
            next.as_bytes(),
        ][..],
    );
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `SBF.WROTATE key n [next_rotation_ms]`: forgets `n` generations now (after any that are
/// due) and sets the next deadline (default: one period from now). It is also how the
/// primary replicates the rotations it decides, with the deadline it computed; `n` may be 0
/// to move the deadline only. Answers the window's rotation count.
pub(super) fn wrotate_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if !(3..=4).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let n = text(&args[2])
        .and_then(|text| text.parse::<u64>().ok())
        .ok_or(err("ERR the rotation count must be a non-negative integer"))?;
    let next = match args.get(3) {
        Some(arg) => Some(parse_count(arg).ok_or(err(NEXT_ROTATION))?),
        None => None,
    };
    let key = ctx.open_key_writable(&args[1]);
    let window = key
        .get_value::<Window>(&WINDOW_TYPE)?
        .ok_or(err(super::NOT_FOUND))?;
    let decides = decides_rotation(ctx);
    rotate_due(ctx, &args[1], window);
    let next = match next {
        Some(next) => next,
        None if decides => now_ms().saturating_add(window.period_ms).min(MAX_COUNT),
        // A replicated rotation always names its deadline; without one, keep the current.
        None => window.next_rotation_ms,
    };
    window.rotate(n, next);
    replicate_rotation(ctx, &args[1], n, next);
    Ok(count(window.filter.rotations()))
}

/// `SBF.WLOAD key bytes`: a windowed key from its value bytes (what the AOF rewrite emits;
/// `SBF.WDUMP` gives them). The key must not exist.
pub(super) fn wload_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    require_empty(ctx, &args[1])?;
    let window = Window::decode(args[2].as_slice())
        .map_err(|error| RedisError::String(format!("ERR {error}")))?;
    check_memory(ctx, window.filter.size_in_bytes() as u64)?;
    ctx.open_key_writable(&args[1])
        .set_value(&WINDOW_TYPE, window)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `SBF.WDUMP key`: the windowed key's value bytes, for `SBF.WLOAD` (rotated first when due).
pub(super) fn wdump_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    if matches!(ctx.open_key(&args[1]).key_type(), KeyType::Empty) {
        return Err(err(super::NOT_FOUND));
    }
    read_window(ctx, &args[1], |window| {
        RedisValue::StringBuffer(window.encode())
    })
    .ok_or(RedisError::WrongType)
}
