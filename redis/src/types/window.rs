//! The `SBFwindow` data type (`SBF.WRESERVE`): Redis's callbacks for a windowed key's
//! [`Window`] (RDB, AOF rewrite, `COPY`, `MEMORY USAGE`, free).

use std::ffi::c_void;
use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use crate::alloc::can_allocate;
use crate::window::Window;

/// The RDB encoding of windowed keys: one string, `Window::encode`'s bytes.
/// `window_rdb_load` refuses any other version.
pub const WINDOW_ENCODING_VERSION: c_int = 1;

/// Windowed keys (`SBF.WRESERVE`): a separate type, so the chain's encoding and its chunked
/// transfer stay as they are, and a server without windows refuses their RDB by type name.
pub static WINDOW_TYPE: RedisType = RedisType::new(
    "SBFwindow",
    WINDOW_ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(window_rdb_load),
        rdb_save: Some(window_rdb_save),
        aof_rewrite: Some(window_aof_rewrite),
        free: Some(window_free),
        mem_usage: Some(window_mem_usage),
        digest: None,
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(window_copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// The windowed value a type method is given.
///
/// # Safety
///
/// `value` is a live value of [`WINDOW_TYPE`], made by this module, not yet freed.
unsafe fn window_value<'a>(value: *const c_void) -> &'a Window {
    // SAFETY: the caller's contract.
    unsafe { &*value.cast::<Window>() }
}

/// Saves a windowed key as one string: its header and `SBLW` bytes.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a value of this type.
    raw::save_slice(rdb, &unsafe { window_value(value) }.encode());
}

/// Reads [`window_rdb_save`]'s string; null (Redis refuses the RDB) for another encoding
/// version or bytes that do not validate.
///
/// # Safety
///
/// Redis calls it with `rdb` an RDB reader positioned at a value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    if encver != WINDOW_ENCODING_VERSION {
        redis_module::logging::log_warning(format!(
            "splitbloom: refusing windowed-key RDB encoding version {encver} (this module reads {WINDOW_ENCODING_VERSION})"
        ));
        return std::ptr::null_mut();
    }
    let loaded = raw::load_string_buffer(rdb)
        .map_err(|error| format!("RDB read failed: {error}"))
        .and_then(|bytes| Window::decode(bytes.as_ref()));
    match loaded {
        Ok(window) => Box::into_raw(Box::new(window)).cast(),
        Err(message) => {
            redis_module::logging::log_warning(format!("splitbloom: {message}"));
            std::ptr::null_mut()
        }
    }
}

/// Rewrites a windowed key as one `SBF.WLOAD key bytes`.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a value of this type.
    let bytes = unsafe { window_value(value) }.encode();
    // SAFETY: Redis set the API pointers before calling any type method; the format "sb"
    // matches the arguments: `s` the RedisModuleString Redis gave us, `b` a pointer and its
    // length.
    unsafe {
        let emit = raw::RedisModule_EmitAOF.expect("Redis provides RedisModule_EmitAOF");
        emit(
            aof,
            c"SBF.WLOAD".as_ptr(),
            c"sb".as_ptr(),
            key,
            bytes.as_ptr(),
            bytes.len(),
        );
    }
}

/// `COPY` of a windowed key: a deep copy; null (Redis then answers an error) when its memory
/// cannot be had.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a value of this type.
    let window = unsafe { window_value(value) };
    if !can_allocate(window.memory()) {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(window.clone())).cast()
}

/// Frees a windowed value.
///
/// # Safety
///
/// Redis calls it once per value, with `value` made by this module through `Box::new`.
unsafe extern "C" fn window_free(value: *mut c_void) {
    // SAFETY: Redis frees each value once; it was made by `Box::new`.
    drop(unsafe { Box::from_raw(value.cast::<Window>()) });
}

/// `MEMORY USAGE` of a windowed key: the struct and every generation's blocks.
///
/// # Safety
///
/// Redis calls it with `value` a live value of [`WINDOW_TYPE`].
unsafe extern "C" fn window_mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a value of this type.
    unsafe { window_value(value) }.memory()
}
