"""docs/sdk-names.md against the real classes: the signatures it quotes for a2a-sdk 0.3 (in this
virtualenv) and 1.x (in .venv-a2a-sdk1, read in a subprocess) and for our own classes.

A change on either side that the page does not follow fails here, naming the method.
"""

from __future__ import annotations

import inspect
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless import AgentExecutor, Context, TaskUpdater
from a2a_serverless.executor import CancelableExecutor
from tests.interop.test_sdk1 import SDK1_PYTHON, SETUP_HINT

pytestmark = pytest.mark.interop

DOC = (Path(__file__).resolve().parents[2] / "docs" / "sdk-names.md").read_text()

# Prints {class: {method: [parameter names]}} for the SDK the interpreter has.
SDK_SIGNATURES = """
import inspect, json
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.tasks import TaskUpdater
out = {}
for cls in (AgentExecutor, TaskUpdater, RequestContext):
    members = {"__init__": cls.__init__}
    members.update(
        (n, m) for n, m in inspect.getmembers(cls) if not n.startswith("_") and callable(m)
    )
    out[cls.__name__] = {
        n: [p for p in inspect.signature(m).parameters if p != "self"] for n, m in members.items()
    }
    out[cls.__name__]["abstract"] = [inspect.isabstract(cls)]
print(json.dumps(out))
"""


def sdk_signatures(python: str | Path) -> dict[str, dict[str, list[Any]]]:
    done = subprocess.run(
        [str(python), "-c", SDK_SIGNATURES], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, dict[str, list[Any]]] = json.loads(done.stdout)
    return result


def params(function: Any) -> list[str]:
    return [p for p in inspect.signature(function).parameters if p != "self"]


@pytest.fixture(scope="module")
def sdk03() -> dict[str, dict[str, list[Any]]]:
    import sys

    return sdk_signatures(sys.executable)


@pytest.fixture(scope="module")
def sdk1() -> dict[str, dict[str, list[Any]]]:
    if not SDK1_PYTHON.exists():
        pytest.fail(f"{SDK1_PYTHON} is missing: {SETUP_HINT}")
    return sdk_signatures(SDK1_PYTHON)


def test_the_sdk_executor_is_what_the_page_says(
    sdk03: dict[str, dict[str, list[Any]]], sdk1: dict[str, dict[str, list[Any]]]
) -> None:
    for sdk in (sdk03, sdk1):
        executor = sdk["AgentExecutor"]
        assert executor["abstract"] == [True]
        assert executor["execute"] == executor["cancel"] == ["context", "event_queue"]
    assert "`async execute(context: RequestContext, event_queue: EventQueue)`" in DOC
    assert "`async cancel(context, event_queue)`" in DOC


def test_the_sdk_updater_is_what_the_page_says(
    sdk03: dict[str, dict[str, list[Any]]], sdk1: dict[str, dict[str, list[Any]]]
) -> None:
    for sdk in (sdk03, sdk1):
        updater = sdk["TaskUpdater"]
        assert updater["__init__"] == [
            "event_queue",
            "task_id",
            "context_id",
            "artifact_id_generator",
            "message_id_generator",
        ]
        assert updater["add_artifact"] == [
            "parts",
            "artifact_id",
            "name",
            "metadata",
            "append",
            "last_chunk",
            "extensions",
        ]
        assert updater["new_agent_message"] == ["parts", "metadata"]
        for state in ("submit", "start_work", "complete", "failed", "reject", "cancel"):
            assert updater[state] == ["message"], state
    # 0.3 has `final` on update_status and the interrupted states; 1.x dropped it.
    assert sdk03["TaskUpdater"]["update_status"] == [
        "state",
        "message",
        "final",
        "timestamp",
        "metadata",
    ]
    assert sdk1["TaskUpdater"]["update_status"] == ["state", "message", "timestamp", "metadata"]
    assert sdk03["TaskUpdater"]["requires_input"] == ["message", "final"]
    assert sdk1["TaskUpdater"]["requires_input"] == ["message"]
    assert "(state, message=None, final=False, timestamp=None, metadata=None)` in 0.3" in DOC


def test_the_sdk_request_context_is_what_the_page_says(
    sdk03: dict[str, dict[str, list[Any]]], sdk1: dict[str, dict[str, list[Any]]]
) -> None:
    assert sdk03["RequestContext"]["__init__"][:5] == [
        "request",
        "task_id",
        "context_id",
        "task",
        "related_tasks",
    ]
    assert sdk1["RequestContext"]["__init__"][0] == "call_context"  # first and required in 1.x
    for sdk in (sdk03, sdk1):
        assert sdk["RequestContext"]["get_user_input"] == ["delimiter"]
        assert "attach_related_task" in sdk["RequestContext"]
    assert "add_activated_extension" in sdk03["RequestContext"]
    assert "add_activated_extension" not in sdk1["RequestContext"]


def test_our_classes_are_what_the_page_says() -> None:
    assert params(AgentExecutor.execute) == ["context", "updater"]
    assert not hasattr(AgentExecutor, "cancel")  # optional: CancelableExecutor's
    assert params(CancelableExecutor.cancel) == ["context", "updater"]
    assert "optional `async cancel(context, updater)`" in DOC
    assert params(TaskUpdater.update_status) == ["state", "message"]
    assert params(TaskUpdater.add_artifact) == [
        "content",
        "artifact_id",
        "name",
        "description",
        "append",
        "last_chunk",
        "metadata",
    ]
    assert params(TaskUpdater.complete) == ["message", "artifacts"]
    assert params(TaskUpdater.new_agent_message) == ["content"]
    assert not hasattr(TaskUpdater, "submit")  # the core submits
    assert "no `submit`" in DOC
    # The SDK's verbs, with its parameter (`fail` kept as another name for `failed`).
    for state in ("start_work", "failed", "fail", "reject", "cancel"):
        assert params(getattr(TaskUpdater, state)) == ["message"], state
    for state in ("requires_input", "requires_auth"):
        assert params(getattr(TaskUpdater, state)) == ["message"], state
    fields = list(inspect.signature(Context).parameters)
    assert fields == [
        "task_id",
        "context_id",
        "message",
        "task",
        "metadata",
        "accepted_output_modes",
        "extensions",
        "skill_id",
        "owner",
        "remote_agents",
        "durable",
    ]
    for name in ("text", "data", "files", "history", "is_continuation"):
        assert isinstance(getattr(Context, name), property), name
        assert f"`{name}`" in DOC, name


def test_our_updater_says_what_the_sdk_says(
    sdk03: dict[str, dict[str, list[Any]]], sdk1: dict[str, dict[str, list[Any]]]
) -> None:
    # Every state verb of the SDK's updater is ours too, under its name, but `submit`.
    verbs = ("submit", "start_work", "complete", "failed", "reject", "cancel")
    verbs += ("requires_input", "requires_auth")
    for sdk in (sdk03, sdk1):
        assert set(verbs) <= set(sdk["TaskUpdater"])
    for verb in verbs:
        assert hasattr(TaskUpdater, verb) == (verb != "submit"), verb
