"""The public dataclasses made by `@frozen_dataclass` (and `Agent`, by `@mutable_dataclass`)
answer as the methods dataclasses would
generate for them: each is compared with a twin made by plain `@dataclass` from the same fields
and values; their `__init__` takes and refuses what a generated one does; no method of theirs
is compiled when the class is made."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from a2a_serverless.agent import Agent
from a2a_serverless.auth.base import Identity, RequestView
from a2a_serverless.config import Settings
from a2a_serverless.dataclassmethods import (
    DataclassMethods,
    frozen_dataclass,
    mutable_dataclass,
)
from a2a_serverless.models import Message, Part, Task, TaskState, TaskStatus
from a2a_serverless.turn import Context, DirectContext
from a2a_serverless_aws.config import AwsSettings
from a2a_serverless_gcp.config import GcpSettings

MESSAGE = Message(role="user", message_id="m1", parts=[Part(text="hi")])
TASK = Task(id="t1", context_id="c1", status=TaskStatus(state=TaskState.SUBMITTED))

SAMPLES: list[Any] = [
    Settings(),
    Settings(store_url="memory://", page_token_key="secret", auth_api_keys="also secret"),
    AwsSettings(sqs_queue_url="https://sqs.us-east-1.amazonaws.com/1/q"),
    GcpSettings(project="p", worker_secret="s"),
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


@frozen_dataclass
class Sample(DataclassMethods):
    """A class of every kind of field __init__ fills."""

    required: str
    number: int = 1
    items: list[str] = dataclasses.field(default_factory=list)
    later: str = dataclasses.field(default="fixed", init=False)
    named: str | None = dataclasses.field(default=None, kw_only=True)
    seen: list[str] = dataclasses.field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.seen.append(self.required)


Twin = dataclasses.make_dataclass(
    "Sample",
    [
        ("required", str),
        ("number", int, dataclasses.field(default=1)),
        ("items", list[str], dataclasses.field(default_factory=list)),
        ("later", str, dataclasses.field(default="fixed", init=False)),
        ("named", str | None, dataclasses.field(default=None, kw_only=True)),
        ("seen", list[str], dataclasses.field(default_factory=list, init=False)),
    ],
    frozen=True,
    namespace={"__post_init__": Sample.__post_init__},
)


def _made(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return cls(*args, **kwargs)
    except TypeError as error:
        return (TypeError, str(error).replace(cls.__qualname__ + ".", ""))


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("r",), {}),
        (("r", 2, ["a"]), {"named": "n"}),
        ((), {"required": "r", "items": ["b"]}),
        ((), {}),  # missing
        (("r", 2, ["a"], "x"), {}),  # too many positional (`named` is keyword-only)
        (("r",), {"required": "again"}),  # twice
        (("r",), {"later": "x"}),  # not an init field
        (("r",), {"unknown": 1}),
    ],
)
def test_init_takes_and_refuses_what_a_generated_one_does(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ours, plain = _made(Sample, args, kwargs), _made(Twin, args, kwargs)
    if isinstance(plain, tuple):
        assert ours == plain
        return
    assert dataclasses.asdict(ours) == dataclasses.asdict(plain)
    assert list(vars(ours)) == list(vars(plain))  # fields set in declaration order
    assert ours.seen == [ours.required]  # __post_init__ ran once


def test_default_factories_make_a_new_value_per_instance() -> None:
    first, second = Sample("a"), Sample("b")
    assert first.items == [] and first.items is not second.items


@pytest.mark.parametrize("value", [Sample("r"), *SAMPLES], ids=lambda v: type(v).__name__)
def test_instances_are_frozen_and_copy_as_dataclasses(value: Any) -> None:
    name = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, "other")
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(value, name)
    assert copy.copy(value) == value
    params = type(value).__dataclass_params__
    assert params.frozen and params.init


def test_the_classes_compile_no_method(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    monkeypatch.setattr(dataclasses, "_create_fn", lambda name, *a, **k: compiled.append(name))

    @frozen_dataclass
    class Made(DataclassMethods):
        value: int = 0

    @frozen_dataclass(slots=True)
    class Slotted(DataclassMethods):
        value: int = 0

    @mutable_dataclass
    class Changing(DataclassMethods):
        value: int = 0

    assert compiled == []
    assert Made(1) == Made(1) and Slotted(2).value == 2 and not hasattr(Slotted(), "__dict__")
    assert Changing(3) == Changing(3)


def test_only_for_dataclassmethods_subclasses() -> None:
    with pytest.raises(TypeError, match="subclasses DataclassMethods"):

        @frozen_dataclass
        class Plain:
            value: int = 0


class _Executor:
    async def execute(self, context: Any, updater: Any) -> None:
        return None


def test_a_mutable_dataclass_compares_and_shows_as_a_generated_one_and_is_unhashable() -> None:
    value = Agent(name="Echo", description="Says back.", executor=_Executor())
    specs = [
        (f.name, f.type, dataclasses.field(repr=f.repr, compare=f.compare))
        for f in dataclasses.fields(Agent)
    ]
    plain_class = dataclasses.make_dataclass("Agent", specs)
    plain_class.__qualname__ = Agent.__qualname__
    plain = plain_class(**{f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    assert repr(value) == repr(plain)
    assert value == dataclasses.replace(value)
    assert value != dataclasses.replace(value, version="2")
    with pytest.raises(TypeError, match="unhashable"):
        hash(value)
    value.version = "3"  # mutable: as an ordinary dataclass
    assert value.version == "3" and not type(value).__dataclass_params__.frozen
    assert value.skills[0].id == "echo"  # its __post_init__ ran


@pytest.mark.parametrize(
    "cls",
    [Settings, AwsSettings, GcpSettings, Identity, RequestView, DirectContext, Context, Agent],
)
def test_inspect_signature_is_that_of_a_generated_init(cls: type) -> None:
    """help(), editors and tools that read `inspect.signature` see the fields, as they would on
    a plain dataclass (the shared `__init__` itself takes `*args, **kwargs`)."""
    import inspect

    specs = [
        (
            f.name,
            f.type,
            dataclasses.field(
                default=f.default, default_factory=f.default_factory, init=f.init, kw_only=f.kw_only
            ),
        )
        for f in dataclasses.fields(cls)
    ]
    plain = dataclasses.make_dataclass(cls.__name__, specs)
    assert str(inspect.signature(cls)) == str(inspect.signature(plain))
    assert inspect.signature(cls) is inspect.signature(cls)  # made once
