"""The AWS adapter's settings (`A2A_*` environment variables) and the timing rules between them.

A Lambda deployment has four clocks that must nest, or a task can run twice, hang, or be cut off
with nothing written:

    agent turn (time_budget_s) + margin  <=  function timeout  <  worker_lease_s
    function timeout  <=  SQS visibility timeout          (AWS recommends 6x)
    push_timeout_s + margin  <=  function timeout          (one webhook attempt fits)
    blocking_timeout_s + margin  <=  function timeout      (HTTP function: blocking sends and
                                                            buffered streams)
    stream_timeout_s + margin  <=  function timeout        (Web Adapter: live SSE)

Lambda does not tell a function its configured timeout through the environment, so it is an
adapter setting, `A2A_LAMBDA_TIMEOUT_S`, which the deployment sets from the same value as the
function's timeout. When it is set the rules are checked when a handler is built (a clear
`ConfigurationError` at init, before any invocation). Every invocation also checks what Lambda
actually grants (`context.get_remaining_time_in_millis()` at the start of the invocation), so a
function whose timeout was changed without the setting is still caught.

The variables are read with the core's helpers (`a2a_serverless.config.fields_from_env`), and
every error is the core's `ConfigurationError`, re-exported here.
"""

# No `from __future__ import annotations`: see a2a_serverless/config.py.

import math
import os
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from a2a_serverless.config import (
    ConfigurationError,
    Settings,
    fields_from_env,
    register_environment_names,
)
from a2a_serverless.dataclassmethods import DataclassMethods, frozen_dataclass

__all__ = ["AwsSettings", "ConfigurationError"]

# AWS's recommendation for SQS event sources: visibility timeout at least 6x the function's.
RECOMMENDED_VISIBILITY_FACTOR = 6

# What Lambda sets during the init of a version that is snapshotted (SnapStart).
INITIALIZATION_TYPE = "AWS_LAMBDA_INITIALIZATION_TYPE"
SNAP_START = "snap-start"


# A frozen dataclass whose methods are not compiled at import (a2a_serverless.dataclassmethods).
@frozen_dataclass
class AwsSettings(DataclassMethods):
    """The AWS adapter's settings (`A2A_*` variables, `from_env`) and what their timing rules
    need to know of the deployment (the module docstring)."""

    # The SQS queue every job goes to (turns of tasks and, unless the next one is set, webhooks).
    sqs_queue_url: str | None = None
    # An optional second queue for webhook deliveries (see the README: why one queue or two).
    sqs_webhook_queue_url: str | None = None
    # The queue's redrive policy maxReceiveCount: on that delivery a failing job is abandoned
    # (its task failed with a reason) before SQS moves the message to the dead-letter queue.
    sqs_max_receive_count: int = 5
    # The queue's visibility timeout, when known: checked against the function's timeout.
    sqs_visibility_timeout_s: float | None = None
    # The function's configured timeout (Lambda does not expose it as an environment variable).
    lambda_timeout_s: float | None = None
    # Time kept free at the end of an invocation to record an outcome (e.g. "failed: over
    # budget") and queue its notifications.
    lambda_timeout_margin_s: float = 3.0
    # Wrap handlers in the powertools Tracer (X-Ray). Off by default: the X-Ray SDK import alone
    # costs about 0.25 s of cold start (see the README's "Cold start").
    tracing: bool = False
    # Prime the store's and the queue's clients at init (see the README's "Cold start"): the
    # DynamoDB client's operations, endpoint, credentials and connection (one read of a key no
    # item has: half a read unit per cold start) and the SQS client, which the first request
    # would otherwise pay for; for an agent with remote agents, what the first durable-call
    # callback imports (the resumer, PyJWT, the client, httpx). False leaves them to the first
    # request.
    prime: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "AwsSettings":
        """Settings from `A2A_<FIELD_NAME>` variables (e.g. A2A_SQS_QUEUE_URL), then `overrides`."""
        environ = os.environ if environ is None else environ
        values = fields_from_env(cls, environ, blank_is_default=True)
        values.update(overrides)
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.sqs_max_receive_count < 1:
            raise ConfigurationError("A2A_SQS_MAX_RECEIVE_COUNT must be at least 1")
        if self.lambda_timeout_s is not None and self.lambda_timeout_s <= 0:
            raise ConfigurationError("A2A_LAMBDA_TIMEOUT_S must be positive")
        if self.lambda_timeout_margin_s < 0:
            raise ConfigurationError("A2A_LAMBDA_TIMEOUT_MARGIN_S must not be negative")

    def require_queue_url(self) -> str:
        if not self.sqs_queue_url:
            raise ConfigurationError(
                "A2A_SQS_QUEUE_URL is not set: the Lambda handlers put every job on an SQS queue"
            )
        return self.sqs_queue_url


register_environment_names(*(f"A2A_{f.name.upper()}" for f in fields(AwsSettings)))


# --- the timing rules ----------------------------------------------------------------------------


def snapshot_init() -> bool:
    """Whether this init runs for a SnapStart snapshot (the container then registers
    snapstart.py's hooks; here, so that any other init does not import that module)."""
    return os.environ.get(INITIALIZATION_TYPE) == SNAP_START


def worker_time_budget(
    settings: Settings, aws: AwsSettings, agent_budget_s: float | None
) -> float | None:
    """The time budget a worker function gives each turn; ConfigurationError if the clocks clash.

    An agent without a budget gets the function's timeout minus the margin, so a turn that runs
    too long fails with a reason instead of being killed by Lambda mid-write. Without
    `A2A_LAMBDA_TIMEOUT_S` that is impossible to know in advance, so the agent must then have
    its own `time_budget_s` (checked against each invocation's real deadline).
    """
    timeout = aws.lambda_timeout_s
    margin = aws.lambda_timeout_margin_s
    if timeout is None:
        if agent_budget_s is None:
            raise ConfigurationError(
                "the worker needs to know how long a turn may run: set A2A_LAMBDA_TIMEOUT_S to "
                "the function's timeout (the agent's budget then defaults to it minus "
                "A2A_LAMBDA_TIMEOUT_MARGIN_S), or give the agent a time_budget_s"
            )
        if settings.worker_lease_s <= agent_budget_s + margin:
            raise ConfigurationError(
                f"A2A_WORKER_LEASE_S={settings.worker_lease_s:g} must be longer than the "
                f"function's timeout, which must exceed the agent's time_budget_s="
                f"{agent_budget_s:g} plus the margin of {margin:g} s"
            )
        return agent_budget_s
    budget = agent_budget_s if agent_budget_s is not None else timeout - margin
    if budget <= 0:
        raise ConfigurationError(
            f"A2A_LAMBDA_TIMEOUT_S={timeout:g} leaves no time for a turn after the margin "
            f"A2A_LAMBDA_TIMEOUT_MARGIN_S={margin:g}"
        )
    if budget + margin > timeout:
        raise ConfigurationError(
            f"the agent's time_budget_s={budget:g} plus the margin of {margin:g} s "
            f"(A2A_LAMBDA_TIMEOUT_MARGIN_S) exceeds the function's timeout "
            f"A2A_LAMBDA_TIMEOUT_S={timeout:g}: Lambda would kill a long turn before its "
            "failure is recorded"
        )
    if timeout >= settings.worker_lease_s:
        raise ConfigurationError(
            f"A2A_WORKER_LEASE_S={settings.worker_lease_s:g} must be longer than the function's "
            f"timeout A2A_LAMBDA_TIMEOUT_S={timeout:g}: otherwise a second delivery of a job can "
            "take over a turn whose worker is still running"
        )
    if settings.push_timeout_s + margin > timeout:
        raise ConfigurationError(
            f"A2A_PUSH_TIMEOUT_S={settings.push_timeout_s:g} plus the margin of {margin:g} s "
            f"exceeds the function's timeout A2A_LAMBDA_TIMEOUT_S={timeout:g}: a webhook attempt "
            "would not fit in an invocation"
        )
    check_visibility(aws)
    return budget


def check_visibility(aws: AwsSettings) -> None:
    visibility, timeout = aws.sqs_visibility_timeout_s, aws.lambda_timeout_s
    if visibility is not None and timeout is not None and visibility < timeout:
        raise ConfigurationError(
            f"A2A_SQS_VISIBILITY_TIMEOUT_S={visibility:g} is shorter than the function's timeout "
            f"A2A_LAMBDA_TIMEOUT_S={timeout:g}: SQS would hand a job to a second worker while "
            f"the first still runs it (AWS recommends {RECOMMENDED_VISIBILITY_FACTOR}x the "
            "function's timeout)"
        )


def visibility_below_recommendation(aws: AwsSettings) -> bool:
    """True when the visibility timeout is known and under AWS's 6x recommendation."""
    visibility, timeout = aws.sqs_visibility_timeout_s, aws.lambda_timeout_s
    if visibility is None or timeout is None:
        return False
    return visibility < RECOMMENDED_VISIBILITY_FACTOR * timeout


def check_http_timing(settings: Settings, aws: AwsSettings) -> None:
    """An HTTP function must outlive the longest wait of a request (a blocking message/send, a
    buffered stream): ConfigurationError if `A2A_LAMBDA_TIMEOUT_S` says it does not."""
    timeout = aws.lambda_timeout_s
    if timeout is None:
        return
    margin = aws.lambda_timeout_margin_s
    if settings.blocking_timeout_s + margin > timeout:
        raise ConfigurationError(
            f"A2A_BLOCKING_TIMEOUT_S={settings.blocking_timeout_s:g} plus the margin of "
            f"{margin:g} s exceeds the function's timeout A2A_LAMBDA_TIMEOUT_S={timeout:g}: "
            "blocking message/send and buffered streams would be cut off"
        )


def streaming_timeout(settings: Settings, aws: AwsSettings, *, explicit: bool) -> float:
    """How long one live SSE response may stay open in a function (Web Adapter mode).

    Bounded by the function's timeout minus the margin: Lambda ends the response there anyway,
    and a stream that ends on its own tells the client to resubscribe cleanly. `explicit` says
    whether A2A_STREAM_TIMEOUT_S was set: an explicit value that does not fit is an error, the
    default (300 s) is lowered to fit.
    """
    timeout = aws.lambda_timeout_s
    if timeout is None:
        return settings.stream_timeout_s
    limit = timeout - aws.lambda_timeout_margin_s
    if limit <= 0:
        raise ConfigurationError(
            f"A2A_LAMBDA_TIMEOUT_S={timeout:g} leaves no time for a stream after the margin "
            f"A2A_LAMBDA_TIMEOUT_MARGIN_S={aws.lambda_timeout_margin_s:g}"
        )
    if settings.stream_timeout_s <= limit:
        return settings.stream_timeout_s
    if explicit:
        raise ConfigurationError(
            f"A2A_STREAM_TIMEOUT_S={settings.stream_timeout_s:g} plus the margin of "
            f"{aws.lambda_timeout_margin_s:g} s exceeds the function's timeout "
            f"A2A_LAMBDA_TIMEOUT_S={timeout:g}: Lambda would cut streams off mid-event"
        )
    return limit


def invocation_seconds(remaining_ms: int) -> float:
    """The function's timeout as one invocation sees it: its remaining time at the start,
    rounded up to whole seconds (Lambda timeouts are whole seconds)."""
    return float(math.ceil(remaining_ms / 1000))
