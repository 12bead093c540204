"""The agent API without a server: the `@agent` decorator and its defaults, `Context`, the
outcomes, `agent_message`, `to_parts`, and how `FunctionExecutor` maps what a function returns
or yields onto TaskUpdater calls (checked against a recording stand-in for the updater).
"""

from __future__ import annotations

import asyncio
import threading
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
    agent,
    agent_message,
    progress,
    skill,
)
from a2a_serverless.agent import Progress, TurnOutcome
from a2a_serverless.executor import AgentExecutor, to_parts
from a2a_serverless.function_agent import FunctionExecutor
from a2a_serverless.models import (
    AgentProvider,
    AgentSkill,
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    Part,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
)

# --- the decorator --------------------------------------------------------------------------------


def test_agent_without_parentheses_uses_name_and_docstring() -> None:
    @agent
    def travel_planner(text: str) -> str:
        """Plans trips
        for you.

        Details that stay out of the description.
        """
        return f"plan for {text}"

    assert isinstance(travel_planner, Agent)
    assert travel_planner.name == "Travel Planner"
    assert travel_planner.description == "Plans trips for you."
    assert travel_planner.version == "1.0.0"
    assert travel_planner.input_modes == ["text/plain"]
    assert travel_planner.output_modes == ["text/plain"]
    assert travel_planner.time_budget_s is None
    assert travel_planner.skills == [
        AgentSkill(
            id="travel-planner",
            name="Travel Planner",
            description="Plans trips for you.",
            tags=[],
        )
    ]
    assert isinstance(travel_planner.executor, FunctionExecutor)
    assert isinstance(travel_planner.executor, AgentExecutor)
    # The decorated name still calls the function, for unit tests of the agent itself.
    assert travel_planner("Oslo") == "plan for Oslo"
    assert travel_planner.func is not None


def test_agent_without_docstring_describes_itself_by_name() -> None:
    @agent
    def bare(text: str) -> str:
        return text

    assert bare.name == "Bare"
    assert bare.description == "bare"
    assert bare.skills[0].id == "bare"


def test_agent_with_empty_parentheses() -> None:
    @agent()
    def quick_one() -> str:
        """Quick."""
        return "q"

    assert isinstance(quick_one, Agent)
    assert quick_one.name == "Quick One"
    assert quick_one.description == "Quick."


def test_agent_with_arguments() -> None:
    provider = AgentProvider(organization="Example", url="https://example.com")
    skills = [skill("search", "Search", "Finds things", tags=["web"], examples=["find x"])]

    @agent(
        name="Finder",
        description="Finds.",
        version="2.1.0",
        skills=skills,
        input_modes=["text/plain", "application/json"],
        output_modes=["application/json"],
        provider=provider,
        documentation_url="https://example.com/docs",
        icon_url="https://example.com/icon.png",
        time_budget_s=30,
    )
    async def finder(text: str) -> str:
        """Ignored: the description is given."""
        return text

    assert finder.name == "Finder"
    assert finder.description == "Finds."
    assert finder.version == "2.1.0"
    assert finder.skills == skills
    assert finder.input_modes == ["text/plain", "application/json"]
    assert finder.output_modes == ["application/json"]
    assert finder.provider == provider
    assert finder.documentation_url == "https://example.com/docs"
    assert finder.icon_url == "https://example.com/icon.png"
    assert finder.time_budget_s == 30
    assert asyncio.run(finder("x")) == "x"


@pytest.mark.parametrize(
    ("name", "slug"),
    [("Weather Bot", "weather-bot"), ("  A2A -- Agent!! v2 ", "a2a-agent-v2"), ("!!!", "default")],
)
def test_default_skill_id_is_a_slug_of_the_name(name: str, slug: str) -> None:
    class Noop:
        async def execute(self, context: Context, updater: Any) -> None:
            return None

    defined = Agent(name=name, description="d", executor=Noop())
    assert [s.id for s in defined.skills] == [slug]
    assert defined.skills[0].name == name
    assert defined.skills[0].description == "d"


def test_the_card_options_are_agent_fields_with_agent_defaults() -> None:
    """`CardOptions` declares the card's keywords once; their defaults are `Agent`'s."""
    import dataclasses

    from a2a_serverless.agent import CardOptions, direct_agent

    fields = {f.name for f in dataclasses.fields(Agent)}
    assert set(CardOptions.__optional_keys__) <= fields

    def echo(text: str) -> str:
        return text

    plain = Agent(name="Echo", description="echo", executor=None, direct=echo)
    for made in (agent(echo), agent(name="Echo", description="echo")(echo)):
        for key in CardOptions.__optional_keys__:
            assert getattr(made, key) == getattr(plain, key), key
    made = direct_agent(name="Echo", description="echo")(echo)
    assert all(getattr(made, k) == getattr(plain, k) for k in CardOptions.__optional_keys__)


def test_a_misspelt_card_keyword_is_refused_at_once() -> None:
    from a2a_serverless.agent import direct_agent

    with pytest.raises(TypeError, match=r"^agent\(\) got .* 'versoin'"):
        agent(versoin="2")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^direct_agent\(\) got .* 'time_budget_s'"):
        direct_agent(time_budget_s=1.0)  # type: ignore[call-arg]


def test_executor_agent_is_not_callable() -> None:
    class Noop:
        async def execute(self, context: Context, updater: Any) -> None:
            return None

    wrapped = Agent(name="Noop", description="Does nothing.", executor=Noop())
    with pytest.raises(TypeError, match="executor"):
        wrapped("x")


def test_skill_defaults() -> None:
    assert skill("lookup") == AgentSkill(id="lookup", name="lookup", description="lookup", tags=[])
    full = skill("s", "Search", tags=("a", "b"), input_modes=["text/plain"], output_modes=[])
    assert full.description == "Search"
    assert full.tags == ["a", "b"]
    assert full.examples is None
    assert full.input_modes == ["text/plain"]
    assert full.output_modes == []


# --- outcomes and progress ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "state"),
    [
        (InputRequired, "input-required"),
        (AuthRequired, "auth-required"),
        (Rejected, "rejected"),
        (Failed, "failed"),
    ],
)
def test_outcomes(cls: type[TurnOutcome], state: str) -> None:
    assert issubclass(cls, Exception)
    assert cls.state == state
    assert TaskState(cls.state)  # a real task state
    with_text = cls("why")
    assert with_text.message == "why"
    assert str(with_text) == "why"
    without = cls()
    assert without.message is None
    message = agent_message("as a message")
    with_message = cls(message)
    assert with_message.message is message


def test_progress() -> None:
    assert progress("half way") == Progress("half way")
    message = agent_message("m")
    assert progress(message).message is message


# --- Context --------------------------------------------------------------------------------------


def make_context(*history: Message) -> Context:
    message = history[-1]
    task = Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(state=TaskState.SUBMITTED),
        history=list(history),
    )
    return Context(task_id="t1", context_id="c1", message=message, task=task)


def user(*parts: Any, message_id: str = "u1") -> Message:
    return Message(role="user", message_id=message_id, parts=list(parts))


def test_the_workers_context_sets_every_field_as_init_would() -> None:
    """The worker makes each turn's Context past `__init__` (Context._of_every_field): it must
    give every field, and what it makes is what `__init__` makes from the same values."""
    import dataclasses

    from a2a_serverless.journal import Journal
    from a2a_serverless.store.base import TaskRecord
    from a2a_serverless.store.bookkeeping import TurnInfo, stored_updates
    from a2a_serverless.store.memory import MemoryStore
    from a2a_serverless.worker import Worker

    first, answer = user(Part(text="hi")), user(Part(text="more"), message_id="u2")
    task = Task(
        id="t1",
        context_id="c1",
        status=TaskStatus(state=TaskState.WORKING),
        history=[first, answer],
    )
    turn = TurnInfo(message_id="u1", skill_id="echo", metadata={"k": 1}, extensions=("urn:x",))
    record = TaskRecord(
        task=task,
        owner="alice",
        version=1,
        last_seq=0,
        created_at_ms=0,
        updated_at_ms=0,
        internal=stored_updates({}, turn=turn),
    )

    @agent
    def echo(text: str) -> str:
        return text

    worker = Worker(echo, Journal(MemoryStore()))
    made = worker._context(record, "u1", None)
    assert set(vars(made)) == {f.name for f in dataclasses.fields(Context)}
    expected = Context(**{f.name: getattr(made, f.name) for f in dataclasses.fields(Context)})
    assert made == expected and repr(made) == repr(expected)
    assert made.message == first and made.task.history == [first]  # as the turn began
    assert (made.owner, made.skill_id, made.extensions) == ("alice", "echo", ("urn:x",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.owner = "bob"  # type: ignore[misc]


def test_context_text_data_and_files() -> None:
    file_bytes = Part(raw="aGk=", media_type="text/plain", filename="hi.txt")
    file_uri = Part(url="https://example.com/a.png")
    ctx = make_context(
        user(
            Part(text="first"),
            Part(data={"a": 1}),
            file_bytes,
            Part(text="second"),
            file_uri,
            Part(data={"b": 2}),
            Part(data=[3]),
        )
    )
    assert ctx.text == "first\nsecond"
    assert ctx.data == [{"a": 1}, {"b": 2}, [3]]
    assert ctx.files == [file_bytes, file_uri]
    assert ctx.metadata == {}
    assert ctx.accepted_output_modes is None


def test_context_without_text() -> None:
    assert make_context(user(Part(data={}))).text == ""


def test_context_history_and_continuation() -> None:
    first = user(Part(text="book"), message_id="u1")
    question = agent_message("Which city?")
    answer = user(Part(text="Oslo"), message_id="u2")

    fresh = make_context(first)
    assert fresh.history == [first]
    assert fresh.is_continuation is False

    continued = make_context(first, question, answer)
    assert continued.history == [first, question, answer]
    assert continued.history[-1] == continued.message
    assert continued.is_continuation is True

    # `history` is a copy: changing it does not change the task.
    continued.history.clear()
    assert len(continued.history) == 3


# --- agent_message and to_parts -------------------------------------------------------------------


def test_agent_message() -> None:
    text = agent_message("hi")
    assert text.role == "agent"
    assert text.parts == [Part(text="hi")]
    assert text.task_id is None and text.context_id is None
    assert text.message_id != agent_message("hi").message_id

    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.WORKING))
    tied = agent_message(Part(data={"x": 1}), task=task)
    assert tied.parts == [Part(data={"x": 1})]
    assert (tied.task_id, tied.context_id) == ("t", "c")

    several = agent_message([Part(text="a"), Part(text="b")])
    assert [p.text for p in several.parts] == ["a", "b"]


def test_a_part_holds_exactly_one_kind_of_content() -> None:
    assert Part(data=None).has_data and Part(data=None).data is None
    assert not Part(text="").has_data
    for fields in ({}, {"text": "a", "url": "https://x"}, {"raw": "aGk=", "data": {}}):
        with pytest.raises(ValueError, match="exactly one of text, raw, url and data"):
            Part(**fields)
    with pytest.raises(ValueError, match="raw: must be base64"):
        Part(raw="not base64!")


def test_the_parts_of_earlier_releases_are_deprecated_constructors_of_a_part() -> None:
    with pytest.warns(DeprecationWarning, match=r"TextPart\(text=...\) is deprecated"):
        assert TextPart(text="hi", metadata={"k": 1}) == Part(text="hi", metadata={"k": 1})
    with pytest.warns(DeprecationWarning, match=r"build Part\(data=...\)"):
        assert DataPart(data={"a": 1}) == Part(data={"a": 1})
    with pytest.warns(DeprecationWarning, match=r"build Part\(raw=...\) or Part\(url=...\)"):
        inline = FilePart(file=FileWithBytes(bytes="aGk=", mime_type="text/plain", name="a"))
    assert inline == Part(raw="aGk=", media_type="text/plain", filename="a")
    with pytest.warns(DeprecationWarning):
        linked = FilePart(file=FileWithUri(uri="https://x/a.png"), metadata={})
    assert linked == Part(url="https://x/a.png", metadata={})


def test_to_parts() -> None:
    assert to_parts("x") == [Part(text="x")]
    assert to_parts(Part(text="y")) == [Part(text="y")]
    assert to_parts({"k": "v"}) == [Part(data={"k": "v"})]
    assert to_parts([Part(text="a"), Part(data={})]) == [
        Part(text="a"),
        Part(data={}),
    ]
    assert to_parts(()) == []
    for bad in (["a", "b"], [Part(text="a"), 1]):
        with pytest.raises(TypeError):
            to_parts(bad)  # type: ignore[arg-type]


# --- FunctionExecutor against a recording updater -------------------------------------------------


class RecordingUpdater:
    """Stands in for TaskUpdater: records each call as a tuple."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.threads: list[str] = []
        self._next_id = 0

    async def start_work(self, message: Any = None) -> None:
        self.calls.append(("working", message))

    async def complete(self, message: Any = None, *, artifacts: Any = ()) -> None:
        # Artifacts that come with the completion are recorded as the "artifact" calls
        # they replace (they land in the same write).
        for artifact in artifacts:
            self.calls.append(("artifact", artifact.artifact_id, artifact.name, artifact.parts))
        self.calls.append(("completed", message))

    async def add_artifact(
        self,
        content: Any,
        *,
        artifact_id: str | None = None,
        name: str | None = None,
        append: bool = False,
        last_chunk: bool | None = None,
        **_: Any,
    ) -> str:
        if isinstance(content, Artifact):
            artifact_id = content.artifact_id
        elif artifact_id is None:
            self._next_id += 1
            artifact_id = f"a{self._next_id}"
        self.calls.append(("artifact", artifact_id, name, content, append, last_chunk))
        return artifact_id


async def run_function(func: Any, text: str = "hi") -> RecordingUpdater:
    updater = RecordingUpdater()
    ctx = make_context(user(Part(text=text)))
    await FunctionExecutor(func).execute(ctx, updater)  # type: ignore[arg-type]
    return updater


async def test_function_executor_maps_return_values() -> None:
    def returns_text(text: str) -> str:
        return text * 2

    calls = (await run_function(returns_text, "ab")).calls
    assert [c[0] for c in calls] == ["working", "artifact", "completed"]
    assert calls[1][2:] == ("response", [Part(text="abab")])

    message = agent_message("bye")

    async def returns_message() -> Message:
        return message

    assert (await run_function(returns_message)).calls == [
        ("working", None),
        ("completed", message),
    ]

    artifacts = [Artifact(artifact_id="x", parts=[]), Artifact(artifact_id="y", parts=[])]

    def returns_artifacts() -> list[Artifact]:
        return artifacts

    calls = (await run_function(returns_artifacts)).calls
    assert [c[:2] for c in calls] == [
        ("working", None),
        ("artifact", "x"),
        ("artifact", "y"),
        ("completed", None),
    ]


@pytest.mark.parametrize("outcome", [InputRequired, AuthRequired, Rejected, Failed])
async def test_function_executor_raises_returned_outcomes(outcome: type[TurnOutcome]) -> None:
    def returns_outcome() -> TurnOutcome:
        return outcome("stop here")

    with pytest.raises(outcome, match="stop here"):
        await run_function(returns_outcome)


async def test_function_executor_streams_chunks_of_one_artifact() -> None:
    async def generate(text: str) -> AsyncIterator[Any]:
        yield progress("go")
        yield "a"
        yield Part(text="b")
        yield {"c": 3}

    calls = (await run_function(generate)).calls
    assert calls == [
        ("working", None),
        ("working", "go"),
        ("artifact", "a1", "response", [Part(text="a")], False, False),
        ("artifact", "a1", None, [Part(text="b")], True, False),
        ("artifact", "a1", None, [Part(data={"c": 3})], True, False),
        ("artifact", "a1", None, [], True, True),
        ("completed", None),
    ]


async def test_function_executor_stops_at_a_yielded_outcome() -> None:
    after: list[bool] = []

    async def generate(text: str) -> AsyncIterator[Any]:
        yield "partial"
        yield InputRequired("more please")
        after.append(True)

    with pytest.raises(InputRequired):
        await run_function(generate)
    assert after == []


async def test_function_executor_runs_sync_code_in_threads() -> None:
    seen: list[bool] = []

    def sync(text: str) -> str:
        seen.append(threading.current_thread() is threading.main_thread())
        return "s"

    def sync_gen(text: str) -> Iterator[str]:
        seen.append(threading.current_thread() is threading.main_thread())
        yield "g"

    async def coroutine(text: str) -> str:
        seen.append(threading.current_thread() is threading.main_thread())
        return "c"

    for func in (sync, sync_gen, coroutine):
        await run_function(func)
    assert seen == [False, False, True]


async def test_function_executor_argument_kinds() -> None:
    seen: dict[str, Any] = {}

    def by_text(text: str) -> None:
        seen["text"] = text

    def by_message(m: Message) -> None:
        seen["message"] = m

    def by_context(c: Context) -> None:
        seen["context"] = c

    def by_nothing() -> None:
        seen["nothing"] = True

    def by_untyped(c):  # type: ignore[no-untyped-def]
        seen["untyped"] = c

    def by_unresolvable(c: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        seen["unresolvable"] = c

    for func in (by_text, by_message, by_context, by_nothing, by_untyped, by_unresolvable):
        await run_function(func, "words")
    assert seen["text"] == "words"
    assert isinstance(seen["message"], Message)
    assert seen["message"].message_id == "u1"
    assert isinstance(seen["context"], Context)
    assert seen["nothing"] is True
    assert isinstance(seen["untyped"], Context)
    assert isinstance(seen["unresolvable"], Context)


async def test_function_executor_rejects_unsupported_values() -> None:
    def returns_object() -> object:
        return object()

    with pytest.raises(TypeError, match="object"):
        await run_function(returns_object)
