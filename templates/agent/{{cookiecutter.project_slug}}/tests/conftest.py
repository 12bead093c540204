"""`client`: an A2A test client talking to the agent in-process (no network, no server), on an
in-memory store, with the in-process queue running each turn{% if cookiecutter.fastapi == "yes" %}: the FastAPI app, with the
client's URLs under the agent's prefix (/agent){% endif %}. Each test runs once per A2A version, 0.3
and 1.0, over JSON-RPC; `AgentTestClient(..., binding="rest")` speaks HTTP+JSON instead.
{%- if cookiecutter.kind == "orchestrator" %}

`remote_agents`: the agents it calls, played by two stand-ins served over real HTTP (uvicorn on
127.0.0.1), named in its settings as A2A_REMOTE_AGENTS names the real ones.
{%- endif %}"""

from __future__ import annotations

{% if cookiecutter.kind == "orchestrator" -%}
import asyncio
import contextlib
import json
import socket
{% endif -%}
from collections.abc import AsyncIterator

import pytest
{%- if cookiecutter.kind == "orchestrator" %}
import uvicorn
from a2a_serverless import Agent, Context, Failed, Settings, agent
from a2a_serverless.app import create_app
{%- elif cookiecutter.fastapi == "yes" %}
from a2a_serverless import Settings
{%- endif %}
from a2a_serverless.testing import AgentTestClient
{%- if cookiecutter.fastapi == "yes" %}

from {{ cookiecutter.module_name }}.api import create_api
{%- else %}

from {{ cookiecutter.module_name }}.agent import {{ cookiecutter.__agent }}
{%- endif %}
{%- if cookiecutter.kind == "orchestrator" %}


@agent(name="Planner stand-in")
def planner(ctx: Context) -> str:
    return f"Plan for: {ctx.text}"


@agent(name="Second opinion stand-in")
def second_opinion(ctx: Context) -> str:
    if "fail" in ctx.text:
        raise Failed("the second opinion could not be given")
    return f"Second opinion on: {ctx.text}"


@contextlib.asynccontextmanager
async def served(*stand_ins: Agent) -> AsyncIterator[list[str]]:
    """The stand-ins on uvicorn, each on a port the system picks on 127.0.0.1; their URLs."""
    apps = [create_app(a, Settings(store_url="memory://", dev_mode=True)) for a in stand_ins]
    servers = [uvicorn.Server(uvicorn.Config(app, log_level="warning")) for app in apps]
    with contextlib.ExitStack() as sockets:
        listening = [sockets.enter_context(socket.socket()) for _ in servers]
        for sock in listening:
            sock.bind(("127.0.0.1", 0))
        serving = [
            asyncio.create_task(server.serve(sockets=[sock]))
            for server, sock in zip(servers, listening, strict=True)
        ]
        try:
            while not all(server.started for server in servers):
                for task in serving:
                    if task.done():
                        task.result()  # it could not start: say why
                await asyncio.sleep(0.01)
            yield [f"http://127.0.0.1:{sock.getsockname()[1]}" for sock in listening]
        finally:
            for server in servers:
                server.should_exit = True
            await asyncio.gather(*serving, return_exceptions=True)
            for app in apps:
                await app.runtime.aclose()


@pytest.fixture
async def remote_agents() -> AsyncIterator[str]:
    """A2A_REMOTE_AGENTS naming the stand-ins, served while the test runs."""
    async with served(planner, second_opinion) as (planner_url, second_url):
        yield json.dumps({"planner": planner_url, "second_opinion": second_url})
{%- endif %}
{%- if cookiecutter.kind == "orchestrator" %}


@pytest.fixture(params=["0.3", "1.0"])
async def client(
    request: pytest.FixtureRequest, remote_agents: str
) -> AsyncIterator[AgentTestClient]:
    settings = Settings(store_url="memory://", dev_mode=True, remote_agents=remote_agents)
{%- if cookiecutter.fastapi == "yes" %}
    api = create_api(settings)
    # The client runs the app's lifespan, which starts the agent's runtime and closes it.
    async with AgentTestClient(
        api, version=request.param, base_url="http://testserver/agent"
    ) as client:
        yield client
{%- else %}
    async with AgentTestClient(orchestrator, version=request.param, settings=settings) as client:
        yield client
{%- endif %}
{%- elif cookiecutter.fastapi == "yes" %}


@pytest.fixture(params=["0.3", "1.0"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[AgentTestClient]:
    api = create_api(Settings(store_url="memory://", dev_mode=True))
    # The client runs the app's lifespan, which starts the agent's runtime and closes it.
    async with AgentTestClient(
        api, version=request.param, base_url="http://testserver/agent"
    ) as client:
        yield client
{%- else %}


@pytest.fixture(params=["0.3", "1.0"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[AgentTestClient]:
    # The agent gets its own app on Settings(store_url="memory://", dev_mode=True).
    async with AgentTestClient(echo, version=request.param) as client:
        yield client
{%- endif %}
