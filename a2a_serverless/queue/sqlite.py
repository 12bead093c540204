"""The embedded queue made durable: jobs kept in the store's SQLite file, claimed with a lease.

What `a2a-serverless dev` (and any app on a SQLite store) runs: jobs run in this process as with
`InProcessQueue`, but each is first written to the `a2a_jobs` table of the same file, and is
deleted only once handled (or abandoned and dead-lettered). A job being run is leased to this
process (`holder`, `lease_until`), the lease renewed while it runs. So:

- a process killed mid-job (the dev server stopped with Ctrl-C twice, a crash, `kill -9`) leaves
  its jobs in the table; the next process on the file takes them over as soon as it starts (a
  holder whose process has exited is known dead at once, holders.py), or when their lease runs
  out — and the worker resumes the interrupted turn from its start (worker.py);
- a job waiting for a retry survives too (its `run_at` is kept; its count of failed deliveries,
  kept in memory, starts again in the process that takes it over);
- several processes on one file share the work: whichever claims a job first runs it;
- a job belongs to the agent that queued it (`agent`): a process serving another agent on the
  same file (two dev servers in one folder, agents mounted side by side in one app) leaves it
  for its own agent, saying so once, and never runs a turn with the wrong agent's code.

Every process polls the table every `poll_s` for jobs it does not run yet whose time has come
and whose holder is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from pathlib import Path

from ..holders import holder_is_dead, local_holder_id
from .base import Job, JobConsumer, JobHandler, decode_job, encode_job
from .inprocess import InProcessQueue

log = logging.getLogger("a2a_serverless.queue")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS a2a_jobs (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    run_at INTEGER NOT NULL,
    holder TEXT,
    lease_until INTEGER,
    agent TEXT
)
"""


def _now_ms() -> int:
    return int(time.time() * 1000)


class SqliteQueue(InProcessQueue):
    messaging_system = "a2a_sqlite"
    destination = "a2a_jobs"
    # Another process on the file may run a job this one queued (and its reads are local).
    runs_jobs_where_queued = False

    def __init__(
        self,
        path: str | Path,
        handler: JobConsumer | JobHandler | None = None,
        *,
        lease_s: float = 30.0,
        poll_s: float = 1.0,
        concurrency: int = 32,
        max_attempts: int = 5,
        base_backoff_s: float = 0.2,
        agent: str | None = None,
    ) -> None:
        """`agent` names the agent whose jobs these are (the Runtime passes its agent's name):
        jobs queued by another agent are left alone. None takes every job (as before)."""
        super().__init__(
            handler,
            concurrency=concurrency,
            max_attempts=max_attempts,
            base_backoff_s=base_backoff_s,
        )
        self.lease_ms = int(lease_s * 1000)
        self.poll_s = poll_s
        self.holder = local_holder_id()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path), timeout=5.0, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(a2a_jobs)")}
        if "agent" not in columns:
            # A file from before jobs had agents: its jobs stay anyone's (agent NULL).
            with contextlib.suppress(sqlite3.OperationalError):  # another process added it
                self._db.execute("ALTER TABLE a2a_jobs ADD COLUMN agent TEXT")
        self.agent = agent
        # Other agents' jobs this process has said it leaves alone (said once each).
        self._set_aside: set[str] = set()
        # Jobs scheduled in this process (not yet finished): the poller leaves them alone.
        self._local: set[str] = set()
        self._poller: asyncio.Task[None] | None = None

    # --- the queue ------------------------------------------------------------------------------

    def _record(self, job: Job, delay_s: float) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO a2a_jobs (id, body, run_at, holder, lease_until, agent) "
                "VALUES (?, ?, ?, NULL, NULL, ?)",
                (job.id, encode_job(job).decode(), _now_ms() + int(delay_s * 1000), self.agent),
            )
        self._poll_soon()
        self._local.add(job.id)

    async def _run(self, job: Job, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        if not self._claim(job.id):
            self._local.discard(job.id)
            return  # another process runs it, or it is done
        renewing = asyncio.get_running_loop().create_task(self._renew(job.id))
        try:
            await super()._run(job, 0.0)
        except BaseException:
            # Not handled, not queued again (this process is stopping, or the file failed): the
            # row stays, and is taken over when its lease runs out.
            self._local.discard(job.id)
            raise
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing

    def _finished(self, job: Job) -> None:
        super()._finished(job)
        self._local.discard(job.id)
        with self._lock:
            self._db.execute(
                "DELETE FROM a2a_jobs WHERE id = ? AND holder = ?", (job.id, self.holder)
            )

    # --- leases ---------------------------------------------------------------------------------

    def _claim(self, job_id: str) -> bool:
        """Lease the job to this process if it is due and nobody (alive) holds it."""
        now = _now_ms()
        with self._lock:
            row = self._db.execute(
                "SELECT run_at, holder, lease_until FROM a2a_jobs WHERE id = ?", (job_id,)
            ).fetchone()
            if row is None:
                return False
            run_at, holder, lease_until = row
            if run_at > now + 50:  # rescheduled for later meanwhile (a clock tick of slack)
                return False
            free = holder is None or lease_until < now or holder_is_dead(holder)
            if not free and holder != self.holder:
                return False
            claimed = self._db.execute(
                "UPDATE a2a_jobs SET holder = ?, lease_until = ? WHERE id = ? "
                "AND holder IS ? AND lease_until IS ?",
                (self.holder, now + self.lease_ms, job_id, holder, lease_until),
            )
            return claimed.rowcount == 1

    async def _renew(self, job_id: str) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            with self._lock:
                self._db.execute(
                    "UPDATE a2a_jobs SET lease_until = ? WHERE id = ? AND holder = ?",
                    (_now_ms() + self.lease_ms, job_id, self.holder),
                )

    # --- taking over jobs of other processes ------------------------------------------------------

    def start(self, jobs: JobConsumer) -> None:
        """Run the jobs with `jobs` (unless made with a handler) and, in a running loop, start
        polling for jobs to take over (else the first enqueue, or the Runtime's `start()` in
        its loop, does). Idempotent."""
        super().start(jobs)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet (a Runtime built at import): polling starts later
        self._poll_soon()

    def _poll_soon(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        while True:
            try:
                await self.recover()
            except sqlite3.Error as exc:
                log.warning("the job table could not be read (trying again): %s", exc)
            await asyncio.sleep(self.poll_s)

    async def recover(self) -> int:
        """Schedule every due job that no live process holds; how many were scheduled."""
        now = _now_ms()
        with self._lock:
            rows = self._db.execute(
                "SELECT id, body, holder, lease_until, agent FROM a2a_jobs WHERE run_at <= ?",
                (now,),
            ).fetchall()
        scheduled = 0
        for job_id, body, holder, lease_until, agent in rows:
            if job_id in self._local:
                continue
            if agent is not None and self.agent is not None and agent != self.agent:
                self._leave(job_id, body, agent)
                continue
            if holder is not None and lease_until >= now and not holder_is_dead(holder):
                continue
            job = decode_job(body)
            log.info("job %s (%s) of task %s taken over", job.id, job.kind, job.task_id)
            self._local.add(job.id)
            # Not a new send: the job runs with the trace it was queued in.
            self._start(job, 0.0)
            scheduled += 1
        return scheduled

    def _leave(self, job_id: str, body: str, agent: str) -> None:
        """Say once that another agent's job waits here for that agent."""
        if job_id in self._set_aside:
            return
        self._set_aside.add(job_id)
        job = decode_job(body)
        log.warning(
            "job %s (%s) of task %s belongs to agent %r, not %r: left in the queue for it",
            job.id,
            job.kind,
            job.task_id,
            agent,
            self.agent,
        )

    async def aclose(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        await super().aclose()
        with self._lock:
            self._db.close()
