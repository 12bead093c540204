"""The wire-model layer (`a2a_serverless.wire`) under the protocol models.

What the models promise (see wire.py and models.py): input under wire or Python names, unknown
fields kept and written back, strict JSON types, every error reported with its path, `dump()`
without None fields, `model_copy`, equality, unions told apart by tag or key. And that the
generated fast functions (used once a class is warm) give exactly what the generic ones give.
"""

from __future__ import annotations

import copy
import json
import pickle
import textwrap
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2a_serverless import models, wire
from a2a_serverless.jsonrpc import METHODS
from a2a_serverless.models import (
    AgentCard,
    APIKeySecurityScheme,
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    JSONRPCRequest,
    ListTasksParams,
    Message,
    MessageSendParams,
    StreamResult,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
    TransportProtocol,
)
from a2a_serverless.wire import ValidationError, WireModel, field, validate
from tests.reliability import strategies

MODELS = [
    value
    for value in vars(models).values()
    if isinstance(value, type) and issubclass(value, models.A2AModel)
]

MESSAGE = {
    "kind": "message",
    "messageId": "m-1",
    "role": "user",
    "parts": [{"kind": "text", "text": "hello"}],
}
TASK = {
    "kind": "task",
    "id": "t-1",
    "contextId": "c-1",
    "status": {"state": "completed", "timestamp": "2025-01-01T00:00:00.000Z"},
    "artifacts": [
        {
            "artifactId": "a-1",
            "name": "échos",
            "parts": [
                {"kind": "text", "text": "echo: hello"},
                {"kind": "file", "file": {"uri": "https://x/y.png", "mimeType": "image/png"}},
                {"kind": "file", "file": {"bytes": "aGk=", "name": "hi.txt"}},
                {"kind": "data", "data": {"a": [1, 2.5, None, True, {"b": "c"}]}},
            ],
        }
    ],
    "history": [{**MESSAGE, "contextId": "c-1", "taskId": "t-1", "metadata": {"k": "v"}}],
    "metadata": {"nested": {"list": [1, "two"]}},
}


def errors_of(call: Any, *args: Any, **kwargs: Any) -> list[tuple[str, str, str]]:
    """(dotted path, type, message) of each error a call raises."""
    with pytest.raises(ValidationError) as caught:
        call(*args, **kwargs)
    return [(".".join(map(str, e["loc"])), e["type"], e["msg"]) for e in caught.value.errors()]


# --- names, unknown fields, dumping ---------------------------------------------------------------


def test_wire_names_in_and_out() -> None:
    task = Task.model_validate(TASK)
    assert task.context_id == "c-1"
    assert task.status.state is TaskState.COMPLETED
    assert isinstance(task.artifacts[0].parts[1], FilePart)  # type: ignore[index]
    assert isinstance(task.artifacts[0].parts[1].file, FileWithUri)  # type: ignore[index,union-attr]
    assert isinstance(task.artifacts[0].parts[2].file, FileWithBytes)  # type: ignore[index,union-attr]
    assert task.dump() == TASK
    assert json.loads(task.dump_json()) == TASK


def test_python_names_are_accepted_too() -> None:
    by_name = Message.model_validate(
        {"message_id": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]}
    )
    assert by_name == Message.model_validate(MESSAGE)
    built = Message(message_id="m-1", role="user", parts=[TextPart(text="hello")])
    assert built == by_name
    assert Message(messageId="m-1", role="user", parts=[TextPart(text="hello")]) == built  # type: ignore[call-arg]


def test_a_field_under_both_names_is_refused() -> None:
    assert errors_of(Message.model_validate, {**MESSAGE, "message_id": "m-2"}) == [
        (
            "messageId",
            "duplicate_field",
            "Field given under both of its names, 'messageId' and 'message_id'",
        )
    ]


def test_unknown_fields_are_kept_and_written_back() -> None:
    data = {
        **TASK,
        "newField": {"x": 1},
        "status": {**TASK["status"], "progress": 0.5},
        "history": [{**MESSAGE, "reaction": None, "tone": "calm"}],
    }
    task = Task.model_validate(data)
    assert task.model_extra == {"newField": {"x": 1}}
    assert task.status.model_extra == {"progress": 0.5}
    assert task.history is not None and task.history[0].model_extra == {
        "reaction": None,
        "tone": "calm",
    }
    dumped = task.dump()
    # None values are left out, unknown fields as well as known ones.
    del data["history"][0]["reaction"]  # type: ignore[index]
    assert dumped == data
    assert list(dumped)[-1] == "newField", "unknown fields come after the known ones"
    assert Task.model_validate(dumped) == Task.model_validate(data)
    assert task != Task.model_validate(TASK)
    assert task.model_copy().model_extra == {"newField": {"x": 1}}
    assert task.model_copy().model_extra is not task.model_extra


def test_dump_leaves_none_out_and_copies() -> None:
    task = Task(
        id="t", context_id="c", status=TaskStatus(state=TaskState.WORKING), metadata={"a": [1]}
    )
    dumped = task.dump()
    assert dumped == {
        "kind": "task",
        "id": "t",
        "contextId": "c",
        "status": {"state": "working"},
        "metadata": {"a": [1]},
    }
    assert type(dumped["status"]["state"]) is str
    dumped["metadata"]["a"].append(2)
    assert task.metadata == {"a": [1]}, "dump() is a copy: changing it changes nothing"


def test_dump_json_is_compact_utf8() -> None:
    part = TextPart(text='héllo \u2028 "q"')
    assert part.dump_json() == '{"kind":"text","text":"héllo \u2028 \\"q\\""}'.encode()


def test_defaults() -> None:
    card = AgentCard.model_validate(
        {
            "name": "n",
            "description": "d",
            "url": "https://a",
            "version": "1",
            "capabilities": {},
            "defaultInputModes": ["text"],
            "defaultOutputModes": ["text"],
            "skills": [],
        }
    )
    assert card.protocol_version == "0.3.0"
    assert card.preferred_transport == TransportProtocol.JSONRPC.value == "JSONRPC"
    assert TextPart(text="x").kind == "text"
    assert DataPart(data={}).dump() == {"kind": "data", "data": {}}


def test_api_key_scheme_in() -> None:
    scheme = APIKeySecurityScheme(name="k", in_="header")
    assert scheme.dump() == {"type": "apiKey", "name": "k", "in": "header"}
    assert APIKeySecurityScheme.model_validate(scheme.dump()) == scheme
    assert errors_of(APIKeySecurityScheme.model_validate, {"name": "k", "in": "body"}) == [
        ("in", "literal_error", "Input should be 'query', 'header' or 'cookie'")
    ]


# --- strict types ---------------------------------------------------------------------------------


STRING = ("string_type", "Input should be a valid string")
INTEGER = ("int_type", "Input should be a valid integer")


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"id": 5}, ("id", *STRING)),
        ({"id": None}, ("id", *STRING)),
        ({}, ("id", "missing", "Field required")),
        ({"id": "t", "historyLength": True}, ("historyLength", *INTEGER)),
        ({"id": "t", "historyLength": 2.0}, ("historyLength", *INTEGER)),
        ({"id": "t", "historyLength": "2"}, ("historyLength", *INTEGER)),
        (
            {"id": "t", "historyLength": -1},
            ("historyLength", "greater_than_equal", "Input should be greater than or equal to 0"),
        ),
        (
            {"id": "t", "metadata": []},
            ("metadata", "dict_type", "Input should be a valid dictionary"),
        ),
    ],
)
def test_json_types_are_strict(data: dict[str, Any], error: tuple[str, str, str]) -> None:
    assert errors_of(models.TaskQueryParams.model_validate, data) == [error]


def test_booleans_lists_enums_literals() -> None:
    event = {"kind": "status-update", "taskId": "t", "contextId": "c"}
    assert errors_of(
        TaskStatusUpdateEvent.model_validate, {**event, "status": {"state": "done"}, "final": 1}
    ) == [
        (
            "status.state",
            "enum",
            "Input should be 'submitted', 'working', 'input-required', 'completed', "
            "'canceled', 'failed', 'rejected', 'auth-required' or 'unknown'",
        ),
        ("final", "bool_type", "Input should be a valid boolean"),
    ]
    assert errors_of(Message.model_validate, {**MESSAGE, "role": "system", "extensions": "x"}) == [
        ("role", "literal_error", "Input should be 'user' or 'agent'"),
        ("extensions", "list_type", "Input should be a valid list"),
    ]
    assert errors_of(Message.model_validate, {**MESSAGE, "referenceTaskIds": ["a", 1, "b", 2]}) == [
        ("referenceTaskIds.1", "string_type", "Input should be a valid string"),
        ("referenceTaskIds.3", "string_type", "Input should be a valid string"),
    ]
    assert errors_of(JSONRPCRequest.model_validate, {"jsonrpc": "1.0", "method": "x"}) == [
        ("jsonrpc", "literal_error", "Input should be '2.0'")
    ]
    assert errors_of(JSONRPCRequest.model_validate, {"jsonrpc": "2.0", "method": "x", "id": 1.5})[
        0
    ][:2] == ("id", "union_type")


def test_python_values_are_normalised() -> None:
    # An enum member where a string goes is stored as the plain string it equals.
    card_part = TextPart(text=TaskState.WORKING)
    assert type(card_part.text) is str and card_part.text == "working"
    status = TaskStatus(state="working")  # type: ignore[arg-type]
    assert status.state is TaskState.WORKING


def test_every_error_at_once_with_its_path() -> None:
    params = {
        "message": {
            **MESSAGE,
            "parts": [
                {"kind": "text"},
                {"kind": "audio"},
                {"text": "no kind"},
                {"kind": "file", "file": {}},
                {"kind": "data", "data": [1]},
            ],
        },
        "configuration": {"historyLength": -2, "blocking": "yes"},
    }
    assert errors_of(MessageSendParams.model_validate, params) == [
        ("message.parts.0.text", "missing", "Field required"),
        (
            "message.parts.1",
            "union_tag_invalid",
            "Input tag 'audio' found using 'kind' does not match any of the expected tags: "
            "'text', 'file', 'data'",
        ),
        (
            "message.parts.2",
            "union_tag_not_found",
            "Unable to extract tag using discriminator 'kind'",
        ),
        ("message.parts.3.file", "missing", "Field required: 'bytes' or 'uri'"),
        ("message.parts.4.data", "dict_type", "Input should be a valid dictionary"),
        ("configuration.blocking", "bool_type", "Input should be a valid boolean"),
        (
            "configuration.historyLength",
            "greater_than_equal",
            "Input should be greater than or equal to 0",
        ),
    ]
    with pytest.raises(ValidationError) as caught:
        MessageSendParams.model_validate(params)
    text = str(caught.value)
    assert text.startswith("7 validation errors for MessageSendParams\n")
    assert "message.parts.1\n  Input tag 'audio'" in text
    assert isinstance(caught.value, ValueError)


def test_bounds_and_lengths() -> None:
    assert errors_of(Message.model_validate, {**MESSAGE, "parts": []}) == [
        ("parts", "too_short", "List should have at least 1 item, not 0")
    ]
    assert errors_of(ListTasksParams.model_validate, {"pageSize": 0})[0][1] == "greater_than_equal"
    assert errors_of(ListTasksParams.model_validate, {"pageSize": 101}) == [
        ("pageSize", "less_than_equal", "Input should be less than or equal to 100")
    ]
    assert ListTasksParams.model_validate({"pageSize": 100, "historyLength": 0}).page_size == 100


def test_not_an_object() -> None:
    assert errors_of(Task.model_validate, [TASK]) == [
        ("", "model_type", "Input should be a valid dictionary or instance of Task")
    ]
    assert errors_of(Task.model_validate, {**TASK, "status": "completed"}) == [
        ("status", "model_type", "Input should be a valid dictionary or instance of TaskStatus")
    ]
    assert errors_of(Task.model_validate, {1: "x", **TASK})[0][1:] == (
        "key_type",
        "Keys should be strings",
    )


def test_constructors_validate() -> None:
    assert errors_of(TextPart) == [("text", "missing", "Field required")]
    assert errors_of(TextPart, text=1) == [
        ("text", "string_type", "Input should be a valid string")
    ]
    assert errors_of(Message, message_id="m", role="user", parts=[]) == [
        ("parts", "too_short", "List should have at least 1 item, not 0")
    ]
    part = TextPart(text="x")
    message = Message(message_id="m", role="agent", parts=[part, {"kind": "data", "data": {}}])  # type: ignore[list-item]
    assert message.parts[0] is part, "objects given to a constructor are kept as they are"
    assert isinstance(message.parts[1], DataPart)


# --- unions ---------------------------------------------------------------------------------------


def test_stream_results_by_kind() -> None:
    event = {
        "kind": "artifact-update",
        "taskId": "t",
        "contextId": "c",
        "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]},
    }
    assert isinstance(validate(StreamResult, event), TaskArtifactUpdateEvent)
    assert isinstance(validate(StreamResult, TASK), Task)
    assert isinstance(validate(StreamResult, MESSAGE), Message)
    message = Message.model_validate(MESSAGE)
    assert validate(StreamResult, message) is message
    with pytest.raises(ValidationError) as caught:
        validate(StreamResult, {**TASK, "kind": "tasks"})
    assert caught.value.title == "Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent"
    assert validate(list[Task], [TASK]) == [Task.model_validate(TASK)]
    assert validate(None, None) is None


def test_file_by_which_key_it_has() -> None:
    assert isinstance(FilePart.model_validate({"file": {"uri": "u"}}).file, FileWithUri)
    assert isinstance(FilePart.model_validate({"file": {"bytes": "b"}}).file, FileWithBytes)


# --- copies, equality, subclasses -----------------------------------------------------------------


def test_model_copy() -> None:
    task = Task.model_validate(TASK)
    copied = task.model_copy(update={"history": None, "future": 1})
    assert copied.history is None and copied.model_extra == {"future": 1}
    assert task.history is not None and task.model_extra is None
    assert copied.status is task.status, "shallow: nested objects are shared"
    deep = task.model_copy(deep=True)
    assert deep == task and deep.status is not task.status
    assert copy.deepcopy(task) == task
    assert pickle.loads(pickle.dumps(task)) == task
    assert task != task.model_copy(update={"id": "other"})
    assert task != Message.model_validate(MESSAGE)
    assert repr(TextPart(text="x")) == "TextPart(kind='text', text='x', metadata=None)"


def _shared_mutables(a: Any, b: Any) -> list[Any]:
    """The lists, dicts and models `a` and `b` (equal shapes) have in common."""
    if isinstance(a, list | dict | WireModel) and a is b:
        return [a]
    if isinstance(a, WireModel):
        return _shared_mutables(a.__dict__, b.__dict__)
    if isinstance(a, dict):
        return [found for key in a for found in _shared_mutables(a[key], b[key])]
    if isinstance(a, list):
        return [found for x, y in zip(a, b, strict=True) for found in _shared_mutables(x, y)]
    return []


def test_deep_copy_shares_nothing_mutable_and_equals_a_json_round_trip() -> None:
    class Holder(WireModel):
        tags: list[str] | None = None
        data: dict[str, Any] | None = None
        state: TaskState | None = None

    data = {**TASK, "metadata": {"nested": {"list": [1, {"x": 2}]}}, "future": {"a": [1]}}
    task = Task.model_validate(data)
    for _ in range(wire.COMPILE_AFTER + 2):  # the generic copy, then the compiled one
        copied = wire.deep_copy(task)
        assert copied == task == Task.model_validate(task.dump())
        assert copied.model_extra == {"future": {"a": [1]}}
        assert not _shared_mutables(copied, task)
    assert Task.__dict__["_copy"] is not wire._BOOTSTRAP["_copy"]
    assert wire._copy_slow(task) == copied

    # Free-form values become what JSON would give; typed ones keep their types.
    holder = Holder(tags=["a"], data={"t": (1, 2), "e": TaskState.FAILED}, state=TaskState.WORKING)
    holder = holder.model_copy(update={"unknown": None, "kept": [1]})
    for _ in range(wire.COMPILE_AFTER + 2):
        copied_holder = wire.deep_copy(holder)
        assert copied_holder.data == {"t": [1, 2], "e": "failed"}
        assert copied_holder.state is TaskState.WORKING
        assert copied_holder.model_extra == {"kept": [1]}
        assert copied_holder.dump() == holder.dump()
        assert not _shared_mutables(copied_holder, holder)
    assert wire.json_copy({"a": (1,)}) == {"a": [1]}


def test_json_copy_converts_nested_values_as_json_would() -> None:
    class Text(str):
        pass

    value = {
        "scalars": {"s": "x", "i": 1, "b": True, "f": 1.5, "n": None},
        "enums": [TaskState.FAILED, {"deep": (TaskState.WORKING, Text("t"))}],
        "model": TaskStatus(state=TaskState.COMPLETED),
    }
    copied = wire.json_copy(value)
    assert copied == {
        "scalars": {"s": "x", "i": 1, "b": True, "f": 1.5, "n": None},
        "enums": ["failed", {"deep": ["working", "t"]}],
        "model": {"state": "completed"},
    }
    assert type(copied["enums"][0]) is str and type(copied["enums"][1]["deep"][1]) is str
    assert copied["scalars"] is not value["scalars"]
    with pytest.raises(TypeError, match="not JSON serializable"):
        wire.json_copy({"nested": [object()]})


def test_objects_can_be_changed_in_place() -> None:
    task = Task.model_validate(TASK)
    task.status.state = TaskState.FAILED
    assert task.dump()["status"]["state"] == "failed"


def test_a_subclass_adds_fields_and_leaves_its_parent_alone() -> None:
    for _ in range(wire.COMPILE_AFTER + 1):
        TextPart(text="warm")  # the parent is compiled first

    class Tagged(TextPart):
        tags: list[str] | None = None
        weight: int = field(default=1, ge=0)

    tagged = Tagged.model_validate({"kind": "text", "text": "x", "tags": ["a"]})
    assert isinstance(tagged, Tagged) and tagged.weight == 1
    assert tagged.dump() == {"kind": "text", "text": "x", "tags": ["a"], "weight": 1}
    assert TextPart.model_validate({"kind": "text", "text": "x", "tags": ["a"]}).model_extra == {
        "tags": ["a"]
    }
    assert errors_of(Tagged, text="x", weight=-1)[0][:2] == ("weight", "greater_than_equal")


class Node(WireModel):
    """A model written with string annotations that refers to itself."""

    name: str
    kind: Literal["node"] = "node"
    children: list[Node] | None = None
    owner_id: str = field(default="root", wire="owner")


def test_string_annotations_and_a_self_referring_model() -> None:
    data = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}], "owner": "o"}
    for _ in range(wire.COMPILE_AFTER + 2):
        tree = Node.model_validate(data)
    assert tree.children is not None and tree.children[0].children is not None
    assert tree.children[0].children[0].name == "c"
    assert tree.owner_id == "o"
    assert Node.model_fields["children"].annotation == (list[Node] | None)
    assert errors_of(Node.model_validate, {"name": "a", "children": [{"children": []}]}) == [
        ("children.0.name", "missing", "Field required")
    ]


def test_mutable_defaults_are_refused() -> None:
    with pytest.raises(TypeError, match="mutable default"):

        class Bad(WireModel):
            items: list[str] = []


# --- the generated functions agree with the generic ones ------------------------------------------


INPUTS: list[tuple[type[WireModel], dict[str, Any]]] = [
    (Task, TASK),
    (Message, MESSAGE),
    (Message, {**MESSAGE, "extraField": [1], "message_id": None} | {"messageId": "x"}),
    (Message, {"message_id": "m", "role": "agent", "parts": [{"kind": "data", "data": {}}]}),
    (MessageSendParams, {"message": MESSAGE, "configuration": {"blocking": True}}),
    (MessageSendParams, {"message": MESSAGE, "configuration": {"historyLength": -1}}),
    (ListTasksParams, {"pageSize": 5, "status": "working", "includeArtifacts": False}),
    (ListTasksParams, {"pageSize": True}),
    (Artifact, {"artifactId": "a", "parts": [{"kind": "file", "file": {"uri": "u"}}]}),
    (Artifact, {"artifactId": 1, "parts": None}),
    (TaskStatusUpdateEvent, {"taskId": "t", "contextId": "c", "status": {"state": "x"}}),
    (
        AgentCard,
        {
            "name": "n",
            "description": "d",
            "url": "u",
            "version": "1",
            "capabilities": {"streaming": True, "extensions": [{"uri": "e"}]},
            "defaultInputModes": ["text"],
            "defaultOutputModes": ["text"],
            "skills": [{"id": "s", "name": "s", "description": "d", "tags": []}],
            "securitySchemes": {
                "key": {"type": "apiKey", "name": "k", "in": "header"},
                "bad": {"type": "http"},
            },
        },
    ),
]


def test_a_class_is_compiled_only_once_it_has_been_used_a_few_times() -> None:
    """So a cold start's first request generates and compiles no code at all."""

    class Fresh(WireModel):
        name: str
        tags: list[str] | None = None

    def compiled() -> bool:
        return Fresh.__dict__["_v"] is not wire._BOOTSTRAP["_v"]

    for _ in range(wire.COMPILE_AFTER - 1):
        assert Fresh.model_validate({"name": "x", "tags": ["a"]}).tags == ["a"]
        assert not compiled()
    Fresh.model_validate({"name": "x"})
    assert compiled()
    assert Fresh(name="y").dump() == {"name": "y"}


def _outcome(call: Any, *args: Any) -> Any:
    try:
        result = call(*args)
    except ValidationError as exc:
        return ("error", exc.errors())
    return ("ok", result, result.dump(), result.model_extra)


@pytest.mark.parametrize(("model", "data"), INPUTS, ids=lambda v: getattr(v, "__name__", ""))
def test_fast_and_generic_paths_agree(model: type[WireModel], data: dict[str, Any]) -> None:
    generic = _outcome(wire._slow, model, data, None)
    for _ in range(wire.COMPILE_AFTER + 1):
        fast = _outcome(model.model_validate, data)
    assert "_v" in model.__dict__ and model.__dict__["_v"] is not wire._BOOTSTRAP["_v"]
    assert fast == generic
    if fast[0] == "ok":
        assert wire._dump_slow(fast[1]) == fast[2]
        for _ in range(wire.COMPILE_AFTER + 1):
            copied = wire.deep_copy(fast[1])
        assert copied == fast[1] == wire._copy_slow(fast[1])
        assert copied.dump() == fast[2]


def _json(value: Any) -> Any:
    """A fuzzed value as a client's JSON would give it (None if it is not JSON)."""
    try:
        return json.loads(strategies.encode(value))
    except (ValueError, RecursionError):
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_fast_and_generic_paths_agree_on_fuzzed_params(data: st.DataObject) -> None:
    """Valid params of every method, and the same with one to three things wrong."""
    for model in MODELS:
        wire._compiled(model)
    request = data.draw(strategies.valid_requests())
    for _ in range(data.draw(st.integers(0, 3))):
        request = data.draw(strategies.mutated(request))
    body = _json(request)
    if not isinstance(body, dict) or not isinstance(body.get("method"), str):
        return
    method = METHODS.get(body["method"])
    model, params = method.params if method else None, body.get("params")
    if model is None or not isinstance(params, dict):
        return
    assert _outcome(model.model_validate, params) == _outcome(wire._slow, model, params, None)


# --- type checking --------------------------------------------------------------------------------


def test_mypy_checks_user_code_against_the_models(tmp_path: Path) -> None:
    """dataclass_transform gives mypy each model's keyword constructor."""
    api = pytest.importorskip("mypy.api")
    code = tmp_path / "user.py"
    code.write_text(
        textwrap.dedent(
            """
            from a2a_serverless.models import Message, TaskState, TaskStatus, TextPart

            ok = Message(message_id="m", role="user", parts=[TextPart(text="hi")])
            reveal_type(ok.parts)
            TaskStatus(state=TaskState.WORKING, timestamp=None)
            TextPart(text=1)
            Message(message_id="m", role="robot", parts=[])
            TextPart()
            TextPart(text="x", colour="red")
            """
        )
    )
    out, _err, status = api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(code)]
    )
    lines = [line.split(": ", 1)[1] for line in out.splitlines() if ": " in line]
    assert status == 1, out
    assert lines == [
        'note: Revealed type is "list[a2a_serverless.models.TextPart | '
        'a2a_serverless.models.FilePart | a2a_serverless.models.DataPart]"',
        'error: Argument "text" to "TextPart" has incompatible type "int"; expected "str"  '
        "[arg-type]",
        'error: Argument "role" to "Message" has incompatible type "Literal[\'robot\']"; '
        "expected \"Literal['user', 'agent']\"  [arg-type]",
        'error: Missing named argument "text" for "TextPart"  [call-arg]',
        'error: Unexpected keyword argument "colour" for "TextPart"  [call-arg]',
    ], out
