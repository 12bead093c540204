"""Who holds a lease, and whether that holder is known to be gone.

A lease (a job's, a turn's) normally ends by running out. Where every holder runs on this
machine — processes sharing one SQLite file — a holder can be recognised as dead at once: its
id names the host and process id, and that process no longer exists. The dev server killed
mid-turn is then resumed as soon as it starts again, not a lease later.
"""

from __future__ import annotations

import os
import socket

from .ids import random_hex


def local_holder_id() -> str:
    """A holder id naming this host and process: "<host>/<pid>/<random>"."""
    return f"{socket.gethostname()}/{os.getpid()}/{random_hex()}"


def holder_is_dead(holder: str | None) -> bool:
    """True only when `holder` is a local holder id of a process of this host that has exited.

    Another host's holder, a holder of this very process (another queue or worker in it, which
    is alive) and any id of another form are not known to be dead.
    """
    if not holder:
        return False
    host, sep, rest = holder.partition("/")
    pid_text, sep2, _ = rest.partition("/")
    if not sep or not sep2 or not pid_text.isdigit() or host != socket.gethostname():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False  # exists (another user's), or cannot tell
    return False
