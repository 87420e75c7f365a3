#!/usr/bin/env python3
"""Builds llama.cpp's reference quantizers into a small shared library and exposes them to Python.

Nothing from llama.cpp is committed: this script fetches the source distribution of
`llama-cpp-python` (which vendors llama.cpp, ggml included, under vendor/llama.cpp) from PyPI with
pip, extracts the ggml sources under build/llama-reference/ (git-ignored) and compiles
ggml.c + ggml-quants.c with gcc into libggml-ref.so. ggml.c provides `ggml_quantize_chunk` (the
entry point llama-quantize uses); ggml-quants.c provides `quantize_row_*_ref` and
`dequantize_row_*`. A few backend functions that ggml.c refers to but quantization never calls are
given stubs that abort, written by this script (see SHIM below).

Build flags: `-O2 -DNDEBUG` as a release build of llama.cpp (without NDEBUG, an `assert` in
`nearest_int` aborts on inputs beyond ±4194303 instead of quantizing them), and
`-ffp-contract=off`, so that no compiler fuses a*b+c into one FMA: each float operation rounds
once, as the C source reads and as bitbudget's Rust port computes. On x86-64 the baseline has no
FMA anyway; the flag keeps the bytes the same on other hosts.

pip note: `pip download --no-binary :all:` would also build pip's own build-time helpers (cmake,
ninja) from source just to read the package's metadata, which takes many minutes; restricting
`--no-binary` to llama-cpp-python downloads the very same sdist file quickly.

Usage:
    python3 scripts/build_llama_reference.py            # fetch and build (once), print the path
    python3 scripts/build_llama_reference.py --bench    # GB/s of f32 input per scheme, one core
    python3 scripts/build_llama_reference.py --bench --with-bitbudget
        # the same, then bitbudget's criterion bench (crates/math/benches/kquants.rs) on the same
        # input file, and both side by side
    python3 scripts/build_llama_reference.py --wasm-bench [--before REF] [--only q4_0,q4_1]
        # ggml-quants.c compiled to WebAssembly (clang -O2 and -O3, -msimd128) against bitbudget's
        # quantizers in wasm (crates/math/examples/wasm_quantizers.rs; with --before, bitbudget at
        # git REF too), same input, one Node.js process, bytes checked equal
        # (scripts/bench_ggml_wasm.mjs)

As a module (scripts/make_kquant_fixtures.py):
    from build_llama_reference import Reference
    ref = Reference.build()
    blocks = ref.quantize("q4_K", values)              # ggml_quantize_chunk, no importance matrix
    values = ref.dequantize("q4_K", blocks)            # dequantize_row_q4_K
    blocks = ref.quantize_row_ref("iq4_nl", values)    # quantize_row_iq4_nl_ref
Values are `array.array("f")`; blocks are `bytes`. Only the Python standard library is needed.
"""
import argparse
import array
import ctypes
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from tree_export import export_ref, touch_math_sources

PIN = "0.3.36"  # the newest llama-cpp-python on PyPI (Nov 2026); its llama.cpp has GGML_TYPE_NVFP4
ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "llama-reference"
SDIST = f"llama_cpp_python-{PIN}.tar.gz"
GGML = f"llama_cpp_python-{PIN}/vendor/llama.cpp/ggml"
LIB = BUILD / "libggml-ref.so"
# Debian's packages for compiling C to WebAssembly: clang's wasm32 target, its linker, a libc for
# wasm32-wasi (headers and libc.a; ggml-quants.c uses malloc, memcpy, roundf, …) and the compiler's
# builtins for wasm32.
WASM_PACKAGES = ["clang", "lld", "wasi-libc", "libclang-rt-14-dev-wasm32"]
WASI_INCLUDE = pathlib.Path("/usr/include/wasm32-wasi")
# The wasm builds of the reference: one per optimisation level, both with simd128 (as bitbudget's
# wasm), so that clang may vectorize llama.cpp's loops; the bench reports each.
WASM_FLAGS = {"llama-O2": ["-O2", "-msimd128"], "llama-O3": ["-O3", "-msimd128"]}

# Symbols ggml.c refers to that quantization never reaches: the backend tensor API (used by
# ggml_set_* helpers) and the critical section of ggml_quantize_init (a no-op here: the library
# is used from one thread).
SHIM = r"""
#include <stdio.h>
#include <stdlib.h>
static void unreachable_in_reference(const char * name) {
    fprintf(stderr, "libggml-ref: %s is not part of the quantization reference\n", name);
    abort();
}
void ggml_critical_section_start(void) {}
void ggml_critical_section_end(void) {}
void ggml_backend_tensor_set(void) { unreachable_in_reference("ggml_backend_tensor_set"); }
void ggml_backend_tensor_memset(void) { unreachable_in_reference("ggml_backend_tensor_memset"); }
void ggml_backend_buffer_get_usage(void) { unreachable_in_reference("ggml_backend_buffer_get_usage"); }
"""

# Schemes bitbudget ports and the older ones it already has, by ggml type name.
SCHEMES = ["q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "iq4_nl", "nvfp4", "mxfp4",
           "q4_0", "q4_1", "q5_0", "q5_1", "q8_0"]


def fetch_sources():
    """Downloads the pinned sdist (once) and extracts ggml's sources; returns their directory."""
    BUILD.mkdir(parents=True, exist_ok=True)
    if not (BUILD / SDIST).exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                        "--no-binary", "llama-cpp-python", f"llama-cpp-python=={PIN}",
                        "-d", str(BUILD)], check=True)
    src = BUILD / GGML
    extracted = BUILD / "extracted"
    if not extracted.exists():
        with tarfile.open(BUILD / SDIST) as tar:
            wanted = [m for m in tar.getmembers()
                      if m.name.startswith(GGML + "/include/")
                      or re.fullmatch(re.escape(GGML) + r"/src/(ggml-cpu/)?[^/]+\.(c|h|in)", m.name)
                      or m.name == f"llama_cpp_python-{PIN}/vendor/llama.cpp/LICENSE"]
            tar.extractall(BUILD, members=wanted, filter="data")
        extracted.touch()
    gen = BUILD / "generated"
    gen.mkdir(exist_ok=True)
    version_in = (src / "src" / "ggml-version.h.in").read_text()
    (gen / "ggml-version.h").write_text(
        version_in.replace("@GGML_VERSION@", f"llama-cpp-python-{PIN}")
        .replace("@GGML_BUILD_COMMIT@", "vendored"))
    (gen / "shim.c").write_text(SHIM)
    return src


def fetch_and_build():
    """Fetches the sources (once) and compiles the native library (once); returns its path."""
    src = fetch_sources()
    gen = BUILD / "generated"
    if LIB.exists():
        return LIB
    cmd = ["gcc", "-O2", "-DNDEBUG", "-ffp-contract=off", "-std=gnu11", "-fPIC", "-shared",
           f"-I{src / 'include'}", f"-I{src / 'src'}", f"-I{gen}",
           str(src / "src" / "ggml.c"), str(src / "src" / "ggml-quants.c"), str(gen / "shim.c"),
           "-lm", "-Wl,--no-undefined", "-o", str(LIB)]
    print("building", LIB.name, "(about a minute)", file=sys.stderr)
    subprocess.run(cmd, check=True)
    return LIB


def wasm_tools():
    """Installs Debian's wasm32 C toolchain when it is missing (as root), else says what to install."""
    if shutil.which("clang") and shutil.which("wasm-ld") and WASI_INCLUDE.exists():
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit("compiling llama.cpp to wasm needs: apt-get install " + " ".join(WASM_PACKAGES))
    subprocess.run(["apt-get", "install", "-y", "-q", *WASM_PACKAGES], check=True,
                   env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def build_wasm():
    """Compiles ggml-quants.c to WebAssembly once per entry of WASM_FLAGS (wasm32-wasi, no entry
    point, the quantizers and malloc exported); returns the modules' paths. The one function it
    imports, `ggml_abort`, and the WASI calls behind fprintf are never reached when quantizing:
    the bench gives them stubs that throw."""
    src = fetch_sources()
    wasm_tools()
    exports = [f"quantize_row_{name}_ref" for name in SCHEMES if name != "iq4_nl"]
    exports += ["quantize_iq4_nl", "malloc"]
    paths = []
    for label, flags in WASM_FLAGS.items():
        out = BUILD / f"{label}.wasm"
        if not out.exists():
            cmd = ["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-isystem", str(WASI_INCLUDE),
                   "-L/usr/lib/wasm32-wasi", *flags, "-DNDEBUG", "-ffp-contract=off", "-std=gnu11",
                   f"-I{src / 'include'}", f"-I{src / 'src'}", f"-I{BUILD / 'generated'}",
                   "-nostartfiles", "-Wl,--no-entry", "-Wl,--allow-undefined",
                   *[f"-Wl,--export={e}" for e in exports],
                   str(src / "src" / "ggml-quants.c"), "-o", str(out)]
            subprocess.run(cmd, check=True)
        paths.append(out)
    return paths


EXAMPLE = "crates/math/examples/wasm_quantizers.rs"


def build_bitbudget_wasm(tree, label):
    """bitbudget's quantizers as a plain wasm module (EXAMPLE) built in `tree` (into this tree's
    target directory, sources touched first), copied to build/llama-reference/<label>.wasm."""
    touch_math_sources(tree)
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"))
    subprocess.run(["cargo", "build", "--release", "-p", "bitbudget-math", "--example",
                    "wasm_quantizers", "--target", "wasm32-unknown-unknown"],
                   cwd=tree, env=env, check=True)
    built = ROOT / "target" / "wasm32-unknown-unknown" / "release" / "examples" / "wasm_quantizers.wasm"
    out = BUILD / f"{label}.wasm"
    shutil.copy(built, out)
    return out


def export_tree(ref, into):
    """The tree of git `ref` in `into`, with this tree's EXAMPLE and its Cargo.toml entry added
    (it uses `quantize_row`, `Layout::of` and `Scheme`'s `FromStr`, which older trees may lack)."""
    export_ref(ROOT, ref, into, (EXAMPLE,))
    toml = into / "crates/math/Cargo.toml"
    text = toml.read_text()
    if 'name = "wasm_quantizers"' not in text:
        toml.write_text(text + '\n[[example]]\nname = "wasm_quantizers"\ncrate-type = ["cdylib"]\n')


def wasm_bench(mib, samples, only, before):
    """Both wasm builds (and, with `before`, bitbudget's at that git ref too) on one input in one
    Node.js process (scripts/bench_ggml_wasm.mjs)."""
    llamas = build_wasm()
    ours = []
    if before:
        with tempfile.TemporaryDirectory(prefix="bitbudget-before-") as tmp:
            export_tree(before, pathlib.Path(tmp))
            ours.append(build_bitbudget_wasm(pathlib.Path(tmp), f"bitbudget-{before}"))
    ours.append(build_bitbudget_wasm(ROOT, "bitbudget"))
    _, path = bench_input(mib)
    cmd = ["node", str(ROOT / "scripts" / "bench_ggml_wasm.mjs"), ",".join(map(str, llamas)),
           ",".join(map(str, ours)), str(path), str(samples)]
    if only:
        cmd.append(only)
    return subprocess.run(cmd).returncode


def ggml_type_ids(header):
    """GGML_TYPE_* name -> id, read from the vendored ggml.h (never typed in here)."""
    ids = {}
    for name, value in re.findall(r"GGML_TYPE_(\w+)\s*=\s*(\d+)", header.read_text()):
        ids.setdefault(name.lower(), int(value))
    return ids


class Reference:
    """ctypes access to the compiled llama.cpp quantizers."""

    def __init__(self, lib_path, header):
        self.lib = ctypes.CDLL(str(lib_path))
        self.ids = ggml_type_ids(header)
        self.lib.ggml_quantize_chunk.restype = ctypes.c_size_t
        self.lib.ggml_quantize_chunk.argtypes = [
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
            ctypes.c_int64, ctypes.c_void_p]
        self.lib.ggml_row_size.restype = ctypes.c_size_t
        self.lib.ggml_row_size.argtypes = [ctypes.c_int, ctypes.c_int64]
        self.lib.ggml_blck_size.restype = ctypes.c_int64
        self.lib.ggml_blck_size.argtypes = [ctypes.c_int]

    @classmethod
    def build(cls):
        """Fetches and compiles (if needed) and loads the library."""
        lib = fetch_and_build()
        return cls(lib, BUILD / GGML / "include" / "ggml.h")

    def type_id(self, name):
        return self.ids[name.lower()]

    def block_size(self, name):
        """Weights per block of a type."""
        return self.lib.ggml_blck_size(self.type_id(name))

    def row_bytes(self, name, n):
        """Bytes of `n` weights of a type (n a multiple of its block size)."""
        return self.lib.ggml_row_size(self.type_id(name), n)

    def quantize(self, name, values, n_per_row=None):
        """`ggml_quantize_chunk` without an importance matrix: what llama-quantize writes."""
        n = len(values)
        n_per_row = n_per_row or n
        assert n % n_per_row == 0 and n_per_row % self.block_size(name) == 0
        src = (ctypes.c_float * n).from_buffer_copy(values)
        dst = (ctypes.c_uint8 * self.row_bytes(name, n))()
        self.lib.ggml_quantize_chunk(self.type_id(name), src, dst, 0, n // n_per_row,
                                     n_per_row, None)
        return bytes(dst)

    def quantize_row_ref(self, name, values):
        """`quantize_row_<name>_ref` (for IQ4_NL this differs from ggml_quantize_chunk)."""
        n = len(values)
        src = (ctypes.c_float * n).from_buffer_copy(values)
        dst = (ctypes.c_uint8 * self.row_bytes(name, n))()
        getattr(self.lib, f"quantize_row_{name}_ref")(src, dst, ctypes.c_int64(n))
        return bytes(dst)

    def dequantize(self, name, blocks):
        """`dequantize_row_<name>` over whole blocks."""
        n = len(blocks) // self.row_bytes(name, self.block_size(name)) * self.block_size(name)
        src = (ctypes.c_uint8 * len(blocks)).from_buffer_copy(blocks)
        dst = (ctypes.c_float * n)()
        getattr(self.lib, f"dequantize_row_{name}")(src, dst, ctypes.c_int64(n))
        return array.array("f", bytes(dst))


def bench_input(mib):
    """A reproducible N(0, 1) f32 input of `mib` MiB, also written to build/llama-reference/."""
    n = mib * (1 << 20) // 4
    rng = random.Random(16)
    values = array.array("f", (rng.gauss(0.0, 1.0) for _ in range(n)))
    path = BUILD / f"bench_input_{mib}mib.f32"
    path.write_bytes(values.tobytes())
    return values, path


def bench(ref, values, mib, repeats):
    """GB/s (10^9 bytes of f32 input per second) of each reference quantizer on one core."""
    n = len(values)
    src = (ctypes.c_float * n).from_buffer(values)
    results = {}
    print(f"llama-cpp-python {PIN} reference quantizers, {mib} MiB of N(0,1) f32, best of {repeats}")
    print(f"{'scheme':8} {'quantize GB/s':>14} {'dequantize GB/s':>16}")
    for name in SCHEMES:
        t = ref.type_id(name)
        row = 4096  # a typical weight row; every scheme's block size divides it
        dst = (ctypes.c_uint8 * ref.row_bytes(name, n))()
        out = (ctypes.c_float * n)()
        deq = getattr(ref.lib, f"dequantize_row_{name}")
        best_q = best_d = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            ref.lib.ggml_quantize_chunk(t, src, dst, 0, n // row, row, None)
            best_q = min(best_q, time.perf_counter() - start)
            start = time.perf_counter()
            deq(dst, out, ctypes.c_int64(n))
            best_d = min(best_d, time.perf_counter() - start)
        results[name] = (4 * n / best_q / 1e9, 4 * n / best_d / 1e9)
        print(f"{name:8} {results[name][0]:14.3f} {results[name][1]:16.3f}")
    return results


def bench_bitbudget(path):
    """Runs crates/math/benches/kquants.rs on the input file; returns {(direction, scheme): GB/s}."""
    from criterion_results import bench_gbs
    found = bench_gbs(ROOT, "kquants", "kquants_quantize|kquants_dequantize",
                      env={"KQUANT_BENCH_INPUT": str(path)})
    # bitbudget names schemes q4_k, mxfp6-e3m2; llama.cpp q4_K, mxfp6_e3m2.
    return {(group.removeprefix("kquants_"), name.lower().replace("-", "_")): gbs
            for (group, name), gbs in found.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", action="store_true", help="time every reference quantizer")
    parser.add_argument("--mib", type=int, default=16, help="benchmark input size in MiB")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--with-bitbudget", action="store_true",
                        help="with --bench: also run bitbudget's criterion bench on the same input")
    parser.add_argument("--wasm-bench", action="store_true",
                        help="compile the reference to wasm and time it against bitbudget's wasm")
    parser.add_argument("--samples", type=int, default=7, help="with --wasm-bench: samples each")
    parser.add_argument("--only", help="with --wasm-bench: schemes, comma-separated (bitbudget's names)")
    parser.add_argument("--before", help="with --wasm-bench: also bitbudget at this git ref")
    args = parser.parse_args()
    if args.wasm_bench:
        sys.exit(wasm_bench(args.mib, args.samples, args.only, args.before))
    ref = Reference.build()
    print(LIB)
    if args.bench:
        values, path = bench_input(args.mib)
        theirs = bench(ref, values, args.mib, args.repeats)
        if args.with_bitbudget:
            ours = bench_bitbudget(path)
            print(f"\nsame input ({path.name}), quantize GB/s, one core")
            print(f"{'scheme':8} {'llama.cpp':>10} {'bitbudget':>10}")
            for name, (q, _) in theirs.items():
                mine = ours.get(("quantize", name.lower()))
                if mine is not None:
                    print(f"{name:8} {q:10.3f} {mine:10.3f}")


if __name__ == "__main__":
    main()
