"""Helpers of the serverless.yml and packaging tests: tools, a moto server, processes, ports.

A missing tool fails the test with how to install it (never a skip).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import free_port

ROOT = Path(__file__).resolve().parents[2]
SERVERLESS = ROOT / "node_modules" / ".bin" / "serverless"
CFN_LINT = ROOT / ".emulators" / "cfn-lint-venv" / "bin" / "cfn-lint"
CHECKOV = ROOT / ".emulators" / "checkov-venv" / "bin" / "checkov"
REGION = "us-east-1"
# Never real credentials: nothing here may reach AWS.
DUMMY_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
}
LAMBDA_PYTHON = "3.12"


def serverless() -> Path:
    if not os.access(SERVERLESS, os.X_OK):
        pytest.fail(
            f"osls is not installed at {SERVERLESS}: run scripts/emulators/serverless.sh "
            "(npm ci of package.json: osls, serverless-python-requirements, serverless-offline; "
            "needs Node >= 20.19)"
        )
    return SERVERLESS


def cfn_lint() -> Path:
    if not os.access(CFN_LINT, os.X_OK):
        pytest.fail(f"cfn-lint is not installed at {CFN_LINT}: run scripts/emulators/serverless.sh")
    return CFN_LINT


def checkov() -> Path:
    if not os.access(CHECKOV, os.X_OK):
        pytest.fail(f"checkov is not installed at {CHECKOV}: run scripts/emulators/checkov.sh")
    return CHECKOV


def lambda_python() -> str:
    """A CPython of the Lambda runtime's version (python3.12), to run what was built for it."""
    candidates = [os.environ.get("A2A_LAMBDA_PYTHON", "")]
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(f"{pyenv_root}/versions/3.12*/bin/python3.12"), reverse=True)
    candidates += [shutil.which("python3.12") or ""]
    for candidate in candidates:
        if candidate and _runs_python(candidate, LAMBDA_PYTHON):
            return candidate
    pytest.fail(
        "no Python 3.12 interpreter (the Lambda runtime python3.12 and Cloud Functions "
        "python312 run the bundles with it): install one (e.g. `pyenv install 3.12`), put "
        "python3.12 on PATH, or set A2A_LAMBDA_PYTHON to its path"
    )


def _runs_python(executable: str, version: str) -> bool:
    """Whether `executable` starts and is that version (a pyenv shim may exist and not run)."""
    try:
        result = subprocess.run(
            [executable, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return False
    return result.returncode == 0 and result.stdout.strip() == version


def stock_pip_python(directory: Path) -> Path:
    """A new virtualenv of this Python with the pip that Python ships (ensurepip's, never
    upgraded): what a user who just made a virtualenv packages with."""
    base = getattr(sys, "_base_executable", sys.executable)
    run([base, "-m", "venv", directory])
    python = directory / "bin" / "python"
    version = run([python, "-m", "pip", "--version"]).stdout.split()[1]
    import ensurepip

    assert version == ensurepip.version(), f"{python}: pip {version}, not the bundled one"
    return python


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any AWS configuration, plus dummy credentials."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(DUMMY_AWS)
    env.update(
        {
            "SLS_TELEMETRY_DISABLED": "1",
            "SLS_NOTIFICATIONS_MODE": "off",
            # serverless-python-requirements runs pip with this interpreter.
            "PYTHON": sys.executable,
        }
    )
    env.update(extra or {})
    return env


def run(
    command: Sequence[str | Path],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = ROOT,
    timeout_s: float = 600,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if check and result.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, command))} exited with {result.returncode}\n"
            f"--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"
        )
    return result


@dataclass
class Service:
    """A process this test started, in its own process group, with its output in a log."""

    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-8000:]

    def wait_http(self, url: str, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                pytest.fail(
                    f"{self.process.args} exited with {self.process.returncode}:\n{self.output()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return
            except urllib.error.HTTPError:
                return  # it answers, if not with a 2xx
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"{url} did not answer within {timeout_s} s:\n{self.output()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


@contextlib.contextmanager
def service(
    command: Sequence[str | Path], log: Path, *, env: Mapping[str, str], cwd: Path = ROOT
) -> Iterator[Service]:
    """Start `command` in a new session (so its children go with it) and stop it at the end."""
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(part) for part in command],
            cwd=cwd,
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    started = Service(process, log)
    try:
        yield started
    finally:
        started.stop()


@dataclass(frozen=True)
class AwsEmulator:
    """A moto server with the example's table and job queue, as the deployment would have."""

    endpoint: str
    table: str
    queue_url: str

    @property
    def store_url(self) -> str:
        return f"dynamodb://{self.table}?region={REGION}&endpoint={self.endpoint}"

    def sqs(self) -> Any:
        import boto3  # type: ignore[import-untyped]

        return boto3.session.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
        ).client("sqs", endpoint_url=self.endpoint)


@contextlib.contextmanager
def aws_emulator(workdir: Path) -> Iterator[AwsEmulator]:
    """`python -m moto.server` on a free port with a DynamoDB table (made by the store's own
    create_table) and an SQS queue; stopped at the end."""
    try:
        import moto.server
    except ImportError as exc:
        pytest.fail(
            f"the moto server is needed ({exc}): install the AWS adapter's test extra "
            "(scripts/bootstrap.sh, or .venv/bin/pip install -e 'adapters/aws[test]')"
        )
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    with service(command, workdir / "moto.log", env=tool_env()) as moto:
        moto.wait_http(f"{endpoint}/moto-api/", timeout_s=60)
        with _aws_env():
            from a2a_serverless_aws.dynamodb import create_table

            create_table("a2a-deploy-test", region=REGION, endpoint_url=endpoint)
        emulator = AwsEmulator(endpoint, "a2a-deploy-test", "")
        queue_url = emulator.sqs().create_queue(QueueName="jobs")["QueueUrl"]
        yield AwsEmulator(endpoint, "a2a-deploy-test", queue_url)


@contextlib.contextmanager
def _aws_env() -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in DUMMY_AWS}
    os.environ.update(DUMMY_AWS)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
