"""Running the probe (bench/function/probe.py) in fresh `python -S` processes on a bundle, and
stopping the processes the bench starts."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .environments import Bundle, child_env, python

PROBE_TIMEOUT_S = 600


def stop(process: subprocess.Popen[bytes], timeout_s: float = 15) -> None:
    """End a process the bench started (an emulator, a server): terminate, then kill."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout_s)


class ProbeFailed(RuntimeError):
    """A measured process did not serve its events correctly (the message has its output)."""


@dataclass(frozen=True)
class Variant:
    """One thing measured: a handler module in a bundle, with its environment, and the probe
    that loads it (probe_gcp.py takes a function's source file as `module`)."""

    label: str
    bundle: Bundle
    module: str
    env: dict[str, str] | None = None
    probe: str = "probe.py"


@dataclass(frozen=True)
class ProbeRun:
    wall_ms: float
    result: dict[str, Any]
    stderr: str


def run_probe(
    variant: Variant,
    mode: str,
    *counts: int,
    python_flags: tuple[str, ...] = (),
    keep_in: Path | None = None,
) -> ProbeRun:
    """Run the probe once in a fresh process; its result, and the wall time spawn -> exit.

    With `keep_in`, the result file (and a profile's .pstats files) stay in that directory.
    """
    with tempfile.TemporaryDirectory(prefix="a2a-bench-") as scratch:
        folder = keep_in or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / f"{slug(variant.label)}-{mode}.json"
        args = [
            python(),
            "-S",
            *python_flags,
            str(variant.bundle.path / variant.probe),
            mode,
            variant.module,
            str(out),
            *(str(c) for c in counts),
        ]
        env = child_env(variant.bundle, variant.env)
        start = time.perf_counter()
        done = subprocess.run(
            args,
            cwd=variant.bundle.path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=PROBE_TIMEOUT_S,
        )
        wall_ms = (time.perf_counter() - start) * 1000
        if done.returncode != 0 or not out.exists():
            raise ProbeFailed(
                f"{variant.label}: `{variant.probe} {mode} {variant.module}` exited with "
                f"{done.returncode}:\n{done.stderr[-4000:]}"
            )
        result = json.loads(out.read_text())
        return ProbeRun(wall_ms, result, done.stderr)


def slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
