"""The agent over A2A, as a client sees it (tests/conftest.py: `client`, once per A2A version)."""

from __future__ import annotations

from a2a_serverless.models import Task, TaskState
from a2a_serverless.testing import AgentTestClient, reply_text


async def test_the_card_describes_the_agent(client: AgentTestClient) -> None:
    card = await client.card()
    assert card["name"] == {{ cookiecutter.agent_name | tojson }}
    assert [s["id"] for s in card["skills"]] == ["echo"]


async def test_it_says_back_what_it_is_told(client: AgentTestClient) -> None:
    task = await client.send("hello")
    assert isinstance(task, Task)
    assert task.status.state is TaskState.COMPLETED
    assert reply_text(task) == "You said: hello"
    assert await client.send_text("hi") == "You said: hi"


async def test_it_asks_when_told_nothing_and_continues_the_task(client: AgentTestClient) -> None:
    task = await client.send(" ")
    assert isinstance(task, Task)
    assert task.status.state is TaskState.INPUT_REQUIRED
    assert reply_text(task) == "What should I say back?"

    answered = await client.send("hi", task_id=task.id)
    assert isinstance(answered, Task)
    assert answered.id == task.id
    assert answered.status.state is TaskState.COMPLETED
    assert reply_text(answered) == "You said: hi"
