//! Reads a GGUF header and tensor index from a prefix of the file.
//!
//! The layout (llama.cpp `ggml/src/gguf.cpp`, `gguf_init_from_file_impl`; all little-endian):
//! magic `GGUF`, u32 version, u64 tensor count, u64 metadata count; each metadata pair as a
//! string key (u64 length + UTF-8), a u32 value type and the value; each tensor as a string
//! name, a u32 dimension count, that many u64 dimensions, a u32 `ggml_type` and a u64 offset
//! into the data section, which starts at the next multiple of `general.alignment` (default
//! 32). The checks are llama.cpp's (at most 4 dimensions, names under 64 bytes, rows a whole
//! number of blocks, tensors packed in index order), plus caps on every count and length so a
//! corrupt header can neither make the reader allocate absurdly nor loop for long.

use super::error::GgufError;
use super::types::TensorType;
use super::value::{MetaArray, Value, ValueType, KEPT_ARRAY_ITEMS};
use serde::Serialize;
use std::collections::HashSet;

/// Most tensors accepted (the largest MoE files hold a few tens of thousands).
pub const MAX_TENSORS: u64 = 1 << 20;
/// Most metadata pairs accepted.
pub const MAX_METADATA: u64 = 1 << 20;
/// Most elements of one metadata array (tokenizers hold a few hundred thousand).
pub const MAX_ARRAY_LEN: u64 = 1 << 28;
/// Longest metadata string in bytes (chat templates run to tens of kilobytes).
pub const MAX_STRING_BYTES: u64 = 1 << 24;
/// Longest tensor name in bytes (llama.cpp's `GGML_MAX_NAME` is 64, terminator included).
pub const MAX_NAME_BYTES: u64 = 63;
/// Most dimensions of a tensor (`GGML_MAX_DIMS`).
pub const MAX_DIMS: u64 = 4;
/// Data alignment when `general.alignment` is absent (`GGUF_DEFAULT_ALIGNMENT`).
pub const DEFAULT_ALIGNMENT: u64 = 32;

/// One entry of the tensor index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorInfo {
    /// Name (`blk.0.attn_q.weight`).
    pub name: String,
    /// Dimensions, innermost (row length) first, as GGUF stores them.
    pub dims: Vec<u64>,
    /// Storage type.
    #[serde(rename = "type", serialize_with = "type_name")]
    pub ty: TensorType,
    /// Offset of its data from the start of the data section, in bytes.
    pub offset: u64,
    /// Bytes of its data (whole blocks, no padding).
    pub bytes: u64,
}

fn type_name<S: serde::Serializer>(t: &TensorType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name())
}

impl TensorInfo {
    /// Number of values (product of the dimensions; 1 for a scalar).
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// A parsed GGUF header and tensor index.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gguf {
    /// Format version (2 or 3).
    pub version: u32,
    /// Metadata pairs in file order.
    pub metadata: Vec<(String, Value)>,
    /// Tensor index in file order.
    pub tensors: Vec<TensorInfo>,
    /// Data alignment in bytes.
    pub alignment: u64,
    /// Byte where the data section starts (the header and index, padded to the alignment).
    pub data_offset: u64,
    /// Bytes of the data section: every tensor padded to the alignment.
    pub data_bytes: u64,
}

impl Gguf {
    /// The value of metadata key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `general.architecture` (`llama`, `qwen2`, …).
    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture").and_then(Value::as_str)
    }

    /// Bytes of all tensor data, unpadded (saturating).
    pub fn tensor_bytes(&self) -> u64 {
        self.tensors
            .iter()
            .fold(0u64, |a, t| a.saturating_add(t.bytes))
    }
}

/// Parses the GGUF header and tensor index in `prefix`, the first bytes of a file of
/// `file_len` bytes (`None` when the length is unknown: the prefix may then be the whole file
/// or not).
///
/// Errors: [`GgufError::NeedMore`] when the prefix ends inside the header and the file is longer
/// (read at least `needed` bytes and call again); [`GgufError::Truncated`] when the file itself
/// ends there; the other variants for files that are not GGUF or are corrupt. Allocates at most
/// a small multiple of `prefix.len()`; never panics.
pub fn parse(prefix: &[u8], file_len: Option<u64>) -> Result<Gguf, GgufError> {
    let mut c = Cursor {
        bytes: prefix,
        pos: 0,
        file_len,
    };
    let magic = c.take(4).map_err(|e| match e {
        GgufError::Truncated { .. } => GgufError::NotGguf {
            found: prefix.to_vec(),
        },
        e => e,
    })?;
    if magic != b"GGUF" {
        return Err(GgufError::NotGguf {
            found: magic.to_vec(),
        });
    }
    let version = c.u32()?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::UnsupportedVersion { version });
    }
    let n_tensors = capped(c.u64()?, MAX_TENSORS, "tensors")?;
    let n_kv = capped(c.u64()?, MAX_METADATA, "metadata keys")?;
    let mut metadata = Vec::with_capacity(c.room_for(n_kv, 13));
    let mut keys = HashSet::new();
    for _ in 0..n_kv {
        let key = c.string(MAX_STRING_BYTES, "metadata key")?;
        if key.is_empty() || !keys.insert(key.clone()) {
            return Err(invalid(format!(
                "metadata key '{key}' is empty or repeated"
            )));
        }
        let id = c.u32()?;
        let value = c.value(&key, id)?;
        metadata.push((key, value));
    }
    let alignment = match metadata.iter().find(|(k, _)| k == "general.alignment") {
        None => DEFAULT_ALIGNMENT,
        Some((_, Value::U32(a))) if a.is_power_of_two() => u64::from(*a),
        Some((_, v)) => {
            return Err(invalid(format!(
                "general.alignment is {}, not a power of two stored as u32",
                v.summary()
            )))
        }
    };
    let mut tensors: Vec<TensorInfo> = Vec::with_capacity(c.room_for(n_tensors, 24));
    let mut names = HashSet::new();
    for _ in 0..n_tensors {
        let t = c.tensor()?;
        if !names.insert(t.name.clone()) {
            return Err(invalid(format!("tensor name '{}' is repeated", t.name)));
        }
        tensors.push(t);
    }
    let index_end = c.pos;
    let data_offset = if n_tensors > 0 {
        index_end.next_multiple_of(alignment)
    } else {
        index_end
    };
    let data_bytes = place_tensors(&tensors, alignment, data_offset, file_len)?;
    Ok(Gguf {
        version,
        metadata,
        tensors,
        alignment,
        data_offset,
        data_bytes,
    })
}

/// Checks that the tensors are packed in index order, each padded to `alignment` (as llama.cpp
/// requires) and, when the file length is known, that their data lies inside the file; returns
/// the data section's length.
fn place_tensors(
    tensors: &[TensorInfo],
    alignment: u64,
    data_offset: u64,
    file_len: Option<u64>,
) -> Result<u64, GgufError> {
    let mut size: u64 = 0;
    for t in tensors {
        if t.offset != size {
            return Err(invalid(format!(
                "tensor '{}' starts at data offset {} but the tensors before it end at {} (llama.cpp requires them packed in index order)",
                t.name, t.offset, size
            )));
        }
        let end = data_offset
            .checked_add(size)
            .and_then(|s| s.checked_add(t.bytes));
        let padded = t
            .bytes
            .checked_next_multiple_of(alignment)
            .and_then(|p| size.checked_add(p));
        let (Some(end), Some(padded)) = (end, padded) else {
            return Err(invalid(format!(
                "tensor '{}' ends beyond 2^64 bytes",
                t.name
            )));
        };
        if let Some(file_len) = file_len.filter(|l| end > *l) {
            return Err(GgufError::DataPastEnd {
                tensor: t.name.clone(),
                end,
                file_len,
            });
        }
        size = padded;
    }
    Ok(size)
}

/// Bytes to read next after `err` from a file of `file_len` bytes that was read up to `have`
/// bytes: at least what the parser asked for, at least twice as much as before (so a header
/// needs few reads), never past the end of the file. `None` when `err` is not
/// [`GgufError::NeedMore`] or the whole file has been read.
pub fn next_read_len(err: &GgufError, file_len: u64) -> Option<u64> {
    match *err {
        GgufError::NeedMore { have, needed } if have < file_len => {
            Some(needed.max(have.saturating_mul(2)).min(file_len))
        }
        _ => None,
    }
}

/// The first read: enough for most headers without a tokenizer (1 MiB).
pub const FIRST_READ: u64 = 1 << 20;

fn invalid(reason: String) -> GgufError {
    GgufError::Invalid { reason }
}

fn capped(value: u64, limit: u64, what: &'static str) -> Result<u64, GgufError> {
    if value > limit {
        Err(GgufError::Absurd { what, value, limit })
    } else {
        Ok(value)
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: u64,
    file_len: Option<u64>,
}

impl Cursor<'_> {
    /// The error for needing the first `needed` bytes.
    fn need(&self, needed: u64) -> GgufError {
        let have = self.bytes.len() as u64;
        match self.file_len {
            Some(file_len) if needed > file_len || have >= file_len => {
                GgufError::Truncated { file_len, needed }
            }
            _ => GgufError::NeedMore { have, needed },
        }
    }

    fn take(&mut self, n: u64) -> Result<&[u8], GgufError> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.need(u64::MAX))?;
        if end > self.bytes.len() as u64 {
            return Err(self.need(end));
        }
        let s = &self.bytes[self.pos as usize..end as usize];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N as u64)?);
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// How many items of at least `min_bytes` each the rest of the prefix can hold, capped at
    /// `count`: a safe initial capacity.
    fn room_for(&self, count: u64, min_bytes: u64) -> usize {
        let left = (self.bytes.len() as u64).saturating_sub(self.pos);
        count.min(left / min_bytes) as usize
    }

    fn string(&mut self, limit: u64, what: &'static str) -> Result<String, GgufError> {
        let len = capped(self.u64()?, limit, "string bytes")?;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| invalid(format!("a {what} is not UTF-8")))
    }

    fn value(&mut self, key: &str, id: u32) -> Result<Value, GgufError> {
        let bad = || GgufError::BadValueType {
            key: key.into(),
            id,
        };
        let ty = ValueType::from_id(id).ok_or_else(bad)?;
        if ty != ValueType::Array {
            return self.scalar(ty);
        }
        let elem_id = self.u32()?;
        let elem = ValueType::from_id(elem_id)
            .filter(|t| *t != ValueType::Array)
            .ok_or(GgufError::BadValueType {
                key: key.into(),
                id: elem_id,
            })?;
        let len = capped(self.u64()?, MAX_ARRAY_LEN, "array elements")?;
        let mut items = Vec::new();
        if len as usize <= KEPT_ARRAY_ITEMS {
            for _ in 0..len {
                items.push(self.scalar(elem)?);
            }
        } else if let Some(size) = elem.fixed_bytes() {
            // len ≤ 2^28 and size ≤ 8: no overflow.
            self.take(len * size)?;
        } else {
            for _ in 0..len {
                let n = capped(self.u64()?, MAX_STRING_BYTES, "string bytes")?;
                self.take(n)?;
            }
        }
        Ok(Value::Array(MetaArray { elem, len, items }))
    }

    fn scalar(&mut self, ty: ValueType) -> Result<Value, GgufError> {
        Ok(match ty {
            ValueType::U8 => Value::U8(self.array::<1>()?[0]),
            ValueType::I8 => Value::I8(i8::from_le_bytes(self.array()?)),
            ValueType::U16 => Value::U16(u16::from_le_bytes(self.array()?)),
            ValueType::I16 => Value::I16(i16::from_le_bytes(self.array()?)),
            ValueType::U32 => Value::U32(self.u32()?),
            ValueType::I32 => Value::I32(i32::from_le_bytes(self.array()?)),
            ValueType::F32 => Value::F32(f32::from_le_bytes(self.array()?)),
            ValueType::Bool => Value::Bool(self.array::<1>()?[0] != 0),
            ValueType::String => Value::String(self.string(MAX_STRING_BYTES, "metadata string")?),
            ValueType::U64 => Value::U64(self.u64()?),
            ValueType::I64 => Value::I64(i64::from_le_bytes(self.array()?)),
            ValueType::F64 => Value::F64(f64::from_le_bytes(self.array()?)),
            ValueType::Array => return Err(invalid("an array holds arrays".into())),
        })
    }

    fn tensor(&mut self) -> Result<TensorInfo, GgufError> {
        let name = self.string(MAX_NAME_BYTES, "tensor name")?;
        let n_dims = capped(u64::from(self.u32()?), MAX_DIMS, "tensor dimensions")?;
        let mut dims = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            dims.push(self.u64()?);
        }
        let id = self.u32()?;
        let ty = TensorType::from_id(id).ok_or_else(|| GgufError::UnknownTensorType {
            tensor: name.clone(),
            id,
        })?;
        let offset = self.u64()?;
        let bytes = tensor_bytes(&name, &dims, ty)?;
        Ok(TensorInfo {
            name,
            dims,
            ty,
            offset,
            bytes,
        })
    }
}

/// Bytes of a tensor's data, with llama.cpp's shape checks: no dimension above `i64::MAX`, an
/// element count that fits `i64`, rows (the first dimension) a whole number of blocks.
fn tensor_bytes(name: &str, dims: &[u64], ty: TensorType) -> Result<u64, GgufError> {
    let bad = |why: String| invalid(format!("tensor '{name}' {why}"));
    let elements = dims.iter().try_fold(1u64, |acc, d| {
        acc.checked_mul(*d).filter(|n| *n <= i64::MAX as u64)
    });
    let elements =
        elements.ok_or_else(|| bad(format!("has shape {dims:?}: more than 2^63 values")))?;
    let row = dims.first().copied().unwrap_or(1);
    if row % ty.block_values() != 0 {
        return Err(bad(format!(
            "has rows of {row} values, not a whole number of {ty} blocks of {}",
            ty.block_values()
        )));
    }
    ty.bytes_for(elements)
        .ok_or_else(|| bad(format!("has shape {dims:?}: its size overflows")))
}
