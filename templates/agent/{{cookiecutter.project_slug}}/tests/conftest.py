"""`client`: an httpx client talking to the agent's ASGI app in-process (no network, no server),
on an in-memory store, with the in-process queue running each turn."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from a2a_serverless import Settings, create_app

from {{ cookiecutter.module_name }}.agent import echo


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(echo, Settings(store_url="memory://", dev_mode=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client
    await app.runtime.aclose()
