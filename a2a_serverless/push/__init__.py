"""Push notifications (webhooks), the agent's sending side: reliable, signed, SSRF-safe delivery.

- `PushNotifier` (`notifier.py`) — what the runtime wires: the journal commit hook, the Queue
  job handler that delivers one notification in order with retries, the set-time URL check,
  the JWKS and the redrive of a dead letter. Its parts, one job each:
  `outbox.py` (which notifications a write owes, queued as jobs; requeued when lost),
  `cursors.py` (each config's delivery cursor in the task record), `payload.py` (a
  notification's id, body and headers), `delivery.py` (one checked, bounded POST),
  `deadletters.py` (giving up, and the redrive's record), `ratelimit.py` (per receiving host),
  `signing.py` (the JWT), `ssrf.py` (the URL guard);
- `push_available(settings)` — whether this deployment can offer push at all (signing keys,
  or dev mode);
- `KeyRing`, `generate_key`, `generate_keys_json` — signing keys (`keys.py`; the `keys
  generate` command is in cli.py);
- `UrlGuard` — the SSRF guard (`ssrf.py` explains what it refuses).

Receiving (for whoever runs the webhook) is `a2a_serverless.webhook_receiver`: `WebhookVerifier`
and its errors, re-exported here as they always were.

Names are imported on first use: `import a2a_serverless.push` costs no PyJWT, cryptography or
httpx import, and the receiver side does not pull in the agent side.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..store.bookkeeping import DeadLetteredNotification
    from ..webhook_receiver import (
        BadSignature,
        BodyMismatch,
        ClaimMismatch,
        ExpiredNotification,
        KeySetUnavailable,
        MalformedNotification,
        MemoryReplayCache,
        MissingSignature,
        NotificationRejected,
        ReplayCache,
        ReplayedNotification,
        TokenMismatch,
        UnknownKey,
        VerifiedNotification,
        WebhookVerifier,
    )
    from .deadletters import RedriveResult
    from .delivery import DeliveryResult
    from .keys import (
        KeyRing,
        PushNotConfigured,
        PushUnavailable,
        SigningKey,
        generate_key,
        generate_keys_json,
        push_available,
    )
    from .notifier import WEBHOOK_JOB, PushNotifier
    from .payload import notification_id
    from .signing import JwtSigner
    from .ssrf import HostUnresolvable, PinnedTarget, UrlGuard, UrlRefused

_EXPORTS = {
    "DeliveryResult": "delivery",
    "KeyRing": "keys",
    "PushNotConfigured": "keys",
    "PushUnavailable": "keys",
    "SigningKey": "keys",
    "generate_key": "keys",
    "generate_keys_json": "keys",
    "push_available": "keys",
    "WEBHOOK_JOB": "notifier",
    "DeadLetteredNotification": ".store.bookkeeping",
    "PushNotifier": "notifier",
    "RedriveResult": "deadletters",
    "notification_id": "payload",
    "BadSignature": ".webhook_receiver",
    "BodyMismatch": ".webhook_receiver",
    "ClaimMismatch": ".webhook_receiver",
    "ExpiredNotification": ".webhook_receiver",
    "KeySetUnavailable": ".webhook_receiver",
    "MalformedNotification": ".webhook_receiver",
    "MemoryReplayCache": ".webhook_receiver",
    "MissingSignature": ".webhook_receiver",
    "NotificationRejected": ".webhook_receiver",
    "ReplayCache": ".webhook_receiver",
    "ReplayedNotification": ".webhook_receiver",
    "TokenMismatch": ".webhook_receiver",
    "UnknownKey": ".webhook_receiver",
    "VerifiedNotification": ".webhook_receiver",
    "WebhookVerifier": ".webhook_receiver",
    "JwtSigner": "signing",
    "HostUnresolvable": "ssrf",
    "PinnedTarget": "ssrf",
    "UrlGuard": "ssrf",
    "UrlRefused": "ssrf",
}

__all__ = [
    "WEBHOOK_JOB",
    "BadSignature",
    "BodyMismatch",
    "ClaimMismatch",
    "DeadLetteredNotification",
    "DeliveryResult",
    "ExpiredNotification",
    "HostUnresolvable",
    "JwtSigner",
    "KeyRing",
    "KeySetUnavailable",
    "MalformedNotification",
    "MemoryReplayCache",
    "MissingSignature",
    "NotificationRejected",
    "PinnedTarget",
    "PushNotConfigured",
    "PushNotifier",
    "PushUnavailable",
    "RedriveResult",
    "ReplayCache",
    "ReplayedNotification",
    "SigningKey",
    "TokenMismatch",
    "UnknownKey",
    "UrlGuard",
    "UrlRefused",
    "VerifiedNotification",
    "WebhookVerifier",
    "generate_key",
    "generate_keys_json",
    "notification_id",
    "push_available",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Names relative to this package; ".x" is the kit's module x, outside it.
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
