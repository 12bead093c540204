"""AWS adapter for a2a-serverless: DynamoDB store, SQS queue and Lambda entry points.

    # handler.py: the HTTP function (API Gateway, ALB, function URL)
    from a2a_serverless_aws import make_http_handler
    from my_agent import agent
    handler = make_http_handler(agent)

    # worker.py: the SQS-triggered function that runs the turns and delivers webhooks
    from a2a_serverless_aws import make_worker_handler
    from my_agent import agent
    handler = make_worker_handler(agent)

    # dead_letters.py: triggered by the dead-letter queue; fails the tasks of jobs that died there
    from a2a_serverless_aws import make_dead_letter_handler
    from my_agent import agent
    handler = make_dead_letter_handler(agent)

    # or all three in one module, each made when its function's runtime asks for it
    from a2a_serverless_aws import entry_points
    entry_points(__name__, agent)     # handlers "<module>.http", ".worker", ".dead_letters"

The GCP adapter's face says the same things the same way (`make_http_handler`,
`make_worker_handler`, `entry_points`, `GcpSettings` beside `AwsSettings`).

Live SSE through the Lambda Web Adapter: `python -m a2a_serverless_aws.web_adapter my_agent:agent`
(see `a2a_serverless_aws.web_adapter`). The DynamoDB store is `a2a_serverless_aws.dynamodb`.

Nothing here is imported by the core, and this package imports its modules (and their SDKs:
boto3, Mangum, powertools) only when a name is first used, so a cold start pays only for what
the function uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_serverless.lazyface import lazy_face

if TYPE_CHECKING:
    from .config import AwsSettings, ConfigurationError
    from .handlers import entry_points
    from .lambda_http import HttpHandler, make_http_handler
    from .lambda_worker import WorkerHandler, make_dead_letter_handler, make_worker_handler
    from .sqs import SqsQueue
    from .web_adapter import create_web_app

__all__ = [
    "AwsSettings",
    "ConfigurationError",
    "HttpHandler",
    "SqsQueue",
    "WorkerHandler",
    "create_web_app",
    "entry_points",
    "make_dead_letter_handler",
    "make_http_handler",
    "make_worker_handler",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "AwsSettings": ".config",
        "ConfigurationError": ".config",
        "HttpHandler": ".lambda_http",
        "make_http_handler": ".lambda_http",
        "WorkerHandler": ".lambda_worker",
        "make_worker_handler": ".lambda_worker",
        "make_dead_letter_handler": ".lambda_worker",
        "SqsQueue": ".sqs",
        "create_web_app": ".web_adapter",
        "entry_points": ".handlers",
    },
)
