"""An agent inside a FastAPI (or any Starlette) application, beside the app's own routes.

    from fastapi import FastAPI
    from a2a_serverless.fastapi import mount_agent

    api = FastAPI()

    @api.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    mount_agent(api, echo, prefix="/agent")

Under the prefix the agent answers as it does alone: the card at
`{prefix}/.well-known/agent-card.json`, JSON-RPC at `{prefix}/`, the 0.3 REST routes at
`{prefix}/v1/...` and the 1.0 ones at `{prefix}/message:send`, `{prefix}/tasks/...`; the card's
URLs (`url`, `additionalInterfaces`, `supportedInterfaces`) name them, whether the base comes from
A2A_PUBLIC_URL (then the app's public URL: the prefix is added), the platform's request context
(API Gateway) or the request. The agent's own authentication (A2A_AUTH_*) guards its routes as
it does alone; the app's routes keep theirs. By default the card is also served at the app's
root well-known path (`/.well-known/agent-card.json`, where clients that know only a host look),
with the same URLs; `well_known=False` leaves that path to the app.

The agent's Runtime (store, queue, signing keys) is built on first use, from the A2A_*
environment; an entry point (`a2a-serverless dev`, the AWS HTTP handler, the GCP HTTP function)
binds its own first, so the app runs with the platform's set-up. Either is built with the
prefix (`Runtime(..., public_prefix=prefix)`, mountprefix.py), so durable calls name their
callbacks under it (A2A_PUBLIC_URL + the prefix), where the mount answers them. `mount_agent`
wires the Runtime's start and close into the app's lifespan, around the app's own.

Imported only by users who ask for it: `import a2a_serverless` never loads FastAPI or Starlette.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route

from .agent import Agent
from .asgi import A2AApplication
from .config import Settings
from .http import Receive, Request, Scope, Send
from .publicurl import clean_prefix, from_trusted_proxy, join_url, request_base_url
from .routepaths import CARD_PATHS
from .runtime import Runtime

__all__ = [
    "AgentMount",
    "AppLifespan",
    "MountedApplication",
    "agent_mounts",
    "mount_agent",
    "mounted",
]


class MountedApplication(A2AApplication):
    """The agent's app under a prefix: its card names URLs under that prefix."""

    def __init__(self, runtime: Runtime, prefix: str) -> None:
        super().__init__(runtime)
        self.prefix = prefix

    def card_url(self, request: Request) -> str:
        return join_url(self._base_url(request), "/" + self.runtime.settings.rpc_path.strip("/"))

    def rest_url(self, request: Request) -> str:
        return self._base_url(request)

    def _base_url(self, request: Request) -> str:
        """The app's public base with the prefix: A2A_PUBLIC_URL names the app (as it does for
        the deploy files), so the prefix is added to it, as to the platform's or the request's
        base; a trusted proxy's X-Forwarded-Prefix comes before the prefix, not instead."""
        public = self.runtime.settings.public_url
        if public:
            return public.rstrip("/") + self.prefix
        scope = request.scope
        root: str = scope.get("root_path", "")
        outer = root[: -len(self.prefix)] if root.endswith(self.prefix) else root
        base = request_base_url(
            scheme=scope.get("scheme", "http"),
            headers=request.headers,
            server=scope.get("server"),
            root_path=outer,
            aws_event=scope.get("aws.event"),
            trust_forwarded=from_trusted_proxy(scope.get("client"), self._trusted_proxies),
        )
        return base + self.prefix


class AgentMount:
    """The ASGI app `mount_agent` mounts at its prefix: the agent's `MountedApplication`, made
    on first use unless an entry point binds one with its own Runtime."""

    def __init__(
        self,
        agent: Agent,
        prefix: str,
        settings: Settings | None,
        runtime_options: Mapping[str, Any],
    ) -> None:
        self.agent = agent
        self.prefix = prefix
        self.settings = settings
        # What a Runtime serving this mount is built with (the mount's own, `a2a-serverless
        # dev`'s): the prefix, under which durable calls name their callbacks, among them.
        self.runtime_options = {**runtime_options, "public_prefix": prefix}
        self._app: MountedApplication | None = None
        # Whether this mount's lifespan closes the runtime: not when an entry point that owns
        # the runtime (a Lambda container, a function's deployment) bound it.
        self._owns_runtime = False
        self._started = False

    @property
    def app(self) -> MountedApplication:
        if self._app is None:
            runtime = Runtime(self.agent, self.settings, **self.runtime_options)
            self._app = MountedApplication(runtime, self.prefix)
            self._owns_runtime = True
        return self._app

    def bind(self, runtime: Runtime, *, owned: bool = False) -> MountedApplication:
        """Serve the agent with `runtime` (an entry point's); `owned`: the app's lifespan
        closes it. Refused once the mount serves with another runtime, and for a runtime not
        built with the mount's prefix (`Runtime(..., public_prefix=mount.prefix)`): its durable
        calls would name callbacks outside the mount, which no route answers."""
        if runtime.agent is not self.agent:
            raise ValueError(f"this mount serves {self.agent.name!r}, not {runtime.agent.name!r}")
        if runtime.public_prefix != self.prefix:
            raise ValueError(
                f"the runtime's public_prefix is {runtime.public_prefix!r}, not this mount's "
                f"{self.prefix!r}: build it with Runtime(..., public_prefix={self.prefix!r})"
            )
        if self._app is not None and self._app.runtime is not runtime:
            raise RuntimeError(
                f"the agent mounted at {self.prefix!r} already serves with another runtime: "
                "bind the entry point's before the app serves a request"
            )
        if self._app is None:
            self._app = MountedApplication(runtime, self.prefix)
        self._owns_runtime = owned
        return self._app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)

    async def startup(self) -> None:
        if not self._started:
            self._started = True
            await self.app.runtime.start()

    async def shutdown(self) -> None:
        if self._started and self._owns_runtime and self._app is not None:
            self._started = False
            await self._app.runtime.aclose()


class _RootCard:
    """The card at the app's root well-known path: the mounted agent's, with its URLs."""

    def __init__(self, mount: AgentMount) -> None:
        self.mount = mount

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        root: str = scope.get("root_path", "")
        path: str = scope["path"]
        if root and path.startswith(root):
            path = path[len(root) :]
        inner_root = root + self.mount.prefix
        inner = {**scope, "root_path": inner_root, "path": inner_root + path}
        await self.mount(inner, receive, send)


def mount_agent(
    api: Starlette,
    agent: Agent,
    *,
    prefix: str = "/agent",
    well_known: bool = True,
    settings: Settings | None = None,
    **runtime_options: Any,
) -> AgentMount:
    """Serve `agent` inside `api` under `prefix` (see the module's docstring).

    `settings` default to the A2A_* environment, `runtime_options` go to `Runtime` (e.g.
    `store=`, `security=`); an entry point that binds its own runtime replaces both.
    `well_known`: also serve the card at the app's root `/.well-known/agent-card.json` (and
    the older `agent.json`); an app can do so for one agent only.
    """
    if "public_prefix" in runtime_options:
        raise ValueError("the runtime's public_prefix is the mount's prefix: pass prefix= alone")
    prefix = clean_prefix(prefix)
    if not prefix:
        raise ValueError(
            "mount the agent under a prefix such as '/agent': at the root it would answer "
            "every path of the app (serve it alone with create_app instead)"
        )
    for existing in agent_mounts(api):
        if existing.prefix == prefix:
            raise ValueError(f"an agent is already mounted at {prefix!r}")
    mount = AgentMount(agent, prefix, settings, runtime_options)
    routes: list[BaseRoute] = []
    if well_known:
        taken = [p for p in CARD_PATHS if _has_route(api, p)]
        if taken:
            raise ValueError(
                f"the app already serves {taken[0]}: pass well_known=False to leave it to the "
                "app (the card stays at the prefix)"
            )
        root_card = _RootCard(mount)
        routes = [Route(p, root_card, methods=["GET", "HEAD"]) for p in CARD_PATHS]
    # The well-known routes go first: a route added before them (a catch-all) would hide them.
    api.router.routes[0:0] = routes
    api.router.routes.append(Mount(prefix, app=mount))
    _wrap_lifespan(api, mount)
    return mount


def agent_mounts(api: Starlette) -> list[AgentMount]:
    """The agents mounted in `api` by `mount_agent`, in mounting order."""
    return [
        route.app
        for route in api.router.routes
        if isinstance(route, Mount) and isinstance(route.app, AgentMount)
    ]


def mounted(api: Starlette, agent: Agent) -> AgentMount:
    """The mount of `agent` in `api`; ValueError naming what to do if it is not mounted."""
    for mount in agent_mounts(api):
        if mount.agent is agent:
            return mount
    raise ValueError(
        f"the app does not serve the agent {agent.name!r}: mount it first with "
        "a2a_serverless.fastapi.mount_agent(app, agent, prefix=...)"
    )


class AppLifespan:
    """An app's lifespan run by an entry point whose server runs none: entered once (a Lambda
    container at init, a function on its first request), never left while the process lives
    (`stop` is for tests). Its state goes into each request's scope, as servers do."""

    def __init__(self, api: Starlette) -> None:
        self.api = api
        self.state: dict[str, Any] = {}
        self._stack = contextlib.AsyncExitStack()
        self._started = False
        self._lock: asyncio.Lock | None = None

    async def start(self) -> None:
        if self._started:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._started:
                return
            state = await self._stack.enter_async_context(
                self.api.router.lifespan_context(self.api)
            )
            if state:
                self.state.update(state)
            self._started = True

    async def stop(self) -> None:
        self._started = False
        await self._stack.aclose()

    def scope(self, scope: Scope) -> Scope:
        """`scope` with the lifespan's state, a copy per request (what Starlette expects)."""
        scope["state"] = dict(self.state)
        return scope


def _has_route(api: Starlette, path: str) -> bool:
    return any(getattr(route, "path", None) == path for route in api.router.routes)


def _wrap_lifespan(api: Starlette, mount: AgentMount) -> None:
    """Start the agent's runtime before the app's own start-up and close it after the app's
    shutdown (Starlette runs no lifespan of a mounted app)."""
    inner = api.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        await mount.startup()
        try:
            async with inner(app) as state:
                yield state
        finally:
            await mount.shutdown()

    api.router.lifespan_context = lifespan
