"""The holes an attack run found (issue 17), pinned so they stay closed.

Each test names the attack: forged page tokens, content types and Host headers a browser or a
DNS rebinding could send, cursors past the end of a log, over-long webhook URLs, a store that
fails mid-turn, reused message ids, poisoned agent cards, webhook amplification.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import Agent, Context, InputRequired, Settings, TaskUpdater, agent
from a2a_serverless.pagetoken import PageTokens, page_token_key
from tests.reliability.harness import fuzz_agent

TRANSPORTS = ["jsonrpc", "rest"]


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(fuzz_agent, blocking_timeout_s=5.0, poll_interval_s=0.02) as (
        client,
        _app,
    ):
        yield client


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def list_tasks(client: httpx.AsyncClient, transport: str, **params: Any) -> httpx.Response:
    if transport == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": params}
        return await client.post("/", json=body)
    return await client.get("/v1/tasks", params=params)


def refused_as_invalid(response: httpx.Response, transport: str) -> dict[str, Any]:
    if transport == "jsonrpc":
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 400, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == -32602, error
    return error


async def send_text(client: httpx.AsyncClient, message_id: str, text: str = "hi") -> dict[str, Any]:
    message = {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    reply: dict[str, Any] = (await client.post("/", json=body)).json()
    return reply


# --- 1. forged page tokens ----------------------------------------------------------------------

FORGED_TOKENS = {
    "lone-surrogate": b64(b'[1,"\\ud800"]'),
    "deep-nesting": b64(b"[" * 5000),
    "old-unsigned-form": b64(json.dumps([1, "x"]).encode()),
    "huge-position": b64(json.dumps([10**30, "x"]).encode()),
    "mac-of-nothing": ".",
    "non-ascii": "é.é",
    "very-long": "A" * 60_000,
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("token", FORGED_TOKENS.values(), ids=FORGED_TOKENS.keys())
async def test_forged_page_tokens_are_invalid_params(
    client: httpx.AsyncClient, transport: str, token: str
) -> None:
    await send_text(client, "page-1")
    error = refused_as_invalid(await list_tasks(client, transport, pageToken=token), transport)
    assert error["data"]["errors"][0]["field"].endswith("pageToken")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_page_token_edited_or_signed_elsewhere_is_refused(
    client: httpx.AsyncClient, transport: str
) -> None:
    for n in range(3):
        await send_text(client, f"page-{n}")
    first = await list_tasks(client, transport, pageSize=1)
    token = first.json()["result" if transport == "jsonrpc" else "nextPageToken"]
    token = token["nextPageToken"] if isinstance(token, dict) else token
    assert (await list_tasks(client, transport, pageSize=1, pageToken=token)).status_code == 200
    payload, mac = token.split(".")
    edited = b64(b"1:" + base64.urlsafe_b64decode(payload + "==").split(b":", 1)[1]) + "." + mac
    refused_as_invalid(await list_tasks(client, transport, pageToken=edited), transport)
    other_key = PageTokens(page_token_key(Settings(page_token_key="another deployment")))
    foreign = other_key.encode(1, "x")
    refused_as_invalid(await list_tasks(client, transport, pageToken=foreign), transport)


def test_the_page_token_key_is_per_deployment() -> None:
    by_store = page_token_key(Settings(store_url="sqlite:///a.db"))
    assert by_store != page_token_key(Settings(store_url="sqlite:///b.db"))
    keyed = page_token_key(Settings(page_token_key="k", push_signing_keys="[]"))
    assert keyed != page_token_key(Settings(push_signing_keys="[]")) != by_store
    assert "s3cret" not in repr(Settings(page_token_key="s3cret"))


# --- 4. content types, Host, CORS ---------------------------------------------------------------

RPC_SEND = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "messageId": "csrf-1",
                "parts": [{"kind": "text", "text": "x"}],
            }
        },
    }
)


async def stored_tasks(client: httpx.AsyncClient) -> int:
    listed = await list_tasks(client, "jsonrpc")
    return int(listed.json()["result"]["totalSize"])


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
async def test_json_rpc_bodies_of_other_types_are_refused_with_415(
    client: httpx.AsyncClient, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    request = client.build_request("POST", "/", content=RPC_SEND.encode(), headers=headers)
    if content_type is None:
        request.headers.pop("content-type", None)
    response = await client.send(request)
    assert response.status_code == 415, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == -32600
    assert body["error"]["data"]["expected"] == "application/json"
    assert await stored_tasks(client) == 0, "a refused body must not be executed"


@pytest.mark.parametrize(
    ("prefix", "version"), [("/v1", {}), ("", {"A2A-Version": "1.0"})], ids=["v0.3", "v1.0"]
)
@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
async def test_rest_cancel_with_an_empty_body_of_another_type_is_refused_with_415(
    client: httpx.AsyncClient, prefix: str, version: dict[str, str], content_type: str | None
) -> None:
    # Issue 31: an empty body needs no CORS preflight as text/plain, a form, a multipart or
    # untyped; a page of another origin could cancel the caller's task with it.
    task_id = (await send_text(client, "csrf-cancel", "ask me"))["result"]["id"]
    url = f"{prefix}/tasks/{task_id}:cancel"
    headers = {**version, **({"content-type": content_type} if content_type else {})}
    request = client.build_request("POST", url, content=b"", headers=headers)
    if content_type is None:
        request.headers.pop("content-type", None)
    response = await client.send(request)
    assert response.status_code == 415, response.text
    got = await client.post(
        "/", json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}}
    )
    assert got.json()["result"]["status"]["state"] == "input-required", "refused, not canceled"
    typed = await client.post(
        url, content=b"", headers={**version, "content-type": "application/json"}
    )
    assert typed.status_code == 200, typed.text


async def test_json_rpc_with_a_charset_is_fine(client: httpx.AsyncClient) -> None:
    headers = {"content-type": "Application/JSON; charset=utf-8"}
    response = await client.post("/", content=RPC_SEND.encode(), headers=headers)
    assert response.json()["result"]["kind"] == "task"


async def test_allowed_hosts_refuse_other_host_names(make_client: Any) -> None:
    async with make_client(fuzz_agent, allowed_hosts="localhost,[::1]") as (client, _app):
        for host in ("evil.example", "evil.example:8000", "localhost.evil.example"):
            response = await client.get("/health", headers={"host": host})
            assert response.status_code == 421, host
        for host in ("localhost", "localhost:8000", "[::1]:8000", "LOCALHOST"):
            assert (await client.get("/health", headers={"host": host})).status_code == 200


def test_the_dev_server_answers_its_own_names() -> None:
    from a2a_serverless.origins import dev_hosts

    hosts = dev_hosts(Settings(allowed_hosts="agent.lan"), "127.0.0.1").split(",")
    assert hosts == ["localhost", "127.0.0.1", "[::1]", "agent.lan"]
    public = Settings(public_url="https://agent.example.com/a2a")
    assert "agent.example.com" in dev_hosts(public, "0.0.0.0").split(",")
    assert "[::1]" in dev_hosts(Settings(), "::1").split(",")


def test_a_live_dev_server_refuses_a_rebound_host_name(live_server: Any) -> None:
    server = live_server()
    assert httpx.get(f"{server.url}/health").status_code == 200
    rebound = httpx.post(
        f"{server.url}/",
        content=RPC_SEND,
        headers={"host": "attacker.example", "content-type": "application/json"},
    )
    assert rebound.status_code == 421


async def test_cors_is_off_by_default(client: httpx.AsyncClient) -> None:
    origin = {"origin": "https://page.example"}
    preflight = await client.options(
        "/", headers={**origin, "access-control-request-method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    card = await client.get("/.well-known/agent-card.json", headers=origin)
    assert "access-control-allow-origin" not in card.headers


async def test_cors_allows_the_configured_origins_only(make_client: Any) -> None:
    async with make_client(fuzz_agent, cors_allowed_origins="https://app.example") as (client, _):
        asked = {
            "origin": "https://app.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, authorization",
        }
        preflight = await client.options("/", headers=asked)
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
        assert "authorization" in preflight.headers["access-control-allow-headers"]
        sent = await client.post(
            "/",
            content=RPC_SEND.encode(),
            headers={"origin": "https://app.example", "content-type": "application/json"},
        )
        assert sent.headers["access-control-allow-origin"] == "https://app.example"
        assert "Origin" in sent.headers["vary"]
        other = await client.options("/", headers={**asked, "origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers
        card = await client.get(
            "/.well-known/agent-card.json", headers={"origin": "https://evil.example"}
        )
        assert "access-control-allow-origin" not in card.headers
        assert "Origin" in card.headers["vary"]


# --- 6. a cursor past the end of the log --------------------------------------------------------


@pytest.fixture
async def streaming(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    from tests.integration.jsonrpc_agents import streamer

    fast = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 30.0}
    async with make_client(streamer, **fast) as (client, _app):
        yield client


async def resubscribe_after(
    client: httpx.AsyncClient, transport: str, task_id: str, last_event_id: int
) -> httpx.Response:
    headers = {"last-event-id": str(last_event_id)}
    if transport == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 3, "method": "tasks/resubscribe", "params": {"id": task_id}}
        return await client.post("/", json=body, headers=headers)
    return await client.get(f"/v1/tasks/{task_id}:subscribe", headers=headers)


def sse_payloads(response: httpx.Response) -> list[dict[str, Any]]:
    lines = response.text.splitlines()
    return [json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: ")]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_cursor_past_a_finished_log_ends_with_the_final_state(
    streaming: httpx.AsyncClient, transport: str
) -> None:
    done = (await send_text(streaming, "cursor-1", "2 0"))["result"]
    assert done["status"]["state"] == "completed"
    response = await asyncio.wait_for(
        resubscribe_after(streaming, transport, done["id"], 10_000), timeout=5
    )
    payloads = sse_payloads(response)
    assert len(payloads) == 1, payloads
    task = payloads[0]["result"] if transport == "jsonrpc" else payloads[0]["task"]
    assert task["status"]["state"] in ("completed", "TASK_STATE_COMPLETED")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_cursor_past_a_live_log_is_invalid_params(
    streaming: httpx.AsyncClient, transport: str
) -> None:
    message = {
        "role": "user",
        "messageId": f"cursor-live-{transport}",
        "parts": [{"kind": "text", "text": "3 1.0"}],
    }
    params = {"message": message, "configuration": {"blocking": False}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
    task = (await streaming.post("/", json=body)).json()["result"]
    response = await asyncio.wait_for(
        resubscribe_after(streaming, transport, task["id"], 10_000), timeout=5
    )
    if transport == "jsonrpc":
        error = (
            sse_payloads(response)[0]["error"]
            if response.text.startswith(("data", "id"))
            else response.json()["error"]
        )
    else:
        assert response.status_code == 400, response.text
        error = response.json()["error"]
    assert error["code"] == -32602
    assert error["data"]["lastEventId"] == 10_000


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_v10_subscription_past_the_log_of_a_task_waiting_for_input_is_invalid_params(
    client: httpx.AsyncClient, transport: str
) -> None:
    # Issue 31: SubscribeToTask follows a task waiting for input (its next turn's events would
    # fall under the cursor), so the cursor is refused there at once, as for any live task,
    # instead of a stream silent until its timeout.
    task_id = (await send_text(client, f"cursor-input-{transport}", "ask me"))["result"]["id"]
    headers = {"last-event-id": "10000", "A2A-Version": "1.0"}
    if transport == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask", "params": {"id": task_id}}
        request = client.post("/", json=body, headers=headers)
    else:
        request = client.get(f"/tasks/{task_id}:subscribe", headers=headers)
    response = await asyncio.wait_for(request, timeout=5)
    if transport == "jsonrpc":
        error = (
            sse_payloads(response)[0]["error"]
            if response.text.startswith(("data", "id"))
            else response.json()["error"]
        )
        assert error["code"] == -32602, error
    else:
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT", error
    assert "10000" in error["message"] and task_id in error["message"]
    # v0.3's resubscribe ends where a turn does: there the task, at rest, is the answer.
    v03 = await asyncio.wait_for(resubscribe_after(client, transport, task_id, 10_000), timeout=5)
    payloads = sse_payloads(v03)
    assert len(payloads) == 1, payloads


# --- 5. over-long webhook URLs ------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_over_long_webhook_url_is_refused_when_set(
    client: httpx.AsyncClient, transport: str
) -> None:
    from a2a_serverless.push.ssrf import MAX_URL_CHARS

    task = (await send_text(client, f"long-url-{transport}"))["result"]
    url = "http://127.0.0.1:9/" + "a" * 70_000
    config = {"url": url}
    if transport == "jsonrpc":
        params = {"taskId": task["id"], "pushNotificationConfig": config}
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tasks/pushNotificationConfig/set",
            "params": params,
        }
        response = await client.post("/", json=body)
    else:
        response = await client.post(
            f"/v1/tasks/{task['id']}/pushNotificationConfigs",
            json={"pushNotificationConfig": config},
        )
    error = refused_as_invalid(response, transport)
    assert str(MAX_URL_CHARS) in error["message"]
    assert len(response.content) < 2000, "the error must not echo the whole URL"
    at_limit = "http://127.0.0.1:9/" + "a" * (MAX_URL_CHARS - len("http://127.0.0.1:9/"))
    params = {"taskId": task["id"], "pushNotificationConfig": {"url": at_limit}}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/pushNotificationConfig/set",
        "params": params,
    }
    assert "result" in (await client.post("/", json=body)).json()


async def test_a_request_the_client_cannot_build_is_a_permanent_failure() -> None:
    from a2a_serverless.push import delivery
    from a2a_serverless.push.ssrf import PinnedTarget

    target = PinnedTarget(
        "http://127.0.0.1:9/x", "http", "127.0.0.1", 9, "/" + "a" * 70_000, "127.0.0.1"
    )
    result = await delivery.send("POST", target, body=b"{}", timeout_s=2)
    assert result.outcome == "permanent", result
    assert "cannot be made" in result.reason


# --- 8. a full disk under SQLite ----------------------------------------------------------------


def fill_disk(store: Any) -> None:
    """Make the SQLite file full: no page may be added (SQLite's own SQLITE_FULL error)."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")


def free_disk(store: Any) -> None:
    store._conn.execute("PRAGMA max_page_count = 1073741823")


async def test_a_full_sqlite_disk_is_503_with_retry_after_not_500(
    make_client: Any, tmp_path: Any
) -> None:
    from a2a_serverless.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "tasks.db")
    async with make_client(fuzz_agent, store=store, blocking_timeout_s=5.0) as (client, _app):
        fill_disk(store)
        big = "x" * 200_000  # more than the free room left in the file's last pages
        message = {"role": "user", "messageId": "full-1", "parts": [{"kind": "text", "text": big}]}
        body = {"jsonrpc": "2.0", "id": 4, "method": "message/send", "params": {"message": message}}
        response = await client.post("/", json=body)
        assert response.status_code == 200 and response.headers["retry-after"], response.text
        error = response.json()["error"]
        assert error["code"] == -32603
        assert error["data"]["reason"] == "store-unavailable", error
        rest = await client.post(
            "/v1/message:send",
            json={
                "message": {"messageId": "full-2", "role": "ROLE_USER", "content": [{"text": big}]}
            },
        )
        assert rest.status_code == 503 and rest.headers["retry-after"]
        free_disk(store)
        assert (await client.post("/", json=body)).json()["result"]["status"][
            "state"
        ] == "completed"


async def test_a_full_disk_mid_turn_retries_the_turn_and_never_fails_the_task(
    make_client: Any, tmp_path: Any
) -> None:
    from a2a_serverless import agent
    from a2a_serverless.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "tasks.db")
    reached, go_on = asyncio.Event(), asyncio.Event()
    runs: list[str] = []

    @agent(name="Big writer", description="Answers with a large text.")
    async def big_writer(ctx: Context) -> AsyncIterator[Any]:
        runs.append(ctx.task_id)
        if len(runs) == 1:
            reached.set()
            await go_on.wait()
        yield "y" * 200_000

    async with make_client(big_writer, store=store, blocking_timeout_s=10.0) as (client, _app):
        message = {
            "role": "user",
            "messageId": "full-turn",
            "parts": [{"kind": "text", "text": "go"}],
        }
        params = {"message": message, "configuration": {"blocking": False}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
        task = (await client.post("/", json=body)).json()["result"]
        await asyncio.wait_for(reached.wait(), 5)
        fill_disk(store)
        go_on.set()
        await asyncio.sleep(0.5)  # the turn's writes fail; its job is tried again
        record = await store.get_task(task["id"])
        assert record is not None and record.state == "working"
        free_disk(store)
        get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task["id"]}}
        for _ in range(100):
            state = (await client.post("/", json=get)).json()["result"]["status"]["state"]
            if state != "working":
                break
            await asyncio.sleep(0.05)
        assert state == "completed"
        assert len(runs) >= 2  # runs while the disk is full fail the job, never the task


# --- 10. a messageId reused for another message -------------------------------------------------


def rest_send_body(message_id: str, text: str, **fields: Any) -> dict[str, Any]:
    message = {"messageId": message_id, "role": "ROLE_USER", "content": [{"text": text}], **fields}
    return {"message": message}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_reused_message_id_with_other_content_is_a_new_message(
    client: httpx.AsyncClient, transport: str
) -> None:
    # Once refused (-32602 / 409): clients reuse ids, and the spec makes no id unique. What
    # matters is that the other message is never answered with the first message's task.
    first = (await send_text(client, f"reused-{transport}", "hello"))["result"]
    if transport == "jsonrpc":
        again = await send_text(client, f"reused-{transport}", "hello")
        assert again["result"]["id"] == first["id"], "an identical retry is idempotent"
        other = (await send_text(client, f"reused-{transport}", "something else"))["result"]
    else:
        same = await client.post(
            "/v1/message:send", json=rest_send_body(f"reused-{transport}", "hello")
        )
        assert same.status_code == 200 and same.json()["task"]["id"] == first["id"]
        response = await client.post(
            "/v1/message:send", json=rest_send_body(f"reused-{transport}", "bye")
        )
        assert response.status_code == 200, response.text
        other = response.json()["task"]
    assert other["id"] != first["id"]
    assert [m["messageId"] for m in other["history"][:1]] == [f"reused-{transport}"]


async def test_a_reused_message_id_in_another_context_is_a_new_task(
    client: httpx.AsyncClient,
) -> None:
    first = (await send_text(client, "ctx-reuse", "hello"))["result"]
    message = {
        "role": "user",
        "messageId": "ctx-reuse",
        "contextId": "another-context",
        "parts": [{"kind": "text", "text": "hello"}],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    other = (await client.post("/", json=body)).json()["result"]
    assert other["id"] != first["id"] and other["contextId"] == "another-context"


# --- 2. agent card poisoning --------------------------------------------------------------------

POISON = {
    "x-forwarded-host": "attacker.example",
    "x-forwarded-proto": "https",
    "x-forwarded-prefix": "/steal",
}


async def test_forwarded_headers_from_an_untrusted_peer_do_not_reach_the_card(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/.well-known/agent-card.json", headers=POISON)
    card = response.json()
    urls = [card["url"], *(i["url"] for i in card["additionalInterfaces"])]
    assert all(url.startswith("http://testserver") for url in urls), urls
    # Built from the request: for this client only, and said to depend on those headers.
    assert response.headers["cache-control"].startswith("private")
    assert "Host" in response.headers["vary"]


async def test_forwarded_headers_from_a_trusted_proxy_are_used(make_client: Any) -> None:
    async with make_client(fuzz_agent, trusted_proxies="10.0.0.0/8, 127.0.0.1") as (client, _):
        card = (await client.get("/.well-known/agent-card.json", headers=POISON)).json()
    assert card["url"] == "https://attacker.example/steal/"


async def test_a_configured_public_url_is_cached_publicly(make_client: Any) -> None:
    async with make_client(fuzz_agent, public_url="https://agent.example.com") as (client, _):
        response = await client.get("/.well-known/agent-card.json", headers=POISON)
    assert response.json()["url"] == "https://agent.example.com/"
    assert response.headers["cache-control"] == "public, max-age=300"


def test_api_gateway_context_wins_over_client_headers() -> None:
    from a2a_serverless.publicurl import request_base_url

    event = {
        "requestContext": {"domainName": "abc.execute-api.eu-west-1.amazonaws.com", "stage": "prod"}
    }
    url = request_base_url(
        scheme="http",
        headers={**POISON, "host": "attacker.example"},
        server=None,
        aws_event=event,
        trust_forwarded=True,
    )
    assert url == "https://abc.execute-api.eu-west-1.amazonaws.com/prod"
    custom = {"requestContext": {"domainName": "agent.example.com", "stage": "prod"}}
    assert request_base_url(scheme="http", headers={}, server=None, aws_event=custom) == (
        "https://agent.example.com"
    )


def test_a_bad_trusted_proxy_is_refused_at_start_up() -> None:
    from a2a_serverless.publicurl import trusted_networks

    with pytest.raises(ValueError, match="A2A_TRUSTED_PROXIES"):
        trusted_networks("10.0.0.0/8, proxy.internal")


# --- 3. webhook amplification -------------------------------------------------------------------


async def set_config(
    client: httpx.AsyncClient, task_id: str, url: str, config_id: str | None = None
) -> dict[str, Any]:
    config = {"url": url, **({"id": config_id} if config_id else {})}
    params = {"taskId": task_id, "pushNotificationConfig": config}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/pushNotificationConfig/set",
        "params": params,
    }
    reply: dict[str, Any] = (await client.post("/", json=body)).json()
    return reply


async def test_push_configs_per_task_are_capped_and_urls_unique(make_client: Any) -> None:
    async with make_client(fuzz_agent, push_max_configs_per_task=3) as (client, _app):
        task = (await send_text(client, "amplify"))["result"]
        for n in range(3):
            assert "result" in await set_config(
                client, task["id"], f"http://127.0.0.1:9/h{n}", f"c{n}"
            )
        over = (await set_config(client, task["id"], "http://127.0.0.1:9/h9", "c9"))["error"]
        assert over["code"] == -32602 and over["data"]["setting"] == "A2A_PUSH_MAX_CONFIGS_PER_TASK"
        # Replacing one of the three is no new config.
        assert "result" in await set_config(client, task["id"], "http://127.0.0.1:9/new", "c0")
        twice = (await set_config(client, task["id"], "http://127.0.0.1:9/h1", "c-other"))["error"]
        assert twice["code"] == -32602 and "already has" in twice["message"]


def test_a_notification_body_is_bounded() -> None:
    from a2a_serverless.models import Artifact, Message, Part, Task, TaskState, TaskStatus
    from a2a_serverless.push.payload import bounded_body
    from a2a_serverless.v03.jsonrpc_convert import task_out

    def text(value: str) -> Message:
        return Message(message_id="m", role="agent", parts=[Part(text=value)])

    status = TaskStatus(state=TaskState.COMPLETED, timestamp="2026-01-01T00:00:00Z")
    task = Task(
        id="t",
        context_id="c",
        status=status,
        history=[text("x" * 100_000)],
        artifacts=[Artifact(artifact_id="a", parts=[Part(text="y" * 100_000)])],
    )
    body = bounded_body(task, 4096)
    assert len(body) <= 4096
    assert json.loads(body)["status"]["state"] == "completed"
    huge_status = task.model_copy(
        update={"status": status.model_copy(update={"message": text("z" * 10_000)})}
    )
    assert len(bounded_body(huge_status, 4096)) <= 4096
    small = task.model_copy(update={"history": None, "artifacts": None})
    assert json.loads(bounded_body(small, 4096)) == task_out(small)


def test_deliveries_per_host_are_rate_limited() -> None:
    from a2a_serverless.push.ratelimit import HostRateLimiter

    limiter = HostRateLimiter(5.0)
    waits = [limiter.reserve("victim.example") for _ in range(20)]
    assert waits[:5] == [0.0] * 5
    assert all(w > 0 for w in waits[5:])
    assert limiter.reserve("other.example") == 0.0, "each host has its own budget"
    assert HostRateLimiter(0).reserve("victim.example") == 0.0


# --- 7. a dev server killed mid-turn ------------------------------------------------------------


def rpc_sync(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply: dict[str, Any] = httpx.post(url + "/", json=body, timeout=30).json()
    return reply


def test_a_dev_server_killed_mid_turn_resumes_the_turn_when_it_starts_again(
    live_server: Any, tmp_path: Any
) -> None:
    import time

    env = {"A2A_STORE_URL": f"sqlite:///{tmp_path / 'tasks.db'}"}
    target = "tests.integration.jsonrpc_agents:streamer"
    first = live_server(target, **env)
    message = {
        "role": "user",
        "messageId": "killed-mid-turn",
        "parts": [{"kind": "text", "text": "2 1.0"}],
    }
    params = {"message": message, "configuration": {"blocking": False}}
    task = rpc_sync(first.url, "message/send", params)["result"]
    deadline = time.monotonic() + 10
    while rpc_sync(first.url, "tasks/get", {"id": task["id"]})["result"]["status"]["state"] != (
        "working"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first.process.kill()  # no shutdown: the turn, its job and its claim are left as they were
    first.process.wait()

    second = live_server(target, **env)
    state = ""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = rpc_sync(second.url, "tasks/get", {"id": task["id"]})["result"]["status"]["state"]
        if state != "working":
            break
        time.sleep(0.1)
    assert state == "completed", second.log()
    # The same message sent again is answered at once with the finished task.
    again = rpc_sync(second.url, "message/send", {"message": message})["result"]
    assert again["id"] == task["id"] and again["status"]["state"] == "completed"


async def test_a_retry_requeues_a_turn_whose_lease_ran_out(make_client: Any) -> None:
    from a2a_serverless.journal import Change, now_ms
    from a2a_serverless.lifecycle import status_event
    from a2a_serverless.models import TaskState
    from a2a_serverless.store.base import WorkerClaim
    from tests.integration.agent_fixtures import RecordingQueue

    queue = RecordingQueue()
    async with make_client(fuzz_agent, queue=queue) as (client, app):
        message = {"role": "user", "messageId": "stalled", "parts": [{"kind": "text", "text": "x"}]}
        params = {"message": message, "configuration": {"blocking": False}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
        task = (await client.post("/", json=body)).json()["result"]

        def stall(record: Any) -> Change:
            claim = WorkerClaim("stalled", "a-worker-that-died", now_ms() - 1000, 1)
            return Change(events=[status_event(record.task, TaskState.WORKING)], claim=claim)

        await app.runtime.journal.write(task["id"], stall)
        assert len(queue.jobs_for(task["id"])) == 1
        await client.post("/", json=body)
        assert len(queue.jobs_for(task["id"])) == 2, "the retry queues the stalled turn again"


async def test_the_sqlite_queue_takes_over_jobs_of_a_dead_process(tmp_path: Any) -> None:
    import sys

    from a2a_serverless.holders import local_holder_id
    from a2a_serverless.queue.base import Job, RunAgentJob, RunTurn, encode_job
    from a2a_serverless.queue.sqlite import SqliteQueue

    exited = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import os; print(os.getpid())", stdout=asyncio.subprocess.PIPE
    )
    out, _ = await exited.communicate()
    dead_holder = local_holder_id().split("/")[0] + f"/{out.decode().strip()}/x"
    ran: list[str] = []

    async def handler(job: Job) -> None:
        ran.append(job.id)

    queue = SqliteQueue(tmp_path / "tasks.db", handler, poll_s=0.05)
    job = RunAgentJob(task_id="t", payload=RunTurn("s"))
    queue._db.execute(
        "INSERT INTO a2a_jobs (id, body, run_at, holder, lease_until) VALUES (?, ?, 0, ?, ?)",
        (job.id, encode_job(job).decode(), dead_holder, 2**62),
    )
    try:
        assert await queue.recover() == 1
        await queue.drain()
        assert ran == [job.id]
        rows = queue._db.execute("SELECT COUNT(*) FROM a2a_jobs").fetchone()[0]
        assert rows == 0, "a handled job is forgotten"
    finally:
        await queue.aclose()


# --- issue 31: a task grows without bound ---------------------------------------------------------

TASK_BOUND = 6000


@agent(name="Grower", description="Asks, then answers with as many characters as it is told.")
def grower(ctx: Context) -> Any:
    if ctx.text.startswith("ask") and not ctx.is_continuation:
        raise InputRequired("What else?")
    if ctx.text.startswith("make "):
        return "x" * int(ctx.text.split()[1])
    return "fine"


class Chunks:
    """An executor streaming an artifact in chunks until the bound stops it."""

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("Writing…")
        for index in range(100):
            await updater.add_artifact("y" * 1000, artifact_id="report", append=index > 0)
        await updater.complete()


@pytest.fixture
async def bounded(make_client: Any) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    settings = {"max_task_bytes": TASK_BOUND, "blocking_timeout_s": 5.0, "poll_interval_s": 0.02}
    async with make_client(grower, **settings) as (client, app):
        yield client, app


def send_body(text: str, message_id: str, task_id: str | None = None) -> dict[str, Any]:
    message = {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": text}]}
    if task_id:
        message["taskId"] = task_id
    return {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}


def over_the_bound(error: dict[str, Any]) -> None:
    assert error["code"] == -32602, error
    data = error["data"]
    assert (data["limit"], data["setting"], data["max"]) == (
        "max_task_bytes",
        "A2A_MAX_TASK_BYTES",
        TASK_BOUND,
    )
    assert data["actual"] > TASK_BOUND
    assert str(TASK_BOUND) in error["message"] and str(data["actual"]) in error["message"]


async def test_a_continuation_that_would_take_a_task_over_its_bound_is_refused(
    bounded: tuple[httpx.AsyncClient, Any],
) -> None:
    client, app = bounded
    task = (await client.post("/", json=send_body("ask " + "a" * 2000, "grow-1"))).json()
    task_id = task["result"]["id"]
    assert task["result"]["status"]["state"] == "input-required"
    before = await app.runtime.store.get_task(task_id)

    reply = await client.post("/", json=send_body("b" * 4000, "grow-2", task_id))
    assert reply.status_code == 200
    over_the_bound(reply.json()["error"])
    rest_message = {
        "messageId": "grow-3",
        "role": "ROLE_USER",
        "taskId": task_id,
        "content": [{"text": "c" * 4000}],
    }
    rest = await client.post("/v1/message:send", json={"message": rest_message})
    assert rest.status_code == 413, rest.text
    over_the_bound(rest.json()["error"])
    after = await app.runtime.store.get_task(task_id)
    assert after.version == before.version, "nothing was stored"
    assert after.task.status.state.value == "input-required"
    # A continuation within the bound still goes in.
    fits = await client.post("/", json=send_body("fine", "grow-4", task_id))
    assert fits.json()["result"]["status"]["state"] == "completed"


async def test_a_first_message_over_the_bound_stores_nothing(
    bounded: tuple[httpx.AsyncClient, Any],
) -> None:
    client, _app = bounded
    reply = await client.post("/", json=send_body("d" * (TASK_BOUND + 1), "grow-big"))
    over_the_bound(reply.json()["error"])
    message = {"messageId": "grow-big-1", "role": "ROLE_USER", "parts": [{"text": "e" * 7000}]}
    v10 = await client.post(
        "/message:send", json={"message": message}, headers={"A2A-Version": "1.0"}
    )
    assert v10.status_code == 413, v10.text
    assert "max_task_bytes" in v10.text
    assert await stored_tasks(client) == 0


async def test_agent_output_over_the_bound_fails_the_task_saying_why(
    bounded: tuple[httpx.AsyncClient, Any],
) -> None:
    client, app = bounded
    reply = await client.post("/", json=send_body("make 10000", "grow-out"))
    task = reply.json()["result"]
    assert task["status"]["state"] == "failed", task
    reason = task["status"]["message"]["parts"][0]["text"]
    assert "A2A_MAX_TASK_BYTES" in reason and str(TASK_BOUND) in reason, reason
    assert "The agent failed" not in reason
    stored = await app.runtime.store.get_task(task["id"])
    assert "x" * 1000 not in json.dumps(stored.task.model_dump()), "the output was not kept"


async def test_streamed_chunks_stop_at_the_bound(make_client: Any) -> None:
    chunks = Agent(name="Chunks", description="Streams chunks.", executor=Chunks())
    settings = {"max_task_bytes": TASK_BOUND, "blocking_timeout_s": 5.0, "poll_interval_s": 0.02}
    async with make_client(chunks, **settings) as (client, app):
        task = (await client.post("/", json=send_body("go", "chunks-1"))).json()["result"]
        assert task["status"]["state"] == "failed", task
        assert "A2A_MAX_TASK_BYTES" in task["status"]["message"]["parts"][0]["text"]
        stored = await app.runtime.store.get_task(task["id"])
        assert len(json.dumps(stored.task.model_dump())) < TASK_BOUND + 1000
