//! `splitbloom info`: what a filter file of any format holds: its layout, its stages or
//! generations, how full it is, the keys that fill implies, and its false-positive rate.

use std::path::PathBuf;

use splitbloom::format::{self, Header};
use splitbloom::{
    FilterHasher, FilterRef, LayoutKind, QuotientFilterRef, ScalableFilter, WindowFilter, math,
};

use crate::Status;
use crate::filter_file::{FilterFile, Format};
use crate::hashers::{hasher_name, require_hasher, require_supported, with_hasher};
use crate::json;
use crate::print::{out, short_number};
use crate::stats::Stats;

/// Options of `splitbloom info`.
#[derive(clap::Args)]
pub struct Options {
    /// The filter file: a filter, a wide filter or a quotient filter (SBLM), a scalable filter
    /// (SBLS, what `SBF.DUMP` returns for a scaling filter) or a window filter (SBLW).
    filter: PathBuf,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `info`.
pub fn run(options: &Options) -> Result<Status, String> {
    let file = FilterFile::open(&options.filter)?;
    let name = &options.filter;
    require_supported(name, file.hasher)?;
    let error = |error: splitbloom::Error| format!("{}: {error}", name.display());
    match file.format {
        Format::Plain(header) if header.layout == LayoutKind::Quotient => {
            require_hasher(name, file.hasher)?;
            with_hasher!(file.hasher, S => {
                let filter = QuotientFilterRef::<S>::from_bytes_with_hasher_type(&file.bytes).map_err(error)?;
                quotient(&file, &filter, options)
            })
        }
        Format::Plain(header) => plain(&file, &header, options),
        Format::Scalable => {
            require_hasher(name, file.hasher)?;
            with_hasher!(file.hasher, S => {
                let filter = ScalableFilter::<S>::from_bytes_with_hasher_type(&file.bytes).map_err(error)?;
                scalable(&file, &filter, options)
            })
        }
        Format::Window => {
            require_hasher(name, file.hasher)?;
            with_hasher!(file.hasher, S => {
                let filter = WindowFilter::<S>::from_bytes_with_hasher_type(&file.bytes).map_err(error)?;
                window(&file, filter, options)
            })
        }
    }
}

/// The first lines every format shares: format, layout and hasher.
fn print_head(file: &FilterFile, layout: &str, seed: u64) -> Result<(), String> {
    out!(
        "format           {} ({} version {})",
        file.format.describe().trim_start_matches("a "),
        file.format.magic(),
        file.version
    )?;
    out!("layout           {layout}")?;
    let hasher = hasher_name(file.hasher);
    if file.hasher.is_available() {
        out!("hasher           {hasher} (seed {seed})")
    } else {
        out!(
            "hasher           {hasher} (seed {seed}; not available in this build, which cannot query this filter)"
        )
    }
}

/// The last lines every format shares: fill, estimated keys and rate.
fn print_estimates(stats: &Stats) -> Result<(), String> {
    out!("fill ratio       {:.4}", stats.fill_ratio)?;
    out!("estimated items  {:.0}", stats.estimated_items)?;
    match stats.bits_per_key() {
        Some(bits) => out!("bits per key     {bits:.2} (at the estimated item count)")?,
        None => out!("bits per key     unknown (the filter is empty)")?,
    }
    out!("estimated FPR    {:.6}%", 100.0 * stats.estimated_fpr)
}

/// The JSON members every format shares, from `"format"` on.
fn json_common(file: &FilterFile, stats: &Stats, seed: u64) -> String {
    let bits_per_key = stats.bits_per_key().map_or("null".to_owned(), json::number);
    format!(
        "\"format\":\"{}\",\"version\":{},\"layout\":\"{}\",\"probes\":{},\"hasher\":\"{}\",\"seed\":{seed},\"bytes\":{},\"fill_ratio\":{},\"estimated_items\":{},\"bits_per_key\":{bits_per_key},\"estimated_fpr\":{}",
        file.format.name(),
        file.version,
        stats.layout.name(),
        stats.probes,
        hasher_name(file.hasher),
        file.bytes.len(),
        json::number(stats.fill_ratio),
        json::number(stats.estimated_items.round()),
        json::number(stats.estimated_fpr),
    )
}

/// A filter of the `SBLM` format, split-block or wide.
fn plain(file: &FilterFile, header: &Header, options: &Options) -> Result<Status, String> {
    let name = options.filter.display();
    // Reading the whole filter verifies its checksum before anything is reported. Neither the
    // checksum nor the statistics need the filter's hasher, so a filter whose hasher this build
    // cannot compute (gxhash without AES) is shown too.
    let stats = if header.layout == LayoutKind::Wide {
        wide_stats(header, &file.bytes).map_err(|error| format!("{name}: {error}"))?
    } else if header.hasher.is_available() {
        with_hasher!(header.hasher, S => {
            let filter = FilterRef::<S>::from_bytes_with_hasher_type(&file.bytes)
                .map_err(|error| format!("{name}: {error}"))?;
            Stats::new(filter.num_blocks(), filter.fill_ratio(), filter.estimated_fpr())
        })
    } else {
        stats_without_hasher(header, &file.bytes).map_err(|error| format!("{name}: {error}"))?
    };
    if options.json {
        out!(
            "{{{},\"blocks\":{}}}",
            json_common(file, &stats, header.seed),
            stats.blocks
        )?;
    } else {
        print_head(file, &stats.describe_layout(), header.seed)?;
        out!("blocks           {}", stats.blocks)?;
        out!("bytes            {}", file.bytes.len())?;
        print_estimates(&stats)?;
    }
    Ok(Status::Success)
}

/// A quotient filter: its tags, exactly counted, the slots they fill and the rate that load
/// gives.
fn quotient<S: FilterHasher>(
    file: &FilterFile,
    filter: &QuotientFilterRef<'_, S>,
    options: &Options,
) -> Result<Status, String> {
    let (len, capacity, load) = (filter.len(), filter.capacity(), filter.load());
    let stats = Stats::quotient(
        filter.num_blocks(),
        filter.tag_bits(),
        len,
        filter.estimated_fpr(),
    );
    let seed = filter.hasher().seed();
    if options.json {
        out!(
            "{{{},\"tag_bits\":{},\"blocks\":{},\"len\":{len},\"capacity\":{capacity},\"load\":{}}}",
            json_common(file, &stats, seed),
            filter.tag_bits().bits(),
            stats.blocks,
            json::number(load),
        )?;
        return Ok(Status::Success);
    }
    print_head(file, &stats.describe_layout(), seed)?;
    out!("blocks           {}", stats.blocks)?;
    out!("bytes            {}", file.bytes.len())?;
    out!("keys             {len} (exact; copies of a key counted)")?;
    out!("slots            {capacity}")?;
    out!(
        "load             {load:.4} (sized for {}; inserts may fail from about 0.99)",
        math::quotient::DESIGN_LOAD
    )?;
    match stats.bits_per_key() {
        Some(bits) => out!("bits per key     {bits:.2}")?,
        None => out!("bits per key     unknown (the filter is empty)")?,
    }
    out!("estimated FPR    {:.6}%", 100.0 * stats.estimated_fpr)?;
    Ok(Status::Success)
}

/// A scalable filter: its parameters, then each stage.
fn scalable<S: FilterHasher>(
    file: &FilterFile,
    filter: &ScalableFilter<S>,
    options: &Options,
) -> Result<Status, String> {
    let parameters = filter.parameters();
    let stages: Vec<Stats> = filter.stages().iter().map(Stats::of).collect();
    let blocks: usize = stages.iter().map(|stage| stage.blocks).sum();
    let set_bits: f64 = stages
        .iter()
        .map(|stage| stage.fill_ratio * stage.blocks as f64)
        .sum();
    let mut stats = Stats::new(blocks, set_bits / blocks as f64, filter.estimated_fpr());
    stats.estimated_items = stages.iter().map(|stage| stage.estimated_items).sum();
    let seed = filter.hasher().seed();
    let items_in_last_stage = filter.items_in_last_stage();
    if options.json {
        let stage_list: Vec<String> = stages
            .iter()
            .map(|stage| {
                format!(
                    "{{\"layout\":\"{}\",\"blocks\":{},\"bytes\":{},\"fill_ratio\":{},\"estimated_items\":{},\"estimated_fpr\":{}}}",
                    stage.layout.name(),
                    stage.blocks,
                    stage.bytes,
                    json::number(stage.fill_ratio),
                    json::number(stage.estimated_items.round()),
                    json::number(stage.estimated_fpr),
                )
            })
            .collect();
        out!(
            "{{{},\"initial_capacity\":{},\"fpr\":{},\"growth_factor\":{},\"tightening_ratio\":{},\"items_in_last_stage\":{items_in_last_stage},\"stages\":[{}]}}",
            json_common(file, &stats, seed),
            parameters.initial_capacity,
            json::number(parameters.fpr),
            json::number(parameters.growth_factor),
            json::number(parameters.tightening_ratio),
            stage_list.join(",")
        )?;
        return Ok(Status::Success);
    }
    print_head(file, &stats.describe_layout(), seed)?;
    out!("stages           {}", stages.len())?;
    out!("bytes            {}", file.bytes.len())?;
    out!("initial capacity {}", parameters.initial_capacity)?;
    out!("target FPR       {}", short_number(parameters.fpr))?;
    out!(
        "growth factor    {}",
        short_number(parameters.growth_factor)
    )?;
    out!(
        "tightening ratio {}",
        short_number(parameters.tightening_ratio)
    )?;
    out!("keys in newest   {items_in_last_stage}")?;
    print_estimates(&stats)?;
    for (index, stage) in stages.iter().enumerate() {
        out!(
            "stage {index:<10} {} blocks, {} bytes, fill ratio {:.4}, about {:.0} keys, estimated FPR {:.6}%",
            stage.blocks,
            stage.bytes,
            stage.fill_ratio,
            stage.estimated_items,
            100.0 * stage.estimated_fpr
        )?;
    }
    Ok(Status::Success)
}

/// A window filter: its generations, newest first, and rotations.
fn window<S: FilterHasher>(
    file: &FilterFile,
    filter: WindowFilter<S>,
    options: &Options,
) -> Result<Status, String> {
    let (generations, blocks) = (filter.generations(), filter.num_blocks());
    let (rotations, items, target) = (
        filter.rotations(),
        filter.items_per_generation(),
        filter.fpr(),
    );
    let seed = filter.hasher().seed();
    let plane_bits = filter.plane_bits();
    let mut stats = Stats::new(
        blocks * generations,
        filter.fill_ratio(),
        filter.estimated_fpr(),
    );
    // Each generation holds its own keys: they are estimated per generation, since one
    // estimate from the fill of them all undercounts uneven ones.
    let ages: Vec<Stats> = filter
        .generation_fill_ratios()
        .into_iter()
        .map(|fill| {
            let keys_per_plane = math::window::keys_per_plane_for_fill(fill, plane_bits);
            let mut age = Stats::new(
                blocks,
                fill,
                math::window::fpr_for_keys_per_plane(keys_per_plane, plane_bits),
            );
            age.estimated_items = keys_per_plane * blocks as f64;
            age
        })
        .collect();
    stats.estimated_items = filter.estimated_items();
    if options.json {
        let ages: Vec<String> = ages
            .iter()
            .enumerate()
            .map(|(age, generation)| {
                format!(
                    "{{\"age\":{age},\"fill_ratio\":{},\"estimated_items\":{}}}",
                    json::number(generation.fill_ratio),
                    json::number(generation.estimated_items.round()),
                )
            })
            .collect();
        out!(
            "{{{},\"generations\":{generations},\"plane_bits\":{plane_bits},\"rotations\":{rotations},\"blocks_per_generation\":{blocks},\"items_per_generation\":{items},\"target_fpr\":{},\"by_age\":[{}]}}",
            json_common(file, &stats, seed),
            json::number(target),
            ages.join(","),
        )?;
        return Ok(Status::Success);
    }
    let layout = format!(
        "planes of {plane_bits} bits (split-block lanes of {} bits), every generation's plane \
         of a block index side by side",
        plane_bits / 8
    );
    print_head(file, &layout, seed)?;
    out!(
        "generations      {generations} (a key stays for {} rotations after the one it was inserted in)",
        generations - 1
    )?;
    out!("rotations        {rotations}")?;
    out!("blocks           {blocks} per generation, {plane_bits} bits each")?;
    out!("items            {items} per generation (what each is sized for)")?;
    out!("bytes            {}", file.bytes.len())?;
    out!(
        "target FPR       {}% (the window's, with every generation holding its items)",
        short_number(100.0 * target)
    )?;
    print_estimates(&stats)?;
    for (age, generation) in ages.iter().enumerate() {
        out!(
            "age {age:<12} fill ratio {:.4}, about {:.0} keys{}",
            generation.fill_ratio,
            generation.estimated_items,
            if age == 0 {
                " (the newest, which inserts write)"
            } else {
                ""
            }
        )?;
    }
    Ok(Status::Success)
}

/// The statistics of a wide filter, from its bitset's 64-bit words once the checksum is
/// verified (as for a filter whose hasher this build cannot compute: the statistics need no
/// hasher).
fn wide_stats(header: &Header, bytes: &[u8]) -> Result<Stats, String> {
    verify_checksum(header, bytes)?;
    let set: u64 = bytes[format::HEADER_BYTES..]
        .iter()
        .map(|byte| u64::from(byte.count_ones()))
        .sum();
    let bits = header.num_blocks as f64 * splitbloom::math::wide::WIDE_BLOCK_BYTES as f64 * 8.0;
    Ok(Stats::wide(
        header.num_blocks,
        header.probes,
        set as f64 / bits,
    ))
}

/// The statistics of a filter read without its hasher type: the checksum is checked as the
/// format documents it (XXH3-64 of header bytes 0..24, then the bitset), the fill and the
/// false-positive rate are computed from the bitset's little-endian 32-bit lanes.
fn stats_without_hasher(header: &Header, bytes: &[u8]) -> Result<Stats, String> {
    verify_checksum(header, bytes)?;
    let bitset = &bytes[format::HEADER_BYTES..];
    let (mut ones, mut fpr_sum) = (0u64, 0.0f64);
    for block in bitset.chunks_exact(splitbloom::BLOCK_BYTES) {
        let mut all_set = 1.0;
        for lane in block.chunks_exact(4) {
            let bits = u32::from_le_bytes([lane[0], lane[1], lane[2], lane[3]]).count_ones();
            ones += u64::from(bits);
            all_set *= f64::from(bits) / 32.0;
        }
        fpr_sum += all_set;
    }
    let blocks = header.num_blocks;
    let total_bits = blocks as f64 * (splitbloom::BLOCK_BYTES * 8) as f64;
    Ok(Stats::new(
        blocks,
        ones as f64 / total_bits,
        fpr_sum / blocks as f64,
    ))
}

/// Verifies the checksum of a filter read without its hasher type, as the format documents it:
/// XXH3-64 of header bytes 0..24, then the bitset. The length is the announced one (the file
/// was read exactly that far).
fn verify_checksum(header: &Header, bytes: &[u8]) -> Result<(), String> {
    let (head, bitset) = bytes.split_at(format::HEADER_BYTES);
    let mut state = xxhash_rust::xxh3::Xxh3Default::new();
    state.update(&head[..24]);
    state.update(bitset);
    let computed = state.digest();
    if computed != header.checksum {
        return Err(splitbloom::Error::ChecksumMismatch {
            stored: header.checksum,
            computed,
        }
        .to_string());
    }
    Ok(())
}
