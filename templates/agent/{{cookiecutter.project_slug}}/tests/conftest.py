"""`client`: an A2A test client talking to the agent in-process (no network, no server), on an
in-memory store, with the in-process queue running each turn{% if cookiecutter.fastapi == "yes" %}: the FastAPI app, with the
client's URLs under the agent's prefix (/agent){% endif %}. Each test runs once per A2A version, 0.3
and 1.0, over JSON-RPC; `AgentTestClient(..., binding="rest")` speaks HTTP+JSON instead."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
{%- if cookiecutter.fastapi == "yes" %}
from a2a_serverless import Settings
{%- endif %}
from a2a_serverless.testing import AgentTestClient
{%- if cookiecutter.fastapi == "yes" %}

from {{ cookiecutter.module_name }}.api import create_api


@pytest.fixture(params=["0.3", "1.0"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[AgentTestClient]:
    api = create_api(Settings(store_url="memory://", dev_mode=True))
    # The client runs the app's lifespan, which starts the agent's runtime and closes it.
    async with AgentTestClient(
        api, version=request.param, base_url="http://testserver/agent"
    ) as client:
        yield client
{%- else %}

from {{ cookiecutter.module_name }}.agent import echo


@pytest.fixture(params=["0.3", "1.0"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[AgentTestClient]:
    # The agent gets its own app on Settings(store_url="memory://", dev_mode=True).
    async with AgentTestClient(echo, version=request.param) as client:
        yield client
{%- endif %}
