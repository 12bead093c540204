"""The vocabulary of a turn, shared by every way of writing an agent: what the agent sees
(`Context`, `DirectContext`), how a turn ends other than "completed" (`TurnOutcome` and its kinds),
progress reports, and turning content (text, parts, a dict) into parts and agent messages.

`Context.call`, `.sleep` and `.step` are the agent's durable operations (docs/durable-calls.md):
the worker gives the context a `DurableOps` (durable/session.py) for the turn.

A leaf module: it imports only the protocol models (and durable/outcomes.py, a leaf), so
agent.py (definitions), executor.py (the class API), function_agent.py and direct.py all build
on it without importing each other in a circle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import field
from typing import Any, Protocol

import msgspec

from .dataclassmethods import DataclassMethods, frozen_dataclass
from .durable.outcomes import CallResult, DurableUnavailable
from .ids import random_uuid
from .models import Message, Part, Task

# The owner of every task where nobody is authenticated (auth's ANONYMOUS identity's).
ANONYMOUS_OWNER = "anonymous"

# --- how a turn ends, other than "completed" --------------------------------------------------


class TurnOutcome(Exception):
    """Ends the agent's turn in a particular state, with an optional message to the client."""

    state: str = ""

    def __init__(self, message: str | Message | None = None) -> None:
        super().__init__(message if isinstance(message, str) else self.state)
        self.message = message


class InputRequired(TurnOutcome):
    """Ask the client for more input; the task continues with the client's next message."""

    state = "input-required"


class AuthRequired(TurnOutcome):
    """The agent needs the client to authenticate (out of band) before it can go on."""

    state = "auth-required"


class Rejected(TurnOutcome):
    """The agent declines the task."""

    state = "rejected"


class Failed(TurnOutcome):
    """The task failed; unlike any other exception, its message is shown to the client."""

    state = "failed"


class Progress(msgspec.Struct, frozen=True):
    """Yield this from a generator agent to report progress as a `working` status message."""

    message: str | Message


def progress(message: str | Message) -> Progress:
    return Progress(message)


class DurableOps(Protocol):
    """The durable operations of one turn (durable/session.py's `DurableSession`)."""

    async def call(
        self,
        remote: str,
        message: str | Message,
        *,
        deadline_s: float | None = None,
        task_id: str | None = None,
    ) -> CallResult: ...

    async def sleep(self, seconds: float) -> None: ...

    async def step(self, fn: Callable[[], Any], *, name: str | None = None) -> Any: ...


# --- what the agent sees ----------------------------------------------------------------------


class _MessageContent:
    """What both views of an incoming message read from its parts."""

    message: Message

    @property
    def text(self) -> str:
        """The text parts of the message, joined by newlines."""
        return "\n".join(p.text for p in self.message.parts if p.text is not None)

    @property
    def data(self) -> list[Any]:
        """The content of the data parts (a JSON object, or any other JSON value)."""
        return [p.data for p in self.message.parts if p.has_data]

    @property
    def files(self) -> list[Part]:
        """The file parts: each with its bytes (`raw`, base64) or its `url`, and its
        `media_type` and `filename` when the client gave them."""
        return [p for p in self.message.parts if p.raw is not None or p.url is not None]


# Frozen dataclasses whose methods are not compiled at import (dataclassmethods.py).
@frozen_dataclass
class DirectContext(DataclassMethods, _MessageContent):
    """A message a direct hook may answer at once: no task exists (nor will, if it answers)."""

    message: Message
    # The reply's contextId: the message's, or a new one.
    context_id: str
    metadata: dict[str, Any] = field(default_factory=dict)
    accepted_output_modes: list[str] | None = None
    extensions: tuple[str, ...] = ()
    skill_id: str | None = None


class RemoteAgent(Protocol):
    """Another agent this one may call in its turn, configured by name (`Agent.remote_agents`,
    A2A_REMOTE_AGENTS; `a2a_serverless.client.RemoteAgent` is the implementation)."""

    # Where it is (its card is at /.well-known/agent-card.json under it).
    url: str

    async def ask(self, text: str, *, context_id: str | None = None) -> str:
        """Send `text`, wait for the answer, return its text."""
        ...

    async def send(self, message: Message | str, *, blocking: bool = True) -> Task | Message:
        """Send a message; the task (or the direct answer) as the remote agent returns it."""
        ...


@frozen_dataclass
class Context(DataclassMethods, _MessageContent):
    """Everything about the turn the agent is asked to work on."""

    task_id: str
    context_id: str
    message: Message
    # The task as it stood when this turn began: its history ends with `message`.
    task: Task
    metadata: dict[str, Any] = field(default_factory=dict)
    accepted_output_modes: list[str] | None = None
    # URIs of the extensions the client activated for the request that sent this message.
    extensions: tuple[str, ...] = ()
    # The skill the message is for (metadata.skillId, or implied; see skills.py), if any.
    skill_id: str | None = None
    # Whose task this is: the authenticated caller's tenancy key (auth's `Identity.owner`);
    # None when the deployment authenticates nobody. Contexts are per owner: an agent that
    # keeps state per context keys it on (owner, context_id).
    owner: str | None = None
    # The remote agents configured for this agent, by name (see `remote`).
    remote_agents: Mapping[str, RemoteAgent] = field(default_factory=dict)
    # The turn's durable operations (`call`, `sleep`, `step`); None outside the worker (a
    # context made by hand).
    durable: DurableOps | None = field(default=None, repr=False, compare=False)

    @classmethod
    def _of_every_field(cls, **values: Any) -> Context:
        """A context from a value for every one of its fields, as the worker makes one each
        turn: set as they are, past `__init__`'s defaults and checks (~1 us of a warm turn).
        A unit test holds the worker to giving every field."""
        context = object.__new__(cls)
        context.__dict__.update(values)
        return context

    def remote(self, name: str) -> RemoteAgent:
        """The remote agent configured as `name`: `await ctx.remote("weather").ask("...")`."""
        found = self.remote_agents.get(name)
        if found is None:
            known = ", ".join(sorted(self.remote_agents)) or "none"
            raise LookupError(
                f"no remote agent named {name!r} (configured: {known}; see Agent.remote_agents "
                "and A2A_REMOTE_AGENTS)"
            )
        return found

    @property
    def history(self) -> list[Message]:
        """The task's conversation so far, this message last."""
        return list(self.task.history or [])

    @property
    def is_continuation(self) -> bool:
        """True when this message continues an existing task (it answers the agent)."""
        return len(self.task.history or []) > 1

    # --- durable operations (docs/durable-calls.md) ----------------------------------------

    async def call(
        self,
        remote: str,
        message: str | Message,
        *,
        deadline_s: float | None = None,
        task_id: str | None = None,
    ) -> CallResult:
        """Send `message` to the agent `remote` (a URL, or a name from `Agent(remote_agents=...)` /
        A2A_REMOTE_AGENTS) and wait for its task to end, durably: if it takes longer than the
        inline window, this turn suspends and resumes (replayed) when it has. Returns the
        `CallResult` (completed, or input-required: answer with `task_id=result.task_id`);
        raises `RemoteFailed`, `RemoteRejected`, `RemoteCanceled`, `CallDeadlineExceeded`,
        `RemoteUnavailable`."""
        return await self._durable().call(remote, message, deadline_s=deadline_s, task_id=task_id)

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds`, durably: a long wait suspends the turn instead of holding a worker."""
        await self._durable().sleep(seconds)

    async def step(self, fn: Callable[[], Any | Awaitable[Any]], *, name: str | None = None) -> Any:
        """Run `fn` (non-deterministic work: a clock, a random draw, a side effect) once and
        record what it returns (JSON); a replay of the turn gets the recorded value."""
        return await self._durable().step(fn, name=name)

    def _durable(self) -> DurableOps:
        if self.durable is None:
            raise DurableUnavailable(
                "durable operations (ctx.call, ctx.sleep, ctx.step) run in the worker's turns only"
            )
        return self.durable


def agent_message(
    content: Content,
    *,
    task: Task | None = None,
    context_id: str | None = None,
) -> Message:
    """A Message from the agent; tied to `task` (or only to `context_id`) when given."""
    return Message(
        role="agent",
        parts=to_parts(content),
        message_id=random_uuid(),
        task_id=task.id if task else None,
        context_id=task.context_id if task else context_id,
    )


# --- content into parts -----------------------------------------------------------------------


Content = str | Part | Sequence[Part] | dict[str, Any]


def to_parts(content: Content) -> list[Part]:
    """Parts from text, a part, a list of parts or a dict (a data part)."""
    if isinstance(content, str):
        return [Part(text=content)]
    if isinstance(content, Part):
        return [content]
    if isinstance(content, dict):
        return [Part(data=content)]
    parts = list(content)
    if not all(isinstance(p, Part) for p in parts):
        raise TypeError("expected text, a Part, a list of Parts or a dict")
    return parts
