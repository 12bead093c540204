"""Fixtures shared by the whole suite.

- `make_client(agent, **settings)`: an httpx client talking to our ASGI app in-process, on a
  fresh in-memory store unless a `store` is given (no network, fast).
- `live_server(target, **env)`: the real dev server (`a2a-serverless dev`) in a subprocess on a
  free loopback port, for tests that need real HTTP (official SDK clients, several processes).

Hypothesis runs under the profile `HYPOTHESIS_PROFILE` names (tests/support/hypothesis_profiles.py):
derandomized unless asked to explore.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest

from a2a_serverless import Agent, Settings, create_app
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.config import register_environment_names
from tests.support import hypothesis_profiles
from tests.support.server import LiveServer, start_live_server

AppClient = tuple[httpx.AsyncClient, A2AApplication]

# Variables the tests read (not settings), so that apps built here do not warn about them.
register_environment_names(
    "A2A_RACE_ROUNDS", "A2A_RACE_TASKS", "A2A_LOAD_TASKS", "A2A_LAMBDA_PYTHON", "A2A_TF_PLUGIN_DIR"
)


def pytest_report_header() -> str:
    return f"hypothesis profile: {hypothesis_profiles.NAME} ({hypothesis_profiles.PROFILE})"


@pytest.fixture
def make_client() -> Callable[..., AbstractAsyncContextManager[AppClient]]:
    @asynccontextmanager
    async def factory(
        agent: Agent, *, push_notifications: bool = True, **settings: Any
    ) -> AsyncIterator[AppClient]:
        runtime_options = {}
        for key in ("store", "queue", "observers"):
            if key in settings:
                runtime_options[key] = settings.pop(key)
        settings.setdefault("store_url", "memory://")
        settings.setdefault("dev_mode", True)
        app = create_app(
            agent, Settings(**settings), push_notifications=push_notifications, **runtime_options
        )
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            try:
                yield client, app
            finally:
                await app.runtime.aclose()

    return factory


@pytest.fixture
def live_server() -> Iterator[Callable[..., LiveServer]]:
    started: list[LiveServer] = []

    def start(target: str | None = None, **env: str) -> LiveServer:
        server = start_live_server(target, env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
