"""SHA-1 and SHA-256 for what a first message hashes, without importing hashlib.

`hashlib` loads OpenSSL's bindings and BLAKE2's when imported (about 1 ms of a cold start),
and a function's init and first message hash: the page tokens' key (`pagetoken.py`), the
request's fingerprint and the message's digest, which tell a retry from a new message
(`service.py`, `store.base.message_digest`), its artifacts' name-based UUIDs (`ids.url_uuid`).
These come from CPython's own modules, those hashlib falls back to, with the same digests;
another interpreter gets hashlib's. What no first message needs (content digests, ETags, HMACs,
signatures) uses hashlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same constructors, as hashlib types them
    from hashlib import sha1, sha256
else:
    try:
        from _sha1 import sha1
    except ImportError:  # another interpreter
        from hashlib import sha1
    try:
        from _sha2 import sha256  # CPython 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # CPython 3.11
        except ImportError:  # another interpreter
            from hashlib import sha256

__all__ = ["sha1", "sha256"]
