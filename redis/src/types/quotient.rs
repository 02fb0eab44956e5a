//! The `SBFqchain` data type (`CF.*`): how a key's [`Deletable`] is saved, loaded and
//! rewritten.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::{ModuleValue, load_stages, methods, rewrite_stream, save_stages};
use crate::memory::check_value;
use crate::quotient::{Deletable, Meta};

pub static QUOTIENT_TYPE: RedisType = RedisType::new(
    "SBFqchain",
    Deletable::ENCODING_VERSION,
    methods::<Deletable>(),
);

impl ModuleValue for Deletable {
    /// Encoding 1: the header, the number of complete stages, each stage's `SBLM` bytes, a
    /// restore's partial stage.
    const ENCODING_VERSION: c_int = 1;
    const WHAT: &'static str = "deletable-key ";

    fn memory(&self) -> usize {
        Deletable::memory(self)
    }

    fn largest_filter(&self) -> usize {
        Deletable::largest_filter(self)
    }

    fn save(&self, rdb: *mut raw::RedisModuleIO) {
        let (stages, partial) = self.stored_stages();
        let stages = stages.iter().map(|stage| stage.to_bytes());
        save_stages(rdb, &self.meta.encode(), stages, &partial);
    }

    fn load(rdb: *mut raw::RedisModuleIO) -> Result<Deletable, String> {
        let io = |error: redis_module::error::Error| format!("RDB read failed: {error}");
        let meta = Meta::decode(raw::load_string_buffer(rdb).map_err(io)?.as_ref())
            .map_err(|error| format!("bad header in RDB: {error:?}"))?;
        // A `RESTORE` is a client's command: its header must fit the limits a `CF.LOADCHUNK`
        // header must fit (nothing read while loading is refused).
        let lens = meta.stage_lens();
        let total = lens
            .iter()
            .fold(0, |sum: u64, &len| sum.saturating_add(len));
        check_value(None, lens.iter().copied().max().unwrap_or(0), total)
            .map_err(|error| format!("RESTORE refused: {error}"))?;
        let declared = meta.stage_blocks.len();
        let mut value = Deletable::restoring(meta);
        load_stages(
            rdb,
            &mut value,
            declared,
            Deletable::push_stage,
            Deletable::push_partial,
        )?;
        Ok(value)
    }

    /// `SCF.LOADCHUNK` commands, as `SCF.SCANDUMP` gives them.
    fn rewrite(&self, emit: &mut dyn FnMut(&CStr, &[&[u8]])) {
        let header = self.meta.encode();
        rewrite_stream(emit, c"SCF.LOADCHUNK", &header, |offset| {
            self.chunk_at(offset)
        });
    }
}
