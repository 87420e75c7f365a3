//! Writes small GGUF headers: the synthetic files the reader, CLI and page tests parse. It writes
//! the layout [`super::parse`] reads (version 3, little-endian); tensor data is zeros, or left
//! out so a test can describe a file of tens of gigabytes in a few kilobytes.

use super::types::TensorType;
use super::value::ValueType;

/// Builds a GGUF file in memory.
#[derive(Clone, Debug, Default)]
pub struct GgufWriter {
    kv: Vec<u8>,
    n_kv: u64,
    tensors: Vec<(String, Vec<u64>, TensorType)>,
    alignment: Option<u32>,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

impl GgufWriter {
    /// An empty file: no metadata, no tensors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a metadata pair whose value is `ty` followed by the raw little-endian `value` bytes
    /// (for values of any type, or deliberately malformed ones).
    pub fn raw(mut self, key: &str, ty: u32, value: &[u8]) -> Self {
        put_str(&mut self.kv, key);
        self.kv.extend_from_slice(&ty.to_le_bytes());
        self.kv.extend_from_slice(value);
        self.n_kv += 1;
        self
    }

    /// Adds a u32 value (`general.alignment` also sets the data alignment).
    pub fn u32(mut self, key: &str, v: u32) -> Self {
        if key == "general.alignment" {
            self.alignment = Some(v);
        }
        self.raw(key, ValueType::U32.id(), &v.to_le_bytes())
    }

    /// Adds a u64 value.
    pub fn u64(self, key: &str, v: u64) -> Self {
        self.raw(key, ValueType::U64.id(), &v.to_le_bytes())
    }

    /// Adds an f32 value.
    pub fn f32(self, key: &str, v: f32) -> Self {
        self.raw(key, ValueType::F32.id(), &v.to_le_bytes())
    }

    /// Adds a string value.
    pub fn string(self, key: &str, v: &str) -> Self {
        let mut b = Vec::new();
        put_str(&mut b, v);
        self.raw(key, ValueType::String.id(), &b)
    }

    /// Adds an array of strings.
    pub fn strings(self, key: &str, items: &[&str]) -> Self {
        let mut b = ValueType::String.id().to_le_bytes().to_vec();
        b.extend_from_slice(&(items.len() as u64).to_le_bytes());
        for s in items {
            put_str(&mut b, s);
        }
        self.raw(key, ValueType::Array.id(), &b)
    }

    /// Adds an array of i32.
    pub fn i32s(self, key: &str, items: &[i32]) -> Self {
        let mut b = ValueType::I32.id().to_le_bytes().to_vec();
        b.extend_from_slice(&(items.len() as u64).to_le_bytes());
        for v in items {
            b.extend_from_slice(&v.to_le_bytes());
        }
        self.raw(key, ValueType::Array.id(), &b)
    }

    /// Adds a tensor of shape `dims` (row length first) and type `ty`.
    pub fn tensor(mut self, name: &str, dims: &[u64], ty: TensorType) -> Self {
        self.tensors.push((name.into(), dims.to_vec(), ty));
        self
    }

    /// The header and tensor index, padded to the alignment, and the length the whole file
    /// would have with every tensor's data (padded like llama.cpp's writer). Tensors whose size
    /// overflows count as 0 bytes.
    pub fn header(&self) -> (Vec<u8>, u64) {
        let align = u64::from(self.alignment.unwrap_or(32)).max(1);
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.n_kv.to_le_bytes());
        out.extend_from_slice(&self.kv);
        let mut offset = 0u64;
        for (name, dims, ty) in &self.tensors {
            put_str(&mut out, name);
            out.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            for d in dims {
                out.extend_from_slice(&d.to_le_bytes());
            }
            out.extend_from_slice(&ty.id().to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
            let elements = dims.iter().try_fold(1u64, |a, d| a.checked_mul(*d));
            let bytes = elements.and_then(|n| ty.bytes_for(n)).unwrap_or(0);
            offset = offset.saturating_add(bytes.next_multiple_of(align));
        }
        if !self.tensors.is_empty() {
            out.resize((out.len() as u64).next_multiple_of(align) as usize, 0);
        }
        let len = out.len() as u64 + offset;
        (out, len)
    }

    /// The whole file, tensor data as zeros. Only for small tensors: the data is allocated.
    pub fn file(&self) -> Vec<u8> {
        let (mut out, len) = self.header();
        out.resize(len as usize, 0);
        out
    }
}
