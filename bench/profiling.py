"""Where a warm request's time goes: the warm calls of one variant under cProfile.

`probe.py profile` runs the sends and the gets under cProfile and writes one .pstats file each
(kept in .bench/results/). This module summarises them: time per package (own time of the
functions, grouped by the top-level package or stdlib module their file belongs to) and the
heaviest functions by own and cumulative time. cProfile roughly doubles the cost of small
Python calls, so the shares matter here, not the absolute figures.
"""

from __future__ import annotations

import io
import pstats
import sysconfig
from collections import defaultdict
from pathlib import Path

from .processes import Variant, run_probe, slug

STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
OUR_PACKAGES = ("a2a_serverless", "a2a_serverless_aws")


def profile(variant: Variant, calls: int, warmup: int, results_dir: Path) -> list[str]:
    """Profile `calls` sends and gets of `variant`; the summary, as lines of text."""
    run_probe(variant, "profile", calls, calls, warmup, keep_in=results_dir)
    base = results_dir / f"{slug(variant.label)}-profile.json"
    lines = [f"cProfile, {variant.label}: {calls} warm calls of each method"]
    for kind, method in (("send", "message/send"), ("get", "tasks/get")):
        path = Path(f"{base}.{kind}.pstats")
        lines += ["", f"== {method} ({path.relative_to(results_dir.parents[1])})"]
        lines += summarize(path, variant.bundle.path, calls)
    return lines


def _package(filename: str, bundle: Path) -> str:
    if filename.startswith("~") or filename.startswith("<"):
        return "(built-in / C)"
    path = Path(filename).resolve()
    for root, prefix in ((bundle.resolve(), ""), (STDLIB, "stdlib:")):
        try:
            relative = path.relative_to(root)
        except ValueError:
            continue
        first = relative.parts[0].removesuffix(".py")
        if first in OUR_PACKAGES and len(relative.parts) > 1:
            # Ours by module: where in the core the time goes.
            return f"{first}/{relative.parts[1].removesuffix('.py')}"
        if prefix and first == "lib-dynload":
            return "stdlib:(C extensions)"
        return prefix + first
    return str(path.parent.name)


def summarize(path: Path, bundle: Path, calls: int, top: int = 25) -> list[str]:
    stats = pstats.Stats(str(path))
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    by_package: dict[str, float] = defaultdict(float)
    for (filename, _, _), entry in raw.items():
        by_package[_package(filename, bundle)] += entry[2]
    lines = [f"own time by package (total {total * 1e6 / calls:.0f} us per call under cProfile):"]
    for package, seconds in sorted(by_package.items(), key=lambda item: -item[1])[:top]:
        lines.append(
            f"  {100 * seconds / total:5.1f}%  {seconds * 1e6 / calls:7.1f} us/call  {package}"
        )
    for order, title in (("tottime", "own time"), ("cumulative", "cumulative time")):
        buffer = io.StringIO()
        listing = pstats.Stats(str(path), stream=buffer)
        listing.strip_dirs().sort_stats(order).print_stats(top)
        text = buffer.getvalue()
        start = text.find("ncalls")
        lines += ["", f"top {top} functions by {title}:"]
        lines += ["  " + line for line in text[start:].rstrip().splitlines()]
    return lines
