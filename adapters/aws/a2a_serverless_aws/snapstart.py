"""Lambda SnapStart: the runtime hooks around the snapshot of an initialised container.

With SnapStart (serverless.yml's `snapStart` parameter, infra/aws's `snap_start`), Lambda runs
a version's init once, snapshots the process, and starts every later container from a copy of
that snapshot, possibly days later and many times over. The Container registers two hooks with
the runtime's `snapshot_restore_py` (the Lambda Python runtime provides it; it is not a
dependency) when Lambda says the init is for a snapshot (AWS_LAMBDA_INITIALIZATION_TYPE =
"snap-start"):

- before the snapshot: close the store's and the queue's pooled connections, so that no copy
  inherits (and shares with its siblings) the TCP and TLS state of the one snapshotted;
- after each restore: reseed `random` (ids come from `os.urandom`, which the kernel keeps
  unique, but the jitter of retries and back-off uses `random`, whose state every copy would
  otherwise repeat); close connections again and prime anew (priming.py), so the first request
  does not open them; mark the fetched JWKS and OpenID configurations stale (their ages come
  from a monotonic clock that says nothing of how long the snapshot waited) and forget the
  webhook hosts' rate buckets (same clock).

What a user's agent code must do is in adapters/aws/README.md ("SnapStart"): the same for
whatever it builds at import (its own clients and connections, random generators, cached
tokens), with its own hooks.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from .config import INITIALIZATION_TYPE as INITIALIZATION_TYPE
from .config import SNAP_START as SNAP_START
from .config import snapshot_init as snapshot_init
from .priming import prime

if TYPE_CHECKING:
    import asyncio

    from a2a_serverless.runtime import Runtime

log = logging.getLogger("a2a_serverless_aws.snapstart")


class Container(Protocol):
    """What the hooks use of the Lambda container (container.py's, which registers them: a
    protocol, so that this module does not import it back)."""

    loop: asyncio.AbstractEventLoop
    queue: object
    runtime: Runtime
    primed: bool


def register(container: Container) -> bool:
    """Register the container's hooks with the runtime; False when it has no SnapStart hooks
    (`snapshot_restore_py` missing: not Lambda's Python runtime, or too old a one)."""
    try:
        from snapshot_restore_py import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
            register_after_restore,
            register_before_snapshot,
        )
    except ImportError:
        log.warning(
            "SnapStart init without snapshot_restore_py: connections will not be dropped "
            "before the snapshot nor random state refreshed after restores"
        )
        return False
    register_before_snapshot(before_snapshot, container)
    register_after_restore(after_restore, container)
    return True


def before_snapshot(container: Container) -> None:
    _drop_connections(container)


def after_restore(container: Container) -> None:
    import random  # here: a container that is never restored does not load it

    random.seed()
    _drop_connections(container)
    runtime = container.runtime
    for authenticator in runtime.security.authenticators.values():
        mark_stale = getattr(authenticator, "mark_stale", None)
        if mark_stale is not None:
            mark_stale()
    if runtime.notifier is not None:
        runtime.notifier.host_limiter.reset()
    if container.primed:
        prime(container.loop, runtime.store, container.queue)


def _drop_connections(container: Container) -> None:
    for part in (container.runtime.store, container.queue):
        drop = getattr(part, "drop_connections", None)
        if drop is not None:
            drop()
