"""What each crate costs in a wasm file: `twiggy top` of every item, grouped by the crate (or, for
bitbudget's own crates, the module path to DEPTH segments) its name starts with. Data segments are
one group; the names section is left out. Build the file with names kept (`wasm-opt -Oz -g`).
Usage: python3 scripts/wasm_crate_sizes.py FILE.wasm [DEPTH] [ROWS]   (needs `cargo install twiggy`)"""
import collections
import csv
import re
import subprocess
import sys


def group(name, depth):
    own = re.search(r"(bitbudget_[a-z]+(?:::[a-z_0-9]+)*)", name)
    if own:
        return "::".join(own.group(1).split("::")[:depth])
    if name.startswith("data segment"):
        return "data"
    crates = re.findall(r"([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::", name)
    crate = crates[0] if crates else "other"
    return "core/alloc/std" if crate in ("core", "alloc", "std") else crate


def main():
    path = sys.argv[1]
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    table = subprocess.run(["twiggy", "top", "-n", "1000000", "--format", "csv", path],
                           capture_output=True, text=True, check=True).stdout
    sizes = collections.Counter()
    for row in csv.DictReader(table.splitlines()):
        if "names" not in row["Name"]:
            sizes[group(row["Name"], depth)] += int(row["ShallowSize"])
    total = sum(sizes.values())
    print(f"{total:>9}  100.0%  (all but the names section)")
    for name, size in sizes.most_common(rows):
        print(f"{size:>9}  {100 * size / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
