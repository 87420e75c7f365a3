//! Typed URL state of the Quantize lab:
//! `?tab=quant&scheme=q4_0&tensor=sample:layer0.attention.query.weight&seed=1`.

use crate::ui::shell::query::PageQuery;
use crate::ui::shell::url::Tab;
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::fp4_options::{self, parse_seed, Fp4Options};
use bitbudget_math::quant::generate::Distribution;
use bitbudget_math::quant::scheme::{Scheme, SchemeFamily};

/// Where Trunk puts the shipped sample tensor (see index.html's copy-file link).
pub const SAMPLE_URL: &str = "minilm-l6-layer0.safetensors";

/// Names of the tensors shipped in `assets/tensors/minilm-l6-layer0.safetensors`.
pub const SAMPLE_TENSORS: [&str; 2] = [
    "layer0.attention.query.weight",
    "layer0.mlp.up.weight[:256]",
];

/// Where the tensor comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorSource {
    /// A tensor of the shipped MiniLM sample.
    Sample(String),
    /// A seeded synthetic 256 × 512 tensor.
    Synthetic(Distribution),
    /// The user's own file (not in the URL: it never leaves the browser).
    Upload,
}

impl TensorSource {
    /// The URL value (`sample:NAME`, `normal`, `laplace`, `uniform`, `outliers`, `upload`).
    pub fn url_value(&self) -> String {
        match self {
            TensorSource::Sample(name) => format!("sample:{name}"),
            TensorSource::Synthetic(Distribution::Normal) => "normal".into(),
            TensorSource::Synthetic(Distribution::Laplace) => "laplace".into(),
            TensorSource::Synthetic(Distribution::Uniform) => "uniform".into(),
            TensorSource::Synthetic(Distribution::OutlierChannels { .. }) => "outliers".into(),
            TensorSource::Upload => "upload".into(),
        }
    }
}

/// Where the lab quantizes, dequantizes and measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Device {
    /// WebAssembly on the CPU, always available.
    #[default]
    Cpu,
    /// WebGPU through wgpu, byte-identical to the CPU; when there is no GPU, or for a scheme
    /// without a kernel, the CPU does the work.
    Gpu,
}

impl Device {
    /// Both devices, CPU first.
    pub const ALL: [Device; 2] = [Device::Cpu, Device::Gpu];

    /// The URL value: `cpu` or `gpu`.
    pub const fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
        }
    }
}

bitbudget_math::name_text!(Device, String, |s: &str| format!(
    "unknown device '{s}'; expected cpu or gpu"
));

/// The schemes the lab compares: a bit per scheme of [`Scheme::ALL`]. In the URL as
/// `schemes=q4_0,q8_0,nf4` (names as [`Scheme::name`], any order), left out when it is every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeSet(u32);

impl SchemeSet {
    /// Every scheme (the default).
    pub const ALL: SchemeSet = SchemeSet((1u32 << Scheme::ALL.len()) - 1);

    fn bit(s: Scheme) -> u32 {
        Scheme::ALL
            .iter()
            .position(|x| *x == s)
            .map_or(0, |k| 1 << k)
    }

    /// Only `s`.
    pub fn only(s: Scheme) -> Self {
        Self(Self::bit(s))
    }

    /// Whether `s` is compared.
    pub fn contains(self, s: Scheme) -> bool {
        self.0 & Self::bit(s) != 0
    }

    /// This set with `s`.
    pub fn with(self, s: Scheme) -> Self {
        Self(self.0 | Self::bit(s))
    }

    /// This set without `s` (may be empty: the query keeps its selected scheme in it).
    pub fn without(self, s: Scheme) -> Self {
        Self(self.0 & !Self::bit(s))
    }

    /// The schemes, in [`Scheme::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Scheme> {
        Scheme::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// How many schemes.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether no scheme is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The URL value: comma-separated, in [`Scheme::ALL`]'s order, a whole family by its name
    /// (`q8_0,k-quants,nf4`).
    pub fn url_value(self) -> String {
        let mut names = Vec::new();
        for family in SchemeFamily::ALL {
            if family.schemes().all(|s| self.contains(s)) {
                names.push(family.name());
            } else {
                names.extend(
                    family
                        .schemes()
                        .filter(|s| self.contains(*s))
                        .map(Scheme::name),
                );
            }
        }
        names.join(",")
    }

    /// Reads a URL value: scheme names and family names ([`SchemeFamily::name`]: `ggml`,
    /// `k-quants`, `mx`, `int`, `float`), comma-separated; an unknown name or an empty list is an
    /// error that says so.
    pub fn parse(value: &str) -> Result<Self, String> {
        let mut set = SchemeSet(0);
        for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match SchemeFamily::named(name) {
                Some(family) => set = family.schemes().fold(set, SchemeSet::with),
                None => set = set.with(name.parse::<Scheme>().map_err(|e| format!("{e}"))?),
            }
        }
        if set.is_empty() {
            return Err("no scheme named: list them as q4_0,q8_0,nf4 or k-quants,mx".into());
        }
        Ok(set)
    }
}

/// Everything the lab's controls hold.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantQuery {
    /// The scheme shown in detail.
    pub scheme: Scheme,
    /// The tensor.
    pub tensor: TensorSource,
    /// Seed of synthetic tensors.
    pub seed: u64,
    /// Outlier channels of the `outliers` distribution.
    pub outliers: usize,
    /// Their magnitude (× the other channels).
    pub magnitude: f32,
    /// Block size of absmax, zero-point and NF4 (the other schemes have a fixed block).
    pub block: usize,
    /// NF4 with QLoRA's double quantization of the block scales.
    pub double_quant: bool,
    /// Columns per row for the schemes that quantize 2D blocks (`fp8-128x128`) when the tensor
    /// has no 2D shape (a 1D `.npy` or safetensors vector); `None` reads such a tensor as one
    /// row. A tensor with two or more dimensions always uses its last one. In the URL as `cols`.
    pub cols: Option<usize>,
    /// Where the work runs.
    pub device: Device,
    /// The schemes compared (the table's rows); always holds `scheme`.
    pub schemes: SchemeSet,
    /// NVFP4's and MXFP4's random Hadamard transform and stochastic rounding, each a seed or
    /// off; the other schemes ignore them. In the URL as `rht` and `sr` (the seed; absent: off).
    pub fp4: Fp4Options,
}

impl Default for QuantQuery {
    fn default() -> Self {
        Self {
            scheme: Scheme::Ggml(bitbudget_math::quant::ggml::GgmlType::Q4_0),
            tensor: TensorSource::Sample(SAMPLE_TENSORS[0].into()),
            seed: 1,
            outliers: 4,
            magnitude: 20.0,
            block: 64,
            double_quant: false,
            cols: None,
            device: Device::Cpu,
            schemes: SchemeSet::ALL,
            fp4: Fp4Options::NONE,
        }
    }
}

impl QuantQuery {
    /// The synthetic distribution with this query's outlier settings.
    pub fn outlier_distribution(&self) -> Distribution {
        Distribution::OutlierChannels {
            count: self.outliers,
            magnitude: self.magnitude,
        }
    }

    /// Applies one URL parameter (`None` for keys this page does not know); an error names the
    /// key and says the default stays, for the page's URL notes.
    pub fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        self.assign(key, value)
            .map(|r| r.map_err(|e| format!("{key}: {e}; keeping the default")))
    }

    /// Sets one field from text typed in its box (`None` for keys this page does not know); an
    /// error is a sentence for beside that box, e.g. "'7' is not an even block size between 2 and
    /// 16,777,216". The query is unchanged on error.
    pub fn assign(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        let result = match key {
            "scheme" => value
                .parse::<Scheme>()
                .map(|s| self.scheme = s)
                .map_err(|e| e.to_string()),
            "tensor" => self.parse_source(value).map(|t| self.tensor = t),
            "seed" => value
                .parse()
                .map(|v| self.seed = v)
                .map_err(|_| format!("'{value}' is not a whole number")),
            "outliers" => value
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= 512)
                .map(|n| self.outliers = n)
                .ok_or_else(|| format!("'{value}' is not a count between 0 and 512")),
            "magnitude" => value
                .parse::<f32>()
                .ok()
                .filter(|m| m.is_finite() && (0.0..=1e4).contains(m))
                .map(|m| self.magnitude = m)
                .ok_or_else(|| format!("'{value}' is not a magnitude between 0 and 10000")),
            "block" => value
                .parse::<usize>()
                .ok()
                .filter(|b| (2..=MAX_BLOCK).contains(b) && b % 2 == 0)
                .map(|b| self.block = b)
                .ok_or_else(|| {
                    format!(
                        "'{value}' is not an even block size between 2 and {}",
                        bitbudget_math::numbers::grouped(MAX_BLOCK)
                    )
                }),
            "cols" if value.trim().is_empty() => {
                self.cols = None;
                Ok(())
            }
            "cols" => value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|c| (1..=MAX_BLOCK).contains(c))
                .map(|c| self.cols = Some(c))
                .ok_or_else(|| {
                    format!(
                        "'{value}' is not a column count between 1 and {}",
                        bitbudget_math::numbers::grouped(MAX_BLOCK)
                    )
                }),
            "dq" => bitbudget_math::named::parse_flag(value)
                .ok_or_else(|| format!("'{value}' is not 0 or 1"))
                .map(|on| self.double_quant = on),
            "device" => value.parse().map(|d| self.device = d),
            "schemes" => SchemeSet::parse(value).map(|set| self.schemes = set),
            "rht" => parse_seed(value).map(|seed| self.fp4.rht = Some(seed)),
            "sr" => parse_seed(value).map(|seed| self.fp4.sr = Some(seed)),
            _ => return None,
        };
        if let TensorSource::Synthetic(Distribution::OutlierChannels { .. }) = self.tensor {
            self.tensor = TensorSource::Synthetic(self.outlier_distribution());
        }
        Some(result)
    }

    fn parse_source(&self, value: &str) -> Result<TensorSource, String> {
        match value {
            "normal" => Ok(TensorSource::Synthetic(Distribution::Normal)),
            "laplace" => Ok(TensorSource::Synthetic(Distribution::Laplace)),
            "uniform" => Ok(TensorSource::Synthetic(Distribution::Uniform)),
            "outliers" => Ok(TensorSource::Synthetic(self.outlier_distribution())),
            v => v
                .strip_prefix("sample:")
                .filter(|n| SAMPLE_TENSORS.contains(n))
                .map(|name| TensorSource::Sample(name.into()))
                .ok_or_else(|| {
                    let samples: Vec<String> = SAMPLE_TENSORS
                        .iter()
                        .map(|n| format!("sample:{n}"))
                        .collect();
                    format!(
                        "unknown tensor '{v}'; expected {}, normal, laplace, uniform or outliers",
                        samples.join(", ")
                    )
                }),
        }
    }

    /// The query string (with `?`) for this view.
    pub fn to_query_string(&self, embed: bool) -> String {
        let mut s = format!(
            "?tab=quant&scheme={}&tensor={}&seed={}&block={}",
            self.scheme,
            self.tensor.url_value(),
            self.seed,
            self.block
        );
        if matches!(
            self.tensor,
            TensorSource::Synthetic(Distribution::OutlierChannels { .. })
        ) {
            s += &format!("&outliers={}&magnitude={}", self.outliers, self.magnitude);
        }
        if let Some(cols) = self.cols {
            s += &format!("&cols={cols}");
        }
        if self.double_quant {
            s += "&dq=1";
        }
        if self.device == Device::Gpu {
            s += "&device=gpu";
        }
        if self.schemes != SchemeSet::ALL {
            s += &format!("&schemes={}", self.schemes.url_value());
        }
        if let Some(seed) = self.fp4.rht {
            s += &format!("&rht={seed}");
        }
        if let Some(seed) = self.fp4.sr {
            s += &format!("&sr={seed}");
        }
        if embed {
            s += "&embed=1";
        }
        s
    }

    /// Keeps the shown scheme among those compared after a URL is read: a scheme the URL named
    /// joins the set; otherwise the set's first scheme is shown.
    pub fn settle_selection(&mut self, scheme_named: bool) {
        if self.schemes.contains(self.scheme) {
            return;
        }
        match self.schemes.iter().next() {
            Some(first) if !scheme_named => self.scheme = first,
            _ => self.schemes = self.schemes.with(self.scheme),
        }
    }

    /// Shows `s` in detail, comparing it too if it was not.
    pub fn show(&mut self, s: Scheme) {
        self.scheme = s;
        self.schemes = self.schemes.with(s);
    }

    /// Compares `on` or not `s`. The last scheme stays; leaving out the shown one shows the
    /// first that is left.
    pub fn compare(&mut self, s: Scheme, on: bool) {
        let set = if on {
            self.schemes.with(s)
        } else {
            self.schemes.without(s)
        };
        let Some(first) = set.iter().next() else {
            return;
        };
        self.schemes = set;
        if !set.contains(self.scheme) {
            self.scheme = first;
        }
    }

    /// Whether a compared scheme takes the FP4 options (NVFP4 or MXFP4): then the lab offers them.
    pub fn offers_fp4_options(&self) -> bool {
        fp4_options::SCHEMES
            .iter()
            .any(|s| self.compared().contains(*s))
    }

    /// The schemes to compute: those compared, and the shown one whatever happens.
    pub fn compared(&self) -> SchemeSet {
        self.schemes.with(self.scheme)
    }

    /// The codec's `block` argument for `scheme` on a tensor of `shape`: its fixed block where
    /// it has one (GGML, the K-quants, IQ4_NL, NVFP4, MX, FP8 and the casts); for a scheme of 2D
    /// blocks (`fp8-128x128`) the tensor's column count, which is the last dimension of a shape
    /// of two or more, else [`QuantQuery::cols`], else the whole tensor as one row; for the
    /// others the query's block.
    ///
    /// Errors, for the 2D schemes only: [`QuantError::ColumnsOutOfRange`] for a row outside
    /// 1..=[`MAX_BLOCK`] columns, [`QuantError::Rows`] when the tensor's values are not whole
    /// rows of that many columns.
    pub fn block_for(&self, scheme: Scheme, shape: &[usize]) -> Result<usize, QuantError> {
        if let Some(b) = scheme.fixed_block() {
            return Ok(b);
        }
        if !scheme.needs_columns() {
            return Ok(self.block);
        }
        let values = shape.iter().try_fold(1usize, |n, d| n.checked_mul(*d));
        let cols = match shape {
            [.., _, last] => *last,
            _ => self.cols.or(values).unwrap_or(0),
        };
        let cols = scheme.block(Some(cols))?;
        match values {
            Some(values) if values % cols == 0 => Ok(cols),
            Some(values) => Err(QuantError::Rows { values, cols }),
            None => Err(QuantError::ColumnsOutOfRange(cols)),
        }
    }

    /// `schemes` less those that cannot run on a tensor of `shape` (see
    /// [`QuantQuery::block_for`]), each left out with the sentence saying why, in
    /// [`Scheme::ALL`]'s order.
    pub fn runnable(
        &self,
        schemes: SchemeSet,
        shape: &[usize],
    ) -> (SchemeSet, Vec<(Scheme, String)>) {
        let mut set = schemes;
        let mut left_out = Vec::new();
        for s in schemes.iter() {
            if let Err(e) = self.block_for(s, shape) {
                set = set.without(s);
                left_out.push((s, e.to_string()));
            }
        }
        (set, left_out)
    }
}

/// Largest model size the whole-model column takes, in billions of parameters (10^14 parameters,
/// far beyond any model; it keeps the byte counts within `u64`).
pub const MAX_MODEL_BILLIONS: f64 = 1e5;

/// Reads the model-size box: billions of parameters (`8`, `0.5`, `70`) to a parameter count.
/// Errors are sentences for beside the box: not a number (text, NaN, ±inf), not more than 0, or
/// more than [`MAX_MODEL_BILLIONS`].
pub fn parse_model_billions(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let billions = text
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            format!("'{text}' is not a number: type billions of parameters, e.g. 8 or 0.5")
        })?;
    if billions <= 0.0 {
        return Err(format!(
            "a model needs more than 0 parameters: '{text}' billion"
        ));
    }
    if billions > MAX_MODEL_BILLIONS {
        return Err(format!(
            "'{text}' billion is too large: at most {} billion parameters",
            bitbudget_math::numbers::grouped(MAX_MODEL_BILLIONS as usize)
        ));
    }
    Ok(billions * 1e9)
}

/// A tensor's shape for readers: `[256, 512]` as "256 × 512", a scalar as "a single value".
pub fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "a single value".into();
    }
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(" × ")
}

/// Largest block the lab takes (2^24 values, the math crate's limit), so that one block stays a
/// short piece of work.
pub use bitbudget_math::quant::error::MAX_BLOCK;

/// How `n` values split into blocks of `block`: "147,456 values → 2,304 blocks of 64", saying when
/// the last block is zero-padded and when a "per tensor" block was capped at [`MAX_BLOCK`].
pub fn describe_blocks(n: usize, block: usize) -> String {
    use bitbudget_math::numbers::grouped;
    let block = block.max(1);
    let blocks = n.div_ceil(block);
    let mut text = format!(
        "{} values → {} block{} of {}",
        grouped(n),
        grouped(blocks),
        if blocks == 1 { "" } else { "s" },
        grouped(block)
    );
    let pad = blocks * block - n;
    if pad > 0 {
        text.push_str(&format!(", the last padded with {} zeros", grouped(pad)));
    }
    if block == MAX_BLOCK && n > MAX_BLOCK {
        text.push_str(" (a block holds at most 16,777,216 values)");
    }
    text
}

impl PageQuery for QuantQuery {
    const TAB: Tab = Tab::Quant;

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        QuantQuery::apply(self, key, value)
    }

    /// The selected scheme joins the compared ones unless the URL named it (see
    /// [`QuantQuery::settle_selection`]).
    fn finish(&mut self, keys: &[String], _notes: &mut Vec<String>) {
        self.settle_selection(keys.iter().any(|k| k == "scheme"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn url_round_trips() {
        let mut q = QuantQuery {
            scheme: "nf4".parse().unwrap(),
            seed: 9,
            block: 128,
            outliers: 3,
            magnitude: 50.0,
            double_quant: true,
            fp4: Fp4Options {
                rht: Some(7),
                sr: Some(u64::MAX),
            },
            ..Default::default()
        };
        q.tensor = TensorSource::Synthetic(q.outlier_distribution());
        let mut back = QuantQuery::default();
        for pair in q
            .to_query_string(false)
            .trim_start_matches('?')
            .split('&')
            .skip(1)
        {
            let (k, v) = pair.split_once('=').unwrap();
            assert_eq!(back.apply(k, v), Some(Ok(())), "{k}");
        }
        assert_eq!(back, q);
    }

    #[wasm_bindgen_test]
    fn fp4_option_seeds_are_read_and_a_bad_one_is_reported_and_leaves_the_option_off() {
        let mut q = QuantQuery::default();
        assert!(!q.to_query_string(false).contains("rht"));
        assert_eq!(q.apply("rht", "7"), Some(Ok(())));
        assert_eq!(q.fp4.rht, Some(7));
        let e = q.apply("sr", "x").unwrap().unwrap_err();
        assert_eq!(
            e,
            "sr: a seed must be a whole number from 0 to 18446744073709551615: 'x' is not a whole \
             number; keeping the default"
        );
        assert_eq!(q.fp4.sr, None);
        assert!(q
            .apply("sr", "-3")
            .unwrap()
            .unwrap_err()
            .contains("negative"));
        assert_eq!(q.fp4.sr, None);
        assert!(q.to_query_string(false).ends_with("&rht=7"));
        // Offered while NVFP4 or MXFP4 is compared.
        assert!(q.offers_fp4_options());
        q.schemes = SchemeSet::only(q.scheme);
        assert!(!q.offers_fp4_options());
        q.compare(Scheme::Nvfp4, true);
        assert!(q.offers_fp4_options());
    }

    #[wasm_bindgen_test]
    fn every_scheme_of_the_one_list_round_trips_through_the_url_with_its_fixed_block() {
        for s in Scheme::ALL {
            let q = QuantQuery {
                scheme: s,
                ..Default::default()
            };
            let mut back = QuantQuery::default();
            let query = q.to_query_string(false);
            let value = query
                .split("scheme=")
                .nth(1)
                .unwrap()
                .split('&')
                .next()
                .unwrap();
            assert_eq!(back.apply("scheme", value), Some(Ok(())), "{s}");
            assert_eq!(back.scheme, s);
            let want = match s.fixed_block() {
                Some(b) => b,
                None if s.needs_columns() => 512,
                None => back.block,
            };
            assert_eq!(back.block_for(s, &[256, 512]), Ok(want), "{s}");
        }
        let mut q = QuantQuery::default();
        assert_eq!(q.apply("scheme", "Q4_K"), Some(Ok(())));
        assert_eq!(q.block_for(q.scheme, &[256, 512]), Ok(256));
        assert_eq!(
            q.block_for("nf4".parse().unwrap(), &[256, 512]),
            Ok(q.block)
        );
    }

    #[wasm_bindgen_test]
    fn fp8_128x128_gets_the_tensor_s_columns_or_says_why_not() {
        let s = Scheme::Fp8Block;
        let mut q = QuantQuery::default();
        // A 2D (or higher) shape gives its last dimension, whatever the query's block or cols.
        assert_eq!(q.block_for(s, &[256, 512]), Ok(512));
        assert_eq!(q.block_for(s, &[2, 3, 384]), Ok(384));
        // A vector is one row, unless the query says how many columns its rows have.
        assert_eq!(q.block_for(s, &[1000]), Ok(1000));
        assert_eq!(q.apply("cols", "200"), Some(Ok(())));
        assert_eq!(q.block_for(s, &[1000]), Ok(200));
        assert_eq!(q.block_for(s, &[256, 512]), Ok(512));
        assert_eq!(
            q.block_for(s, &[1100]),
            Err(QuantError::Rows {
                values: 1100,
                cols: 200
            })
        );
        q.cols = None;
        assert_eq!(
            q.block_for(s, &[MAX_BLOCK + 2]),
            Err(QuantError::ColumnsOutOfRange(MAX_BLOCK + 2))
        );
        assert_eq!(
            q.block_for(s, &[3, 0]),
            Err(QuantError::ColumnsOutOfRange(0))
        );
        // The lab leaves such a scheme out and says why; the others still run.
        let (set, left_out) = q.runnable(SchemeSet::ALL, &[MAX_BLOCK + 2]);
        assert!(!set.contains(s) && set.contains(Scheme::Nf4));
        assert_eq!(left_out.len(), 1);
        assert_eq!(left_out[0].0, s);
        assert!(left_out[0].1.contains("columns"), "{}", left_out[0].1);
    }

    #[wasm_bindgen_test]
    fn a_bad_cols_value_keeps_the_last_good_one() {
        let mut q = QuantQuery::default();
        assert_eq!(q.apply("cols", "384"), Some(Ok(())));
        for bad in ["0", "NaN", "1e15", "text", "-3", "16777217"] {
            let e = q.apply("cols", bad).unwrap().unwrap_err();
            assert!(e.starts_with("cols: "), "{e}");
            assert!(e.contains(&format!("'{bad}'")), "{e}");
            assert_eq!(q.cols, Some(384), "{bad}");
        }
        assert!(q.to_query_string(false).contains("&cols=384"));
        assert_eq!(q.apply("cols", ""), Some(Ok(())));
        assert_eq!(q.cols, None);
        assert!(!q.to_query_string(false).contains("cols="));
    }

    #[wasm_bindgen_test]
    fn blocks_are_described_with_padding_and_the_cap() {
        assert_eq!(
            describe_blocks(147_456, 64),
            "147,456 values → 2,304 blocks of 64"
        );
        assert_eq!(
            describe_blocks(257, 256),
            "257 values → 2 blocks of 256, the last padded with 255 zeros"
        );
        assert_eq!(describe_blocks(256, 256), "256 values → 1 block of 256");
        assert!(describe_blocks(40_000_000, MAX_BLOCK)
            .ends_with("(a block holds at most 16,777,216 values)"));
    }

    #[wasm_bindgen_test]
    fn model_sizes_are_read_in_billions_and_bad_ones_say_why() {
        assert_eq!(parse_model_billions(" 70 "), Ok(70e9));
        assert_eq!(parse_model_billions("0.5"), Ok(0.5e9));
        for (text, why) in [
            ("-7", "more than 0"),
            ("0", "more than 0"),
            ("NaN", "not a number"),
            ("inf", "not a number"),
            ("", "not a number"),
            ("seventy", "not a number"),
            ("1e15", "at most 100,000 billion"),
        ] {
            let e = parse_model_billions(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[wasm_bindgen_test]
    fn typed_errors_are_plain_sentences_and_url_errors_name_the_key() {
        let mut q = QuantQuery::default();
        assert_eq!(
            q.assign("block", "7"),
            Some(Err(
                "'7' is not an even block size between 2 and 16,777,216".into()
            ))
        );
        assert_eq!(
            q.apply("block", "7"),
            Some(Err(
                "block: '7' is not an even block size between 2 and 16,777,216; keeping the default"
                    .into()
            ))
        );
        assert_eq!(q, QuantQuery::default());
    }

    #[wasm_bindgen_test]
    fn shapes_read_as_dimensions() {
        assert_eq!(shape_text(&[256, 512]), "256 × 512");
        assert_eq!(shape_text(&[64]), "64");
        assert_eq!(shape_text(&[]), "a single value");
    }

    #[wasm_bindgen_test]
    fn bad_values_keep_defaults() {
        let mut q = QuantQuery::default();
        for (k, v) in [
            ("scheme", "q9"),
            ("tensor", "sample:nope"),
            ("seed", "-1"),
            ("block", "7"),
            ("magnitude", "NaN"),
        ] {
            assert!(q.apply(k, v).unwrap().is_err(), "{k}={v}");
        }
        assert_eq!(q, QuantQuery::default());
    }

    #[wasm_bindgen_test]
    fn the_compared_schemes_round_trip_through_the_url_by_name_or_family() {
        let q = QuantQuery {
            scheme: "nf4".parse().unwrap(),
            schemes: SchemeSet::parse("nf4,q8_0,k-quants").unwrap(),
            ..Default::default()
        };
        assert_eq!(q.schemes.len(), 8);
        let url = q.to_query_string(false);
        assert!(url.ends_with("&schemes=q8_0,k-quants,nf4"), "{url}");
        let mut back = QuantQuery::default();
        for pair in url.trim_start_matches('?').split('&').skip(1) {
            let (k, v) = pair.split_once('=').unwrap();
            assert_eq!(back.apply(k, v), Some(Ok(())), "{k}");
        }
        assert_eq!(back, q);
        assert!(!QuantQuery::default()
            .to_query_string(false)
            .contains("schemes="));
        assert_eq!(
            SchemeSet::parse("ggml,k-quants,mx,int,float"),
            Ok(SchemeSet::ALL)
        );
    }

    #[wasm_bindgen_test]
    fn bad_scheme_lists_say_why_and_keep_every_scheme() {
        let mut q = QuantQuery::default();
        let e = q.apply("schemes", "q4_0,q9_9").unwrap().unwrap_err();
        assert!(
            e.starts_with("schemes: ") && e.contains("q9_9") && e.ends_with("keeping the default"),
            "{e}"
        );
        let e = q.apply("schemes", ",,").unwrap().unwrap_err();
        assert!(e.contains("no scheme named"), "{e}");
        assert_eq!(q, QuantQuery::default());
    }

    #[wasm_bindgen_test]
    fn the_shown_scheme_is_always_compared() {
        // Named in the URL outside the list: it joins the list.
        let mut q = QuantQuery::default();
        q.apply("scheme", "q8_0").unwrap().unwrap();
        q.apply("schemes", "mx").unwrap().unwrap();
        q.settle_selection(true);
        let microscaling = bitbudget_math::quant::scheme::SchemeFamily::Microscaling
            .schemes()
            .count();
        assert!(q.schemes.contains(q.scheme) && q.schemes.len() == microscaling + 1);
        // Not named: the list's first is shown.
        let mut q = QuantQuery::default();
        q.apply("schemes", "float").unwrap().unwrap();
        q.settle_selection(false);
        assert_eq!(q.scheme.name(), "f8e4m3");
        assert_eq!(q.schemes.len(), 4);
        // Leaving out the shown scheme shows the first left; the last scheme stays.
        q.compare("f8e4m3".parse().unwrap(), false);
        assert_eq!((q.scheme.name(), q.schemes.len()), ("f8e5m2", 3));
        for s in ["f8e5m2", "bf16", "f16"] {
            q.compare(s.parse().unwrap(), false);
        }
        assert_eq!(
            (q.scheme.name(), q.schemes.url_value()),
            ("f16", "f16".into())
        );
        // Showing another scheme compares it too.
        q.show("q4_k".parse().unwrap());
        assert_eq!(q.schemes.url_value(), "q4_k,f16");
        assert_eq!(
            SchemeSet::parse("float,mxfp4").unwrap().url_value(),
            "mxfp4,float"
        );
        assert_eq!(q.compared(), q.schemes);
        assert_eq!(SchemeSet::only(q.scheme).url_value(), "q4_k");
    }
}
