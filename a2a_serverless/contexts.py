"""Contexts belong to the first owner that uses them.

A contextId groups a caller's tasks, and executors keep conversation state under it (ADK's
sessions, a LangGraph thread, an agent's own memory). Any caller may name any contextId in a
message, so without a rule Bob's message, naming Alice's contextId, would run in Alice's
conversation in such an executor. The rule: the first owner to use a context holds it; a
message of another owner that names it (to start a task, or to be answered directly) is refused
with -32602 / HTTP 400 before anything is stored or run, on every transport and version. A
context the server makes up for a message without one is claimed for its owner at once.

A claim is kept in the store's reply table (`Store.put_reply`: the one atomic, owner-stamped
claim every store has, run by the contract suite on each) under a key no message's can be
(`CLAIM_PREFIX` + the id: a message's key begins with its owner, never with a line break), as
a marker message. It lasts as long as a finished task is kept (`finished_task_ttl_s`; by
default for as long as the store lives) from the first use; an expired claim goes to whoever
uses the context next. Where nobody is authenticated every task has the one owner, so there is
nothing to refuse and nothing is written (`Contexts.guards`).
"""

from __future__ import annotations

from .errors import InvalidParamsError, ServiceUnavailableError
from .journal import now_ms
from .models import Message, Part
from .store.base import IdempotencyKeyTaken, Store, StoredReply
from .turn import ANONYMOUS_OWNER

CLAIM_PREFIX = "\ncontext\n"


class Contexts:
    """Who holds which context: checked and claimed in the store."""

    def __init__(self, store: Store, ttl_s: float | None) -> None:
        self.store = store
        self.ttl_s = ttl_s

    @staticmethod
    def guards(owner: str) -> bool:
        """Whether this owner's contexts are kept apart (not where nobody is authenticated)."""
        return owner != ANONYMOUS_OWNER

    async def hold(self, context_id: str, owner: str) -> None:
        """Let `owner` use `context_id` if it holds it, or nobody does (it then claims it);
        InvalidParamsError if another owner holds it."""
        claim = await self.store.find_reply(claim_key(context_id))
        if claim is None:
            await self.claim(context_id, owner)
        elif claim.owner != owner:
            raise _taken(context_id)

    async def claim(self, context_id: str, owner: str) -> None:
        """Claim `context_id` for `owner`; InvalidParamsError if another owner got in first."""
        stamp = now_ms()
        marker = Message(
            role="agent",
            message_id=claim_key(context_id),
            parts=[Part(text="context claim")],
            context_id=context_id,
        )
        claim = StoredReply(
            key=claim_key(context_id),
            owner=owner,
            request_digest="",
            reply=marker,
            created_at_ms=stamp,
            expires_at_ms=None if self.ttl_s is None else stamp + int(self.ttl_s * 1000),
        )
        try:
            await self.store.put_reply(claim)
        except IdempotencyKeyTaken:
            holder = await self.store.find_reply(claim.key)
            if holder is None:
                # The claim that beat ours expired in between: the client may simply retry.
                raise ServiceUnavailableError(
                    "The context was just claimed and released; send the message again"
                ) from None
            if holder.owner != owner:
                raise _taken(context_id) from None


def claim_key(context_id: str) -> str:
    return CLAIM_PREFIX + context_id


def _taken(context_id: str) -> InvalidParamsError:
    return InvalidParamsError(
        f"contextId {context_id} is another caller's: leave it out to start a new context, "
        "or name one of your own",
        data={
            "errors": [{"field": "message.contextId", "message": "belongs to another caller"}],
            "contextId": context_id,
        },
    )
