"""Optional dependencies ("extras"): which features need them, and the error when one is missing.

`pip install a2a-serverless` is the lean core: both transports, the stores, the queue, API keys
and identities from the platform's authorizer (A2A_AUTH_UPSTREAM). It makes no outgoing HTTP
request, so httpx is not part of it. Asymmetric JWTs, and the HTTP requests that come with
them, need the `crypto` extra (`pip install 'a2a-serverless[crypto]'`: `cryptography`, through
PyJWT's own extra, and httpx), about 6 MiB of a Lambda zip:

- signing push notifications (A2A_PUSH_SIGNING_KEYS; in dev mode, the ephemeral key), and
  delivering them (httpx);
- verifying bearer JWTs and OpenID Connect tokens (A2A_AUTH_JWT_*, A2A_AUTH_OIDC_URL), their key
  sets and discovery documents fetched with httpx;
- verifying our webhooks on the receiving side (`WebhookVerifier`);
- `a2a-serverless keys generate`.

The A2A client (`a2a_serverless.client`, the CLI's `call`-type commands) and an agent's calls
to other agents (`remote_agents`, `ctx.call`) need the `client` extra (httpx, about 1.1 MiB of
a Lambda zip with its dependencies).

A feature that is configured without its extra fails when it is set up (the Runtime, at
start-up; a client when it is made), not on the first request that needs it: `require_crypto`
and `require_client` look the packages up without importing them, so the check costs a cold
start next to nothing and the import itself still happens on first use.

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


def _installed(module: str) -> bool:
    """Whether `module` is installed (looked up, not imported)."""
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _require(feature: str, extra: str, modules: tuple[str, ...]) -> None:
    for module in modules:
        if not _installed(module):
            raise MissingExtra(feature, extra, module)


# What each extra installs, as the modules looked up.
_CRYPTO_MODULES = ("cryptography", "httpx")
CLIENT = "client"
_CLIENT_MODULES = ("httpx",)


def crypto_available() -> bool:
    """Whether the `crypto` extra (cryptography and httpx) is installed."""
    return all(_installed(module) for module in _CRYPTO_MODULES)


def require_crypto(feature: str) -> None:
    """Raise `MissingExtra` naming `feature` unless the `crypto` extra is installed."""
    _require(feature, CRYPTO, _CRYPTO_MODULES)


def client_available() -> bool:
    """Whether the `client` extra (httpx) is installed."""
    return all(_installed(module) for module in _CLIENT_MODULES)


def require_client(feature: str) -> None:
    """Raise `MissingExtra` naming `feature` unless the `client` extra is installed."""
    _require(feature, CLIENT, _CLIENT_MODULES)


OTEL = "otel"


def otel_available() -> bool:
    """Whether the OpenTelemetry API is installed (looked up, not imported)."""
    return _installed("opentelemetry.trace")


def require_otel(feature: str) -> None:
    """Raise `MissingExtra` naming `feature` unless the `otel` extra is installed."""
    if not otel_available():
        raise MissingExtra(feature, OTEL, "opentelemetry-api")
