//! GGUF metadata values (`enum gguf_type` in llama.cpp's `ggml/include/gguf.h`).

use serde::Serialize;

/// A metadata value's type, with its GGUF id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// `GGUF_TYPE_UINT8` = 0.
    U8,
    /// `GGUF_TYPE_INT8` = 1.
    I8,
    /// `GGUF_TYPE_UINT16` = 2.
    U16,
    /// `GGUF_TYPE_INT16` = 3.
    I16,
    /// `GGUF_TYPE_UINT32` = 4.
    U32,
    /// `GGUF_TYPE_INT32` = 5.
    I32,
    /// `GGUF_TYPE_FLOAT32` = 6.
    F32,
    /// `GGUF_TYPE_BOOL` = 7 (one byte).
    Bool,
    /// `GGUF_TYPE_STRING` = 8: a u64 length, then UTF-8 bytes.
    String,
    /// `GGUF_TYPE_ARRAY` = 9: an element type, a u64 count, then the elements.
    Array,
    /// `GGUF_TYPE_UINT64` = 10.
    U64,
    /// `GGUF_TYPE_INT64` = 11.
    I64,
    /// `GGUF_TYPE_FLOAT64` = 12.
    F64,
}

impl ValueType {
    /// The type with GGUF id `id` (0–12), or `None`.
    pub const fn from_id(id: u32) -> Option<ValueType> {
        Some(match id {
            0 => ValueType::U8,
            1 => ValueType::I8,
            2 => ValueType::U16,
            3 => ValueType::I16,
            4 => ValueType::U32,
            5 => ValueType::I32,
            6 => ValueType::F32,
            7 => ValueType::Bool,
            8 => ValueType::String,
            9 => ValueType::Array,
            10 => ValueType::U64,
            11 => ValueType::I64,
            12 => ValueType::F64,
            _ => return None,
        })
    }

    /// The GGUF id.
    pub const fn id(self) -> u32 {
        match self {
            ValueType::U8 => 0,
            ValueType::I8 => 1,
            ValueType::U16 => 2,
            ValueType::I16 => 3,
            ValueType::U32 => 4,
            ValueType::I32 => 5,
            ValueType::F32 => 6,
            ValueType::Bool => 7,
            ValueType::String => 8,
            ValueType::Array => 9,
            ValueType::U64 => 10,
            ValueType::I64 => 11,
            ValueType::F64 => 12,
        }
    }

    /// Bytes of one value of a fixed-size type; `None` for strings and arrays.
    pub const fn fixed_bytes(self) -> Option<u64> {
        match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => Some(1),
            ValueType::U16 | ValueType::I16 => Some(2),
            ValueType::U32 | ValueType::I32 | ValueType::F32 => Some(4),
            ValueType::U64 | ValueType::I64 | ValueType::F64 => Some(8),
            ValueType::String | ValueType::Array => None,
        }
    }
}

/// Array elements kept in memory: enough for a value per block (llama.cpp allows at most 512
/// blocks); longer arrays (a tokenizer's 128,256 tokens) keep only their element type and length.
pub const KEPT_ARRAY_ITEMS: usize = 1024;

/// A metadata array: its element type, its length and, when it has at most
/// [`KEPT_ARRAY_ITEMS`] elements, the elements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetaArray {
    /// Element type (never [`ValueType::Array`]).
    pub elem: ValueType,
    /// Number of elements in the file.
    pub len: u64,
    /// The elements, or empty when the array is longer than [`KEPT_ARRAY_ITEMS`].
    pub items: Vec<Value>,
}

/// One metadata value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// Unsigned 8-bit.
    U8(u8),
    /// Signed 8-bit.
    I8(i8),
    /// Unsigned 16-bit.
    U16(u16),
    /// Signed 16-bit.
    I16(i16),
    /// Unsigned 32-bit.
    U32(u32),
    /// Signed 32-bit.
    I32(i32),
    /// binary32.
    F32(f32),
    /// Boolean.
    Bool(bool),
    /// UTF-8 text.
    String(String),
    /// Unsigned 64-bit.
    U64(u64),
    /// Signed 64-bit.
    I64(i64),
    /// binary64.
    F64(f64),
    /// An array.
    Array(MetaArray),
}

impl Value {
    /// A non-negative integer value as `u64` (any integer type); `None` for negative numbers,
    /// floats, text and arrays.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A short display of the value: numbers and text as they are (text cut at 60 characters),
    /// arrays as `[u32 × 80]` or their kept items.
    pub fn summary(&self) -> String {
        match self {
            Value::U8(v) => v.to_string(),
            Value::I8(v) => v.to_string(),
            Value::U16(v) => v.to_string(),
            Value::I16(v) => v.to_string(),
            Value::U32(v) => v.to_string(),
            Value::I32(v) => v.to_string(),
            Value::F32(v) => v.to_string(),
            Value::Bool(v) => v.to_string(),
            Value::U64(v) => v.to_string(),
            Value::I64(v) => v.to_string(),
            Value::F64(v) => v.to_string(),
            Value::String(s) if s.chars().count() > 60 => {
                format!("{}…", s.chars().take(60).collect::<String>())
            }
            Value::String(s) => s.clone(),
            Value::Array(a) => format!("[{:?} × {}]", a.elem, a.len).to_lowercase(),
        }
    }
}
