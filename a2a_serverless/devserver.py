"""What `a2a-serverless dev` serves: finding the agent a target names, and the app uvicorn runs.

A target is `module:attribute`, or just `module` when the module holds one agent (an `Agent`,
as `@agent` makes, or an app from `create_app`); without a target, the example agent of a
source checkout. With `--reload`, uvicorn runs the app in a child process it restarts on every
code change, so the app is built there by `reload_app` from what the parent put in the
environment (`RELOAD_ENV`).
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
from typing import Any

from .agent import Agent
from .asgi import A2AApplication
from .config import Settings

EXAMPLE_PATH = Path(__file__).resolve().parent.parent / "examples" / "trip_planner.py"
# How the parent tells a reloading child what to serve (a JSON object: DevTarget's fields).
# Not an `A2A_*` name: it is no setting.
RELOAD_ENV = "A2ASERVERLESS_DEV_RELOAD"

Servable = Agent | A2AApplication


class TargetError(ValueError):
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
        return Settings.from_env(**overrides)

    def load(self) -> Servable:
        return load(self.target)

    def app(self) -> A2AApplication:
        from .app import create_app

        target = self.load()
        return target if isinstance(target, A2AApplication) else create_app(target, self.settings())

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
        logging.basicConfig(
            level=self.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
        )


def reload_app() -> A2AApplication:
    """The app of a reloading child process (uvicorn's factory)."""
    raw = os.environ.get(RELOAD_ENV)
    if not raw:
        raise RuntimeError(f"{RELOAD_ENV} is not set: reload_app is for `a2a-serverless dev`")
    dev = DevTarget(**json.loads(raw))
    dev.configure_logging()
    return dev.app()


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
    if not isinstance(value, Agent | A2AApplication):
        raise TargetError(
            f"{target} is a {type(value).__name__}, not an agent: name an Agent (a function "
            "decorated with @agent) or an app made by create_app"
        )
    return value


def find_agent(module: ModuleType) -> Servable:
    """The one agent of a module: its Agent, else its app; TargetError naming the candidates."""
    values = {name: value for name, value in vars(module).items() if not name.startswith("_")}
    agents = {name: v for name, v in values.items() if isinstance(v, Agent)}
    apps = {name: v for name, v in values.items() if isinstance(v, A2AApplication)}
    # An agent and the app made from it are one agent: serve the agent, with dev's settings.
    apps = {n: a for n, a in apps.items() if not any(a.runtime.agent is g for g in agents.values())}
    found: dict[str, Servable] = {**agents, **apps}
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
