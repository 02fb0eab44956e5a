//! `INFO`: RedisBloom's five fields for `BF.INFO`, and the filter's own after them for
//! `SBF.INFO`.

use super::*;

/// RedisBloom's five `INFO` fields, in order: capacity (every sub-filter's), size (`MEMORY
/// USAGE`), number of filters, items inserted, expansion (nil when the filter never scales).
fn five_fields(sbf: &Sbf) -> [(&'static str, RedisValue); 5] {
    let meta = sbf.meta();
    let (capacity, filters, expansion) = if meta.plain {
        (sbf.capacity, 1, None)
    } else {
        let stages = meta.stage_blocks.len();
        let capacity = (0..stages).fold(0u64, |sum, stage| {
            sum.saturating_add(meta.parameters.stage_capacity(stage) as u64)
        });
        // `as` saturates: an expansion past u64 prints as the largest count.
        let expansion = sbf.scaling.then_some(meta.parameters.growth_factor as u64);
        (capacity, stages, expansion)
    };
    [
        ("Capacity", count(capacity)),
        ("Size", count(sbf.memory() as u64)),
        ("Number of filters", count(filters as u64)),
        ("Number of items inserted", count(sbf.items)),
        ("Expansion rate", expansion.map_or(RedisValue::Null, count)),
    ]
}

/// `INFO key [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION]` and, for `SBF.INFO`, the extra fields.
fn info_common(ctx: &Context, args: &[RedisString], extra: bool) -> RedisResult {
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
        let summary = sbf.summary();
        let mut extras = vec![
            (
                "Error rate",
                RedisValue::BulkString(sbf.error_rate.to_string()),
            ),
            ("Blocks", count(summary.blocks as u64)),
            ("Bytes", count(summary.bytes as u64)),
            ("Estimated items", count(summary.estimated_count())),
            (
                "Estimated FPR",
                RedisValue::BulkString(format!("{:.6e}", summary.estimated_fpr)),
            ),
            (
                "Fill ratio",
                RedisValue::BulkString(format!("{:.6}", summary.fill_ratio)),
            ),
            (
                "Hasher",
                RedisValue::BulkString(format!("{:?}", Hash::KIND)),
            ),
            // The seed is any u64 a loaded filter was built with: its decimal digits, unsigned.
            ("Seed", RedisValue::BulkString(summary.seed.to_string())),
            (
                "Kernel",
                RedisValue::BulkString(summary.kernel.map_or_else(String::new, |k| k.to_string())),
            ),
            (
                "Layout",
                RedisValue::BulkString(sbf.meta().layout.name().to_owned()),
            ),
        ];
        // A chain's newest stage: the one new keys go into (older ones may have fewer).
        if let Some(probes) = summary.wide_probes {
            extras.push(("Probes", RedisValue::Integer(i64::from(probes))));
        }
        for (field, value) in extras {
            out.push(name(field));
            out.push(value);
        }
    }
    Ok(RedisValue::Array(out))
}

pub(super) fn bf_info_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    info_common(ctx, args, false)
}

pub(super) fn sbf_info_(ctx: &Context, args: &[RedisString]) -> RedisResult {
    info_common(ctx, args, true)
}
