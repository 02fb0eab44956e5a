//! splitbloom as a Redis module: a `SBFfilter` data type holding a [`splitbloom::Filter`] and
//! the `SBF.*` commands, which mirror RedisBloom's `BF.*` (see the README's "Redis" section for
//! the mapping and every difference).
//!
//! Load it with `redis-server --loadmodule target/release/libsplitbloom_redis.so`; it needs
//! Redis 7.0 or later.
//!
//! Memory: the module's global allocator is the system allocator, not Redis's, because Redis's
//! (`RedisModule_Alloc`) aborts the whole server when an allocation fails, and a filter's size is
//! chosen by a client. A capacity whose memory cannot be had therefore gets an error reply. The
//! cost: filter memory is not in `INFO memory`'s `used_memory` (so `maxmemory` does not see it);
//! `MEMORY USAGE key` does report it. Since an operating system that overcommits grants almost
//! any size (and the first `SBF.DUMP` or save would then touch it all), commands that create a
//! filter also refuse one above `MAX_FILTER_BYTES` (a module argument, default 4 GiB:
//! `--loadmodule libsplitbloom_redis.so MAX_FILTER_BYTES 17179869184`).

use std::collections::HashSet;
use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};

use redis_module::native_types::RedisType;
use redis_module::{
    Context, RedisError, RedisResult, RedisString, RedisValue, Status, raw, redis_module,
};
use splitbloom::{Filter, FilterHasher, Xxh3};

/// The filter type every key holds: the crate's default hasher, XXH3 (hasher id 4, `Xxh3`), any
/// seed (the default seed unless `SBF.LOAD` brought another one). One hasher for every key,
/// because a key's type cannot say which hasher its bytes use.
type Bloom = Filter<Xxh3>;

/// RedisBloom's defaults when `ADD`/`MADD`/`INSERT` create a filter.
const DEFAULT_ERROR_RATE: f64 = 0.01;
const DEFAULT_CAPACITY: u64 = 100;

/// The RDB encoding this module writes; `rdb_load` refuses any other.
const ENCODING_VERSION: c_int = 1;

/// The largest filter (bitset bytes) a command may create; set by the `MAX_FILTER_BYTES` module
/// argument.
static MAX_FILTER_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILTER_BYTES);
const DEFAULT_MAX_FILTER_BYTES: u64 = 4 << 30;

/// Refuses filters of more than `MAX_FILTER_BYTES`.
fn check_size(num_blocks: usize) -> Result<(), RedisError> {
    let bytes = num_blocks as u64 * splitbloom::BLOCK_BYTES as u64;
    let max = MAX_FILTER_BYTES.load(Ordering::Relaxed);
    if bytes > max {
        return Err(err(&format!(
            "cannot create filter: {bytes} bytes is above MAX_FILTER_BYTES ({max})"
        )));
    }
    Ok(())
}

/// One key's value.
struct Sbf {
    filter: Bloom,
    /// The capacity the filter was sized for; 0 when unknown (bytes loaded without it).
    capacity: u64,
    /// The target false-positive rate at `capacity`; 0 when unknown.
    error_rate: f64,
    /// Items added that were not present before, like RedisBloom's counter; after `MERGE` or a
    /// bare `LOAD`, the filter's estimate.
    items: u64,
}

impl Sbf {
    fn new(capacity: u64, error_rate: f64) -> Result<Sbf, RedisError> {
        let cannot = |error: splitbloom::Error| err(&format!("cannot create filter: {error}"));
        // Sizes are usize in the crate; a capacity beyond it is refused as too large.
        let items = usize::try_from(capacity).unwrap_or(usize::MAX);
        check_size(splitbloom::math::num_blocks_for_fpr(items, error_rate).map_err(cannot)?)?;
        let filter =
            Bloom::with_fpr_and_hasher(items, error_rate, Xxh3::default()).map_err(cannot)?;
        Ok(Sbf {
            filter,
            capacity,
            error_rate,
            items: 0,
        })
    }

    fn estimated_items(&self) -> u64 {
        let estimate = self.filter.estimated_items();
        if estimate.is_finite() && estimate > 0.0 {
            estimate.round() as u64
        } else {
            0
        }
    }

    /// Adds `items` through the pre-hashed batch path; `out[i]` is whether item `i` was new: its
    /// bits were not all set before this call and no earlier item of the call had its hash.
    fn add_all(&mut self, items: &[RedisString]) -> Vec<bool> {
        let hashes: Vec<u64> = items
            .iter()
            .map(|item| self.filter.hash_bytes(item.as_slice()))
            .collect();
        let mut present = vec![false; hashes.len()];
        self.filter.contains_hash_batch(&hashes, &mut present);
        self.filter.insert_hash_batch(&hashes);
        let mut seen = HashSet::new();
        let new: Vec<bool> = hashes
            .iter()
            .zip(&present)
            .map(|(&hash, &present)| !present && seen.insert(hash))
            .collect();
        self.items += new.iter().filter(|&&new| new).count() as u64;
        new
    }
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
        copy: None,
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// RDB encoding 1: capacity (unsigned), error rate (double), items (unsigned), then the crate's
/// own format (`Filter::to_bytes`: versioned, checksummed) as one string.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module (`set_value::<Sbf>`
/// or [`rdb_load`]), not yet freed.
unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value this module created with `set_value::<Sbf>`.
    let sbf = unsafe { &*value.cast::<Sbf>() };
    raw::save_unsigned(rdb, sbf.capacity);
    raw::save_double(rdb, sbf.error_rate);
    raw::save_unsigned(rdb, sbf.items);
    raw::save_slice(rdb, &sbf.filter.to_bytes());
}

/// Reads a value saved by [`rdb_save`]; a null pointer (Redis then refuses the RDB) for an
/// unknown encoding version or a filter that does not validate.
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
    let capacity = raw::load_unsigned(rdb).map_err(io)?;
    let error_rate = raw::load_double(rdb).map_err(io)?;
    let items = raw::load_unsigned(rdb).map_err(io)?;
    let bytes = raw::load_string_buffer(rdb).map_err(io)?;
    let filter = Bloom::from_bytes_with_hasher_type(bytes.as_ref())
        .map_err(|error| format!("bad filter in RDB: {error}"))?;
    Ok(Sbf {
        filter,
        capacity,
        error_rate,
        items,
    })
}

/// Rewrites a key as one `SBF.LOAD key bytes CAPACITY c ERROR e CARD n`.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module (`set_value::<Sbf>`
/// or [`rdb_load`]), not yet freed.
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value this module created with `set_value::<Sbf>`.
    let sbf = unsafe { &*value.cast::<Sbf>() };
    let bytes = sbf.filter.to_bytes();
    let capacity = sbf.capacity.to_string();
    let error_rate = sbf.error_rate.to_string();
    let items = sbf.items.to_string();
    // SAFETY: Redis set the API pointers before calling any type method; the format "sbcbcbcb"
    // matches the arguments: `s` a RedisModuleString (the key Redis gave us), each `c` a
    // NUL-terminated C string, each `b` a pointer and its length.
    unsafe {
        let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
        emit(
            aof,
            c"SBF.LOAD".as_ptr(),
            c"sbcbcbcb".as_ptr(),
            key,
            bytes.as_ptr(),
            bytes.len(),
            c"CAPACITY".as_ptr(),
            capacity.as_ptr(),
            capacity.len(),
            c"ERROR".as_ptr(),
            error_rate.as_ptr(),
            error_rate.len(),
            c"CARD".as_ptr(),
            items.as_ptr(),
            items.len(),
        );
    }
}

/// Frees a value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new` in `set_value`/`rdb_load`.
    drop(unsafe { Box::from_raw(value.cast::<Sbf>()) });
}

/// `MEMORY USAGE`: the value's struct and its bitset.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module (`set_value::<Sbf>`
/// or [`rdb_load`]), not yet freed.
unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value this module created with `set_value::<Sbf>`.
    let sbf = unsafe { &*value.cast::<Sbf>() };
    size_of::<Sbf>() + sbf.filter.size_in_bytes()
}

/// Redis's own WRONGTYPE error for keys of other types: redis-module 2.0.7 says only "Existing
/// key has wrong Redis type", without the `WRONGTYPE` code clients look for.
fn redis_errors(result: RedisResult) -> RedisResult {
    const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
    result.map_err(|error| match error {
        RedisError::WrongType => RedisError::Str(WRONGTYPE),
        RedisError::Str(message) if message.contains("wrong Redis type") => {
            RedisError::Str(WRONGTYPE)
        }
        error => error,
    })
}

fn err(message: &str) -> RedisError {
    RedisError::String(format!("ERR {message}"))
}

/// An error rate strictly between 0 and 1.
fn parse_error_rate(arg: &RedisString) -> Result<f64, RedisError> {
    arg.try_as_str()
        .ok()
        .and_then(|text| text.parse::<f64>().ok())
        .filter(|rate| rate.is_finite() && *rate > 0.0 && *rate < 1.0)
        .ok_or_else(|| err("bad error rate (must be a number strictly between 0 and 1)"))
}

/// A capacity of at least 1.
fn parse_capacity(arg: &RedisString) -> Result<u64, RedisError> {
    arg.try_as_str()
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .filter(|&capacity| capacity >= 1)
        .ok_or_else(|| err("bad capacity (must be an integer of at least 1)"))
}

fn ints(answers: &[bool]) -> RedisValue {
    RedisValue::Array(
        answers
            .iter()
            .map(|&answer| RedisValue::Integer(i64::from(answer)))
            .collect(),
    )
}

/// Adds `items` to `key`, creating it with `capacity`/`error_rate` when missing (unless
/// `create` is false); replicates the command verbatim.
fn add_items(
    ctx: &Context,
    key: &RedisString,
    items: &[RedisString],
    create: Option<(u64, f64)>,
) -> Result<Vec<bool>, RedisError> {
    let key = ctx.open_key_writable(key);
    let answers = match key.get_value::<Sbf>(&SBF_TYPE)? {
        Some(sbf) => sbf.add_all(items),
        None => {
            let (capacity, error_rate) = create.ok_or_else(|| err("not found"))?;
            let mut sbf = Sbf::new(capacity, error_rate)?;
            let answers = sbf.add_all(items);
            key.set_value(&SBF_TYPE, sbf)?;
            answers
        }
    };
    ctx.replicate_verbatim();
    Ok(answers)
}

/// `SBF.RESERVE key error_rate capacity [NONSCALING]`
fn reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if !(4..=5).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let error_rate = parse_error_rate(&args[2])?;
    let capacity = parse_capacity(&args[3])?;
    if let Some(option) = args.get(4)
        && !option.as_slice().eq_ignore_ascii_case(b"NONSCALING")
    {
        return Err(err(
            "unknown option (splitbloom filters never scale; EXPANSION is not supported)",
        ));
    }
    let key = ctx.open_key_writable(&args[1]);
    if key.get_value::<Sbf>(&SBF_TYPE)?.is_some() {
        return Err(err("item exists"));
    }
    key.set_value(&SBF_TYPE, Sbf::new(capacity, error_rate)?)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `SBF.ADD key item`
fn add(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = add_items(
        ctx,
        &args[1],
        &args[2..],
        Some((DEFAULT_CAPACITY, DEFAULT_ERROR_RATE)),
    )?;
    Ok(RedisValue::Integer(i64::from(answers[0])))
}

/// `SBF.MADD key item [item ...]`
fn madd(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = add_items(
        ctx,
        &args[1],
        &args[2..],
        Some((DEFAULT_CAPACITY, DEFAULT_ERROR_RATE)),
    )?;
    Ok(ints(&answers))
}

/// `SBF.INSERT key [CAPACITY c] [ERROR e] [NOCREATE] [NONSCALING] ITEMS item [item ...]`
fn insert(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut capacity = DEFAULT_CAPACITY;
    let mut error_rate = DEFAULT_ERROR_RATE;
    let mut create = true;
    let mut at = 2;
    let items_at = loop {
        let Some(option) = args.get(at) else {
            return Err(err("ITEMS is missing"));
        };
        let option = option.as_slice().to_ascii_uppercase();
        match option.as_slice() {
            b"CAPACITY" => {
                capacity = parse_capacity(args.get(at + 1).ok_or(RedisError::WrongArity)?)?;
                at += 2;
            }
            b"ERROR" => {
                error_rate = parse_error_rate(args.get(at + 1).ok_or(RedisError::WrongArity)?)?;
                at += 2;
            }
            b"NOCREATE" => {
                create = false;
                at += 1;
            }
            b"NONSCALING" => at += 1,
            b"ITEMS" => break at + 1,
            b"EXPANSION" => {
                return Err(err(
                    "EXPANSION is not supported: splitbloom filters never scale",
                ));
            }
            _ => return Err(err("unknown option")),
        }
    };
    if items_at >= args.len() {
        return Err(RedisError::WrongArity);
    }
    if !create
        && (args[2..items_at].iter()).any(|arg| {
            arg.as_slice().eq_ignore_ascii_case(b"CAPACITY")
                || arg.as_slice().eq_ignore_ascii_case(b"ERROR")
        })
    {
        return Err(err("NOCREATE cannot be combined with CAPACITY or ERROR"));
    }
    let answers = add_items(
        ctx,
        &args[1],
        &args[items_at..],
        create.then_some((capacity, error_rate)),
    )?;
    Ok(ints(&answers))
}

/// Answers for `items` in `key`: all false when the key is missing.
fn exists_items(
    ctx: &Context,
    key: &RedisString,
    items: &[RedisString],
) -> Result<Vec<bool>, RedisError> {
    let key = ctx.open_key(key);
    let mut answers = vec![false; items.len()];
    if let Some(sbf) = key.get_value::<Sbf>(&SBF_TYPE)? {
        let keys: Vec<&[u8]> = items.iter().map(RedisString::as_slice).collect();
        sbf.filter.contains_bytes_batch(&keys, &mut answers);
    }
    Ok(answers)
}

/// `SBF.EXISTS key item`
fn exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = exists_items(ctx, &args[1], &args[2..])?;
    Ok(RedisValue::Integer(i64::from(answers[0])))
}

/// `SBF.MEXISTS key item [item ...]`
fn mexists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    Ok(ints(&exists_items(ctx, &args[1], &args[2..])?))
}

/// `SBF.INFO key [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION]`
fn info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if !(2..=3).contains(&args.len()) {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let sbf = key
        .get_value::<Sbf>(&SBF_TYPE)?
        .ok_or_else(|| err("not found"))?;
    let size = (size_of::<Sbf>() + sbf.filter.size_in_bytes()) as i64;
    if let Some(field) = args.get(2) {
        let value = match field.as_slice().to_ascii_uppercase().as_slice() {
            b"CAPACITY" => sbf.capacity as i64,
            b"SIZE" => size,
            b"FILTERS" => 1,
            b"ITEMS" => sbf.items as i64,
            b"EXPANSION" => return Ok(RedisValue::Null),
            _ => return Err(err("invalid information value")),
        };
        return Ok(RedisValue::Array(vec![RedisValue::Integer(value)]));
    }
    let field = |name: &str| RedisValue::SimpleString(name.to_owned());
    let hasher = sbf.filter.hasher();
    Ok(RedisValue::Array(vec![
        field("Capacity"),
        RedisValue::Integer(sbf.capacity as i64),
        field("Size"),
        RedisValue::Integer(size),
        field("Number of filters"),
        RedisValue::Integer(1),
        field("Number of items inserted"),
        RedisValue::Integer(sbf.items as i64),
        field("Expansion rate"),
        RedisValue::Null,
        field("Error rate"),
        RedisValue::BulkString(sbf.error_rate.to_string()),
        field("Blocks"),
        RedisValue::Integer(sbf.filter.num_blocks() as i64),
        field("Bytes"),
        RedisValue::Integer(sbf.filter.size_in_bytes() as i64),
        field("Estimated items"),
        RedisValue::Integer(sbf.estimated_items() as i64),
        field("Estimated FPR"),
        RedisValue::BulkString(format!("{:.6e}", sbf.filter.estimated_fpr())),
        field("Fill ratio"),
        RedisValue::BulkString(format!("{:.6}", sbf.filter.fill_ratio())),
        field("Hasher"),
        RedisValue::BulkString(format!("{:?}", Xxh3::KIND)),
        field("Seed"),
        RedisValue::Integer(hasher.seed() as i64),
        field("Kernel"),
        RedisValue::BulkString(sbf.filter.kernel().to_string()),
    ]))
}

/// `SBF.CARD key`
fn card(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let items = key.get_value::<Sbf>(&SBF_TYPE)?.map_or(0, |sbf| sbf.items);
    Ok(RedisValue::Integer(items as i64))
}

/// `SBF.MERGE dest src [src ...]`: `dest` becomes the union of itself (when present) and every
/// source. Every source is checked before `dest` changes.
fn merge(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let dest_name = &args[1];
    let dest = ctx.open_key_writable(dest_name);
    let dest_value = dest.get_value::<Sbf>(&SBF_TYPE)?;
    // A source named like `dest` adds nothing (and must not be borrowed twice).
    let source_keys: Vec<_> = args[2..]
        .iter()
        .filter(|name| name.as_slice() != dest_name.as_slice())
        .map(|name| ctx.open_key(name))
        .collect();
    let mut sources = Vec::with_capacity(source_keys.len());
    for key in &source_keys {
        sources.push(
            key.get_value::<Sbf>(&SBF_TYPE)?
                .ok_or_else(|| err("source not found"))?,
        );
    }
    let reference = match (&dest_value, sources.first()) {
        (Some(dest), _) => &dest.filter,
        (None, Some(first)) => &first.filter,
        (None, None) => return Err(err("source not found")),
    };
    for source in &sources {
        if source.filter.num_blocks() != reference.num_blocks() {
            return Err(err(&format!(
                "filters differ in size ({} and {} blocks)",
                reference.num_blocks(),
                source.filter.num_blocks()
            )));
        }
        if source.filter.hasher() != reference.hasher() {
            return Err(err("filters differ in hasher (seed)"));
        }
    }
    let union = |target: &mut Sbf| -> Result<(), RedisError> {
        for source in &sources {
            target
                .filter
                .union(&source.filter)
                .map_err(|error| err(&error.to_string()))?;
        }
        target.items = target.estimated_items();
        Ok(())
    };
    match dest_value {
        Some(target) => union(target)?,
        None => {
            let first = sources[0];
            check_size(first.filter.num_blocks())?;
            let filter = Bloom::with_num_blocks_and_hasher(
                first.filter.num_blocks(),
                *first.filter.hasher(),
            )
            .map_err(|error| err(&format!("cannot create filter: {error}")))?;
            let mut target = Sbf {
                filter,
                capacity: first.capacity,
                error_rate: first.error_rate,
                items: 0,
            };
            union(&mut target)?;
            dest.set_value(&SBF_TYPE, target)?;
        }
    }
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `SBF.DUMP key`: the crate's format, as `Filter::to_bytes` writes it.
fn dump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let sbf = key
        .get_value::<Sbf>(&SBF_TYPE)?
        .ok_or_else(|| err("not found"))?;
    Ok(RedisValue::StringBuffer(sbf.filter.to_bytes()))
}

/// `SBF.LOAD key bytes [CAPACITY c] [ERROR e] [CARD n]`: validates `bytes` (magic, version,
/// hasher, length, checksum) and stores them at `key`, replacing a filter there.
fn load(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return Err(RedisError::WrongArity);
    }
    let mut capacity = None;
    let mut error_rate = None;
    let mut items = None;
    for pair in args[3..].chunks(2) {
        match pair[0].as_slice().to_ascii_uppercase().as_slice() {
            // 0 is "unknown", as INFO reports it for filters loaded without it.
            b"CAPACITY" if pair[1].as_slice() == b"0" => capacity = Some(0),
            b"CAPACITY" => capacity = Some(parse_capacity(&pair[1])?),
            b"ERROR" => {
                // 0 is "unknown", as INFO reports it for filters loaded without it.
                error_rate = Some(if pair[1].as_slice() == b"0" {
                    0.0
                } else {
                    parse_error_rate(&pair[1])?
                });
            }
            b"CARD" => {
                items = Some(
                    pair[1]
                        .try_as_str()
                        .ok()
                        .and_then(|text| text.parse::<u64>().ok())
                        .ok_or_else(|| err("bad CARD (must be a non-negative integer)"))?,
                );
            }
            _ => return Err(err("unknown option")),
        }
    }
    let key = ctx.open_key_writable(&args[1]);
    // WRONGTYPE before the (possibly long) validation.
    key.get_value::<Sbf>(&SBF_TYPE)?;
    let filter = Bloom::from_bytes_with_hasher_type(args[2].as_slice()).map_err(|error| match error {
        // The crate's message tells a Rust caller which type to name; a Redis user needs to
        // know which hasher the module takes (see `Bloom`).
        splitbloom::Error::HasherKindMismatch { found, .. } => err(&format!(
            "bad filter bytes: the filter uses hasher id {} ({found:?}), and this module stores Xxh3 (hasher id 4) filters: build it with splitbloom::Xxh3 or `splitbloom build --hasher xxh3`",
            found.id()
        )),
        error => err(&format!("bad filter bytes: {error}")),
    })?;
    let mut sbf = Sbf {
        filter,
        capacity: capacity.unwrap_or(0),
        error_rate: error_rate.unwrap_or(0.0),
        items: 0,
    };
    sbf.items = items.unwrap_or_else(|| sbf.estimated_items());
    key.set_value(&SBF_TYPE, sbf)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// Module arguments: `[MAX_FILTER_BYTES n]`.
fn init(ctx: &Context, args: &[RedisString]) -> Status {
    // `rdb_load` checks every read, so a truncated RDB is an error, not a crash.
    ctx.set_module_options(redis_module::ModuleOptions::HANDLE_IO_ERRORS);
    match args {
        [] => Status::Ok,
        [name, value] if name.as_slice().eq_ignore_ascii_case(b"MAX_FILTER_BYTES") => {
            match value
                .try_as_str()
                .ok()
                .and_then(|text| text.parse::<u64>().ok())
            {
                Some(max) => {
                    MAX_FILTER_BYTES.store(max, Ordering::Relaxed);
                    Status::Ok
                }
                None => {
                    ctx.log_warning("splitbloom: MAX_FILTER_BYTES must be a byte count");
                    Status::Err
                }
            }
        }
        _ => {
            ctx.log_warning("splitbloom: the only module argument is MAX_FILTER_BYTES n");
            Status::Err
        }
    }
}

redis_module! {
    name: "splitbloom",
    version: 1,
    allocator: (std::alloc::System, std::alloc::System),
    data_types: [SBF_TYPE],
    init: init,
    commands: [
        ["SBF.RESERVE", |ctx, args| redis_errors(reserve(ctx, args)), "write deny-oom", 1, 1, 1],
        ["SBF.ADD", |ctx, args| redis_errors(add(ctx, args)), "write deny-oom", 1, 1, 1],
        ["SBF.MADD", |ctx, args| redis_errors(madd(ctx, args)), "write deny-oom", 1, 1, 1],
        ["SBF.INSERT", |ctx, args| redis_errors(insert(ctx, args)), "write deny-oom", 1, 1, 1],
        ["SBF.EXISTS", |ctx, args| redis_errors(exists(ctx, args)), "readonly fast", 1, 1, 1],
        ["SBF.MEXISTS", |ctx, args| redis_errors(mexists(ctx, args)), "readonly fast", 1, 1, 1],
        ["SBF.INFO", |ctx, args| redis_errors(info(ctx, args)), "readonly", 1, 1, 1],
        ["SBF.CARD", |ctx, args| redis_errors(card(ctx, args)), "readonly fast", 1, 1, 1],
        ["SBF.MERGE", |ctx, args| redis_errors(merge(ctx, args)), "write deny-oom", 1, -1, 1],
        ["SBF.DUMP", |ctx, args| redis_errors(dump(ctx, args)), "readonly", 1, 1, 1],
        ["SBF.LOAD", |ctx, args| redis_errors(load(ctx, args)), "write deny-oom", 1, 1, 1],
    ],
}
