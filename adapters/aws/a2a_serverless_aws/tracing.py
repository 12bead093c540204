"""Optional X-Ray tracing of the Lambda handlers through the powertools Tracer.

Off unless `A2A_TRACING=true`: the X-Ray SDK costs about a quarter of a second of import on a
cold start (measured in the README's "Cold start"), and many deployments trace with
OpenTelemetry instead. When on, the Tracer patches botocore (so SQS and DynamoDB calls appear
as subsegments) and records each invocation; outside Lambda powertools disables it by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.util import find_spec
from typing import Any, TypeVar, cast

from .config import ConfigurationError

Handler = TypeVar("Handler", bound=Callable[..., Any])


def traced(handler: Handler, service: str) -> Handler:
    """`handler` wrapped in the powertools Tracer (capture_lambda_handler)."""
    if find_spec("aws_xray_sdk") is None:
        raise ConfigurationError(
            "A2A_TRACING=true needs the AWS X-Ray SDK: pip install 'a2a-serverless-aws[tracing]'"
        )
    from aws_lambda_powertools import Tracer

    tracer = Tracer(service=service)
    return cast(Handler, tracer.capture_lambda_handler(handler))
