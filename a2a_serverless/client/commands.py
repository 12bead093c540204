"""The client's commands: `a2a-serverless call`, `card` and `check` (cli.py adds them).

    a2a-serverless call URL "text" [--task ID] [--context ID] [--file PATH]... [--json]
                                            send a message; streams when the agent streams
    a2a-serverless card URL [--json]        the agent's card, and what is wrong with it
                                            (credentials only if the card is not public)
    a2a-serverless check URL [--json] [--webhook-url URL [--webhook-listen HOST:PORT]]
                                            a conformance smoke; exit status 1 on a failure

Each takes the interface options (`--binding`, `--protocol-version`) and the credential options
(`--api-key`, `--bearer-token`, `--oauth-client-id` / `--oauth-client-secret` /
`--oauth-scope` / `--oauth-token-url`,
`--google-audience`, `--sigv4 SERVICE`), each also from its A2A_CLIENT_* environment variable
and each secret also a reference (`env:NAME`, `file:PATH`, `ssm:NAME`, `secretsmanager:ID`),
so that no secret need be on the command line.

Everything the agent sends is shown through `safetext.py`: control characters (terminal
escapes, carriage returns, bidi overrides) are made visible; a multi-line text keeps its lines.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import mimetypes
import sys
from pathlib import Path
from typing import IO, Any

from .. import errors as e
from .. import models as m
from ..extras import MissingExtra, require_client
from ..safetext import escape_controls, escape_json_text
from ..secretrefs import SecretUnavailable
from ..v03.jsonrpc_convert import stream_result_out
from .auth import CredentialOptions
from .errors import ClientError
from .transport import ClientLimits
from .wire import Binding

BINDINGS: dict[str, Binding] = {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON"}
# A file given to `call` is sent inline (base64): this bounds what one message carries.
CALL_MAX_FILE_BYTES = 10 * 1024 * 1024
FAILED_STATES = {m.TaskState.FAILED, m.TaskState.REJECTED}


def add_commands(commands: Any) -> None:
    """Add `call`, `card` and `check` to the `a2a-serverless` argument parser's subcommands."""
    call = commands.add_parser("call", help="send a message to an A2A agent")
    call.add_argument("url", help="the agent's base URL or its card's URL")
    call.add_argument("text", help="the message text")
    call.add_argument("--task", help="continue this task")
    call.add_argument("--context", help="continue this context")
    call.add_argument(
        "--file", action="append", default=[], type=Path, help="attach a file (repeatable)"
    )
    call.add_argument("--no-stream", action="store_true", help="send, even if the agent streams")
    call.add_argument(
        "--return-immediately", action="store_true", help="do not wait for the task to end"
    )
    call.add_argument("--json", action="store_true", help="each result as one JSON line")
    _common(call)

    card = commands.add_parser("card", help="show an A2A agent's card, with warnings")
    card.add_argument("url", help="the agent's base URL or its card's URL")
    card.add_argument("--json", action="store_true", help="the card's JSON as served")
    _common(card)

    check = commands.add_parser("check", help="a conformance smoke of a deployed A2A agent")
    check.add_argument("url", help="the agent's base URL or its card's URL")
    check.add_argument("--json", action="store_true", help="the results as JSON")
    check.add_argument("--text", default="ping", help="the message the checks send")
    check.add_argument(
        "--webhook-url",
        help="a URL that reaches this machine, for the push round trip (`check` listens there)",
    )
    check.add_argument(
        "--webhook-listen",
        metavar="HOST:PORT",
        help="where to listen for the webhook (default: 127.0.0.1 and the URL's port)",
    )
    check.add_argument(
        "--push-timeout", type=float, default=30.0, help="seconds to wait for a notification"
    )
    _common(check)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--binding", choices=sorted(BINDINGS), help="prefer this binding")
    parser.add_argument(
        "--protocol-version", choices=("1.0", "0.3"), help="speak this A2A version only"
    )
    parser.add_argument(
        "--allow-private-urls",
        action="store_true",
        help="let the card's URLs on other hosts be loopback or private addresses",
    )
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for answers")
    auth = parser.add_argument_group("credentials (also A2A_CLIENT_* environment variables)")
    auth.add_argument("--api-key", help="an API key (or env:NAME, file:PATH, ssm:NAME)")
    auth.add_argument("--bearer-token", help="a bearer token (or a reference)")
    auth.add_argument("--oauth-client-id", help="OAuth2 client credentials: the client id")
    auth.add_argument("--oauth-client-secret", help="... and its secret (or a reference)")
    auth.add_argument("--oauth-scope", action="append", default=[], help="a scope (repeatable)")
    auth.add_argument("--oauth-token-url", help="the token endpoint (default: the card's)")
    auth.add_argument("--google-audience", help="send a Google ID token for this audience")
    auth.add_argument("--sigv4", metavar="SERVICE", help="sign with AWS SigV4 for SERVICE")
    auth.add_argument("--sigv4-region", help="the SigV4 region (default: the AWS config's)")


def _credentials(args: argparse.Namespace) -> CredentialOptions:
    return CredentialOptions.from_env(
        api_key=args.api_key,
        bearer_token=args.bearer_token,
        oauth_client_id=args.oauth_client_id,
        oauth_client_secret=args.oauth_client_secret,
        oauth_scopes=tuple(args.oauth_scope),
        oauth_token_url=args.oauth_token_url,
        google_audience=args.google_audience,
        sigv4_service=args.sigv4,
        sigv4_region=args.sigv4_region,
    )


def _limits(args: argparse.Namespace) -> ClientLimits:
    if args.timeout is None:
        return ClientLimits()
    return ClientLimits(read_timeout_s=args.timeout, stream_idle_timeout_s=args.timeout)


def run(args: argparse.Namespace, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run `call`, `card` or `check`; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    command = {"call": _call, "card": _card, "check": _check}[args.command]
    try:
        require_client(f"a2a-serverless {args.command}")
        return asyncio.run(command(args, out))
    except (e.A2AError, ClientError, SecretUnavailable, OSError, MissingExtra) as exc:
        name = type(exc).__name__
        code = f" ({exc.code})" if isinstance(exc, e.A2AError) else ""
        print(f"a2a-serverless {args.command}: {name}{code}: {escape_controls(str(exc))}", file=err)
        return 1
    except KeyboardInterrupt:
        return 130


def safe(text: str) -> str:
    """A remote text body for the terminal: controls escaped, line breaks kept (ids, names and
    error messages are one line: `escape_controls`)."""
    return "\n".join(escape_controls(line) for line in text.split("\n"))


def _json_line(value: Any) -> str:
    return escape_json_text(json.dumps(value, ensure_ascii=False))


# --- call ----------------------------------------------------------------------------------------


def _file_part(path: Path) -> m.Part:
    size = path.stat().st_size
    if size > CALL_MAX_FILE_BYTES:
        raise ClientError(
            f"{path} is {size} bytes, over call's file limit (CALL_MAX_FILE_BYTES, "
            f"{CALL_MAX_FILE_BYTES} bytes)"
        )
    mime_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = base64.b64encode(path.read_bytes()).decode()
    return m.Part(raw=data, media_type=mime_type, filename=path.name)


async def _call(args: argparse.Namespace, out: IO[str]) -> int:
    from .client import A2AClient, text_message

    client = await A2AClient.connect(
        args.url,
        binding=BINDINGS.get(args.binding or ""),
        version=args.protocol_version,
        credentials=_credentials(args),
        limits=_limits(args),
        allow_private_urls=args.allow_private_urls,
    )
    files = [_file_part(path) for path in args.file]
    message = text_message(args.text, task_id=args.task, context_id=args.context, files=files)
    interface = client.interface
    if not args.json:
        print(f"# {interface.url} (A2A {interface.version}, {interface.binding})", file=out)
    last: m.StreamResult | None = None
    if client.streaming and not args.no_stream and not args.return_immediately:
        async for event in client.stream(message):
            _show(event, out, json_lines=args.json)
            last = event
    else:
        last = await client.send(message, blocking=not args.return_immediately)
        _show(last, out, json_lines=args.json)
    return _finish(last, out, json_lines=args.json)


def _texts(parts: list[m.Part]) -> list[str]:
    shown = []
    for part in parts:
        if part.text is not None:
            shown.append(safe(part.text))
        elif part.has_data:
            shown.append(_json_line(part.data))
        else:
            what = part.url if part.url is not None else "inline bytes"
            described = " ".join(x for x in (part.filename, part.media_type, what) if x)
            shown.append(f"[file {escape_controls(described)}]")
    return shown


def _show(event: m.StreamResult, out: IO[str], *, json_lines: bool) -> None:
    if json_lines:
        # A JSON line per event in 0.3's JSON-RPC shapes (with `kind`), as it always was.
        print(_json_line(stream_result_out(event)), file=out)
        return
    if isinstance(event, m.Message):
        print("\n".join(_texts(event.parts)), file=out)
    elif isinstance(event, m.Task):
        print(f"# task {escape_controls(event.id)} ({event.status.state.value})", file=out)
        if event.status.message is not None:
            print("\n".join(_texts(event.status.message.parts)), file=out)
        for artifact in event.artifacts or []:
            print("\n".join(_texts(artifact.parts)), file=out)
    elif isinstance(event, m.TaskStatusUpdateEvent):
        print(f"# {event.status.state.value}", file=out)
        if event.status.message is not None:
            print("\n".join(_texts(event.status.message.parts)), file=out)
    else:
        print("\n".join(_texts(event.artifact.parts)).rstrip("\n"), file=out)
    out.flush()


def _finish(last: m.StreamResult | None, out: IO[str], *, json_lines: bool) -> int:
    state: m.TaskState | None = None
    if isinstance(last, m.Task | m.TaskStatusUpdateEvent):
        state = last.status.state
        if not json_lines:
            task_id = last.id if isinstance(last, m.Task) else last.task_id
            print(
                f"# task {escape_controls(task_id)}: {state.value} "
                f"(context {escape_controls(last.context_id)})",
                file=out,
            )
            if state in (m.TaskState.INPUT_REQUIRED, m.TaskState.AUTH_REQUIRED):
                print(f"# continue with: --task {escape_controls(task_id)}", file=out)
    return 1 if state in FAILED_STATES else 0


# --- card ----------------------------------------------------------------------------------------


async def _card(args: argparse.Namespace, out: IO[str]) -> int:
    from .cardcheck import card_problems
    from .client import load_card
    from .discovery import interfaces

    card = await load_card(args.url, _credentials(args), limits=_limits(args))
    if args.json:
        print(escape_json_text(json.dumps(card, indent=2, ensure_ascii=False)), file=out)
        return 0

    def text(value: Any) -> str:
        return escape_controls(str(value)) if value is not None else "-"

    print(f"{text(card.get('name'))}  (version {text(card.get('version'))})", file=out)
    print(f"  {text(card.get('description'))}", file=out)
    print("interfaces:", file=out)
    for interface in interfaces(card):
        print(f"  A2A {interface.version}  {interface.binding:9s}  {text(interface.url)}", file=out)
    capabilities = card.get("capabilities") or {}
    flags = ", ".join(
        f"{name} {'yes' if capabilities.get(name) else 'no'}"
        for name in ("streaming", "pushNotifications", "extendedAgentCard")
    )
    print(f"capabilities: {flags}", file=out)
    schemes = card.get("securitySchemes") or {}
    if schemes:
        print("security schemes:", file=out)
        for name, scheme in schemes.items():
            kind = scheme.get("type") if isinstance(scheme, dict) else None
            if kind is None and isinstance(scheme, dict):
                kind = next(iter(scheme), "?")
            print(f"  {text(name)}: {text(kind)}", file=out)
    skills = card.get("skills") or []
    print(f"skills ({len(skills)}):", file=out)
    for skill in skills:
        if isinstance(skill, dict):
            print(f"  {text(skill.get('id'))}: {text(skill.get('name'))}", file=out)
    problems = card_problems(card)
    if problems:
        print(f"warnings ({len(problems)}):", file=out)
        for problem in problems:
            print(f"  {escape_controls(str(problem))}", file=out)
    else:
        print("warnings: none (valid for A2A 0.3 and 1.0 clients)", file=out)
    return 0


# --- check ---------------------------------------------------------------------------------------


async def _check(args: argparse.Namespace, out: IO[str]) -> int:
    from .check import run_checks

    results = await run_checks(
        args.url,
        credentials=_credentials(args),
        webhook_url=args.webhook_url,
        webhook_listen=args.webhook_listen,
        text=args.text,
        allow_private_urls=args.allow_private_urls,
        limits=_limits(args),
        push_timeout_s=args.push_timeout,
    )
    failed = any(r.outcome == "fail" for r in results)
    if args.json:
        document = {"url": args.url, "passed": not failed, "checks": [r.as_json() for r in results]}
        print(_json_line(document), file=out)
        return 1 if failed else 0
    rows = [("check", "interface", "result", "section", "detail")] + [
        (r.check, r.interface, r.outcome.upper(), r.section, escape_controls(r.detail))
        for r in results
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)]
        print("  ".join([*cells, row[4]]).rstrip(), file=out)
    counts = {o: sum(r.outcome == o for r in results) for o in ("pass", "fail", "n/a")}
    print(
        f"\n{counts['pass']} passed, {counts['fail']} failed, {counts['n/a']} not applicable",
        file=out,
    )
    return 1 if failed else 0
