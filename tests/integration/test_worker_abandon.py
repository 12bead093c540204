"""Abandoning a job: what happens when a queue gives up on a job (a dead-letter queue).

A queue retries a job a bounded number of times, then gives up on it (a cloud queue moves it to
a dead-letter queue). Every queue calls the job router's `abandon(job, reason)` then
(`Runtime.jobs`: the worker's for a run-agent job), so the task a run-agent job was for does not
stay `submitted` forever, and a webhook job's notification is dead-lettered.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from a2a_serverless.queue.base import RUN_AGENT, WEBHOOK_JOB, OtherJob
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless.store.memory import MemoryStore
from tests.aws.runtime.functions import ClaimRefusingStore
from tests.integration.agent_fixtures import RecordingQueue
from tests.integration.jsonrpc_agents import result_of, scripted, user_message

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02}


async def send_without_running(client: Any) -> str:
    params = {"message": user_message("hello"), "configuration": {"blocking": False}}
    task = await result_of(client, "message/send", params)
    return str(task["id"])


async def test_abandoned_turn_fails_the_task_with_the_reason(make_client: Any) -> None:
    queue = RecordingQueue()
    async with make_client(scripted, queue=queue, **FAST) as (client, app):
        task_id = await send_without_running(client)
        [job] = queue.jobs_for(task_id)
        assert job.kind == RUN_AGENT

        await app.runtime.jobs.abandon(job, "received 5 times without finishing")
        task = await result_of(client, "tasks/get", {"id": task_id})
        assert task["status"]["state"] == "failed"
        text = task["status"]["message"]["parts"][0]["text"]
        assert text == "The task could not be run: received 5 times without finishing"

        # Abandoning again, or the job arriving after all, changes nothing.
        await app.runtime.jobs.abandon(job, "again")
        await app.runtime.worker.handle(job)
        again = await result_of(client, "tasks/get", {"id": task_id})
        assert again == task


async def test_abandoning_a_finished_turn_changes_nothing(make_client: Any) -> None:
    queue = RecordingQueue()
    async with make_client(scripted, queue=queue, **FAST) as (client, app):
        task_id = await send_without_running(client)
        [job] = queue.jobs_for(task_id)
        await app.runtime.worker.handle(job)
        done = await result_of(client, "tasks/get", {"id": task_id})
        assert done["status"]["state"] == "completed"

        await app.runtime.jobs.abandon(job, "late dead letter")
        assert await result_of(client, "tasks/get", {"id": task_id}) == done


async def test_abandoned_webhook_job_dead_letters_its_notification(make_client: Any) -> None:
    queue = RecordingQueue()
    async with make_client(scripted, queue=queue, **FAST) as (client, app):
        params = {
            "message": user_message("hello"),
            "configuration": {
                "blocking": False,
                "pushNotificationConfig": {"url": "https://hooks.example.com/a2a"},
            },
        }
        task_id = (await result_of(client, "message/send", params))["id"]
        [run] = queue.jobs_for(task_id)
        await app.runtime.worker.handle(run)
        webhooks = [job for job in queue.jobs_for(task_id) if job.kind == WEBHOOK_JOB]
        assert webhooks, "the completed task queued a notification"
        notifier = app.runtime.notifier
        assert notifier is not None

        await app.runtime.jobs.abandon(webhooks[-1], "poison message")
        [letter] = await notifier.dead_letters(task_id)
        assert letter.seq == webhooks[-1].payload.seq
        assert "the queue gave up on the delivery job: poison message" in letter.reason
        await app.runtime.jobs.abandon(webhooks[-1], "poison message")
        assert len(await notifier.dead_letters(task_id)) == 1


async def test_unknown_job_kinds_are_logged_not_raised(make_client: Any, caplog: Any) -> None:
    async with make_client(scripted, **FAST) as (_client, app):
        await app.runtime.jobs.abandon(OtherJob(kind="other", task_id="t"), "why")
    assert "abandoned job" in caplog.text


async def test_the_dev_queue_fails_the_task_of_a_job_it_gives_up_on(make_client: Any) -> None:
    # The in-process queue (what `dev` runs on a memory store) retried a failing job five
    # times and then only logged it: its task stayed `submitted` forever. Here every claim of
    # the turn is refused (an error that is no outage), so each delivery fails.
    async with make_client(scripted, store=ClaimRefusingStore(MemoryStore()), **FAST) as (
        client,
        app,
    ):
        queue = app.runtime.queue
        assert isinstance(queue, InProcessQueue)
        task_id = await send_without_running(client)
        deadline = time.monotonic() + 10
        while not queue.dead_letters:
            assert time.monotonic() < deadline, "the job was not given up on"
            await asyncio.sleep(0.05)
        await queue.drain()
        task = await result_of(client, "tasks/get", {"id": task_id})
    assert task["status"]["state"] == "failed"
    assert task["status"]["message"]["parts"][0]["text"] == (
        "The task could not be run: its job failed on 5 deliveries in a row and was moved to "
        "the dead-letter queue"
    )
    [letter] = queue.dead_letters
    assert letter.job.kind == RUN_AGENT and letter.reason == (
        "StoreError: the table refused the write (simulated)"
    )
