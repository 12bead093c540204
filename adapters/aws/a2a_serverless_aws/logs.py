"""JSON logs for the Lambda entry points: the powertools Logger, with the core's correlation ids.

Every record of the kit's loggers (`a2a_serverless.*`, `a2a_serverless_aws.*`) goes out through
the powertools handler as one JSON line carrying the invocation's Lambda context
(`function_request_id`, `cold_start`, ... added by `inject_lambda_context`) and the ids of the
task and JSON-RPC request being handled (`task_id`, `rpc_id`). Those are read from
`a2a_serverless.observability.correlation_ids()` when each record is made, not set once per
invocation: the records of an SQS batch run concurrently, each with its own task.

The level follows powertools: Lambda's `AWS_LAMBDA_LOG_LEVEL` (Advanced Logging Controls), else
`POWERTOOLS_LOG_LEVEL`, else INFO. The service name is `POWERTOOLS_SERVICE_NAME`, else the one
the handler passes.

`with_lambda_context` puts the Lambda context's keys on the Logger for each invocation, as
powertools' `inject_lambda_context` does, but by updating the two keys that change
(`function_request_id`, `cold_start`) instead of clearing and rebuilding the formatter's state on
every call (`clear_state=True`): 15-20 us less per invocation. Keys an agent appends with
`logger.append_keys` therefore stay for later invocations; `append_context_keys` scopes them.

The HTTP function builds its Logger on the first record a kit logger lets through
(`deferred_logging`): importing powertools costs ~15 ms of a cold start (its package imports its
Logger, Metrics, Tracer, jmespath, gzip and botocore), and a function whose init and first
request log nothing at the level does not pay it before it answers. The kit's loggers go
through a relay handler from the start, at the level powertools would choose (its rule, read
from the same variables: `_level_without_powertools`); anything that rule does not cover (a
sampling rate, logging the event, both level variables set, a Logger of that service already
made) builds the Logger at once, as before.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from a2a_serverless.observability import correlation_ids

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger

R = TypeVar("R")
Handler = Callable[[Any, Any], R]

# The loggers whose records the handlers format (children propagate to them).
KIT_LOGGERS = ("a2a_serverless", "a2a_serverless_aws")


class CorrelationFilter(logging.Filter):
    """Adds the current task and JSON-RPC request ids to each record (as `task_id`, `rpc_id`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in correlation_ids().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


def configure_logging(service: str) -> Logger:
    """The powertools Logger for `service`, with the kit's loggers routed through its handler.

    Safe to call more than once (e.g. two handlers in one module): the handler, its filter and
    the kit's loggers are set up once.
    """
    return deferred_logging(service).logger


def deferred_logging(service: str) -> LoggerRelay:
    """The kit's loggers routed to the powertools Logger for `service` (POWERTOOLS_SERVICE_NAME
    wins), which is built on the first record they let through (or at once, when powertools'
    level rule needs it). One relay per service and process."""
    service = os.environ.get("POWERTOOLS_SERVICE_NAME") or service
    with _relays_lock:
        relay = _relays.get(service)
        if relay is None:
            relay = _relays[service] = LoggerRelay(service)
    relay.attach()
    return relay


class LoggerRelay(logging.Handler):
    """The kit loggers' one handler: each record goes to the powertools Logger's handler (with
    its CorrelationFilter), the Logger being built on the first record. Until then the Lambda
    context's keys wait here, as `append_keys` gives them (`with_lambda_context`)."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service
        self._built: Logger | None = None
        self._keys: dict[str, Any] = {}
        # Reentrant: a record logged while the Logger is being built must not deadlock.
        self._build_lock = threading.RLock()

    def attach(self) -> None:
        """Route the kit's loggers through this relay, at the Logger's level (built now when
        only powertools can say what that is)."""
        for name in KIT_LOGGERS:
            kit = logging.getLogger(name)
            if self not in kit.handlers:
                kit.addHandler(self)
            # The Lambda runtime's own root handler would print every record a second time.
            kit.propagate = False
        level = None
        # A Logger of this service made elsewhere has its own level and handler.
        if self._built is None and not logging.getLogger(self.service).handlers:
            level = _level_without_powertools()
        if level is None:
            level = self.logger.log_level
        for name in KIT_LOGGERS:
            logging.getLogger(name).setLevel(level)

    @property
    def built(self) -> bool:
        return self._built is not None

    @property
    def logger(self) -> Logger:
        """The powertools Logger, built now if it was not."""
        if self._built is None:
            with self._build_lock:
                if self._built is None:
                    self._built = self._build()
        return self._built

    def _build(self) -> Logger:
        from aws_lambda_powertools import Logger

        logger = Logger(service=self.service)
        handler = logger.registered_handler
        if not any(isinstance(f, CorrelationFilter) for f in handler.filters):
            handler.addFilter(CorrelationFilter())
        # The level the Logger took (a sampled invocation's DEBUG, say) is the kit's too.
        for name in KIT_LOGGERS:
            logging.getLogger(name).setLevel(logger.log_level)
        if self._keys:
            logger.append_keys(**self._keys)
            self._keys = {}
        return logger

    def handle(self, record: logging.LogRecord) -> bool:
        # Not emit(): the powertools handler takes its own lock and applies its own filters.
        return bool(self.logger.registered_handler.handle(record))

    def append_keys(self, **keys: Any) -> None:
        """Keys for every record, on the Logger or kept for it until it is built."""
        with self._build_lock:
            if self._built is None:
                self._keys.update(keys)
                return
        self._built.append_keys(**keys)

    def info(self, msg: object) -> None:
        self.logger.info(msg)

    @property
    def sampling_rate(self) -> str | float | None:
        # A sampling rate builds the Logger at once: unbuilt, there is none.
        return self._built.sampling_rate if self._built is not None else None

    def refresh_sample_rate_calculation(self) -> None:
        self.logger.refresh_sample_rate_calculation()


class InvocationLogger(Protocol):
    """What `with_lambda_context` needs of a logger: a powertools Logger, or a LoggerRelay."""

    @property
    def sampling_rate(self) -> str | float | None: ...

    def append_keys(self, **keys: Any) -> None: ...

    def info(self, msg: object) -> None: ...

    def refresh_sample_rate_calculation(self) -> None: ...


_relays: dict[str, LoggerRelay] = {}
_relays_lock = threading.Lock()


def _level_without_powertools() -> int | None:
    """The level powertools' Logger would take, when this is sure of it without importing
    powertools; None when only the Logger can say (it must be built now).

    powertools' rule: Lambda's Advanced Logging Controls (`AWS_LAMBDA_LOG_LEVEL`, its own
    names), else `POWERTOOLS_LOG_LEVEL` (or the legacy `LOG_LEVEL`), else INFO. Left to
    powertools: both set (it may warn), a sampling rate (drawn at construction), logging the
    event (the first invocation logs anyway), a name `logging` does not know (it raises).
    """
    lambda_level = os.environ.get("AWS_LAMBDA_LOG_LEVEL")
    powertools_level = os.environ.get("POWERTOOLS_LOG_LEVEL") or os.environ.get("LOG_LEVEL")
    if os.environ.get("POWERTOOLS_LOGGER_SAMPLE_RATE") or _true("POWERTOOLS_LOGGER_LOG_EVENT"):
        return None
    if lambda_level and powertools_level:
        return None
    if lambda_level:
        name = _LAMBDA_LEVELS.get(lambda_level)
        return None if name is None else logging.getLevelNamesMapping()[name]
    if powertools_level:
        return logging.getLevelNamesMapping().get(powertools_level.upper())
    return logging.INFO


# Lambda's level names as powertools maps them (aws_lambda_powertools.shared.constants).
_LAMBDA_LEVELS = {
    "TRACE": "NOTSET",
    "DEBUG": "DEBUG",
    "INFO": "INFO",
    "WARN": "WARNING",
    "ERROR": "ERROR",
    "FATAL": "CRITICAL",
}


def _true(variable: str) -> bool:
    return os.environ.get(variable, "").strip().lower() == "true"


# One per process, like powertools' own flag: the first invocation of any handler is the cold one.
_cold_start = True


def _take_cold_start() -> bool:
    global _cold_start
    cold, _cold_start = _cold_start, False
    return cold


def with_lambda_context(logger: InvocationLogger, handler: Handler[R]) -> Handler[R]:
    """`handler` with the Lambda context's keys on every record it logs: `function_name`,
    `function_memory_size`, `function_arn` (set once), `function_request_id` and `cold_start`
    (each invocation). Honours POWERTOOLS_LOGGER_LOG_EVENT (log the event) and the sampling
    rate (POWERTOOLS_LOGGER_SAMPLE_RATE: drawn again each warm invocation), as powertools does.
    """
    log_event = os.environ.get("POWERTOOLS_LOGGER_LOG_EVENT", "").strip().lower() == "true"
    # Initialised ahead of any request: no invocation ever waited for a cold start.
    provisioned = os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "provisioned-concurrency"
    static_keys_set = False

    def entry(event: Any, context: Any) -> R:
        nonlocal static_keys_set
        cold = _take_cold_start() and not provisioned
        if not static_keys_set:
            logger.append_keys(
                function_name=context.function_name,
                function_memory_size=context.memory_limit_in_mb,
                function_arn=context.invoked_function_arn,
            )
            static_keys_set = True
        logger.append_keys(function_request_id=context.aws_request_id, cold_start=cold)
        if log_event:
            logger.info(event)
        if logger.sampling_rate and not cold:
            logger.refresh_sample_rate_calculation()
        return handler(event, context)

    # The handler's name and docstring (the Tracer names its segment after it: "## lambda_handler").
    return functools.wraps(handler)(entry)
