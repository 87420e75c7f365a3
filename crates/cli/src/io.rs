//! Reading and writing whole files, with `-` for stdin/stdout and error messages that name the path.

use std::io::{Read, Write};

/// Reads all of `path` (`-` = stdin).
pub fn read_all(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Writes `bytes` to `path` (`-` = stdout), replacing the file.
pub fn write_all(path: &str, bytes: &[u8]) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| format!("cannot write stdout: {e}"));
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}

/// Prints `text` to stdout. A closed pipe (`bitbudget models | head`) ends output quietly instead
/// of panicking; other write errors are returned.
pub fn emit(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write stdout: {e}")),
    }
}
