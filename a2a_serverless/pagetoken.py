"""Page tokens of `tasks/list`: opaque to clients, tamper-evident, checked before use.

A token is the position after the last task of a page — `(updated_at_ms, task_id)` — which every
store takes as its cursor. It travels as `<payload>.<mac>` in base64url, the MAC an HMAC-SHA256
under a key of this deployment, so a token a client edited or made up is refused (-32602 / 400)
before anything in it is parsed. Even a token with a valid MAC (a leaked key) is parsed strictly:
a bounded, printable task id and an in-range number, nothing a store could choke on.

The key, in order: `A2A_PAGE_TOKEN_KEY`; else one derived from the push signing keys (secret
material every deployment that pushes already has); else one derived from the store URL, which
is not a secret — the token is then still checked strictly, and a forged one can only move the
cursor among the caller's own tasks (the owner filter is applied by the store, never the token).
"""

from __future__ import annotations

import base64
import binascii

from .config import Settings
from .errors import InvalidParamsError
from .hashes import sha256

_MAC_BYTES = 16
# Longer than any token we issue (an 8-byte number, a task id of up to 256 characters).
_MAX_TOKEN_CHARS = 512
_MAX_TASK_ID_CHARS = 256


def page_token_key(settings: Settings) -> bytes:
    """The HMAC key of this deployment's page tokens (see the module docstring)."""
    if settings.page_token_key:
        material, label = settings.page_token_key, b"setting"
    elif settings.push_signing_keys:
        material, label = settings.push_signing_keys, b"push-signing-keys"
    else:
        material, label = settings.store_url, b"store-url"
    info = b"a2a-serverless page token\0%s\0" % label
    return sha256(info + material.encode()).digest()


class PageTokens:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def encode(self, updated_at_ms: int, task_id: str) -> str:
        payload = f"{updated_at_ms}:{task_id}".encode()
        return f"{_b64(payload)}.{_b64(self._mac(payload))}"

    def decode(self, token: str) -> tuple[int, str]:
        """The cursor in `token`; InvalidParamsError naming `pageToken` for anything else."""
        try:
            if len(token) > _MAX_TOKEN_CHARS:
                raise ValueError
            encoded_payload, _, encoded_mac = token.partition(".")
            payload, mac = _unb64(encoded_payload), _unb64(encoded_mac)
            import hmac  # here, as in _mac: a deployment that lists no tasks never loads it

            if not hmac.compare_digest(mac, self._mac(payload)):
                raise ValueError
            text = payload.decode("utf-8")
            number, _, task_id = text.partition(":")
            if not number.isdigit() or not task_id or len(task_id) > _MAX_TASK_ID_CHARS:
                raise ValueError
            if not task_id.isprintable():
                raise ValueError
            updated_at_ms = int(number)
            if updated_at_ms >= 2**63:  # a position no store can hold
                raise ValueError
            return updated_at_ms, task_id
        except (binascii.Error, ValueError):
            raise InvalidParamsError(
                data={"errors": [{"field": "pageToken", "message": "Not a valid page token"}]}
            ) from None

    def _mac(self, payload: bytes) -> bytes:
        import hmac

        return hmac.new(self._key, payload, "sha256").digest()[:_MAC_BYTES]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
