"""Settings of the Google Cloud entry points and queues, from `A2A_*` environment variables.

The core's settings (`a2a_serverless.Settings`, e.g. A2A_STORE_URL) are read as usual; these
are the adapter's own. Values are checked when a function is built, at start-up, so a
misconfigured deployment fails before it takes a request.

- A2A_GCP_PROJECT (else GOOGLE_CLOUD_PROJECT, GCP_PROJECT): the project of short topic and
  queue names and of log traces.
- A2A_PUBSUB_TOPIC: the topic of agent-run jobs, ``projects/P/topics/T`` or ``T``.
- A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS (5): the subscription's dead-letter max_delivery_attempts.
- A2A_CLOUD_TASKS_QUEUE: the queue of webhook and delayed jobs,
  ``projects/P/locations/L/queues/Q`` or ``Q`` with A2A_CLOUD_TASKS_LOCATION.
- A2A_CLOUD_TASKS_URL: the worker function's URL, where tasks are sent (needed with a queue).
- A2A_CLOUD_TASKS_SERVICE_ACCOUNT / A2A_CLOUD_TASKS_AUDIENCE (the URL): tasks carry an OIDC
  token of this service account, for this audience.
- A2A_CLOUD_TASKS_MAX_ATTEMPTS (10): the queue's retryConfig.maxAttempts.
- A2A_CLOUD_TASKS_EMULATOR_HOST: host:port of a Cloud Tasks emulator (plaintext, no credentials).
- A2A_WORKER_AUTH (``oidc``, ``secret`` or ``none``; by default from the two below): how the
  worker function checks its callers (worker_auth.py).
- A2A_WORKER_SECRET: a shared secret (header X-A2A-Worker-Secret, or query parameter `token`).
- A2A_WORKER_OIDC_AUDIENCE / A2A_WORKER_OIDC_EMAILS: the audience Google ID tokens must carry
  and the comma-separated service accounts allowed to call the worker.
- A2A_WORKER_OIDC_JWKS_URL (Google's): where the ID tokens' keys are (tests point it elsewhere).
- A2A_LOG_LEVEL (INFO): the level of the structured logs.
- A2A_PRIME (true): import, when the function is built, the modules its first request would
  (the Runtime, the store's and the queues' client libraries; for an agent with remote agents,
  what a durable-call callback imports: priming.py); false leaves them to the first request.

Pub/Sub's client finds an emulator through PUBSUB_EMULATOR_HOST, as always.
"""

# No `from __future__ import annotations`: see a2a_serverless/config.py.

import os
import re
from collections.abc import Mapping
from dataclasses import fields
from typing import Annotated

import msgspec

from a2a_serverless.config import env_text, fields_from_env, register_environment_names
from a2a_serverless.dataclassmethods import DataclassMethods, frozen_dataclass

# The core's configuration error, what these settings raise (re-exported: the adapter's face).
from a2a_serverless.exceptions import ConfigurationError as ConfigurationError

GOOGLE_JWKS_URL = "https://www.googleapis.com/oauth2/v3/certs"
WORKER_AUTH_MODES = ("oidc", "secret", "none")

_TOPIC = re.compile(r"^projects/[^/]+/topics/[^/]+$")
_QUEUE = re.compile(r"^projects/[^/]+/locations/[^/]+/queues/[^/]+$")


# A frozen dataclass whose methods are not compiled at import (a2a_serverless.dataclassmethods).
@frozen_dataclass
class GcpSettings(DataclassMethods):
    """The Google Cloud adapter's settings (the AWS adapter's are `AwsSettings`). Formerly
    `GcpConfig`, still importable under that name (deprecated)."""

    project: str | None = None
    pubsub_topic: str | None = None
    pubsub_max_delivery_attempts: Annotated[int, msgspec.Meta(ge=1)] = 5
    cloud_tasks_queue: str | None = None
    cloud_tasks_url: str | None = None
    cloud_tasks_service_account: str | None = None
    cloud_tasks_audience: str | None = None
    cloud_tasks_max_attempts: Annotated[int, msgspec.Meta(ge=1)] = 10
    cloud_tasks_emulator_host: str | None = None
    worker_auth: str | None = None
    worker_secret: str | None = None
    worker_oidc_audience: str | None = None
    worker_oidc_emails: tuple[str, ...] = ()
    worker_oidc_jwks_url: str = GOOGLE_JWKS_URL
    log_level: str = "INFO"
    prime: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "GcpSettings":
        env = os.environ if environ is None else environ
        # Every field but `project` is its A2A_<FIELD> variable, parsed by its declared type;
        # the names of topics and queues are then completed and checked.
        values = fields_from_env(cls, env, blank_is_default=True, skip=("project",))

        def get(name: str) -> str | None:
            return env_text(env, name)

        project = get("A2A_GCP_PROJECT") or get("GOOGLE_CLOUD_PROJECT") or get("GCP_PROJECT")
        topic = values.get("pubsub_topic")
        if topic is not None:
            topic = _full_name(topic, "A2A_PUBSUB_TOPIC", _TOPIC, project, "topics")
        queue = values.get("cloud_tasks_queue")
        if queue is not None and not queue.startswith("projects/"):
            location = get("A2A_CLOUD_TASKS_LOCATION")
            if project is None or location is None:
                raise ConfigurationError(
                    f"A2A_CLOUD_TASKS_QUEUE={queue!r} is a short name: set A2A_GCP_PROJECT and "
                    "A2A_CLOUD_TASKS_LOCATION, or give projects/P/locations/L/queues/Q"
                )
            queue = f"projects/{project}/locations/{location}/queues/{queue}"
        if queue is not None and not _QUEUE.match(queue):
            raise ConfigurationError(
                f"A2A_CLOUD_TASKS_QUEUE={queue!r}: expected projects/P/locations/L/queues/Q"
            )
        url = values.get("cloud_tasks_url")
        if queue is not None and url is None:
            raise ConfigurationError(
                "A2A_CLOUD_TASKS_QUEUE is set but A2A_CLOUD_TASKS_URL is not: tasks need the "
                "worker function's URL"
            )
        if url is not None and not url.startswith(("https://", "http://")):
            raise ConfigurationError(f"A2A_CLOUD_TASKS_URL={url!r} is not an http(s) URL")
        auth = values.get("worker_auth")
        if auth is not None:
            if auth.lower() not in WORKER_AUTH_MODES:
                raise ConfigurationError(
                    f"A2A_WORKER_AUTH={auth!r}: expected one of {', '.join(WORKER_AUTH_MODES)}"
                )
            values["worker_auth"] = auth.lower()
        return cls(
            **{**values, "project": project, "pubsub_topic": topic, "cloud_tasks_queue": queue}
        )


# `project` is A2A_GCP_PROJECT; a short queue name takes its location from the last one.
register_environment_names(
    "A2A_GCP_PROJECT",
    "A2A_CLOUD_TASKS_LOCATION",
    *(f"A2A_{f.name.upper()}" for f in fields(GcpSettings) if f.name != "project"),
)


def _full_name(
    value: str, variable: str, pattern: re.Pattern[str], project: str | None, kind: str
) -> str:
    if value.startswith("projects/"):
        if not pattern.match(value):
            raise ConfigurationError(f"{variable}={value!r}: expected projects/P/{kind}/NAME")
        return value
    if project is None:
        raise ConfigurationError(
            f"{variable}={value!r} is a short name: set A2A_GCP_PROJECT (or "
            f"GOOGLE_CLOUD_PROJECT), or give projects/P/{kind}/{value}"
        )
    return f"projects/{project}/{kind}/{value}"


# Deprecated aliases, the names this adapter had before its settings and error were named as
# the AWS adapter's and the core's are: GcpSettings, and the core's ConfigurationError.
GcpConfig = GcpSettings
ConfigError = ConfigurationError
