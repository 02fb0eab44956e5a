//! The module's data types, one per file: each one's `RedisType` and the C callbacks Redis calls
//! on its values. The values themselves ([`crate::bloom`], [`crate::window`]) know nothing of
//! Redis's type API, and the commands ([`crate::commands`]) only open keys of these types.

pub mod bloom;
pub mod window;
