"""Contexts belong to their first owner (contexts.py), on the memory and SQLite stores: a
claim, a hold by its owner, a refusal of another, the race of two first claims, an expired
claim, and a claim that never collides with a message's idempotency key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.contexts import CLAIM_PREFIX, Contexts, claim_key
from a2a_serverless.errors import InvalidParamsError
from a2a_serverless.journal import now_ms
from a2a_serverless.store.memory import MemoryStore
from a2a_serverless.store.sqlite import SqliteStore


class Clock:
    """The store's clock, from the wall clock's now (claims are stamped with the wall clock)."""

    def __init__(self) -> None:
        self.now = now_ms()

    def __call__(self) -> int:
        return self.now


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    clock = Clock()
    made: Any = (
        MemoryStore(clock=clock)
        if request.param == "memory"
        else SqliteStore(tmp_path / "s.db", clock=clock)
    )
    made.test_clock = clock
    yield made
    await made.close()


async def test_the_first_owner_holds_a_context_and_another_is_refused(store: Any) -> None:
    contexts = Contexts(store, ttl_s=None)
    await contexts.hold("c-1", "apiKey:alice")
    await contexts.hold("c-1", "apiKey:alice")
    with pytest.raises(InvalidParamsError) as refused:
        await contexts.hold("c-1", "apiKey:bob")
    assert refused.value.data["contextId"] == "c-1"
    # Both claimed "first" (a race): the loser is refused, the winner's claim stands.
    await contexts.claim("c-2", "apiKey:bob")
    with pytest.raises(InvalidParamsError):
        await contexts.claim("c-2", "apiKey:alice")
    await contexts.claim("c-2", "apiKey:bob")
    assert (await store.find_reply(claim_key("c-2"))).owner == "apiKey:bob"


async def test_a_claim_lasts_as_long_as_a_finished_task(store: Any) -> None:
    contexts = Contexts(store, ttl_s=60)
    await contexts.hold("c-1", "apiKey:alice")
    store.test_clock.now += 59_000
    with pytest.raises(InvalidParamsError):
        await contexts.hold("c-1", "apiKey:bob")
    store.test_clock.now += 2_000
    await contexts.hold("c-1", "apiKey:bob")


def test_a_claim_key_is_no_message_key() -> None:
    # A message's key is "<owner>\n<messageId>", and an owner is never empty.
    assert claim_key("x").startswith("\n") and CLAIM_PREFIX.count("\n") == 2
    assert Contexts.guards("apiKey:alice") and not Contexts.guards("anonymous")
