"""`a2a_serverless.testing.AgentTestClient`: the same typed answers from either protocol version
over either binding, errors as `A2AClientError`, apps used as given."""

from __future__ import annotations

import pytest

from a2a_serverless import Context, InputRequired, Settings, agent, create_app, skill
from a2a_serverless.models import Message, Part, Task, TaskState
from a2a_serverless.testing import A2AClientError, AgentTestClient, reply_text

COMBINATIONS = [
    ("0.3", "jsonrpc"),
    ("0.3", "rest"),
    ("1.0", "jsonrpc"),
    ("1.0", "rest"),
]


@agent(name="Echo", description="Says back what it is told.", skills=[skill("echo", "Echo")])
def echo(ctx: Context) -> str:
    text = ctx.text.strip()
    if not text:
        raise InputRequired("What should I say back?")
    return f"You said: {text}"


@pytest.mark.parametrize(("version", "binding"), COMBINATIONS)
async def test_a_task_is_sent_continued_and_read_back(version: str, binding: str) -> None:
    async with AgentTestClient(echo, version=version, binding=binding) as client:  # type: ignore[arg-type]
        task = await client.send("hello")
        assert isinstance(task, Task)
        assert task.status.state is TaskState.COMPLETED
        assert reply_text(task) == "You said: hello"

        asked = await client.send(" ")
        assert isinstance(asked, Task)
        assert asked.status.state is TaskState.INPUT_REQUIRED
        assert reply_text(asked) == "What should I say back?"
        answered = await client.send([Part(text="hi")], task_id=asked.id)
        assert isinstance(answered, Task)
        assert (answered.id, answered.status.state) == (asked.id, TaskState.COMPLETED)

        read = await client.get_task(asked.id)
        assert read.status.state is TaskState.COMPLETED
        assert [m.role for m in read.history or []] == ["user", "agent", "user"]
        assert await client.send_text("again") == "You said: again"
        assert (await client.card())["name"] == "Echo"


@pytest.mark.parametrize(("version", "binding"), COMBINATIONS)
async def test_errors_carry_their_code_or_status(version: str, binding: str) -> None:
    async with AgentTestClient(echo, version=version, binding=binding) as client:  # type: ignore[arg-type]
        with pytest.raises(A2AClientError) as missing:
            await client.get_task("no-such-task")
        done = await client.send("hello")
        with pytest.raises(A2AClientError) as not_cancelable:
            await client.cancel_task(done.task_id if isinstance(done, Message) else done.id)
    assert "not found" in missing.value.message.lower()
    if binding == "jsonrpc":
        assert (missing.value.code, not_cancelable.value.code) == (-32001, -32002)
    else:
        assert missing.value.status == 404
        assert not_cancelable.value.status >= 400


async def test_a_non_blocking_send_returns_the_queued_task() -> None:
    async with AgentTestClient(echo) as client:
        task = await client.send("hello", blocking=False)
        assert isinstance(task, Task)
        assert task.status.state in (TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED)


async def test_an_app_is_called_with_the_clients_headers() -> None:
    settings = Settings(store_url="memory://", dev_mode=True, auth_api_keys="k" * 16 + "=tester")
    app = create_app(echo, settings)
    try:
        async with AgentTestClient(app) as anonymous:
            with pytest.raises(A2AClientError) as refused:
                await anonymous.send("hello")
        async with AgentTestClient(app, headers={"X-API-Key": "k" * 16}) as client:
            assert await client.send_text("hello") == "You said: hello"
    finally:
        await app.runtime.aclose()
    assert refused.value.status == 401


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="version"):
        AgentTestClient(echo, version="2.0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="binding"):
        AgentTestClient(echo, binding="grpc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="settings"):
        AgentTestClient(create_app(echo, Settings(store_url="memory://")), settings=Settings())
