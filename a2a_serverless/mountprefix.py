"""Where an agent mounted in an app is served, for the Runtimes that name URLs under it.

A2A_PUBLIC_URL names the root of what a deployment serves. An agent alone is at that root; an
agent mounted in a FastAPI app (`a2a_serverless.fastapi.mount_agent(app, agent, prefix=...)`)
is under its prefix, and so is the callback route its durable calls name to the remote
(`{A2A_PUBLIC_URL}{prefix}/_a2a/callbacks/...`). The Runtime takes the prefix
(`Runtime(..., public_prefix=...)`, a `publicurl.PublicPrefix`): the mount gives it, so do the
entry points that bind a mount with their own Runtime, and so do the adapters' worker entry
points given the app (`make_worker_handler(agent, app=...)`, which their
`entry_points(..., app=...)` pass on): a worker serves none of the app's requests but is what
sends the calls. `mount_prefix` finds the prefix for them.

A worker given the app by reference ("package.module:attribute") imports it only when it first
builds a callback URL: the app's module imports FastAPI (a few hundred milliseconds), which a
worker making no call never pays for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lazyface import imported

if TYPE_CHECKING:
    from .agent import Agent
    from .publicurl import PublicPrefix


def mount_prefix(app: Any, agent: Agent) -> PublicPrefix:
    """The prefix under which `app` mounts `agent`: now for an app object (ValueError if it does
    not hold the agent), on first use for a "package.module:attribute" reference."""
    if isinstance(app, str):
        reference = app
        return lambda: _prefix_in(imported(reference), agent)
    return _prefix_in(app, agent)


def _prefix_in(app: Any, agent: Agent) -> str:
    from .fastapi import mounted

    return mounted(app, agent).prefix
