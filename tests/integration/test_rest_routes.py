"""The HTTP+JSON/REST transport on the wire: routes, verbs, bodies, query parameters, status
codes and the error body, SSE framing, and the card's interfaces.

Spec references: §3.2.3 (HTTP verbs, the URL patterns, `application/json`, status codes that
correspond to A2A errors, a consistent JSON error format), §3.3.3 (REST streaming is SSE),
§3.5.6 (the method table), §5.6.2 (additionalInterfaces lists every transport), §7.3 REST
(`historyLength` query parameter), §7.4 (tasks/list filters), a2a.proto's `google.api.http`
options. What this server promises beyond that (status of each error, the error body, the
accepted body forms, proto3 defaults) is documented in `a2a_serverless/v03/rest.py`; the
same behaviour over both transports is tested in test_transport_equivalence.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless.errors import TaskNotFoundError
from tests.integration.jsonrpc_agents import scripted, streamer
from tests.integration.test_transport_equivalence import PASSPORT, extended, parse_rest_sse

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
JSON_HEADERS = {"content-type": "application/json"}
WEBHOOK = "https://hooks.example.com/a2a"


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


@pytest.fixture
async def streaming(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(streamer, **FAST) as (client, _app):
        yield client


_counter = 0


def message(text: str, **fields: Any) -> dict[str, Any]:
    global _counter
    _counter += 1
    body = {"messageId": f"rest-{_counter}", "role": "ROLE_USER", "content": [{"text": text}]}
    return body | fields


async def send(
    client: httpx.AsyncClient, text: str, *, blocking: bool = True, **fields: Any
) -> dict[str, Any]:
    body = {"message": message(text, **fields), "configuration": {"blocking": blocking}}
    response = await client.post("/v1/message:send", json=body)
    assert response.status_code == 200, response.text
    return response.json()["task"]  # type: ignore[no-any-return]


def check_error(
    response: httpx.Response, status: int, code: int, reason: str | None = None
) -> dict[str, Any]:
    """The REST error body: {"error": {code, status, message, data?}} with the right status."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"], body
    error: dict[str, Any] = body["error"]
    assert {"code", "status", "message"} <= set(error) <= {"code", "status", "message", "data"}
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    if reason is not None:
        assert error["status"] == reason
    return error


# --- the card --------------------------------------------------------------------------------


async def test_card_lists_both_interfaces(client: httpx.AsyncClient) -> None:
    card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["preferredTransport"] == "JSONRPC"
    assert card["url"] == "http://testserver/"
    assert card["additionalInterfaces"] == [
        {"transport": "JSONRPC", "url": "http://testserver/"},
        {"transport": "HTTP+JSON", "url": "http://testserver"},
    ]


@pytest.mark.parametrize(
    ("settings", "root_path", "jsonrpc_url", "rest_url"),
    [
        ({}, "/agents/echo", "http://testserver/agents/echo/", "http://testserver/agents/echo"),
        ({"rpc_path": "/rpc"}, "", "http://testserver/rpc", "http://testserver"),
        (
            {"public_url": "https://a.example.com/prod/"},
            "/mount",
            "https://a.example.com/prod/",
            "https://a.example.com/prod",
        ),
    ],
    ids=["mounted", "rpc-path", "public-url"],
)
async def test_rest_url_is_the_base_the_rest_client_appends_v1_to(
    make_client: Any, settings: dict[str, Any], root_path: str, jsonrpc_url: str, rest_url: str
) -> None:
    async with make_client(scripted, **FAST, **settings) as (_plain, app):
        transport = httpx.ASGITransport(app=app, root_path=root_path)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            card = (await client.get(f"{root_path}/.well-known/agent-card.json")).json()
            interfaces = {i["transport"]: i["url"] for i in card["additionalInterfaces"]}
            assert interfaces == {"JSONRPC": jsonrpc_url, "HTTP+JSON": rest_url}
            assert card["url"] == jsonrpc_url
            if "public_url" in settings:
                return
            # The SDK's RestTransport: url.rstrip("/") + "/v1/message:send".
            body = {"message": message("via the card"), "configuration": {"blocking": True}}
            response = await client.post(rest_url.rstrip("/") + "/v1/message:send", json=body)
            assert response.status_code == 200, response.text
            assert response.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


# --- routes and verbs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/v1",
        "/v1/",
        "/v1/nothing",
        "/v1/message:sendit",
        "/v1/message",
        "/v1/tasks/",
        "/v1/tasks//pushNotificationConfigs",
        "/v1/tasks/t/pushNotificationConfigs/",
        "/v1/tasks/t/other",
        "/v1/tasks/t/pushNotificationConfigs/c/more",
        # (/v2/tasks is A2A 1.0's ListTasks of tenant "v2": tests/integration/test_v10_rest.py)
        "/v2/nothing",
    ],
)
async def test_unknown_routes_are_404(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    if path.startswith("/v1"):
        error = check_error(response, 404, -32601, "Not Found")
        assert error["data"] == {"method": "GET", "path": path}
    else:
        assert response.status_code == 404  # not REST at all: the app's plain 404


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/v1/message:send", "POST"),
        ("DELETE", "/v1/message:stream", "POST"),
        ("POST", "/v1/tasks", "GET"),
        ("PUT", "/v1/tasks/t-1", "GET"),
        ("GET", "/v1/tasks/t-1:cancel", "POST"),
        ("DELETE", "/v1/tasks/t-1:subscribe", "GET, POST"),
        ("DELETE", "/v1/tasks/t-1/pushNotificationConfigs", "GET, POST"),
        ("POST", "/v1/tasks/t-1/pushNotificationConfigs/c", "GET, DELETE"),
        ("POST", "/v1/card", "GET"),
        ("HEAD", "/v1/tasks", "GET"),
    ],
)
async def test_wrong_verb_is_405_with_allow(
    client: httpx.AsyncClient, method: str, path: str, allow: str
) -> None:
    response = await client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    if method != "HEAD":
        error = check_error(response, 405, -32601, "Method Not Allowed")
        assert error["data"]["allowed"] == allow.split(", ")


async def test_a_task_id_with_a_colon_is_an_id_unless_the_suffix_is_a_verb(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/v1/tasks/a:b")
    error = check_error(response, 404, -32001)
    assert error["data"] == {"taskId": "a:b"}


async def test_extended_card_is_not_configured(client: httpx.AsyncClient) -> None:
    check_error(await client.get("/v1/card"), 404, -32007, "Not Found")


# --- bodies --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"]
)
async def test_a_body_that_is_not_json_is_415(
    client: httpx.AsyncClient, content_type: str | None
) -> None:
    body = json.dumps({"message": message("hi")})
    headers = {} if content_type is None else {"content-type": content_type}
    response = await client.post("/v1/message:send", content=body, headers=headers)
    error = check_error(response, 415, -32600, "Unsupported Media Type")
    assert error["data"]["expected"] == "application/json"


async def test_json_with_parameters_is_fine(client: httpx.AsyncClient) -> None:
    body = json.dumps({"message": message("hi"), "configuration": {"blocking": True}})
    headers = {"content-type": "Application/JSON; charset=utf-8"}
    response = await client.post("/v1/message:send", content=body, headers=headers)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("content", "status", "code"),
    [
        (b"", 400, -32602),
        (b"   ", 400, -32602),
        (b"{not json", 400, -32700),
        (b"\xff\xfe", 400, -32700),
        (b"[1, 2]", 400, -32602),
        (b'"text"', 400, -32602),
        (b"{}", 400, -32602),
        (b'{"message": {"messageId": "m", "role": "ROLE_USER", "content": []}}', 400, -32602),
        (
            b'{"message": {"messageId": "m", "role": "user", "content": [{"text": "x"}]}}',
            400,
            -32602,
        ),
    ],
)
async def test_bad_bodies(
    client: httpx.AsyncClient, content: bytes, status: int, code: int
) -> None:
    response = await client.post("/v1/message:send", content=content, headers=JSON_HEADERS)
    check_error(response, status, code, "Bad Request")


async def test_invalid_params_name_the_field(client: httpx.AsyncClient) -> None:
    body = {"message": {"role": "ROLE_USER", "content": [{"text": "x"}]}}
    error = check_error(await client.post("/v1/message:send", json=body), 400, -32602)
    assert error["data"]["errors"] == [{"field": "message.messageId", "message": "Field required"}]
    body = {"message": message("x") | {"content": [{"text": "x", "file": {}}]}}
    error = check_error(await client.post("/v1/message:send", json=body), 400, -32602)
    assert error["data"]["errors"][0]["field"] == "message.parts.0"


async def test_body_over_the_limit_is_413(make_client: Any) -> None:
    async with make_client(scripted, max_body_bytes=200, **FAST) as (client, _app):
        body = {"message": message("x" * 500)}
        error = check_error(await client.post("/v1/message:send", json=body), 413, -32600)
        assert error["status"] == "Content Too Large" or error["status"].endswith("Too Large")


# --- message:send ----------------------------------------------------------------------------


async def test_send_blocking_returns_the_task_in_proto_json(client: httpx.AsyncClient) -> None:
    body = {
        "message": message("hello", metadata={"a": 1}),
        "configuration": {"blocking": True},
        "metadata": {"req": True},
    }
    response = await client.post("/v1/message:send", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    reply = response.json()
    assert list(reply) == ["task"]
    task = reply["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["status"]["timestamp"].endswith("Z")
    assert task["artifacts"][0]["parts"] == [{"text": "echo: hello"}]
    assert task["history"][0]["role"] == "ROLE_USER"
    assert task["history"][0]["content"] == [{"text": "hello"}]
    assert task["history"][0]["metadata"] == {"a": 1}
    assert task["metadata"] == {"req": True}
    assert "kind" not in json.dumps(reply)


async def test_send_without_blocking_is_non_blocking_as_in_proto3(
    client: httpx.AsyncClient,
) -> None:
    for body in ({"message": message("ask me")}, {"message": message("ask"), "configuration": {}}):
        response = await client.post("/v1/message:send", json=body)
        assert response.json()["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"


async def test_send_history_length_zero_is_the_whole_history(client: httpx.AsyncClient) -> None:
    # a2a.proto: "if 0, the history will be unlimited" (and 0 is what proto3 leaves out).
    for history_length in (0, None, 1):
        asking = await send(client, "ask me")
        config: dict[str, Any] = {"blocking": True}
        if history_length is not None:
            config["historyLength"] = history_length
        answer = message("Ada", taskId=asking["id"])
        reply = await client.post(
            "/v1/message:send", json={"message": answer, "configuration": config}
        )
        task = reply.json()["task"]
        full = (await client.get(f"/v1/tasks/{asking['id']}")).json()
        assert len(full["history"]) >= 3
        expected = full["history"][-1:] if history_length == 1 else full["history"]
        assert task["history"] == expected, history_length


async def test_send_accepts_the_proto_field_names(client: httpx.AsyncClient) -> None:
    body = {
        "request": {
            "message_id": "snake-1",
            "role": "ROLE_USER",
            "parts": [{"text": "snake"}],
            "context_id": "ctx-snake",
        },
        "configuration": {"blocking": True, "history_length": 5},
    }
    response = await client.post("/v1/message:send", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["task"]["contextId"] == "ctx-snake"


async def test_file_bytes_round_trip_the_sdk_way(make_client: Any) -> None:
    from tests.integration.test_transport_equivalence import omnivore

    async with make_client(omnivore, **FAST) as (client, _app):
        ours = base64.b64encode(b"\x00\x01binary").decode()
        wire = base64.b64encode(ours.encode()).decode()
        part = {"file": {"fileWithBytes": wire, "mimeType": "application/octet-stream"}}
        body = {"message": message("f") | {"content": [part]}, "configuration": {"blocking": 1}}
        check_error(await client.post("/v1/message:send", json=body), 400, -32602)
        body["configuration"] = {"blocking": True}
        task = (await client.post("/v1/message:send", json=body)).json()["task"]
        assert task["history"][0]["content"] == [part]
        stored = await client.post(
            "/",
            json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task["id"]}},
        )
        assert stored.json()["result"]["history"][0]["parts"][0]["file"]["bytes"] == ours


# --- tasks ------------------------------------------------------------------------------------


async def test_get_task_and_history_length(client: httpx.AsyncClient) -> None:
    first = await send(client, "ask me")
    await send(client, "Ada", taskId=first["id"])
    full = (await client.get(f"/v1/tasks/{first['id']}")).json()
    assert full["status"]["state"] == "TASK_STATE_COMPLETED"
    one = (await client.get(f"/v1/tasks/{first['id']}", params={"historyLength": "1"})).json()
    assert one["history"] == full["history"][-1:]
    none = (await client.get(f"/v1/tasks/{first['id']}?history_length=0")).json()
    assert "history" not in none
    for bad in ("abc", "-1", "1.5"):
        error = check_error(
            await client.get(f"/v1/tasks/{first['id']}", params={"historyLength": bad}),
            400,
            -32602,
        )
        assert error["data"]["errors"][0]["field"] == "historyLength"
    error = check_error(await client.get("/v1/tasks/nope"), 404, -32001, "Not Found")
    assert error["data"] == {"taskId": "nope"}


async def test_query_parameters_a_route_does_not_know_are_refused(
    client: httpx.AsyncClient,
) -> None:
    task = await send(client, "hi")
    response = await client.get(f"/v1/tasks/{task['id']}", params={"history": "1", "x": "2"})
    error = check_error(response, 400, -32602)
    assert [e["field"] for e in error["data"]["errors"]] == ["history", "x"]
    error = check_error(await client.get("/v1/tasks?state=TASK_STATE_WORKING"), 400, -32602)
    assert error["data"]["errors"] == [{"field": "state", "message": "Unknown query parameter"}]
    repeated = await client.get("/v1/tasks?pageSize=1&pageSize=2")
    check_error(repeated, 400, -32602)
    # configId belongs to creating a config, not to listing them.
    listing = await client.get(f"/v1/tasks/{task['id']}/pushNotificationConfigs?configId=x")
    check_error(listing, 400, -32602)


async def test_list_filters_in_every_spelling(client: httpx.AsyncClient) -> None:
    done = await send(client, "one", contextId="ctx-1")
    await asyncio.sleep(0.005)
    waiting = await send(client, "ask two", contextId="ctx-2")

    async def ids(query: str) -> list[str]:
        response = await client.get(f"/v1/tasks{query}")
        assert response.status_code == 200, response.text
        return [t["id"] for t in response.json()["tasks"]]

    everything = (await client.get("/v1/tasks")).json()
    assert set(everything) == {"tasks", "nextPageToken", "pageSize", "totalSize"}
    assert everything["nextPageToken"] == "" and everything["totalSize"] == 2
    assert [t["id"] for t in everything["tasks"]] == [waiting["id"], done["id"]]
    for status in ("TASK_STATE_INPUT_REQUIRED", "6", "input-required"):
        assert await ids(f"?status={status}") == [waiting["id"]], status
    assert await ids("?status=TASK_STATE_UNSPECIFIED") == [waiting["id"], done["id"]]
    assert await ids("?contextId=ctx-1") == await ids("?context_id=ctx-1") == [done["id"]]
    page = (await client.get("/v1/tasks?page_size=1")).json()
    assert page["pageSize"] == 1 and page["nextPageToken"]
    assert await ids(f"?pageSize=1&pageToken={page['nextPageToken']}") == [done["id"]]
    with_artifacts = (await client.get("/v1/tasks?includeArtifacts=1&historyLength=1")).json()
    assert [len(t["history"]) for t in with_artifacts["tasks"]] == [1, 1]
    assert with_artifacts["tasks"][0]["artifacts"] == []  # present, even when empty
    assert await ids("?lastUpdatedAfter=0") == [waiting["id"], done["id"]]
    assert await ids("?lastUpdatedTime=2999-01-01T00:00:00Z") == []
    assert await ids("?lastUpdatedTime=2000-01-01T00:00:00%2B02:00") == [waiting["id"], done["id"]]

    check_error(await client.get("/v1/tasks?lastUpdatedTime=soon"), 400, -32602)
    both = "/v1/tasks?lastUpdatedTime=2000-01-01T00:00:00Z&lastUpdatedAfter=0"
    check_error(await client.get(both), 400, -32602)
    error = check_error(await client.get("/v1/tasks?status=TASK_STATE_PENDING"), 400, -32602)
    assert error["data"]["errors"][0]["field"] == "status"
    check_error(await client.get("/v1/tasks?includeArtifacts=maybe"), 400, -32602)
    check_error(await client.get("/v1/tasks?contextId=nowhere"), 404, -32001)


async def test_cancel_bodies(client: httpx.AsyncClient) -> None:
    for body, headers in [
        (b"", JSON_HEADERS),
        (b"{}", JSON_HEADERS),
        (b'{"name": ""}', JSON_HEADERS),
        (None, None),
    ]:
        task = await send(client, "ask me")
        url = f"/v1/tasks/{task['id']}:cancel"
        if body is None:
            response = await client.post(url, json={"name": f"tasks/{task['id']}"})
        else:
            response = await client.post(url, content=body, headers=headers)
        assert response.status_code == 200, response.text
        assert response.json()["status"]["state"] == "TASK_STATE_CANCELLED"
        error = check_error(await client.post(url, json={}), 409, -32002, "Conflict")
        assert error["data"] == {"taskId": task["id"], "state": "canceled"}

    task = await send(client, "ask me")
    url = f"/v1/tasks/{task['id']}:cancel"
    check_error(await client.post(url, json={"name": "tasks/other"}), 400, -32602)
    check_error(await client.post(url, json={"name": "nonsense"}), 400, -32602)
    check_error(
        await client.post(url, content=b"x", headers={"content-type": "text/plain"}), 415, -32600
    )
    check_error(await client.post("/v1/tasks/nope:cancel", json={}), 404, -32001)


# --- streaming -------------------------------------------------------------------------------


async def test_message_stream_sse_framing(streaming: httpx.AsyncClient) -> None:
    body = {"message": message("3 0.01")}
    response = await streaming.post("/v1/message:stream", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    events = parse_rest_sse(response.text)
    ids = [e["id"] for e in events]
    assert all(isinstance(i, int) for i in ids) and ids == sorted(set(ids))
    keys = [next(iter(e["data"])) for e in events]
    assert keys[0] == "task"
    assert set(keys[1:]) == {"statusUpdate", "artifactUpdate"}
    assert all(len(e["data"]) == 1 for e in events)
    last = events[-1]["data"]["statusUpdate"]
    assert last["final"] is True and last["status"]["state"] == "TASK_STATE_COMPLETED"
    for block in response.text.split("\n\n"):
        assert len([line for line in block.split("\n") if line.startswith("data:")]) <= 1


async def test_subscribe_by_get_and_by_post_with_last_event_id(
    streaming: httpx.AsyncClient,
) -> None:
    response = await streaming.post("/v1/message:stream", json={"message": message("3 0.01")})
    events = parse_rest_sse(response.text)
    task_id = events[0]["data"]["task"]["id"]
    url = f"/v1/tasks/{task_id}:subscribe"

    snapshot = parse_rest_sse((await streaming.get(url)).text)
    assert [list(e["data"]) for e in snapshot] == [["task"]]
    for method in ("GET", "POST"):
        replay = await streaming.request(
            method, url, headers={"last-event-id": str(events[1]["id"])}
        )
        assert replay.status_code == 200
        assert parse_rest_sse(replay.text) == events[2:]
    posted = await streaming.post(url, json={"name": f"tasks/{task_id}"})
    assert parse_rest_sse(posted.text) == snapshot
    check_error(await streaming.post(url, json={"name": "tasks/x"}), 400, -32602)
    check_error(await streaming.get(url, headers={"last-event-id": "x"}), 400, -32602)
    check_error(await streaming.get("/v1/tasks/nope:subscribe"), 404, -32001)


async def test_subscribe_follows_a_running_task(streaming: httpx.AsyncClient) -> None:
    task = await send(streaming, "5 0.03", blocking=False)
    response = await streaming.get(f"/v1/tasks/{task['id']}:subscribe")
    events = parse_rest_sse(response.text)
    assert "task" in events[0]["data"]
    last = events[-1]["data"]["statusUpdate"]
    assert last["final"] is True and last["status"]["state"] == "TASK_STATE_COMPLETED"
    stored = (await streaming.get(f"/v1/tasks/{task['id']}")).json()
    seen = [p["text"] for a in events[0]["data"]["task"].get("artifacts", []) for p in a["parts"]]
    seen += [
        p["text"]
        for e in events[1:]
        if "artifactUpdate" in e["data"]
        for p in e["data"]["artifactUpdate"]["artifact"]["parts"]
    ]
    assert "".join(seen) == "".join(p["text"] for p in stored["artifacts"][0]["parts"])


async def test_stream_errors_before_the_stream_are_http_errors(make_client: Any) -> None:
    settings = {**FAST, "streaming": False, "buffered_streams": False}
    async with make_client(streamer, **settings) as (client, _app):
        response = await client.post("/v1/message:stream", json={"message": message("1")})
        error = check_error(response, 400, -32004)
        assert "Streaming is not available" in error["message"]
    async with make_client(streamer, **FAST) as (client, _app):
        body = {"message": message("1", taskId="nope")}
        check_error(await client.post("/v1/message:stream", json=body), 404, -32001)


async def test_an_error_after_the_stream_began_is_an_error_event(make_client: Any) -> None:
    async with make_client(streamer, **FAST) as (client, app):
        store = app.runtime.service.store

        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the store went away")

        store.read_events = broken  # type: ignore[method-assign]
        response = await client.post("/v1/message:stream", json={"message": message("2 0.01")})
        assert response.status_code == 200
        events = parse_rest_sse(response.text)
        assert "task" in events[0]["data"]
        assert events[-1]["event"] == "error"
        assert events[-1]["data"] == {
            "error": {
                "code": -32603,
                "status": "Internal Server Error",
                "message": "Internal error",
            }
        }


async def test_keep_alive_comments(make_client: Any) -> None:
    async with make_client(streamer, keepalive_s=0.05, **FAST) as (client, _app):
        response = await client.post("/v1/message:stream", json={"message": message("1 0.3")})
        assert ": keep-alive" in response.text
        assert parse_rest_sse(response.text)[-1]["data"]["statusUpdate"]["final"] is True


async def test_unexpected_errors_are_500_without_internals(make_client: Any) -> None:
    async with make_client(scripted, **FAST) as (client, app):

        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("secret detail")

        app.runtime.service.get_task = broken  # type: ignore[method-assign]
        response = await client.get("/v1/tasks/x")
        error = check_error(response, 500, -32603, "Internal Server Error")
        assert "secret" not in response.text
        assert error == {
            "code": -32603,
            "status": "Internal Server Error",
            "message": "Internal error",
        }

        async def not_found(*args: Any, **kwargs: Any) -> Any:
            raise TaskNotFoundError(data={"taskId": "x"})

        app.runtime.service.get_task = not_found  # type: ignore[method-assign]
        check_error(await client.get("/v1/tasks/x"), 404, -32001)


# --- push notification configs ---------------------------------------------------------------


async def test_push_config_body_forms(client: httpx.AsyncClient) -> None:
    task = await send(client, "hello")
    tid = task["id"]
    url = f"/v1/tasks/{tid}/pushNotificationConfigs"

    # What the 0.3.26 SDK sends, including its ".../None" name when the config has no id.
    sdk_form = {
        "parent": f"tasks/{tid}",
        "config": {
            "name": f"tasks/{tid}/pushNotificationConfigs/None",
            "pushNotificationConfig": {"url": WEBHOOK, "token": "t0"},
        },
    }
    created = (await client.post(url, json=sdk_form)).json()
    assert created == {
        "name": f"tasks/{tid}/pushNotificationConfigs/{tid}",
        "pushNotificationConfig": {"id": tid, "url": WEBHOOK, "token": "t0"},
    }
    sdk_form["configId"] = "from-config-id"
    # (One config per URL on a task: another config id takes another URL.)
    sdk_form["config"]["pushNotificationConfig"]["url"] = WEBHOOK + "/named"  # type: ignore[index]
    named = (await client.post(url, json=sdk_form)).json()
    assert named["pushNotificationConfig"]["id"] == "from-config-id"

    # The a2a.proto rule (body: "config"): a bare TaskPushNotificationConfig, ?configId=.
    bare = {"pushNotificationConfig": {"url": WEBHOOK + "/q"}}
    queried = (await client.post(f"{url}?configId=from-query", json=bare)).json()
    assert queried["name"] == f"tasks/{tid}/pushNotificationConfigs/from-query"
    inner_id = {"push_notification_config": {"url": WEBHOOK + "/i", "id": "inner", "token": "x"}}
    assert (await client.post(f"{url}?config_id=q", json=inner_id)).json()[
        "pushNotificationConfig"
    ]["id"] == "inner"

    listed = (await client.get(url)).json()
    assert list(listed) == ["configs"]
    assert sorted(c["pushNotificationConfig"]["id"] for c in listed["configs"]) == sorted(
        [tid, "from-config-id", "from-query", "inner"]
    )
    got = (await client.get(f"{url}/inner")).json()
    assert got["pushNotificationConfig"] == {"id": "inner", "url": WEBHOOK + "/i", "token": "x"}
    deleted = await client.delete(f"{url}/inner")
    assert (deleted.status_code, deleted.json()) == (200, {})
    error = check_error(await client.get(f"{url}/inner"), 400, -32602)
    assert error["data"] == {"taskId": tid, "pushNotificationConfigId": "inner"}

    for bad in (
        {"parent": "tasks/other", "config": bare},
        {"parent": 7, "config": bare},
        {"config": {"name": "tasks/other/pushNotificationConfigs/x", **bare}},
        {"name": "tasks/other", **bare},
        {"config": {}},
        {"pushNotificationConfig": {}},
        {"pushNotificationConfig": {"url": WEBHOOK, "token": 5}},
        {"configId": 5, "config": bare},
    ):
        check_error(await client.post(url, json=bad), 400, -32602)
    check_error(await client.post(url, content=b"", headers=JSON_HEADERS), 400, -32602)
    check_error(await client.post("/v1/tasks/nope/pushNotificationConfigs", json=bare), 404, -32001)


async def test_push_not_supported_is_400(make_client: Any) -> None:
    async with make_client(scripted, push_notifications=False, **FAST) as (client, _app):
        task = await send(client, "hi")
        url = f"/v1/tasks/{task['id']}/pushNotificationConfigs"
        body = {"pushNotificationConfig": {"url": WEBHOOK}}
        check_error(await client.post(url, json=body), 400, -32003, "Bad Request")
        check_error(await client.get(url), 400, -32003)
        check_error(await client.get(f"{url}/c"), 400, -32003)
        check_error(await client.delete(f"{url}/c"), 400, -32003)


# --- extensions --------------------------------------------------------------------------------


async def test_extensions_are_activated_and_echoed(make_client: Any) -> None:
    async with make_client(extended, **FAST) as (client, _app):
        body = {"message": message("hi"), "configuration": {"blocking": True}}
        response = await client.post(
            "/v1/message:send", json=body, headers={"X-A2A-Extensions": PASSPORT}
        )
        assert response.headers["x-a2a-extensions"] == PASSPORT
        assert response.json()["task"]["artifacts"][0]["parts"] == [{"text": PASSPORT}]
        plain = await client.get(f"/v1/tasks/{response.json()['task']['id']}")
        assert "x-a2a-extensions" not in plain.headers
        streamed = await client.post(
            "/v1/message:stream",
            json={"message": message("hi")},
            headers={"X-A2A-Extensions": PASSPORT},
        )
        assert streamed.headers["x-a2a-extensions"] == PASSPORT
