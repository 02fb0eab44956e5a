//! `SBF.MERGE`: the union of filters created alike.

use super::*;

/// `SBF.MERGE dest src [src ...]`: `dest` becomes the union of itself (when present) and every
/// source. Plain filters merge when their layouts, sizes, probes and hashers match (a wide
/// filter with a wide one); chains when their
/// parameters and hashers match, sub-filter by sub-filter (a chain with fewer sub-filters
/// adds nothing to the later ones). Every source is checked before `dest` changes.
pub(super) fn merge_(ctx: &Context, args: &[RedisString]) -> RedisResult {
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
        let source: &Sbf = key
            .get_value::<Sbf>(&SBF_TYPE)?
            .ok_or_else(|| err("ERR source not found"))?;
        sources.push(source);
    }
    let restoring = |sbf: &Sbf| matches!(sbf.body, Body::Restoring(_));
    if dest_value.as_deref().is_some_and(restoring) || sources.iter().any(|sbf| restoring(sbf)) {
        return Err(err(RESTORING));
    }
    let reference: &Sbf = match (&dest_value, sources.first()) {
        (Some(dest), _) => dest,
        (None, Some(first)) => first,
        (None, None) => return Err(err("ERR source not found")),
    };
    let merged = match &reference.body {
        Body::Plain(first) => merge_plain(ctx, first, dest_value.as_deref(), &sources)?,
        Body::Chain(first) => merge_chains(ctx, first, dest_value.as_deref(), &sources)?,
        Body::Restoring(_) => unreachable!("refused above"),
    };
    let mut merged = Sbf {
        body: merged,
        scaling: reference.scaling,
        capacity: reference.capacity,
        error_rate: reference.error_rate,
        items: 0,
    };
    let estimate: f64 = merged
        .stages()
        .iter()
        .map(|stage| stage.estimated_items())
        .sum();
    merged.items = if estimate.is_finite() {
        estimate.round() as u64
    } else {
        0
    };
    if let Some(dest) = dest_value {
        *dest = merged;
    } else {
        dest.set_value(&SBF_TYPE, merged)?;
    }
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

fn merge_plain(
    ctx: &Context,
    first: &Part,
    dest: Option<&Sbf>,
    sources: &[&Sbf],
) -> Result<Body, RedisError> {
    let shape = |part: &Part| {
        let bits = part.bits();
        (bits.layout(), bits.num_blocks(), bits.probes())
    };
    let mut filters = Vec::new();
    for source in sources {
        let Body::Plain(filter) = &source.body else {
            return Err(err(
                "ERR cannot merge a scaling filter with a plain one (SBF.LOAD of SBLM bytes)",
            ));
        };
        let ((layout, blocks, probes), (first_layout, first_blocks, first_probes)) =
            (shape(filter), shape(first));
        if layout != first_layout {
            return Err(RedisError::String(format!(
                "ERR filters differ in layout ({} and {}): a wide filter (NONSCALING at an error rate of {} or below) merges only with a wide one",
                first_layout.name(),
                layout.name(),
                crate::bloom::stage::WIDE_ERROR_RATE
            )));
        }
        if (blocks, probes) != (first_blocks, first_probes) {
            return Err(RedisError::String(format!(
                "ERR filters differ in size ({first_blocks} and {blocks} blocks, {first_probes} and {probes} probes per key)",
            )));
        }
        if filter.bits().seed() != first.bits().seed() {
            return Err(err("ERR filters differ in hasher (seed)"));
        }
        filters.push(filter);
    }
    let mut target = match dest {
        Some(Sbf {
            body: Body::Plain(filter),
            ..
        }) => filter.clone(),
        _ => {
            check_memory(ctx, first.bits().size_in_bytes() as u64)?;
            first.empty_like().map_err(|error| {
                RedisError::String(format!("ERR could not create filter: {error}"))
            })?
        }
    };
    for filter in filters {
        target
            .union(filter)
            .map_err(|error| RedisError::String(format!("ERR {error}")))?;
    }
    Ok(Body::Plain(target))
}

fn merge_chains(
    ctx: &Context,
    first: &Chain,
    dest: Option<&Sbf>,
    sources: &[&Sbf],
) -> Result<Body, RedisError> {
    let mut chains: Vec<&Chain> = Vec::new();
    if let Some(Sbf {
        body: Body::Chain(chain),
        ..
    }) = dest
    {
        chains.push(chain);
    }
    for source in sources {
        let Body::Chain(chain) = &source.body else {
            return Err(err(
                "ERR cannot merge a plain filter (SBF.LOAD of SBLM bytes) with a scaling one",
            ));
        };
        if chain.parameters() != first.parameters() {
            return Err(err(
                "ERR filters differ in capacity, error rate or expansion: scaling filters merge only when created alike",
            ));
        }
        if chain.layout() != first.layout() {
            return Err(RedisError::String(format!(
                "ERR filters differ in layout ({} and {}): scaling filters merge only when created alike",
                first.layout().name(),
                chain.layout().name()
            )));
        }
        if chain.seed() != first.seed() {
            return Err(err("ERR filters differ in hasher (seed)"));
        }
        chains.push(chain);
    }
    let num_stages = chains
        .iter()
        .map(|chain| chain.stages().len())
        .max()
        .unwrap_or(1);
    let scaling = dest.is_none_or(|dest| dest.scaling);
    if !scaling && num_stages > 1 {
        return Err(err(
            "ERR cannot merge a filter that has scaled into a NONSCALING one",
        ));
    }
    let bytes: u64 = (0..num_stages)
        .filter_map(|stage| {
            chains
                .iter()
                .find_map(|chain| chain.stages().get(stage))
                .map(|stage| stage.bits().size_in_bytes() as u64)
        })
        .sum();
    check_memory(ctx, bytes)?;
    let mut stages = Vec::with_capacity(num_stages);
    for index in 0..num_stages {
        let mut parts = chains.iter().filter_map(|chain| chain.stages().get(index));
        let mut stage = parts.next().expect("the longest chain has it").clone();
        for part in parts {
            stage
                .union(part)
                .map_err(|error| RedisError::String(format!("ERR {error}")))?;
        }
        stages.push(stage);
    }
    // The newest stage holds the keys of every chain that reached it (an over-count when
    // they share keys, which only makes the next stage come sooner).
    let last_capacity = first.parameters().stage_capacity(num_stages - 1);
    let in_last: usize = chains
        .iter()
        .filter(|chain| chain.stages().len() == num_stages)
        .fold(0usize, |sum, chain| {
            sum.saturating_add(chain.items_in_last_stage())
        });
    let chain = Chain::from_stages(*first.parameters(), stages, in_last.min(last_capacity))
        .map_err(|error| RedisError::String(format!("ERR {error}")))?;
    Ok(Body::Chain(chain))
}
