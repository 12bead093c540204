"""`a2a-serverless dev --reload`, for real: the server restarts on a code change and serves it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.server import REPO, free_port

AGENT = """
from a2a_serverless import agent


@agent(name="{name}", description="reload test")
def reloading(text: str) -> str:
    return text
"""


def _card_name(url: str, deadline: float) -> str | None:
    while time.monotonic() < deadline:
        try:
            return str(httpx.get(f"{url}/.well-known/agent-card.json", timeout=1).json()["name"])
        except httpx.HTTPError:
            time.sleep(0.2)
    return None


def test_dev_reload_serves_the_changed_code(tmp_path: Path) -> None:
    module = tmp_path / "reloading_agent.py"
    module.write_text(AGENT.format(name="Before"))
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = tmp_path / "dev.log"
    with log.open("wb") as out:
        # `module` alone: the one agent it holds is found.
        command = [sys.executable, "-m", "a2a_serverless.cli", "dev", "reloading_agent"]
        process = subprocess.Popen(
            [*command, "--reload", "--port", str(port), "--store", "memory://"],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the reloader and its server child stop together
        )
    url = f"http://127.0.0.1:{port}"
    try:
        assert _card_name(url, time.monotonic() + 30) == "Before", log.read_text()
        module.write_text(AGENT.format(name="After"))
        deadline = time.monotonic() + 30
        written = time.monotonic()
        while (name := _card_name(url, deadline)) != "After" and time.monotonic() < deadline:
            # A change made before the reloader's first scan of the files is not one it sees
            # (it compares with that scan): on a busy machine, write again until it is seen.
            if time.monotonic() - written > 3:
                module.write_text(AGENT.format(name="After"))
                written = time.monotonic()
            time.sleep(0.2)
        assert name == "After", log.read_text()
        assert "reloading:  on changes to .py files under" in log.read_text()
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=20)
