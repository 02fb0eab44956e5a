//! The `SBFfilter` data type: how a key's [`Sbf`] is saved, loaded and rewritten.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::{ModuleValue, load_stages, methods, rewrite_stream, save_stages};
use crate::bloom::{Meta, Sbf};
use crate::memory::check_value;

pub static SBF_TYPE: RedisType =
    RedisType::new("SBFfilter", Sbf::ENCODING_VERSION, methods::<Sbf>());

impl ModuleValue for Sbf {
    /// Encoding 3: a header (with the layout), each stage's `SBLM` bytes, a restore's partial
    /// stage (see [`save`](ModuleValue::save)).
    const ENCODING_VERSION: c_int = 3;
    const WHAT: &'static str = "";

    fn memory(&self) -> usize {
        Sbf::memory(self)
    }

    fn largest_filter(&self) -> usize {
        Sbf::largest_filter(self)
    }

    /// The header ([`Meta`], which names the layout), then the stages ([`save_stages`]), each
    /// under its layout's id.
    fn save(&self, rdb: *mut raw::RedisModuleIO) {
        let (stages, partial) = self.stored_stages();
        let stages = stages.iter().map(|stage| stage.to_bytes());
        save_stages(rdb, &self.meta().encode(), stages, &partial);
    }

    fn load(rdb: *mut raw::RedisModuleIO) -> Result<Sbf, String> {
        let io = |error: redis_module::error::Error| format!("RDB read failed: {error}");
        let meta = Meta::decode(raw::load_string_buffer(rdb).map_err(io)?.as_ref())
            .map_err(|error| format!("bad header in RDB: {error}"))?;
        // A `RESTORE` is a client's command: what it declares must fit the limits a
        // `LOADCHUNK` header must fit (nothing read while loading is refused).
        check_value(None, meta.largest_stage_len(), meta.bitset_len())
            .map_err(|error| format!("RESTORE refused: {error}"))?;
        let declared = meta.stage_blocks.len();
        let mut sbf = Sbf::restoring(meta);
        load_stages(rdb, &mut sbf, declared, Sbf::push_stage, Sbf::push_partial)?;
        Ok(sbf)
    }

    /// `SBF.LOADCHUNK` commands, as `SBF.SCANDUMP` gives them.
    fn rewrite(&self, emit: &mut dyn FnMut(&CStr, &[&[u8]])) {
        let header = self.meta().encode();
        rewrite_stream(emit, c"SBF.LOADCHUNK", &header, |offset| {
            self.chunk_at(offset)
        });
    }
}
