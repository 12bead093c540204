"""A reference, not an agent server: the DynamoDB floor plus the requests our handler makes.

floor_dynamodb's imports and client (here pointed at A2A_STORE_URL's table and endpoint, as the
DynamoDB handler's is), and floor_stdlib's answers, kept in DynamoDB with the requests the
adapter's DynamoDB store sends for them, as plain boto3 client calls made on the event loop's
thread: per message/send a TransactWriteItems creating the task item and its idempotency key
item (with a ConditionCheck of the message's own key), then three conditional UpdateItem
(ReturnValues ALL_NEW) for the worker's claim, the artifact and the completion, each appending
its event to the item's inline list; per tasks/get one consistent GetItem. Same expressions,
same attributes, bodies zlib-compressed JSON of about the same sizes. Nothing is primed at
init, as in floor_dynamodb: its first request pays the connection and botocore's first calls.
The bench prints its cold start beside the DynamoDB handler's: what DynamoDB Local's latency
for those requests costs a cold start, and so how much of the handler's gap is its own.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
import uuid
import zlib
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import boto3  # type: ignore[import-untyped]
import pynamodb.models  # noqa: F401  (imported as floor_dynamodb does)

_url = urlsplit(os.environ["A2A_STORE_URL"])
_query = parse_qs(_url.query)
TABLE = _url.netloc
client = boto3.session.Session().client(
    "dynamodb", region_name=_query["region"][0], endpoint_url=_query["endpoint"][0]
)
_loop = asyncio.new_event_loop()
OWNER = "anonymous"
# What the handler's condition on an inline list checks: its bytes and length bounds.
INLINE_ITEM_BYTES, MAX_INLINE_EVENTS = 4096, 25


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _pack(value: Any) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode(), 6)


def _task_columns(task: dict[str, Any], now_ms: int) -> dict[str, dict[str, Any]]:
    return {
        "kind": {"S": "task"},
        "body": {"B": _pack(task)},
        "owner": {"S": OWNER},
        "owner_ctx": {"S": json.dumps([OWNER, task["contextId"]], separators=(",", ":"))},
        "order_key": {"S": f"{now_ms:015d}#{task['id']}"},
        "state": {"S": task["status"]["state"]},
    }


def _create(task: dict[str, Any], message_id: str, fingerprint: str, now_ms: int) -> None:
    key = f"{OWNER}\n{message_id}"
    claimed = f"{key}\n{fingerprint}"
    event = _pack({"statusUpdate": {"status": task["status"]}})
    free = "(attribute_not_exists (#0) OR #1 <= :0)"
    names = {"#0": "PK", "#1": "expires_ms"}
    now = {":0": {"N": str(now_ms)}}
    item = {
        "PK": {"S": f"T#{task['id']}"},
        "SK": {"S": "T"},
        **_task_columns(task, now_ms),
        "events": {"L": [{"B": event}]},
        "events_bytes": {"N": str(1 + len(event))},
        "keys": {"SS": [claimed]},
        "last_seq": {"N": "1"},
        "letters": {"N": "0"},
        "version": {"N": "1"},
    }
    key_item = {
        "PK": {"S": f"K#{claimed}"},
        "SK": {"S": "K"},
        "created_ms": {"N": str(now_ms)},
        "kind": {"S": "key"},
        "task_id": {"S": task["id"]},
    }
    client.transact_write_items(
        TransactItems=[
            {
                "ConditionCheck": {
                    "TableName": TABLE,
                    "Key": {"PK": {"S": f"K#{key}"}, "SK": {"S": "K"}},
                    "ConditionExpression": free,
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": now,
                }
            },
            {
                "Put": {
                    "TableName": TABLE,
                    "Item": item,
                    "ConditionExpression": "attribute_not_exists (#0)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    "ExpressionAttributeNames": {"#0": "PK"},
                }
            },
            {
                "Put": {
                    "TableName": TABLE,
                    "Item": key_item,
                    "ConditionExpression": free,
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": now,
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
        ClientRequestToken=str(uuid.uuid4()),
    )


# The columns every task write sets (`_task_columns`: #2..#7 in the expressions below).
_SET_COLUMNS = ", ".join(f"#{i} = :{i}" for i in range(2, 8))
# The claim: the task's columns and version, no event.
_CLAIM = f"SET {_SET_COLUMNS}, #0 = :8, #1 = :9, #8 = :10 REMOVE #9, #10"
# An event's write: also its inline event appended, and the list's size.
_APPEND = (
    f"SET {_SET_COLUMNS}, #0 = :10, #1 = :11, #12 = :12, "
    "#8 = list_append (if_not_exists (#8, :13), :14) REMOVE #10, #11 ADD #9 :15"
)
_APPEND_CONDITION = (
    "((#0 = :0 AND #1 = :1) AND (attribute_not_exists (#8) OR (#9 <= :8 AND size (#8) <= :9)))"
)


def _update(
    task: dict[str, Any], version: int, last_seq: int, event: dict[str, Any] | None, now_ms: int
) -> None:
    """The write after version `version` (whose log ends at `last_seq`): the claim (no event)
    or one more inline event."""
    columns = list(_task_columns(task, now_ms).items())
    names = {"#0": "version", "#1": "last_seq"}
    names.update((f"#{i}", name) for i, (name, _) in enumerate(columns, start=2))
    values = {":0": {"N": str(version)}, ":1": {"N": str(last_seq)}}
    values.update((f":{i}", value) for i, (_, value) in enumerate(columns, start=2))
    if event is None:
        names.update({"#8": "letters", "#9": "expires_ms", "#10": "ttl"})
        values.update({":8": {"N": str(version + 1)}, ":9": {"N": str(last_seq)}})
        values[":10"] = {"N": "0"}
        condition, expression = "(#0 = :0 AND #1 = :1)", _CLAIM
    else:
        packed = _pack(event)
        names.update({"#8": "events", "#9": "events_bytes", "#10": "expires_ms", "#11": "ttl"})
        names["#12"] = "letters"
        values.update(
            {
                ":8": {"N": str(INLINE_ITEM_BYTES - 1 - len(packed))},
                ":9": {"N": str(MAX_INLINE_EVENTS - 1)},
                ":10": {"N": str(version + 1)},
                ":11": {"N": str(last_seq + 1)},
                ":12": {"N": "0"},
                ":13": {"L": []},
                ":14": {"L": [{"B": packed}]},
                ":15": {"N": str(1 + len(packed))},
            }
        )
        condition, expression = _APPEND_CONDITION, _APPEND
    client.update_item(
        TableName=TABLE,
        Key={"PK": {"S": f"T#{task['id']}"}, "SK": {"S": "T"}},
        ConditionExpression=condition,
        ReturnValues="ALL_NEW",
        UpdateExpression=expression,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
        ReturnConsumedCapacity="TOTAL",
    )


async def _handle(request: dict[str, Any]) -> dict[str, Any]:
    params = request["params"]
    if request["method"] == "tasks/get":
        found = client.get_item(
            TableName=TABLE,
            Key={"PK": {"S": f"T#{params['id']}"}, "SK": {"S": "T"}},
            ConsistentRead=True,
            ReturnConsumedCapacity="TOTAL",
        )
        stored: dict[str, Any] = json.loads(zlib.decompress(found["Item"]["body"]["B"]))
        return stored
    message = params["message"]
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    text = "\n".join(p["text"] for p in message["parts"] if p.get("kind") == "text")
    history = [{**message, "taskId": task_id, "contextId": context_id}]
    task: dict[str, Any] = {
        "kind": "task",
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "submitted", "timestamp": _now()},
        "history": history,
    }
    now_ms = time.time_ns() // 1_000_000
    fingerprint = hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()
    _create(task, message["messageId"], fingerprint, now_ms)
    _update(task, 1, 1, None, now_ms)  # the worker's claim
    artifact = {"artifactId": str(uuid.uuid4()), "name": "echo", "parts": [{"text": text}]}
    task["artifacts"] = [{**artifact, "parts": [{"kind": "text", "text": text}]}]
    _update(task, 2, 1, {"artifactUpdate": {"artifact": artifact}}, now_ms)
    task["status"] = {"state": "completed", "timestamp": _now()}
    _update(task, 3, 2, {"statusUpdate": {"status": task["status"]}}, time.time_ns() // 1_000_000)
    return task


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    request = json.loads(event["body"])
    result = _loop.run_until_complete(_handle(request))
    body = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result})
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": body}
