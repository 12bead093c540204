"""Storage cost: the DynamoDB requests and capacity units each A2A method costs, and what a
million tasks cost at on-demand prices.

Our echo agent runs on the DynamoDB store against DynamoDB Local, in this process, through the
ASGI app (the in-process queue runs each turn, so a blocking message/send includes every write
of its turn, whoever makes it in a real deployment). Two botocore hooks on the store's client
count: `before-parameter-build` asks every data call for ReturnConsumedCapacity=INDEXES (table
and index units apart), `after-call` adds up the ConsumedCapacity DynamoDB answers with.
Capacity comes from DynamoDB Local, which applies DynamoDB's rules (1 KB write units, 4 KB read
units, transactions double); item sizes are estimated from a Scan with the documented rules.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import logging
import os
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .environments import FUNCTION_DIR

# On-demand prices, DynamoDB Standard table class, US East (N. Virginia), in USD. Published on
# https://aws.amazon.com/dynamodb/pricing/on-demand/ ; in force since 2024-11-01, when AWS
# halved on-demand throughput prices (from $1.25 / $0.25 per million).
PRICES_DATE = "2024-11-01"
PRICE_PER_MILLION_WRITE_UNITS = 0.625
PRICE_PER_MILLION_READ_UNITS = 0.125
PRICE_PER_GB_MONTH = 0.25

READ_OPERATIONS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}
WRITE_OPERATIONS = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
# DynamoDB adds 100 bytes of overhead to every item, in the table and in each index.
ITEM_OVERHEAD_BYTES = 100


@dataclass
class Usage:
    calls: dict[str, float] = field(default_factory=dict)
    read_units: float = 0.0
    write_units: float = 0.0
    # Capacity units by operation and where they were spent: the table or an index.
    units_by_target: dict[str, float] = field(default_factory=dict)

    def add(self, other: Usage) -> None:
        _merge(self.calls, other.calls)
        _merge(self.units_by_target, other.units_by_target)
        self.read_units += other.read_units
        self.write_units += other.write_units

    def scaled(self, factor: float) -> Usage:
        return Usage(
            {name: count * factor for name, count in self.calls.items()},
            self.read_units * factor,
            self.write_units * factor,
            {name: units * factor for name, units in self.units_by_target.items()},
        )

    @property
    def dollars_per_million(self) -> float:
        """What a million of these cost in requests (USD, on-demand)."""
        return (
            self.read_units * PRICE_PER_MILLION_READ_UNITS
            + self.write_units * PRICE_PER_MILLION_WRITE_UNITS
        )


class CapacityMeter:
    """Counts the calls and capacity units of one botocore DynamoDB client."""

    def __init__(self, client: Any) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()
        self._id = f"a2a-bench-{uuid.uuid4().hex}"
        events = client.meta.events
        events.register("before-parameter-build.dynamodb", self._before, unique_id=self._id + "b")
        events.register("after-call.dynamodb", self._after, unique_id=self._id + "a")
        self._events = events

    def close(self) -> None:
        self._events.unregister("before-parameter-build.dynamodb", unique_id=self._id + "b")
        self._events.unregister("after-call.dynamodb", unique_id=self._id + "a")

    def take(self) -> Usage:
        """What was counted since the last `take`."""
        with self._lock:
            usage, self._usage = self._usage, Usage()
        return usage

    def _before(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if model.name in READ_OPERATIONS or model.name in WRITE_OPERATIONS:
            params["ReturnConsumedCapacity"] = "INDEXES"

    def _after(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        name = model.name
        consumed = parsed.get("ConsumedCapacity") or []
        entries = consumed if isinstance(consumed, list) else [consumed]
        units = sum(float(entry.get("CapacityUnits", 0.0)) for entry in entries)
        targets: dict[str, float] = {}
        for entry in entries:
            table = entry.get("Table", {}).get("CapacityUnits")
            if table:
                _merge(targets, {f"{name} table": float(table)})
            for index, spent in (entry.get("GlobalSecondaryIndexes") or {}).items():
                _merge(targets, {f"{name} {index}": float(spent.get("CapacityUnits", 0.0))})
        label = name
        if name == "Query" and parsed.get("Items") is None and "Count" in parsed:
            label = "Query (count)"
        with self._lock:
            _merge(self._usage.calls, {label: 1})
            _merge(self._usage.units_by_target, targets)
            if name in WRITE_OPERATIONS:
                self._usage.write_units += units
            else:
                self._usage.read_units += units


def _merge(into: dict[str, float], more: dict[str, float]) -> None:
    for name, value in more.items():
        into[name] = into.get(name, 0.0) + value


@dataclass(frozen=True)
class MethodCost:
    method: str
    usage: Usage
    note: str = ""


@dataclass(frozen=True)
class StorageResult:
    methods: list[MethodCost]
    bytes_per_task: float
    tasks_listed: int

    def method(self, name: str) -> MethodCost:
        return next(m for m in self.methods if m.method == name)

    def per_task(self) -> Usage:
        """One task as the scenario defines it: one blocking message/send, one tasks/get."""
        usage = Usage()
        usage.add(self.method("message/send").usage)
        usage.add(self.method("tasks/get").usage)
        return usage

    @property
    def storage_dollars_per_million_month(self) -> float:
        return self.bytes_per_task * 1_000_000 / 2**30 * PRICE_PER_GB_MONTH


def measure(store_url: str, repeats: int) -> StorageResult:
    return asyncio.run(_measure(store_url, repeats))


async def _measure(store_url: str, repeats: int) -> StorageResult:
    import httpx

    from a2a_serverless import Agent, Settings, create_app

    sys.path.insert(0, str(FUNCTION_DIR))
    try:
        echo: Agent = importlib.import_module("echo_ours").echo
    finally:
        sys.path.remove(str(FUNCTION_DIR))

    # Push needs signing keys this bench has no use for: its "off" warning is expected here.
    logging.getLogger("a2a_serverless.runtime").setLevel(logging.ERROR)
    app = create_app(echo, Settings(store_url=store_url))
    store: Any = app.runtime.store
    meter = CapacityMeter(store.client)
    transport = httpx.ASGITransport(app=app)
    totals: dict[str, Usage] = {}
    notes: dict[str, str] = {}
    task_ids: list[str] = []
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:

            async def call(method: str, params: dict[str, Any], stream: bool = False) -> Any:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
                response = await client.post("/", json=body)
                response.raise_for_status()
                await app.runtime.queue.drain()  # type: ignore[attr-defined]
                return response.text if stream else response.json()

            def count(method: str, usage: Usage) -> None:
                totals.setdefault(method, Usage()).add(usage)

            # The first calls open the connection and read the table's description: not counted.
            warm = await call("message/send", _send_params())
            task_ids.append(warm["result"]["id"])
            meter.take()
            for _ in range(repeats):
                sent = await call("message/send", _send_params())
                _require_completed(sent["result"])
                task_id = sent["result"]["id"]
                task_ids.append(task_id)
                count("message/send", meter.take())
                await call("tasks/get", {"id": task_id})
                count("tasks/get", meter.take())
                streamed = await call("message/stream", _send_params(), stream=True)
                if '"state":"completed"' not in streamed:
                    raise RuntimeError(f"message/stream did not complete: {streamed[:300]}")
                count("message/stream", meter.take())
                await call("tasks/resubscribe", {"id": task_id}, stream=True)
                count("tasks/resubscribe", meter.take())
                refused = await call("tasks/cancel", {"id": task_id})
                if "error" not in refused:
                    raise RuntimeError(f"canceling a completed task succeeded: {refused}")
                count("tasks/cancel", meter.take())
                await call("tasks/list", {"pageSize": 10})
                count("tasks/list", meter.take())
            listed = 1 + 2 * repeats
            notes["tasks/list"] = f"pageSize 10, the caller has {listed} tasks or fewer"
            notes["tasks/cancel"] = "refused: the task is completed (the read that decides it)"
            notes["message/send"] = "blocking; includes the turn's writes (claim, artifact, done)"
            notes["message/stream"] = "live SSE until the task completes; includes the turn"
            notes["tasks/resubscribe"] = "on a completed task: the Task, then the stream ends"
            bytes_per_task = await asyncio.to_thread(_bytes_per_task, store)
    finally:
        meter.close()
        await app.runtime.aclose()
    methods = [
        MethodCost(name, usage.scaled(1 / repeats), notes.get(name, ""))
        for name, usage in totals.items()
    ]
    return StorageResult(methods, bytes_per_task, len(task_ids))


def _send_params() -> dict[str, Any]:
    return {
        "message": {
            "kind": "message",
            "role": "user",
            "messageId": str(uuid.uuid4()),
            "parts": [{"kind": "text", "text": "hello, bench"}],
        }
    }


def _require_completed(task: dict[str, Any]) -> None:
    state = task.get("status", {}).get("state")
    if state != "completed":
        raise RuntimeError(f"message/send left the task {state!r}")


def _bytes_per_task(store: Any) -> float:
    """Table bytes per task (items + overhead, with the listing indexes' copies), from a Scan."""
    client = store.client
    table = store.table_name
    description = client.describe_table(TableName=table)["Table"]
    index_keys = [
        ({k["AttributeName"] for k in index["KeySchema"]}, index["Projection"])
        for index in description.get("GlobalSecondaryIndexes", [])
    ]
    tasks: set[str] = set()
    total = 0
    pager: Callable[..., Any] = client.get_paginator("scan").paginate
    for page in pager(TableName=table):
        for item in page["Items"]:
            pk = item["PK"]["S"]
            if pk.startswith("T#") and item["SK"]["S"] == "T":
                tasks.add(pk)
            total += ITEM_OVERHEAD_BYTES + _item_bytes(item)
            for keys, projection in index_keys:
                if keys <= item.keys():
                    projected = set(projection.get("NonKeyAttributes", [])) | keys | {"PK", "SK"}
                    copy = {k: v for k, v in item.items() if k in projected}
                    total += ITEM_OVERHEAD_BYTES + _item_bytes(copy)
    return total / max(1, len(tasks))


def _item_bytes(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: dict[str, Any]) -> int:
    """DynamoDB's item size rules, closely enough for a cost estimate."""
    kind, data = next(iter(value.items()))
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        return (len(str(data).lstrip("-").replace(".", "")) + 1) // 2 + 1
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(_value_bytes({kind[0]: member}) for member in data)
    if kind == "L":
        return 3 + sum(1 + _value_bytes(member) for member in data)
    if kind == "M":
        return 3 + sum(len(k.encode()) + 1 + _value_bytes(v) for k, v in data.items())
    return 0


# --- a task with a 1 MB artifact, its content in S3 -----------------------------------------

# S3 Standard, US East (N. Virginia), in USD, as published on https://aws.amazon.com/s3/pricing/
# (PUT, COPY, POST, LIST $0.005 per 1,000; GET and other reads $0.0004 per 1,000; DELETE free;
# storage $0.023 per GB-month for the first 50 TB), unchanged since 2016-12-01, when AWS last
# lowered S3 Standard's storage price in us-east-1.
S3_PRICES_DATE = "2016-12-01"
S3_PRICE_PER_THOUSAND_PUT = 0.005
S3_PRICE_PER_THOUSAND_GET = 0.0004
S3_PRICE_PER_GB_MONTH = 0.023
# S3's request tiers, by botocore operation name (DeleteObject(s) is free).
S3_PUT_TIER = {"PutObject", "CopyObject", "ListObjectsV2", "CreateMultipartUpload", "UploadPart"}
S3_GET_TIER = {"GetObject", "HeadObject"}

LARGE_ARTIFACT_BYTES = 1_000_000
# What the agent writes, in order; every step is one journal write.
LARGE_ARTIFACT_STEPS = (
    "working",
    "the 1 MB artifact",
    "working + a status message",
    "working + a second status message",
    "completed",
)


class S3Meter:
    """Counts the requests of one botocore S3 client, by operation."""

    def __init__(self, client: Any) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, float] = {}
        self._id = f"a2a-bench-s3-{uuid.uuid4().hex}"
        self._events = client.meta.events
        self._events.register("after-call.s3", self._after, unique_id=self._id)

    def close(self) -> None:
        self._events.unregister("after-call.s3", unique_id=self._id)

    def take(self) -> dict[str, float]:
        with self._lock:
            calls, self._calls = self._calls, {}
        return calls

    def _after(self, model: Any, **_: Any) -> None:
        with self._lock:
            _merge(self._calls, {model.name: 1})


def s3_dollars_per_million(calls: dict[str, float]) -> float:
    """What a million of these request sets cost on S3 Standard (USD)."""
    puts = sum(count for name, count in calls.items() if name in S3_PUT_TIER)
    gets = sum(count for name, count in calls.items() if name in S3_GET_TIER)
    return (puts * S3_PRICE_PER_THOUSAND_PUT + gets * S3_PRICE_PER_THOUSAND_GET) * 1000


@dataclass(frozen=True)
class LargeArtifactResult:
    """One task whose agent writes a 1 MB file artifact among status changes (means)."""

    send: Usage  # blocking message/send, the turn's writes included
    get: Usage  # tasks/get on another instance (content not in its cache)
    s3_send: dict[str, float]
    s3_get: dict[str, float]
    # DynamoDB write units of each of the agent's writes, in LARGE_ARTIFACT_STEPS' order.
    write_units_per_step: list[float]
    object_bytes_per_task: float
    # What the same task does on the store without a content store ("completed", "failed: ...").
    without_content: str

    @property
    def dynamodb(self) -> Usage:
        usage = Usage()
        usage.add(self.send)
        usage.add(self.get)
        return usage

    @property
    def s3_calls(self) -> dict[str, float]:
        calls = dict(self.s3_send)
        _merge(calls, self.s3_get)
        return calls

    @property
    def s3_storage_dollars_per_million_month(self) -> float:
        return self.object_bytes_per_task * 1_000_000 / 2**30 * S3_PRICE_PER_GB_MONTH


def measure_large_artifact(
    dynamodb_url: str, s3_endpoint: str, bucket: str, repeats: int
) -> LargeArtifactResult:
    return asyncio.run(_measure_large_artifact(dynamodb_url, s3_endpoint, bucket, repeats))


class _LargeArtifactExecutor:
    """Writes LARGE_ARTIFACT_STEPS, taking the DynamoDB meter after each write."""

    def __init__(self) -> None:
        self.meter: CapacityMeter | None = None
        self.before = Usage()
        self.steps: list[Usage] = []

    async def execute(self, context: Any, updater: Any) -> None:
        from a2a_serverless.models import Part, TaskState

        data = base64.b64encode(os.urandom(LARGE_ARTIFACT_BYTES)).decode()
        file = Part(raw=data, media_type="application/octet-stream", filename="report.bin")
        self._take()  # what came before the agent (the task's creation, the turn's claim)
        await updater.start_work()
        self._take(step=True)
        await updater.add_artifact(file, name="report")
        self._take(step=True)
        await updater.update_status(TaskState.WORKING, "checking the report")
        self._take(step=True)
        await updater.update_status(TaskState.WORKING, "almost there")
        self._take(step=True)
        await updater.complete("done")
        self._take(step=True)

    def _take(self, *, step: bool = False) -> None:
        if self.meter is None:
            return
        usage = self.meter.take()
        if step:
            self.steps.append(usage)
        else:
            self.before = usage


async def _measure_large_artifact(
    dynamodb_url: str, s3_endpoint: str, bucket: str, repeats: int
) -> LargeArtifactResult:
    import httpx

    from a2a_serverless import Agent, Settings, create_app
    from a2a_serverless_aws.dynamodb.store import DynamoDBStore
    from a2a_serverless_aws.dynamodb.url import parse_dynamodb_url
    from a2a_serverless_aws.s3content import S3ContentStore

    logging.getLogger("a2a_serverless.runtime").setLevel(logging.ERROR)
    logging.getLogger("a2a_serverless.worker").setLevel(logging.CRITICAL)
    parsed = parse_dynamodb_url(dynamodb_url)

    def store(content: bool) -> DynamoDBStore:
        return DynamoDBStore(
            parsed.table_name,
            region=parsed.region,
            endpoint_url=parsed.endpoint_url,
            content=S3ContentStore(bucket, region=parsed.region, endpoint_url=s3_endpoint)
            if content
            else None,
        )

    executor = _LargeArtifactExecutor()
    agent = Agent(name="Report", description="Writes a 1 MB report.", executor=executor)
    settings = Settings(store_url="memory://", finished_task_ttl_s=7 * 86400)
    writer = create_app(agent, settings, store=store(True))
    reader = create_app(agent, settings, store=store(True))  # another instance
    plain = create_app(agent, settings, store=store(False))
    writer_store: Any = writer.runtime.store
    reader_store: Any = reader.runtime.store
    meter = CapacityMeter(writer_store.client)  # one botocore client per process and table
    s3_writer = S3Meter(writer_store.offloader.content.client)
    s3_reader = S3Meter(reader_store.offloader.content.client)
    send, get = Usage(), Usage()
    s3_send: dict[str, float] = {}
    s3_get: dict[str, float] = {}
    steps = [0.0] * len(LARGE_ARTIFACT_STEPS)
    object_bytes = 0.0
    try:
        async with (
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=writer), base_url="http://bench"
            ) as to_writer,
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=reader), base_url="http://bench"
            ) as to_reader,
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=plain), base_url="http://bench"
            ) as to_plain,
        ):

            async def call(client: Any, app: Any, method: str, params: dict[str, Any]) -> Any:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
                response = await client.post("/", json=body, timeout=120)
                response.raise_for_status()
                await app.runtime.queue.drain()
                return response.json()

            # Warm both instances (connections, table description, the S3 clients): not counted.
            warm = await call(to_writer, writer, "message/send", _send_params())
            _require_completed(warm["result"])
            await call(to_reader, reader, "tasks/get", {"id": warm["result"]["id"]})
            executor.meter = meter
            for warmed in (meter, s3_writer, s3_reader):
                warmed.take()
            for _ in range(repeats):
                executor.steps = []
                sent = await call(to_writer, writer, "message/send", _send_params())
                _require_completed(sent["result"])
                send.add(executor.before)
                for usage in executor.steps:
                    send.add(usage)
                send.add(meter.take())
                _merge(s3_send, s3_writer.take())
                for index, usage in enumerate(executor.steps):
                    steps[index] += usage.write_units
                got = await call(to_reader, reader, "tasks/get", {"id": sent["result"]["id"]})
                if len(got["result"]["artifacts"][0]["parts"][0]["file"]["bytes"]) < 10**6:
                    raise RuntimeError("tasks/get did not give the artifact back")
                get.add(meter.take())
                _merge(s3_get, s3_reader.take())
            executor.meter = None
            object_bytes = await _object_bytes(writer_store.offloader.content) / (repeats + 1)
            failed = await call(to_plain, plain, "message/send", _send_params())
            without = failed["result"]["status"]
            without_content = without["state"]
            if without_content != "completed":
                text = (without.get("message") or {}).get("parts", [{}])[0].get("text", "")
                without_content += f": {text}" if text else ""
    finally:
        meter.close()
        s3_writer.close()
        s3_reader.close()
        for app in (writer, reader, plain):
            await app.runtime.aclose()
    per = 1 / repeats
    return LargeArtifactResult(
        send=send.scaled(per),
        get=get.scaled(per),
        s3_send={name: count * per for name, count in s3_send.items()},
        s3_get={name: count * per for name, count in s3_get.items()},
        write_units_per_step=[units * per for units in steps],
        object_bytes_per_task=object_bytes,
        without_content=without_content,
    )


async def _object_bytes(content: Any) -> int:
    """The bytes held in the content bucket (every task's objects)."""
    client = content.client
    total = 0
    pager: Callable[..., Any] = client.get_paginator("list_objects_v2").paginate
    for page in await asyncio.to_thread(lambda: list(pager(Bucket=content.bucket))):
        total += sum(int(item["Size"]) for item in page.get("Contents", ()))
    return total
