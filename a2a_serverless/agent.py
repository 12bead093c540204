"""The agent API: what a user writes to turn a function (or an executor class) into an agent.

    from a2a_serverless import agent

    @agent(name="Shouter", description="Repeats what you say, louder.")
    def shout(text: str) -> str:
        return text.upper()

The decorated name is an `Agent`: its definition (name, skills, modes — what the agent card
shows) plus the executor that does the work. A function may be sync or async, return text, parts,
artifacts or a Message, be an async generator that streams progress and artifact chunks, or end
the turn in a particular state by returning or raising `InputRequired`, `AuthRequired`,
`Rejected` or `Failed`. For full control, implement `AgentExecutor` (see `executor.py`) and wrap
it with `Agent(name=..., description=..., executor=...)`.

An agent may also answer a message at once with a Message and no task (a "direct" answer, see
`direct.py`): `@agent(..., direct=quick)` asks `quick` first and makes a task only when it
returns None; `@direct_agent(...)` makes an agent that only answers directly (no tasks).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field, replace
from typing import Any, TypedDict, Unpack, overload

from .dataclassmethods import DataclassMethods, mutable_dataclass
from .executor import AgentExecutor
from .models import AgentExtension, AgentProvider, AgentSkill, SecurityRequirement

# The vocabulary of a turn lives in turn.py; these names stay importable from here.
from .turn import AuthRequired as AuthRequired
from .turn import Context as Context
from .turn import DirectContext as DirectContext
from .turn import Failed as Failed
from .turn import InputRequired as InputRequired
from .turn import Progress as Progress
from .turn import Rejected as Rejected
from .turn import RemoteAgent as RemoteAgent
from .turn import TurnOutcome as TurnOutcome
from .turn import agent_message as agent_message
from .turn import progress as progress

# --- the agent ---------------------------------------------------------------------------------


# A dataclass whose methods are not compiled at import (dataclassmethods.py).
@mutable_dataclass
class Agent(DataclassMethods):
    """An agent: its card's name, description and skills, and what runs its turns (`executor`)
    or answers at once (`direct`). `@agent` makes one from a function."""

    name: str
    description: str
    # Runs the turns of tasks; None for an agent that only answers directly (`direct`).
    executor: AgentExecutor | None
    version: str = "1.0.0"
    skills: list[AgentSkill] = field(default_factory=list)
    input_modes: list[str] = field(default_factory=lambda: ["text/plain"])
    output_modes: list[str] = field(default_factory=lambda: ["text/plain"])
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    # Extensions declared on the card; clients activate them with `X-A2A-Extensions`.
    extensions: list[AgentExtension] = field(default_factory=list)
    # Skills shown only to authenticated callers, on the authenticated extended card
    # (`agent/getAuthenticatedExtendedCard`, `GET /v1/card`); none: no extended card.
    extended_skills: list[AgentSkill] = field(default_factory=list)
    # How long one turn may run before the task fails; keep it under the function's timeout.
    time_budget_s: float | None = None
    # For an executor the worker stops when its task is canceled (a `CancelableExecutor`, an
    # async function): how often a running turn reads its task to learn of a cancel made by
    # another instance (one in this process is seen at once), and how long the executor's
    # `cancel` may take. None: the worker's (2 s and 10 s; worker.py).
    cancel_poll_s: float | None = None
    cancel_timeout_s: float | None = None
    # The function behind a decorated agent, so it can still be called directly in tests.
    func: Callable[..., Any] | None = None
    # Asked first, in the request, about each new message (one without a taskId): returns the
    # reply (text, parts or a Message: answered at once, no task) or None (a task is made and
    # `executor` runs it). It may raise the protocol's errors (errors.py) to refuse the message.
    # See direct.py.
    direct: Callable[..., Any] | None = None
    # Other agents this one calls in its turns, by name: a URL, or an
    # `a2a_serverless.client.RemoteAgent` with its credentials. The agent reaches them as
    # `ctx.remote(name)`; A2A_REMOTE_AGENTS names more (docs/client.md).
    remote_agents: Mapping[str, str | RemoteAgent] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.executor is None and self.direct is None:
            raise TypeError(f"agent {self.name!r} needs an executor, a direct hook or both")
        for name in ("cancel_poll_s", "cancel_timeout_s"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"agent {self.name!r}: {name} must be positive, not {value!r}")
        if not self.skills:
            self.skills = [
                AgentSkill(
                    id=_slug(self.name),
                    name=self.name,
                    description=self.description,
                    tags=[],
                )
            ]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.func is None:
            raise TypeError(f"agent {self.name!r} wraps an executor, not a function")
        return self.func(*args, **kwargs)


class CardOptions(TypedDict, total=False):
    """The card's optional fields as keyword arguments: `agent()`, `direct_agent()` and the
    adapters' wrap helpers take them (`**card: Unpack[CardOptions]`) and pass on those given
    (`card_fields`), so each default is `Agent`'s, declared once, above. Iterables are made
    lists."""

    version: str
    skills: Iterable[AgentSkill]
    input_modes: Iterable[str]
    output_modes: Iterable[str]
    provider: AgentProvider | None
    documentation_url: str | None
    icon_url: str | None
    extensions: Iterable[AgentExtension]
    extended_skills: Iterable[AgentSkill]


_LISTS = ("skills", "input_modes", "output_modes", "extensions", "extended_skills")


def card_fields(card: CardOptions, *, caller: str) -> dict[str, Any]:
    """`Agent`'s keyword arguments for the card options given to `caller`; a TypeError for a
    keyword that is not one (as a misspelt keyword argument would be)."""
    for key in card:
        if key not in CardOptions.__optional_keys__:
            raise TypeError(f"{caller}() got an unexpected keyword argument {key!r}")
    fields: dict[str, Any] = dict(card)
    for key in _LISTS:
        if key in fields:
            fields[key] = list(fields[key])
    return fields


def skill(
    id: str,
    name: str | None = None,
    description: str = "",
    *,
    tags: Iterable[str] = (),
    examples: Iterable[str] = (),
    input_modes: Iterable[str] | None = None,
    output_modes: Iterable[str] | None = None,
    security: Iterable[Mapping[str, Iterable[str]]] | None = None,
) -> AgentSkill:
    """An entry for the agent card's `skills`.

    `security` (the card's shape: alternatives of scheme -> scopes) restricts who may use the
    skill, e.g. `[{"bearer": ["reports:write"]}]`; a message then names the skill in
    `metadata.skillId` (see skills.py).
    """
    return AgentSkill(
        id=id,
        name=name or id,
        description=description or name or id,
        tags=list(tags),
        examples=list(examples) or None,
        input_modes=list(input_modes) if input_modes is not None else None,
        output_modes=list(output_modes) if output_modes is not None else None,
        security_requirements=None
        if security is None
        else [SecurityRequirement.of(alt) for alt in security],
    )


@overload
def agent(func: Callable[..., Any], /) -> Agent: ...


@overload
def agent(
    func: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    time_budget_s: float | None = None,
    direct: Callable[..., Any] | None = None,
    remote_agents: Mapping[str, str | RemoteAgent] | None = None,
    **card: Unpack[CardOptions],
) -> Callable[[Callable[..., Any]], Agent]: ...


def agent(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    time_budget_s: float | None = None,
    direct: Callable[..., Any] | None = None,
    remote_agents: Mapping[str, str | RemoteAgent] | None = None,
    **card: Unpack[CardOptions],
) -> Agent | Callable[[Callable[..., Any]], Agent]:
    """Make a function an agent. Use as `@agent` or `@agent(name=..., description=...)`, with
    any of the card's fields (`CardOptions`: version, skills, modes, provider, ...).

    `direct`: a function asked first about each new message, in the request; what it returns
    is the reply (a Message, no task), None makes a task as usual (see direct.py).
    `remote_agents`: other agents it calls by name, `ctx.remote(name)` (see `Agent`).
    """
    fields = card_fields(card, caller="agent")

    def wrap(fn: Callable[..., Any]) -> Agent:
        # Here: an agent with an executor class of its own never loads the function wrapper.
        from .function_agent import function_executor

        return Agent(
            name=name or fn.__name__.replace("_", " ").title(),
            description=description or _first_paragraph(fn.__doc__) or fn.__name__,
            executor=function_executor(fn),
            time_budget_s=time_budget_s,
            func=fn,
            direct=direct,
            remote_agents=dict(remote_agents or {}),
            **fields,
        )

    return wrap(func) if func is not None else wrap


def direct_agent(
    *,
    name: str | None = None,
    description: str | None = None,
    **card: Unpack[CardOptions],
) -> Callable[[Callable[..., Any]], Agent]:
    """Make a function an agent that answers every message at once with a Message, no task.

    The function takes the message as a direct hook does (text, the Message or a
    `DirectContext`) and returns the reply: text, parts or a Message; it may raise the
    protocol's errors to refuse a message. Such an agent makes no tasks (see direct.py).
    """
    card_fields(card, caller="direct_agent")

    def wrap(fn: Callable[..., Any]) -> Agent:
        # @agent's card for the function, with the function as the direct hook and no executor.
        made = agent(name=name, description=description, **card)(fn)
        return replace(made, executor=None, direct=fn)

    return wrap


def _first_paragraph(doc: str | None) -> str:
    return inspect.cleandoc(doc).split("\n\n")[0].replace("\n", " ") if doc else ""


def _slug(name: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split()) or "default"
