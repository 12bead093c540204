"""AWS Lambda entry points of the example agent (examples/trip_planner.py).

    examples/aws_lambda.http     the HTTP function (API Gateway HTTP API)
    examples/aws_lambda.worker   the SQS-triggered worker (turns of tasks, webhook deliveries)
    examples/aws_lambda.dead_letters  triggered by the dead-letter queue: fails the tasks of jobs
                                 whose worker died on every delivery

serverless.yml, infra/aws and `scripts/package aws` point at these names. Each handler is made
when the Lambda runtime first asks for it (`entry_points`; the runtime does so at init, before
the first invocation), so the HTTP function never builds the worker and the reverse: each reads
only its own function's settings (A2A_LAMBDA_TIMEOUT_S differs between the two).
"""

from a2a_serverless_aws import entry_points
from examples.trip_planner import trip_planner

entry_points(__name__, trip_planner)
