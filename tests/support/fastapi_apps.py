"""The FastAPI app the entry-point tests serve: a route of its own (GET /hello, answering with
what its lifespan made, so a test sees the server ran the lifespan) and the agent under /agent."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from fastapi import FastAPI, Request

from a2a_serverless import Agent
from a2a_serverless.fastapi import mount_agent


def greeting_app(agent: Agent, on_start: Callable[[], None] | None = None) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, str]]:
        if on_start is not None:
            on_start()
        yield {"greeting": "hello from the lifespan"}

    api = FastAPI(lifespan=lifespan)

    @api.get("/hello")
    def hello(request: Request) -> dict[str, str]:
        return {"hello": request.state.greeting}

    mount_agent(api, agent, prefix="/agent")
    return api
