"""The FastAPI app: its own route beside the agent, whose card names URLs under /agent."""

from __future__ import annotations

import httpx
from a2a_serverless import Settings

from {{ cookiecutter.module_name }}.api import create_api


async def test_the_app_serves_its_route_and_the_agents_card() -> None:
    api = create_api(Settings(store_url="memory://"))
    transport = httpx.ASGITransport(app=api)
    async with (
        api.router.lifespan_context(api),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        assert (await client.get("/hello")).json() == {"hello": "world"}
        card = (await client.get("/agent/.well-known/agent-card.json")).json()
        assert card["url"] == "http://testserver/agent/"
        assert (await client.get("/.well-known/agent-card.json")).json() == card
