"""Runs one of bitbudget-math's criterion benches and reads its throughputs (for the bench
scripts of the speed work). Only the Python standard library is needed."""
import os
import re
import subprocess

UNITS = {"B/s": 1e-9, "KiB/s": 1024 / 1e9, "MiB/s": 1024**2 / 1e9, "GiB/s": 1024**3 / 1e9}


def bench_gbs(tree, bench, groups, env=None, args=()):
    """Runs `cargo bench -p bitbudget-math --bench <bench>` in `tree` and returns
    {(group, name): GB/s} (10^9 bytes per second, the middle estimate) for benchmark ids
    `<group>/<name>` whose group matches the regular expression `groups`."""
    cmd = ["cargo", "bench", "-p", "bitbudget-math", "--bench", bench, "--",
           "--warm-up-time", "1", "--measurement-time", "3", *args]
    out = subprocess.run(cmd, cwd=tree, env=dict(os.environ, **(env or {})), check=True,
                         capture_output=True, text=True).stdout
    results, current = {}, None
    for line in out.splitlines():
        named = re.match(rf"({groups})/(\S+)", line)
        if named:
            current = (named.group(1), named.group(2))
        rate = re.search(r"thrpt:\s*\[\S+ \S+ (\S+) (\S+)", line)
        if rate and current:
            results[current] = float(rate.group(1)) * UNITS[rate.group(2)]
            current = None
    return results
