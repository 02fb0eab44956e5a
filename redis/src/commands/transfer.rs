//! Moving a filter's bytes in and out: `SCANDUMP`/`LOADCHUNK` (RedisBloom's chunked
//! iterator) and `SBF.DUMP`/`SBF.LOAD` (the crate's own format in one reply).

use splitbloom::layout::{SplitBlock, Wide};
use splitbloom::{LayoutKind, ScalableFilter};

use super::*;
use crate::bloom::{Body, Filters, Stage, ValueLayout, with_filters};

/// The largest value `SBF.DUMP` answers in one reply. Building and sending one reply stalls
/// every other client, longer than linearly in its size (`redis/README.md` has the
/// measurements), so this keeps the stall well under 100 ms; larger filters go through
/// `SCANDUMP`'s 16 MiB chunks.
const MAX_DUMP_BYTES: usize = 8 << 20;

/// `SCANDUMP key iter`: RedisBloom's iterator. Iterator 0 answers `[1, header]`; iterator `i`
/// answers the stream's chunk at offset `i - 1` (at most 16 MiB, never across a sub-filter,
/// checksummed) with the iterator of the next chunk; the end is `[0, ""]`.
pub(super) fn scandump_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let sbf = key
        .get_value::<Sbf>(&SBF_TYPE)?
        .ok_or_else(|| err(NOT_FOUND))?;
    let iter = parse_i64(&args[2]).ok_or_else(|| err("Second argument must be numeric"))?;
    if sbf.is_restoring() {
        return Err(err(RESTORING));
    }
    let pair = |iter: i64, bytes: Vec<u8>| {
        Ok(RedisValue::Array(vec![
            RedisValue::Integer(iter),
            RedisValue::StringBuffer(bytes),
        ]))
    };
    if iter == 0 {
        return pair(1, sbf.meta().encode());
    }
    let chunk = u64::try_from(iter - 1)
        .ok()
        .and_then(|offset| sbf.chunk_at(offset));
    match chunk {
        Some(chunk) => pair(iter + chunk.len() as i64, chunk),
        None => pair(0, Vec::new()),
    }
}

/// `LOADCHUNK key iter data`, with the pairs `SCANDUMP` gave, in order: iterator 1 (the header)
/// starts a restore, replacing the key; each later chunk is appended, and every sub-filter is
/// validated (checksum included) as its last byte arrives. A chunk that does not validate
/// leaves the restore where it was, so it can be sent again.
pub(super) fn loadchunk_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 4 {
        return Err(RedisError::WrongArity);
    }
    let iter = parse_i64(&args[2]).ok_or_else(|| err("ERR Second argument must be numeric"))?;
    let data = args[3].as_slice();
    let key = ctx.open_key_writable(&args[1]);
    let existing = key.get_value::<Sbf>(&SBF_TYPE)?;
    if iter == 1 {
        let meta = Meta::decode(data).map_err(|_| err(BAD_DATA))?;
        check_value(Some(ctx), meta.largest_stage_len(), meta.bitset_len())
            .map_err(RedisError::String)?;
        key.set_value(&SBF_TYPE, Sbf::restoring(meta))?;
        ctx.replicate_verbatim();
        return Ok(RedisValue::SimpleStringStatic("OK"));
    }
    let sbf = existing.ok_or_else(|| err(NOT_FOUND))?;
    // A chunk for a complete filter, or not the next one of a restore: RedisBloom's error.
    let offset = u64::try_from(iter)
        .ok()
        .and_then(|iter| iter.checked_sub(1 + data.len() as u64));
    if sbf.restore_offset().is_none() || offset != sbf.restore_offset() {
        return Err(err(NO_LINK));
    }
    // The header was checked when it came; memory may have filled since.
    if let Some(bytes) = sbf.next_stage_len() {
        check_memory(ctx, bytes)?;
    }
    let offset = offset.ok_or_else(|| err(NO_LINK))?;
    sbf.push_chunk(offset, data).map_err(|error| {
        err(if error == crate::stream::NOT_NEXT {
            TOO_BIG
        } else {
            BAD_DATA
        })
    })?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// RedisBloom's `LOADCHUNK` errors, which clients and RedisBloom's tests match exactly.
const BAD_DATA: &str = "ERR received bad data";
const NO_LINK: &str = "ERR invalid offset - no link found";
const TOO_BIG: &str = "ERR invalid chunk - Too big for current filter";

/// `SBF.DUMP key`: the crate's format, as `BloomFilter::to_bytes` (a plain filter, `SBLM`
/// under its layout's id) or `ScalableFilter::to_bytes` (a chain, `SBLS`) writes it; refused
/// above [`MAX_DUMP_BYTES`].
pub(super) fn dump_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let key = ctx.open_key(&args[1]);
    let sbf = key
        .get_value::<Sbf>(&SBF_TYPE)?
        .ok_or_else(|| err(NOT_FOUND))?;
    let bytes = with_filters!(&sbf.body, filters => {
        let stages: usize = filters.stages().iter().map(|stage| stage.serialized_len()).sum();
        let (len, to_bytes): (usize, &dyn Fn() -> Vec<u8>) = match filters {
            Filters::Restoring(_) => return Err(err(RESTORING)),
            Filters::Plain(filter) => (stages, &|| filter.to_bytes()),
            Filters::Chain(chain) => (
                splitbloom::format::SCALABLE_HEADER_BYTES + stages,
                &|| chain.to_bytes(),
            ),
        };
        if len > MAX_DUMP_BYTES {
            return Err(RedisError::String(format!(
                "ERR the filter is {len} bytes and SBF.DUMP answers at most {MAX_DUMP_BYTES} in one reply (a longer reply stalls every client): use SBF.SCANDUMP"
            )));
        }
        to_bytes()
    });
    Ok(RedisValue::StringBuffer(bytes))
}

/// `SBF.LOAD key bytes [CAPACITY c] [ERROR e] [CARD n] [NONSCALING]`: validates `bytes` (the
/// crate's `SBLM` format of either layout, a wide one loading as a wide value, or `SBLS`:
/// magic, version, layout, hasher, length, checksums) and stores them at `key`, replacing a
/// filter there.
pub(super) fn load_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let mut capacity = None;
    let mut error_rate = None;
    let mut items = None;
    let mut scaling = true;
    let mut at = 3;
    while at < args.len() {
        let option = &args[at];
        if is(option, "NONSCALING") {
            scaling = false;
            at += 1;
            continue;
        }
        let value = args.get(at + 1).ok_or(RedisError::WrongArity)?;
        if is(option, "CAPACITY") {
            capacity = Some(parse_count(value).ok_or_else(|| err("ERR bad capacity"))?);
        } else if is(option, "ERROR") {
            // 0 is "unknown", as INFO reports it for filters loaded without it.
            error_rate = Some(
                parse_f64(value)
                    .filter(|rate| *rate >= 0.0 && *rate < 1.0)
                    .ok_or_else(|| err("ERR bad error rate"))?,
            );
        } else if is(option, "CARD") {
            items = Some(parse_count(value).ok_or_else(|| {
                err("ERR bad CARD (must be an integer from 0 to 9223372036854775807)")
            })?);
        } else {
            return Err(err("ERR unknown option"));
        }
        at += 2;
    }
    let key = ctx.open_key_writable(&args[1]);
    // WRONGTYPE before the (possibly long) validation.
    key.get_value::<Sbf>(&SBF_TYPE)?;
    let bytes = args[2].as_slice();
    // The filter read from the bytes takes about as many bytes again.
    check_memory(ctx, bytes.len() as u64)?;
    let bad = |error: splitbloom::Error| match error {
        // The crate's message tells a Rust caller which type to name; a Redis user needs to
        // know which hasher the module takes.
        splitbloom::Error::HasherKindMismatch { found, .. } => RedisError::String(format!(
            "ERR bad filter bytes: the filter uses hasher id {} ({found:?}), and this module stores {:?} (hasher id {}) filters: build it with the crate's default hasher or `splitbloom build`",
            found.id(),
            Hash::KIND,
            Hash::KIND.id()
        )),
        error => RedisError::String(format!("ERR bad filter bytes: {error}")),
    };
    let chain = bytes.starts_with(&splitbloom::format::SCALABLE_MAGIC);
    // A chain's stages say its layout; the crate's readers check it again.
    let stage = bytes
        .get(usize::from(chain) * splitbloom::format::SCALABLE_HEADER_BYTES..)
        .unwrap_or_default();
    let layout =
        splitbloom::format::Header::parse(stage).map_or(LayoutKind::SplitBlock, |h| h.layout);
    let body = match layout {
        LayoutKind::Wide => read_filters::<Wide>(bytes, chain),
        _ => read_filters::<SplitBlock>(bytes, chain),
    }
    .map_err(bad)?;
    let mut sbf = Sbf {
        body,
        scaling: chain && scaling,
        capacity: 0,
        error_rate: 0.0,
        items: 0,
    };
    // A chain's own; zeros ("unknown") for a plain filter.
    let parameters = sbf.meta().parameters;
    sbf.capacity = capacity.unwrap_or(parameters.initial_capacity as u64);
    sbf.error_rate = error_rate.unwrap_or(parameters.fpr);
    sbf.items = items.unwrap_or_else(|| sbf.summary().estimated_count());
    key.set_value(&SBF_TYPE, sbf)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// The filters of the crate's bytes: a chain (`SBLS`) or one filter (`SBLM`), of layout `L`.
fn read_filters<L: ValueLayout>(bytes: &[u8], chain: bool) -> Result<Body, splitbloom::Error> {
    Ok(L::body(if chain {
        Filters::Chain(ScalableFilter::from_bytes_with_hasher_type(bytes)?)
    } else {
        Filters::Plain(Stage::from_bytes_with_hasher_type(bytes)?)
    }))
}
