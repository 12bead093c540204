"""Lambda events as AWS sends them, and an SQS event source mapping for the tests.

- `http_api_event` (API Gateway HTTP API, payload 2.0), `rest_api_event` (REST API, 1.0),
  `alb_event` and `function_url_event`: an HTTP request as each event source delivers it.
- `sqs_event(messages)`: ReceiveMessage output as the SQS batch event Lambda's poller sends.
- `create_queues(sqs)`: a queue with its dead-letter queue (redrive policy), fresh names.
- `SqsTrigger`: what Lambda's event source mapping (with ReportBatchItemFailures) does: receive
  a batch, invoke the function, delete the records that did not fail; on an invocation error or
  crash delete nothing (SQS redelivers after the visibility timeout), and start a new
  execution environment after a crash.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.aws.runtime.runtime_api import (
    FunctionCrashed,
    FunctionError,
    FunctionTimedOut,
    LambdaFunction,
)

API_ID = "abc123"
API_HOST = f"{API_ID}.execute-api.us-east-1.amazonaws.com"
URL_HOST = "xyz789.lambda-url.us-east-1.on.aws"


def _body(body: Any) -> str | None:
    if body is None:
        return None
    return body if isinstance(body, str) else json.dumps(body)


def http_api_event(
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    *,
    host: str = API_HOST,
    stage: str = "$default",
) -> dict[str, Any]:
    now = time.time()
    # A named stage is the first segment of both paths (the `$default` stage is in neither).
    path = path if stage == "$default" else f"/{stage}{path}"
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "host": host,
            "content-type": "application/json",
            "x-forwarded-proto": "https",
            "x-forwarded-port": "443",
            **(headers or {}),
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": API_ID,
            "domainName": host,
            "domainPrefix": host.split(".")[0],
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "pytest",
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": "$default",
            "stage": stage,
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": _body(body),
        "isBase64Encoded": False,
    }


def function_url_event(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    event = http_api_event(method, path, body, headers, host=URL_HOST)
    event["requestContext"]["apiId"] = "xyz789"
    event["requestContext"]["domainPrefix"] = "xyz789"
    return event


def rest_api_event(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    all_headers = {
        "Host": API_HOST,
        "Content-Type": "application/json",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Port": "443",
        **(headers or {}),
    }
    return {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": method,
        "headers": all_headers,
        "multiValueHeaders": {k: [v] for k, v in all_headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": API_ID,
            "resourcePath": "/{proxy+}",
            "httpMethod": method,
            "path": f"/prod{path}",
            "stage": "prod",
            "requestId": uuid.uuid4().hex,
            "domainName": API_HOST,
            "identity": {"sourceIp": "203.0.113.7", "userAgent": "pytest"},
            "protocol": "HTTP/1.1",
        },
        "body": _body(body),
        "isBase64Encoded": False,
    }


def alb_event(
    method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    text = _body(body)
    return {
        "requestContext": {
            "elb": {
                "targetGroupArn": "arn:aws:elasticloadbalancing:us-east-1:123456789012:"
                "targetgroup/a2a/0123456789abcdef"
            }
        },
        "httpMethod": method,
        "path": path,
        "queryStringParameters": {},
        "headers": {
            "host": "a2a-alb-123.us-east-1.elb.amazonaws.com",
            "content-type": "application/json",
            "x-forwarded-proto": "http",
            "x-forwarded-port": "80",
            **(headers or {}),
        },
        # ALB sends bodies base64-encoded when it cannot tell they are text.
        "body": base64.b64encode(text.encode()).decode() if text is not None else "",
        "isBase64Encoded": text is not None,
    }


def response_body(response: dict[str, Any]) -> str:
    body: str = response.get("body") or ""
    if response.get("isBase64Encoded"):
        return base64.b64decode(body).decode()
    return body


def response_json(response: dict[str, Any]) -> Any:
    return json.loads(response_body(response))


def header(response: dict[str, Any], name: str) -> str | None:
    for key, value in (response.get("headers") or {}).items():
        if key.lower() == name.lower():
            return str(value)
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower():
            return str(values[0])
    return None


# --- SQS ----------------------------------------------------------------------------------------


def sqs_event(messages: list[dict[str, Any]], queue_arn: str) -> dict[str, Any]:
    """ReceiveMessage output as the batch event Lambda's SQS poller invokes a function with."""
    records = []
    for message in messages:
        attributes = {
            name: {
                "stringValue": value.get("StringValue"),
                "binaryValue": value.get("BinaryValue"),
                "stringListValues": [],
                "binaryListValues": [],
                "dataType": value["DataType"],
            }
            for name, value in (message.get("MessageAttributes") or {}).items()
        }
        records.append(
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": message.get("Attributes") or {},
                "messageAttributes": attributes,
                "md5OfBody": message.get("MD5OfBody"),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": "us-east-1",
            }
        )
    return {"Records": records}


@dataclass(frozen=True)
class Queues:
    url: str
    arn: str
    dlq_url: str
    max_receive_count: int
    visibility_timeout_s: int


def create_queues(sqs: Any, *, max_receive_count: int, visibility_timeout_s: int) -> Queues:
    """A queue (fresh name) and its dead-letter queue, moved there on `max_receive_count`."""
    name = f"jobs-{uuid.uuid4().hex[:12]}"
    dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    redrive = {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(max_receive_count)}
    url = sqs.create_queue(
        QueueName=name,
        Attributes={
            "VisibilityTimeout": str(visibility_timeout_s),
            "RedrivePolicy": json.dumps(redrive),
        },
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    return Queues(url, arn, dlq_url, max_receive_count, visibility_timeout_s)


@dataclass
class PollResult:
    received: int = 0
    failed: list[str] = field(default_factory=list)
    crashed: bool = False
    error: str | None = None
    # The crash was Lambda's timeout (a function made with enforce_timeout=True).
    timed_out: bool = False


class SqsTrigger:
    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        function: LambdaFunction | Callable[[dict[str, Any]], Any],
        *,
        batch_size: int = 10,
    ) -> None:
        self.sqs = sqs
        self.queue_url = queue_url
        self.function = function
        self.batch_size = batch_size
        arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
        self.queue_arn = arn["Attributes"]["QueueArn"]
        self.results: list[PollResult] = []

    def poll(self, wait_s: int = 1) -> PollResult:
        """One batch: receive, invoke, delete what succeeded."""
        received = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=wait_s,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        result = PollResult(received=len(received))
        if not received:
            return result
        self.results.append(result)
        event = sqs_event(received, self.queue_arn)
        try:
            response = self._invoke(event)
        except FunctionCrashed as crash:
            result.crashed, result.error = True, str(crash)
            result.timed_out = isinstance(crash, FunctionTimedOut)
            assert isinstance(self.function, LambdaFunction)
            self.function.restart()
            return result
        except FunctionError as error:
            result.error = str(error)
            return result
        result.failed = [f["itemIdentifier"] for f in response.get("batchItemFailures", [])]
        done = [m for m in received if m["MessageId"] not in result.failed]
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
                ],
            )
        return result

    def _invoke(self, event: dict[str, Any]) -> Any:
        if isinstance(self.function, LambdaFunction):
            return self.function.invoke(event)
        return self.function(event)

    def run_until(self, done: Callable[[], bool], *, timeout_s: float = 60.0) -> None:
        """Poll until `done()` holds (checked after every poll)."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"condition not reached in {timeout_s} s; polls: {self.results}"
                )
            self.poll()
