//! FP8 E4M3 with one FP32 scale per tile of a 2D tensor: DeepSeek-V3's training recipe scales
//! activations per 1×128 tile (one token, 128 channels) and weights per 128×128 block
//! (arXiv:2412.19437, section 3.3.2). Each tile's scale is its largest finite |x| over E4M3's
//! largest value, 448 (an all-zero tile has scale 0 and codes 0); codes are x / scale rounded to
//! nearest even and saturated, as [`fp8_encode`] does for the per-tensor scheme,
//! which is the case of one tile the size of the tensor. Tiles at the right and bottom edges are
//! partial.

use super::scheme::Scheme;
use crate::format::{fp8, FormatId};

fn fp8_format(s: Scheme) -> FormatId {
    if s == Scheme::F8E4M3 {
        FormatId::F8E4M3
    } else {
        FormatId::F8E5M2
    }
}

/// FP8's per-tensor scale: the largest finite |x| over the format's largest value (0 for a zero
/// tensor). `s` must be an FP8 scheme.
pub fn fp8_scale(s: Scheme, x: &[f32]) -> f32 {
    // Plain comparisons: `f32::max` is a call to `fmaxf` per value in wasm. `m < inf` also
    // leaves NaN and ±inf out.
    let amax = x.iter().fold(0f32, |a, v| {
        let m = v.abs();
        if m < f32::INFINITY && m > a {
            m
        } else {
            a
        }
    });
    amax / fp8_format(s).max_value() as f32
}

/// Appends the FP8 codes of `x / scale` (round to nearest even, saturating; all 0 when the scale
/// is 0). `s` must be an FP8 scheme.
pub fn fp8_encode(s: Scheme, x: &[f32], scale: f32, out: &mut Vec<u8>) {
    let codec = fp8_codec(s);
    if scale == 0.0 {
        out.extend(std::iter::repeat_n(codec.encode_saturating(0.0), x.len()));
    } else {
        codec.encode_divided(x, scale, out);
    }
}

/// The fast codec of an FP8 scheme (bit-exact with the general one, see [`crate::format::fp8`]).
pub fn fp8_codec(s: Scheme) -> &'static fp8::Fp8Codec {
    if s == Scheme::F8E4M3 {
        fp8::e4m3()
    } else {
        fp8::e5m2()
    }
}

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

/// Checks that `x.len()` values are whole rows of `cols` and `tile` is not empty; returns the
/// rows.
fn rows_of(len: usize, cols: usize, tile: Tile) -> Result<usize, TileError> {
    if cols == 0 || tile.rows == 0 || tile.cols == 0 {
        return Err(TileError::Empty);
    }
    if len % cols != 0 {
        return Err(TileError::Ragged { len, cols });
    }
    Ok(len / cols)
}

/// The scales of one band of rows (`band`: whole rows of `cols`, at most `tile.rows` of them),
/// one per tile left to right, into `scales` (cleared first): each tile's largest finite |x|
/// over 448 ([`fp8_scale`]; 0 for a tile without a finite non-zero value).
fn band_scales(band: &[f32], cols: usize, tile_cols: usize, scales: &mut Vec<f32>) {
    scales.clear();
    for c0 in (0..cols).step_by(tile_cols) {
        let c1 = (c0 + tile_cols).min(cols);
        // The largest of the rows' scales is the tile's: x / 448 is monotonic in x.
        let scale = band
            .chunks_exact(cols)
            .map(|row| fp8_scale(Scheme::F8E4M3, &row[c0..c1]))
            .fold(0f32, |a, s| if s > a { s } else { a });
        scales.push(scale);
    }
}

/// Appends the E4M3 codes of one band, row by row in the tensor's order, each value divided by
/// its tile's scale ([`fp8_encode`]: round to nearest even, saturating; 0 under a zero scale).
fn band_codes(band: &[f32], cols: usize, tile_cols: usize, scales: &[f32], out: &mut Vec<u8>) {
    for row in band.chunks_exact(cols) {
        for (segment, scale) in row.chunks(tile_cols).zip(scales) {
            fp8_encode(Scheme::F8E4M3, segment, *scale, out);
        }
    }
}

/// The values of `x` (row-major, `cols` per row) quantized to E4M3 with a scale per `tile` and
/// decoded again, with the number of scales used.
pub fn round_trip(x: &[f32], cols: usize, tile: Tile) -> Result<(Vec<f32>, usize), TileError> {
    let rows = rows_of(x.len(), cols, tile)?;
    let codec = fp8::e4m3();
    let mut out = Vec::with_capacity(x.len());
    let (mut scales, mut codes) = (Vec::new(), Vec::new());
    let mut count = 0;
    for band in x.chunks(tile.rows * cols).take(rows.div_ceil(tile.rows)) {
        band_scales(band, cols, tile.cols, &mut scales);
        codes.clear();
        band_codes(band, cols, tile.cols, &scales, &mut codes);
        for row in codes.chunks_exact(cols) {
            for (segment, scale) in row.chunks(tile.cols).zip(&scales) {
                out.extend(segment.iter().map(|&c| codec.decode(c) * scale));
            }
        }
        count += scales.len();
    }
    Ok((out, count))
}

/// `fp8-128x128`'s bytes (the layout in [`super::scheme`]): per band of 128 rows of `x`
/// (row-major, `cols` per row; the last band may be shorter), the f32 scales of its 128×128
/// blocks left to right (little-endian), then its E4M3 codes row by row. Blocks at the right and
/// bottom edges hold only their real values. Rounding as [`round_trip`]. `cols` 0 or values that
/// are not whole rows are a [`TileError`].
pub fn quantize_blocks(x: &[f32], cols: usize, out: &mut Vec<u8>) -> Result<(), TileError> {
    rows_of(x.len(), cols, BLOCK_128X128)?;
    let mut scales = Vec::new();
    for band in x.chunks(BLOCK_128X128.rows * cols) {
        band_scales(band, cols, BLOCK_128X128.cols, &mut scales);
        out.extend(scales.iter().flat_map(|s| s.to_le_bytes()));
        band_codes(band, cols, BLOCK_128X128.cols, &scales, out);
    }
    Ok(())
}

/// The values in bytes that [`quantize_blocks`] wrote for `cols` columns: each code's E4M3 value
/// times its block's scale, in f32 (exact for the stored codes). `None` when `cols` is 0 or the
/// length is not whole bands of 128 rows and one last band of fewer rows.
pub fn dequantize_blocks(bytes: &[u8], cols: usize) -> Option<Vec<f32>> {
    let side = BLOCK_128X128.rows;
    if cols == 0 {
        return None;
    }
    let scale_bytes = 4 * cols.div_ceil(side);
    let band = scale_bytes.checked_add(side.checked_mul(cols)?)?;
    let tail = bytes.len() % band;
    if tail != 0 && (tail <= scale_bytes || (tail - scale_bytes) % cols != 0) {
        return None;
    }
    let codec = fp8::e4m3();
    let mut out = Vec::with_capacity(bytes.len());
    for stored in bytes.chunks(band) {
        let (head, codes) = stored.split_at(scale_bytes);
        let scales: Vec<f32> = head
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        for row in codes.chunks_exact(cols) {
            for (segment, scale) in row.chunks(side).zip(&scales) {
                out.extend(segment.iter().map(|&c| codec.decode(c) * scale));
            }
        }
    }
    Some(out)
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

#[cfg(test)]
mod block_scheme_tests {
    use super::*;
    use crate::quant::codec;
    use crate::quant::error::QuantError;

    fn ramp(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919) % 1013) as f32 / 50.0 - 10.0)
            .collect()
    }

    /// 200 rows × 300 columns: blocks of 128×128, 128×44, 72×128 and 72×44 at the edges. The
    /// bytes decode to [`round_trip`]'s values, take exactly the layout's length, and each band
    /// starts with its scales.
    #[test]
    fn partial_edge_blocks_hold_only_their_real_values() {
        let (rows, cols) = (200, 300);
        let x = ramp(rows * cols);
        let bytes = codec::quantize(Scheme::Fp8Block, &x, cols).unwrap();
        // Three scales per band; the second band has 72 rows.
        assert_eq!(bytes.len(), 2 * 3 * 4 + rows * cols);
        let layout = Scheme::Fp8Block.layout(cols);
        assert_eq!(layout.bytes_for(x.len()), bytes.len());
        let back = codec::dequantize(Scheme::Fp8Block, &bytes, cols).unwrap();
        assert_eq!(back, round_trip(&x, cols, BLOCK_128X128).unwrap().0);
        // The bottom-right block (rows 128.., columns 256..): its scale is its own amax / 448.
        let amax = (128..rows)
            .flat_map(|r| x[r * cols + 256..(r + 1) * cols].iter().map(|v| v.abs()))
            .fold(0f32, f32::max);
        let band2 = 3 * 4 + 128 * cols;
        let s = f32::from_le_bytes(bytes[band2 + 8..band2 + 12].try_into().unwrap());
        assert_eq!(s, amax / 448.0);
        // Codes sit in the tensor's order after each band's scales: the layout reads them.
        for i in [0, 299, 300, 128 * cols - 1, 128 * cols, rows * cols - 1] {
            let at = if i < 128 * cols {
                12 + i
            } else {
                band2 + 12 + i - 128 * cols
            };
            assert_eq!(layout.code(&bytes, i), Some(bytes[at] as u32), "value {i}");
        }
        assert_eq!(layout.code(&bytes, rows * cols), None);
        let bits = Scheme::Fp8Block.bits_per_weight(cols, x.len());
        assert_eq!(bits, bytes.len() as f64 * 8.0 / x.len() as f64);
    }

    /// An outlier sets the scale of its own 128×128 block only: a block beside it (0.01 maps to
    /// 448 exactly) comes back exact, while its own block's small values fall among E4M3's
    /// subnormals. An all-zero block stores scale 0 and codes 0.
    #[test]
    fn an_outlier_is_confined_to_its_block_and_a_zero_block_is_zero() {
        let (rows, cols) = (256, 384);
        let mut x = vec![0.01f32; rows * cols];
        x[5 * cols + 7] = 300.0;
        for r in 128..256 {
            x[r * cols + 256..(r + 1) * cols].fill(0.0);
        }
        let bytes = codec::quantize(Scheme::Fp8Block, &x, cols).unwrap();
        let back = codec::dequantize(Scheme::Fp8Block, &bytes, cols).unwrap();
        assert_eq!(back[5 * cols + 200], 0.01, "the block to the right");
        assert_eq!(back[200 * cols + 7], 0.01, "the block below");
        assert!(
            (back[5 * cols + 8] - 0.01).abs() > 1e-4,
            "the outlier's block"
        );
        assert_eq!(back[5 * cols + 7], 300.0);
        let band2 = 3 * 4 + 128 * cols;
        assert_eq!(bytes[band2 + 8..band2 + 12], [0; 4], "zero block's scale");
        assert!((128..256).all(|r| back[r * cols + 256..(r + 1) * cols] == [0.0; 128]));
        assert!(
            (128..256).all(|r| bytes[band2 + 12 + (r - 128) * cols + 256..][..128] == [0u8; 128])
        );
    }

    #[test]
    fn bad_columns_and_lengths_are_errors() {
        let x = vec![1.0f32; 600];
        assert_eq!(
            codec::quantize(Scheme::Fp8Block, &x, 7),
            Err(QuantError::Rows {
                values: 600,
                cols: 7
            })
        );
        assert_eq!(
            codec::quantize(Scheme::Fp8Block, &x, 0),
            Err(QuantError::ColumnsOutOfRange(0))
        );
        assert!(Scheme::Fp8Block.block(Some((1 << 24) + 1)).is_err());
        let bytes = codec::quantize(Scheme::Fp8Block, &x, 200).unwrap();
        assert_eq!(bytes.len(), 600 + 2 * 4);
        for cut in [1, 4, 8, 9] {
            assert!(matches!(
                codec::dequantize(Scheme::Fp8Block, &bytes[..bytes.len() - cut], 200),
                Err(QuantError::ByteLength { .. })
            ));
        }
        assert_eq!(codec::dequantize(Scheme::Fp8Block, &[], 200), Ok(vec![]));
        assert_eq!(
            QuantError::Rows {
                values: 600,
                cols: 7
            }
            .to_string(),
            "600 weights is not a whole number of rows of 7 columns (5 left over)"
        );
    }

    /// With the tensor's columns, parts of whole bands concatenate to the whole tensor's bytes
    /// and the lab's levels come from the peak's block alone.
    #[test]
    fn the_lab_measures_whole_bands() {
        let cols = 130;
        let x = ramp(300 * cols);
        let (row, detail) = crate::quant::lab::analyse(Scheme::Fp8Block, &x, cols, false).unwrap();
        let bytes = codec::quantize(Scheme::Fp8Block, &x, cols).unwrap();
        assert_eq!(row.bytes, bytes.len());
        let back = codec::dequantize(Scheme::Fp8Block, &bytes, cols).unwrap();
        let m = crate::quant::metrics::error_metrics(&x, &back);
        assert_eq!(row.metrics, m);
        assert!(
            detail.levels.len() <= 256,
            "one block's levels: {}",
            detail.levels.len()
        );
    }
}
