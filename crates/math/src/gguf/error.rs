//! Why a GGUF header could not be read, in words a person can act on.

/// A GGUF header that cannot be read (yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GgufError {
    /// The first four bytes are not `GGUF`.
    NotGguf {
        /// The bytes found (fewer than four when the file is shorter).
        found: Vec<u8>,
    },
    /// A version this reader does not know (llama.cpp reads 2 and 3; 1 is long retired).
    UnsupportedVersion {
        /// The version number in the file.
        version: u32,
    },
    /// The bytes given end inside the header: read at least `needed` bytes from the start and
    /// parse again. Only returned while the file has more bytes than were given.
    NeedMore {
        /// Bytes given.
        have: u64,
        /// Bytes from the start of the file the header needs at least.
        needed: u64,
    },
    /// The whole file ends inside its header.
    Truncated {
        /// The file's length in bytes.
        file_len: u64,
        /// Bytes the header needs at least.
        needed: u64,
    },
    /// A count or length beyond what any real file holds (a corrupt header, or an allocation
    /// bomb).
    Absurd {
        /// What was counted: "tensors", "metadata keys", "array elements", "string bytes".
        what: &'static str,
        /// The number in the file.
        value: u64,
        /// The largest accepted.
        limit: u64,
    },
    /// A metadata value type id outside GGUF's 0–12, or an array of arrays.
    BadValueType {
        /// The metadata key.
        key: String,
        /// The type id found.
        id: u32,
    },
    /// A tensor type id llama.cpp does not define.
    UnknownTensorType {
        /// The tensor's name.
        tensor: String,
        /// The id found.
        id: u32,
    },
    /// A string that is not UTF-8, an empty or repeated key, a repeated tensor name, a bad
    /// alignment or a tensor shape llama.cpp would refuse.
    Invalid {
        /// What is wrong, in a sentence fragment ("tensor 'x' has 5 dimensions; at most 4").
        reason: String,
    },
    /// A tensor whose data would start or end past the end of the file.
    DataPastEnd {
        /// The tensor's name.
        tensor: String,
        /// Byte (from the start of the file) where its data ends.
        end: u64,
        /// The file's length in bytes.
        file_len: u64,
    },
}

impl std::fmt::Display for GgufError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GgufError::NotGguf { found } => write!(
                f,
                "not a GGUF file: it starts with {found:02x?}, not the magic bytes 'GGUF'"
            ),
            GgufError::UnsupportedVersion { version } => write!(
                f,
                "GGUF version {version} is not supported (versions 2 and 3 are)"
            ),
            GgufError::NeedMore { have, needed } => write!(
                f,
                "the GGUF header continues past the {have} bytes read: read at least {needed} bytes"
            ),
            GgufError::Truncated { file_len, needed } => write!(
                f,
                "truncated GGUF file: it ends after {file_len} bytes but its header needs at least {needed}"
            ),
            GgufError::Absurd { what, value, limit } => write!(
                f,
                "corrupt GGUF header: {value} {what} (at most {limit} are accepted)"
            ),
            GgufError::BadValueType { key, id } => write!(
                f,
                "corrupt GGUF header: metadata key '{key}' has value type {id} (GGUF defines 0 to 12, and no arrays of arrays)"
            ),
            GgufError::UnknownTensorType { tensor, id } => write!(
                f,
                "tensor '{tensor}' has type id {id}, which llama.cpp does not define"
            ),
            GgufError::Invalid { reason } => write!(f, "corrupt GGUF header: {reason}"),
            GgufError::DataPastEnd {
                tensor,
                end,
                file_len,
            } => write!(
                f,
                "truncated GGUF file: tensor '{tensor}' ends at byte {end} but the file has {file_len} bytes"
            ),
        }
    }
}

impl std::error::Error for GgufError {}
