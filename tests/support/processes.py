"""Processes the tests start (emulators, functions-framework servers): started in a session of
their own, waited for until they answer, stopped with everything they started.

A process that exits or does not answer while starting fails the test with the tail of its log,
so a missing or broken emulator says why instead of timing out a test later.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start_process(
    args: list[str], log_path: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`args` started in a session of its own (so `stop_group` reaches its children), in the
    repository, its output in `log_path`."""
    with log_path.open("wb") as log:
        return subprocess.Popen(
            args,
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def wait_until(
    ready: Callable[[], bool],
    process: subprocess.Popen[bytes],
    what: str,
    log_path: Path,
    timeout_s: float = 60,
) -> None:
    """Poll `ready` until it holds; fail the test (stopping the process) if `process` exits
    or `timeout_s` passes first."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if process.poll() is not None:
            pytest.fail(
                f"{what} exited with code {process.returncode} while starting; its log "
                f"({log_path}) ends with:\n{tail(log_path)}",
                pytrace=False,
            )
        if time.monotonic() > deadline:
            stop_group(process)
            pytest.fail(
                f"{what} did not answer within {timeout_s:g} s; its log ({log_path}) "
                f"ends with:\n{tail(log_path)}",
                pytrace=False,
            )
        time.sleep(0.1)


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a process started by `start_process` and everything it started (gcloud runs a
    shell script that runs java; gunicorn forks workers)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; its children must be too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return
