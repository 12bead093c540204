"""Cold start: a fresh `python -S` process imports the Lambda handler and serves one message/send.

The runs of all variants are interleaved (ours, peer, ours, peer, ...) so that a burst of load
from other processes on the machine hits both sides alike. The wall time is measured by the
parent from spawn to exit, and the probe exits right after answering (a Lambda process is
frozen, never torn down, after its response), so it is interpreter start + imports + handler
init + the first request. `python -X importtime` runs, separate from the timed ones, say where
the import time goes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from .environments import log
from .processes import ProbeRun, Variant, run_probe
from .report import load_average

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$")
# The bench's own modules, left out of the import listings.
_BENCH_MODULES = ("probe", "events", "handler_", "echo_", "encodings", "_frozen", "zipimport")


@dataclass(frozen=True)
class ColdStats:
    label: str
    runs: list[ProbeRun]

    def wall(self) -> list[float]:
        return [run.wall_ms for run in self.runs]

    def field(self, name: str) -> list[float]:
        return [float(run.result[name]) for run in self.runs]

    @property
    def median_ms(self) -> float:
        return median(self.wall())

    @property
    def min_ms(self) -> float:
        return min(self.wall())

    @property
    def max_ms(self) -> float:
        return max(self.wall())

    @property
    def rss_mib(self) -> float:
        return median(float(run.result["memory_kib"]["VmHWM"]) for run in self.runs) / 1024


def measure(variants: Sequence[Variant], runs: int) -> tuple[dict[str, ColdStats], str]:
    """`runs` cold starts of each variant, interleaved; and the load average at the start."""
    load = load_average()
    collected: dict[str, list[ProbeRun]] = {v.label: [] for v in variants}
    for index in range(runs):
        for variant in variants:
            collected[variant.label].append(run_probe(variant, "cold"))
        if (index + 1) % 5 == 0 or index + 1 == runs:
            log(f"cold start: {index + 1}/{runs} runs of {len(variants)} variants")
    return {label: ColdStats(label, found) for label, found in collected.items()}, load


@dataclass(frozen=True)
class ImportEntry:
    name: str
    self_us: int
    cumulative_us: int
    level: int


def import_times(variant: Variant) -> list[ImportEntry]:
    """One cold start under `python -X importtime`: every module it imported."""
    run = run_probe(variant, "cold", python_flags=("-X", "importtime"))
    entries = []
    for line in run.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            self_us, cumulative_us, indent, name = match.groups()
            level = (len(indent) - 1) // 2
            entries.append(ImportEntry(name, int(self_us), int(cumulative_us), level))
    return entries


def import_report(label: str, entries: Sequence[ImportEntry], top: int = 15) -> list[str]:
    """Self import time per top-level package, and the heaviest modules by cumulative time."""
    total_us = sum(e.self_us for e in entries)
    by_package: dict[str, int] = defaultdict(int)
    for entry in entries:
        by_package[entry.name.split(".")[0]] += entry.self_us
    lines = [f"python -X importtime, {label}: {total_us / 1000:.1f} ms of imports in all"]
    lines.append("  self time by top-level package:")
    for package, us in sorted(by_package.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"    {us / 1000:8.1f} ms  {100 * us / total_us:5.1f}%  {package}")
    lines.append("  heaviest modules (cumulative, i.e. with what they import):")
    shown: set[str] = set()
    heavy = sorted(entries, key=lambda e: -e.cumulative_us)
    for entry in heavy:
        if entry.name.startswith(_BENCH_MODULES) or entry.name in shown:
            continue
        shown.add(entry.name)
        lines.append(f"    {entry.cumulative_us / 1000:8.1f} ms  {entry.name}")
        if len(shown) >= top:
            break
    return lines
