"""JSON logs for the Lambda entry points: the powertools Logger, with the core's correlation ids.

Every record of the kit's loggers (`a2a_serverless.*`, `a2a_serverless_aws.*`) goes out through
the powertools handler as one JSON line carrying the invocation's Lambda context
(`function_request_id`, `cold_start`, ... added by `inject_lambda_context`) and the ids of the
task and JSON-RPC request being handled (`task_id`, `rpc_id`). Those are read from
`a2a_serverless.observability.correlation_ids()` when each record is made, not set once per
invocation: the records of an SQS batch run concurrently, each with its own task.

The level follows powertools: `POWERTOOLS_LOG_LEVEL`, else Lambda's `AWS_LAMBDA_LOG_LEVEL`,
else INFO. The service name is `POWERTOOLS_SERVICE_NAME`, else the one the handler passes.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from a2a_serverless.observability import correlation_ids

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger

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
