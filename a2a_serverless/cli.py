"""The `a2a-serverless` command.

    a2a-serverless dev [module[:attribute]] [--reload]
                                            serve an agent on http://127.0.0.1:8000
    a2a-serverless keys generate [...]      make a webhook signing key (see `keys -h`)
    a2a-serverless new NAME [--kind echo|orchestrator] [--cloud aws|gcp|none] [--fastapi]
                       [--output-dir DIR] [--kit-path PATH] [--no-input]
                                            create an agent project from the template
    a2a-serverless tasks list|show|tail     look at the tasks in a store (see ops.py)
    a2a-serverless dead-letters list|redrive  push notifications given up on, sent again
    a2a-serverless content sweep            delete content of tasks that never came to be
    a2a-serverless call URL "text" [...]    send a message to any A2A agent (see `call -h`)
    a2a-serverless card URL [--json]        an agent's card, with warnings for 0.3 and 1.0
    a2a-serverless check URL [...]          a conformance smoke of a deployed agent
    a2a-serverless --version

`module:attribute` names an `Agent` (or an app from `create_app`, or a FastAPI app holding
agents put there by `a2a_serverless.fastapi.mount_agent`), imported with the current
directory on the path; `module` alone serves the one agent it holds. Without it, `dev` serves
the example agent in `examples/` (streaming and multi-turn), which is found next to this package
in a source checkout. `--reload` restarts the server when a Python file under the current
directory changes (devserver.py).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path

CLOUDS = ("aws", "gcp", "none")
# The template's kinds of agent (its cookiecutter.json), each the name of the agent it makes.
KINDS = ("echo", "orchestrator")
# The project template: inside the package in a wheel, at templates/agent in a checkout.
TEMPLATE_PATHS = (
    Path(__file__).resolve().parent / "templates" / "agent",
    Path(__file__).resolve().parent.parent / "templates" / "agent",
)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["keys"]:
        # `keys` has its own parser (keys_main): all its arguments, `-h` included, go there.
        return keys_main(argv[1:])
    parser = argparse.ArgumentParser(prog="a2a-serverless", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    dev = commands.add_parser("dev", help="serve an agent locally on the embedded SQLite store")
    dev.add_argument(
        "target",
        nargs="?",
        help="module:attribute of an Agent or app, or a module holding one (default: example)",
    )
    dev.add_argument(
        "--reload", action="store_true", help="restart when a .py file under this directory changes"
    )
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--port", type=_port, default=8000)
    dev.add_argument("--store", default=None, help="store URL (default: sqlite:///a2a-tasks.db)")
    dev.add_argument("--public-url", default=None, help="the URL clients use, if not this one")
    dev.add_argument("--log-level", default="info")

    # Listed for the help only: main() hands `keys ...` to its own parser before this one.
    commands.add_parser("keys", help="webhook signing keys (`keys -h`)", add_help=False)

    new = commands.add_parser("new", help="create an agent project (cookiecutter template)")
    new.add_argument("name", help="the project's name, e.g. weather-agent")
    new.add_argument(
        "--kind",
        choices=KINDS,
        help="echo: says back what it is told; orchestrator: asks two remote agents at once "
        "with durable calls and combines their answers (asked if not given)",
    )
    new.add_argument("--cloud", choices=CLOUDS, help="where it deploys (asked if not given)")
    new.add_argument(
        "--fastapi",
        action="store_true",
        default=None,
        help="a FastAPI app with its own routes and the agent under /agent (asked if not given)",
    )
    new.add_argument("--output-dir", default=".", help="where the project directory goes")
    new.add_argument(
        "--kit-path",
        help="the a2a-serverless source checkout the project installs the kit from and takes "
        "the Terraform module from (default: this one, when running from a checkout)",
    )
    new.add_argument("--no-input", action="store_true", help="ask nothing; use the defaults")

    from .ops import add_commands

    add_commands(commands)

    from .client.commands import add_commands as add_client_commands

    add_client_commands(commands)

    args = parser.parse_args(argv)
    if args.command in ("call", "card", "check"):
        from .client.commands import run as run_client

        return run_client(args)
    if args.command in ("tasks", "dead-letters", "content"):
        from .ops import run

        return run(args)
    if args.command == "dev":
        return _dev(args)
    if args.command == "new":
        return _new(args)
    return 2


def _version() -> str:
    try:
        return metadata.version("a2a-serverless")
    except metadata.PackageNotFoundError:  # imported from a source tree that is not installed
        from . import __version__

        return __version__


def _dev(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        print("`dev` needs uvicorn: pip install 'a2a-serverless[server]'", file=sys.stderr)
        return 1
    from .config import Settings
    from .devserver import RELOAD_ENV, DevTarget, TargetError
    from .devstore import claim_stores
    from .origins import OriginPolicy, dev_hosts

    dev = DevTarget(args.target, args.store, args.public_url, args.log_level)
    dev.configure_logging()
    try:
        _check_store_directory(args.store or Settings.from_env().store_url)
        # Built here even with --reload (where the child builds its own): a bad target or
        # setting is reported once, clearly, instead of by a child restarting in a loop.
        served = dev.app()
        # Before the banner: a port in use is the one thing said, not a banner then an error.
        _check_listen(args.host, args.port)
        # Refused when the file holds other agents' tasks (devstore.py).
        held = claim_stores([app for _, app in served.agents])
    except (TargetError, ValueError, OSError) as exc:
        print(f"a2a-serverless dev: {exc}", file=sys.stderr)
        return 1
    settings = served.agents[0][1].runtime.settings
    # Only the dev server's own names: a rebound DNS name pointing here is refused. Put in the
    # environment too, so that a --reload child builds its app with the same hosts.
    hosts = dev_hosts(settings, args.host)
    os.environ["A2A_ALLOWED_HOSTS"] = hosts
    if not _is_loopback(args.host):
        print(
            f"a2a-serverless dev: warning: listening on {args.host}, so other machines on the "
            "network reach this dev server: dev mode is on (its inspector page and whatever "
            "the agent does for anyone who asks). Use --host 127.0.0.1 to keep it local.",
            file=sys.stderr,
        )
    base = f"http://{args.host}:{args.port}"
    if served.asgi is not served.agents[0][1]:
        print(f"Serving the app {args.target} on {base}")
    for prefix, app in served.agents:
        app.origin_policy = OriginPolicy(replace(app.runtime.settings, allowed_hosts=hosts))
        if prefix:
            print(f"  agent {app.runtime.agent.name!r} under {prefix}/")
        else:
            print(f"Serving {app.runtime.agent.name!r} on {base}")
        print(f"  agent card: {base}{prefix}/.well-known/agent-card.json")
        if app.runtime.settings.dev_mode or app.runtime.settings.inspector:
            print(f"  inspector:  {base}{prefix}/_inspector/")
    print(f"  store:      {settings.store_url}" + (f" ({held})" if held else ""))
    if not args.reload:
        uvicorn.run(served.served(hosts), host=args.host, port=args.port, log_level=args.log_level)
        return 0
    print(f"  reloading:  on changes to .py files under {', '.join(dev.watched_dirs())}")
    os.environ[RELOAD_ENV] = dev.to_env()
    uvicorn.run(
        "a2a_serverless.devserver:reload_app",
        factory=True,
        reload=True,
        reload_dirs=dev.watched_dirs(),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


def _check_store_directory(store_url: str) -> None:
    """A SQLite store file is made if missing, but not its directory: a mistyped directory
    would otherwise be created, silently (ValueError naming it)."""
    from .store import sqlite_path

    path = sqlite_path(store_url)
    if path is None or path == ":memory:":
        return
    directory = Path(path).parent
    if not directory.is_dir():
        raise ValueError(
            f"the store {store_url}: the directory {directory} does not exist (create it, or "
            "pick another --store)"
        )


def _check_listen(host: str, port: int) -> None:
    """OSError saying why the server could not listen on host:port (e.g. the port is taken),
    tried as uvicorn binds (SO_REUSEADDR), then released for it."""
    import socket

    try:
        infos = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise OSError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (pick another --port)"
            ) from None


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may well resolve to a public address


def _new(args: argparse.Namespace) -> int:
    try:
        from cookiecutter.exceptions import (  # type: ignore[import-untyped]
            CookiecutterException,
            FailedHookException,
            OutputDirExistsException,
        )
        from cookiecutter.main import cookiecutter  # type: ignore[import-untyped]
    except ImportError:
        print("`new` needs cookiecutter: pip install 'a2a-serverless[new]'", file=sys.stderr)
        return 1
    template = next((p for p in TEMPLATE_PATHS if (p / "cookiecutter.json").is_file()), None)
    if template is None:
        print("a2a-serverless new: this install has no project template", file=sys.stderr)
        return 1
    context: dict[str, str] = {"project_name": args.name}
    if args.kind is not None:
        context["kind"] = args.kind
    if args.cloud is not None:
        context["cloud"] = args.cloud
    if args.fastapi:
        context["fastapi"] = "yes"
    kit = Path(args.kit_path).resolve() if args.kit_path else _source_checkout()
    if kit is not None:
        context["kit_path"] = str(kit)
    import json
    import shutil
    import tempfile

    # Render from a scratch copy, with cookiecutter's replay file and clone cache kept there too:
    # byte code an installer compiled next to the template is not copied into the project, and
    # nothing is written to the user's home directory.
    with tempfile.TemporaryDirectory(prefix="a2a-serverless-new-") as scratch:
        copy = Path(scratch) / "agent"
        shutil.copytree(template, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        config = Path(scratch) / "config.yaml"
        config.write_text(
            f"cookiecutters_dir: {json.dumps(str(Path(scratch) / 'cookiecutters'))}\n"
            f"replay_dir: {json.dumps(str(Path(scratch) / 'replay'))}\n"
        )
        print(
            f"a2a-serverless new: rendering {args.name!r} from {template} into "
            f"{Path(args.output_dir).resolve()}",
            file=sys.stderr,
            flush=True,
        )
        try:
            with _quiet_cookiecutter():
                project = cookiecutter(
                    str(copy),
                    no_input=args.no_input,
                    extra_context=context,
                    output_dir=args.output_dir,
                    config_file=str(config),
                )
        except OutputDirExistsException as exc:
            print(f"a2a-serverless new: {exc}", file=sys.stderr)
            return 1
        except FailedHookException:
            # The hook has said what is wrong; cookiecutter removed what it had written.
            return 1
        except (CookiecutterException, KeyboardInterrupt, EOFError) as exc:
            print(f"a2a-serverless new: {exc or 'no answer'}", file=sys.stderr)
            return 1
        # What was chosen, prompts included, as cookiecutter recorded it.
        replay = json.loads((Path(scratch) / "replay" / "agent.json").read_text())
    _print_next_steps(Path(project), replay["cookiecutter"])
    return 0


@contextlib.contextmanager
def _quiet_cookiecutter() -> Iterator[None]:
    """Without a traceback from cookiecutter's logger when a hook refuses the answers: the hook
    has printed why, in a line (templates/agent/hooks)."""
    logger = logging.getLogger("cookiecutter")
    handler = logging.NullHandler()
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _source_checkout() -> Path | None:
    """The a2a-serverless checkout this package runs from, if it runs from one."""
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "infra" / "aws").is_dir():
        return root
    return None


def _print_next_steps(project: Path, context: dict[str, str]) -> None:
    cloud, kit, module = context["cloud"], context["kit_path"], context["module_name"]
    kind = context.get("kind", "echo")
    adapter = f" -e {kit}/adapters/{cloud}" if cloud != "none" else ""
    print(f"Created {project} (kind: {kind}, cloud: {cloud}). Next:")
    print(f"  cd {project}")
    print("  python -m venv .venv && . .venv/bin/activate")
    print(f"  pip install -e {kit}{adapter} -e '.[dev]'")
    print("  pytest")
    target = f"{module}.api:api" if context.get("fastapi") == "yes" else f"{module}.agent:{kind}"
    if kind == "orchestrator":
        remotes = '{"planner": "http://127.0.0.1:8001", "second_opinion": "http://127.0.0.1:8002"}'
        print(f"  A2A_REMOTE_AGENTS='{remotes}' \\")
        print(f"  A2A_PUBLIC_URL=http://127.0.0.1:8000 a2a-serverless dev {target}")
        print('(the two agents it calls, on ports 8001 and 8002: README.md, "The remote agents")')
    else:
        print(f"  a2a-serverless dev {target}")
    if cloud != "none":
        print("Deploying: see README.md.")


def keys_main(argv: Sequence[str] | None = None) -> int:
    """`a2a-serverless keys generate [--alg ES256|RS256] [--add-to FILE]`."""
    from .push.keys import ALGORITHMS, generate_keys_json

    parser = argparse.ArgumentParser(
        prog="a2a-serverless keys", description="Manage the keys that sign push notifications."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate",
        help="print a JSON array of private JWKs for A2A_PUSH_SIGNING_KEYS",
        description="Print a new signing key as the JSON array A2A_PUSH_SIGNING_KEYS takes. "
        "Keep the output secret (it holds the private key); with --add-to, the keys already in "
        "FILE are kept so receivers can still verify their signatures (rotation).",
    )
    generate.add_argument("--alg", choices=sorted(ALGORITHMS), default="ES256")
    generate.add_argument(
        "--add-to", metavar="FILE", help="existing A2A_PUSH_SIGNING_KEYS JSON ('-' for stdin)"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    existing = None
    if args.add_to == "-":
        existing = sys.stdin.read()
    elif args.add_to:
        existing = Path(args.add_to).read_text()
    try:
        print(generate_keys_json(args.alg, existing))
    except (ValueError, ImportError) as exc:
        print(f"a2a-serverless keys generate: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
