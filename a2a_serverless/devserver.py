"""What `a2a-serverless dev` serves: finding the agent a target names, and the app uvicorn runs.

A target is `module:attribute`, or just `module` when the module holds one agent (an `Agent`,
as `@agent` makes, an app from `create_app`, or a FastAPI app into which
`a2a_serverless.fastapi.mount_agent` put agents: then the whole app is served, its routes
beside its agents, each agent on a runtime with dev's settings); without a target, the example
agent of a source checkout. With `--reload`, uvicorn runs the app in a child process it
restarts on every code change, so the app is built there by `reload_app` from what the parent
put in the environment (`RELOAD_ENV`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

from .agent import Agent
from .asgi import A2AApplication
from .config import Settings
from .exceptions import ConfigurationError
from .http import Receive, Scope, Send

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from starlette.applications import Starlette

EXAMPLE_PATH = Path(__file__).resolve().parent.parent / "examples" / "trip_planner.py"
# How the parent tells a reloading child what to serve (a JSON object: DevTarget's fields).
# Not an `A2A_*` name: it is no setting.
RELOAD_ENV = "A2ASERVERLESS_DEV_RELOAD"

Servable: TypeAlias = "Agent | A2AApplication | Starlette"


class TargetError(ConfigurationError):
    """The target names nothing `dev` can serve (the message says what it expects)."""


@dataclass(frozen=True)
class DevTarget:
    """What to serve and how: the target and the settings `dev`'s options override."""

    target: str | None
    store_url: str | None = None
    public_url: str | None = None
    log_level: str = "info"

    def settings(self) -> Settings:
        overrides: dict[str, Any] = {"dev_mode": True}
        if self.store_url:
            overrides["store_url"] = self.store_url
        if self.public_url:
            overrides["public_url"] = self.public_url
        from .push.keys import with_dev_key

        return with_dev_key(Settings.from_env(**overrides))

    def load(self) -> Servable:
        return load(self.target)

    def app(self) -> DevApp:
        from .app import create_app

        target = self.load()
        if isinstance(target, A2AApplication):
            return DevApp(target, [("", target)])
        if isinstance(target, Agent):
            app = create_app(target, self.settings())
            return DevApp(app, [("", app)])
        from .fastapi import agent_mounts
        from .runtime import Runtime

        settings = self.settings()
        agents = [
            (m.prefix, m.bind(Runtime(m.agent, settings, **m.runtime_options), owned=True))
            for m in agent_mounts(target)
        ]
        return DevApp(target, agents)

    def watched_dirs(self) -> list[str]:
        """Where code changes restart the server: the current directory (the user's modules)
        and, for the example, the examples directory."""
        dirs = [str(Path.cwd())]
        if self.target is None:
            dirs.append(str(EXAMPLE_PATH.parent))
        return dirs

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    def configure_logging(self) -> None:
        from .safetext import EscapingFormatter

        # Text lines: what clients sent (ids, URLs) is escaped, so it cannot forge a line.
        handler = logging.StreamHandler()
        handler.setFormatter(EscapingFormatter("%(levelname)s %(name)s: %(message)s"))
        logging.basicConfig(level=self.log_level.upper(), handlers=[handler])


@dataclass(frozen=True)
class DevApp:
    """What uvicorn serves, and the agents in it: each one's prefix ("" when served alone) and
    app (whose settings and host policy `dev` reads and sets)."""

    asgi: Callable[[Scope, Receive, Send], Awaitable[None]]
    agents: Sequence[tuple[str, A2AApplication]]

    def served(self, allowed_hosts: str) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """What uvicorn runs: an agent's app checks Host itself; a FastAPI app's own routes
        answer only `allowed_hosts` too (a DNS-rebound name is refused everywhere)."""
        if isinstance(self.asgi, A2AApplication):
            return self.asgi
        from .origins import HostGuard

        return HostGuard(self.asgi, allowed_hosts)


def reload_app() -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The app of a reloading child process (uvicorn's factory)."""
    raw = os.environ.get(RELOAD_ENV)
    if not raw:
        raise RuntimeError(f"{RELOAD_ENV} is not set: reload_app is for `a2a-serverless dev`")
    dev = DevTarget(**json.loads(raw))
    dev.configure_logging()
    # The parent put the dev server's hosts in the environment (cli.py).
    return dev.app().served(dev.settings().allowed_hosts or "")


def load(target: str | None) -> Servable:
    """The agent or app `target` names (see the module's docstring); TargetError if none."""
    if target is None:
        return _example()
    module_name, colon, attribute = target.partition(":")
    if not module_name or (colon and not attribute):
        raise TargetError(f"{target!r}: expected module:attribute, or a module with one agent")
    sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name or module_name.startswith(f"{exc.name}."):
            raise TargetError(
                f"no module {module_name!r} (looked in {Path.cwd()} and on the Python path)"
            ) from None
        raise
    if not attribute:
        return find_agent(module)
    if not hasattr(module, attribute):
        raise TargetError(f"module {module_name!r} has no attribute {attribute!r}")
    value = getattr(module, attribute)
    if isinstance(value, Agent | A2AApplication):
        return value
    if _is_web_app(value):
        if not _mounts(value):
            raise TargetError(
                f"{target} is a {type(value).__name__} app with no agent in it: put one in "
                "with a2a_serverless.fastapi.mount_agent(app, agent, prefix=...)"
            )
        return value  # type: ignore[no-any-return]
    raise TargetError(
        f"{target} is a {type(value).__name__}, not an agent: name an Agent (a function "
        "decorated with @agent), an app made by create_app, or a FastAPI app with an agent "
        "mounted by a2a_serverless.fastapi.mount_agent"
    )


def find_agent(module: ModuleType) -> Servable:
    """The one agent of a module: a FastAPI app holding it, else its Agent, else its app;
    TargetError naming the candidates."""
    values = {name: value for name, value in vars(module).items() if not name.startswith("_")}
    web = {name: v for name, v in values.items() if _is_web_app(v) and _mounts(v)}
    # An agent mounted in a FastAPI app is served with the app's routes beside it.
    in_web = [m.agent for v in web.values() for m in _mounts(v)]
    agents = {
        name: v
        for name, v in values.items()
        if isinstance(v, Agent) and not any(v is g for g in in_web)
    }
    apps = {name: v for name, v in values.items() if isinstance(v, A2AApplication)}
    # An agent and the app made from it are one agent: serve the agent, with dev's settings.
    served = [*agents.values(), *in_web]
    apps = {n: a for n, a in apps.items() if not any(a.runtime.agent is g for g in served)}
    found: dict[str, Servable] = {**web, **agents, **apps}
    if len(found) == 1:
        return next(iter(found.values()))
    if not found:
        raise TargetError(
            f"module {module.__name__!r} has no agent: expected an Agent (a function decorated "
            f"with @agent) or an app made by create_app at its top level, or name one as "
            f"{module.__name__}:attribute"
        )
    names = ", ".join(f"{module.__name__}:{name}" for name in sorted(found))
    raise TargetError(f"module {module.__name__!r} has several agents; name one: {names}")


def _is_web_app(value: object) -> bool:
    """Whether `value` is a Starlette (so FastAPI) app; looked up, not imported: a module
    that made one has imported Starlette, and `dev` on a plain agent never loads it."""
    applications = sys.modules.get("starlette.applications")
    return applications is not None and isinstance(value, applications.Starlette)


def _mounts(app: Any) -> list[Any]:
    from .fastapi import agent_mounts

    return list(agent_mounts(app))


def _example() -> Agent:
    if not EXAMPLE_PATH.exists():
        raise TargetError(
            "the example agent ships with the source checkout only; "
            "pass module:attribute of your agent"
        )
    spec = importlib.util.spec_from_file_location("a2a_example_trip_planner", EXAMPLE_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    agent: Agent = module.trip_planner
    return agent
