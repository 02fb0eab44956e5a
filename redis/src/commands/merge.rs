//! `SBF.MERGE`: the union of filters created alike.

use splitbloom::ScalableFilter;
use splitbloom::layout::{SplitBlock, Wide};

use super::*;
use crate::bloom::{Body, Filters, Stage, ValueLayout, WIDE_ERROR_RATE};

/// `SBF.MERGE dest src [src ...]`: `dest` becomes the union of itself (when present) and every
/// source. Plain filters merge when their layouts, sizes, probes and hashers match (a wide
/// filter with a wide one); chains when their layouts, parameters and hashers match, sub-filter
/// by sub-filter (a chain with fewer sub-filters adds nothing to the later ones). Every source
/// is checked before `dest` changes.
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
    let dest_ref = dest_value.as_deref();
    if dest_ref.is_some_and(Sbf::is_restoring) || sources.iter().any(|sbf| sbf.is_restoring()) {
        return Err(err(RESTORING));
    }
    let reference: &Sbf = match (dest_ref, sources.first()) {
        (Some(dest), _) => dest,
        (None, Some(first)) => first,
        (None, None) => return Err(err("ERR source not found")),
    };
    let body = match &reference.body {
        Body::Split(_) => merge_layout::<SplitBlock>(ctx, dest_ref, &sources)?,
        Body::Wide(_) => merge_layout::<Wide>(ctx, dest_ref, &sources)?,
    };
    let mut merged = Sbf {
        body,
        scaling: reference.scaling,
        capacity: reference.capacity,
        error_rate: reference.error_rate,
        items: 0,
    };
    merged.items = merged.summary().estimated_count();
    if let Some(dest) = dest_value {
        *dest = merged;
    } else {
        dest.set_value(&SBF_TYPE, merged)?;
    }
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// The merge of values whose filters all have layout `L` (an error naming both layouts when
/// one does not).
fn merge_layout<L: ValueLayout>(
    ctx: &Context,
    dest: Option<&Sbf>,
    sources: &[&Sbf],
) -> Result<Body, RedisError> {
    fn filters<L: ValueLayout>(sbf: &Sbf) -> Result<&Filters<L>, RedisError> {
        L::filters(&sbf.body).ok_or_else(|| {
            RedisError::String(format!(
                "ERR filters differ in layout ({} and {}): a wide filter (reserved at an error rate of {WIDE_ERROR_RATE} or below) merges only with a wide one",
                L::KIND.name(),
                sbf.meta().layout.name()
            ))
        })
    }
    let dest_filters = dest.map(filters::<L>).transpose()?;
    let source_filters = sources
        .iter()
        .map(|sbf| filters::<L>(sbf))
        .collect::<Result<Vec<_>, _>>()?;
    let first = dest_filters
        .or(source_filters.first().copied())
        .ok_or_else(|| err("ERR source not found"))?;
    let scaling = dest.is_none_or(|dest| dest.scaling);
    let merged = match first {
        Filters::Plain(first) => merge_plain(ctx, first, dest_filters, &source_filters)?,
        Filters::Chain(first) => merge_chains(ctx, first, dest_filters, &source_filters, scaling)?,
        Filters::Restoring(_) => return Err(err(RESTORING)),
    };
    Ok(L::body(merged))
}

fn merge_plain<L: ValueLayout>(
    ctx: &Context,
    first: &Stage<L>,
    dest: Option<&Filters<L>>,
    sources: &[&Filters<L>],
) -> Result<Filters<L>, RedisError> {
    let shape = |filter: &Stage<L>| (filter.num_blocks(), filter.layout().probes());
    let mut filters = Vec::new();
    for source in sources {
        let Filters::Plain(filter) = source else {
            return Err(err(
                "ERR cannot merge a scaling filter with a plain one (SBF.LOAD of SBLM bytes)",
            ));
        };
        let ((blocks, probes), (first_blocks, first_probes)) = (shape(filter), shape(first));
        if (blocks, probes) != (first_blocks, first_probes) {
            return Err(RedisError::String(format!(
                "ERR filters differ in size ({first_blocks} and {blocks} blocks, {first_probes} and {probes} probes per key)",
            )));
        }
        if filter.hasher() != first.hasher() {
            return Err(err("ERR filters differ in hasher (seed)"));
        }
        filters.push(filter);
    }
    let mut target = match dest {
        Some(Filters::Plain(filter)) => filter.clone(),
        _ => {
            check_memory(ctx, first.size_in_bytes() as u64)?;
            Stage::with_layout(first.num_blocks(), first.layout(), *first.hasher()).map_err(
                |error| RedisError::String(format!("ERR could not create filter: {error}")),
            )?
        }
    };
    for filter in filters {
        target
            .union(filter)
            .map_err(|error| RedisError::String(format!("ERR {error}")))?;
    }
    Ok(Filters::Plain(target))
}

fn merge_chains<L: ValueLayout>(
    ctx: &Context,
    first: &ScalableFilter<Hash, L>,
    dest: Option<&Filters<L>>,
    sources: &[&Filters<L>],
    scaling: bool,
) -> Result<Filters<L>, RedisError> {
    let mut chains: Vec<&ScalableFilter<Hash, L>> = Vec::new();
    if let Some(Filters::Chain(chain)) = dest {
        chains.push(chain);
    }
    for source in sources {
        let Filters::Chain(chain) = source else {
            return Err(err(
                "ERR cannot merge a plain filter (SBF.LOAD of SBLM bytes) with a scaling one",
            ));
        };
        if chain.parameters() != first.parameters() {
            return Err(err(
                "ERR filters differ in capacity, error rate or expansion: scaling filters merge only when created alike",
            ));
        }
        if chain.hasher() != first.hasher() {
            return Err(err("ERR filters differ in hasher (seed)"));
        }
        chains.push(chain);
    }
    let num_stages = chains
        .iter()
        .map(|chain| chain.num_stages())
        .max()
        .unwrap_or(1);
    if !scaling && num_stages > 1 {
        return Err(err(
            "ERR cannot merge a filter that has scaled into a NONSCALING one",
        ));
    }
    let stage = |index: usize| {
        chains
            .iter()
            .filter_map(move |chain| chain.stages().get(index))
    };
    let bytes: u64 = (0..num_stages)
        .filter_map(|index| stage(index).next())
        .map(|stage| stage.size_in_bytes() as u64)
        .sum();
    check_memory(ctx, bytes)?;
    let mut stages = Vec::with_capacity(num_stages);
    for index in 0..num_stages {
        let mut parts = stage(index);
        // The longest chain has every index.
        let Some(mut merged) = parts.next().cloned() else {
            break;
        };
        for part in parts {
            merged
                .union(part)
                .map_err(|error| RedisError::String(format!("ERR {error}")))?;
        }
        stages.push(merged);
    }
    // The newest stage holds the keys of every chain that reached it (an over-count when
    // they share keys, which only makes the next stage come sooner).
    let last_capacity = first.parameters().stage_capacity(num_stages - 1);
    let in_last: usize = chains
        .iter()
        .filter(|chain| chain.num_stages() == num_stages)
        .fold(0usize, |sum, chain| {
            sum.saturating_add(chain.items_in_last_stage())
        });
    let chain =
        ScalableFilter::from_stages(*first.parameters(), stages, in_last.min(last_capacity))
            .map_err(|error| RedisError::String(format!("ERR {error}")))?;
    Ok(Filters::Chain(chain))
}
