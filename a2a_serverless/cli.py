"""The `a2a-serverless` command.

    a2a-serverless dev [module:attribute]   serve an agent on http://127.0.0.1:8000
    a2a-serverless keys generate [...]      make a webhook signing key (see `keys -h`)

`module:attribute` names an `Agent` (or an app from `create_app`), imported with the current
directory on the path. Without it, `dev` serves the example agent in `examples/` (streaming and
multi-turn), which is found next to this package in a source checkout.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import sys
from pathlib import Path
from typing import Any

EXAMPLE_PATH = Path(__file__).resolve().parent.parent / "examples" / "trip_planner.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="a2a-serverless", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    dev = commands.add_parser("dev", help="serve an agent locally on the embedded SQLite store")
    dev.add_argument("target", nargs="?", help="module:attribute of an Agent (default: example)")
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--port", type=int, default=8000)
    dev.add_argument("--store", default=None, help="store URL (default: sqlite:///a2a-tasks.db)")
    dev.add_argument("--public-url", default=None, help="the URL clients use, if not this one")
    dev.add_argument("--log-level", default="info")

    keys = commands.add_parser("keys", help="webhook signing keys", add_help=False)
    keys.add_argument("rest", nargs=argparse.REMAINDER)

    args = parser.parse_args(argv)
    if args.command == "keys":
        from .push.keys import keys_main

        return keys_main(args.rest)
    if args.command == "dev":
        return _dev(args)
    return 2


def _dev(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        print("`dev` needs uvicorn: pip install 'a2a-serverless[server]'", file=sys.stderr)
        return 1
    from .app import create_app
    from .asgi import A2AApplication
    from .config import Settings

    try:
        target = _load(args.target)
    except (ImportError, AttributeError, FileNotFoundError) as exc:
        print(f"a2a-serverless dev: {exc}", file=sys.stderr)
        return 1
    overrides: dict[str, Any] = {"dev_mode": True}
    if args.store:
        overrides["store_url"] = args.store
    if args.public_url:
        overrides["public_url"] = args.public_url
    settings = Settings.from_env(**overrides)
    app = target if isinstance(target, A2AApplication) else create_app(target, settings)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    print(f"Serving {app.runtime.agent.name!r} on http://{args.host}:{args.port}")
    print(f"  agent card: http://{args.host}:{args.port}/.well-known/agent-card.json")
    print(f"  store:      {settings.store_url}")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _load(target: str | None) -> Any:
    if target is None:
        if not EXAMPLE_PATH.exists():
            raise FileNotFoundError(
                "the example agent ships with the source checkout only; "
                "pass module:attribute of your agent"
            )
        spec = importlib.util.spec_from_file_location("a2a_example_trip_planner", EXAMPLE_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.trip_planner
    module_name, _, attribute = target.partition(":")
    sys.path.insert(0, str(Path.cwd()))
    module = importlib.import_module(module_name)
    return getattr(module, attribute or "agent")


if __name__ == "__main__":
    raise SystemExit(main())
