"""The FastAPI app: its own routes, and the agent under /agent.

    a2a-serverless dev {{ cookiecutter.module_name }}.api:api     # http://127.0.0.1:8000/hello

The agent answers under /agent as it would alone: its card at /agent/.well-known/agent-card.json
(also at /.well-known/agent-card.json), JSON-RPC at /agent/, REST at /agent/v1/... (A2A 0.3)
and /agent/message:send, /agent/tasks/... (A2A 1.0). Its card's URLs name those.
"""

from __future__ import annotations

from a2a_serverless import Settings
from a2a_serverless.fastapi import mount_agent
from fastapi import FastAPI

from .agent import {{ cookiecutter.__agent }}


def create_api(settings: Settings | None = None) -> FastAPI:
    """The app; `settings` for the agent (default: the A2A_* environment; the entry points
    bring their own)."""
    api = FastAPI(title={{ cookiecutter.agent_name | tojson }})

    @api.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    mount_agent(api, {{ cookiecutter.__agent }}, prefix="/agent", settings=settings)
    return api


api = create_api()
