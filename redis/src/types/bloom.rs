//! The `SBFfilter` data type: Redis's callbacks for a key's [`Sbf`] (RDB, AOF rewrite, `COPY`,
//! `MEMORY USAGE`, free).

use std::ffi::c_void;
use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use crate::alloc::can_allocate;
use crate::bloom::stage;
use crate::bloom::{self, Meta, Sbf};

/// The RDB encoding this module writes: a header (with the layout), each stage's `SBLM` bytes,
/// a restore's partial stage (see [`rdb_save`]). `rdb_load` refuses any other version.
pub const ENCODING_VERSION: c_int = 3;

pub static SBF_TYPE: RedisType = RedisType::new(
    "SBFfilter",
    ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        free: Some(free),
        mem_usage: Some(mem_usage),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// The value a type method is given.
///
/// # Safety
///
/// `value` is a live value of this type, made by this module (`set_value::<Sbf>` or
/// [`rdb_load`]/[`copy`]), not yet freed.
unsafe fn value<'a>(value: *const c_void) -> &'a Sbf {
    // SAFETY: the caller's contract.
    unsafe { &*value.cast::<Sbf>() }
}

/// RDB encoding 3: the header (`bloom::Meta`, which names the layout) as a string, the number
/// of complete stages, each stage's `SBLM` bytes as a string (checksummed by the crate, under
/// the layout's id), then the bitset bytes of a stage a restore has received in part (empty
/// otherwise).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    raw::save_slice(rdb, &sbf.meta().encode());
    let (stages, partial): (Vec<&dyn stage::Bitset>, &[u8]) = match &sbf.body {
        bloom::Body::Restoring(restore) => (
            restore.done.iter().map(stage::Part::bits).collect(),
            restore
                .partial
                .get(splitbloom::format::HEADER_BYTES..)
                .unwrap_or(&[]),
        ),
        _ => (sbf.stages(), &[]),
    };
    raw::save_unsigned(rdb, stages.len() as u64);
    for stage in stages {
        raw::save_slice(rdb, &stage.to_bytes());
    }
    raw::save_slice(rdb, partial);
}

/// Reads a value saved by [`rdb_save`]; a null pointer (Redis then refuses the RDB) for an
/// unknown encoding version or bytes that do not validate.
///
/// # Safety
///
/// Redis calls it with `rdb` an RDB reader positioned at a value of this type.
unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    if encver != ENCODING_VERSION {
        redis_module::logging::log_warning(format!(
            "splitbloom: refusing RDB encoding version {encver} (this module reads {ENCODING_VERSION})"
        ));
        return std::ptr::null_mut();
    }
    match load_value(rdb) {
        Ok(sbf) => Box::into_raw(Box::new(sbf)).cast(),
        Err(message) => {
            redis_module::logging::log_warning(format!("splitbloom: {message}"));
            std::ptr::null_mut()
        }
    }
}

fn load_value(rdb: *mut raw::RedisModuleIO) -> Result<Sbf, String> {
    let io = |error: redis_module::error::Error| format!("RDB read failed: {error}");
    let meta = Meta::decode(raw::load_string_buffer(rdb).map_err(io)?.as_ref())
        .map_err(|error| format!("bad header in RDB: {error}"))?;
    let count = raw::load_unsigned(rdb).map_err(io)?;
    if count > meta.stage_blocks.len() as u64 {
        return Err("more stages in RDB than its header has".into());
    }
    let mut stages = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let bytes = raw::load_string_buffer(rdb).map_err(io)?;
        stages.push(
            stage::Part::from_bytes(bytes.as_ref())
                .map_err(|error| format!("bad filter in RDB: {error}"))?,
        );
    }
    let partial = raw::load_string_buffer(rdb).map_err(io)?;
    Sbf::assemble(meta, stages, partial.as_ref())
}

/// Rewrites a key as `SBF.LOADCHUNK` commands, as `SBF.SCANDUMP` gives them: one argument of
/// at most 16 MiB each, far below Redis's `proto-max-bulk-len`, whatever the filter's size.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    let emit_chunk = |iter: u64, bytes: &[u8]| {
        let iter = iter.to_string();
        // SAFETY: Redis set the API pointers before calling any type method; the format "sbb"
        // matches the arguments: `s` a RedisModuleString (the key Redis gave us), each `b` a
        // pointer and its length.
        unsafe {
            let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
            emit(
                aof,
                c"SBF.LOADCHUNK".as_ptr(),
                c"sbb".as_ptr(),
                key,
                iter.as_ptr(),
                iter.len(),
                bytes.as_ptr(),
                bytes.len(),
            );
        }
    };
    emit_chunk(1, &sbf.meta().encode());
    let mut offset = 0u64;
    while let Some(chunk) = sbf.chunk_at(offset) {
        offset += chunk.len() as u64;
        emit_chunk(offset + 1, &chunk);
    }
}

/// `COPY`: a deep copy; null (Redis then answers an error) when its memory cannot be had.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let sbf = unsafe { self::value(value) };
    // Cloning allocates the bitsets through `Vec`'s infallible path: check the size first.
    if !can_allocate(sbf.memory()) {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(sbf.clone())).cast()
}

/// Frees a value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new`.
    drop(unsafe { Box::from_raw(value.cast::<Sbf>()) });
}

/// `MEMORY USAGE`: the value's struct, its stages and their bitsets (`Sbf::memory`).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type, made by this module.
unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    unsafe { self::value(value) }.memory()
}
