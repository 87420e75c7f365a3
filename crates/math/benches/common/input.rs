//! A benchmark input read from a file named in the environment.

/// The little-endian f32 values of the file named by the environment variable `var`, or `None`
/// when it is not set. Panics (the bench cannot run) when the file cannot be read or does not hold
/// a non-zero multiple of `multiple` values.
pub fn from_env(var: &str, multiple: usize) -> Option<Vec<f32>> {
    let path = std::env::var_os(var)?;
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{var}={path:?}: {e}"));
    let values: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let whole = !values.is_empty() && values.len() % multiple == 0;
    assert!(
        whole,
        "{var}: {} values, not a multiple of {multiple}",
        values.len()
    );
    Some(values)
}
