//! The commands. `SBF.X` and `BF.X` share one handler, with RedisBloom 2.4's replies and error
//! strings (clients and their tests match them); only `INFO` differs: `BF.INFO` has exactly
//! RedisBloom's five fields, `SBF.INFO` adds the filter's own.

use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};
use splitbloom::FilterHasher;

use crate::bloom::chain::Chain;
use crate::bloom::stage::{Part, layout_for_rate};
use crate::bloom::{Body, Meta, Restore, Sbf};
use crate::memory::check_memory;
use crate::{Hash, SBF_TYPE};

mod merge;
mod transfer;
mod window;

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

/// Public handlers: each maps the module crate's WRONGTYPE to Redis's.
macro_rules! handlers {
    ($($name:ident => $inner:ident),* $(,)?) => {
        $(
            pub fn $name(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
                let keys = args.get(1..).unwrap_or(&[]).to_vec();
                redis_errors(ctx, &keys, $inner(ctx, args))
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

fn is(arg: &RedisString, word: &str) -> bool {
    arg.as_slice().eq_ignore_ascii_case(word.as_bytes())
}

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
        let cannot = |error| RedisError::String(format!("ERR could not create filter: {error}"));
        if self.scaling {
            check_memory(
                ctx,
                Part::bytes_for(
                    layout_for_rate(self.error_rate),
                    usize::try_from(self.capacity).unwrap_or(usize::MAX),
                    self.error_rate * crate::bloom::TIGHTENING_RATIO,
                ),
            )?;
            Sbf::chain(self.capacity, self.error_rate, self.expansion, true).map_err(cannot)
        } else {
            check_memory(ctx, Part::bytes_for_rate(self.capacity, self.error_rate))?;
            Sbf::nonscaling(self.capacity, self.error_rate).map_err(cannot)
        }
    }
}

/// Whether each item was newly added, and the error that stopped the batch, if one did (the
/// items before it are in, as RedisBloom's).
fn add_all(
    ctx: &Context,
    sbf: &mut Sbf,
    items: &[RedisString],
) -> Result<(Vec<bool>, Option<&'static str>), RedisError> {
    let scaling = sbf.scaling;
    match &mut sbf.body {
        Body::Restoring(_) => Err(err(RESTORING)),
        Body::Plain(part) => {
            // A plain filter of known capacity is a NONSCALING one: full at its capacity.
            // Loaded without a capacity (0), it never refuses an item: it only fills up.
            let full_at = (sbf.capacity > 0).then_some(sbf.capacity);
            let filter = part.bits_mut();
            let hashes: Vec<u64> = items
                .iter()
                .map(|item| filter.hash_bytes(item.as_slice()))
                .collect();
            // One batch lookup first: it overlaps the cache misses, and the inserts below then
            // find their blocks in cache.
            let mut present = vec![false; hashes.len()];
            filter.contains_hash_batch(&hashes, &mut present);
            let mut new = Vec::with_capacity(hashes.len());
            let mut stop = None;
            for (&hash, &present) in hashes.iter().zip(&present) {
                if present {
                    new.push(false);
                    continue;
                }
                if full_at.is_some_and(|capacity| sbf.items >= capacity)
                    && !filter.contains_hash(hash)
                {
                    stop = Some(FULL);
                    break;
                }
                let added = filter.insert_hash(hash);
                sbf.items += u64::from(added);
                new.push(added);
            }
            Ok((new, stop))
        }
        Body::Chain(chain) => {
            let hashes: Vec<u64> = items
                .iter()
                .map(|item| chain.hash_bytes(item.as_slice()))
                .collect();
            // One batch lookup first: it overlaps the cache misses, and the inserts below then
            // find their blocks in cache.
            let mut present = vec![false; hashes.len()];
            chain.contains_hash_batch(&hashes, &mut present);
            let mut new = Vec::with_capacity(hashes.len());
            let mut stop = None;
            for (&hash, &present) in hashes.iter().zip(&present) {
                if present {
                    new.push(false);
                    continue;
                }
                if chain.is_full() && !chain.contains_hash(hash) {
                    if !scaling {
                        stop = Some(FULL);
                        break;
                    }
                    let (capacity, bytes) = chain.next_stage();
                    // Error rates halve with every sub-filter; past some point a split-block
                    // filter reaches them only with absurd sizes (a classic filter needs 512
                    // bits per item only below 1e-100).
                    if bytes > (64 * capacity).max(64 << 10) {
                        stop = Some(TOO_TIGHT);
                        break;
                    }
                    if check_memory(ctx, bytes).is_err() {
                        stop = Some(NO_STAGE);
                        break;
                    }
                }
                match chain.insert_hash(hash) {
                    Ok(added) => new.push(added),
                    Err(_) => {
                        stop = Some(NO_STAGE);
                        break;
                    }
                }
            }
            sbf.items += new.iter().filter(|&&new| new).count() as u64;
            Ok((new, stop))
        }
    }
}

const TOO_TIGHT: &str = "ERR Maximum expansions reached: the next sub-filter's error rate needs more than 512 bits per item";

/// Adds `items` to `key`, creating it when missing (unless `create` is `None`); replicates the
/// command verbatim whenever it may have changed the key.
fn add_items(
    ctx: &Context,
    key: &RedisString,
    items: &[RedisString],
    create: Option<Create>,
) -> Result<(Vec<bool>, Option<&'static str>), RedisError> {
    if let Some(new) = window::add_to_window(ctx, key, items) {
        return Ok((new, None));
    }
    let key = ctx.open_key_writable(key);
    let result = match key.get_value::<Sbf>(&SBF_TYPE)? {
        Some(sbf) => add_all(ctx, sbf, items)?,
        None => {
            let mut sbf = create.ok_or_else(|| err(NOT_FOUND))?.make(ctx)?;
            let result = add_all(ctx, &mut sbf, items)?;
            key.set_value(&SBF_TYPE, sbf)?;
            result
        }
    };
    ctx.replicate_verbatim();
    Ok(result)
}

/// An array of 0/1 answers, ending with the error that stopped the batch.
fn answers(new: &[bool], stop: Option<&'static str>) -> RedisValue {
    let mut out: Vec<RedisValue> = new
        .iter()
        .map(|&answer| RedisValue::Integer(i64::from(answer)))
        .collect();
    if let Some(message) = stop {
        out.push(RedisValue::StaticError(message));
    }
    RedisValue::Array(out)
}

/// `RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]`
fn reserve_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if !(4..=7).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let error_rate = parse_f64(&args[2]).ok_or_else(|| err("ERR bad error rate"))?;
    if !(error_rate > 0.0 && error_rate < 1.0) {
        return Err(err("ERR (0 < error rate range < 1) "));
    }
    let capacity = parse_i64(&args[3]).ok_or_else(|| err("ERR bad capacity"))?;
    if capacity <= 0 {
        return Err(err("ERR (capacity should be larger than 0)"));
    }
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
        capacity: capacity as u64,
        error_rate,
        expansion,
        scaling,
    };
    key.set_value(&SBF_TYPE, create.make(ctx)?)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `ADD key item`
fn add_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let (new, stop) = add_items(ctx, &args[1], &args[2..], Some(Create::defaults()))?;
    match stop {
        Some(message) => Err(err(message)),
        None => Ok(RedisValue::Integer(i64::from(new[0]))),
    }
}

/// `MADD key item [item ...]`
fn madd_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let (new, stop) = add_items(ctx, &args[1], &args[2..], Some(Create::defaults()))?;
    Ok(answers(&new, stop))
}

/// `INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item ...`
fn insert_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
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
    Ok(answers(&new, stop))
}

/// Answers for `items` in `key`: all 0 when the key is missing or holds another type, as
/// RedisBloom answers.
fn exists_items(ctx: &Context, key: &RedisString, items: &[RedisString]) -> Vec<bool> {
    let mut answers = vec![false; items.len()];
    let keys: Vec<&[u8]> = items.iter().map(RedisString::as_slice).collect();
    let window = window::read_window(ctx, key, |window| {
        window.filter.contains_bytes_batch(&keys, &mut answers)
    });
    if window.is_some() {
        return answers;
    }
    let key = ctx.open_key(key);
    if let Ok(Some(sbf)) = key.get_value::<Sbf>(&SBF_TYPE) {
        match &sbf.body {
            Body::Chain(chain) => chain.contains_bytes_batch(&keys, &mut answers),
            Body::Plain(part) => part.bits().contains_bytes_batch(&keys, &mut answers),
            // Nothing answers before a restore completes.
            Body::Restoring(_) => {}
        }
    }
    answers
}

/// `EXISTS key item`
fn exists_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = exists_items(ctx, &args[1], &args[2..]);
    Ok(RedisValue::Integer(i64::from(answers[0])))
}

/// `MEXISTS key item [item ...]`
fn mexists_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    Ok(answers(&exists_items(ctx, &args[1], &args[2..]), None))
}

/// RedisBloom's five `INFO` fields, in order: capacity (every sub-filter's), size (`MEMORY
/// USAGE`), number of filters, items inserted, expansion (nil when the filter never scales).
fn five_fields(sbf: &Sbf) -> [(&'static str, RedisValue); 5] {
    let meta = sbf.meta();
    let (capacity, filters, expansion) = if meta.plain {
        (sbf.capacity, 1, None)
    } else {
        let stages = meta.stage_blocks.len();
        let capacity: u64 = (0..stages)
            .map(|stage| meta.parameters.stage_capacity(stage) as u64)
            .sum();
        let expansion = sbf.scaling.then_some(meta.parameters.growth_factor as u64);
        (capacity, stages, expansion)
    };
    [
        ("Capacity", RedisValue::Integer(capacity as i64)),
        ("Size", RedisValue::Integer(sbf.memory() as i64)),
        ("Number of filters", RedisValue::Integer(filters as i64)),
        (
            "Number of items inserted",
            RedisValue::Integer(sbf.items as i64),
        ),
        (
            "Expansion rate",
            expansion.map_or(RedisValue::Null, |value| RedisValue::Integer(value as i64)),
        ),
    ]
}

/// `INFO key [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION]` and, for `SBF.INFO`, the extra fields.
fn info_common(ctx: &Context, args: Vec<RedisString>, extra: bool) -> RedisResult {
    if !(2..=3).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let window = window::read_window(ctx, &args[1], |window| {
        let extras = if extra {
            window::extra_fields(window)
        } else {
            Vec::new()
        };
        (window::five_fields(window), extras)
    });
    let key = ctx.open_key(&args[1]);
    let (fields, window_extras) = match window {
        Some((fields, extras)) => (fields, Some(extras)),
        None => (
            five_fields(
                key.get_value::<Sbf>(&SBF_TYPE)?
                    .ok_or_else(|| err(NOT_FOUND))?,
            ),
            None,
        ),
    };
    if let Some(field) = args.get(2) {
        let index = ["CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION"]
            .iter()
            .position(|name| is(field, name))
            .ok_or_else(|| err("Invalid information value"))?;
        let [a, b, c, d, e] = fields;
        let value = [a, b, c, d, e].into_iter().nth(index).unwrap().1;
        return Ok(RedisValue::Array(vec![value]));
    }
    let name = |name: &str| RedisValue::SimpleString(name.to_owned());
    let mut out = Vec::new();
    for (field, value) in fields {
        out.push(name(field));
        out.push(value);
    }
    if let Some(extras) = window_extras {
        for (field, value) in extras {
            out.push(name(field));
            out.push(value);
        }
        return Ok(RedisValue::Array(out));
    }
    if extra {
        let sbf = key
            .get_value::<Sbf>(&SBF_TYPE)?
            .ok_or_else(|| err(NOT_FOUND))?;
        let stages = sbf.stages();
        let blocks: usize = stages.iter().map(|stage| stage.num_blocks()).sum();
        let bytes: usize = stages.iter().map(|stage| stage.size_in_bytes()).sum();
        let estimated: f64 = stages.iter().map(|stage| stage.estimated_items()).sum();
        let fpr = 1.0
            - stages
                .iter()
                .map(|stage| 1.0 - stage.estimated_fpr())
                .product::<f64>();
        let fill = if bytes == 0 {
            0.0
        } else {
            stages
                .iter()
                .map(|stage| stage.fill_ratio() * stage.size_in_bytes() as f64)
                .sum::<f64>()
                / bytes as f64
        };
        let seed = stages.first().map_or(0, |stage| stage.seed());
        let kernel = stages
            .first()
            .map_or_else(String::new, |stage| stage.kernel().to_string());
        let extras = [
            (
                "Error rate",
                RedisValue::BulkString(sbf.error_rate.to_string()),
            ),
            ("Blocks", RedisValue::Integer(blocks as i64)),
            ("Bytes", RedisValue::Integer(bytes as i64)),
            (
                "Estimated items",
                RedisValue::Integer(if estimated.is_finite() {
                    estimated.round() as i64
                } else {
                    0
                }),
            ),
            (
                "Estimated FPR",
                RedisValue::BulkString(format!("{fpr:.6e}")),
            ),
            ("Fill ratio", RedisValue::BulkString(format!("{fill:.6}"))),
            (
                "Hasher",
                RedisValue::BulkString(format!("{:?}", Hash::KIND)),
            ),
            ("Seed", RedisValue::Integer(seed as i64)),
            ("Kernel", RedisValue::BulkString(kernel)),
        ];
        for (field, value) in extras {
            out.push(name(field));
            out.push(value);
        }
        let meta = sbf.meta();
        out.push(name("Layout"));
        out.push(RedisValue::BulkString(meta.layout.name().to_owned()));
        // A chain's newest stage: the one new keys go into (older ones may have fewer).
        if let (splitbloom::Layout::Wide, Some(&probes)) = (meta.layout, meta.stage_probes.last()) {
            out.push(name("Probes"));
            out.push(RedisValue::Integer(i64::from(probes)));
        }
    }
    Ok(RedisValue::Array(out))
}

fn bf_info_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    info_common(ctx, args, false)
}

fn sbf_info_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    info_common(ctx, args, true)
}

/// `CARD key`: 0 for a missing key.
fn card_(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    if let Some(items) = window::read_window(ctx, &args[1], |window| window.items) {
        return Ok(RedisValue::Integer(items as i64));
    }
    let key = ctx.open_key(&args[1]);
    let items = key.get_value::<Sbf>(&SBF_TYPE)?.map_or(0, |sbf| sbf.items);
    Ok(RedisValue::Integer(items as i64))
}
