"""The client's import cost: `a2a_serverless.client` on top of an agent's app, beside the
official a2a-sdk 1.x client's (`a2a.client`) on top of a bare interpreter (issue 32).

Fresh interpreters, interleaved, `runs` times each; each figure is a difference of medians:

- ours: `import a2a_serverless.app, a2a_serverless.client` less `import a2a_serverless.app` (what
  an agent that calls others adds to its cold start), on the bench's Python, in this checkout;
- ours, first call: the same with httpx, which the client imports on its first request (httpx's
  optional command-line packages, rich, click and pygments, kept out as a bundle has none);
- peer: `import a2a.client` less `pass`, on .venv-a2a-sdk1's Python (a2a-sdk 1.x cannot share
  .venv with the 0.3.26 the rest of the bench uses; scripts/interop-venv.sh makes it). Without
  it the peer column is empty and a note says why.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .environments import REPO, python

SDK1_PYTHON = REPO / ".venv-a2a-sdk1" / "bin" / "python"
NO_HTTPX_CLI = "import sys; sys.modules.update(rich=None, click=None, pygments=None); "


@dataclass(frozen=True)
class ImportCosts:
    ours_ms: float
    ours_first_call_ms: float
    peer_ms: float | None
    note: str


def _time(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=REPO, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def measure(runs: int, sdk1_python: Path = SDK1_PYTHON) -> ImportCosts:
    ours = python()
    commands = {
        "app": [ours, "-c", "import a2a_serverless.app"],
        "client": [ours, "-c", "import a2a_serverless.app, a2a_serverless.client"],
        "first call": [
            ours,
            "-c",
            NO_HTTPX_CLI + "import a2a_serverless.app, a2a_serverless.client, httpx",
        ],
    }
    peer = sdk1_python.exists()
    if peer:
        commands["sdk bare"] = [str(sdk1_python), "-c", "pass"]
        commands["sdk client"] = [str(sdk1_python), "-c", "import a2a.client"]
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(max(runs, 1)):
        for name, args in commands.items():
            times[name].append(_time(args))
    median = {name: statistics.median(values) for name, values in times.items()}
    note = f"medians of {runs} interleaved runs each"
    if not peer:
        note += f"; peer left out: no {sdk1_python} (scripts/interop-venv.sh makes it)"
    return ImportCosts(
        ours_ms=median["client"] - median["app"],
        ours_first_call_ms=median["first call"] - median["app"],
        peer_ms=median["sdk client"] - median["sdk bare"] if peer else None,
        note=note,
    )
