//! The `CF.*` commands (and `SCF.*`), with RedisBloom 2.4's names, reply shapes and error
//! strings, over the deletable value ([`Deletable`]); the RESP3 replies of the predicates are
//! current RedisBloom's booleans.

use redis_module::ContextFlags;

use super::*;
use crate::quotient::meta::{BadHeader, MAX_EXPANSION};
use crate::quotient::{Answer, Deletable};
use crate::types::quotient::QUOTIENT_TYPE;

/// RedisBloom's defaults for a filter `CF.ADD`/`CF.INSERT` create.
const DEFAULT_CAPACITY: u64 = 1024;
const DEFAULT_BUCKET_SIZE: u64 = 2;
const DEFAULT_MAX_ITERATIONS: u64 = 20;
const DEFAULT_EXPANSION: u64 = 1;

const SMALL: &str = "Capacity must be at least (BucketSize * 2)";
const MAX_EXPANSIONS: &str = "Maximum expansions reached";
const NO_MEMORY: &str = "ERR Insufficient memory to create filter";

fn resp3(ctx: &Context) -> bool {
    ctx.get_flags().contains(ContextFlags::FLAGS_RESP3)
}

/// A RESERVE option's value, with RedisBloom's two errors: not a number, out of `range`.
fn option_value(
    value: &RedisString,
    name: &str,
    range: std::ops::RangeInclusive<i64>,
) -> Result<u64, RedisError> {
    let value =
        parse_i64(value).ok_or_else(|| RedisError::String(format!("Couldn't parse {name}")))?;
    if !range.contains(&value) {
        return Err(RedisError::String(format!(
            "{name}: value must be an integer between {} and {}, inclusive.",
            range.start(),
            range.end()
        )));
    }
    Ok(value as u64)
}

/// A new value for `capacity` keys, after the memory checks.
fn create(
    ctx: &Context,
    capacity: u64,
    bucket_size: u64,
    max_iterations: u64,
    expansion: u64,
) -> Result<Deletable, RedisError> {
    let bytes = Deletable::first_stage_bytes(capacity);
    if bytes == u64::MAX {
        return Err(RedisError::String(format!(
            "{NO_MEMORY}: {capacity} items are beyond what a filter can hold"
        )));
    }
    check_memory(ctx, bytes)?;
    // RedisBloom rounds the expansion up to a power of two; 0 stays 0: never grow.
    let expansion = match expansion {
        0 => 0,
        expansion => expansion.next_power_of_two(),
    };
    Deletable::new(capacity, bucket_size, max_iterations, expansion)
        .map_err(|error| RedisError::String(format!("{NO_MEMORY}: {error}")))
}

/// `CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]`
pub(super) fn cf_reserve_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return Err(RedisError::WrongArity);
    }
    let capacity = parse_i64(&args[2]).ok_or_else(|| err("Bad capacity"))?;
    let (mut bucket_size, mut max_iterations, mut expansion) = (
        DEFAULT_BUCKET_SIZE,
        DEFAULT_MAX_ITERATIONS,
        DEFAULT_EXPANSION,
    );
    for pair in args[3..].chunks(2) {
        let (name, value) = (&pair[0], &pair[1]);
        if is(name, "BUCKETSIZE") {
            bucket_size = option_value(value, "BUCKETSIZE", 1..=255)?;
        } else if is(name, "MAXITERATIONS") {
            max_iterations = option_value(value, "MAXITERATIONS", 1..=65535)?;
        } else if is(name, "EXPANSION") {
            expansion = option_value(value, "EXPANSION", 0..=MAX_EXPANSION as i64)?;
        } else {
            return Err(err(
                "ERR unknown argument (CF.RESERVE takes BUCKETSIZE, MAXITERATIONS and EXPANSION)",
            ));
        }
    }
    if capacity < 2 * bucket_size as i64 {
        return Err(err(SMALL));
    }
    let key = ctx.open_key_writable(&args[1]);
    if key.get_value::<Deletable>(&QUOTIENT_TYPE)?.is_some() {
        return Err(err("ERR item exists"));
    }
    let value = create(ctx, capacity as u64, bucket_size, max_iterations, expansion)?;
    key.set_value(&QUOTIENT_TYPE, value)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// What `ADD`/`INSERT` do with a missing key.
enum Missing {
    Create(u64),
    Refuse,
}

/// Adds `items` to `key` (copies, or with `unique` only absent keys), creating the key when
/// missing and allowed; replicated verbatim, or as what it took when the limits refused a new
/// stage ([`replicate_taken`]). The answers, or the error that refused them all.
fn insert_items(
    ctx: &Context,
    name: &RedisString,
    items: &[RedisString],
    unique: bool,
    missing: Missing,
) -> Result<Vec<Answer>, RedisError> {
    let key = ctx.open_key_writable(name);
    let mut created = None;
    let value = match key.get_value::<Deletable>(&QUOTIENT_TYPE)? {
        Some(value) => value,
        None => match missing {
            Missing::Create(capacity) => created.insert(create(
                ctx,
                capacity,
                DEFAULT_BUCKET_SIZE,
                DEFAULT_MAX_ITERATIONS,
                DEFAULT_EXPANSION,
            )?),
            Missing::Refuse => return Err(err(NOT_FOUND)),
        },
    };
    if value.is_restoring() {
        return Err(err(RESTORING));
    }
    if value.at_max_stages() {
        return Err(err(MAX_EXPANSIONS));
    }
    let mut hashes = Vec::with_capacity(items.len());
    value.hash_keys(items.iter().map(RedisString::as_slice), &mut hashes);
    let mut answers = vec![Answer::NoRoom; hashes.len()];
    let mut may_allocate = |bytes| check_memory(ctx, bytes).is_ok();
    value.insert_hashes(&hashes, unique, &mut answers, &mut may_allocate);
    let capacity = created.as_ref().map(|value| value.meta.capacity);
    if let Some(value) = created {
        key.set_value(&QUOTIENT_TYPE, value)?;
    }
    if answers.contains(&Answer::NoMemory) {
        replicate_taken(ctx, name, items, &answers, capacity);
    } else {
        ctx.replicate_verbatim();
    }
    Ok(answers)
}

/// Replicates what an insert took after the limits refused it a new stage: a replica (and the
/// AOF) is never refused, so the command as sent would add there the stage and the items the
/// primary did not. The items added, as copies (an item `ADDNX` added was absent, and a copy
/// lands where it did), into a key of the same capacity if this command made it; nothing if it
/// took nothing from a key that existed.
fn replicate_taken(
    ctx: &Context,
    name: &RedisString,
    items: &[RedisString],
    answers: &[Answer],
    created: Option<u64>,
) {
    let capacity = created.map(|capacity| capacity.to_string());
    let mut args: Vec<&[u8]> = vec![name.as_slice()];
    if let Some(capacity) = &capacity {
        args.extend([b"CAPACITY".as_slice(), capacity.as_bytes()]);
    }
    args.push(b"ITEMS");
    let options = args.len();
    let added = items.iter().zip(answers);
    let added = added.filter(|&(_, &answer)| answer == Answer::Added);
    args.extend(added.map(|(item, _)| item.as_slice()));
    match (args.len() > options, &capacity) {
        (true, _) => ctx.replicate("SCF.INSERT", &args[..]),
        (false, Some(capacity)) => {
            ctx.replicate("SCF.RESERVE", &[name.as_slice(), capacity.as_bytes()][..]);
        }
        (false, None) => {}
    }
}

/// `CF.ADD key item` (a copy per call) and `CF.ADDNX key item` (only when absent).
fn add(ctx: &Context, args: &[RedisString], unique: bool) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let answers = insert_items(
        ctx,
        &args[1],
        &args[2..],
        unique,
        Missing::Create(DEFAULT_CAPACITY),
    )?;
    match answers[0] {
        Answer::Added => answer(ctx, true),
        Answer::Present => answer(ctx, false),
        Answer::NoRoom => Err(err("Filter is full")),
        Answer::NoMemory => Err(err(NO_STAGE)),
    }
}

pub(super) fn cf_add_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    add(ctx, args, false)
}

pub(super) fn cf_addnx_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    add(ctx, args, true)
}

/// `CF.INSERT key [CAPACITY c] [NOCREATE] ITEMS item ...`, and `CF.INSERTNX`.
fn insert(ctx: &Context, args: &[RedisString], unique: bool) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut missing = Missing::Create(DEFAULT_CAPACITY);
    let mut at = 2;
    let items_at = loop {
        let Some(option) = args.get(at) else {
            return Err(RedisError::WrongArity);
        };
        if is(option, "ITEMS") {
            break at + 1;
        } else if is(option, "CAPACITY") {
            let value = args.get(at + 1).ok_or(RedisError::WrongArity)?;
            let capacity = parse_i64(value).ok_or_else(|| err("Bad capacity"))?;
            if capacity < 2 * DEFAULT_BUCKET_SIZE as i64 {
                return Err(err(SMALL));
            }
            if let Missing::Create(_) = missing {
                missing = Missing::Create(capacity as u64);
            }
            at += 2;
        } else if is(option, "NOCREATE") {
            missing = Missing::Refuse;
            at += 1;
        } else {
            return Err(err("Unknown argument received"));
        }
    };
    if items_at >= args.len() {
        return Err(RedisError::WrongArity);
    }
    let answers = insert_items(ctx, &args[1], &args[items_at..], unique, missing)?;
    let resp3 = resp3(ctx);
    let element = |answer| match (answer, unique, resp3) {
        // CF.INSERTNX answers integers over both protocols, as current RedisBloom.
        (Answer::Added, true, _) => Element::Integer(1),
        (Answer::Present, true, _) => Element::Integer(0),
        (Answer::Added, false, _) => Element::Bool(true),
        (Answer::Present, false, _) => Element::Bool(false),
        (_, false, true) => Element::Bool(false),
        _ => Element::Integer(-1),
    };
    elements_reply(ctx, answers.into_iter().map(element), None)
}

pub(super) fn cf_insert_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    insert(ctx, args, false)
}

pub(super) fn cf_insertnx_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    insert(ctx, args, true)
}

/// Whether each of `items` may be in `key`: all false for a missing key, or one of another
/// type, as RedisBloom answers.
fn exists_items(ctx: &Context, key: &RedisString, items: &[RedisString]) -> Vec<bool> {
    let mut answers = vec![false; items.len()];
    let key = ctx.open_key(key);
    if let Ok(Some(value)) = key.get_value::<Deletable>(&QUOTIENT_TYPE) {
        let mut hashes = Vec::with_capacity(items.len());
        value.hash_keys(items.iter().map(RedisString::as_slice), &mut hashes);
        value.contains_hash_batch(&hashes, &mut answers);
    }
    answers
}

/// `CF.EXISTS key item`
pub(super) fn cf_exists_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    answer(ctx, exists_items(ctx, &args[1], &args[2..])[0])
}

/// `CF.MEXISTS key item [item ...]`
pub(super) fn cf_mexists_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    answers(ctx, &exists_items(ctx, &args[1], &args[2..]), None)
}

/// `CF.COUNT key item`: the copies of `item` over every stage, an upper bound; 0 for a missing
/// key.
pub(super) fn cf_count_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let Some(value) = key.get_value::<Deletable>(&QUOTIENT_TYPE)? else {
        return Ok(RedisValue::Integer(0));
    };
    Ok(count(value.count_hash(value.hash(args[2].as_slice()))))
}

/// `CF.DEL key item`: removes one copy, from the newest stage that holds it. Removing an item
/// that was never added may remove another item's copy (as RedisBloom documents).
pub(super) fn cf_del_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key_writable(&args[1]);
    let value = key
        .get_value::<Deletable>(&QUOTIENT_TYPE)?
        .ok_or_else(|| err("Not found"))?;
    if value.is_restoring() {
        return Err(err(RESTORING));
    }
    let removed = value.remove_hash(value.hash(args[2].as_slice()));
    ctx.replicate_verbatim();
    answer(ctx, removed)
}

/// `CF.INFO key`: RedisBloom's eight fields; `SCF.INFO` adds the filter's own.
fn info(ctx: &Context, args: &[RedisString], extra: bool) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let value = key
        .get_value::<Deletable>(&QUOTIENT_TYPE)?
        .ok_or_else(|| err(NOT_FOUND))?;
    let meta = &value.meta;
    // RedisBloom's buckets of the first sub-filter: its slots over the bucket size.
    let slots = meta.stage_blocks[0].saturating_mul(meta.tag_bits.slots_per_block() as u64);
    let mut fields = vec![
        ("Size", count(value.memory() as u64)),
        ("Number of buckets", count(slots / meta.bucket_size.max(1))),
        ("Number of filters", count(meta.stage_blocks.len() as u64)),
        ("Number of items inserted", count(value.items())),
        ("Number of items deleted", count(meta.deletes)),
        ("Bucket size", count(meta.bucket_size)),
        ("Expansion rate", count(meta.expansion)),
        ("Max iterations", count(meta.max_iterations)),
    ];
    if extra {
        let stages = value.stages();
        let none: f64 = stages
            .iter()
            .map(|stage| 1.0 - stage.estimated_fpr())
            .product();
        let bytes: u64 = meta.stage_lens().iter().sum();
        let slots: usize = stages.iter().map(|stage| stage.capacity()).sum();
        let load = value.items() as f64 / slots.max(1) as f64;
        let text = |text: String| RedisValue::BulkString(text);
        let kernel = stages
            .first()
            .map_or_else(String::new, |stage| stage.kernel().to_string());
        fields.extend([
            ("Capacity", count(meta.capacity)),
            ("Bytes", count(bytes)),
            ("Tag bits", count(u64::from(meta.tag_bits.bits()))),
            ("Load", text(format!("{load:.6}"))),
            ("Estimated FPR", text(format!("{:.6e}", 1.0 - none))),
            ("Hasher", text(format!("{:?}", Hash::KIND))),
            ("Seed", text(meta.seed.to_string())),
            ("Kernel", text(kernel)),
        ]);
    }
    let name = |name: &str| RedisValue::SimpleString(name.to_owned());
    let flat = fields
        .into_iter()
        .flat_map(|(field, value)| [name(field), value]);
    Ok(RedisValue::Array(flat.collect()))
}

pub(super) fn cf_info_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    info(ctx, args, false)
}

pub(super) fn scf_info_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    info(ctx, args, true)
}

/// RedisBloom's `CF.SCANDUMP`/`CF.LOADCHUNK` errors, which its clients and tests match.
const BAD_POSITION: &str = "Invalid position";
const BAD_CHUNK: &str = "Couldn't load chunk!";

/// `CF.SCANDUMP key iter`: iterator 0 answers `[1, header]`, iterator `i` the chunk at offset
/// `i - 1` with the next iterator, the end `[0, nil]`; an empty filter answers `[0, nil]` at
/// once, as RedisBloom's.
pub(super) fn cf_scandump_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let iter = parse_i64(&args[2])
        .filter(|&iter| iter >= 0)
        .ok_or_else(|| err(BAD_POSITION))?;
    let key = ctx.open_key(&args[1]);
    let value = key
        .get_value::<Deletable>(&QUOTIENT_TYPE)?
        .ok_or_else(|| err(NOT_FOUND))?;
    if value.is_restoring() {
        return Err(err(RESTORING));
    }
    let pair = |iter: i64, bytes: Option<Vec<u8>>| {
        let data = bytes.map_or(RedisValue::Null, RedisValue::StringBuffer);
        Ok(RedisValue::Array(vec![RedisValue::Integer(iter), data]))
    };
    if value.items() == 0 {
        return pair(0, None);
    }
    if iter == 0 {
        return pair(1, Some(value.meta.encode()));
    }
    match value.chunk_at(iter as u64 - 1) {
        Some(chunk) => pair(iter.saturating_add(chunk.len() as i64), Some(chunk)),
        None => pair(0, None),
    }
}

/// `CF.LOADCHUNK key iter data`, with the pairs `CF.SCANDUMP` gave, in order: iterator 1 (the
/// header) makes a new key being restored; each later chunk is checked (checksum, place, every
/// block) as it arrives. A chunk that does not validate leaves the restore where it was.
pub(super) fn cf_loadchunk_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 4 {
        return Err(RedisError::WrongArity);
    }
    let iter = parse_i64(&args[2])
        .filter(|&iter| iter > 0)
        .ok_or_else(|| err(BAD_POSITION))?;
    let data = args[3].as_slice();
    let key = ctx.open_key_writable(&args[1]);
    let existing = key.get_value::<Deletable>(&QUOTIENT_TYPE)?;
    if iter == 1 {
        if existing.is_some() {
            return Err(err("ERR item exists"));
        }
        let value = Deletable::from_header(data).map_err(|error| match error {
            BadHeader::Length => err("Invalid header"),
            BadHeader::Content(_) => err("Couldn't create filter!"),
        })?;
        let lens = value.meta.stage_lens();
        let total = lens
            .iter()
            .fold(0, |sum: u64, &len| sum.saturating_add(len));
        check_value(Some(ctx), lens.iter().copied().max().unwrap_or(0), total)
            .map_err(RedisError::String)?;
        key.set_value(&QUOTIENT_TYPE, value)?;
        ctx.replicate_verbatim();
        return Ok(RedisValue::SimpleStringStatic("OK"));
    }
    let value = existing.ok_or_else(|| err(NOT_FOUND))?;
    let offset = (iter as u64).checked_sub(1 + data.len() as u64);
    if offset.is_none() || offset != value.restore_offset() {
        return Err(err(BAD_CHUNK));
    }
    // The header was checked when it came; memory may have filled since.
    if let Some(bytes) = value.next_stage_len() {
        check_memory(ctx, bytes)?;
    }
    let offset = offset.ok_or_else(|| err(BAD_CHUNK))?;
    value.push_chunk(offset, data).map_err(|_| err(BAD_CHUNK))?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}
