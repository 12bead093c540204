"""The FastAPI app the entry-point tests serve: a route of its own (GET /hello, answering with
what its lifespan made, so a test sees the server ran the lifespan) and the agent under /agent;
and an app a worker knows only by reference."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
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


def app_by_reference(
    directory: Path, monkeypatch: pytest.MonkeyPatch, prefix: str = "/lazy"
) -> tuple[Agent, str]:
    """A worker's view of a deployment: the agent, imported, and the "module:attribute" of the
    FastAPI app mounting it under `prefix`, written in `directory` and not imported yet."""
    (directory / "lazy_mounted_agent.py").write_text(
        "from a2a_serverless import agent\n"
        "@agent(name='Lazy', description='Says back what it is told.')\n"
        "def lazy(text: str) -> str:\n"
        "    return text\n"
    )
    (directory / "lazy_mounted_api.py").write_text(
        "from fastapi import FastAPI\n"
        "from a2a_serverless.fastapi import mount_agent\n"
        "from lazy_mounted_agent import lazy\n"
        "api = FastAPI()\n"
        f"mount_agent(api, lazy, prefix={prefix!r})\n"
    )
    monkeypatch.syspath_prepend(str(directory))
    for module in ("lazy_mounted_agent", "lazy_mounted_api"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    lazy: Agent = importlib.import_module("lazy_mounted_agent").lazy
    return lazy, "lazy_mounted_api:api"
