"""AWS Lambda entry points (serverless.yml and infra/main.tf name them):

    {{ cookiecutter.module_name }}.aws_lambda.http           API Gateway HTTP API{% if cookiecutter.fastapi == "yes" %}: the FastAPI app (api.py){% endif %}
    {{ cookiecutter.module_name }}.aws_lambda.worker         the SQS worker: agent turns, webhooks
    {{ cookiecutter.module_name }}.aws_lambda.dead_letters   the dead-letter queue's consumer

Each handler is built when the Lambda runtime first asks for it, at init: a function builds only
its own handler and reads only its own settings (A2A_LAMBDA_TIMEOUT_S differs between them).
"""

from __future__ import annotations

from typing import Any

from .agent import echo


def __getattr__(name: str) -> Any:
    import a2a_serverless_aws

    factories = {
{%- if cookiecutter.fastapi == "yes" %}
        "http": _http_handler,
{%- else %}
        "http": a2a_serverless_aws.make_http_handler,
{%- endif %}
        "worker": a2a_serverless_aws.make_worker_handler,
        "dead_letters": a2a_serverless_aws.make_dead_letter_handler,
    }
    if name not in factories:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    handler = factories[name](echo)
    globals()[name] = handler  # built once per container
    return handler
{%- if cookiecutter.fastapi == "yes" %}


def _http_handler(agent: Any) -> Any:
    """The HTTP handler serving the FastAPI app, with the agent in it."""
    from a2a_serverless_aws import make_http_handler

    from .api import api

    return make_http_handler(agent, app=api)
{%- endif %}
