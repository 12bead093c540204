"""Optional dependencies ("extras"): which features need them, and the error when one is missing.

`pip install a2a-serverless` is the lean core: both transports, the stores, the queue, API keys
and identities from the platform's authorizer (A2A_AUTH_UPSTREAM). Asymmetric JWTs need the
`crypto` extra (`pip install 'a2a-serverless[crypto]'`: `cryptography`, through PyJWT's own
extra), about 5 MiB of a Lambda zip:

- signing push notifications (A2A_PUSH_SIGNING_KEYS; in dev mode, the ephemeral key);
- verifying bearer JWTs and OpenID Connect tokens (A2A_AUTH_JWT_*, A2A_AUTH_OIDC_URL);
- verifying our webhooks on the receiving side (`WebhookVerifier`);
- `a2a-serverless keys generate`.

A feature that is configured without its extra fails when it is set up (the Runtime, at
start-up), not on the first request that needs it: `require_crypto` looks the package up
without importing it, so the check costs a cold start next to nothing and the import itself
still happens on first use.

Spans through OpenTelemetry (A2A_OTEL=true, tracing.py) need the `otel` extra
(`opentelemetry-api`); the application brings the SDK and its exporter.
"""

from __future__ import annotations

from importlib.util import find_spec

from .exceptions import A2AServerlessError

CRYPTO = "crypto"


class MissingExtra(A2AServerlessError, ImportError):
    """A feature was asked for whose optional dependencies are not installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f"{feature} needs the {extra!r} extra, which is not installed ({module} is missing): "
            f"pip install 'a2a-serverless[{extra}]'",
            name=module,
        )
        self.feature = feature
        self.extra = extra
        self.module = module


def crypto_available() -> bool:
    """Whether `cryptography` is installed (looked up, not imported)."""
    try:
        return find_spec("cryptography") is not None
    except (ImportError, ValueError):
        return False


def require_crypto(feature: str) -> None:
    """Raise `MissingExtra` naming `feature` unless the `crypto` extra is installed."""
    if not crypto_available():
        raise MissingExtra(feature, CRYPTO, "cryptography")


OTEL = "otel"


def otel_available() -> bool:
    """Whether the OpenTelemetry API is installed (looked up, not imported)."""
    try:
        return find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):
        return False


def require_otel(feature: str) -> None:
    """Raise `MissingExtra` naming `feature` unless the `otel` extra is installed."""
    if not otel_available():
        raise MissingExtra(feature, OTEL, "opentelemetry-api")
