"""Streams on a platform that buffers responses (API Gateway + Mangum), with buffered streams on.

`buffered_streams=True` answers message/stream and tasks/resubscribe with one SSE body holding
what happened within `blocking_timeout_s`; what happens later arrives by push notification (or
tasks/get). The card then says `streaming: true`: spec 1.0 §3.3.4 makes a server whose card
says `false` refuse streams. By default (`buffered_streams=False`) they are refused (tested in
test_jsonrpc_errors.py, test_rest_routes.py and test_v10_musts.py).
"""

from __future__ import annotations

from typing import Any

from tests.integration.jsonrpc_agents import (
    eventually,
    parse_sse,
    result_of,
    stream,
    streamer,
    user_message,
)

BUFFERED = {
    "streaming": False,
    "buffered_streams": True,
    "blocking_timeout_s": 3.0,
    "poll_interval_s": 0.02,
    "stream_timeout_s": 60.0,
    "keepalive_s": 0.01,
}


async def test_card_says_streaming_as_streams_are_served(make_client: Any) -> None:
    # It said `false` while serving them: the card must not deny what the server does.
    async with make_client(streamer, **BUFFERED) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["capabilities"]["streaming"] is True
    assert card["capabilities"]["pushNotifications"] is True


async def test_a_quick_turn_arrives_whole_in_one_body(make_client: Any) -> None:
    async with make_client(streamer, **BUFFERED) as (client, _app):
        _response, body = await stream(client, "message/stream", {"message": user_message("3 0")})
        assert not body.comments, "no keep-alives in a buffered body"
        results = [event.data["result"] for event in body.events]
        assert results[0]["kind"] == "task"
        assert results[-1]["kind"] == "status-update"
        assert results[-1]["final"] is True
        assert results[-1]["status"]["state"] == "completed"
        chunks = [
            part["text"]
            for r in results
            if r["kind"] == "artifact-update"
            for part in r["artifact"]["parts"]
        ]
        assert "".join(chunks) == "chunk 0;chunk 1;chunk 2;"


async def test_a_long_turn_ends_the_body_at_the_budget_and_goes_on(make_client: Any) -> None:
    async with make_client(streamer, **BUFFERED) as (client, _app):
        # 8 chunks, 0.5 s apart: about 4 s of work against a 3 s budget.
        _response, body = await stream(client, "message/stream", {"message": user_message("8 0.5")})
        results = [event.data["result"] for event in body.events]
        task_id = results[0]["id"]
        assert all(not r.get("final") for r in results), "the body ends before the task does"
        ids = [event.id for event in body.events]
        assert ids == sorted(ids)

        async def completed() -> bool:
            task = await result_of(client, "tasks/get", {"id": task_id})
            return bool(task["status"]["state"] == "completed")

        await eventually(completed, timeout_s=15)

        # Resubscribing from the last id the body carried replays exactly the rest.
        response = await client.post(
            "/",
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tasks/resubscribe",
                "params": {"id": task_id},
            },
            headers={"last-event-id": str(ids[-1])},
        )
        replayed = parse_sse(response.text).events
        rest = [event.data["result"] for event in replayed]
        assert rest[-1]["final"] is True and rest[-1]["status"]["state"] == "completed"
        assert replayed[0].id == ids[-1] + 1


async def test_rest_stream_is_buffered_too(make_client: Any) -> None:
    async with make_client(streamer, **BUFFERED) as (client, _app):
        message = {
            "messageId": "m-rest-1",
            "role": "ROLE_USER",
            "content": [{"text": "2 0"}],
        }
        response = await client.post("/v1/message:stream", json={"message": message})
        assert response.status_code == 200
        events = parse_sse(response.text).events
        assert "task" in events[0].data
        last = events[-1].data
        assert last["statusUpdate"]["final"] is True
        assert last["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
