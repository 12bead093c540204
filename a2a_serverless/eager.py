"""Tasks started at once, within the caller's step of the event loop (Python 3.12's eager
tasks), for the warm request path: work that need not wait (a memory store's read, a turn that
writes to one) then ends without the loop turning for it; what does wait goes on as a task.
On Python 3.11, which has no eager tasks, they are started on the loop's next turn as usual.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def start_task(coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """`coroutine` as a task run at once up to its first real wait (3.12; 3.11: a task)."""
    loop = asyncio.get_running_loop()
    if sys.version_info >= (3, 12):
        return asyncio.Task(coroutine, loop=loop, eager_start=True)
    return loop.create_task(coroutine)


async def gather(*coroutines: Coroutine[Any, Any, T]) -> list[T]:
    """`asyncio.gather` of `coroutines`, each started at once: when none of them had to wait,
    their results without a turn of the loop (a gather of finished tasks still takes two)."""
    tasks = [start_task(coroutine) for coroutine in coroutines]
    if not all(task.done() for task in tasks):
        return await asyncio.gather(*tasks)
    # As gather: the first failure is raised; the others' are retrieved, not left to be logged.
    failures = [error for task in tasks if (error := task.exception()) is not None]
    if failures:
        raise failures[0]
    return [task.result() for task in tasks]
