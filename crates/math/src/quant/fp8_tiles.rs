//! FP8 E4M3 with one FP32 scale per tile of a 2D tensor: DeepSeek-V3's training recipe scales
//! activations per 1×128 tile (one token, 128 channels) and weights per 128×128 block
//! (arXiv:2412.19437, section 3.3.2). Each tile's scale is its largest finite |x| over E4M3's
//! largest value, 448 (an all-zero tile has scale 0 and codes 0); codes are x / scale rounded to
//! nearest even and saturated, as [`super::codec::fp8_encode`] does for the per-tensor scheme,
//! which is the case of one tile the size of the tensor. Tiles at the right and bottom edges are
//! partial.

use super::codec::{fp8_encode, fp8_scale};
use super::scheme::Scheme;
use crate::format::fp8;

/// A tile shape, in values: `rows` × `cols` of a row-major tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Rows per tile.
    pub rows: usize,
    /// Columns per tile.
    pub cols: usize,
}

/// DeepSeek-V3's activation tiles: one row, 128 columns.
pub const TILE_1X128: Tile = Tile { rows: 1, cols: 128 };
/// DeepSeek-V3's weight blocks: 128 × 128.
pub const BLOCK_128X128: Tile = Tile {
    rows: 128,
    cols: 128,
};

impl Tile {
    /// Stored bits per value: 8 for the code plus a 32-bit scale shared by the tile's values.
    pub fn bits_per_value(self) -> f64 {
        8.0 + 32.0 / (self.rows * self.cols) as f64
    }
}

/// Why a tensor cannot be tiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileError {
    /// No columns given, or a tile with no rows or columns.
    Empty,
    /// The values are not whole rows of `cols`.
    Ragged {
        /// Values given.
        len: usize,
        /// Columns per row.
        cols: usize,
    },
}

impl std::fmt::Display for TileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TileError::Empty => write!(f, "a 2D tile needs at least one row and one column"),
            TileError::Ragged { len, cols } => write!(
                f,
                "{len} values are not whole rows of {cols} columns: give the tensor's shape"
            ),
        }
    }
}

/// The values of `x` (row-major, `cols` per row) quantized to E4M3 with a scale per `tile` and
/// decoded again, with the number of scales used.
pub fn round_trip(x: &[f32], cols: usize, tile: Tile) -> Result<(Vec<f32>, usize), TileError> {
    if cols == 0 || tile.rows == 0 || tile.cols == 0 {
        return Err(TileError::Empty);
    }
    if x.len() % cols != 0 {
        return Err(TileError::Ragged { len: x.len(), cols });
    }
    let rows = x.len() / cols;
    let codec = fp8::e4m3();
    let mut out = vec![0f32; x.len()];
    let (mut values, mut codes) = (Vec::new(), Vec::new());
    let mut scales = 0;
    for r0 in (0..rows).step_by(tile.rows) {
        let r1 = (r0 + tile.rows).min(rows);
        for c0 in (0..cols).step_by(tile.cols) {
            let c1 = (c0 + tile.cols).min(cols);
            values.clear();
            for r in r0..r1 {
                values.extend_from_slice(&x[r * cols + c0..r * cols + c1]);
            }
            let scale = fp8_scale(Scheme::F8E4M3, &values);
            codes.clear();
            fp8_encode(Scheme::F8E4M3, &values, scale, &mut codes);
            let mut decoded = codes.iter().map(|&c| codec.decode(c) * scale);
            for r in r0..r1 {
                for o in &mut out[r * cols + c0..r * cols + c1] {
                    *o = decoded.next().unwrap_or(0.0);
                }
            }
            scales += 1;
        }
    }
    Ok((out, scales))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::codec;

    #[test]
    fn one_tile_the_size_of_the_tensor_is_the_per_tensor_scheme() {
        let x: Vec<f32> = (0..512)
            .map(|i| ((i * 37) % 101) as f32 / 7.0 - 6.0)
            .collect();
        let whole = Tile { rows: 4, cols: 128 };
        let (tiled, scales) = round_trip(&x, 128, whole).unwrap();
        assert_eq!(scales, 1);
        let bytes = codec::quantize(Scheme::F8E4M3, &x, 1).unwrap();
        let per_tensor = codec::dequantize(Scheme::F8E4M3, &bytes, 1).unwrap();
        assert_eq!(tiled, per_tensor);
    }

    /// An outlier spoils the scale of its own tile only: with 1×128 tiles another row's values
    /// (all 0.01, so 0.01 maps to 448 exactly) come back exact, where in one 128×128 block they
    /// share the outlier's scale and fall among E4M3's subnormals.
    #[test]
    fn an_outlier_costs_only_its_own_tile() {
        let mut x = vec![0.01f32; 128 * 128];
        x[5] = 300.0;
        let err = |tile| {
            let (back, _) = round_trip(&x, 128, tile).unwrap();
            // The error of a value in another row.
            (back[128 * 7 + 3] - 0.01).abs()
        };
        assert_eq!(err(TILE_1X128), 0.0);
        assert!(err(BLOCK_128X128) > 1e-4, "{}", err(BLOCK_128X128));
    }

    #[test]
    fn partial_edge_tiles_and_bad_shapes() {
        let x = vec![1.0f32; 3 * 200];
        let (back, scales) = round_trip(&x, 200, TILE_1X128).unwrap();
        assert_eq!(scales, 3 * 2);
        assert_eq!(back, x);
        assert_eq!(
            round_trip(&x, 7, TILE_1X128),
            Err(TileError::Ragged { len: 600, cols: 7 })
        );
        assert_eq!(round_trip(&x, 0, TILE_1X128), Err(TileError::Empty));
        assert_eq!(
            round_trip(&[0.0; 256], 128, BLOCK_128X128).unwrap().0,
            vec![0.0; 256]
        );
        assert!((TILE_1X128.bits_per_value() - 8.25).abs() < 1e-12);
    }
}

#[cfg(test)]
mod scheme_tests {
    use super::*;
    use crate::quant::codec;

    /// The lab's `fp8-1x128` scheme is these tiles on rows of a multiple of 128 values: its
    /// bytes decode to the same values.
    #[test]
    fn the_fp8_1x128_scheme_is_the_1x128_tiles() {
        let x: Vec<f32> = (0..3 * 256)
            .map(|i| ((i * 7919) % 1013) as f32 / 50.0 - 10.0)
            .collect();
        let bytes = codec::quantize(Scheme::Fp8Tile, &x, 128).unwrap();
        assert_eq!(bytes.len(), 3 * 2 * (4 + 128));
        let back = codec::dequantize(Scheme::Fp8Tile, &bytes, 128).unwrap();
        assert_eq!(back, round_trip(&x, 256, TILE_1X128).unwrap().0);
    }
}
