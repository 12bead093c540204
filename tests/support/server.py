"""Start the real dev server in a subprocess, on a free loopback port, and wait until it serves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def start_live_server(
    target: str | None, env: dict[str, str], timeout: float = 20.0, *, health: str = "/health"
) -> LiveServer:
    """`a2a-serverless dev [target]` with `env` added (e.g. A2A_STORE_URL) on a free port;
    ready when `health` answers 200 (an agent mounted in an app: under its prefix)."""
    port = free_port()
    args = [sys.executable, "-m", "a2a_serverless.cli", "dev", "--port", str(port)]
    if target:
        args.insert(4, target)
    return start_server(args, port, env, timeout, what="dev server", health=health)


def start_server(
    args: list[str],
    port: int,
    env: dict[str, str],
    timeout: float = 20.0,
    *,
    what: str = "server",
    health: str = "/health",
) -> LiveServer:
    """Run `args` (a server listening on `port`) with `env` added; wait until /health answers.

    Its output goes to env's LOG_PATH (removed from env), else to a new temporary file."""
    log_path = Path(env.pop("LOG_PATH", "")) if env.get("LOG_PATH") else None
    if log_path is None:
        import tempfile

        log_path = Path(tempfile.mkstemp(prefix="a2a-live-", suffix=".log")[1])
    full_env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    full_env.update(env)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            args, cwd=REPO, env=full_env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    server = LiveServer(url=url, process=process, log_path=log_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited early:\n{server.log()}")
        try:
            if httpx.get(f"{url}{health}", timeout=0.5).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"{what} did not start within {timeout}s:\n{server.log()}")
