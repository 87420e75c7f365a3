//! Reading user tensors: `.npy` (v1–v3, little-endian F32/F16, C order) and `.safetensors`
//! (F32, F16, BF16). Every malformed, oversized, truncated or unsupported input is an `Err` with a
//! message saying which; nothing panics.

use super::error::QuantError;
use crate::format::FormatId;

/// Largest file accepted, in bytes (256 MiB).
pub const MAX_FILE_BYTES: usize = 256 << 20;

/// A named tensor as f32 values.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Name (the safetensors key, or "array" for .npy).
    pub name: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub values: Vec<f32>,
}

/// Name, dtype and shape of a tensor in a safetensors file, without its values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TensorInfo {
    /// Key.
    pub name: String,
    /// Dtype as written in the header.
    pub dtype: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Whether bitbudget can read it (F32, F16, BF16).
    pub supported: bool,
}

fn bad(why: impl Into<String>) -> QuantError {
    QuantError::BadFile(why.into())
}

fn elements(shape: &[usize]) -> Result<usize, QuantError> {
    shape
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(*d))
        .ok_or_else(|| bad("the shape's element count overflows"))
}

fn decode(dtype: &str, raw: &[u8]) -> Result<Vec<f32>, QuantError> {
    Ok(match dtype {
        "F32" => raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        "F16" => raw
            .chunks_exact(2)
            .map(|c| FormatId::F16.decode(u16::from_le_bytes([c[0], c[1]]) as u32) as f32)
            .collect(),
        "BF16" => raw
            .chunks_exact(2)
            .map(|c| f32::from_bits((u16::from_le_bytes([c[0], c[1]]) as u32) << 16))
            .collect(),
        other => {
            return Err(QuantError::UnsupportedDtype {
                dtype: other.into(),
                expected: "F32, F16 or BF16",
            })
        }
    })
}

fn elem_size(dtype: &str) -> Option<usize> {
    match dtype {
        "F32" => Some(4),
        "F16" | "BF16" => Some(2),
        _ => None,
    }
}

/// The safetensors header: tensors with their dtype and shape, in file order (by offset).
pub fn safetensors_index(bytes: &[u8]) -> Result<Vec<TensorInfo>, QuantError> {
    Ok(parse_safetensors_header(bytes)?
        .0
        .into_iter()
        .map(|(info, _)| info)
        .collect())
}

type Entries = Vec<(TensorInfo, (usize, usize))>;

/// The `__metadata__` of a safetensors file: its string entries, sorted by key (empty when the
/// header has none; values that are not strings are left out).
pub fn safetensors_metadata(bytes: &[u8]) -> Result<Vec<(String, String)>, QuantError> {
    let (text, _) = header_text(bytes)?;
    let entries = header_entries(text)?;
    Ok(entries
        .into_iter()
        .find(|(name, _)| name == "__metadata__")
        .map(|(_, fields)| fields.strings())
        .unwrap_or_default())
}

/// The header's JSON text and where the data starts, or why the file is not a safetensors file.
fn header_text(bytes: &[u8]) -> Result<(&str, usize), QuantError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(QuantError::FileTooLarge {
            bytes: bytes.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    if bytes.len() < 8 {
        return Err(bad(
            "not a safetensors file: shorter than its 8-byte header length",
        ));
    }
    let header_len = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")) as usize;
    if header_len > bytes.len() - 8 || header_len > 100 << 20 {
        return Err(bad(format!(
            "not a safetensors file: header length {header_len} exceeds the file"
        )));
    }
    let text = std::str::from_utf8(&bytes[8..8 + header_len])
        .map_err(|_| bad("the safetensors header is not UTF-8"))?;
    Ok((text, 8 + header_len))
}

fn parse_safetensors_header(bytes: &[u8]) -> Result<(Entries, usize), QuantError> {
    let (text, base) = header_text(bytes)?;
    let entries = header_entries(text)?;
    let data_len = bytes.len() - base;
    let mut out = Vec::new();
    for (name, fields) in entries {
        if name == "__metadata__" {
            continue;
        }
        let dtype = fields
            .string("dtype")
            .ok_or_else(|| bad(format!("tensor '{name}' has no dtype")))?;
        let shape = fields
            .numbers("shape")
            .ok_or_else(|| bad(format!("tensor '{name}' has no shape")))?;
        let offsets = fields
            .numbers("data_offsets")
            .filter(|o| o.len() == 2)
            .ok_or_else(|| bad(format!("tensor '{name}' has no data_offsets")))?;
        let (start, end) = (offsets[0], offsets[1]);
        if start > end || end > data_len {
            return Err(bad(format!("tensor '{name}' is truncated: bytes {start}..{end} but the data is {data_len} bytes")));
        }
        if let Some(size) = elem_size(&dtype) {
            if elements(&shape)?.checked_mul(size) != Some(end - start) {
                return Err(bad(format!(
                    "tensor '{name}': shape {shape:?} of {dtype} does not match its {} bytes",
                    end - start
                )));
            }
        }
        let supported = elem_size(&dtype).is_some();
        out.push((
            TensorInfo {
                name,
                dtype,
                shape,
                supported,
            },
            (start, end),
        ));
    }
    out.sort_by_key(|(_, (start, _))| *start);
    Ok((out, base))
}

/// Reads tensor `name` from a safetensors file.
pub fn read_safetensors(bytes: &[u8], name: &str) -> Result<Tensor, QuantError> {
    let (entries, base) = parse_safetensors_header(bytes)?;
    let (info, (start, end)) = entries
        .into_iter()
        .find(|(i, _)| i.name == name)
        .ok_or_else(|| QuantError::NoSuchTensor(name.into()))?;
    let values = decode(&info.dtype, &bytes[base + start..base + end])?;
    Ok(Tensor {
        name: info.name,
        shape: info.shape,
        values,
    })
}

/// Reads a `.npy` array (little-endian `<f4` or `<f2`, C order).
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, QuantError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(QuantError::FileTooLarge {
            bytes: bytes.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad(
            "not a .npy file: the magic string \\x93NUMPY is missing",
        ));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(bad(format!(".npy version {v} is not supported"))),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or_else(|| bad("the .npy header is truncated"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("the .npy header is not text"))?;
    let descr = npy_field(header, "descr").ok_or_else(|| bad("the .npy header has no descr"))?;
    if npy_field(header, "fortran_order").is_some_and(|v| v.trim() == "True") {
        return Err(bad(
            "Fortran-ordered arrays are not supported: save with np.ascontiguousarray",
        ));
    }
    let dtype = match descr.trim().trim_matches(|c| c == '\'' || c == '"') {
        "<f4" => "F32",
        "<f2" => "F16",
        other => {
            return Err(QuantError::UnsupportedDtype {
                dtype: other.into(),
                expected: "float32 ('<f4') or float16 ('<f2')",
            })
        }
    };
    let shape_text =
        npy_field(header, "shape").ok_or_else(|| bad("the .npy header has no shape"))?;
    let shape: Vec<usize> = shape_text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| bad(format!("bad shape entry '{s}'")))
        })
        .collect::<Result<_, _>>()?;
    let size = elem_size(dtype).expect("supported");
    let need = elements(&shape)?
        .checked_mul(size)
        .ok_or_else(|| bad("the array is too large"))?;
    let data = &bytes[start + header_len..];
    if data.len() < need {
        return Err(bad(format!(
            "the .npy data is truncated: {} of {need} bytes",
            data.len()
        )));
    }
    Ok(Tensor {
        name: "array".into(),
        shape,
        values: decode(dtype, &data[..need])?,
    })
}

/// The text after `'key':` in a numpy header dict, up to the next top-level comma.
fn npy_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))?;
    let rest = &header[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?;
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(&rest[..i]),
            _ => {}
        }
    }
    None
}

/// The safetensors header's entries, read by serde_json: each name with its fields, sorted by
/// name (tensors are then put in file order by their offsets). A header that is not a JSON object
/// of objects is [`QuantError::BadFile`], saying "malformed".
fn header_entries(text: &str) -> Result<Vec<(String, Fields)>, QuantError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| bad(format!("malformed safetensors header: {e}")))?;
    let serde_json::Value::Object(entries) = value else {
        return Err(bad("malformed safetensors header: not a JSON object"));
    };
    entries
        .into_iter()
        .map(|(name, v)| match v {
            serde_json::Value::Object(fields) => Ok((name, Fields(fields))),
            _ => Err(bad(format!(
                "malformed safetensors header: entry '{name}' is not an object"
            ))),
        })
        .collect()
}

/// One header entry's fields (`dtype`, `shape`, `data_offsets`, or `__metadata__`'s strings).
struct Fields(serde_json::Map<String, serde_json::Value>);

impl Fields {
    /// The string field `key`, if it is one.
    fn string(&self, key: &str) -> Option<String> {
        self.0.get(key)?.as_str().map(str::to_string)
    }

    /// Every string field, sorted by key (others are left out).
    fn strings(&self) -> Vec<(String, String)> {
        self.0
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect()
    }

    /// The field `key` as non-negative integers, if it is an array of them.
    fn numbers(&self, key: &str) -> Option<Vec<usize>> {
        self.0
            .get(key)?
            .as_array()?
            .iter()
            .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()))
            .collect()
    }
}

/// A version 1.0 `.npy` file of dtype `descr` (e.g. `<f4`) and `shape` (C order): the header
/// padded to a multiple of 64 bytes as numpy writes it, then `data` as given (not checked against
/// the shape, so tests can write truncated files too).
pub fn npy_file(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn safetensors(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_f32_f16_and_bf16_safetensors() {
        let data: Vec<u8> = [
            1.5f32.to_le_bytes().to_vec(),
            0x3C00u16.to_le_bytes().to_vec(),
            0x4040u16.to_le_bytes().to_vec(),
        ]
        .concat();
        let header = r#"{"__metadata__":{"a":"b"},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"h":{"dtype":"F16","shape":[1],"data_offsets":[4,6]},"b":{"dtype":"BF16","shape":[1,1],"data_offsets":[6,8]}}"#;
        let file = safetensors(header, &data);
        assert_eq!(safetensors_index(&file).unwrap().len(), 3);
        assert_eq!(read_safetensors(&file, "w").unwrap().values, vec![1.5]);
        assert_eq!(read_safetensors(&file, "h").unwrap().values, vec![1.0]);
        assert_eq!(read_safetensors(&file, "b").unwrap().values, vec![3.0]);
    }

    /// Asserts that reading failed with a message containing `why`.
    fn says(result: Result<Tensor, QuantError>, why: &str) {
        let message = result.unwrap_err().to_string();
        assert!(message.contains(why), "expected '{why}' in: {message}");
    }

    #[test]
    fn bad_safetensors_say_why() {
        says(read_safetensors(b"abc", "w"), "shorter");
        says(
            read_safetensors(&safetensors("{not json", b""), "w"),
            "malformed",
        );
        let truncated = safetensors(
            r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
            &[0; 8],
        );
        says(read_safetensors(&truncated, "w"), "truncated");
        let int = safetensors(
            r#"{"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}"#,
            &[0; 8],
        );
        says(read_safetensors(&int, "w"), "not supported");
        assert!(!safetensors_index(&int).unwrap()[0].supported);
        let mismatch = safetensors(
            r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            &[0; 8],
        );
        says(read_safetensors(&mismatch, "w"), "does not match");
        let mut huge = 1u64.to_le_bytes().to_vec();
        huge[7] = 0x7f;
        says(read_safetensors(&huge, "w"), "exceeds");
    }

    #[test]
    fn reads_npy_and_rejects_bad_ones() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = read_npy(&npy_file("<f4", &[2, 2], &data)).unwrap();
        assert_eq!((t.shape, t.values), (vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]));
        assert_eq!(
            read_npy(&npy_file("<f2", &[1], &0x3C00u16.to_le_bytes()))
                .unwrap()
                .values,
            vec![1.0]
        );
        says(read_npy(&npy_file("<i8", &[1], &[0; 8])), "not supported");
        says(read_npy(&npy_file("<f4", &[3], &[0; 8])), "truncated");
        says(read_npy(b"PK\x03\x04 zip"), "magic");
    }
}
