//! `splitbloom info`: what a filter file holds.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

use splitbloom::format::{self, Header, ScalableHeader};
use splitbloom::{FilterRef, Layout};

use crate::Status;
use crate::filter_file::{AnyFilterFile, FilterFile, open_any};
use crate::hashers::{hasher_name, require_supported, with_hasher};
use crate::json;
use crate::print::{out, short_number};
use crate::stats::Stats;

/// Options of `splitbloom info`.
#[derive(clap::Args)]
pub struct Options {
    /// The filter file (a filter, or a scalable filter, whose header is shown).
    filter: PathBuf,
    #[arg(long, help = crate::json::SHORT_HELP, long_help = crate::json::LONG_HELP)]
    json: bool,
}

/// Runs `info`.
pub fn run(options: &Options) -> Result<Status, String> {
    match open_any(&options.filter)? {
        AnyFilterFile::Plain(filter) => plain(&filter.read()?, options),
        AnyFilterFile::Scalable(file, head) => scalable(file, &head, options),
    }
}

fn plain(file: &FilterFile, options: &Options) -> Result<Status, String> {
    let name = options.filter.display();
    let header = &file.header;
    require_supported(&options.filter, header)?;
    // Reading the whole filter verifies its checksum before anything is reported. Neither the
    // checksum nor the statistics need the filter's hasher, so a filter whose hasher this build
    // cannot compute (gxhash without AES) is shown too.
    let stats = if header.layout == Layout::Wide {
        wide_stats(file).map_err(|error| format!("{name}: {error}"))?
    } else if header.hasher.is_available() {
        with_hasher!(header.hasher, S => {
            let filter = FilterRef::<S>::from_bytes_with_hasher_type(&file.bytes)
                .map_err(|error| format!("{name}: {error}"))?;
            Stats::new(filter.num_blocks(), filter.fill_ratio(), filter.estimated_fpr())
        })
    } else {
        stats_without_hasher(file).map_err(|error| format!("{name}: {error}"))?
    };
    let hasher = hasher_name(header.hasher);
    let bits_per_key = stats.bits_per_key();
    if options.json {
        let bits_per_key = bits_per_key.map_or("null".to_owned(), json::number);
        out!(
            "{{\"version\":{},\"layout\":\"{}\",\"probes\":{},\"hasher\":\"{hasher}\",\"seed\":{},\"blocks\":{},\"bytes\":{},\"fill_ratio\":{},\"estimated_items\":{},\"bits_per_key\":{bits_per_key},\"estimated_fpr\":{}}}",
            header.version,
            stats.layout.name(),
            stats.probes,
            header.seed,
            stats.blocks,
            stats.bytes,
            json::number(stats.fill_ratio),
            json::number(stats.estimated_items.round()),
            json::number(stats.estimated_fpr),
        )?;
    } else {
        out!("format version   {}", header.version)?;
        out!("layout           {}", stats.describe_layout())?;
        if header.hasher.is_available() {
            out!("hasher           {hasher} (seed {})", header.seed)?;
        } else {
            out!(
                "hasher           {hasher} (seed {}; not available in this build, which cannot query this filter)",
                header.seed
            )?;
        }
        out!("blocks           {}", stats.blocks)?;
        out!("bytes            {}", stats.bytes)?;
        out!("fill ratio       {:.4}", stats.fill_ratio)?;
        out!("estimated items  {:.0}", stats.estimated_items)?;
        match bits_per_key {
            Some(bits) => out!("bits per key     {bits:.2} (at the estimated item count)")?,
            None => out!("bits per key     unknown (the filter is empty)")?,
        }
        out!("estimated FPR    {:.6}%", 100.0 * stats.estimated_fpr)?;
    }
    Ok(Status::Success)
}

/// The statistics of a wide filter, from its bitset's 64-bit words once the checksum is
/// verified (as for a filter whose hasher this build cannot compute: the statistics need no
/// hasher).
fn wide_stats(file: &FilterFile) -> Result<Stats, String> {
    verify_checksum(file)?;
    let header = &file.header;
    let set: u64 = file.bytes[format::HEADER_BYTES..]
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
fn stats_without_hasher(file: &FilterFile) -> Result<Stats, String> {
    verify_checksum(file)?;
    let bitset = &file.bytes[format::HEADER_BYTES..];
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
    let blocks = file.header.num_blocks;
    let total_bits = blocks as f64 * (splitbloom::BLOCK_BYTES * 8) as f64;
    Ok(Stats::new(
        blocks,
        ones as f64 / total_bits,
        fpr_sum / blocks as f64,
    ))
}

/// One stage of a scalable filter, from its header.
struct Stage {
    header: Header,
}

/// Shows a scalable filter's header and the headers of its stages, read one after the other
/// (bounded by the file: every stage is at least 64 bytes). Stage checksums and fill are not
/// read: this shows the structure, as `ScalableFilter::from_bytes` would check it.
fn scalable(mut file: File, head: &[u8], options: &Options) -> Result<Status, String> {
    let name = options.filter.display();
    let error = |message: String| format!("{name}: scalable filter: {message}");
    // The library's one reader of this header: magic, version, reserved bytes, checksum.
    let ScalableHeader {
        version,
        parameters,
        items_in_last_stage,
        num_stages,
        ..
    } = ScalableHeader::parse(head).map_err(|problem| error(problem.to_string()))?;

    let stages = read_stages(&mut file, num_stages).map_err(error)?;
    let bytes: u64 = format::SCALABLE_HEADER_BYTES as u64
        + stages
            .iter()
            .map(|stage| stage.header.serialized_len())
            .sum::<u64>();
    let first = stages.first().map(|stage| stage.header);
    let hasher = first.map_or("unknown", |header| hasher_name(header.hasher));
    let seed = first.map_or(0, |header| header.seed);
    if options.json {
        let stage_list: Vec<String> = stages
            .iter()
            .map(|stage| {
                format!(
                    "{{\"blocks\":{},\"bytes\":{}}}",
                    stage.header.num_blocks,
                    stage.header.serialized_len()
                )
            })
            .collect();
        out!(
            "{{\"format\":\"scalable\",\"version\":{version},\"hasher\":\"{hasher}\",\"seed\":{seed},\"initial_capacity\":{},\"fpr\":{},\"growth_factor\":{},\"tightening_ratio\":{},\"items_in_last_stage\":{items_in_last_stage},\"bytes\":{bytes},\"stages\":[{}]}}",
            parameters.initial_capacity,
            json::number(parameters.fpr),
            json::number(parameters.growth_factor),
            json::number(parameters.tightening_ratio),
            stage_list.join(",")
        )?;
        return Ok(Status::Success);
    }
    out!("scalable filter  (magic SBLS; the header and the stages' headers)")?;
    out!("format version   {version}")?;
    out!("hasher           {hasher} (seed {seed})")?;
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
    out!("stages           {}", stages.len())?;
    out!("keys in newest   {items_in_last_stage}")?;
    out!("bytes            {bytes}")?;
    for (index, stage) in stages.iter().enumerate() {
        out!(
            "stage {index:<10} {} blocks, {} bytes",
            stage.header.num_blocks,
            stage.header.serialized_len()
        )?;
    }
    Ok(Status::Success)
}

/// Reads the headers of `num_stages` stages following the scalable header, skipping their
/// bitsets, and checks that the file ends right after the last one.
fn read_stages(file: &mut File, num_stages: u64) -> Result<Vec<Stage>, String> {
    let io_error = |error: io::Error| format!("cannot read: {error}");
    if num_stages == 0 {
        return Err("no stages (a scalable filter has at least one)".to_owned());
    }
    let mut stages = Vec::new();
    let mut offset = format::SCALABLE_HEADER_BYTES as u64;
    for index in 0..num_stages {
        let mut head = [0u8; format::HEADER_BYTES];
        let read = crate::filter_file::read_up_to(file, &mut head).map_err(io_error)?;
        if read < head.len() {
            return Err(format!(
                "the header announces {num_stages} stages, the file ends after {index} (at byte {})",
                offset + read as u64
            ));
        }
        let header = Header::parse(&head).map_err(|error| format!("stage {index}: {error}"))?;
        let skip = header.serialized_len() - format::HEADER_BYTES as u64;
        let skipped = skip_bytes(file, skip).map_err(io_error)?;
        if skipped < skip {
            return Err(format!(
                "stage {index} is truncated: {} bytes needed, {} available",
                header.serialized_len(),
                skipped + format::HEADER_BYTES as u64
            ));
        }
        offset += header.serialized_len();
        stages.push(Stage { header });
    }
    let mut extra = [0u8; 1];
    if crate::filter_file::read_up_to(file, &mut extra).map_err(io_error)? != 0 {
        return Err(format!(
            "bytes after the last stage (which ends at byte {offset})"
        ));
    }
    Ok(stages)
}

/// Skips `count` bytes of `file` (a seek for a regular file, a read otherwise); returns how
/// many were there.
fn skip_bytes(file: &mut File, count: u64) -> io::Result<u64> {
    if file.metadata()?.is_file() {
        let here = file.stream_position()?;
        let end = file.metadata()?.len();
        let skipped = count.min(end.saturating_sub(here));
        file.seek(SeekFrom::Current(skipped as i64))?;
        Ok(skipped)
    } else {
        io::copy(&mut file.take(count), &mut io::sink())
    }
}

/// Verifies the checksum of a filter read without its hasher type, as the format documents it:
/// XXH3-64 of header bytes 0..24, then the bitset; the length must be the announced one.
fn verify_checksum(file: &FilterFile) -> Result<(), String> {
    let header = &file.header;
    let expected = usize::try_from(header.serialized_len()).unwrap_or(usize::MAX);
    if file.bytes.len() != expected {
        return Err(if file.bytes.len() < expected {
            splitbloom::Error::Truncated {
                needed: header.serialized_len(),
                available: file.bytes.len(),
            }
        } else {
            splitbloom::Error::LengthMismatch {
                expected: header.serialized_len(),
                found: file.bytes.len(),
            }
        }
        .to_string());
    }
    let (head, bitset) = file.bytes.split_at(format::HEADER_BYTES);
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
