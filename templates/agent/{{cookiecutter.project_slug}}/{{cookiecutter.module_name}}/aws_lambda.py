"""AWS Lambda entry points (serverless.yml and infra/main.tf name them):

    {{ cookiecutter.module_name }}.aws_lambda.http           API Gateway HTTP API{% if cookiecutter.fastapi == "yes" %}: the FastAPI app (api.py){% endif %}
    {{ cookiecutter.module_name }}.aws_lambda.worker         the SQS worker: agent turns, webhooks
    {{ cookiecutter.module_name }}.aws_lambda.dead_letters   the dead-letter queue's consumer

Each handler is built when the Lambda runtime first asks for it, at init: a function builds only
its own handler and reads only its own settings (A2A_LAMBDA_TIMEOUT_S differs between them).
"""

from a2a_serverless_aws import entry_points

from .agent import {{ cookiecutter.__agent }}
{% if cookiecutter.fastapi == "yes" %}
entry_points(__name__, {{ cookiecutter.__agent }}, app="{{ cookiecutter.module_name }}.api:api")
{%- else %}
entry_points(__name__, {{ cookiecutter.__agent }})
{%- endif %}
