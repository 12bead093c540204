"""The client's parts: SSE parsing and its bound, interface choice, card warnings, error mapping,
the card cache (ETag, max-age), retries only where a resend is safe, bounded responses, the
trace context sent, the SSRF guard on a card's URLs, secret references, and a lean import.
Where HTTP is involved it is real: small ASGI apps under uvicorn (`serve_asgi`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless import errors as e
from a2a_serverless import models as m
from a2a_serverless import tracing
from a2a_serverless.client import (
    A2AClient,
    CardError,
    ClientLimits,
    HTTPStatusError,
    Interface,
    ResponseTooLarge,
    fetch_card,
)
from a2a_serverless.client.cardcheck import card_problems
from a2a_serverless.client.discovery import choose, interfaces
from a2a_serverless.client.errors import from_jsonrpc, from_rest
from a2a_serverless.client.transport import sse_events
from a2a_serverless.secretrefs import SecretMissing, SecretUnavailable, resolve_secret
from a2a_serverless.tracecontext import TraceContext, parse_traceparent
from tests.client.asgi import read_body, send_json
from tests.support.server import REPO

Serve = Callable[[Any], AbstractAsyncContextManager[str]]


# --- SSE -----------------------------------------------------------------------------------------


async def test_sse_events_follow_the_whatwg_rules() -> None:
    body = (
        b': a comment\r\nid: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
        b"event: error\nid: 2\ndata: x\n\ndata: tail"
    )
    response = httpx.Response(200, content=body)
    events = [ev async for ev in sse_events(response, 1024)]
    assert [(ev.event, ev.id, ev.data) for ev in events] == [
        ("message", "1", '{"a":\n1}'),
        ("error", "2", "x"),
    ]  # "tail" never ended: not dispatched


async def test_an_event_over_its_bound_is_refused_naming_the_limit() -> None:
    response = httpx.Response(200, content=b"data: " + b"x" * 5000 + b"\n\n")
    with pytest.raises(ResponseTooLarge, match=r"max_event_bytes \(1000 bytes"):
        [ev async for ev in sse_events(response, 1000)]
    endless = httpx.Response(200, content=b"data: " + b"y" * 5000)  # no line end at all
    with pytest.raises(ResponseTooLarge, match="max_event_bytes"):
        [ev async for ev in sse_events(endless, 1000)]


# --- cards ---------------------------------------------------------------------------------------


def v03_card(**extra: Any) -> dict[str, Any]:
    card: dict[str, Any] = {
        "name": "A",
        "description": "d",
        "url": "https://a.example.com/rpc",
        "version": "1",
        "protocolVersion": "0.3.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    return {**card, **extra}


def test_interfaces_of_a_03_card_and_the_choice() -> None:
    card = v03_card(
        preferredTransport="HTTP+JSON",
        additionalInterfaces=[
            {"transport": "GRPC", "url": "https://a.example.com:443"},
            {"transport": "JSONRPC", "url": "https://a.example.com/jsonrpc"},
        ],
    )
    assert interfaces(card) == [
        Interface("https://a.example.com/rpc", "0.3", "HTTP+JSON"),
        Interface("https://a.example.com/jsonrpc", "0.3", "JSONRPC"),
    ]
    assert choose(card).binding == "HTTP+JSON"
    assert choose(card, binding="JSONRPC").url == "https://a.example.com/jsonrpc"
    with pytest.raises(CardError, match=r"no A2A 1\.0 interface"):
        choose(card, version="1.0")


def test_10_interfaces_come_first_whatever_their_order() -> None:
    card = {
        "supportedInterfaces": [
            {"url": "https://a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "https://a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "https://a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0.2"},
        ]
    }
    assert choose(card) == Interface("https://a/rest", "1.0", "HTTP+JSON")
    assert choose(card, binding="JSONRPC") == Interface("https://a/rest", "1.0", "HTTP+JSON")
    assert choose(card, version="0.3") == Interface("https://a/v03", "0.3", "JSONRPC")
    with pytest.raises(CardError):
        choose({"supportedInterfaces": [{"url": "x", "protocolBinding": "GRPC"}]})


def test_card_problems_name_their_version() -> None:
    assert card_problems(v03_card()) == [
        problem for problem in card_problems(v03_card()) if problem.version == "1.0"
    ]
    found = {str(p) for p in card_problems(v03_card())}
    assert "[1.0] supportedInterfaces: required, missing" in found
    only_10 = {
        "name": "A",
        "description": "d",
        "version": "1",
        "supportedInterfaces": [
            {"url": "http://a.example.com/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [{"id": "s", "name": "S", "description": "x"}],
    }
    found = {str(p) for p in card_problems(only_10)}
    assert "[0.3] url: missing: A2A 0.3 clients cannot use this card" in found
    assert "[1.0] skills.0.tags: required, missing" in found
    assert "[1.0] interface 1.0 JSONRPC: plain http, not https" in found


# --- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (-32001, e.TaskNotFoundError),
        (-32002, e.TaskNotCancelableError),
        (-32003, e.PushNotificationNotSupportedError),
        (-32004, e.UnsupportedOperationError),
        (-32005, e.ContentTypeNotSupportedError),
        (-32006, e.InvalidAgentResponseError),
        (-32007, e.AuthenticatedExtendedCardNotConfiguredError),
        (-32008, e.ExtensionSupportRequiredError),
        (-32009, e.VersionNotSupportedError),
        (-32700, e.JSONParseError),
        (-32600, e.InvalidRequestError),
        (-32601, e.MethodNotFoundError),
        (-32602, e.InvalidParamsError),
        (-32603, e.InternalError),
    ],
)
def test_jsonrpc_codes_are_the_kits_classes(code: int, cls: type[e.A2AError]) -> None:
    error = from_jsonrpc({"code": code, "message": "m", "data": {"x": 1}})
    assert type(error) is cls
    assert (error.message, error.data) == ("m", {"x": 1})


def test_other_errors() -> None:
    odd = from_jsonrpc({"code": -31999, "message": "custom"})
    assert type(odd) is e.A2AError and odd.code == -31999
    assert isinstance(from_jsonrpc("nonsense"), e.InvalidAgentResponseError)
    denied = from_jsonrpc({"code": -32000, "message": "no"}, 401)
    assert isinstance(denied, e.AuthorizationError) and denied.status == 401
    status_10 = {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "gone",
            "details": [{"@type": "x", "reason": "TASK_NOT_FOUND"}],
        }
    }
    assert isinstance(from_rest(404, status_10), e.TaskNotFoundError)
    ours_03 = {"error": {"code": -32002, "status": "Conflict", "message": "done"}}
    assert isinstance(from_rest(409, ours_03), e.TaskNotCancelableError)
    assert isinstance(
        from_rest(404, {"message": "Task not found"}, names_task=True), e.TaskNotFoundError
    )
    assert isinstance(from_rest(404, {"message": "no route"}), e.MethodNotFoundError)
    assert from_rest(502, "<html>") is None


# --- over HTTP -----------------------------------------------------------------------------------


def json_app(handler: Callable[[dict[str, Any], bytes], tuple[int, dict[str, str], Any]]) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        status, headers, answer = handler(scope, body)
        await send_json(send, status, answer, headers)

    return app


def card_for(url: str) -> dict[str, Any]:
    return {
        "name": "T",
        "supportedInterfaces": [
            {"url": f"{url}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
    }


async def test_the_card_is_cached_by_max_age_then_revalidated_by_etag(serve_asgi: Serve) -> None:
    seen: list[str | None] = []
    base: list[str] = []

    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        headers = dict(scope["headers"])
        match = headers.get(b"if-none-match")
        seen.append(match.decode() if match else None)
        if match == b'"v1"':
            return 304, {"etag": '"v1"', "cache-control": "max-age=0"}, b""
        return 200, {"etag": '"v1"', "cache-control": "max-age=0"}, card_for(base[0])

    async with serve_asgi(json_app(handler)) as url:
        base.append(url)
        first = await fetch_card(url)
        second = await fetch_card(url)
    assert first == second == card_for(url)
    assert seen == [None, '"v1"']

    kept: list[int] = []

    def fresh(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        kept.append(1)
        return 200, {"cache-control": "public, max-age=300"}, {"name": "kept"}

    async with serve_asgi(json_app(fresh)) as url:
        assert (await fetch_card(url))["name"] == "kept"
        assert (await fetch_card(url + "/"))["name"] == "kept"
    assert kept == [1]


async def test_a_send_is_retried_with_the_same_message_id_a_cancel_is_not(
    serve_asgi: Serve,
) -> None:
    bodies: list[dict[str, Any]] = []
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}

    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        request = json.loads(body)
        bodies.append(request)
        if len(bodies) % 2 == 1:
            return 503, {"retry-after": "0"}, b"busy"
        result = {"task": task} if request["method"] == "SendMessage" else task
        return 200, {}, {"jsonrpc": "2.0", "id": request["id"], "result": result}

    async with serve_asgi(json_app(handler)) as url:
        client = A2AClient(card_for(url), Interface(f"{url}/", "1.0", "JSONRPC"))
        sent = await client.send("hi")
        assert isinstance(sent, m.Task)
        assert len(bodies) == 2 and bodies[0] == bodies[1]  # the same request, same messageId
        with pytest.raises(HTTPStatusError) as refused:
            await client.cancel_task("t")
        assert refused.value.status == 503
        assert len(bodies) == 3


async def test_responses_are_bounded(serve_asgi: Serve) -> None:
    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        return 200, {}, {"jsonrpc": "2.0", "id": 1, "result": {"blob": "x" * 5000}}

    async with serve_asgi(json_app(handler)) as url:
        client = A2AClient(
            card_for(url),
            Interface(f"{url}/", "1.0", "JSONRPC"),
            limits=ClientLimits(max_response_bytes=1000, retries=0),
        )
        with pytest.raises(ResponseTooLarge, match=r"max_response_bytes \(1000 bytes"):
            await client.get_task("t")


async def test_the_trace_context_is_sent(serve_asgi: Serve) -> None:
    received: list[str] = []

    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        received.append(dict(scope["headers"])[b"traceparent"].decode())
        return 404, {}, {"error": {"code": -32001, "message": "Task not found"}}

    async with serve_asgi(json_app(handler)) as url:
        client = A2AClient(card_for(url), Interface(url, "0.3", "HTTP+JSON"))
        with pytest.raises(e.TaskNotFoundError):
            await client.get_task("t")
        caller = TraceContext("ab" * 16, "cd" * 8, flags=1)
        with tracing.use(caller), pytest.raises(e.TaskNotFoundError):
            await client.get_task("t")
    fresh = parse_traceparent(received[0])
    assert fresh is not None and not fresh.sampled
    assert received[1] == caller.traceparent()


async def test_a_cards_url_on_another_origin_is_ssrf_checked(serve_asgi: Serve) -> None:
    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        return 200, {}, card_for("http://169.254.169.254")

    async with serve_asgi(json_app(handler)) as url:
        with pytest.raises(CardError, match="will not call"):
            await A2AClient.connect(url)
        with pytest.raises(CardError, match="will not call"):
            await A2AClient.connect(url, allow_private_urls=True)  # metadata: never


async def test_an_http_error_without_an_a2a_body(serve_asgi: Serve) -> None:
    def handler(scope: dict[str, Any], body: bytes) -> tuple[int, dict[str, str], Any]:
        return 502, {}, b"<html>bad gateway</html>"

    async with serve_asgi(json_app(handler)) as url:
        client = A2AClient(
            card_for(url), Interface(f"{url}/", "1.0", "JSONRPC"), limits=ClientLimits(retries=0)
        )
        with pytest.raises(HTTPStatusError, match="HTTP 502") as raised:
            await client.get_task("t")
        assert raised.value.status == 502


# --- secrets, import -----------------------------------------------------------------------------


def test_secret_references(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THE_KEY", "from-env")
    (tmp_path / "key").write_text("from-file\n")
    assert resolve_secret("env:THE_KEY") == "from-env"
    assert resolve_secret(f"file:{tmp_path / 'key'}") == "from-file"
    assert resolve_secret("plain") == "plain"
    monkeypatch.delenv("THE_KEY")
    with pytest.raises(SecretUnavailable, match="THE_KEY is not set"):
        resolve_secret("env:THE_KEY")
    with pytest.raises(SecretUnavailable, match="cannot read"):
        resolve_secret(f"file:{tmp_path / 'missing'}")


def test_ssm_reference_read_with_boto3(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from moto import mock_aws

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        ssm = boto3.client("ssm")
        ssm.put_parameter(Name="/agent/key", Value="from-ssm", Type="SecureString")
        assert resolve_secret("ssm:/agent/key") == "from-ssm"
        with pytest.raises(SecretMissing, match="ssm '/agent/missing' does not exist"):
            resolve_secret("ssm:/agent/missing")


def test_the_client_import_is_lean() -> None:
    code = "import json, sys, a2a_serverless.client; print(json.dumps(sorted(sys.modules)))"
    loaded = set(
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
            ).stdout
        )
    )
    heavy = {
        "httpx",  # on the first request
        "boto3",
        "botocore",
        "google.auth",
        "jwt",
        "cryptography",
        "a2a",
        "uvicorn",
        "a2a_serverless.service",
        "a2a_serverless.asgi",
        "a2a_serverless.v03.rest",
        "a2a_serverless.push.ssrf",
    }
    assert loaded & heavy == set()
