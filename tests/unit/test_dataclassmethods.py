"""The public dataclasses whose eq, hash and repr come from DataclassMethods answer as the
methods dataclasses would generate for them: each is compared with a twin made by plain
`@dataclass` from the same fields and values."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from a2a_serverless.auth.base import Identity, RequestView
from a2a_serverless.config import Settings
from a2a_serverless.dataclassmethods import DataclassMethods
from a2a_serverless.models import Message, Part, Task, TaskState, TaskStatus
from a2a_serverless.turn import Context, DirectContext
from a2a_serverless_aws.config import AwsSettings

MESSAGE = Message(role="user", message_id="m1", parts=[Part(text="hi")])
TASK = Task(id="t1", context_id="c1", status=TaskStatus(state=TaskState.SUBMITTED))

SAMPLES: list[Any] = [
    Settings(),
    Settings(store_url="memory://", page_token_key="secret", auth_api_keys="also secret"),
    AwsSettings(sqs_queue_url="https://sqs.us-east-1.amazonaws.com/1/q"),
    Identity("alice", "bearer", scopes={"read"}, claims={"sub": "alice"}),
    RequestView(headers={"authorization": "Bearer x"}, query={"q": "1"}),
    DirectContext(message=MESSAGE, context_id="c1", extensions=("urn:x",)),
    Context(task_id="t1", context_id="c1", message=MESSAGE, task=TASK, skill_id="echo"),
]


def twin_class(cls: type) -> type:
    """A plain frozen dataclass with `cls`'s name and fields: dataclasses' own methods."""
    specs = [
        (f.name, f.type, dataclasses.field(repr=f.repr, hash=f.hash, compare=f.compare))
        for f in dataclasses.fields(cls)
    ]
    plain = dataclasses.make_dataclass(cls.__name__, specs, frozen=True)
    plain.__qualname__ = cls.__qualname__
    return plain


def as_twin(plain: type, value: Any) -> Any:
    made = object.__new__(plain)
    for f in dataclasses.fields(value):
        object.__setattr__(made, f.name, getattr(value, f.name))
    return made


def hash_of(value: Any) -> int | type[TypeError]:
    try:
        return hash(value)
    except TypeError:
        return TypeError


@pytest.mark.parametrize("value", SAMPLES, ids=lambda v: type(v).__name__)
def test_eq_hash_and_repr_are_those_dataclasses_would_generate(value: Any) -> None:
    assert isinstance(value, DataclassMethods) and dataclasses.is_dataclass(value)
    plain_class = twin_class(type(value))
    plain = as_twin(plain_class, value)
    assert repr(value) == repr(plain)
    assert hash_of(value) == hash_of(plain)
    same = dataclasses.replace(value)
    assert value == same
    assert (value != same) is False
    assert (value == plain) is False  # another class: NotImplemented both ways
    for f in dataclasses.fields(value):
        if not f.init:
            continue
        try:
            changed = dataclasses.replace(value, **{f.name: _other(getattr(value, f.name))})
        except Exception:  # a value the class refuses (its checks): nothing to compare
            continue
        plain_changed = as_twin(plain_class, changed)
        assert (value == changed) == (plain == plain_changed), f.name


def _other(value: Any) -> Any:
    """A value unlike `value` (of a type the field takes, or near enough for equality)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "-other"
    if isinstance(value, frozenset | tuple | list):
        return type(value)([*value, "other"])
    if isinstance(value, dict):
        return {**value, "other": 1}
    if value is None:
        return "other"
    return object()


def test_a_repr_that_reaches_itself_says_so() -> None:
    metadata: dict[str, Any] = {}
    context = DirectContext(message=MESSAGE, context_id="c1", metadata=metadata)
    metadata["again"] = context
    assert "metadata={'again': ...}" in repr(context)
