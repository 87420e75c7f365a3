// The Quantize lab's measuring pass (bitbudget_math::quant::lab::summary): the error metrics'
// sums, the counts, the value and error histograms and the error map's block sums of one chunk of
// (original, dequantized) pairs, without the values leaving the device.
//
// Work is split into tiles of at most 32 consecutive values that never cross an error-map block
// (heat block) boundary, one invocation per tile, so each tile's squared error belongs to exactly
// one block. Four entry points run in order:
//   tile_max:  each tile's largest finite |e| (e = x̂ − x, the CPU's exactly rounded f32 error);
//   group_max: the largest per group of 64 tiles;
//   scan:      one invocation: the exclusive running maximum over groups, starting from the
//              largest |e| of the part's chunks before (`partials[0]`, carried on the device so
//              that a chunk can start before the one before it is read back), and the maximum
//              so far, written to stats and carried on in `partials[0]`;
//   tiles:     everything else. The error histogram needs, for each value, the range
//              R = 2^E the CPU's GrowingHistogram had when that value arrived (E from the largest
//              |e| up to and including it), because a value equal to R and a tiny negative value
//              land in different bins than at a larger R; the running maximum gives it exactly.
//              Each value's bin at its own E is then folded up to the chunk's final E as the
//              histogram's doubling folds it. Counts are atomics on u32 and exact.
// Sums are f32, per tile in order, each over values scaled by a power of two that brings the
// tile's largest |e|, |x| or |x̂| to [1, 2) (on the bits, so subnormals scale exactly), so no
// square overflows and only terms below 2^-126 of the tile's largest can vanish; the host
// unscales each tile's sums and adds them in f64 (tolerance in measure.rs).
//
// Bindings (the measure layout in context.rs):
// params: count = invocations; n = values in the chunk; block = values per heat block;
//   variant = where the chunk's first value sits in its heat block;
//   consts = (1 when the histogram had a range before the part's first chunk, its exponent E as
//   i32 bits, tiles, where the group maxima start in `partials`: 1).
@group(0) @binding(0) var<uniform> params: Params;
// x: the original values as f32 bit patterns, [n].
@group(0) @binding(1) var<storage, read> x: array<u32>;
// y: the dequantized values as f32 bit patterns, [n] or more (padding is not read).
@group(0) @binding(2) var<storage, read> y: array<u32>;
// table: [0] the number of value bins B; [1..B) the order keys at which bins 1..B begin.
@group(0) @binding(3) var<storage, read> table: array<u32>;
// stats: counters, then B + 1 value bins (NaN last) from VALUE_BASE, FINE error bins from
// ERROR_BASE.
@group(0) @binding(4) var<storage, read_write> stats: array<atomic<u32>>;
// tiles: per tile [largest finite |e| bits, Σe², Σx², Σx̂², Σx·x̂ (scaled f32 bits), the three
// scale exponents (e, x, x̂) as bytes biased by 128, finite pairs | lost << 31, Σe (e scaled
// as in Σe², f32 bits)].
@group(0) @binding(5) var<storage, read_write> tiles: array<u32>;
// partials: [0] the largest finite |e| of the part so far (0 before its first chunk; the host
// writes it once per part); then per group of 64 tiles its largest |e| (after `scan`: of
// everything before the group), from `params.consts.w`.
@group(0) @binding(6) var<storage, read_write> partials: array<u32>;

const TILE: u32 = 32u;
const COUNTED: u32 = 0u;
const SKIPPED: u32 = 1u;
const LOST: u32 = 2u;
const MAX_ERROR: u32 = 3u;
const CHUNK_MAX: u32 = 4u;
const VALUE_BASE: u32 = 16u;
const ERROR_BASE: u32 = 272u;
const FINE: u32 = 4096u;
const HALF: u32 = 2048u;

const WORDS: u32 = 8u;

var<workgroup> value_bins: array<atomic<u32>, 256>;

/// floor(log2 |v|) of the largest of some |v| bits (0 for none), clamped so 2^-k is a normal f32.
fn scale_exponent(m: u32) -> i32 {
    if (m == 0u) {
        return 0;
    }
    let u = unpack(m);
    return clamp(u.y - 127, -126, 126);
}

/// v × 2^-k on the bits (exact while the result is normal; smaller results become 0), as f32.
fn scaled(v: u32, k: i32) -> f32 {
    if (is_zero(v)) {
        return 0.0;
    }
    let u = unpack(v);
    let e = u.y - k;
    if (e < 1) {
        return 0.0;
    }
    return bitcast<f32>((v & SIGN) | (u32(e) << 23u) | (u32(u.x) & 0x7fffffu));
}

/// The chunk-relative range [start, end) of tile t.
fn tile_range(t: u32) -> vec2<u32> {
    let hb = params.block;
    let per = (hb + TILE - 1u) / TILE;
    let g = params.variant / TILE + t;
    let seg = g / per;
    let j = g % per;
    let lo = max(seg * hb + TILE * j, params.variant);
    let hi = min(seg * hb + min(TILE * (j + 1u), hb), params.variant + params.n);
    return vec2<u32>(lo - params.variant, max(hi, lo) - params.variant);
}

/// The CPU's f32 error x̂ − x (exactly rounded, subnormals kept).
fn error_at(i: u32) -> u32 {
    return f_sub(y[i], x[i]);
}

/// floor(log2 m) of a nonzero integer.
fn log2_floor(m: u32) -> i32 {
    return 31 - i32(countLeadingZeros(m));
}

/// A nonzero finite |v| as (m, q) with |v| = m · 2^q.
fn split_mag(u: u32) -> vec2<i32> {
    let field = (u >> 23u) & 0xffu;
    if (field == 0u) {
        return vec2<i32>(i32(u & 0x7fffffu), -149);
    }
    return vec2<i32>(i32((u & 0x7fffffu) | 0x800000u), i32(field) - 150);
}

/// The smallest E with 2^E ≥ |v| (GrowingHistogram's range exponent), for nonzero finite |v| bits.
fn ceil_log2(u: u32) -> i32 {
    let mq = split_mag(u);
    let m = u32(mq.x);
    let top = mq.y + log2_floor(m);
    return select(top + 1, top, (m & (m - 1u)) == 0u);
}

/// GrowingHistogram::push's fine bin of a finite nonzero e at range 2^E (|e| ≤ 2^E):
/// trunc((e + R) · 4096 / 2R) in f64, clamped to the last bin, done on integers. The f64 sum
/// rounds only when |e| < 2^(E−29); then a positive e still lands in bin 2048, and a negative one
/// in 2048 when it rounds to R (|e| ≤ 2^(E−54), the tie going to R's even significand), else 2047.
fn fine_bin(e: u32, big_e: i32) -> u32 {
    let mq = split_mag(e & ABS);
    let m = u32(mq.x);
    let s = mq.y + 11 - big_e;
    var fl = 0u;
    var exact = true;
    if (s >= 0) {
        fl = m << u32(s);
    } else if (s > -32) {
        fl = m >> u32(-s);
        exact = (fl << u32(-s)) == m;
    } else {
        exact = false;
    }
    if ((e & SIGN) == 0u) {
        return min(HALF + fl, FINE - 1u);
    }
    let top = mq.y + log2_floor(m);
    let tiny = top < big_e - 54 || (top == big_e - 54 && (m & (m - 1u)) == 0u);
    if (tiny) {
        return HALF;
    }
    let ce = fl + select(1u, 0u, exact);
    return HALF - min(ce, HALF);
}

/// Where bin i goes when the range doubles k times (GrowingHistogram's doubling).
fn fold(bin: u32, k: i32) -> u32 {
    var i = bin;
    for (var j = 0; j < min(k, 12); j = j + 1) {
        i = FINE / 4u + i / 2u;
    }
    return i;
}

/// The histogram exponent after values up to |e| bits `m` (0: none), given the one before.
fn exponent_after(m: u32) -> vec2<i32> {
    let had = params.consts.x == 1u;
    let before = bitcast<i32>(params.consts.y);
    if (m == 0u) {
        return vec2<i32>(select(0, 1, had), before);
    }
    let e = ceil_log2(m);
    return vec2<i32>(1, select(e, max(e, before), had));
}

/// The value bin of x̂ (table: order keys of the bin starts), or B for NaN.
fn value_bin(v: u32) -> u32 {
    let bins = table[0];
    if (is_nan(v)) {
        return bins;
    }
    let key = order_key(v);
    var lo = 0u;
    var hi = bins - 1u;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (table[1u + mid] <= key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(64)
fn tile_max(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = flat_index(gid, groups);
    if (t >= params.count) {
        return;
    }
    let r = tile_range(t);
    var m = 0u;
    for (var i = r.x; i < r.y; i = i + 1u) {
        let e = error_at(i);
        if (is_finite(e)) {
            m = max(m, e & ABS);
        }
    }
    tiles[WORDS * t] = m;
}

@compute @workgroup_size(64)
fn group_max(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = flat_index(gid, groups);
    if (g >= params.count) {
        return;
    }
    var m = 0u;
    for (var t = g * 64u; t < min(g * 64u + 64u, params.consts.z); t = t + 1u) {
        m = max(m, tiles[WORDS * t]);
    }
    partials[params.consts.w + g] = m;
}

@compute @workgroup_size(1)
fn scan(@builtin(global_invocation_id) gid: vec3<u32>) {
    // One invocation works, whatever grid the host dispatches.
    if (gid.x != 0u || gid.y != 0u) {
        return;
    }
    var running = partials[0];
    for (var g = 0u; g < params.count; g = g + 1u) {
        let m = partials[params.consts.w + g];
        partials[params.consts.w + g] = running;
        running = max(running, m);
    }
    partials[0] = running;
    atomicStore(&stats[CHUNK_MAX], running);
}

@compute @workgroup_size(64)
fn measure_tiles(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = flat_index(gid, groups);
    for (var b = lid; b < 256u; b = b + 64u) {
        atomicStore(&value_bins[b], 0u);
    }
    workgroupBarrier();
    if (t < params.count) {
        measure_tile(t);
    }
    workgroupBarrier();
    for (var b = lid; b < table[0] + 1u; b = b + 64u) {
        let c = atomicLoad(&value_bins[b]);
        if (c > 0u) {
            atomicAdd(&stats[VALUE_BASE + b], c);
        }
    }
}

/// Everything `measure_tiles` does for tile t but the flush of the workgroup's value bins.
fn measure_tile(t: u32) {
    let final_e = exponent_after(atomicLoad(&stats[CHUNK_MAX]));
    // The largest finite |e| before this tile: groups before, then tiles before in the group.
    var running = partials[params.consts.w + t / 64u];
    for (var u = t - t % 64u; u < t; u = u + 1u) {
        running = max(running, tiles[WORDS * u]);
    }
    let r = tile_range(t);
    // The scales: the largest |x| and |x̂| of the finite pairs, and the largest finite |e|.
    var mx = 0u;
    var my = 0u;
    for (var i = r.x; i < r.y; i = i + 1u) {
        if (is_finite(x[i]) && is_finite(y[i])) {
            mx = max(mx, x[i] & ABS);
            my = max(my, y[i] & ABS);
        }
    }
    let ke = scale_exponent(tiles[WORDS * t]);
    let kx = scale_exponent(mx);
    let ky = scale_exponent(my);
    var acc = vec4<f32>(0.0);
    var signed = 0.0;
    var counted = 0u;
    var skipped = 0u;
    var lost = 0u;
    var max_error = 0u;
    for (var i = r.x; i < r.y; i = i + 1u) {
        let a = x[i];
        let b = y[i];
        atomicAdd(&value_bins[value_bin(b)], 1u);
        let e = f_sub(b, a);
        if (is_finite(e)) {
            running = max(running, e & ABS);
            var bin = HALF;
            if (!is_zero(e)) {
                let here = exponent_after(running).y;
                bin = fold(fine_bin(e, here), final_e.y - here);
            }
            atomicAdd(&stats[ERROR_BASE + bin], 1u);
        }
        if (!is_finite(a)) {
            skipped = skipped + 1u;
        } else if (!is_finite(b)) {
            lost = lost + 1u;
        } else {
            counted = counted + 1u;
            max_error = max(max_error, e & ABS);
            // An error past f32's range (opposite signs near its largest values) counts as ∞.
            let es = select(bitcast<f32>(e & ABS), scaled(e, ke), is_finite(e));
            let xs = scaled(a, kx);
            let ys = scaled(b, ky);
            acc = acc + vec4<f32>(es * es, xs * xs, ys * ys, xs * ys);
            signed = signed + select(bitcast<f32>(e), scaled(e, ke), is_finite(e));
        }
    }
    let w = WORDS * t;
    tiles[w + 1u] = bitcast<u32>(acc.x);
    tiles[w + 2u] = bitcast<u32>(acc.y);
    tiles[w + 3u] = bitcast<u32>(acc.z);
    tiles[w + 4u] = bitcast<u32>(acc.w);
    tiles[w + 5u] = u32(ke + 128) | (u32(kx + 128) << 8u) | (u32(ky + 128) << 16u);
    tiles[w + 6u] = counted | select(0u, SIGN, lost > 0u);
    tiles[w + 7u] = bitcast<u32>(signed);
    atomicAdd(&stats[COUNTED], counted);
    atomicAdd(&stats[SKIPPED], skipped);
    atomicAdd(&stats[LOST], lost);
    atomicMax(&stats[MAX_ERROR], max_error);
}
