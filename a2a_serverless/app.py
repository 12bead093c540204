"""`create_app`: the one call that turns an Agent into an ASGI application."""

from __future__ import annotations

from typing import Any

from .agent import Agent
from .asgi import A2AApplication
from .config import Settings
from .runtime import Runtime


def create_app(
    agent: Agent, settings: Settings | None = None, **runtime_options: Any
) -> A2AApplication:
    """An ASGI app serving `agent`. Settings default to the `A2A_*` environment variables.

    `runtime_options` go to `Runtime` (e.g. `store=`, `queue=` to use an adapter's backends).
    """
    return A2AApplication(Runtime(agent, settings, **runtime_options))
