"""`a2a-serverless check URL`: a conformance smoke of any deployed A2A agent, ours or not.

`run_checks(url, ...)` returns one `CheckResult` per check, each pass, fail or n/a (not
applicable: the card does not declare what it needs), with the spec section it holds the agent
to (A2A 0.3's or 1.0's, by the interface checked):

- the card: served at `/.well-known/agent-card.json`, readable by 0.3 and by 1.0 clients;
- per declared interface (each version and binding the card lists): it answers, and with the
  right error in the binding's shape (GetTask of a task that does not exist: TaskNotFound,
  -32001, with 1.0's typed `data` details over JSON-RPC; HTTP 404 over HTTP+JSON, in 1.0 a
  `google.rpc.Status` with an ErrorInfo `TASK_NOT_FOUND`); send / get / list / stream /
  cancel round trips; the error codes of a bad request (JSON-RPC: an unknown method -32601, a
  send without a message -32602; HTTP+JSON: a send without a message is a 400);
- the 401 challenge, when the card declares security: a request without credentials is
  refused with 401 (and the WWW-Authenticate the spec asks servers to send);
- a push round trip, given `webhook_url` where `check` itself can receive (it listens on
  `webhook_listen`, by default the URL's own port on 127.0.0.1): a config set with a token, a
  task sent, a notification for that task received with that token.

Checks send real messages (`text`, "ping" by default): run it against a deployment you may
talk to. A check that cannot run because an earlier one failed is a failure, not n/a.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets as random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from .. import errors as e
from .. import models as m
from ..exceptions import A2AServerlessError
from .auth import CredentialOptions
from .cardcheck import card_problems
from .client import A2AClient, load_card
from .discovery import Interface, card_url, interfaces
from .errors import ClientError
from .transport import ClientLimits

Outcome = Literal["pass", "fail", "n/a"]

# Each check's section: (A2A 0.3, A2A 1.0).
SECTIONS: dict[str, tuple[str, str]] = {
    "card": ("0.3 §5.3", "1.0 §8.2"),
    "card-0.3": ("0.3 §5.5", ""),
    "card-1.0": ("", "1.0 §4.4.1, §8.3"),
    "answers": ("0.3 §7.3, §8.2", "1.0 §3.1.3, §3.3.2, §9.5, §11.6"),
    "send": ("0.3 §7.1", "1.0 §3.1.1"),
    "get": ("0.3 §7.3", "1.0 §3.1.3"),
    "list": ("0.3 §7.4", "1.0 §3.1.4"),
    "stream": ("0.3 §7.2, §3.3", "1.0 §3.1.2, §3.5.2"),
    "cancel": ("0.3 §7.5", "1.0 §3.1.5"),
    "errors": ("0.3 §8.1", "1.0 §5.4"),
    "auth": ("0.3 §4.4", "1.0 §7.4"),
    "push": ("0.3 §7.6, §9.6", "1.0 §3.1.7, §3.5.3"),
}
TERMINAL_OR_INTERRUPTED = {
    m.TaskState.COMPLETED,
    m.TaskState.FAILED,
    m.TaskState.CANCELED,
    m.TaskState.REJECTED,
    m.TaskState.INPUT_REQUIRED,
    m.TaskState.AUTH_REQUIRED,
}


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str
    outcome: Outcome
    section: str
    detail: str = ""
    interface: str = ""

    def as_json(self) -> dict[str, str]:
        return asdict(self)


class CheckFailed(A2AServerlessError):
    """A check's own failure: what the agent did that it should not have."""


def _section(check: str, version: str | None) -> str:
    old, new = SECTIONS[check]
    if version == "0.3":
        return old
    if version == "1.0":
        return new
    return ", ".join(s for s in (old, new) if s)


def _label(interface: Interface) -> str:
    return f"{interface.version} {interface.binding}"


async def run_checks(
    url: str,
    *,
    credentials: CredentialOptions | None = None,
    webhook_url: str | None = None,
    webhook_listen: str | None = None,
    text: str = "ping",
    allow_private_urls: bool = False,
    limits: ClientLimits | None = None,
    push_timeout_s: float = 30.0,
) -> list[CheckResult]:
    limits = limits or ClientLimits()
    credentials = credentials or CredentialOptions()
    results: list[CheckResult] = []
    try:
        card = await load_card(url, credentials, limits=limits)
    except ClientError as exc:
        results.append(CheckResult("card", "fail", _section("card", None), str(exc)))
        return results
    results.append(CheckResult("card", "pass", _section("card", None), card_url(url)))
    problems = card_problems(card)
    offered = interfaces(card)
    for version in ("0.3", "1.0"):
        name = f"card-{version}"
        mine = [p for p in problems if p.version in (version, "both")]
        if not any(i.version == version for i in offered):
            results.append(
                CheckResult(name, "n/a", _section(name, None), f"no A2A {version} interface")
            )
        elif mine:
            detail = "; ".join(str(p) for p in mine[:5])
            results.append(CheckResult(name, "fail", _section(name, None), detail))
        else:
            results.append(CheckResult(name, "pass", _section(name, None)))
    secured = bool(card.get("security") or card.get("securityRequirements"))
    for interface in offered:
        client = await A2AClient.connect(
            url,
            card=card,
            interface=interface,
            credentials=credentials,
            limits=limits,
            allow_private_urls=allow_private_urls,
        )
        results.extend(await _interface_checks(client, interface, text, secured))
    if webhook_url is None:
        results.append(CheckResult("push", "n/a", _section("push", None), "no --webhook-url given"))
    elif not (card.get("capabilities") or {}).get("pushNotifications"):
        results.append(
            CheckResult(
                "push", "n/a", _section("push", None), "the card says pushNotifications: false"
            )
        )
    else:
        client = await A2AClient.connect(
            url,
            card=card,
            credentials=credentials,
            limits=limits,
            allow_private_urls=allow_private_urls,
        )
        results.append(await _push_check(client, text, webhook_url, webhook_listen, push_timeout_s))
    return results


async def _interface_checks(
    client: A2AClient, interface: Interface, text: str, secured: bool
) -> list[CheckResult]:
    label = _label(interface)
    results: list[CheckResult] = []

    async def run(name: str, check: Callable[[], Awaitable[tuple[Outcome, str]]]) -> None:
        section = _section(name, interface.version)
        try:
            outcome, detail = await check()
        except CheckFailed as exc:
            outcome, detail = "fail", str(exc)
        except (e.A2AError, ClientError) as exc:
            outcome, detail = "fail", f"{type(exc).__name__}: {exc}"
        results.append(CheckResult(name, outcome, section, detail, label))

    await run("answers", lambda: _answers(client))
    task_holder: list[m.Task | m.Message] = []
    await run("send", lambda: _send(client, text, task_holder))
    await run("get", lambda: _get(client, task_holder))
    await run("list", lambda: _list(client, task_holder))
    await run("stream", lambda: _stream(client, text))
    await run("cancel", lambda: _cancel(client, text))
    await run("errors", lambda: _error_codes(client))
    await run("auth", lambda: _auth(client, secured))
    return results


async def _answers(client: A2AClient) -> tuple[Outcome, str]:
    """GetTask of a task that does not exist: TaskNotFound, in the binding's error shape."""
    interface = client.interface
    missing = f"a2a-check-missing-{random.token_hex(8)}"
    if interface.binding == "JSONRPC":
        method = "GetTask" if interface.version == "1.0" else "tasks/get"
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": missing}}
        _, document, _ = await _raw(client, "POST", "", body)
        error = document.get("error") if isinstance(document, dict) else None
        if not isinstance(error, dict):
            raise CheckFailed("GetTask of a task that does not exist answered no error")
        if error.get("code") != e.TaskNotFoundError.code:
            raise CheckFailed(f"GetTask of a missing task answered {error.get('code')}, not -32001")
        if interface.version == "1.0" and not _typed_details(error.get("data", [])):
            raise CheckFailed("the error's data is not a list of objects with @type (§9.5)")
        return "pass", "TaskNotFoundError (-32001)"
    prefix = "/v1" if interface.version == "0.3" else ""
    status, document, _ = await _raw(client, "GET", f"{prefix}/tasks/{missing}", None)
    if status != 404:
        raise CheckFailed(f"GET of a task that does not exist answered HTTP {status}, not 404")
    if interface.version == "0.3":
        return "pass", "HTTP 404"
    error = document.get("error") if isinstance(document, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not _typed_details(details) or not any(
        d.get("reason") == "TASK_NOT_FOUND" and d.get("domain") == "a2a-protocol.org"
        for d in details or []
    ):
        raise CheckFailed(
            "the 404 is no google.rpc.Status with an ErrorInfo TASK_NOT_FOUND (§11.6)"
        )
    return "pass", "HTTP 404, google.rpc.Status with ErrorInfo TASK_NOT_FOUND"


def _typed_details(details: Any) -> bool:
    return isinstance(details, list) and all(
        isinstance(d, dict) and isinstance(d.get("@type"), str) for d in details
    )


async def _send(
    client: A2AClient, text: str, holder: list[m.Task | m.Message]
) -> tuple[Outcome, str]:
    result = await client.send(text)
    holder.append(result)
    if isinstance(result, m.Message):
        return "pass", "answered with a Message (no task)"
    return "pass", f"task {result.status.state.value}"


def _sent_task(holder: list[m.Task | m.Message]) -> m.Task | None:
    """The task the send check made; CheckFailed when that check failed."""
    if not holder:
        raise CheckFailed("the send check failed: nothing to check")
    return holder[0] if isinstance(holder[0], m.Task) else None


async def _get(client: A2AClient, holder: list[m.Task | m.Message]) -> tuple[Outcome, str]:
    sent = _sent_task(holder)
    if sent is None:
        return "n/a", "the agent answered with a Message: no task to get"
    task = await client.get_task(sent.id)
    if task.id != sent.id:
        raise CheckFailed(f"GetTask answered another task ({task.id!r})")
    return "pass", f"state {task.status.state.value}"


async def _list(client: A2AClient, holder: list[m.Task | m.Message]) -> tuple[Outcome, str]:
    sent = _sent_task(holder)
    try:
        listed = await client.list_tasks(m.ListTasksRequest(page_size=50))
    except (e.MethodNotFoundError, e.UnsupportedOperationError) as exc:
        if client.interface.version == "0.3":
            return "n/a", f"not implemented ({type(exc).__name__}); optional in 0.3"
        raise
    if sent is not None and not any(t.id == sent.id for t in listed.tasks):
        raise CheckFailed("the task just sent is not among the 50 most recently updated")
    return "pass", f"{len(listed.tasks)} task(s), totalSize {listed.total_size}"


async def _stream(client: A2AClient, text: str) -> tuple[Outcome, str]:
    if not client.streaming:
        return "n/a", "the card says streaming: false"
    events = [event async for event in client.stream(text)]
    if not events:
        raise CheckFailed("the stream sent no event")
    first = events[0]
    if not isinstance(first, m.Task | m.Message):
        raise CheckFailed(f"the first event is a {type(first).__name__}, not a Task or Message")
    last = events[-1]
    if isinstance(last, m.TaskStatusUpdateEvent | m.Task):
        state = last.status.state
        if state not in TERMINAL_OR_INTERRUPTED:
            raise CheckFailed(f"the stream ended in state {state.value}")
        return "pass", f"{len(events)} event(s), ended {state.value}"
    if isinstance(last, m.Message):
        return "pass", f"{len(events)} event(s), a Message"
    raise CheckFailed("the stream ended on an artifact update, not a final status")


async def _cancel(client: A2AClient, text: str) -> tuple[Outcome, str]:
    sent = await client.send(text, blocking=False)
    if isinstance(sent, m.Message):
        return "n/a", "the agent answered with a Message: no task to cancel"
    try:
        task = await client.cancel_task(sent.id)
    except e.TaskNotCancelableError:
        return "pass", "the task had ended: TaskNotCancelableError (-32002), as specified"
    if task.status.state is not m.TaskState.CANCELED:
        raise CheckFailed(f"the canceled task is {task.status.state.value}, not canceled")
    return "pass", "canceled"


async def _error_codes(client: A2AClient) -> tuple[Outcome, str]:
    interface = client.interface
    if interface.binding == "JSONRPC":
        method = "NoSuchMethod" if interface.version == "1.0" else "no/such-method"
        unknown = await _raw_jsonrpc(client, method, {})
        bad = await _raw_jsonrpc(
            client, "SendMessage" if interface.version == "1.0" else "message/send", {}
        )
        if unknown != -32601:
            raise CheckFailed(f"an unknown method answered {unknown}, not -32601")
        if bad != -32602:
            raise CheckFailed(f"a send without a message answered {bad}, not -32602")
        return "pass", "unknown method -32601, invalid params -32602"
    path = "/v1/message:send" if interface.version == "0.3" else "/message:send"
    answer = await _raw(client, "POST", path, {})
    if answer[0] != 400:
        raise CheckFailed(f"a send without a message answered HTTP {answer[0]}, not 400")
    return "pass", "a send without a message: HTTP 400"


async def _raw(
    client: A2AClient, method: str, path: str, body: Any, *, credential: bool = True
) -> tuple[int, Any, str]:
    """(status, JSON body or None, WWW-Authenticate) of one request on the interface."""
    answer = await client.raw(method, path, body, authorized=credential)
    try:
        document = answer.json()
    except ValueError:
        document = None
    return answer.status, document, answer.headers.get("www-authenticate", "")


async def _raw_jsonrpc(client: A2AClient, method: str, params: Any) -> int | None:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    _, document, _ = await _raw(client, "POST", "", body)
    error = document.get("error") if isinstance(document, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) else None


async def _auth(client: A2AClient, secured: bool) -> tuple[Outcome, str]:
    if not secured:
        return "n/a", "the card declares no security"
    interface = client.interface
    missing = f"a2a-check-auth-{random.token_hex(8)}"
    if interface.binding == "JSONRPC":
        method = "GetTask" if interface.version == "1.0" else "tasks/get"
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": missing}}
        status, _, challenge = await _raw(client, "POST", "", body, credential=False)
    else:
        prefix = "/v1" if interface.version == "0.3" else ""
        status, _, challenge = await _raw(
            client, "GET", f"{prefix}/tasks/{missing}", None, credential=False
        )
    if status != 401:
        raise CheckFailed(f"a request without credentials answered HTTP {status}, not 401")
    if not challenge:
        return "pass", "401, but without WWW-Authenticate"
    return "pass", f"401, WWW-Authenticate: {challenge[:80]}"


async def _push_check(
    client: A2AClient,
    text: str,
    webhook_url: str,
    webhook_listen: str | None,
    timeout_s: float,
) -> CheckResult:
    section = _section("push", client.interface.version)
    label = _label(client.interface)
    token = random.token_urlsafe(16)
    host, port = _listen_address(webhook_url, webhook_listen)
    config = m.TaskPushNotificationConfig(url=webhook_url, token=token, id="a2a-check")
    try:
        async with _receiver(host, port) as received:
            # The config rides on the send, so every change of the task is notified.
            sent = await client.send(text, blocking=False, push=config)
            if isinstance(sent, m.Message):
                return CheckResult("push", "n/a", section, "answered with a Message", label)
            found = await _wait_for(received, sent.id, token, timeout_s)
    except CheckFailed as exc:
        return CheckResult("push", "fail", section, str(exc), label)
    except (e.A2AError, ClientError, OSError) as exc:
        return CheckResult("push", "fail", section, f"{type(exc).__name__}: {exc}", label)
    if found is None:
        detail = f"no notification for the task within {timeout_s:g} s"
        return CheckResult("push", "fail", section, detail, label)
    return CheckResult("push", "pass", section, found, label)


def _listen_address(webhook_url: str, listen: str | None) -> tuple[str, int]:
    if listen:
        host, _, port = listen.rpartition(":")
        return host or "127.0.0.1", int(port)
    parts = urlsplit(webhook_url)
    return "127.0.0.1", parts.port or (443 if parts.scheme == "https" else 80)


@contextlib.asynccontextmanager
async def _receiver(
    host: str, port: int
) -> AsyncIterator[asyncio.Queue[tuple[dict[str, str], bytes]]]:
    """A webhook receiver on (host, port) (uvicorn with a tiny ASGI app) whose requests land
    in the queue it yields."""
    try:
        import uvicorn
    except ImportError:
        raise ClientError(
            "the push check needs uvicorn: pip install 'a2a-serverless[server]'"
        ) from None
    queue: asyncio.Queue[tuple[dict[str, str], bytes]] = asyncio.Queue(maxsize=100)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > 1024 * 1024 or not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        with contextlib.suppress(asyncio.QueueFull):
            queue.put_nowait((headers, body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            serving.result()
            raise ClientError(f"the webhook receiver could not listen on {host}:{port}")
        await asyncio.sleep(0.05)
    try:
        yield queue
    finally:
        server.should_exit = True
        await serving


async def _wait_for(
    received: asyncio.Queue[tuple[dict[str, str], bytes]],
    task_id: str,
    token: str,
    timeout_s: float,
) -> str | None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while (left := deadline - loop.time()) > 0:
        try:
            headers, body = await asyncio.wait_for(received.get(), left)
        except TimeoutError:
            return None
        if task_id.encode() not in body:
            continue
        if headers.get("x-a2a-notification-token") != token:
            raise CheckFailed("a notification came without the config's token")
        try:
            json.loads(body)
        except ValueError:
            raise CheckFailed("a notification's body is not JSON") from None
        return "a notification for the task, with the config's token"
    return None
