//! The module arguments (`--loadmodule path NAME value ...`) and the settings they change.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use redis_module::RedisString;

/// RedisBloom's defaults when `ADD`/`MADD`/`INSERT` create a filter; the module arguments
/// `ERROR_RATE` and `INITIAL_SIZE` change them.
static DEFAULT_ERROR_RATE_BITS: AtomicU64 = AtomicU64::new(0.01f64.to_bits());
static DEFAULT_CAPACITY: AtomicU64 = AtomicU64::new(100);
/// RedisBloom's default expansion.
pub const DEFAULT_EXPANSION: u64 = 2;

pub fn default_error_rate() -> f64 {
    f64::from_bits(DEFAULT_ERROR_RATE_BITS.load(Ordering::Relaxed))
}

pub fn default_capacity() -> u64 {
    DEFAULT_CAPACITY.load(Ordering::Relaxed)
}

/// The largest filter or sub-filter (bitset bytes) a command may create; set by the
/// `MAX_FILTER_BYTES` module argument.
pub static MAX_FILTER_BYTES: AtomicU64 = AtomicU64::new(4 << 30);

/// Whether `BF_COMMANDS yes` registered RedisBloom's names (`bf.*` and `cf.*`).
pub static BF_COMMANDS: AtomicBool = AtomicBool::new(false);

/// Applies the module arguments, name/value pairs: `BF_COMMANDS yes|no`, `ERROR_RATE r`,
/// `INITIAL_SIZE n`, `MAX_FILTER_BYTES n`; the error is the line to log, and the module then
/// refuses to load.
pub fn apply(args: &[RedisString]) -> Result<(), String> {
    if !args.len().is_multiple_of(2) {
        return Err(
            "splitbloom: module arguments are name/value pairs: BF_COMMANDS yes|no, ERROR_RATE r, INITIAL_SIZE n, MAX_FILTER_BYTES n".into(),
        );
    }
    for pair in args.chunks(2) {
        let name = pair[0].to_string_lossy().to_ascii_uppercase();
        let value = pair[1].to_string_lossy();
        let ok = match name.as_str() {
            "BF_COMMANDS" => match value.to_ascii_lowercase().as_str() {
                "yes" => {
                    BF_COMMANDS.store(true, Ordering::Relaxed);
                    true
                }
                "no" => true,
                _ => false,
            },
            "ERROR_RATE" => value
                .parse::<f64>()
                .ok()
                .filter(|rate| *rate > 0.0 && *rate < 1.0)
                .map(|rate| DEFAULT_ERROR_RATE_BITS.store(rate.to_bits(), Ordering::Relaxed))
                .is_some(),
            "INITIAL_SIZE" => value
                .parse::<u64>()
                .ok()
                .filter(|&size| size >= 1)
                .map(|size| DEFAULT_CAPACITY.store(size, Ordering::Relaxed))
                .is_some(),
            "MAX_FILTER_BYTES" => value
                .parse::<u64>()
                .ok()
                .map(|max| MAX_FILTER_BYTES.store(max, Ordering::Relaxed))
                .is_some(),
            _ => {
                return Err(format!(
                    "splitbloom: unknown module argument {name} (known: BF_COMMANDS, ERROR_RATE, INITIAL_SIZE, MAX_FILTER_BYTES)"
                ));
            }
        };
        if !ok {
            return Err(format!(
                "splitbloom: bad value {value:?} for {name} (BF_COMMANDS: yes or no; ERROR_RATE: strictly between 0 and 1; INITIAL_SIZE: an integer of at least 1; MAX_FILTER_BYTES: a byte count)"
            ));
        }
    }
    Ok(())
}
