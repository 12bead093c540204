"""The AWS container's init helpers: the service name's slug and the loop it makes."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from a2a_serverless import agent
from a2a_serverless_aws.container import InvocationLoop, _new_loop, service_name


@pytest.mark.parametrize(
    "name",
    ["Echo", "My  Agent!", "--x--", "Über-Agent 2", "a_b.c", "!!!", "", "Ünïcödé", "ab--cd"],
)
def test_the_service_name_is_the_names_slug(name: str) -> None:
    @agent(name=name or "x", description="d")
    async def named(text: str) -> str:
        return text

    named.name = name
    expected = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "a2a-agent"
    assert service_name(named) == expected


class _OwnLoops(asyncio.DefaultEventLoopPolicy):
    """A policy of one's own (as uvloop's is): its loop is run as it is, never replaced."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.SelectorEventLoop()


@pytest.mark.skipif(sys.version_info < (3, 12), reason="eager tasks: Python 3.12+")
def test_a_policy_of_ones_own_keeps_its_loop() -> None:
    before = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(_OwnLoops())
    try:
        made = _new_loop()
        try:
            assert type(made) is asyncio.SelectorEventLoop
        finally:
            made.close()
    finally:
        asyncio.set_event_loop_policy(before)
    made = _new_loop()
    try:
        assert type(made) is InvocationLoop
    finally:
        made.close()
