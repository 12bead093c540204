"""Throughput: each side's ASGI app under uvicorn (one process), loaded by wrk on loopback.

wrk keeps `connections` connections busy with message/send or message/stream requests
(bench/wrk/a2a.lua: a fresh messageId each, the body checked for a completed task), for
`duration` seconds per side in all, in slices of about 5 s that alternate between the sides
(ours speaking 0.3, the 0.3 peer, ours speaking 1.0, the 1.x peer), after a short untimed
warm-up of each. All run the same uvicorn version with its pure-Python defaults (asyncio loop,
h11), ours from the project's .venv, each peer from its own virtualenv; fresh servers per
method.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from .environments import FUNCTION_DIR, log
from .processes import stop
from .report import load_average

WRK_SCRIPT = Path(__file__).resolve().parent / "wrk" / "a2a.lua"
STARTUP_TIMEOUT_S = 30
WRK_INSTALL_HINT = "wrk is not installed: run scripts/emulators/wrk.sh (apt-get install -y wrk)"


class ThroughputError(RuntimeError):
    pass


@dataclass(frozen=True)
class Server:
    """How to start one side: its python, and the uvicorn app factory in bench/function."""

    label: str
    python: str
    factory: str
    env: dict[str, str]
    # The A2A version wrk speaks to it ("0.3" or "1.0"; bench/wrk/a2a.lua).
    protocol: str = "0.3"


@dataclass(frozen=True)
class LoadResult:
    label: str
    method: str
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    mean_ms: float
    requests: int
    errors: int
    server_peak_rss_mib: float
    load: str


def require_wrk() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise ThroughputError(WRK_INSTALL_HINT)
    return wrk


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_serving(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ThroughputError(f"server exited with {process.returncode}:\n{_tail(log_path)}")
        try:
            with urllib.request.urlopen(f"{url}.well-known/agent-card.json", timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise ThroughputError(f"server did not start within {STARTUP_TIMEOUT_S} s:\n{_tail(log_path)}")


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


def _peak_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _wrk(
    url: str, method: str, protocol: str, connections: int, duration_s: float
) -> dict[str, float]:
    args = [
        require_wrk(),
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration_s))}s",
        "--timeout",
        "30s",
        "-s",
        str(WRK_SCRIPT),
        url,
        "--",
        method,
        protocol,
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=duration_s + 120)
    for line in done.stdout.splitlines():
        if line.startswith("BENCH "):
            parsed: dict[str, float] = json.loads(line[len("BENCH ") :])
            return parsed
    raise ThroughputError(
        f"wrk gave no result (exit {done.returncode}):\n{done.stdout}{done.stderr}"
    )


@dataclass
class _Running:
    server: Server
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    slices: list[dict[str, float]]
    load: list[str]


def _start(server: Server, log_file: Any) -> _Running:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    args = [
        server.python,
        "-m",
        "uvicorn",
        server.factory,
        "--factory",
        "--app-dir",
        str(FUNCTION_DIR),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--loop",
        "asyncio",
        "--http",
        "h11",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    env = {**os.environ, **server.env, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    process = subprocess.Popen(args, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    running = _Running(server, process, url, Path(log_file.name), [], [])
    _wait_until_serving(url, process, running.log_path)
    return running


def run_pair(
    servers: list[Server],
    method: str,
    connections: int,
    duration_s: float,
    warmup_s: float,
    slice_s: float = 5.0,
) -> dict[str, LoadResult]:
    """Load every server for `duration_s` in all, in alternating slices of about `slice_s`.

    All servers run for the whole measurement, but only one is loaded at a time; slicing the
    load (ours, peer, ours, peer, ...) spreads bursts from other processes over both sides.
    Requests/s is over all slices; p50 is the median of the slices' p50s, p99 the worst slice's.
    """
    slices = max(1, round(duration_s / slice_s))
    seconds = duration_s / slices
    with contextlib.ExitStack() as stack:
        running = []
        for server in servers:
            log_file = stack.enter_context(
                tempfile.NamedTemporaryFile(prefix="a2a-bench-server-", suffix=".log")
            )
            started = _start(server, log_file)
            stack.callback(stop, started.process)
            running.append(started)
        for side in running:
            if warmup_s > 0:
                _wrk(side.url, method, side.server.protocol, connections, warmup_s)
        for _ in range(slices):
            for side in running:
                side.load.append(load_average().split()[0])
                side.slices.append(
                    _wrk(side.url, method, side.server.protocol, connections, seconds)
                )
        return {side.server.label: _result(side, method) for side in running}


def _result(side: _Running, method: str) -> LoadResult:
    total = {key: sum(s[key] for s in side.slices) for key in side.slices[0]}
    errors = int(
        total["connect_errors"]
        + total["read_errors"]
        + total["write_errors"]
        + total["status_errors"]
        + total["timeouts"]
        + total["bad"]
    )
    if errors:
        log(f"throughput: {side.server.label} {method}: {errors} failed requests; log:")
        log(_tail(side.log_path, 10))
    return LoadResult(
        label=side.server.label,
        method=method,
        requests_per_s=total["requests"] / (total["duration_us"] / 1e6),
        p50_ms=median(s["p50_us"] for s in side.slices) / 1000,
        p99_ms=max(s["p99_us"] for s in side.slices) / 1000,
        mean_ms=sum(s["mean_us"] * s["requests"] for s in side.slices) / total["requests"] / 1000,
        requests=int(total["requests"]),
        errors=errors,
        server_peak_rss_mib=_peak_rss_mib(side.process.pid),
        load=" ".join(side.load),
    )
