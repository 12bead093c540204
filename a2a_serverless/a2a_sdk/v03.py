"""a2a-sdk 0.3.x: its pydantic models are 0.3's JSON-RPC shapes, which our 0.3 codec reads and
writes (`v03/jsonrpc_convert.py`); each side is read from the other's JSON."""

from __future__ import annotations

from typing import Any

from a2a.auth.user import UnauthenticatedUser, User
from a2a.server.agent_execution import RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.types import Message as SdkMessage
from a2a.types import MessageSendConfiguration, MessageSendParams
from a2a.types import Task as SdkTask

from ..codec import convert
from ..models import Task
from ..turn import Context
from ..v03 import jsonrpc_models as rpc
from ..v03.jsonrpc_convert import message_out, stream_result_in, task_out
from . import SdkEvent, Sink


class Dialect03:
    def request_context(self, context: Context, task: Task | None) -> RequestContext:
        configuration = None
        if context.accepted_output_modes is not None:
            configuration = MessageSendConfiguration(
                accepted_output_modes=context.accepted_output_modes
            )
        params = MessageSendParams(
            message=SdkMessage.model_validate(message_out(context.message)),
            configuration=configuration,
            metadata=context.metadata or None,
        )
        return RequestContext(
            request=params,
            task_id=context.task_id,
            context_id=context.context_id,
            task=None if task is None else SdkTask.model_validate(task_out(task)),
            call_context=ServerCallContext(
                user=sdk_user(context.owner), requested_extensions=set(context.extensions)
            ),
        )

    def cancel_context(self, task: Task, owner: str | None) -> RequestContext:
        return RequestContext(
            task_id=task.id,
            context_id=task.context_id,
            task=SdkTask.model_validate(task_out(task)),
            call_context=ServerCallContext(user=sdk_user(owner)),
        )

    def event_queue(self, sink: Sink) -> EventQueue:
        return _JournalQueue(sink)


class Owner(User):
    """The authenticated caller whose task it is, as the SDK's `User`: named by its owner."""

    def __init__(self, owner: str) -> None:
        self._owner = owner

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def user_name(self) -> str:
        return self._owner


def sdk_user(owner: str | None) -> User:
    return UnauthenticatedUser() if owner is None else Owner(owner)


class _JournalQueue(EventQueue):
    """An EventQueue that hands each event to the turn as it is enqueued (nothing is queued:
    the write is done when `enqueue_event` returns)."""

    def __init__(self, sink: Sink) -> None:
        super().__init__()
        self._sink = sink

    async def enqueue_event(self, event: Any) -> None:
        await self._sink(event_in(event))


def event_in(event: Any) -> SdkEvent:
    """An SDK event (Message, Task, status or artifact update) as our model."""
    wire = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    return stream_result_in(convert(wire, rpc.StreamResult))  # type: ignore[arg-type]
