"""The orchestrator over A2A, as a client sees it (tests/conftest.py: `client`, once per A2A
version, and the stand-ins it calls over HTTP)."""

from __future__ import annotations

from a2a_serverless.models import Task, TaskState
from a2a_serverless.testing import AgentTestClient, reply_text


async def test_the_card_describes_the_agent(client: AgentTestClient) -> None:
    card = await client.card()
    assert card["name"] == {{ cookiecutter.agent_name | tojson }}
    assert [s["id"] for s in card["skills"]] == ["orchestrate"]


async def test_it_asks_both_agents_and_puts_their_answers_together(
    client: AgentTestClient,
) -> None:
    task = await client.send("Lisbon")
    assert isinstance(task, Task)
    assert task.status.state is TaskState.COMPLETED
    assert reply_text(task) == (
        "## Planner\n\nPlan for: Lisbon\n\n## Second opinion\n\nSecond opinion on: Lisbon"
    )


async def test_one_failing_agent_leaves_the_others_answer(client: AgentTestClient) -> None:
    text = await client.send_text("fail, please")
    assert text.startswith(
        "## Planner\n\nPlan for: fail, please\n\n## Second opinion\n\n(no answer:"
    )
    assert "the second opinion could not be given" in text


async def test_it_asks_when_told_nothing_and_continues_the_task(client: AgentTestClient) -> None:
    task = await client.send(" ")
    assert isinstance(task, Task)
    assert task.status.state is TaskState.INPUT_REQUIRED
    assert reply_text(task) == "What should I ask them?"

    answered = await client.send("Porto", task_id=task.id)
    assert isinstance(answered, Task)
    assert answered.id == task.id
    assert answered.status.state is TaskState.COMPLETED
    assert "Plan for: Porto" in reply_text(answered)
