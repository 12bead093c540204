"""docs/deploy-gcp.md "Running it locally", run as written: its settings, its topic and push
subscription, and its two functions-framework servers, on the emulators the tests start (their
addresses and free ports put in place of the guide's). The agent it serves must run a turn
through the topic and the worker."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.operator_cli import rpc, user_message
from tests.support.server import REPO, free_port

from .conftest import MAIN, FunctionServer, start_function, stop_group

pytestmark = pytest.mark.gcp

GUIDE = REPO / "docs" / "deploy-gcp.md"


def guide_commands() -> str:
    """The bash block of the guide's "Running it locally" section."""
    text = GUIDE.read_text()
    section = text[text.index("## Running it locally") :]
    match = re.search(r"^```bash\n(.*?)^```", section, re.M | re.S)
    assert match, "no bash block in the section"
    return match.group(1)


def test_the_guide_runs_the_functions_locally(
    pubsub_emulator: str, firestore_emulator: str, tmp_path: Path
) -> None:
    commands = guide_commands()
    emulators = [line for line in commands.splitlines() if line.startswith("gcloud ")]
    assert len(emulators) == 2, "the guide starts the Firestore and Pub/Sub emulators"
    worker_port, a2a_port = free_port(), free_port()
    ports = {
        "127.0.0.1:8681": firestore_emulator,
        "127.0.0.1:8682": pubsub_emulator,
        "127.0.0.1:8081": f"127.0.0.1:{worker_port}",
        "--port 8081": f"--port {worker_port}",
        "--port 8080": f"--port {a2a_port}",
    }
    for written, used in ports.items():
        assert written in commands, f"the guide no longer uses {written}"
        commands = commands.replace(written, used)
    lines = commands.splitlines()
    servers = [shlex.split(line.rstrip("& ")) for line in lines if line.startswith("functions-")]
    assert [s[:3] for s in servers] == [
        ["functions-framework", "--target", "worker"],
        ["functions-framework", "--target", "a2a"],
    ]
    # Everything else but the emulators (the tests started them) runs as written, in bash, with
    # this environment's python and a2a-serverless first on PATH; what it exported is read back.
    setup = "\n".join(
        line for line in lines if not line.startswith(("gcloud ", "functions-framework "))
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{setup}\nenv -0"],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    exported = dict(
        entry.split("=", 1) for entry in done.stdout.decode().split("\0") if "=" in entry
    )
    settings = {k: v for k, v in exported.items() if k.startswith("A2A_") or k.endswith("_HOST")}
    assert settings["A2A_PUSH_SIGNING_KEYS"].startswith("[")

    started: list[FunctionServer] = []
    try:
        for server in servers:
            target, port = server[2], int(server[server.index("--port") + 1])
            assert server[server.index("--source") + 1] == "main.py"
            ready = "/health" if target == "a2a" else "/"
            started.append(
                start_function(target, settings, tmp_path, ready, port=port, source=MAIN)
            )
        a2a = started[1]
        card = httpx.get(f"{a2a.url}/.well-known/agent-card.json", timeout=10).json()
        assert card["name"] == "Echo"
        answer = httpx.post(
            f"{a2a.url}/",
            json=rpc("message/send", {"message": user_message("hello")}),
            timeout=60,
        ).json()
        task = answer["result"]
        assert task["status"]["state"] == "completed", answer
        assert "echo: hello" in str(task["artifacts"])
    finally:
        for function in started:
            stop_group(function.process)
