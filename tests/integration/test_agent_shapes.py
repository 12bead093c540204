"""The agent API end to end: every shape of agent function (and the class-based executor),
driven through JSON-RPC `message/send` (blocking) and `message/stream` on the in-process app.

What a function returns or yields maps onto the task as `function_agent.py` documents; the
tests check the Task a client gets back, the events it streams, and what the agent was given.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from a2a_serverless import (
    Agent,
    AuthRequired,
    Context,
    Failed,
    InputRequired,
    Rejected,
    TaskEnded,
    TaskUpdater,
    agent,
    agent_message,
    progress,
)
from a2a_serverless.models import Artifact, Message, Part, TextPart
from tests.integration.agent_fixtures import (
    FAST,
    check_log,
    events_of,
    get_task,
    rpc,
    send,
    send_params,
    status_text,
    stored,
    stream,
    stream_results,
    texts,
)

# --- what a function returns ----------------------------------------------------------------------


def only_artifact(task: dict[str, Any]) -> dict[str, Any]:
    artifacts = task.get("artifacts") or []
    assert len(artifacts) == 1, artifacts
    artifact: dict[str, Any] = artifacts[0]
    return artifact


async def test_sync_function_returning_str(make_client: Any) -> None:
    @agent(name="Shouter", description="Shouts.")
    def shout(text: str) -> str:
        return text.upper()

    async with make_client(shout, **FAST) as (client, app):
        task = await send(client, "hello there")
        assert task["kind"] == "task"
        assert task["status"]["state"] == "completed"
        artifact = only_artifact(task)
        assert artifact["parts"] == [{"kind": "text", "text": "HELLO THERE"}]
        assert artifact["name"] == "response"
        assert artifact["artifactId"]
        # The history holds the user's message, tied to the task.
        assert [m["role"] for m in task["history"]] == ["user"]
        assert task["history"][0]["taskId"] == task["id"]
        assert task["history"][0]["contextId"] == task["contextId"]
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


async def test_async_function_returning_str(make_client: Any) -> None:
    @agent
    async def echo(text: str) -> str:
        await asyncio.sleep(0)
        return f"echo: {text}"

    async with make_client(echo, **FAST) as (client, _):
        task = await send(client, "ping")
        assert task["status"]["state"] == "completed"
        assert texts(only_artifact(task)["parts"]) == ["echo: ping"]


async def test_returning_a_text_part(make_client: Any) -> None:
    @agent
    def part(text: str) -> TextPart:
        return Part(text="a part", metadata={"k": "v"})

    async with make_client(part, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert only_artifact(task)["parts"] == [
            {"kind": "text", "text": "a part", "metadata": {"k": "v"}}
        ]


async def test_returning_a_list_of_parts(make_client: Any) -> None:
    @agent
    def parts(text: str) -> list[Any]:
        return [Part(text="one"), Part(data={"n": 2})]

    async with make_client(parts, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert only_artifact(task)["parts"] == [
            {"kind": "text", "text": "one"},
            {"kind": "data", "data": {"n": 2}},
        ]


async def test_returning_a_dict_makes_a_data_part(make_client: Any) -> None:
    @agent
    def data(text: str) -> dict[str, Any]:
        return {"answer": 42, "nested": {"ok": True}}

    async with make_client(data, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert only_artifact(task)["parts"] == [
            {"kind": "data", "data": {"answer": 42, "nested": {"ok": True}}}
        ]


async def test_returning_an_artifact(make_client: Any) -> None:
    @agent
    def report(text: str) -> Artifact:
        return Artifact(
            artifact_id="report-1",
            name="report.txt",
            description="the report",
            parts=[Part(text="all good")],
        )

    async with make_client(report, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert only_artifact(task) == {
            "artifactId": "report-1",
            "name": "report.txt",
            "description": "the report",
            "parts": [{"kind": "text", "text": "all good"}],
        }


async def test_returning_a_list_of_artifacts(make_client: Any) -> None:
    @agent
    def reports(text: str) -> list[Artifact]:
        return [
            Artifact(artifact_id="a", parts=[Part(text="first")]),
            Artifact(artifact_id="b", parts=[Part(data={"second": True})]),
        ]

    async with make_client(reports, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert [a["artifactId"] for a in task["artifacts"]] == ["a", "b"]
        assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "first"}]
        assert task["artifacts"][1]["parts"] == [{"kind": "data", "data": {"second": True}}]


async def test_returning_a_message_completes_with_it_as_status_message(make_client: Any) -> None:
    @agent
    def answer(text: str) -> Message:
        return agent_message("the final word")

    async with make_client(answer, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        status_message = task["status"]["message"]
        assert status_message["role"] == "agent"
        assert texts(status_message["parts"]) == ["the final word"]
        assert "artifacts" not in task
        # The status message also joins the history.
        assert task["history"][-1]["messageId"] == status_message["messageId"]


async def test_returning_none_completes_without_artifacts(make_client: Any) -> None:
    calls: list[str] = []

    @agent
    def quiet(text: str) -> None:
        calls.append(text)

    async with make_client(quiet, **FAST) as (client, _):
        task = await send(client, "shh")
        assert task["status"]["state"] == "completed"
        assert "artifacts" not in task
        assert "message" not in task["status"]
        assert calls == ["shh"]


# --- what a function is given ---------------------------------------------------------------------


async def test_str_parameter_gets_the_message_text(make_client: Any) -> None:
    seen: list[Any] = []

    # The agent declares that it takes JSON too, so the data part is not refused (-32005).
    @agent(input_modes=["text/plain", "application/json"])
    def takes_text(text: str) -> str:
        seen.append(text)
        return "ok"

    async with make_client(takes_text, **FAST) as (client, _):
        parts = [
            {"kind": "text", "text": "line one"},
            {"kind": "data", "data": {"x": 1}},
            {"kind": "text", "text": "line two"},
        ]
        await send(client, parts=parts)
        assert seen == ["line one\nline two"]


async def test_message_parameter_gets_the_message(make_client: Any) -> None:
    seen: list[Any] = []

    @agent
    async def takes_message(message: Message) -> str:
        seen.append(message)
        return "ok"

    async with make_client(takes_message, **FAST) as (client, _):
        task = await send(client, "hi", message_id="msg-123")
        [message] = seen
        assert isinstance(message, Message)
        assert message.message_id == "msg-123"
        assert message.role == "user"
        assert message.task_id == task["id"]
        assert message.context_id == task["contextId"]


async def test_context_parameter_gets_the_context(make_client: Any) -> None:
    seen: list[Any] = []

    @agent
    def takes_context(ctx: Context) -> str:
        seen.append(ctx)
        return "ok"

    async with make_client(takes_context, **FAST) as (client, _):
        params = send_params("look", context_id="ctx-given")
        params["metadata"] = {"trace": "t-1"}
        params["configuration"] = {"acceptedOutputModes": ["text/plain"]}
        task = (await rpc(client, "message/send", params))["result"]
        [ctx] = seen
        assert isinstance(ctx, Context)
        assert ctx.task_id == task["id"]
        assert ctx.context_id == "ctx-given" == task["contextId"]
        assert ctx.text == "look"
        assert ctx.message.message_id == params["message"]["messageId"]
        assert ctx.metadata == {"trace": "t-1"}
        assert ctx.accepted_output_modes == ["text/plain"]
        assert ctx.is_continuation is False
        assert [m.message_id for m in ctx.history] == [ctx.message.message_id]


async def test_unannotated_parameter_gets_the_context(make_client: Any) -> None:
    seen: list[Any] = []

    @agent
    def untyped(ctx):  # type: ignore[no-untyped-def]
        seen.append(ctx)
        return "ok"

    async with make_client(untyped, **FAST) as (client, _):
        await send(client)
        assert isinstance(seen[0], Context)


async def test_function_without_parameters(make_client: Any) -> None:
    @agent
    def constant() -> str:
        return "always this"

    async with make_client(constant, **FAST) as (client, _):
        task = await send(client, "anything")
        assert task["status"]["state"] == "completed"
        assert texts(only_artifact(task)["parts"]) == ["always this"]


# --- generators -----------------------------------------------------------------------------------


@agent(name="Chunker", description="Streams its answer.")
async def chunker(text: str) -> AsyncIterator[Any]:
    yield progress("thinking about it")
    yield "Hel"
    yield "lo, "
    yield {"as": "data"}
    yield text


async def test_async_generator_streams_progress_and_chunks(make_client: Any) -> None:
    async with make_client(chunker, **FAST) as (client, app):
        events = await stream(client, "world")
        results = stream_results(events)
        # SSE ids are the event log's sequence numbers, increasing; the Task comes first.
        ids = [event_id for event_id, _ in events]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        first, *updates = results
        assert first["kind"] == "task"
        assert first["status"]["state"] == "submitted"
        task_id = first["id"]
        assert all(u["taskId"] == task_id for u in updates)
        assert all(u["contextId"] == first["contextId"] for u in updates)

        kinds = [(u["kind"], u.get("status", {}).get("state")) for u in updates]
        assert kinds == [
            ("status-update", "working"),
            ("status-update", "working"),
            ("artifact-update", None),
            ("artifact-update", None),
            ("artifact-update", None),
            ("artifact-update", None),
            ("artifact-update", None),
            ("status-update", "completed"),
        ]
        progress_update = updates[1]
        assert progress_update["final"] is False
        assert progress_update["status"]["message"]["role"] == "agent"
        assert texts(progress_update["status"]["message"]["parts"]) == ["thinking about it"]

        chunks = updates[2:7]
        artifact_ids = {c["artifact"]["artifactId"] for c in chunks}
        assert len(artifact_ids) == 1
        # The first chunk starts the artifact, the later ones append to it; none says it is
        # the last until the closing chunk after the generator ended.
        assert chunks[0].get("append") in (None, False)
        assert all(c["append"] is True for c in chunks[1:])
        assert all(c["lastChunk"] is False for c in chunks[:4])
        assert chunks[4]["lastChunk"] is True
        assert [c["artifact"]["parts"] for c in chunks[:4]] == [
            [{"kind": "text", "text": "Hel"}],
            [{"kind": "text", "text": "lo, "}],
            [{"kind": "data", "data": {"as": "data"}}],
            [{"kind": "text", "text": "world"}],
        ]
        assert updates[-1]["final"] is True

        # The stored task has one artifact with every chunk's parts, in order.
        task = await get_task(client, task_id)
        assert task["status"]["state"] == "completed"
        artifact = only_artifact(task)
        assert artifact["artifactId"] in artifact_ids
        assert artifact["name"] == "response"
        assert artifact["parts"] == [
            {"kind": "text", "text": "Hel"},
            {"kind": "text", "text": "lo, "},
            {"kind": "data", "data": {"as": "data"}},
            {"kind": "text", "text": "world"},
        ]
        # The progress message is in the history.
        assert [m["role"] for m in task["history"]] == ["user", "agent"]
        check_log(await stored(app, task_id), await events_of(app, task_id))


async def test_async_generator_through_blocking_send(make_client: Any) -> None:
    async with make_client(chunker, **FAST) as (client, _):
        task = await send(client, "there")
        assert task["status"]["state"] == "completed"
        assert texts(only_artifact(task)["parts"]) == ["Hel", "lo, ", "there"]


async def test_generator_yielding_whole_artifacts_and_messages(make_client: Any) -> None:
    @agent
    async def builder(text: str) -> AsyncIterator[Any]:
        yield agent_message("step one")
        yield Artifact(artifact_id="whole", name="whole.txt", parts=[Part(text="all")])

    async with make_client(builder, **FAST) as (client, _):
        updates = stream_results(await stream(client))[1:]
        assert [u["kind"] for u in updates] == [
            "status-update",
            "status-update",
            "artifact-update",
            "status-update",
        ]
        assert texts(updates[1]["status"]["message"]["parts"]) == ["step one"]
        assert updates[1]["status"]["state"] == "working"
        assert updates[2]["artifact"]["artifactId"] == "whole"
        assert updates[2]["lastChunk"] is True
        assert updates[2].get("append") in (None, False)
        assert updates[3]["status"]["state"] == "completed"
        task = await get_task(client, updates[0]["taskId"])
        assert only_artifact(task)["parts"] == [{"kind": "text", "text": "all"}]


async def test_sync_generator(make_client: Any) -> None:
    threads: list[bool] = []

    @agent
    def counter(text: str) -> Iterator[Any]:
        import threading

        threads.append(threading.current_thread() is threading.main_thread())
        yield progress("counting")
        for n in range(3):
            yield str(n)

    async with make_client(counter, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert texts(only_artifact(task)["parts"]) == ["0", "1", "2"]
        assert threads == [False], "a sync generator runs in a worker thread"


async def test_generator_without_chunks_completes_without_artifacts(make_client: Any) -> None:
    @agent
    async def only_progress(text: str) -> AsyncIterator[Any]:
        yield progress("working on it")

    async with make_client(only_progress, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert "artifacts" not in task


# --- outcomes: input-required and continuing the task ---------------------------------------


@pytest.mark.parametrize("how", ["return", "raise", "yield", "sync-generator-raise"])
async def test_input_required(make_client: Any, how: str) -> None:
    if how == "return":

        @agent
        def ask(text: str) -> Any:
            return InputRequired("Which city?")

        the_agent = ask
    elif how == "raise":

        @agent
        async def ask_raising(text: str) -> str:
            raise InputRequired("Which city?")

        the_agent = ask_raising
    elif how == "sync-generator-raise":

        @agent
        def ask_from_sync_generator(text: str) -> Iterator[Any]:
            yield progress("let me see")
            raise InputRequired("Which city?")

        the_agent = ask_from_sync_generator
    else:

        @agent
        async def ask_yielding(text: str) -> AsyncIterator[Any]:
            yield progress("let me see")
            yield InputRequired("Which city?")
            raise AssertionError("not resumed after an outcome")  # pragma: no cover

        the_agent = ask_yielding

    async with make_client(the_agent, **FAST) as (client, app):
        task = await send(client, "book a flight")
        assert task["status"]["state"] == "input-required"
        assert task["status"]["message"]["role"] == "agent"
        assert status_text(task) == "Which city?"
        assert task["history"][-1]["messageId"] == task["status"]["message"]["messageId"]
        record = await stored(app, task["id"])
        assert record.claim is None
        check_log(record, await events_of(app, task["id"]))

        # The stream of a turn that asks for input ends with a final input-required event.
        updates = stream_results(await stream(client, "again"))
        assert updates[-1]["kind"] == "status-update"
        assert updates[-1]["status"]["state"] == "input-required"
        assert updates[-1]["final"] is True


@pytest.mark.parametrize("outcome", [InputRequired, Rejected, Failed])
async def test_sync_generator_returning_an_outcome(make_client: Any, outcome: type[Any]) -> None:
    """A sync generator may `return` a value; function_agent.py says a returned outcome ends
    the turn in its state, so it must not be dropped in favour of `completed`."""

    @agent
    def generator_returning(text: str) -> Iterator[Any]:
        yield "partial answer"
        return outcome("need more")

    async with make_client(generator_returning, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == outcome.state
        assert status_text(task) == "need more"


@agent(name="Booker", description="Asks for the city, then books.")
def booker(ctx: Context) -> Any:
    booker_seen.append(ctx)
    if not ctx.is_continuation:
        return InputRequired("Which city?")
    return f"Booked a flight to {ctx.text}."


booker_seen: list[Context] = []


async def test_continuing_a_task_keeps_context_and_shows_history(make_client: Any) -> None:
    booker_seen.clear()
    async with make_client(booker, **FAST) as (client, app):
        first = await send(client, "book a flight")
        assert first["status"]["state"] == "input-required"

        second = await send(client, "Helsinki", task_id=first["id"])
        assert second["id"] == first["id"]
        assert second["contextId"] == first["contextId"]
        assert second["status"]["state"] == "completed"
        assert texts(only_artifact(second)["parts"]) == ["Booked a flight to Helsinki."]
        assert [m["role"] for m in second["history"]] == ["user", "agent", "user"]
        # The client's answer joined the task's context even though it did not name it.
        assert second["history"][2]["contextId"] == first["contextId"]

        first_ctx, second_ctx = booker_seen
        assert first_ctx.is_continuation is False
        assert second_ctx.is_continuation is True
        assert second_ctx.context_id == first["contextId"]
        assert second_ctx.task_id == first["id"]
        assert [(m.role, m.parts[0].text) for m in second_ctx.history] == [
            ("user", "book a flight"),
            ("agent", "Which city?"),
            ("user", "Helsinki"),
        ]
        assert second_ctx.history[-1].message_id == second_ctx.message.message_id
        check_log(await stored(app, first["id"]), await events_of(app, first["id"]))


async def test_continuing_through_the_stream(make_client: Any) -> None:
    booker_seen.clear()
    async with make_client(booker, **FAST) as (client, _):
        first = stream_results(await stream(client, "book"))
        task_id = first[0]["id"]
        assert first[-1]["status"]["state"] == "input-required"
        second = stream_results(await stream(client, "Oslo", task_id=task_id))
        assert second[0]["kind"] == "task"
        assert second[0]["id"] == task_id
        assert second[0]["contextId"] == first[0]["contextId"]
        assert second[-1]["status"]["state"] == "completed"
        assert second[-1]["final"] is True
        chunks = [u for u in second if u["kind"] == "artifact-update"]
        assert texts(chunks[0]["artifact"]["parts"]) == ["Booked a flight to Oslo."]


async def test_continuation_after_input_required_without_message(make_client: Any) -> None:
    """`Context.is_continuation`: "True when this message answers the agent (the task was
    waiting for input)" -- also when the agent asked without saying anything."""
    seen: list[Context] = []

    @agent
    def silent_asker(ctx: Context) -> Any:
        seen.append(ctx)
        if len(seen) == 1:
            raise InputRequired()
        return "thanks"

    async with make_client(silent_asker, **FAST) as (client, _):
        first = await send(client, "start")
        assert first["status"]["state"] == "input-required"
        assert "message" not in first["status"]
        second = await send(client, "more", task_id=first["id"])
        assert second["status"]["state"] == "completed"
        assert [c.is_continuation for c in seen] == [False, True]


# --- other outcomes -------------------------------------------------------------------------------


async def test_auth_required(make_client: Any) -> None:
    @agent
    async def needs_auth(text: str) -> str:
        raise AuthRequired("Sign in at https://example.com/login first.")

    async with make_client(needs_auth, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "auth-required"
        assert status_text(task) == "Sign in at https://example.com/login first."


async def test_rejected(make_client: Any) -> None:
    @agent
    def picky(text: str) -> Any:
        return Rejected("I only talk about the weather.")

    async with make_client(picky, **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == "rejected"
        assert status_text(task) == "I only talk about the weather."
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


async def test_failed_shows_its_reason(make_client: Any) -> None:
    @agent
    async def failing(text: str) -> str:
        raise Failed("the upstream API said no")

    async with make_client(failing, **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == "failed"
        assert status_text(task) == "the upstream API said no"
        assert task["status"]["message"]["role"] == "agent"
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


SECRET = "db-password=hunter2-do-not-leak"


@pytest.mark.parametrize("kind", ["sync", "async", "generator", "after-chunk"])
async def test_unexpected_exception_fails_with_a_safe_message(
    make_client: Any, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    if kind == "sync":

        @agent
        def crash(text: str) -> str:
            raise RuntimeError(SECRET)

    elif kind == "async":

        @agent
        async def crash(text: str) -> str:
            raise ValueError(SECRET)

    elif kind == "generator":

        @agent
        async def crash(text: str) -> AsyncIterator[Any]:  # type: ignore[misc]
            if text:
                raise KeyError(SECRET)
            yield "never"

    else:

        @agent
        async def crash(text: str) -> AsyncIterator[Any]:  # type: ignore[misc]
            yield "partial"
            raise OSError(SECRET)

    async with make_client(crash, **FAST) as (client, app):
        response = await client.post(
            "/",
            json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": send_params("go")},
        )
        body = response.text
        task = response.json()["result"]
        assert task["status"]["state"] == "failed"
        assert status_text(task)  # the client is told something
        assert SECRET not in body
        assert "Traceback" not in body
        assert "Error" not in status_text(task)
        # Nor anywhere in the stored task or its event log, nor in a stream of the same agent.
        record = await stored(app, task["id"])
        events = await events_of(app, task["id"])
        stored_text = record.task.model_dump_json().decode() + "".join(
            e.payload.model_dump_json().decode() for e in events
        )
        assert SECRET not in stored_text and "Traceback" not in stored_text
        check_log(record, events)
        async with client.stream(
            "POST",
            "/",
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "message/stream",
                "params": send_params("go"),
            },
        ) as streamed:
            raw = (await streamed.aread()).decode()
        assert '"failed"' in raw
        assert SECRET not in raw and "Traceback" not in raw
    # The operator still finds the exception in the logs.
    assert SECRET in caplog.text


@pytest.mark.parametrize(
    "value",
    [object(), 42, b"bytes", ["not", "parts"], {"a", "set"}],
    ids=["object", "int", "bytes", "list-of-str", "set"],
)
async def test_unsupported_return_value_fails(make_client: Any, value: Any) -> None:
    @agent
    def odd(text: str) -> Any:
        return value

    async with make_client(odd, **FAST) as (client, app):
        response = await client.post(
            "/", json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": send_params()}
        )
        task = response.json()["result"]
        assert task["status"]["state"] == "failed"
        assert "artifacts" not in task
        assert "Traceback" not in response.text
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


async def test_unsupported_yielded_value_fails(make_client: Any) -> None:
    @agent
    async def odd(text: str) -> AsyncIterator[Any]:
        yield "fine"
        yield object()
        yield "never reached"

    async with make_client(odd, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "failed"
        assert texts(only_artifact(task)["parts"]) == ["fine"]


# --- the time budget ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["async", "sync", "generator"])
async def test_time_budget_exceeded_fails_the_task(make_client: Any, kind: str) -> None:
    if kind == "async":

        @agent(time_budget_s=0.2)
        async def slow(text: str) -> str:
            await asyncio.sleep(10)
            return "too late"

    elif kind == "sync":

        @agent(time_budget_s=0.2)
        def slow(text: str) -> str:
            time.sleep(0.6)
            return "too late"

    else:

        @agent(time_budget_s=0.2)
        async def slow(text: str) -> AsyncIterator[Any]:  # type: ignore[misc]
            yield "early"
            await asyncio.sleep(10)
            yield "too late"

    async with make_client(slow, **FAST) as (client, app):
        started = time.monotonic()
        task = await send(client)
        assert time.monotonic() - started < 2.0
        assert task["status"]["state"] == "failed"
        assert "time budget" in status_text(task)
        assert "0.2" in status_text(task)
        await asyncio.sleep(0.6)  # let a sync agent's thread finish: nothing it does lands
        record = await stored(app, task["id"])
        assert record.state == "failed"
        assert "too late" not in record.task.model_dump_json().decode()
        check_log(record, await events_of(app, task["id"]))


async def test_timeout_error_inside_the_agent_is_not_the_budget(make_client: Any) -> None:
    @agent(time_budget_s=5)
    async def times_out(text: str) -> str:
        await asyncio.wait_for(asyncio.sleep(10), 0.01)
        return "unreachable"

    async with make_client(times_out, **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "failed"
        assert "time budget" not in status_text(task)


# --- sync functions run in a thread ---------------------------------------------------------------


async def test_sync_function_does_not_block_the_event_loop(make_client: Any) -> None:
    @agent
    def sleepy(text: str) -> str:
        time.sleep(0.3)
        return "rested"

    async with make_client(sleepy, **FAST) as (client, _):
        slow = asyncio.create_task(send(client, "sleep"))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        health = await client.get("/health")
        card = await client.get("/.well-known/agent-card.json")
        elapsed = time.monotonic() - started
        assert health.status_code == 200 and card.status_code == 200
        assert not slow.done()
        assert elapsed < 0.15, f"other requests waited {elapsed:.3f}s for a sync agent"
        task = await slow
        assert task["status"]["state"] == "completed"


# --- class-based executors --------------------------------------------------------------------


class Researcher:
    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        await updater.start_work("Looking it up...")
        await updater.add_artifact("first half, ", artifact_id="report", last_chunk=False)
        await updater.add_artifact(
            "second half", artifact_id="report", append=True, last_chunk=True
        )
        await updater.add_artifact({"sources": 2}, name="meta")
        await updater.complete("Done.")


async def test_executor_with_task_updater(make_client: Any) -> None:
    researcher = Agent(name="Researcher", description="Researches.", executor=Researcher())
    async with make_client(researcher, **FAST) as (client, app):
        results = stream_results(await stream(client, "what is A2A?"))
        updates = results[1:]
        assert [u["kind"] for u in updates] == [
            "status-update",
            "artifact-update",
            "artifact-update",
            "artifact-update",
            "status-update",
        ]
        assert updates[0]["status"]["state"] == "working"
        assert texts(updates[0]["status"]["message"]["parts"]) == ["Looking it up..."]
        assert updates[0]["status"]["message"]["taskId"] == results[0]["id"]
        assert updates[1]["artifact"]["artifactId"] == "report"
        assert updates[1].get("append") in (None, False)
        assert updates[1]["lastChunk"] is False
        assert updates[2]["append"] is True and updates[2]["lastChunk"] is True
        assert updates[4]["status"]["state"] == "completed"
        assert texts(updates[4]["status"]["message"]["parts"]) == ["Done."]
        assert updates[4]["final"] is True

        task = await get_task(client, results[0]["id"])
        report, meta = task["artifacts"]
        assert report["artifactId"] == "report"
        assert texts(report["parts"]) == ["first half, ", "second half"]
        assert meta["name"] == "meta"
        assert meta["parts"] == [{"kind": "data", "data": {"sources": 2}}]
        assert [m["role"] for m in task["history"]] == ["user", "agent", "agent"]
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


async def test_executor_replacing_an_artifact(make_client: Any) -> None:
    class Reviser:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await updater.add_artifact("draft", artifact_id="doc", name="doc")
            await updater.add_artifact("final", artifact_id="doc")

    async with make_client(Agent("Reviser", "Revises.", Reviser()), **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        assert only_artifact(task)["parts"] == [{"kind": "text", "text": "final"}]


@pytest.mark.parametrize(
    ("method", "state"),
    [
        ("fail", "failed"),
        ("requires_input", "input-required"),
        ("requires_auth", "auth-required"),
        ("reject", "rejected"),
    ],
)
async def test_executor_ending_the_turn(make_client: Any, method: str, state: str) -> None:
    class Ender:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await updater.start_work()
            await getattr(updater, method)(f"ended by {method}")

    async with make_client(Agent("Ender", "Ends.", Ender()), **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == state
        assert status_text(task) == f"ended by {method}"
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


@pytest.mark.parametrize("work", [True, False])
async def test_executor_returning_without_ending_the_turn_completes(
    make_client: Any, work: bool
) -> None:
    class Forgetful:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            if work:
                await updater.start_work("busy")
                await updater.add_artifact("result")

    async with make_client(Agent("Forgetful", "Forgets.", Forgetful()), **FAST) as (client, app):
        task = await send(client)
        assert task["status"]["state"] == "completed"
        if work:
            assert texts(only_artifact(task)["parts"]) == ["result"]
        check_log(await stored(app, task["id"]), await events_of(app, task["id"]))


async def test_executor_writing_after_the_turn_ended_gets_task_ended(make_client: Any) -> None:
    outcome: list[str] = []

    class Overeager:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await updater.complete("done")
            assert updater.turn_over
            try:
                await updater.add_artifact("late")
            except TaskEnded:
                outcome.append("TaskEnded")
            raise RuntimeError("and then it crashed")

    async with make_client(Agent("Overeager", "Too much.", Overeager()), **FAST) as (
        client,
        app,
    ):
        task = await send(client)
        assert outcome == ["TaskEnded"]
        # The crash after the turn ended changes nothing: the task stays completed.
        assert task["status"]["state"] == "completed"
        assert "artifacts" not in task
        record = await stored(app, task["id"])
        assert record.state == "completed"
        check_log(record, await events_of(app, task["id"]))


async def test_executor_outcome_exception(make_client: Any) -> None:
    class Asker:
        async def execute(self, context: Context, updater: TaskUpdater) -> None:
            await updater.start_work()
            raise InputRequired(updater.new_agent_message("Which one?"))

    async with make_client(Agent("Asker", "Asks.", Asker()), **FAST) as (client, _):
        task = await send(client)
        assert task["status"]["state"] == "input-required"
        assert status_text(task) == "Which one?"
        assert task["status"]["message"]["taskId"] == task["id"]


# --- the agent definition -------------------------------------------------------------------------


@agent
def weather_reporter(text: str) -> str:
    """Tells you the weather
    anywhere in the world.

    This second paragraph is not part of the description.
    """
    return "sunny"


async def test_defaults_from_function_name_and_docstring(make_client: Any) -> None:
    assert isinstance(weather_reporter, Agent)
    assert weather_reporter.name == "Weather Reporter"
    assert weather_reporter.description == "Tells you the weather anywhere in the world."
    assert weather_reporter("x") == "sunny"
    async with make_client(weather_reporter, **FAST) as (client, _):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert card["name"] == "Weather Reporter"
        assert card["description"] == "Tells you the weather anywhere in the world."
        assert card["skills"] == [
            {
                "id": "weather-reporter",
                "name": "Weather Reporter",
                "description": "Tells you the weather anywhere in the world.",
                "tags": [],
            }
        ]
        assert card["capabilities"]["streaming"] is True
        task = await send(client)
        assert texts(only_artifact(task)["parts"]) == ["sunny"]
