"""`client`: an httpx client talking to the agent's ASGI app in-process (no network, no server),
on an in-memory store, with the in-process queue running each turn{% if cookiecutter.fastapi == "yes" %}: the FastAPI app, with
the client's URLs under the agent's prefix (/agent){% endif %}."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

{%- if cookiecutter.fastapi == "yes" %}
from a2a_serverless import Settings

from {{ cookiecutter.module_name }}.api import create_api


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    api = create_api(Settings(store_url="memory://", dev_mode=True))
    transport = httpx.ASGITransport(app=api)
    # The app's lifespan starts the agent's runtime and closes it.
    async with (
        api.router.lifespan_context(api),
        httpx.AsyncClient(transport=transport, base_url="http://testserver/agent") as client,
    ):
        yield client
{%- else %}
from a2a_serverless import Settings, create_app

from {{ cookiecutter.module_name }}.agent import echo


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(echo, Settings(store_url="memory://", dev_mode=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client
    await app.runtime.aclose()
{%- endif %}
