"""a2a-serverless: run A2A (Agent2Agent v0.3) agents on serverless platforms.

    from a2a_serverless import agent, create_app

    @agent(name="Echo", description="Says back what it is told.")
    def echo(text: str) -> str:
        return text

    app = create_app(echo)   # any ASGI server, Mangum, functions-framework

The core imports no cloud SDK; adapters (`a2a_serverless_aws`, `a2a_serverless_gcp`) bring theirs.
Every fault the kit reports is an `A2AServerlessError` (the tree is drawn in exceptions.py).
"""

from typing import TYPE_CHECKING

from .lazyface import lazy_face

if TYPE_CHECKING:
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
    from .exceptions import (
        A2AServerlessError,
        ConfigurationError,
        FormatError,
        LimitError,
        UnavailableError,
    )
    from .executor import AgentExecutor, TaskEnded, TaskUpdater
    from .runtime import Runtime

__version__ = "0.1.0"

__all__ = [
    "A2AError",
    "A2AServerlessError",
    "Agent",
    "AgentExecutor",
    "AuthRequired",
    "ConfigurationError",
    "ContentTypeNotSupportedError",
    "Context",
    "DirectContext",
    "Failed",
    "FormatError",
    "InputRequired",
    "InvalidParamsError",
    "LimitError",
    "Rejected",
    "Runtime",
    "Settings",
    "TaskEnded",
    "TaskUpdater",
    "UnavailableError",
    "UnsupportedOperationError",
    "__version__",
    "agent",
    "agent_message",
    "create_app",
    "direct_agent",
    "progress",
    "skill",
]

# Each name is imported on first use: `import a2a_serverless.models` (or the webhook receiver,
# or an adapter's face) loads what it names, not the whole server.
__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "A2AError": ".errors",
        "A2AServerlessError": ".exceptions",
        "Agent": ".agent",
        "AgentExecutor": ".executor",
        "AuthRequired": ".agent",
        "ConfigurationError": ".exceptions",
        "ContentTypeNotSupportedError": ".errors",
        "Context": ".agent",
        "DirectContext": ".agent",
        "Failed": ".agent",
        "FormatError": ".exceptions",
        "InputRequired": ".agent",
        "InvalidParamsError": ".errors",
        "LimitError": ".exceptions",
        "Rejected": ".agent",
        "Runtime": ".runtime",
        "Settings": ".config",
        "TaskEnded": ".executor",
        "TaskUpdater": ".executor",
        "UnavailableError": ".exceptions",
        "UnsupportedOperationError": ".errors",
        "agent": ".agent",
        "agent_message": ".agent",
        "create_app": ".app",
        "direct_agent": ".agent",
        "progress": ".agent",
        "skill": ".agent",
    },
)
