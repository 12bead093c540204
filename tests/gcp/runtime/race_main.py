"""The functions of the GCP process races (tests/gcp/runtime/test_races_processes.py).

    functions-framework --target a2a --source race_main.py      the A2A HTTP function
    functions-framework --target worker --source race_main.py   the worker function

As in functions_main.py, with the scenario's agent (RACE_AGENT, tests/reliability/
race_instance.py), the A2A_STORE_URL store wrapped in the process's ledger, the race
instances' settings (`races.INSTANCE_SETTINGS`) and no push notifications. The queue is the
deployment's (A2A_PUBSUB_TOPIC and the rest, as a user configures it), recorded
(`PublishedJobs`): every job it published is appended to `<pid>.published` in
RACE_LEDGER_DIR, which the driver reads to know which jobs must be handled before it checks,
and to publish the run-agent jobs again. A function is built on first access, as in
tests/aws/runtime/race_functions.py: in functions-framework's process before it starts its
server, which connects nothing (the store and the publisher connect on first use).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from a2a_serverless import Settings
from a2a_serverless.queue.base import Job, JobConsumer, Queue, decode_job, encode_job
from a2a_serverless.store import open_store
from tests.reliability.race_instance import JsonLines, ledger_store, race_agent, read_json_lines
from tests.reliability.races import INSTANCE_SETTINGS

PUBLISHED_SUFFIX = ".published"


class PublishedJobs:
    """A Queue publishing to `topic` through `inner`, which records every job `inner`
    accepted in this process's `<pid>.published` file in `directory`."""

    def __init__(self, inner: Queue, topic: str, directory: Path) -> None:
        self.inner = inner
        self.topic = topic
        self.file = JsonLines(directory, PUBLISHED_SUFFIX)

    @property
    def supports_delay(self) -> bool:
        return self.inner.supports_delay

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        await self.inner.enqueue(job, delay_s=delay_s)
        self.file.append({"topic": self.topic, "job": encode_job(job).decode()})

    def start(self, jobs: JobConsumer) -> None:
        self.inner.start(jobs)

    async def aclose(self) -> None:
        await self.inner.aclose()


def published(directory: Path) -> list[tuple[str, Job]]:
    """Every job any process published so far (the function processes and the driver), with
    the topic it went to."""
    entries = read_json_lines(directory, PUBLISHED_SUFFIX)
    return [(entry["topic"], decode_job(entry["job"])) for entry in entries]


def __getattr__(name: str) -> Any:
    from a2a_serverless_gcp import http_function, worker_function
    from a2a_serverless_gcp.config import GcpConfig
    from a2a_serverless_gcp.deployment import build_queue

    if name not in ("a2a", "worker"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    config = GcpConfig.from_env()
    assert config.pubsub_topic is not None, "A2A_PUBSUB_TOPIC is not set"
    queue = PublishedJobs(
        build_queue(config), config.pubsub_topic, Path(os.environ["RACE_LEDGER_DIR"])
    )
    build = http_function if name == "a2a" else worker_function
    function = build(
        race_agent(),
        name=name,
        settings=Settings(**INSTANCE_SETTINGS),
        config=config,
        store=ledger_store(open_store(os.environ["A2A_STORE_URL"])),
        queue=queue,
        push_notifications=False,
    )
    globals()[name] = function
    return function
