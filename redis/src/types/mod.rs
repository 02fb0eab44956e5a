//! The module's data types, one per file: each one's `RedisType` and how its values are saved,
//! loaded and rewritten. The values themselves ([`crate::bloom`], [`crate::window`]) know
//! nothing of Redis's type API, and the commands ([`crate::commands`]) only open keys of these
//! types.
//!
//! Every type's callbacks are the generic ones below, written once over [`ModuleValue`]: a new
//! data type implements the trait and names `methods::<Its>()`.

use std::ffi::{CStr, c_void};
use std::os::raw::c_int;

use redis_module::raw;

use crate::alloc::can_allocate;
use crate::memory::check_value;

pub mod bloom;
pub mod quotient;
pub mod window;

/// The AOF rewrite of a value made of stages ([`crate::stream`]), as its `SCANDUMP` gives it:
/// `command key 1 header`, then `command key iter chunk` for every chunk, each at most 16 MiB,
/// far below Redis's `proto-max-bulk-len`, whatever the value's size.
fn rewrite_stream(
    emit: &mut dyn FnMut(&CStr, &[&[u8]]),
    command: &CStr,
    header: &[u8],
    chunk_at: impl Fn(u64) -> Option<Vec<u8>>,
) {
    emit(command, &[b"1", header]);
    let mut offset = 0u64;
    while let Some(chunk) = chunk_at(offset) {
        offset += chunk.len() as u64;
        emit(command, &[(offset + 1).to_string().as_bytes(), &chunk]);
    }
}

/// Writes a value made of stages to an RDB: its `header` as a string, the number of complete
/// `stages`, each one's `SBLM` bytes as a string (checksummed by the crate), then the bytes of a
/// stage a restore has received in part (empty otherwise).
fn save_stages(
    rdb: *mut raw::RedisModuleIO,
    header: &[u8],
    stages: impl ExactSizeIterator<Item = Vec<u8>>,
    partial: &[u8],
) {
    raw::save_slice(rdb, header);
    raw::save_unsigned(rdb, stages.len() as u64);
    for stage in stages {
        raw::save_slice(rdb, &stage);
    }
    raw::save_slice(rdb, partial);
}

/// Reads what [`save_stages`] wrote after its header, into `value` (a
/// restore of that header): the number of complete stages, at most the `declared` ones, each
/// stage's `SBLM` bytes to `push_stage`, then a restore's partial stage to `push_partial`.
fn load_stages<V>(
    rdb: *mut raw::RedisModuleIO,
    value: &mut V,
    declared: usize,
    push_stage: impl Fn(&mut V, usize, &[u8]) -> Result<(), String>,
    push_partial: impl Fn(&mut V, &[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let io = |error: redis_module::error::Error| format!("RDB read failed: {error}");
    let count = raw::load_unsigned(rdb).map_err(io)?;
    if count > declared as u64 {
        return Err("more stages in RDB than its header has".into());
    }
    for index in 0..count as usize {
        push_stage(
            value,
            index,
            raw::load_string_buffer(rdb).map_err(io)?.as_ref(),
        )?;
    }
    push_partial(value, raw::load_string_buffer(rdb).map_err(io)?.as_ref())
}

/// What Redis's callbacks need of a value type.
pub trait ModuleValue: Clone {
    /// The RDB encoding version written; [`rdb_load`] refuses any other.
    const ENCODING_VERSION: c_int;
    /// What the type is, as log lines name its RDB encoding (`"windowed-key "`, or `""`).
    const WHAT: &'static str;

    /// Bytes as `MEMORY USAGE` counts them.
    fn memory(&self) -> usize;
    /// Bytes of its largest filter, as `MAX_FILTER_BYTES` bounds it.
    fn largest_filter(&self) -> usize;
    /// Writes the value to an RDB.
    fn save(&self, rdb: *mut raw::RedisModuleIO);
    /// Reads what [`save`](ModuleValue::save) wrote, every field checked.
    fn load(rdb: *mut raw::RedisModuleIO) -> Result<Self, String>;
    /// The commands that recreate the value: each a list of arguments after the key, each
    /// small enough for `proto-max-bulk-len`.
    fn rewrite(&self, emit: &mut dyn FnMut(&CStr, &[&[u8]]));
}

/// The callbacks of a type whose values are `T`.
pub const fn methods<T: ModuleValue>() -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load::<T>),
        rdb_save: Some(rdb_save::<T>),
        aof_rewrite: Some(aof_rewrite::<T>),
        free: Some(free::<T>),
        mem_usage: Some(mem_usage::<T>),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy::<T>),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    }
}

/// The value a type method is given.
///
/// # Safety
///
/// `value` is a live value of the type whose callbacks name `T` ([`methods`]), made by this
/// module through `Box::new` (`set_value`, [`rdb_load`] or [`copy`]), not yet freed.
unsafe fn value<'a, T>(value: *const c_void) -> &'a T {
    // SAFETY: the caller's contract.
    unsafe { &*value.cast::<T>() }
}

/// Saves a value ([`ModuleValue::save`]).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type.
unsafe extern "C" fn rdb_save<T: ModuleValue>(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    unsafe { self::value::<T>(value) }.save(rdb);
}

/// Reads a value saved by [`rdb_save`]; null (Redis then refuses the RDB, or `RESTORE` answers
/// an error) for another encoding version or bytes that do not validate, with a log line.
///
/// # Safety
///
/// Redis calls it with `rdb` an RDB reader positioned at a value of this type.
unsafe extern "C" fn rdb_load<T: ModuleValue>(
    rdb: *mut raw::RedisModuleIO,
    encver: c_int,
) -> *mut c_void {
    let loaded = if encver == T::ENCODING_VERSION {
        T::load(rdb)
    } else {
        Err(format!(
            "refusing {}RDB encoding version {encver} (this module reads {})",
            T::WHAT,
            T::ENCODING_VERSION
        ))
    };
    match loaded {
        Ok(value) => Box::into_raw(Box::new(value)).cast(),
        Err(message) => {
            redis_module::logging::log_warning(format!("splitbloom: {message}"));
            std::ptr::null_mut()
        }
    }
}

/// Rewrites a key as the commands [`ModuleValue::rewrite`] gives.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type and `key` its name.
unsafe extern "C" fn aof_rewrite<T: ModuleValue>(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let value = unsafe { self::value::<T>(value) };
    value.rewrite(&mut |command, args| {
        // SAFETY: Redis set the API pointers before calling any type method; each format
        // matches its arguments: `s` the RedisModuleString Redis gave us, each `b` a pointer
        // and its length.
        unsafe {
            let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
            match args {
                [one] => emit(
                    aof,
                    command.as_ptr(),
                    c"sb".as_ptr(),
                    key,
                    one.as_ptr(),
                    one.len(),
                ),
                [one, two] => emit(
                    aof,
                    command.as_ptr(),
                    c"sbb".as_ptr(),
                    key,
                    one.as_ptr(),
                    one.len(),
                    two.as_ptr(),
                    two.len(),
                ),
                _ => unreachable!("the module's rewrites have one or two arguments"),
            }
        }
    });
}

/// `COPY`: a deep copy; null (Redis then answers an error) when the limits refuse it
/// ([`check_value`]) or its memory cannot be had.
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type.
unsafe extern "C" fn copy<T: ModuleValue>(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let value = unsafe { self::value::<T>(value) };
    let (largest, total) = (value.largest_filter(), value.memory());
    if let Err(message) = check_value(None, largest as u64, total as u64) {
        redis_module::logging::log_warning(format!("splitbloom: COPY refused: {message}"));
        return std::ptr::null_mut();
    }
    // Cloning allocates the bitsets through `Vec`'s infallible path: check the size first.
    if !can_allocate(total) {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(value.clone())).cast()
}

/// Frees a value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn free<T>(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new`.
    drop(unsafe { Box::from_raw(value.cast::<T>()) });
}

/// `MEMORY USAGE` ([`ModuleValue::memory`]).
///
/// # Safety
///
/// Redis calls it with `value` a live value of this type.
unsafe extern "C" fn mem_usage<T: ModuleValue>(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    unsafe { self::value::<T>(value) }.memory()
}
