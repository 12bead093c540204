"""Run the packaged Lambda zip as the Lambda runtime would, outside this project's virtualenv.

    python -S tests/deploy/lambda_zip_smoke.py TASK_ROOT RUNTIME_DIR

Started by tests/deploy/test_package.py with `python -S` (no site-packages at all): sys.path is
the standard library, TASK_ROOT (the unpacked zip, Lambda's /var/task) and RUNTIME_DIR (what
the Lambda runtime provides: boto3, botocore and their dependencies). It imports the handlers
the deployment names (examples.aws_lambda.http / .worker), serves API Gateway v2 events and
an SQS event through them against the store and queue the environment names (a moto server),
and prints one JSON line with what it saw. Standard library only, besides the bundle.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

sys.path[:0] = [sys.argv[1], sys.argv[2]]

HOST = "abc123.execute-api.us-east-1.amazonaws.com"


class LambdaContext:
    function_name = "a2a-smoke"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:a2a-smoke"
    aws_request_id = "c6af9ac6-7b61-11e6-9a41-93e812345678"
    log_group_name = "/aws/lambda/a2a-smoke"
    log_stream_name = "2026/01/01/[$LATEST]0123456789abcdef"

    def get_remaining_time_in_millis(self) -> int:
        return int(float(os.environ["A2A_LAMBDA_TIMEOUT_S"]) * 1000)


def http_event(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """An API Gateway HTTP API (payload v2) event, as the $default route sends it."""
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "host": HOST,
            "content-type": "application/json",
            "x-forwarded-proto": "https",
            "x-forwarded-port": "443",
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": HOST,
            "domainPrefix": "abc123",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "smoke",
            },
            "requestId": f"req-{time.time_ns()}",
            "routeKey": "$default",
            "stage": "$default",
            "time": "01/Jan/2026:00:00:00 +0000",
            "timeEpoch": int(time.time() * 1000),
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def rpc(handler: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = handler(http_event("POST", "/", body), LambdaContext())
    assert response["statusCode"] == 200, response
    answer: dict[str, Any] = json.loads(response["body"])
    return answer


def sqs_event(queue_url: str) -> dict[str, Any]:
    """The jobs waiting on the queue, as the SQS event source mapping hands them to Lambda."""
    import boto3  # from RUNTIME_DIR, as in Lambda

    sqs = boto3.client("sqs")
    received = sqs.receive_message(
        QueueUrl=queue_url,
        MaxNumberOfMessages=10,
        WaitTimeSeconds=5,
        AttributeNames=["All"],
        MessageAttributeNames=["All"],
    )
    records = []
    for message in received.get("Messages", []):
        records.append(
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes", {}),
                "messageAttributes": {
                    name: {
                        "stringValue": value.get("StringValue"),
                        "dataType": value["DataType"],
                    }
                    for name, value in message.get("MessageAttributes", {}).items()
                },
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:jobs",
                "awsRegion": "us-east-1",
            }
        )
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    return {"Records": records}


def main() -> None:
    from examples import aws_lambda

    http = aws_lambda.http
    card_response = http(http_event("GET", "/.well-known/agent-card.json"), LambdaContext())
    card = json.loads(card_response["body"])
    jwks = json.loads(http(http_event("GET", "/.well-known/jwks.json"), LambdaContext())["body"])

    sent = rpc(
        http,
        "message/send",
        {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "smoke-1",
                "parts": [{"kind": "text", "text": "Plan 2 days in Lisbon"}],
            },
            "configuration": {"blocking": False},
        },
    )
    task_id = sent["result"]["id"]
    event = sqs_event(os.environ["A2A_SQS_QUEUE_URL"])
    worker_answer = aws_lambda.worker(event, LambdaContext())
    task = rpc(http, "tasks/get", {"id": task_id})["result"]
    texts = [
        part.get("text", "")
        for artifact in task.get("artifacts", [])
        for part in artifact.get("parts", [])
    ]
    store = type(http.container.runtime.store).__name__
    print(
        json.dumps(
            {
                "card_status": card_response["statusCode"],
                "card_name": card["name"],
                "streaming": card["capabilities"].get("streaming"),
                "jwks_keys": len(jwks.get("keys", [])),
                "sent_state": sent["result"]["status"]["state"],
                "jobs": len(event["Records"]),
                "worker_answer": worker_answer,
                "final_state": task["status"]["state"],
                "text": "".join(texts),
                "store": store,
                "python": list(sys.version_info[:2]),
                "site_imported": "site" in sys.modules,
            }
        )
    )


if __name__ == "__main__":
    main()
