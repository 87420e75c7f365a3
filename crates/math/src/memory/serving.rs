//! Serving: the KV cache.

pub mod kv_cache;
