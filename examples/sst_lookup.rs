//! A toy SST file (sorted string table, as in LevelDB/RocksDB) whose point lookups ask a
//! split-block filter before reading a data block.
//!
//! `cargo run --release --example sst_lookup` (well under a second)
//!
//! File layout, all integers little-endian:
//!
//! ```text
//! data blocks   records [u32 key len][u32 value len][key][value], sorted by key, ~4 KiB each
//! padding       zeros up to a multiple of 32 bytes, so the filter's bitset stays aligned
//! filter block  one splitbloom filter (`Filter::to_bytes`) over every key of the file, each
//!               inserted with `insert_bytes` (the byte-key contract: the key's exact bytes)
//! index block   per data block: [u32 key len][last key][u64 offset][u64 length]
//! footer        [u64 filter offset][u64 filter length][u64 index offset][u64 index length]
//! ```
//!
//! The reader loads the file and views the filter block in place with `FilterRef::from_bytes`
//! (checksum verified, no copy). A real engine would map the file or read blocks into a block
//! cache; a plain read keeps this example free of `unsafe` (`splitbloom query` shows the
//! mmap route). A lookup costs one data-block read unless the filter says "certainly absent".

use std::ops::Range;

use splitbloom::{Filter, FilterRef};

const RECORDS: u64 = 100_000;
const LOOKUPS: u64 = 100_000;
const BLOCK_TARGET: usize = 4096;
const FOOTER: usize = 32;

/// Keys `user:00000000`, `user:00000002`, ...: even numbers only, so odd ones fall between
/// stored keys and are absent (the hardest case for an index, which cannot rule them out).
fn key(number: u64) -> Vec<u8> {
    format!("user:{number:08}").into_bytes()
}

fn put_u32(out: &mut Vec<u8>, value: usize) {
    out.extend_from_slice(&(value as u32).to_le_bytes());
}

/// Writes the SST for `records` (sorted by key) into a byte vector.
fn write_sst(records: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut file = Vec::new();
    let mut index = Vec::new();
    let mut filter = Filter::with_fpr(records.len(), 0.01).expect("valid sizing");
    let mut block_start = 0;
    for (i, (key, value)) in records.iter().enumerate() {
        put_u32(&mut file, key.len());
        put_u32(&mut file, value.len());
        file.extend_from_slice(key);
        file.extend_from_slice(value);
        // The byte-key contract: a stable, documented hash of exactly the key's bytes, so any
        // later build (or another language) reads the file correctly.
        filter.insert_bytes(key);
        // Close the block when it is full or at the last record; the index keeps its last key.
        if file.len() - block_start >= BLOCK_TARGET || i + 1 == records.len() {
            put_u32(&mut index, key.len());
            index.extend_from_slice(key);
            index.extend_from_slice(&(block_start as u64).to_le_bytes());
            index.extend_from_slice(&((file.len() - block_start) as u64).to_le_bytes());
            block_start = file.len();
        }
    }
    file.resize(file.len().next_multiple_of(32), 0);
    let filter_offset = file.len();
    file.extend_from_slice(&filter.to_bytes());
    let index_offset = file.len();
    file.extend_from_slice(&index);
    for value in [
        filter_offset,
        index_offset - filter_offset,
        index_offset,
        index.len(),
    ] {
        file.extend_from_slice(&(value as u64).to_le_bytes());
    }
    file
}

fn u64_at(bytes: &[u8], at: usize) -> usize {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
}

fn u32_at(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// An opened SST: the filter viewed in place and the decoded index.
struct Table<'a> {
    file: &'a [u8],
    filter: FilterRef<'a>,
    /// (last key of the block, the block's byte range), in key order.
    index: Vec<(&'a [u8], Range<usize>)>,
    block_reads: u64,
}

impl<'a> Table<'a> {
    fn open(file: &'a [u8]) -> Result<Table<'a>, splitbloom::Error> {
        let footer = file.len() - FOOTER;
        let (filter_at, filter_len) = (u64_at(file, footer), u64_at(file, footer + 8));
        let (index_at, index_len) = (u64_at(file, footer + 16), u64_at(file, footer + 24));
        let filter = FilterRef::from_bytes(&file[filter_at..filter_at + filter_len])?;
        let (mut index, mut at) = (Vec::new(), index_at);
        while at < index_at + index_len {
            let key_len = u32_at(file, at);
            let last_key = &file[at + 4..at + 4 + key_len];
            at += 4 + key_len;
            let (offset, length) = (u64_at(file, at), u64_at(file, at + 8));
            index.push((last_key, offset..offset + length));
            at += 16;
        }
        Ok(Table {
            file,
            filter,
            index,
            block_reads: 0,
        })
    }

    /// Point lookup: the filter first, then the one data block that may hold `key`.
    fn get(&mut self, key: &[u8], use_filter: bool) -> Option<&'a [u8]> {
        if use_filter && !self.filter.contains_bytes(key) {
            return None; // certainly absent: no block read
        }
        let block = self.index.partition_point(|(last, _)| *last < key);
        let range = self.index.get(block)?.1.clone();
        self.block_reads += 1;
        let data = &self.file[range];
        let mut at = 0;
        while at < data.len() {
            let (key_len, value_len) = (u32_at(data, at), u32_at(data, at + 4));
            let record_key = &data[at + 8..at + 8 + key_len];
            if record_key == key {
                return Some(&data[at + 8 + key_len..at + 8 + key_len + value_len]);
            }
            at += 8 + key_len + value_len;
        }
        None
    }
}

fn main() -> Result<(), splitbloom::Error> {
    let records: Vec<(Vec<u8>, Vec<u8>)> = (0..RECORDS)
        .map(|i| (key(2 * i), format!("value of user {}", 2 * i).into_bytes()))
        .collect();
    let file = write_sst(&records);
    let mut table = Table::open(&file)?;
    println!(
        "SST: {RECORDS} records, {} bytes, {} data blocks, filter {} bytes (zero-copy view: {})",
        file.len(),
        table.index.len(),
        table.filter.num_blocks() * splitbloom::BLOCK_BYTES,
        table.filter.is_zero_copy()
    );
    // 90% of lookups ask for absent keys (odd numbers), 10% for present ones.
    let workload: Vec<(Vec<u8>, bool)> = (0..LOOKUPS)
        .map(|i| {
            let n = (i * 7919) % RECORDS;
            if i.is_multiple_of(10) {
                (key(2 * n), true)
            } else {
                (key(2 * n + 1), false)
            }
        })
        .collect();
    for use_filter in [false, true] {
        table.block_reads = 0;
        let mut found = 0;
        for (key, present) in &workload {
            let value = table.get(key, use_filter);
            assert_eq!(value.is_some(), *present, "wrong answer for {key:?}");
            found += u64::from(value.is_some());
        }
        println!(
            "{:<14} {LOOKUPS} lookups, {found} found, {} data-block reads",
            if use_filter {
                "with filter:"
            } else {
                "without filter:"
            },
            table.block_reads
        );
    }
    let absent = LOOKUPS - LOOKUPS / 10;
    let wasted = table.block_reads - LOOKUPS / 10;
    println!(
        "the filter saved {} of {absent} reads for absent keys ({:.2}% still read: false positives)",
        absent - wasted,
        100.0 * wasted as f64 / absent as f64
    );
    Ok(())
}
