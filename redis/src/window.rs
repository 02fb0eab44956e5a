//! Windowed keys (`SBF.WRESERVE`): a [`splitbloom::WindowFilter`] of G generations that
//! forgets the oldest every period, with the period and the server time (ms) of its next
//! rotation, so a key answers "seen in the last G periods" without a rebuild or a per-member
//! expiry.
//!
//! Rotation is decided on the primary only, from the server's clock, just before a command
//! touches the key, and replicated (and written to the AOF) as an explicit `SBF.WROTATE key n
//! next_ms` (`commands/window.rs`): a replica or an AOF replay never reads its own clock, so it
//! holds exactly the primary's bits (the `DUMP` bytes match).
//!
//! The value's bytes (RDB, AOF, `SBF.WLOAD`) are a 48-byte header (magic `SBWK`, a version, the
//! error rate, the period, the next rotation, the items count, an XXH3-64 of those 40 bytes)
//! followed by the crate's checksummed `SBLW` bytes.

use splitbloom::WindowFilter;

use crate::{Hash, MAX_COUNT};

const MAGIC: &[u8; 4] = b"SBWK";
const VERSION: u8 = 1;
const HEADER: usize = 48;

/// The longest period accepted, in seconds (about 100 years): far beyond any use, and small
/// enough that the deadline arithmetic in milliseconds never overflows.
pub const MAX_PERIOD_SECONDS: u64 = 100 * 366 * 24 * 3600;

/// One windowed key's value.
#[derive(Clone, Debug)]
pub struct Window {
    pub filter: WindowFilter<Hash>,
    /// The error rate asked for (the whole window's, all generations together).
    pub error_rate: f64,
    /// Milliseconds between rotations.
    pub period_ms: u64,
    /// Server time (Unix ms) at or after which the next rotation is due.
    pub next_rotation_ms: u64,
    /// Items added that were not present before, since the key was created.
    pub items: u64,
}

impl Window {
    /// Rotations due at server time `now_ms`: one at the deadline and one more per whole
    /// period past it.
    pub fn due(&self, now_ms: u64) -> u64 {
        if now_ms < self.next_rotation_ms {
            0
        } else {
            (now_ms - self.next_rotation_ms) / self.period_ms + 1
        }
    }

    /// Forgets `n` generations (all of them once `n` reaches G: the window is then empty) and
    /// sets the next deadline.
    pub fn rotate(&mut self, n: u64, next_rotation_ms: u64) {
        let generations = self.filter.generations() as u64;
        for _ in 0..n.min(generations) {
            self.filter.rotate();
        }
        self.next_rotation_ms = next_rotation_ms;
    }

    /// Bytes as `MEMORY USAGE` counts them: the struct and the generations' blocks, as the
    /// crate allocates them.
    pub fn memory(&self) -> usize {
        // A window's memory is 64-byte units aligned to 64.
        size_of::<Window>() + crate::memory::allocated_for(self.filter.size_in_bytes(), 64)
    }

    /// The value's bytes: the header, then the window's `SBLW` bytes.
    pub fn encode(&self) -> Vec<u8> {
        let filter = self.filter.to_bytes();
        let mut out = Vec::with_capacity(HEADER + filter.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[VERSION, 0, 0, 0]);
        for word in [
            self.error_rate.to_bits(),
            self.period_ms,
            self.next_rotation_ms,
            self.items,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out.extend_from_slice(&filter);
        out
    }

    /// Reads [`encode`](Window::encode)'s bytes; the header is checked before the window's
    /// bytes, which the crate checks (length, fields, checksum) before allocating. What
    /// `SBF.WRESERVE` refuses is refused here too (a period of other than whole seconds), and
    /// every count fits RESP's integers.
    pub fn decode(bytes: &[u8]) -> Result<Window, String> {
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err("not a splitbloom windowed value".into());
        }
        if xxhash_rust::xxh3::xxh3_64(&bytes[..HEADER - 8]).to_le_bytes()
            != bytes[HEADER - 8..HEADER]
        {
            return Err("windowed value header checksum mismatch".into());
        }
        if bytes[4] != VERSION || bytes[5..8] != [0, 0, 0] {
            return Err(format!(
                "windowed value version {} (this module reads {VERSION})",
                bytes[4]
            ));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let error_rate = f64::from_bits(word(8));
        let period_ms = word(16);
        if !(error_rate > 0.0 && error_rate < 1.0) {
            return Err("bad error rate in windowed value".into());
        }
        // SBF.WRESERVE's rules: a whole number of seconds, from 1 to MAX_PERIOD_SECONDS.
        if !period_ms.is_multiple_of(1000)
            || !(1..=MAX_PERIOD_SECONDS).contains(&(period_ms / 1000))
        {
            return Err(format!(
                "bad period in windowed value: {period_ms} ms (a whole number of seconds from 1 to {MAX_PERIOD_SECONDS})"
            ));
        }
        let (next_rotation_ms, items) = (word(24), word(32));
        for (name, value) in [("next rotation", next_rotation_ms), ("item count", items)] {
            if value > MAX_COUNT {
                return Err(format!(
                    "bad {name} in windowed value: {value} is above {MAX_COUNT}"
                ));
            }
        }
        let filter = WindowFilter::<Hash>::from_bytes_with_hasher_type(&bytes[HEADER..])
            .map_err(|error| format!("bad window: {error}"))?;
        if filter.rotations() > MAX_COUNT {
            return Err(format!(
                "bad window: {} rotations is above {MAX_COUNT}",
                filter.rotations()
            ));
        }
        Ok(Window {
            filter,
            error_rate,
            period_ms,
            next_rotation_ms,
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window() -> Window {
        Window {
            filter: WindowFilter::with_fpr_and_hasher(100, 0.01, 3, Hash::default()).unwrap(),
            error_rate: 0.01,
            period_ms: 1000,
            next_rotation_ms: 10_000,
            items: 0,
        }
    }

    #[test]
    fn due_counts_whole_periods_past_the_deadline() {
        let w = window();
        assert_eq!(w.due(9_999), 0);
        assert_eq!(w.due(10_000), 1);
        assert_eq!(w.due(10_999), 1);
        assert_eq!(w.due(11_000), 2);
        assert_eq!(w.due(u64::MAX), (u64::MAX - 10_000) / 1000 + 1);
    }

    #[test]
    fn rotations_past_g_clear_the_window() {
        let mut w = window();
        w.filter.insert_bytes(b"a");
        w.rotate(2, 1);
        assert!(w.filter.contains_bytes(b"a"));
        w.rotate(1_000_000, 2);
        assert!(!w.filter.contains_bytes(b"a"));
        assert_eq!(w.filter.rotations(), 5);
        assert_eq!(w.next_rotation_ms, 2);
    }

    #[test]
    fn encoding_round_trips_and_refuses_bad_bytes() {
        let mut w = window();
        w.filter.insert_bytes(b"a");
        w.items = 1;
        let bytes = w.encode();
        let back = Window::decode(&bytes).unwrap();
        assert_eq!(back.encode(), bytes);
        assert!(back.filter.contains_bytes(b"a"));
        for at in [0, 4, 9, 17, 30, 47, HEADER + 3, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(Window::decode(&bad).is_err(), "byte {at}");
        }
        for len in [0, 10, HEADER, bytes.len() - 1] {
            assert!(Window::decode(&bytes[..len]).is_err(), "length {len}");
        }
    }
}
