"""End to end: tasks run, notifications reach a real receiver on loopback, and are genuine."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json

import pytest

from a2a_serverless.models import AuthenticationInfo, Task
from a2a_serverless.push import WebhookVerifier, notification_id

from .conftest import HarnessFactory, JwksServer
from .webhook_server import Received, Reply, WebhookServer


async def test_notification_arrives_signed_and_verifies_against_jwks(
    harness: HarnessFactory, webhook: WebhookServer, jwks_server: JwksServer
) -> None:
    h = await harness(issuer="https://agent.example.com")
    url = webhook.url()
    task_id = await h.send("hello", url, token="secret-token")
    await h.drain()

    [request] = await webhook.wait_for(1)
    completed_seq = (await h.qualifying_seqs(task_id))[-1]
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-a2a-notification-token"] == "secret-token"
    assert request.headers["x-a2a-notification-id"] == notification_id(
        task_id, task_id, completed_seq
    )
    assert request.seq == completed_seq
    assert request.headers["authorization"].startswith("Bearer ")
    body = json.loads(request.body)
    assert body["id"] == task_id and body["kind"] == "task"
    assert body["status"]["state"] == "completed"

    verifier = WebhookVerifier(
        await jwks_server(h.notifier),
        audience=url,
        issuer="https://agent.example.com",
        token="secret-token",
    )
    verified = await verifier.verify(request.headers, request.body)
    assert verified.task_id == task_id
    assert verified.seq == completed_seq
    assert verified.notification_id == request.notification_id
    assert verified.claims["bodySha256"] == hashlib.sha256(request.body).hexdigest()
    assert verified.key_id == h.notifier.keys.current.kid
    assert await h.notifier.dead_letters(task_id) == []


async def test_a_v10_config_gets_a_stream_response_as_a2a_json(
    harness: HarnessFactory, webhook: WebhookServer, jwks_server: JwksServer
) -> None:
    # One task, two configs: each gets its notifications in the version it was set in.
    h = await harness(issuer="https://agent.example.com")
    v10_url, v03_url = webhook.url("/v10"), webhook.url("/v03")
    task_id = await h.send("ask", v10_url, config_id="v10", protocol="1.0")
    await h.drain()
    await h.send("go on", v03_url, config_id="v03", task_id=task_id)
    await h.drain()
    requests = await webhook.wait_for(3)
    v10 = [r for r in requests if r.path == "/v10"]
    v03 = [r for r in requests if r.path == "/v03"]
    assert v10 and v03
    for request in v10:
        assert request.headers["content-type"] == "application/a2a+json"
        body = json.loads(request.body)
        assert list(body) == ["task"]
        assert body["task"]["id"] == task_id
        assert body["task"]["status"]["state"].startswith("TASK_STATE_")
        assert "kind" not in body["task"]
    assert json.loads(v10[-1].body)["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    for request in v03:
        assert request.headers["content-type"] == "application/json"
        assert json.loads(request.body)["kind"] == "task"
    # Signed the same way: the receiver helper verifies a v1.0 body as it does a v0.3 one.
    verifier = WebhookVerifier(
        await jwks_server(h.notifier), audience=v10_url, issuer="https://agent.example.com"
    )
    verified = await verifier.verify(v10[-1].headers, v10[-1].body)
    assert verified.task_id == task_id


def test_a_v10_body_over_the_limit_keeps_the_stream_response_shape() -> None:
    from a2a_serverless.push.payload import bounded_body

    task = Task.model_validate({
        "id": "t",
        "contextId": "c",
        "status": {"state": "working", "timestamp": "2026-01-01T00:00:00.000Z"},
        "history": [
            {"messageId": "m", "role": "user", "parts": [{"text": "x" * 5000}]}
        ],
    })  # fmt: skip
    body = json.loads(bounded_body(task, 1000, "1.0"))
    assert body == {
        "task": {
            "id": "t",
            "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-01T00:00:00.000Z"},
        }
    }


# --- reliability ----------------------------------------------------------------------------


async def test_receiver_down_then_up_gets_every_notification_in_order(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness(push_notify_on="all", push_max_attempts=200)
    url = webhook.url()
    await webhook.stop()  # down: connections are refused
    first = await h.send("steps 4", url)
    second = await h.send("steps 2", url)
    await asyncio.sleep(0.4)
    assert webhook.requests == []
    await webhook.start()  # up again, same port
    await h.drain()

    for task_id in (first, second):
        expected = await h.qualifying_seqs(task_id)
        assert len(expected) >= (6 if task_id == first else 4)
        got = [r.seq for r in webhook.notifications() if json.loads(r.body)["id"] == task_id]
        # Every notification arrived, first arrivals in log order (later copies are retries).
        first_seen = list(dict.fromkeys(got))
        assert first_seen == expected
        assert got == sorted(s or 0 for s in got)
        assert await h.notifier.dead_letters(task_id) == []


async def test_always_500_dead_letters_after_n_attempts_while_other_tasks_flow(
    harness: HarnessFactory,
) -> None:
    server = await WebhookServer(
        lambda r: Reply(500, body=b"boom") if r.path == "/broken" else Reply(200)
    ).start()
    try:
        h = await harness(push_max_attempts=3)
        broken = await h.send("hello", server.url("/broken"))
        healthy = [await h.send(f"task {i}", server.url("/ok")) for i in range(3)]
        await h.drain()

        attempts = server.notifications("/broken")
        assert len(attempts) == 3
        assert len({r.notification_id for r in attempts}) == 1  # the same notification, retried
        [letter] = await h.notifier.dead_letters(broken)
        assert letter.attempts == 3
        assert letter.notification_id == attempts[0].notification_id
        assert letter.url == server.url("/broken")
        assert "gave up after 3 attempts" in letter.reason
        assert "HTTP 500 (4 bytes of body)" in letter.reason
        delivered = {json.loads(r.body)["id"] for r in server.notifications("/ok")}
        assert delivered == set(healthy)
    finally:
        await server.stop()


async def test_dead_letter_then_next_notification_is_delivered(harness: HarnessFactory) -> None:
    server = await WebhookServer(
        lambda r: (
            Reply(500) if json.loads(r.body)["status"]["state"] == "input-required" else Reply(200)
        )
    ).start()
    try:
        h = await harness(push_max_attempts=2)
        task_id = await h.send("ask", server.url())
        await h.drain()
        [letter] = await h.notifier.dead_letters(task_id)
        assert letter.attempts == 2
        await h.send("thanks", server.url(), task_id=task_id)
        await h.drain()
        states = [json.loads(r.body)["status"]["state"] for r in server.notifications()]
        assert states == ["input-required", "input-required", "completed"]
    finally:
        await server.stop()


async def test_deadline_dead_letters_even_before_max_attempts(harness: HarnessFactory) -> None:
    server = await WebhookServer(lambda r: Reply(502)).start()
    try:
        h = await harness(push_max_attempts=1000, push_deadline_s=0.3)
        task_id = await h.send("hello", server.url())
        await h.drain()
        [letter] = await h.notifier.dead_letters(task_id)
        assert "deadline of 0.3 s" in letter.reason
        assert "HTTP 502" in letter.reason
        assert 1 <= letter.attempts == len(server.notifications()) < 1000
    finally:
        await server.stop()


async def test_a_timed_out_attempt_is_retried_with_the_same_notification_id(
    harness: HarnessFactory,
) -> None:
    calls = 0

    def reply(_request: Received) -> Reply:
        nonlocal calls
        calls += 1
        # The first copy is received (and maybe processed) but answered too late.
        return Reply(200, delay_s=1.0 if calls == 1 else 0.0)

    server = await WebhookServer(reply).start()
    try:
        h = await harness(push_timeout_s=0.3)
        task_id = await h.send("hello", server.url())
        await h.drain()
        first, second = server.notifications()
        assert first.notification_id == second.notification_id
        assert first.seq == second.seq
        assert first.body == second.body  # the same notification ...
        assert first.headers["authorization"] != second.headers["authorization"]  # new JWT
        assert await h.notifier.dead_letters(task_id) == []
    finally:
        await server.stop()


async def test_a_duplicate_job_is_the_same_notification_and_sent_once(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    task_id = await h.send("hello", webhook.url())
    await h.drain()
    [delivered] = webhook.notifications()
    record = await h.store.get_task(task_id)
    assert record is not None
    # A redelivered job (or a reschedule) after delivery: same id, dropped by the cursor.
    await h.notifier.reschedule(record)
    await h.notifier.on_commit(
        record, [e for e in await h.events(task_id) if e.seq == delivered.seq]
    )
    await h.drain()
    assert webhook.notifications() == [delivered]


async def test_reschedule_sends_what_a_crash_before_enqueue_lost(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    h.runtime.journal.commit_hooks.remove(h.notifier.outbox.on_commit)  # "crash" after every commit
    task_id = await h.send("hello", webhook.url())
    await h.drain()
    assert webhook.requests == []
    record = await h.store.get_task(task_id)
    assert record is not None
    await h.notifier.reschedule(record)
    await h.drain()
    [request] = webhook.notifications()
    assert request.seq == (await h.qualifying_seqs(task_id))[-1]
    assert json.loads(request.body)["status"]["state"] == "completed"


async def test_a_lost_earlier_notification_is_queued_again_and_order_kept(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness(push_notify_on="all")
    h.notifier.stall_s = 0.2
    # Without the config's floor, the notification of `submitted` (seq 1, committed before the
    # config existed) is expected first; it was never queued, so later ones wait, then heal.
    task_id = await h.send("steps 1", webhook.url(), floor=False)
    await h.drain()
    seqs = [r.seq for r in webhook.notifications()]
    assert seqs[0] == 1
    assert list(dict.fromkeys(seqs)) == [1, *await h.qualifying_seqs(task_id)]


async def test_notifications_of_a_deleted_config_are_dropped(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    # A back-off longer than the test's polling, so at most one retry can be in flight when the
    # config goes (with 10 ms, a loaded machine let two through before the deletion).
    h = await harness(push_backoff_base_s=0.2, push_backoff_max_s=0.4)
    webhook.behaviour = lambda r: Reply(503)
    task_id = await h.send("hello", webhook.url())
    await webhook.wait_for(1)
    await h.store.delete_push_config(task_id, task_id)
    await h.notifier.on_config_deleted(task_id, task_id)
    await h.drain()
    assert len(webhook.notifications()) <= 2  # perhaps one retry already in flight
    assert await h.notifier.dead_letters(task_id) == []


async def test_all_mode_notifies_status_and_artifact_events(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness(push_notify_on="all")
    task_id = await h.send("steps 1", webhook.url())
    await h.drain()
    kinds = {type(e.payload).__name__ for e in await h.events(task_id) if e.seq > 1}
    assert {"TaskArtifactUpdateEvent", "TaskStatusUpdateEvent"} <= kinds
    assert [r.seq for r in webhook.notifications()] == await h.qualifying_seqs(task_id)
    # Each notification carries the Task as the write that logged its event left it.
    last = json.loads(webhook.notifications()[-1].body)
    assert last["status"]["state"] == "completed" and last["artifacts"]


async def test_final_mode_notifies_input_required_then_completed(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    task_id = await h.send("ask", webhook.url())
    await h.drain()
    await h.send("the blue one", webhook.url(), task_id=task_id)
    await h.drain()
    states = [json.loads(r.body)["status"]["state"] for r in webhook.notifications()]
    assert states == ["input-required", "completed"]
    assert [r.seq for r in webhook.notifications()] == await h.qualifying_seqs(task_id)


# --- what counts as failure -----------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
async def test_other_4xx_is_not_retried(harness: HarnessFactory, status: int) -> None:
    server = await WebhookServer(lambda r: Reply(status, body=b"nope")).start()
    try:
        h = await harness()
        task_id = await h.send("hello", server.url())
        await h.drain()
        assert len(server.notifications()) == 1
        [letter] = await h.notifier.dead_letters(task_id)
        assert letter.reason == f"HTTP {status} (4 bytes of body)" and letter.attempts == 1
    finally:
        await server.stop()


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
async def test_408_429_and_5xx_are_retried(harness: HarnessFactory, status: int) -> None:
    replies = iter([Reply(status), Reply(status)])
    server = await WebhookServer(lambda r: next(replies, Reply(200))).start()
    try:
        h = await harness()
        task_id = await h.send("hello", server.url())
        await h.drain()
        assert len(server.notifications()) == 3
        assert await h.notifier.dead_letters(task_id) == []
    finally:
        await server.stop()


async def test_redirects_are_not_followed(harness: HarnessFactory) -> None:
    server = await WebhookServer(
        lambda r: (
            Reply(307, {"Location": "http://127.0.0.1:1/elsewhere"})
            if r.path == "/webhook"
            else Reply(200)
        )
    ).start()
    try:
        h = await harness()
        task_id = await h.send("hello", server.url())
        await h.drain()
        assert [r.path for r in server.requests] == ["/webhook"]
        [letter] = await h.notifier.dead_letters(task_id)
        assert "redirects are not followed" in letter.reason
    finally:
        await server.stop()


async def test_retry_after_is_honoured(harness: HarnessFactory) -> None:
    replies = iter([Reply(429, {"Retry-After": "1"})])
    server = await WebhookServer(lambda r: next(replies, Reply(200))).start()
    try:
        h = await harness()  # back-off alone would retry within 0.05 s
        await h.send("hello", server.url())
        await h.drain()
        first, second = server.notifications()
        assert second.at - first.at >= 0.95
    finally:
        await server.stop()


async def test_an_endless_response_is_cut_at_the_size_limit(harness: HarnessFactory) -> None:
    server = await WebhookServer(lambda r: Reply(200, endless=True)).start()
    try:
        h = await harness(push_max_response_bytes=1024, push_timeout_s=5.0)
        task_id = await h.send("hello", server.url())
        loop = asyncio.get_running_loop()
        started = loop.time()
        await h.drain()
        assert loop.time() - started < 2.0
        assert len(server.notifications()) == 1
        assert await h.notifier.dead_letters(task_id) == []
    finally:
        await server.stop()


async def test_a_slow_receiver_is_cut_at_the_timeout(harness: HarnessFactory) -> None:
    server = await WebhookServer(lambda r: Reply(200, delay_s=5.0)).start()
    try:
        h = await harness(push_timeout_s=0.2, push_max_attempts=2)
        task_id = await h.send("hello", server.url())
        await h.drain(timeout=3.0)
        [letter] = await h.notifier.dead_letters(task_id)
        assert "no complete response within 0.2 s" in letter.reason
        assert letter.attempts == 2
    finally:
        await server.stop()


# --- authentication to the receiver ---------------------------------------------------------


async def test_explicit_bearer_credentials_are_used_and_our_jwt_moves_aside(
    harness: HarnessFactory, webhook: WebhookServer, jwks_server: JwksServer
) -> None:
    h = await harness()
    auth = AuthenticationInfo(scheme="Bearer", credentials="client-issued")
    await h.send("hello", webhook.url(), authentication=auth)
    await h.drain()
    [request] = webhook.notifications()
    assert request.headers["authorization"] == "Bearer client-issued"
    verifier = WebhookVerifier(await jwks_server(h.notifier), audience=webhook.url())
    verified = await verifier.verify(request.headers, request.body)  # X-A2A-Notification-JWT
    assert verified.notification_id == request.notification_id


async def test_basic_credentials_are_encoded(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    auth = AuthenticationInfo(scheme="basic", credentials="user:pass")
    await h.send("hello", webhook.url(), authentication=auth)
    await h.drain()
    [request] = webhook.notifications()
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"user:pass").decode()
    assert request.headers["x-a2a-notification-jwt"].count(".") == 2


async def test_schemes_without_credentials_get_our_jwt(
    harness: HarnessFactory, webhook: WebhookServer
) -> None:
    h = await harness()
    auth = AuthenticationInfo(scheme="Bearer")
    await h.send("hello", webhook.url(), authentication=auth)
    await h.drain()
    [request] = webhook.notifications()
    assert request.headers["authorization"].startswith("Bearer ey")
    assert "x-a2a-notification-jwt" not in request.headers
