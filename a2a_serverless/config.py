"""Settings of one deployment, from arguments or `A2A_*` environment variables.

Every setting has a default that works on a laptop; `Settings.from_env()` reads the environment
(what a Lambda or Cloud Function is configured with). Unknown values fail loudly at start-up,
not in the middle of a request.

`fields_from_env` is the one loader of settings: `Settings`, the `A2A_AUTH_*` settings
(auth/config.py, from the `auth_*` fields declared here) and the adapters' settings classes
read their variables with it, each field's text parsed by the field's declared type.
"""

# No `from __future__ import annotations`: the settings loader reads the fields' declared types
# (cheaply, as objects; a2a_serverless.config.fields_from_env).

import functools
import logging
import math
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import field, fields
from typing import Any

import msgspec.inspect

from .dataclassmethods import DataclassMethods, frozen_dataclass

# The settings' error, kept importable from here (its home is the exception tree's module).
from .exceptions import ConfigurationError as ConfigurationError

logger = logging.getLogger(__name__)

PREFIX = "A2A_"
# `A2A_*` variables read outside `Settings` (the adapters' own settings register theirs), so
# that only names nobody reads are reported as unknown.
_OTHER_NAMES: set[str] = set()
# Unknown names already reported by this process (one warning each, not one per Settings).
_REPORTED: set[str] = set()


class SettingsError(ConfigurationError):
    """A setting's value makes no sense (the message names the setting and what it must be)."""


def register_environment_names(*names: str) -> None:
    """Declare `A2A_*` variables that something other than `Settings` reads."""
    _OTHER_NAMES.update(names)


# --- reading `A2A_*` variables: the one loader of `Settings` and the adapters' settings ------


def env_name(field_name: str) -> str:
    """The variable of a settings field: `store_url` -> A2A_STORE_URL."""
    return f"{PREFIX}{field_name.upper()}"


def fields_from_env(
    cls: type,
    environ: Mapping[str, str],
    *,
    blank_is_default: bool = False,
    only: Collection[str] | None = None,
    skip: Collection[str] = (),
) -> dict[str, Any]:
    """The values of dataclass `cls`'s fields set in `environ` (as `A2A_<FIELD_NAME>`), parsed
    by the field's declared type (msgspec resolves the annotations): bool, int, float, a tuple
    of comma-separated strings, optional, str. An int declared `Annotated[int, Meta(ge=N)]`
    must be at least N. `ConfigurationError` names a variable that does not parse. A blank
    value is None for an optional field; with `blank_is_default` any blank value is left out
    (the field keeps its default) and values are stripped. `only` / `skip` pick fields."""
    values: dict[str, Any] = {}
    # One pass over the environment's few A2A_* variables, rather than a look-up per field
    # (each os.environ.get encodes its name: ~0.1 ms of a cold start for the ~90 fields).
    given = {name: raw for name, raw in environ.items() if name.startswith(PREFIX)}
    if not given:
        return values
    for f in fields(cls):
        if (only is not None and f.name not in only) or f.name in skip:
            continue
        name = env_name(f.name)
        raw = given.get(name)
        if raw is None:
            continue
        if blank_is_default:
            raw = raw.strip()
            if not raw:
                continue
        declared: Any = f.type
        values[f.name] = _reader_of(declared)(name, raw)
    return values


Reader = Callable[[str, str], Any]


@functools.cache
def _reader_of(annotation: Any) -> Reader:
    """How to parse a variable's text as a field's declared type (once per type, and only for
    the fields whose variables are set: msgspec's introspection costs a few microseconds a
    type, and resolving every annotation of `Settings` up front about 1 ms of cold start)."""
    if isinstance(annotation, str):
        raise TypeError(
            f"settings field type {annotation!r} is text: the module declaring it must not use "
            "`from __future__ import annotations`"
        )
    return _reader(msgspec.inspect.type_info(annotation))


def _reader(kind: msgspec.inspect.Type) -> Reader:
    if isinstance(kind, msgspec.inspect.UnionType):
        others = [t for t in kind.types if not isinstance(t, msgspec.inspect.NoneType)]
        inner = _reader(others[0]) if len(others) == 1 else _text

        def optional(name: str, raw: str) -> Any:
            return None if raw.strip() == "" else inner(name, raw)

        return optional
    if isinstance(kind, msgspec.inspect.BoolType):
        return _flag
    if isinstance(kind, msgspec.inspect.IntType):
        return functools.partial(_integer, least=kind.ge)
    if isinstance(kind, msgspec.inspect.FloatType):
        return _number
    if isinstance(kind, (msgspec.inspect.VarTupleType, msgspec.inspect.ListType)):
        return _names
    return _text


def _text(name: str, raw: str) -> str:
    return raw


def _number(name: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ConfigurationError(f"{name}={raw!r} is not a number") from None


def _integer(name: str, raw: str, *, least: int | None) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{name}={raw!r} is not a number") from None
    if least is not None and value < least:
        raise ConfigurationError(f"{name} must be at least {least}, got {value}")
    return value


def _names(name: str, raw: str) -> tuple[str, ...]:
    """A comma-separated list, blanks dropped."""
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def env_text(environ: Mapping[str, str], name: str) -> str | None:
    """A variable's stripped text; None when unset or blank."""
    return environ.get(name, "").strip() or None


def _flag(name: str, raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigurationError(f"{name}={raw!r} is not a boolean (true or false)")


# A frozen dataclass whose methods are not compiled at import (dataclassmethods.py).
@frozen_dataclass
class Settings(DataclassMethods):
    """The kit's settings: each field's `A2A_*` variable (`from_env`), its default and its
    checks (docs/configuration.md lists them all)."""

    # Where tasks live: "sqlite:///path.db" (default), "memory://", or an adapter's URL. The
    # memory store keeps at most 10000 tasks (the oldest finished go first; a new task when all
    # are active is refused with 503): "memory://?max_tasks=N" keeps N.
    store_url: str = "sqlite:///a2a-tasks.db"
    # The public URL clients use (the card's `url`). Unset: API Gateway's own domain name where
    # there is one, else the request's Host (publicurl.py says how; the card is then not cached
    # by shared caches).
    public_url: str | None = None
    # Comma-separated addresses or CIDR networks of the proxies in front of the app whose
    # X-Forwarded-Proto, -Host and -Prefix are believed. Unset: those headers are ignored.
    trusted_proxies: str | None = None
    # Path of the JSON-RPC endpoint, relative to the app's root.
    rpc_path: str = "/"
    # Can this platform hold a response open? False behind API Gateway + Mangum: the card then
    # says `streaming: false`, and message/stream and tasks/resubscribe are refused with -32004
    # / HTTP 400, as spec 1.0 §3.3.4 requires (clients use push notifications and tasks/get).
    streaming: bool = True
    # With streaming off, answer message/stream and tasks/resubscribe anyway, with one buffered
    # SSE body of what happens within `blocking_timeout_s` (the rest arrives by push or a later
    # resubscribe); the card then says `streaming: true`, since the server serves streams.
    buffered_streams: bool = False
    # Seconds a blocking `message/send` waits for the turn to end before returning the task.
    blocking_timeout_s: float = 25.0
    # Seconds an agent's direct hook (a Message answered in the request, no task) may take
    # before the request fails with -32603 / HTTP 504; it is meant for quick replies.
    direct_timeout_s: float = 10.0
    # A request identical to an earlier one (same caller, messageId and everything else the
    # message and its configuration say) is a retry: answered with the task or reply it got,
    # never run again. Another message reusing a messageId is a new message. False treats
    # every request as new: retries then run the agent again.
    dedupe_message_ids: bool = True
    # Seconds an SSE response may stay open; the client resubscribes after that.
    stream_timeout_s: float = 300.0
    # How often a waiting reader looks at the store for writes made by other processes.
    poll_interval_s: float = 0.25
    # Seconds between SSE keep-alive comments while nothing happens.
    keepalive_s: float = 15.0
    # How long a worker's claim on a turn lasts without a write before another may take over.
    worker_lease_s: float = 900.0
    # How many times one turn may be started. A worker that dies mid-turn (a crash, the
    # function's timeout) leaves the turn to a redelivery of its job, which starts it again;
    # a delivery that would start it once more fails the task with a reason instead.
    worker_max_attempts: int = 5
    # Keep finished tasks this long (seconds); unset keeps them forever.
    finished_task_ttl_s: float | None = None
    # Requests larger than this are refused before parsing.
    max_body_bytes: int = 10 * 1024 * 1024
    # How deep a request body's JSON may nest (`{}` is 1 level; a message's data part's `data`
    # sits 6 levels down); deeper is refused with an error naming the limit, as are the next ones.
    max_json_depth: int = 32
    # How many parts one message may have.
    max_message_parts: int = 100
    # Bytes of one file sent inline (a file part's bytes: 1.0's `raw`, 0.3's FilePart `bytes`;
    # counted decoded); larger files go by URI.
    max_file_bytes: int = 4 * 1024 * 1024
    # Bytes of all the files sent inline in one message (counted decoded).
    max_message_file_bytes: int = 6 * 1024 * 1024
    # Bytes one task may hold: its JSON (history, artifacts and the rest), as stored. A client
    # message that would take it over is refused (-32602 / HTTP 413) and nothing is stored;
    # agent output that would is not written, and the task fails saying so.
    max_task_bytes: int = 16 * 1024 * 1024
    # The largest response the platform in front of the app passes on, counted as it counts
    # them; a larger answer is refused with -32004 / HTTP 400 naming the limit (a buffered
    # stream ends with that error after the last event that fits), and gzip is used where the
    # client accepts it. Unset: the entry point's own (6291456, 6 MiB, for the AWS Lambda HTTP
    # handler; 33554432, 32 MiB, for non-streamed answers of the GCP HTTP function; none
    # elsewhere). 0: no limit.
    max_response_bytes: int | None = None
    # Serve file parts whose inline bytes the store keeps in its content bucket (parts over
    # its offload threshold) as short-lived signed GET URLs instead of their bytes, in every
    # answer (GetTask, ListTasks, streams, webhooks): a signed URL is a bearer credential for
    # that file until it expires. The store keeps the bytes. Needs a store with a content
    # bucket (S3 or Cloud Storage); refused at start otherwise.
    content_signed_urls: bool = False
    # How long such a URL is valid (seconds; S3 allows at most 7 days).
    content_url_ttl_s: float = 300.0
    # Key of the HMAC that makes `tasks/list` page tokens tamper-evident (any string; give all
    # instances of a deployment the same). Unset: derived from the push signing keys, else from
    # the store URL (a2a_serverless/pagetoken.py says what each choice protects).
    page_token_key: str | None = field(default=None, repr=False)
    # Comma-separated host names this app answers (the Host header, port ignored); others get
    # 421. Unset answers any host; `a2a-serverless dev` sets localhost, 127.0.0.1 and [::1]
    # (plus these, and the host of `public_url`), so DNS rebinding cannot reach it.
    allowed_hosts: str | None = None
    # Comma-separated origins (scheme://host[:port]) browsers may call this app from (CORS).
    # Unset: no CORS headers, so browsers keep pages of other origins from calling it.
    cors_allowed_origins: str | None = None
    # Development mode: relaxes production-only checks (documented where used).
    dev_mode: bool = False
    # Serve the inspector page (/_inspector/: talk to the agent, see its tasks, events and
    # webhook deliveries) outside dev mode too, where it always is. It then needs authentication
    # (the A2A_AUTH_* settings): the app refuses to start without, and the page's API answers
    # each caller's own tasks only.
    inspector: bool = False
    # OpenTelemetry spans for requests, queued jobs, turns, store calls and webhook deliveries,
    # made through the OpenTelemetry API (the `otel` extra) for the TracerProvider the
    # application sets up. Off: no span, and nothing of OpenTelemetry is imported; the W3C
    # trace context (`traceparent`) is carried across the queue to webhooks either way.
    otel: bool = False
    # Other agents this one calls in its turns (`ctx.remote(name)`, `ctx.call(name, ...)`), as
    # a JSON object of names and URLs, or names and objects with a `url` and credentials
    # (`apiKey`, `bearerToken`,
    # `oauthClientId` / `oauthClientSecret` / `oauthTokenUrl` / `oauthScopes`,
    # `googleAudience`, `sigv4Service` / `sigv4Region`; secrets may be references such as
    # `ssm:/name`), `binding` and `version`. Agent.remote_agents wins for the same name.
    remote_agents: str | None = None

    # --- push notifications (webhooks) ---
    # Offer push notifications at all. False: the card says `pushNotifications: false` and the
    # push config methods answer PushNotificationNotSupportedError (-32003), keys or not.
    push_notifications: bool = True
    # Private signing keys: a JSON array of JWKs (EC P-256 for ES256, or RSA for RS256), as
    # `a2a-serverless keys generate` prints them. The newest key (largest "iat") signs; all are
    # published at /.well-known/jwks.json so rotation never breaks verification.
    push_signing_keys: str | None = None
    # Which events notify: "final" (input-required, auth-required, terminal) or "all".
    push_notify_on: str = "final"
    # Delivery attempts per notification, and the time after which it is dead-lettered anyway.
    push_max_attempts: int = 8
    push_deadline_s: float = 3600.0
    # Back-off between attempts: base * 2^(attempt-1), capped, with full jitter.
    push_backoff_base_s: float = 1.0
    push_backoff_max_s: float = 300.0
    # Per-request timeout and the most of a receiver's response body that is read.
    push_timeout_s: float = 10.0
    push_max_response_bytes: int = 65536
    # Comma-separated domains webhooks may target (subdomains included); unset allows any.
    push_allowed_domains: str | None = None
    # Push configs one task may have, and a config's URL may appear once per task: one message
    # must not fan out into hundreds of deliveries.
    push_max_configs_per_task: int = 5
    # The largest notification body: a larger task is sent without its history and artifacts
    # (the receiver fetches them with tasks/get).
    push_max_body_bytes: int = 64 * 1024
    # Deliveries per second to one target host, per process (0: no limit). Over it, a delivery
    # waits for its turn; it is not counted as a failed attempt.
    push_max_per_host_per_s: float = 10.0
    # Ask receivers to prove they own the URL (GET ?validationToken=..., echoed) before use.
    push_verify_ownership: bool = False
    # Lifetime of the JWT in each notification.
    push_jwt_ttl_s: float = 300.0

    # --- durable calls (docs/durable-calls.md) ---
    # Seconds a call waits for the remote task to end before the turn suspends (no worker is
    # held while it waits; a callback or a poll resumes it).
    durable_inline_wait_s: float = 5.0
    # The first poll of a suspended call's remote task, after this many seconds; each next poll
    # waits twice as long, up to `durable_poll_max_s`. Polls find the outcome of a remote without
    # push notifications, or whose callback was lost.
    durable_poll_initial_s: float = 5.0
    durable_poll_max_s: float = 300.0
    # A turn's durable operations must end within this many seconds of the turn's first run;
    # past it, the remote tasks it waits on are canceled and the task fails. Unset: no limit.
    durable_turn_deadline_s: float | None = None
    # The largest result a call or a step may record (its JSON, the remote's task without its
    # history); a larger one fails the call (CallError). The results of a turn's operations are
    # kept in its task record, which must fit a DynamoDB item (400 KB) or a Firestore document
    # (1 MiB): large outputs are better passed by URI.
    durable_max_result_bytes: int = 64 * 1024
    # The largest callback body read; a larger one is refused (413).
    durable_max_callback_bytes: int = 256 * 1024
    # Callbacks one instance takes per second, in all (a token bucket, this burst deep); each
    # task's at most a fifth of that (at least 1/s). Over it: 429 with Retry-After, before the
    # store is read (a remote's push is retried; a poll finds the outcome anyway). 0: no limit.
    durable_callbacks_per_s: float = 50.0

    # --- authentication (a2a_serverless/auth/config.py documents every value) ---
    # With none of the schemes set, every caller is the one anonymous owner.
    auth_api_keys: str | None = field(default=None, repr=False)
    auth_api_key_name: str | None = None
    auth_api_key_in: str | None = None
    auth_jwt_issuer: str | None = None
    auth_jwt_audience: str | None = None
    auth_jwt_jwks_url: str | None = None
    auth_jwt_keys: str | None = None
    auth_jwt_algorithms: str | None = None
    auth_jwt_leeway_s: float | None = None
    auth_jwt_scope_claim: str | None = None
    auth_oidc_url: str | None = None
    auth_oidc_audience: str | None = None
    auth_upstream: str | None = None
    auth_requirements: str | None = None
    auth_public_card: bool = True

    def __post_init__(self) -> None:
        for name, (lowest, allowed) in _RANGES.items():
            value = getattr(self, name)
            if value is None:  # an optional setting left unset
                continue
            if isinstance(value, float) and not math.isfinite(value):
                raise SettingsError(f"{env_name(name)}={value}: must be a finite number")
            if value < lowest or (value == lowest and not allowed):
                need = f"at least {lowest}" if allowed else f"more than {lowest}"
                raise SettingsError(f"{env_name(name)}={value}: must be {need}")
        if self.push_backoff_max_s < self.push_backoff_base_s:
            raise SettingsError(
                f"{env_name('push_backoff_max_s')}={self.push_backoff_max_s} is below "
                f"{env_name('push_backoff_base_s')}={self.push_backoff_base_s}: the cap of the "
                "back-off must be at least its base"
            )

    @property
    def sets_authentication(self) -> bool:
        """Whether an `A2A_AUTH_*` setting is given (A2A_AUTH_PUBLIC_CARD aside, which alone
        changes nothing). Without one, `security_from_settings` makes the anonymous Security,
        which a Runtime then makes only when asked for: nothing of auth/ loads at init."""
        return any(getattr(self, name) is not None for name in _authentication_fields())

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "Settings":
        """Settings from `A2A_<FIELD_NAME>` variables (e.g. A2A_STORE_URL), then `overrides`.

        An `A2A_*` variable that nothing reads (a typo) is logged as a warning naming the
        closest setting; a value out of range is a `SettingsError` naming the variable.
        """
        environ = os.environ if environ is None else environ
        values = fields_from_env(cls, environ)
        values.update(overrides)
        _report_unknown(environ)
        return cls(**values)


# The lowest value of each number setting, and whether that value itself is allowed; checked
# when Settings are made, so a deployment with a negative timeout does not start. Waits, polls
# and lifetimes must be positive; zero is allowed only where it has a meaning (a blocking send
# that answers at once, no inline files, no back-off, no clock leeway).
_RANGES: dict[str, tuple[float, bool]] = {
    "blocking_timeout_s": (0, True),
    "direct_timeout_s": (0, False),
    "stream_timeout_s": (0, False),
    "poll_interval_s": (0, False),
    "keepalive_s": (0, False),
    "worker_lease_s": (0, False),
    "worker_max_attempts": (1, True),
    "finished_task_ttl_s": (0, False),
    "max_body_bytes": (1, True),
    "max_json_depth": (1, True),
    "max_message_parts": (1, True),
    "max_file_bytes": (0, True),
    "max_message_file_bytes": (0, True),
    "max_task_bytes": (1, True),
    "max_response_bytes": (0, True),
    "push_max_attempts": (1, True),
    "push_deadline_s": (0, False),
    "push_backoff_base_s": (0, True),
    "push_backoff_max_s": (0, True),
    "push_timeout_s": (0, False),
    "push_max_response_bytes": (1, True),
    "push_jwt_ttl_s": (0, False),
    "durable_inline_wait_s": (0, True),
    "durable_poll_initial_s": (0, False),
    "durable_poll_max_s": (0, False),
    "durable_turn_deadline_s": (0, False),
    "durable_max_result_bytes": (1, True),
    "durable_max_callback_bytes": (1, True),
    "durable_callbacks_per_s": (0, True),
    "auth_jwt_leeway_s": (0, True),
    "content_url_ttl_s": (1, True),
}


@functools.cache
def _authentication_fields() -> tuple[str, ...]:
    return tuple(
        f.name
        for f in fields(Settings)
        if f.name.startswith("auth_") and f.name != "auth_public_card"
    )


@functools.cache
def _settings_names() -> frozenset[str]:
    return frozenset(env_name(f.name) for f in fields(Settings))


def _report_unknown(environ: Mapping[str, str]) -> None:
    for name in environ:
        if not name.startswith(PREFIX) or name in _REPORTED:
            continue
        if name in _settings_names() or name in _OTHER_NAMES:
            continue
        _REPORTED.add(name)
        known = _settings_names() | _OTHER_NAMES
        import difflib  # only to suggest a name for a misspelt variable

        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        hint = (
            f"did you mean {close[0]}?"
            if close
            else "no setting is close to it (docs/configuration.md lists them)"
        )
        logger.warning("%s is set but nothing in this process reads it: %s", name, hint)
