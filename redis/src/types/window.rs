//! The `SBFwindow` data type (`SBF.WRESERVE`): how a windowed key's [`Window`] is saved, loaded
//! and rewritten. A type of its own, so the chain's encoding and its chunked transfer stay as
//! they are, and a server without windows refuses their RDB by type name.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::{ModuleValue, methods};
use crate::window::Window;

pub static WINDOW_TYPE: RedisType =
    RedisType::new("SBFwindow", Window::ENCODING_VERSION, methods::<Window>());

impl ModuleValue for Window {
    /// Encoding 1: one string, [`Window::encode`]'s bytes.
    const ENCODING_VERSION: c_int = 1;
    const WHAT: &'static str = "windowed-key ";

    /// The struct and every generation's blocks.
    fn memory(&self) -> usize {
        Window::memory(self)
    }

    fn largest_filter(&self) -> usize {
        self.filter.size_in_bytes()
    }

    /// One string: the header and the `SBLW` bytes.
    fn save(&self, rdb: *mut raw::RedisModuleIO) {
        raw::save_slice(rdb, &self.encode());
    }

    fn load(rdb: *mut raw::RedisModuleIO) -> Result<Window, String> {
        raw::load_string_buffer(rdb)
            .map_err(|error| format!("RDB read failed: {error}"))
            .and_then(|bytes| Window::decode(bytes.as_ref()))
    }

    /// One `SBF.WLOAD key bytes`.
    fn rewrite(&self, emit: &mut dyn FnMut(&CStr, &[&[u8]])) {
        emit(c"SBF.WLOAD", &[&self.encode()]);
    }
}
