"""Run a deployed Lambda function's code, as the Lambda runtime would, on one kind of event.

    python -S tests/deploy/deployed_lambda_smoke.py TASK_ROOT RUNTIME_DIR HANDLER http REQUESTS
    python -S tests/deploy/deployed_lambda_smoke.py TASK_ROOT RUNTIME_DIR HANDLER sqs QUEUE_URL

Started by tests/deploy/test_documented_deploy.py with `python3.12 -S` and the environment the
deployment gave the function: sys.path is the standard library, TASK_ROOT (the unpacked code,
Lambda's /var/task) and RUNTIME_DIR (what the Lambda runtime provides: boto3, botocore).
HANDLER is the function's handler setting (`module.attribute`), imported as the runtime does.
`http` serves REQUESTS (a JSON list of {method, path, headers, body}) as API Gateway HTTP API
(payload 2.0) events; `sqs` hands the jobs waiting on QUEUE_URL to the handler as one SQS
event. Prints one JSON line with what it saw. Standard library only, besides those two.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import uuid
from typing import Any

sys.path[:0] = [sys.argv[1], sys.argv[2]]

HOST = "abc123.execute-api.eu-west-1.amazonaws.com"


class LambdaContext:
    function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "deployed")
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = f"arn:aws:lambda:eu-west-1:123456789012:function:{function_name}"
    log_group_name = f"/aws/lambda/{function_name}"
    log_stream_name = "2026/01/01/[$LATEST]0123456789abcdef"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())

    def get_remaining_time_in_millis(self) -> int:
        return int(float(os.environ["A2A_LAMBDA_TIMEOUT_S"]) * 1000)


def http_event(request: dict[str, Any]) -> dict[str, Any]:
    """An API Gateway HTTP API (payload 2.0) event, as the $default route sends it."""
    headers = {"host": HOST, "x-forwarded-proto": "https", "x-forwarded-port": "443"}
    headers.update({name.lower(): value for name, value in request.get("headers", {}).items()})
    body = request.get("body")
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": request["path"],
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123",
            "domainName": HOST,
            "domainPrefix": "abc123",
            "http": {
                "method": request["method"],
                "path": request["path"],
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "curl",
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": "01/Jan/2026:00:00:00 +0000",
            "timeEpoch": int(time.time() * 1000),
        },
        "body": body,
        "isBase64Encoded": False,
    }


def sqs_event(queue_url: str) -> dict[str, Any]:
    """The jobs waiting on the queue, as the SQS event source mapping hands them to Lambda."""
    import boto3  # from RUNTIME_DIR, as in Lambda

    sqs = boto3.client("sqs")
    # Long polls until a job is there (the HTTP function sends it while this one waits).
    deadline = time.monotonic() + 90
    received: dict[str, Any] = {}
    while not received.get("Messages") and time.monotonic() < deadline:
        received = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=5,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
    records = []
    for message in received.get("Messages", []):
        records.append(
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes", {}),
                "messageAttributes": {
                    name: {"stringValue": value.get("StringValue"), "dataType": value["DataType"]}
                    for name, value in message.get("MessageAttributes", {}).items()
                },
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": arn["Attributes"]["QueueArn"],
                "awsRegion": os.environ["AWS_REGION"],
            }
        )
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    return {"Records": records}


def main() -> None:
    # "package/module.attribute" or "package.module.attribute", as the runtime takes either.
    module, _, attribute = sys.argv[3].rpartition(".")
    handler = getattr(importlib.import_module(module.replace("/", ".")), attribute)
    if sys.argv[4] == "http":
        seen: list[dict[str, Any]] = []
        for request in json.loads(sys.argv[5]):
            response = handler(http_event(request), LambdaContext())
            seen.append({"status": response["statusCode"], "body": json.loads(response["body"])})
        print(json.dumps({"responses": seen}))
    else:
        event = sqs_event(sys.argv[5])
        answer = handler(event, LambdaContext())
        print(json.dumps({"jobs": len(event["Records"]), "answer": answer}))


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:
        # What the runtime would report as the invocation's (or the init's) error.
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
