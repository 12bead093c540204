"""Servers for the client's tests, each over real HTTP on a free loopback port.

- `ours`: our dev server (`a2a-serverless dev tests.interop.agents:app`: echo, `slow N S`,
  `direct <text>`, push configs on), shared by a module's tests;
- `sdk1_server` / `sdk03_server`: the official a2a-sdk 1.x (from .venv-a2a-sdk1) and 0.3.26
  (from .venv) agents of `sdk1_agent.py` / `sdk03_agent.py`, in subprocesses;
- `serve_asgi(app)`: an ASGI app of a test's own (a broken agent, a token endpoint, a SigV4
  verifier) under uvicorn in this process, on a free port, for the length of the test.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from tests.support.server import REPO, LiveServer, free_port, start_live_server, start_server

SDK1_PYTHON = REPO / ".venv-a2a-sdk1" / "bin" / "python"
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    store = tmp_path_factory.mktemp("ours") / "tasks.db"
    server = start_live_server("tests.interop.agents:app", {"A2A_STORE_URL": f"sqlite:///{store}"})
    yield server
    server.stop()


def _sdk_server(python: Path | str, script: str, *extra: str) -> LiveServer:
    port = free_port()
    return start_server([str(python), str(HERE / script), str(port), *extra], port, {}, what=script)


@pytest.fixture(scope="module")
def sdk1_server() -> Iterator[LiveServer]:
    if not SDK1_PYTHON.exists():
        pytest.fail("no .venv-a2a-sdk1: run scripts/interop-venv.sh to create it")
    server = _sdk_server(SDK1_PYTHON, "sdk1_agent.py")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sdk03_server() -> Iterator[LiveServer]:
    server = _sdk_server(sys.executable, "sdk03_agent.py")
    yield server
    server.stop()


@pytest.fixture
def serve_asgi() -> Callable[[Any], AbstractAsyncContextManager[str]]:
    @asynccontextmanager
    async def serve(app: Any) -> AsyncIterator[str]:
        port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            await task

    return serve
