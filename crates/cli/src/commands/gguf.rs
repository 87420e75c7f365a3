//! Reading a GGUF file for `bitbudget serve --gguf FILE`: only its header and tensor index (the
//! read grows as the parser asks), never the tensor data.

use bitbudget_math::gguf::{next_read_len, parse, Gguf, FIRST_READ};
use std::io::Read;

/// Reads the header of the GGUF file at `path`: the first megabyte, then more as the parser asks.
/// Errors name the path and say what is wrong (not GGUF, truncated, corrupt).
pub fn read_header(path: &str) -> Result<Gguf, String> {
    let fail = |e: std::io::Error| format!("cannot read {path}: {e}");
    let mut file = std::fs::File::open(path).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let mut prefix = Vec::new();
    let mut want = FIRST_READ.min(len);
    loop {
        let more = want.saturating_sub(prefix.len() as u64);
        (&mut file)
            .take(more)
            .read_to_end(&mut prefix)
            .map_err(fail)?;
        match parse(&prefix, Some(len)) {
            Ok(g) => return Ok(g),
            Err(e) => match next_read_len(&e, len) {
                Some(n) => want = n,
                None => return Err(format!("{path}: {e}")),
            },
        }
    }
}
