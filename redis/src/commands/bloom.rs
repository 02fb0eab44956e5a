//! The filter commands proper: `RESERVE`, `ADD`, `MADD`, `INSERT`, `EXISTS`, `MEXISTS`,
//! `CARD`, as RedisBloom 2.4 answers them.

use super::*;
use crate::bloom::insert::Refusal;

/// What `ADD`/`INSERT` create a missing key with.
struct Create {
    capacity: u64,
    error_rate: f64,
    expansion: u64,
    scaling: bool,
}

impl Create {
    fn defaults() -> Create {
        Create {
            capacity: crate::config::default_capacity(),
            error_rate: crate::config::default_error_rate(),
            expansion: crate::config::DEFAULT_EXPANSION,
            scaling: true,
        }
    }

    fn make(&self, ctx: &Context) -> Result<Sbf, RedisError> {
        let expansion = self.scaling.then_some(self.expansion);
        check_memory(
            ctx,
            Sbf::new_bytes(self.capacity, self.error_rate, expansion),
        )?;
        Sbf::new(self.capacity, self.error_rate, expansion)
            .map_err(|error| RedisError::String(format!("ERR could not create filter: {error}")))
    }
}

/// Whether each item was newly added, and the error that stopped the batch, if one did (the
/// items before it are in, as RedisBloom's).
fn add_all(
    ctx: &Context,
    sbf: &mut Sbf,
    items: &[RedisString],
) -> Result<(Vec<bool>, Option<&'static str>), RedisError> {
    if sbf.is_restoring() {
        return Err(err(RESTORING));
    }
    let mut hashes = Vec::with_capacity(items.len());
    sbf.hash_keys(items.iter().map(RedisString::as_slice), &mut hashes);
    let mut new = vec![false; hashes.len()];
    let mut may_allocate = |bytes| check_memory(ctx, bytes).is_ok();
    let stop = match sbf.insert_hashes(&hashes, &mut new, &mut may_allocate) {
        Ok(()) => None,
        Err((processed, refusal)) => {
            new.truncate(processed);
            Some(match refusal {
                Refusal::Full => FULL,
                Refusal::TooTight => TOO_TIGHT,
                Refusal::TooLarge => CANNOT_GROW,
                Refusal::NoMemory => NO_STAGE,
                Refusal::Restoring => RESTORING,
            })
        }
    };
    Ok((new, stop))
}

const TOO_TIGHT: &str = "ERR Maximum expansions reached: the next sub-filter's error rate needs more than 512 bits per item";
const CANNOT_GROW: &str = "ERR Maximum expansions reached: the next sub-filter's capacity is beyond what a filter can hold (lower EXPANSION)";

/// Adds `items` to `key`, creating it when missing (unless `create` is `None`); replicates the
/// command verbatim whenever it may have changed the key, or what it took when the limits
/// refused a new sub-filter ([`replicate_taken`]).
fn add_items(
    ctx: &Context,
    name: &RedisString,
    items: &[RedisString],
    create: Option<Create>,
) -> Result<(Vec<bool>, Option<&'static str>), RedisError> {
    if let Some(new) = window::add_to_window(ctx, name, items) {
        return Ok((new, None));
    }
    let key = ctx.open_key_writable(name);
    let (result, created) = match key.get_value::<Sbf>(&SBF_TYPE)? {
        Some(sbf) => (add_all(ctx, sbf, items)?, None),
        None => {
            let create = create.ok_or_else(|| err(NOT_FOUND))?;
            let mut sbf = create.make(ctx)?;
            let result = add_all(ctx, &mut sbf, items)?;
            key.set_value(&SBF_TYPE, sbf)?;
            (result, Some(create))
        }
    };
    if result.1 == Some(NO_STAGE) {
        replicate_taken(ctx, name, &items[..result.0.len()], created.as_ref());
    } else {
        ctx.replicate_verbatim();
    }
    Ok(result)
}

/// Replicates what an add took after the limits refused it a new sub-filter: a replica (and
/// the AOF) is never refused, so the command as sent would add there the sub-filter and the
/// items the primary did not. The items before the refusal, into a key made with this
/// command's parameters if it made it (the replica's module arguments may differ).
fn replicate_taken(
    ctx: &Context,
    name: &RedisString,
    taken: &[RedisString],
    created: Option<&Create>,
) {
    // A new filter's first item always fits, so a key this command made took one at least; a
    // key that existed and took nothing is unchanged.
    if taken.is_empty() {
        return;
    }
    let numbers = created.map(|create| {
        let expansion = create.scaling.then(|| create.expansion.to_string());
        (
            create.capacity.to_string(),
            create.error_rate.to_string(),
            expansion,
        )
    });
    let mut args: Vec<&[u8]> = vec![name.as_slice()];
    match &numbers {
        Some((capacity, error_rate, expansion)) => {
            args.extend([b"CAPACITY".as_slice(), capacity.as_bytes()]);
            args.extend([b"ERROR".as_slice(), error_rate.as_bytes()]);
            match expansion {
                Some(expansion) => args.extend([b"EXPANSION".as_slice(), expansion.as_bytes()]),
                None => args.push(b"NONSCALING"),
            }
        }
        None => args.push(b"NOCREATE"),
    }
    args.push(b"ITEMS");
    args.extend(taken.iter().map(RedisString::as_slice));
    ctx.replicate("SBF.INSERT", &args[..]);
}

/// `RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]`
pub(super) fn reserve_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if !(4..=7).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let (error_rate, capacity) = rate_and_capacity(&args[2], &args[3])?;
    let options = &args[4..];
    let scaling = !options.iter().any(|arg| is(arg, "NONSCALING"));
    let mut expansion = crate::config::DEFAULT_EXPANSION;
    let mut at = 0;
    while at < options.len() {
        if is(&options[at], "NONSCALING") {
            at += 1;
        } else if is(&options[at], "EXPANSION") {
            let value = options.get(at + 1).ok_or_else(|| err("ERR no expansion"))?;
            if !scaling {
                return Err(err("Nonscaling filters cannot expand"));
            }
            expansion = parse_i64(value)
                .and_then(|value| u64::try_from(value).ok())
                .filter(|&value| value >= 1)
                .ok_or_else(|| err("ERR bad expansion"))?;
            at += 2;
        } else {
            return Err(err(
                "ERR unknown argument (RESERVE takes EXPANSION e and NONSCALING)",
            ));
        }
    }
    let key = ctx.open_key_writable(&args[1]);
    if key.get_value::<Sbf>(&SBF_TYPE)?.is_some() {
        return Err(err("ERR item exists"));
    }
    let create = Create {
        capacity,
        error_rate,
        expansion,
        scaling,
    };
    key.set_value(&SBF_TYPE, create.make(ctx)?)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `ADD key item`
pub(super) fn add_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let (new, stop) = add_items(ctx, &args[1], &args[2..], Some(Create::defaults()))?;
    match stop {
        Some(message) => Err(err(message)),
        None => answer(ctx, new[0]),
    }
}

/// `MADD key item [item ...]`
pub(super) fn madd_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let (new, stop) = add_items(ctx, &args[1], &args[2..], Some(Create::defaults()))?;
    answers(ctx, &new, stop)
}

/// `INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item ...`
pub(super) fn insert_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut create = Create::defaults();
    let mut capacity = create.capacity as i64;
    let mut expansion = create.expansion as i64;
    let mut autocreate = true;
    let mut at = 2;
    let items_at = loop {
        let Some(option) = args.get(at) else {
            return Err(RedisError::WrongArity);
        };
        let value = || args.get(at + 1).ok_or(RedisError::WrongArity);
        if is(option, "ITEMS") {
            break at + 1;
        } else if is(option, "ERROR") {
            create.error_rate = parse_f64(value()?).ok_or_else(|| err("Bad error rate"))?;
            at += 2;
        } else if is(option, "EXPANSION") {
            expansion = parse_i64(value()?).ok_or_else(|| err("Bad expansion"))?;
            at += 2;
        } else if is(option, "CAPACITY") {
            capacity = parse_i64(value()?).ok_or_else(|| err("Bad capacity"))?;
            at += 2;
        } else if is(option, "NOCREATE") {
            autocreate = false;
            at += 1;
        } else if is(option, "NONSCALING") {
            create.scaling = false;
            at += 1;
        } else {
            return Err(err("Unknown argument received"));
        }
    };
    if items_at >= args.len() {
        return Err(RedisError::WrongArity);
    }
    if !(create.error_rate > 0.0 && create.error_rate < 1.0) || capacity < 1 || expansion < 1 {
        return Err(err("Bad argument received"));
    }
    create.capacity = capacity as u64;
    create.expansion = expansion as u64;
    let (new, stop) = add_items(
        ctx,
        &args[1],
        &args[items_at..],
        autocreate.then_some(create),
    )?;
    answers(ctx, &new, stop)
}

/// Answers for `items` in `key`: all 0 when the key is missing or holds another type, as
/// RedisBloom answers.
fn exists_items(ctx: &Context, key: &RedisString, items: &[RedisString]) -> Vec<bool> {
    let mut answers = vec![false; items.len()];
    let window = window::read_window(ctx, key, |window| {
        let keys: Vec<&[u8]> = items.iter().map(RedisString::as_slice).collect();
        window.filter.contains_bytes_batch(&keys, &mut answers)
    });
    if window.is_some() {
        return answers;
    }
    let key = ctx.open_key(key);
    if let Ok(Some(sbf)) = key.get_value::<Sbf>(&SBF_TYPE) {
        let mut hashes = Vec::with_capacity(items.len());
        sbf.hash_keys(items.iter().map(RedisString::as_slice), &mut hashes);
        sbf.contains_hash_batch(&hashes, &mut answers);
    }
    answers
}

/// `EXISTS key item`
pub(super) fn exists_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = exists_items(ctx, &args[1], &args[2..]);
    answer(ctx, answers[0])
}

/// `MEXISTS key item [item ...]`
pub(super) fn mexists_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    answers(ctx, &exists_items(ctx, &args[1], &args[2..]), None)
}

/// `CARD key`: 0 for a missing key.
pub(super) fn card_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    if let Some(items) = window::read_window(ctx, &args[1], |window| window.items) {
        return Ok(count(items));
    }
    let key = ctx.open_key(&args[1]);
    let items = key.get_value::<Sbf>(&SBF_TYPE)?.map_or(0, |sbf| sbf.items);
    Ok(count(items))
}
