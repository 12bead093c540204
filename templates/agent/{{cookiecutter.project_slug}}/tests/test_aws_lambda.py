"""The Lambda entry points build with the settings serverless.yml and infra/main.tf give them,
and the HTTP function serves the agent card from an API Gateway HTTP API event{% if cookiecutter.fastapi == "yes" %}, with the
FastAPI app's own route{% endif %}. (Nothing here
reaches AWS: a card needs neither the table nor the queue.)"""

from __future__ import annotations

import importlib
import json
import uuid
from dataclasses import dataclass, field

import pytest

QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
CARD_PATH = "{% if cookiecutter.fastapi == "yes" %}/agent{% endif %}/.well-known/agent-card.json"


@dataclass
class LambdaContext:
    """What the handlers read of the Lambda runtime's context object."""

    function_name: str = "{{ cookiecutter.project_slug }}-test"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:test"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def get_remaining_time_in_millis(self) -> int:
        return 20_000


@pytest.fixture(autouse=True)
def lambda_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("A2A_STORE_URL", "memory://")
    monkeypatch.setenv("A2A_SQS_QUEUE_URL", QUEUE_URL)
    monkeypatch.setenv("A2A_SQS_MAX_RECEIVE_COUNT", "5")


def api_gateway_get(path: str) -> dict[str, object]:
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "abc123.execute-api.us-east-1.amazonaws.com"},
        "requestContext": {
            "http": {
                "method": "GET",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.1",
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }


def test_the_http_function_serves_the_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_LAMBDA_TIMEOUT_S", "29")
    handlers = importlib.import_module("{{ cookiecutter.module_name }}.aws_lambda")
    response = handlers.http(api_gateway_get(CARD_PATH), LambdaContext())
    assert response["statusCode"] == 200
    card = json.loads(response["body"])
    assert card["name"] == {{ cookiecutter.agent_name | tojson }}
    # API Gateway buffers responses: the card must not promise live streaming.
    assert card["capabilities"]["streaming"] is False
{%- if cookiecutter.fastapi == "yes" %}
    assert card["url"] == "https://abc123.execute-api.us-east-1.amazonaws.com/agent/"
    hello = handlers.http(api_gateway_get("/hello"), LambdaContext())
    assert json.loads(hello["body"]) == {"hello": "world"}
{%- endif %}


def test_the_worker_and_dead_letter_functions_build(monkeypatch: pytest.MonkeyPatch) -> None:
    handlers = importlib.import_module("{{ cookiecutter.module_name }}.aws_lambda")
    monkeypatch.setenv("A2A_LAMBDA_TIMEOUT_S", "300")
    monkeypatch.setenv("A2A_SQS_VISIBILITY_TIMEOUT_S", "1800")
    assert handlers.worker({"Records": []}, LambdaContext()) == {"batchItemFailures": []}
    monkeypatch.setenv("A2A_LAMBDA_TIMEOUT_S", "60")
    monkeypatch.setenv("A2A_SQS_VISIBILITY_TIMEOUT_S", "360")
    assert handlers.dead_letters({"Records": []}, LambdaContext()) == {"batchItemFailures": []}
