"""JSON logs for the Lambda entry points: the powertools Logger, with the core's correlation ids.

Every record of the kit's loggers (`a2a_serverless.*`, `a2a_serverless_aws.*`) goes out through
the powertools handler as one JSON line carrying the invocation's Lambda context
(`function_request_id`, `cold_start`, ... added by `inject_lambda_context`) and the ids of the
task and JSON-RPC request being handled (`task_id`, `rpc_id`). Those are read from
`a2a_serverless.observability.correlation_ids()` when each record is made, not set once per
invocation: the records of an SQS batch run concurrently, each with its own task.

The level follows powertools: `POWERTOOLS_LOG_LEVEL`, else Lambda's `AWS_LAMBDA_LOG_LEVEL`,
else INFO. The service name is `POWERTOOLS_SERVICE_NAME`, else the one the handler passes.

`with_lambda_context` puts the Lambda context's keys on the Logger for each invocation, as
powertools' `inject_lambda_context` does, but by updating the two keys that change
(`function_request_id`, `cold_start`) instead of clearing and rebuilding the formatter's state on
every call (`clear_state=True`): 15-20 us less per invocation. Keys an agent appends with
`logger.append_keys` therefore stay for later invocations; `append_context_keys` scopes them.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

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
    from aws_lambda_powertools import Logger

    logger = Logger(service=os.environ.get("POWERTOOLS_SERVICE_NAME") or service)
    handler = logger.registered_handler
    if not any(isinstance(f, CorrelationFilter) for f in handler.filters):
        handler.addFilter(CorrelationFilter())
    for name in KIT_LOGGERS:
        kit = logging.getLogger(name)
        if handler not in kit.handlers:
            kit.addHandler(handler)
        kit.setLevel(logger.log_level)
        # The Lambda runtime's own root handler would print every record a second time.
        kit.propagate = False
    return logger


# One per process, like powertools' own flag: the first invocation of any handler is the cold one.
_cold_start = True


def _take_cold_start() -> bool:
    global _cold_start
    cold, _cold_start = _cold_start, False
    return cold


def with_lambda_context(logger: Logger, handler: Handler[R]) -> Handler[R]:
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
