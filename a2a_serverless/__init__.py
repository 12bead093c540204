"""a2a-serverless: run A2A (Agent2Agent v0.3) agents on serverless platforms.

    from a2a_serverless import agent, create_app

    @agent(name="Echo", description="Says back what it is told.")
    def echo(text: str) -> str:
        return text

    app = create_app(echo)   # any ASGI server, Mangum, functions-framework

The core imports no cloud SDK; adapters (`a2a_serverless_aws`, `a2a_serverless_gcp`) bring theirs.
"""

from .agent import (
    Agent,
    AuthRequired,
    Context,
    DirectContext,
    Failed,
    InputRequired,
    Rejected,
    agent,
    agent_message,
    direct_agent,
    progress,
    skill,
)
from .app import create_app
from .config import Settings
from .errors import (
    A2AError,
    ContentTypeNotSupportedError,
    InvalidParamsError,
    UnsupportedOperationError,
)
from .executor import AgentExecutor, TaskEnded, TaskUpdater
from .runtime import Runtime

__version__ = "0.1.0"

__all__ = [
    "A2AError",
    "Agent",
    "AgentExecutor",
    "AuthRequired",
    "ContentTypeNotSupportedError",
    "Context",
    "DirectContext",
    "Failed",
    "InputRequired",
    "InvalidParamsError",
    "Rejected",
    "Runtime",
    "Settings",
    "TaskEnded",
    "TaskUpdater",
    "UnsupportedOperationError",
    "__version__",
    "agent",
    "agent_message",
    "create_app",
    "direct_agent",
    "progress",
    "skill",
]
