"""A git ref's tree exported beside this one, for the same-run before/after benchmarks
(bench_lab_before_after.py, build_llama_reference.py --wasm-bench). Only the standard library."""
import shutil
import subprocess


def export_ref(root, ref, into, files=()):
    """Extracts git `ref` of the repository at `root` into `into` (`git archive`) and copies this
    tree's `files` (paths relative to `root`) over it, so that an older tree runs today's bench."""
    archive = subprocess.run(["git", "archive", ref], cwd=root, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for rel in files:
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / rel, into / rel)


def touch_math_sources(tree):
    """Marks `tree`'s bitbudget-math sources as new. Two trees built into one target directory
    share the crate's name, and cargo judges freshness by file times alone (an export keeps the
    commit's old times), so without this a run would time whichever tree was built last."""
    for source in (tree / "crates/math/src").rglob("*.rs"):
        source.touch()
