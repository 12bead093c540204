"""A2A v1.0 over HTTP+JSON: the proto's routes without `/v1`, each also under `/{tenant}/`.

Mirrors tests/integration/test_v10_jsonrpc.py for the REST binding: negotiation (a request
without `A2A-Version: 1.0` is refused), every route and verb (subscribe on GET and POST), the
`google.rpc.Status` error shape with its ErrorInfo and the spec's HTTP statuses, content types
(`application/a2a+json` in and out, `application/json` in, 415 otherwise), query parameters and
paging, tenants (path and body; owner scoping under any tenant), Last-Event-ID replay, and one
task shared with v0.3 and with JSON-RPC. The official a2a-sdk 1.x client's view is
tests/interop/test_sdk1.py (its HTTP+JSON mode).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import httpx
import pytest

from tests.integration.test_auth_http import ALICE_KEY, AUTH, BOB_KEY, guarded, key
from tests.integration.test_v10_jsonrpc import (
    ERROR_INFO,
    echo,
    rpc,
    sse_results,
    strict,
    v1_message,
)

V10 = {"A2A-Version": "1.0"}
A2A_JSON = "application/a2a+json"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


async def send(
    client: httpx.AsyncClient, text: str, path: str = "/message:send", **fields: Any
) -> Any:
    body = {"message": v1_message({"text": text}), **fields}
    response = await client.post(path, json=body, headers=V10)
    assert response.status_code == 200, response.text
    return response.json()["task"]


def error_of(response: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    """The google.rpc.Status of an error response, checked against its HTTP status and reason."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == A2A_JSON
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == status
    info = error["details"][0]
    assert info["@type"] == ERROR_INFO
    assert info["domain"] == "a2a-protocol.org"
    assert info["reason"] == reason
    return error


# --- negotiation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "1", "1.0.1"])
async def test_version_header_selects_v10(make_client: Any, version: str) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": v1_message({"text": "hi"})}
        response = await client.post("/message:send", json=body, headers={"A2A-Version": version})
        assert response.status_code == 200
        assert response.headers["content-type"] == A2A_JSON
        assert response.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_version_query_parameter_selects_v10(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await send(client, "hi")
        response = await client.get(f"/tasks/{task['id']}?A2A-Version=1.0")
        assert response.json()["id"] == task["id"]


@pytest.mark.parametrize("headers", [{}, {"A2A-Version": ""}, {"A2A-Version": "0.3"}])
async def test_a_request_without_v10_is_refused_pointing_at_the_header(
    make_client: Any, headers: dict[str, str]
) -> None:
    # No version is 0.3 (spec v1.0 §3.6.2), which these routes do not speak.
    async with make_client(echo) as (client, _):
        body = {"message": v1_message({"text": "hi"})}
        response = await client.post("/message:send", json=body, headers=headers)
        error = error_of(response, 400, "VERSION_NOT_SUPPORTED")
        assert error["status"] == "FAILED_PRECONDITION"
        assert "A2A-Version: 1.0" in error["message"] and "/v1/" in error["message"]
        assert json.loads(error["details"][0]["metadata"]["supportedVersions"]) == ["1.0"]


@pytest.mark.parametrize("version", ["2.0", "latest"])
async def test_an_unknown_version_is_refused(make_client: Any, version: str) -> None:
    async with make_client(echo) as (client, _):
        response = await client.get("/tasks", headers={"A2A-Version": version})
        error = error_of(response, 400, "VERSION_NOT_SUPPORTED")
        assert json.loads(error["details"][0]["metadata"]["supportedVersions"]) == ["0.3", "1.0"]


async def test_v03_routes_stay_v03(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]},
                "configuration": {"blocking": True}}  # fmt: skip
        response = await client.post("/v1/message:send", json=body)
        assert response.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert response.headers["content-type"] == "application/json"
        refused = await client.get("/v1/tasks", headers=V10)
        assert refused.status_code == 400


async def test_the_card_lists_http_json_v10_after_jsonrpc_v10(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["supportedInterfaces"] == [
            {"url": "http://testserver/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://testserver", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": "http://testserver/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "http://testserver", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
        ]


# --- messages and tasks ---------------------------------------------------------------------------


async def test_send_returns_the_task_in_v10_shapes(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        parts = [{"text": "hello"}, {"data": [1, "two"]}, {"url": "https://e.com/a.png"}]
        body = {"message": v1_message(*parts)}
        response = await client.post("/message:send", json=body, headers=V10)
        task = response.json()["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert task["artifacts"][0]["parts"] == parts
        assert task["history"][0]["role"] == "ROLE_USER"


async def test_return_immediately_then_get_with_history_length(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await send(client, "ask", configuration={"returnImmediately": True})
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
        none = await client.get(f"/tasks/{task['id']}", params={"historyLength": 0}, headers=V10)
        assert "history" not in none.json()
        full = (await client.get(f"/tasks/{task['id']}", headers=V10)).json()
        assert full["history"][0]["parts"] == [{"text": "ask"}]
        # The proto field name is taken too.
        snake = await client.get(f"/tasks/{task['id']}?history_length=0", headers=V10)
        assert "history" not in snake.json()


async def test_stream_is_sse_of_stream_responses(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": v1_message({"text": "hi"})}
        response = await client.post("/message:stream", json=body, headers=V10)
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_results(response.text)
        assert list(events[0]) == ["task"]
        assert [next(iter(e)) for e in events[1:]] == [
            "statusUpdate",
            "artifactUpdate",
            "statusUpdate",
        ]
        assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        ids = [int(line[4:]) for line in response.text.splitlines() if line.startswith("id: ")]
        assert len(ids) == len(events) and ids == sorted(ids)
        # Last-Event-ID: the same message again resumes after the event named.
        again = await client.post(
            "/message:stream", json=body, headers={**V10, "Last-Event-ID": str(ids[1])}
        )
        assert sse_results(again.text) == events[2:]


async def test_subscribe_on_get_and_post(make_client: Any) -> None:
    # A subscription to a waiting task stays open until the task finishes (1.0 §3.1.6): a
    # short stream timeout ends each one after its snapshot.
    async with make_client(echo, stream_timeout_s=0.3) as (client, _):
        task = await send(client, "ask")
        for method in ("GET", "POST"):
            response = await client.request(method, f"/tasks/{task['id']}:subscribe", headers=V10)
            [event] = sse_results(response.text)
            assert event["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        # A body naming the same task is fine; another task is refused.
        same = await client.post(
            f"/tasks/{task['id']}:subscribe", json={"id": task["id"]}, headers=V10
        )
        assert same.status_code == 200
        other = await client.post(f"/tasks/{task['id']}:subscribe", json={"id": "x"}, headers=V10)
        error_of(other, 400, "INVALID_PARAMS")


async def test_subscribe_refuses_a_finished_task(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await send(client, "hi")
        response = await client.get(f"/tasks/{task['id']}:subscribe", headers=V10)
        error = error_of(response, 400, "UNSUPPORTED_OPERATION")
        assert error["status"] == "FAILED_PRECONDITION"


async def test_cancel_with_and_without_a_body(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        first = await send(client, "ask")
        empty = {**V10, "content-type": "application/a2a+json"}
        canceled = await client.post(f"/tasks/{first['id']}:cancel", headers=empty)
        assert canceled.json()["status"]["state"] == "TASK_STATE_CANCELED"
        second = await send(client, "ask")
        body = {"id": second["id"], "metadata": {"why": "test"}}
        canceled = await client.post(f"/tasks/{second['id']}:cancel", json=body, headers=V10)
        assert canceled.json()["status"]["state"] == "TASK_STATE_CANCELED"
        again = await client.post(f"/tasks/{second['id']}:cancel", json={}, headers=V10)
        error = error_of(again, 400, "TASK_NOT_CANCELABLE")
        assert error["status"] == "FAILED_PRECONDITION"


async def test_list_tasks_with_filters_and_pages(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        done = await send(client, "hi")
        # Newest status first, ties broken by task id: make the two statuses a few ms apart.
        await asyncio.sleep(0.01)
        waiting = await send(client, "ask")
        page = (await client.get("/tasks", params={"pageSize": 1}, headers=V10)).json()
        assert [t["id"] for t in page["tasks"]] == [waiting["id"]]
        assert page["pageSize"] == 1 and page["totalSize"] == 2
        rest = await client.get(
            "/tasks", params={"pageSize": 1, "pageToken": page["nextPageToken"]}, headers=V10
        )
        assert [t["id"] for t in rest.json()["tasks"]] == [done["id"]]
        assert rest.json()["nextPageToken"] == ""
        query = {"status": "TASK_STATE_INPUT_REQUIRED", "includeArtifacts": "true"}
        filtered = (await client.get("/tasks", params=query, headers=V10)).json()
        assert [t["id"] for t in filtered["tasks"]] == [waiting["id"]]
        by_context = await client.get(
            "/tasks", params={"context_id": done["contextId"]}, headers=V10
        )
        assert [t["id"] for t in by_context.json()["tasks"]] == [done["id"]]
        later = await client.get(
            "/tasks", params={"statusTimestampAfter": "2999-01-01T00:00:00Z"}, headers=V10
        )
        assert later.json()["tasks"] == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"pageSize": "many"}, "pageSize"),
        ({"pageSize": "0"}, "pageSize"),
        ({"includeArtifacts": "maybe"}, "includeArtifacts"),
        ({"status": "working"}, "status"),
        ({"statusTimestampAfter": "yesterday"}, "statusTimestampAfter"),
        ({"contextid": "x"}, "contextid"),
        ({"pageSize": ["1", "2"]}, "pageSize"),
    ],
)
async def test_bad_query_parameters_are_400_naming_the_field(
    make_client: Any, query: dict[str, Any], field: str
) -> None:
    async with make_client(echo) as (client, _):
        response = await client.get("/tasks", params=query, headers=V10)
        error = error_of(response, 400, "INVALID_PARAMS")
        assert error["status"] == "INVALID_ARGUMENT"
        assert error["details"][1]["@type"] == BAD_REQUEST
        assert [v["field"] for v in error["details"][1]["fieldViolations"]] == [field]


async def test_push_configs_create_get_list_paged_delete(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        task = await send(client, "ask")
        base = f"/tasks/{task['id']}/pushNotificationConfigs"
        made = []
        for n in range(3):
            config = {
                "id": f"c{n}",
                "url": f"https://hooks.example.com/{n}",
                "token": f"t{n}",
                "authentication": {"scheme": "Bearer", "credentials": "secret"},
            }
            if n == 0:
                config["taskId"] = task["id"]  # the body may repeat the path's task
            response = await client.post(base, json=config, headers=V10)
            assert response.status_code == 200, response.text
            made.append(response.json())
        assert made[0] == {
            "taskId": task["id"],
            "id": "c0",
            "url": "https://hooks.example.com/0",
            "token": "t0",
            "authentication": {"scheme": "Bearer", "credentials": "secret"},
        }
        assert (await client.get(f"{base}/c1", headers=V10)).json() == made[1]
        page = (await client.get(base, params={"pageSize": 2}, headers=V10)).json()
        assert page["configs"] == made[:2]
        rest = await client.get(
            base, params={"pageSize": 2, "pageToken": page["nextPageToken"]}, headers=V10
        )
        assert rest.json() == {"configs": made[2:], "nextPageToken": ""}
        deleted = await client.delete(f"{base}/c0", headers=V10)
        assert deleted.status_code == 200 and deleted.json() == {}
        missing = await client.get(f"{base}/c0", headers=V10)
        # Spec 1.0 §3.1.8: a config that does not exist is TaskNotFoundError (it was invalid
        # params, which 0.3 keeps); deleting it again is still a success (§3.1.10: idempotent).
        error_of(missing, 404, "TASK_NOT_FOUND")
        again = await client.delete(f"{base}/c0", headers=V10)
        assert again.status_code == 200 and again.json() == {}
        other_task = {"taskId": "another", "url": "https://hooks.example.com/x"}
        error_of(await client.post(base, json=other_task, headers=V10), 400, "INVALID_PARAMS")
        # One set of configs for both versions and both bindings.
        v03 = await client.post(
            "/", json=rpc("tasks/pushNotificationConfig/list", {"id": task["id"]})
        )
        assert [c["pushNotificationConfig"]["id"] for c in v03.json()["result"]] == ["c1", "c2"]


async def test_extended_card_not_declared_is_unsupported_operation(make_client: Any) -> None:
    # Spec 1.0 §3.3.4, as over JSON-RPC (it was EXTENDED_AGENT_CARD_NOT_CONFIGURED).
    async with make_client(echo) as (client, _):
        response = await client.get("/extendedAgentCard", headers=V10)
        error_of(response, 400, "UNSUPPORTED_OPERATION")


# --- errors and content types -----------------------------------------------------------------


async def test_unknown_task_is_a_google_rpc_status(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        response = await client.get("/tasks/nope", headers=V10)
        assert response.status_code == 404
        assert response.headers["content-type"] == A2A_JSON
        assert response.json() == {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "Task not found",
                "details": [
                    {
                        "@type": ERROR_INFO,
                        "reason": "TASK_NOT_FOUND",
                        "domain": "a2a-protocol.org",
                        "metadata": {"taskId": "nope"},
                    }
                ],
            }
        }


@pytest.mark.parametrize(
    ("part", "field"),
    [
        ({"text": "a", "url": "https://x"}, "message.parts.0"),
        ({"raw": "no!"}, "message.parts.0.raw"),
    ],
)
async def test_bad_parts_are_400_with_field_violations(
    make_client: Any, part: dict[str, Any], field: str
) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": v1_message(part)}
        response = await client.post("/message:send", json=body, headers=V10)
        error = error_of(response, 400, "INVALID_PARAMS")
        assert [v["field"] for v in error["details"][1]["fieldViolations"]] == [field]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/message:send", "POST"),
        ("DELETE", "/tasks/t", "GET"),
        ("PUT", "/tasks/t/pushNotificationConfigs", "GET, POST"),
        ("POST", "/acme/extendedAgentCard", "GET"),
    ],
)
async def test_wrong_verb_is_405_with_allow(
    make_client: Any, method: str, path: str, allowed: str
) -> None:
    async with make_client(echo) as (client, _):
        response = await client.request(method, path, headers=V10)
        error = error_of(response, 405, "METHOD_NOT_FOUND")
        assert error["status"] == "UNIMPLEMENTED"
        assert response.headers["allow"] == allowed


async def test_no_such_route_is_404(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        for path in ("/nothing", "/a/b/c", "/tasks/t/other", "/tasks//pushNotificationConfigs"):
            # A 1.0 client gets 1.0's error form even where no route matched.
            error = error_of(await client.get(path, headers=V10), 404, "METHOD_NOT_FOUND")
            assert error["status"] == "NOT_FOUND"
            # Without the header it is whatever any other unknown path gets.
            plain = await client.get(path)
            assert (plain.status_code, plain.json()) == (404, {"error": "not found"})


async def test_wrong_verb_on_the_jsonrpc_and_card_paths_is_405_with_allow(
    make_client: Any,
) -> None:
    async with make_client(echo) as (client, _):
        for method, path, allowed in (
            ("GET", "/", "POST"),
            ("POST", "/.well-known/agent-card.json", "GET, HEAD"),
        ):
            error = error_of(
                await client.request(method, path, headers=V10), 405, "METHOD_NOT_FOUND"
            )
            assert error["status"] == "UNIMPLEMENTED"
            plain = await client.request(method, path)
            assert plain.status_code == 405
            for response_headers in (
                (await client.request(method, path, headers=V10)).headers,
                plain.headers,
            ):
                assert response_headers["allow"] == allowed


@pytest.mark.parametrize(
    "content_type", [A2A_JSON, "application/json", "application/a2a+json; charset=utf-8"]
)
async def test_json_bodies_of_either_media_type_are_taken(
    make_client: Any, content_type: str
) -> None:
    async with make_client(echo) as (client, _):
        body = json.dumps({"message": v1_message({"text": "hi"})})
        response = await client.post(
            "/message:send", content=body, headers={**V10, "Content-Type": content_type}
        )
        assert response.status_code == 200, response.text


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
async def test_other_media_types_are_415(make_client: Any, content_type: str) -> None:
    async with make_client(echo) as (client, _):
        body = json.dumps({"message": v1_message({"text": "hi"})})
        response = await client.post(
            "/message:send", content=body, headers={**V10, "Content-Type": content_type}
        )
        error = error_of(response, 415, "INVALID_REQUEST")
        assert "application/a2a+json" in error["message"]


@pytest.mark.parametrize(
    ("body", "status"),
    [(b"{not json", 400), (b"[1, 2]", 400), (b"", 400), (b'{"message": {"a": NaN}}', 400)],
)
async def test_bad_bodies_are_4xx_never_500(make_client: Any, body: bytes, status: int) -> None:
    async with make_client(echo) as (client, _):
        response = await client.post(
            "/message:send", content=body, headers={**V10, "Content-Type": A2A_JSON}
        )
        assert response.status_code == status, response.text
        assert response.json()["error"]["details"][0]["@type"] == ERROR_INFO


async def test_a_body_over_the_limit_is_413(make_client: Any) -> None:
    async with make_client(echo, max_body_bytes=1000) as (client, _):
        body = {"message": v1_message({"text": "x" * 2000})}
        response = await client.post("/message:send", json=body, headers=V10)
        error = error_of(response, 413, "INVALID_REQUEST")
        assert error["details"][0]["metadata"]["limit"] == "max_body_bytes"


async def test_required_extension_and_its_header(make_client: Any) -> None:
    async with make_client(strict) as (client, _):
        body = {"message": v1_message({"text": "hi"})}
        response = await client.post("/message:send", json=body, headers=V10)
        error_of(response, 400, "EXTENSION_SUPPORT_REQUIRED")
        uri = "https://example.com/ext/v1"
        response = await client.post(
            "/message:send", json=body, headers={**V10, "A2A-Extensions": uri}
        )
        assert "task" in response.json()
        assert response.headers["a2a-extensions"] == uri


# --- tenants -------------------------------------------------------------------------------------


async def test_every_route_is_served_under_a_tenant(make_client: Any) -> None:
    # Short streams: a subscription to the waiting task stays open until it times out.
    async with make_client(echo, stream_timeout_s=0.3) as (client, _):
        task = await send(client, "ask", path="/acme/message:send")
        task_id = task["id"]
        got = await client.get(f"/acme/tasks/{task_id}", headers=V10)
        assert got.json()["id"] == task_id
        listed = await client.get("/acme/tasks", headers=V10)
        assert [t["id"] for t in listed.json()["tasks"]] == [task_id]
        config = {"url": "https://hooks.example.com/t", "id": "c"}
        base = f"/acme/tasks/{task_id}/pushNotificationConfigs"
        assert (await client.post(base, json=config, headers=V10)).status_code == 200
        assert (await client.get(f"{base}/c", headers=V10)).json()["id"] == "c"
        assert (await client.get(base, headers=V10)).json()["configs"][0]["id"] == "c"
        assert (await client.delete(f"{base}/c", headers=V10)).status_code == 200
        snapshot = await client.get(f"/acme/tasks/{task_id}:subscribe", headers=V10)
        assert sse_results(snapshot.text)[0]["task"]["id"] == task_id
        stream = await client.post(
            "/acme/message:stream", json={"message": v1_message({"text": "hi"})}, headers=V10
        )
        assert list(sse_results(stream.text)[0]) == ["task"]
        card = await client.get("/acme/extendedAgentCard", headers=V10)
        error_of(card, 400, "UNSUPPORTED_OPERATION")
        canceled = await client.post(f"/acme/tasks/{task_id}:cancel", json={}, headers=V10)
        assert canceled.json()["status"]["state"] == "TASK_STATE_CANCELED"


async def test_a_tenant_does_not_partition_one_owners_tasks(make_client: Any) -> None:
    # The tenant routes; tasks are the owner's, whichever tenant names them (and none).
    async with make_client(echo) as (client, _):
        task = await send(client, "ask", path="/acme/message:send", tenant="acme")
        for path in (f"/other/tasks/{task['id']}", f"/tasks/{task['id']}"):
            assert (await client.get(path, headers=V10)).json()["id"] == task["id"]


async def test_path_and_body_tenants_must_agree(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": v1_message({"text": "hi"}), "tenant": "globex"}
        response = await client.post("/acme/message:send", json=body, headers=V10)
        error = error_of(response, 400, "INVALID_PARAMS")
        assert error["details"][1]["fieldViolations"][0]["field"] == "tenant"
        # A body tenant alone is taken.
        assert (await client.post("/message:send", json=body, headers=V10)).status_code == 200


async def test_no_tenant_reaches_another_owners_tasks(make_client: Any) -> None:
    async with make_client(guarded, **AUTH) as (client, _):
        body = {"message": v1_message({"text": "hi"})}
        made = await client.post(
            "/alice/message:send", json=body, headers={**V10, **key(ALICE_KEY)}
        )
        task_id = made.json()["task"]["id"]
        for tenant in ("/alice", "/bob", ""):
            bob = await client.get(f"{tenant}/tasks/{task_id}", headers={**V10, **key(BOB_KEY)})
            error_of(bob, 404, "TASK_NOT_FOUND")
            listed = await client.get(f"{tenant}/tasks", headers={**V10, **key(BOB_KEY)})
            assert listed.json()["tasks"] == []
        alice = await client.get(f"/bob/tasks/{task_id}", headers={**V10, **key(ALICE_KEY)})
        assert alice.json()["id"] == task_id


async def test_authentication_failures_are_google_rpc_status(make_client: Any) -> None:
    async with make_client(guarded, **AUTH) as (client, _):
        response = await client.get("/tasks", headers=V10)
        error = error_of(response, 401, "PERMISSION_DENIED")
        assert error["status"] == "UNAUTHENTICATED"
        assert "www-authenticate" in response.headers
        card = await client.get("/extendedAgentCard", headers={**V10, **key(ALICE_KEY)})
        assert card.status_code == 200
        assert [s["id"] for s in card.json()["skills"]] == ["guarded", "secret"]
        assert card.headers["cache-control"] == "private, no-store"


# --- one task, every binding ------------------------------------------------------------------


async def test_a_task_made_over_v03_rest_is_continued_over_v10_rest(make_client: Any) -> None:
    async with make_client(echo) as (client, _):
        body = {"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "ask"}]},
                "configuration": {"blocking": True}}  # fmt: skip
        made = (await client.post("/v1/message:send", json=body)).json()["task"]
        task_id, context_id = made["id"], made["contextId"]
        got = (await client.get(f"/tasks/{task_id}", headers=V10)).json()
        assert got["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        more = v1_message({"text": "more"}, taskId=task_id, contextId=context_id)
        done = await client.post("/message:send", json={"message": more}, headers=V10)
        assert done.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        # JSON-RPC v1.0 and v0.3 REST read the same task.
        over_rpc = await client.post("/", json=rpc("GetTask", {"id": task_id}), headers=V10)
        assert over_rpc.json()["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
        v03 = (await client.get(f"/v1/tasks/{task_id}")).json()
        assert v03["status"]["state"] == "TASK_STATE_COMPLETED"


# --- cold start -----------------------------------------------------------------------------------

V03_ONLY = """
import asyncio, json, sys
from a2a_serverless import Settings, agent, create_app

@agent(name="Echo", description="d")
def echo(text: str) -> str:
    return text

app = create_app(echo, Settings(store_url="memory://"))

async def call(method, path, body=b""):
    messages = [{"type": "http.request", "body": body}]
    sent = []
    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}
    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": method, "path": path, "query_string": b"",
             "headers": [(b"content-type", b"application/json")]}
    await app(scope, receive, send)
    return sent[0]["status"]

async def main():
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t"}}
    statuses = [await call("POST", "/", json.dumps(body).encode()),
                await call("GET", "/v1/tasks/t"), await call("GET", "/favicon.ico")]
    v1 = sorted(m for m in sys.modules if m.startswith("a2a_serverless.v10"))
    print(json.dumps({"statuses": statuses, "v1": v1}))

asyncio.run(main())
"""


def test_a_v03_deployment_never_imports_the_v10_binding() -> None:
    out = subprocess.run(
        [sys.executable, "-c", V03_ONLY], capture_output=True, text=True, check=True, timeout=60
    )
    result = json.loads(out.stdout.splitlines()[-1])
    assert result == {"statuses": [200, 404, 404], "v1": []}
