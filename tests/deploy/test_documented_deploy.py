"""The documented AWS deploys, run as written against a local AWS API emulator, and the deployed
functions then serving a message.

Each test takes the shell commands of a deploy path from the document a user follows (a
generated project's README.md, rendered for `weather-agent`: the same commands as
docs/quickstart.md's §5 and docs/deploy-aws.md, which the first test holds them to) and runs
them with bash against a moto server on loopback (`AWS_ENDPOINT_URL`, dummy credentials; see
moto_deploy_server.py for the gaps of moto it fills). The user's default region here is
us-east-1 and the documents deploy to eu-west-1: a command that forgot its region would leave a
parameter where the functions do not look. Then it reads each deployed function back from the
emulator (handler, environment, code hash), checks that the code is the zip the commands built,
and runs that code under `python3.12 -S` with exactly the deployed environment (pointed at the
emulator): the HTTP function's card, the documented `curl` without `X-API-Key` (401) and with it,
a blocking send the worker function completes from the SQS queue meanwhile.

What the emulator cannot do, and what stands in for it:
- `npm install`: no npm registry here; the kit's node_modules (the same osls, pinned the same in
  both package.json) is linked into the project.
- `terraform init` resolves hashicorp/aws from the local plugin directory (a CLI configuration
  in `TF_CLI_CONFIG_FILE`), and `TF_CLI_ARGS_apply=-auto-approve` answers apply's prompt.
- moto's CloudFormation creates no API Gateway v2 routes, stages or integrations (the server
  adds only the HTTP API itself, whose URL the worker is given for durable calls' callbacks) and
  moto never runs a Lambda function without Docker: the `curl` lines are not run; the test serves
  their request (their body and headers, parsed from the document) as an API Gateway payload 2.0
  event through the deployed handler, and hands the worker the queue's job as the event source
  mapping would. That mapping is checked to exist, and so are Terraform's HTTP API, its
  $default route and its payload 2.0 integration with the HTTP function.
- IAM is recorded, not enforced: the roles' grants are checked by tests/deploy/test_serverless.py
  and test_terraform.py, not here.

The Terraform path's commands run in the background from the first test of tests/deploy on,
and its test runs last of the directory (conftest.py says why).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.serverless_support import (
    ROOT,
    Service,
    lambda_python,
    run,
    service,
    tool_env,
)
from tests.support.server import free_port

pytestmark = pytest.mark.deploy

PROJECT = "weather-agent"
REGION = "eu-west-1"
SMOKE = Path(__file__).with_name("deployed_lambda_smoke.py")
MOTO = Path(__file__).with_name("moto_deploy_server.py")
PLUGIN_DIR = Path(os.environ.get("A2A_TF_PLUGIN_DIR", "/opt/tf-plugins"))
# What every Lambda Python runtime provides (package.py leaves it out of the zip): pure Python,
# so this virtualenv's copies stand in for the runtime's.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")
# Commands the emulator cannot run (see the module's docstring).
NOT_RUN = ("npm install", "scripts/emulators/serverless.sh", "curl ")
DEPLOY_TIMEOUT_S = 600
TERRAFORM_TEST = "test_terraform_apply_of_a_generated_project_serves_a_message"


def bash_blocks(markdown: str) -> list[str]:
    """The fenced bash blocks of `markdown`, continuation lines joined."""
    blocks = re.findall(r"^```bash\n(.*?)^```", markdown, flags=re.M | re.S)
    return [block.replace("\\\n", " ") for block in blocks]


def section(markdown: str, heading: str) -> str:
    """From `heading` (a whole line) to the next heading."""
    start = markdown.index(f"\n{heading}\n") + len(heading) + 2
    following = re.search(r"^#{1,6} ", markdown[start:], flags=re.M)
    return markdown[start : len(markdown) if following is None else start + following.start()]


def commands(markdown: str) -> list[str]:
    return [
        " ".join(line.split())
        for block in bash_blocks(markdown)
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


@dataclass(frozen=True)
class Documented:
    """A deploy path's commands, as the README gives them."""

    setup: list[str]  # package and parameters, shared by both ways
    deploy: list[str]

    def script(self) -> str:
        lines = [c for c in [*self.setup, *self.deploy] if not c.startswith(NOT_RUN)]
        # The shell's API key, for the test to call with (the user keeps it from the echo).
        return "\n".join(["set -euo pipefail", *lines, "printf '%s' \"$API_KEY\" > .api_key"])

    def curl(self) -> list[str]:
        """The documented call with the API key, split as the shell would (unexpanded)."""
        (call,) = [c for c in self.deploy if c.startswith("curl ") and "X-API-Key" in c]
        return shlex.split(call)


def readme_paths(project: Path) -> dict[str, Documented]:
    readme = (project / "README.md").read_text()
    setup = commands(section(readme, "## Deploy on AWS"))
    return {
        "serverless": Documented(setup, commands(section(readme, "### With `serverless deploy`"))),
        "terraform": Documented(setup, commands(section(readme, "### With Terraform"))),
    }


def new_project(out: Path) -> Path:
    """`a2a-serverless new weather-agent --cloud aws` into `out`, from this checkout."""
    run(
        [
            ROOT / ".venv" / "bin" / "a2a-serverless",
            "new",
            PROJECT,
            "--cloud",
            "aws",
            "--output-dir",
            out,
            "--kit-path",
            ROOT,
            "--no-input",
        ],
        env=tool_env(),
    )
    return out / PROJECT


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_project(tmp_path_factory.mktemp("new"))


@dataclass(frozen=True)
class Emulator:
    endpoint: str

    def client(self, name: str) -> Any:
        import boto3  # type: ignore[import-untyped]

        return boto3.session.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
        ).client(name, endpoint_url=self.endpoint)


@contextlib.contextmanager
def moto_emulator(directory: Path) -> Iterator[Emulator]:
    """A moto server of its own (moto_deploy_server.py), its log in `directory`."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    python = ROOT / ".venv" / "bin" / "python"
    command: list[str | Path] = [python, MOTO, "-H", "127.0.0.1", "-p", str(port)]
    with service(command, directory / "moto.log", env=tool_env(), cwd=directory) as moto:
        moto.wait_http(f"{endpoint}/moto-api/", timeout_s=60)
        yield Emulator(endpoint)


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[Emulator]:
    with moto_emulator(tmp_path) as started:
        yield started


def user_env(emulator: Emulator, tmp_path: Path) -> dict[str, str]:
    """A user's shell: the kit's CLI and Python on PATH, AWS (here: the emulator) configured
    with another default region than the one the documents deploy to."""
    config = tmp_path / "terraform.rc"
    config.write_text(
        "provider_installation {\n"
        f'  filesystem_mirror {{\n    path    = "{PLUGIN_DIR}"\n'
        '    include = ["registry.terraform.io/hashicorp/aws"]\n  }\n'
        '  direct {\n    exclude = ["registry.terraform.io/hashicorp/aws"]\n  }\n}\n'
    )
    return tool_env(
        {
            "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
            "AWS_ENDPOINT_URL": emulator.endpoint,
            "TF_CLI_CONFIG_FILE": str(config),
            "TF_CLI_ARGS_apply": "-auto-approve",
            "TF_IN_AUTOMATION": "1",
            "CHECKPOINT_DISABLE": "1",
            # osls waits this long (default 5 s) before each look at a stack's progress; the
            # emulator has each stack done at once.
            "SLS_AWS_MONITORING_FREQUENCY": "200",
        }
    )


def run_documented(documented: Documented, project: Path, env: dict[str, str]) -> str:
    """The documented commands in one bash, in the project; the API key they made."""
    run(["bash", "-c", documented.script()], env=env, cwd=project, timeout_s=DEPLOY_TIMEOUT_S)
    return (project / ".api_key").read_text()


@dataclass(frozen=True)
class Deploying:
    """The documented commands running in one bash in the background, in `project`, against
    `emulator`, their output in a log."""

    emulator: Emulator
    project: Path
    documented: Documented
    bash: Service

    def api_key(self) -> str:
        """Once the commands are done: the API key they made."""
        try:
            status = self.bash.process.wait(DEPLOY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the deploy did not end in {DEPLOY_TIMEOUT_S} s:\n{self.bash.output()}")
        if status != 0:
            pytest.fail(f"the deploy exited with {status}:\n{self.bash.output()}")
        return (self.project / ".api_key").read_text()


@dataclass(frozen=True)
class Deployed:
    """A function as the emulator holds it."""

    name: str
    handler: str
    environment: dict[str, str]
    code_sha256: str


def deployed(emulator: Emulator, name: str) -> Deployed:
    configuration = emulator.client("lambda").get_function(FunctionName=name)["Configuration"]
    assert configuration["Runtime"] == "python3.12"
    return Deployed(
        name,
        configuration["Handler"],
        configuration["Environment"]["Variables"],
        configuration["CodeSha256"],
    )


def lambda_code(zip_path: Path, functions: list[Deployed], tmp_path: Path) -> Path:
    """The zip unpacked as Lambda's task root, once checked to be the code each function has."""
    digest = base64.b64encode(hashlib.sha256(zip_path.read_bytes()).digest()).decode()
    assert {f.code_sha256 for f in functions} == {digest}, "the deployed code is not the build"
    task_root = tmp_path / "task"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(task_root)
    return task_root


def runtime_dir(tmp_path: Path) -> Path:
    import botocore  # type: ignore[import-untyped]

    site = Path(botocore.__file__).parent.parent
    provided = tmp_path / "runtime"
    provided.mkdir()
    for name in RUNTIME_PROVIDED:
        (provided / name).symlink_to(site / name)
    return provided


def function_env(emulator: Emulator, function: Deployed) -> dict[str, str]:
    """What Lambda gives the function's process: its configured environment, the runtime's
    variables, credentials (the emulator's), and nothing of this machine's."""
    return {
        "PATH": "/usr/bin:/bin",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ENDPOINT_URL": emulator.endpoint,
        "AWS_LAMBDA_FUNCTION_NAME": function.name,
        **function.environment,
    }


def requests_from(curl: list[str], api_key: str) -> list[dict[str, Any]]:
    """The documented call as a request (its path under the agent's URL, headers, body), plus
    the card and the same call without its API key."""
    headers: dict[str, str] = {}
    body = ""
    for flag, value in itertools.pairwise(curl):
        if flag == "-H":
            name, _, header = value.partition(": ")
            headers[name] = header.replace("$API_KEY", api_key)
        elif flag == "-d":
            body = value
    # "$AgentUrl/..." or "${AgentUrl%/}/...": the path under the agent's URL.
    path = "/" + re.sub(r"^\$(AgentUrl|\{AgentUrl[^}]*\})", "", curl[1]).lstrip("/")
    without_key = {k: v for k, v in headers.items() if k != "X-API-Key"}
    return [
        {"method": "GET", "path": "/.well-known/agent-card.json", "headers": {}},
        {"method": "POST", "path": path, "headers": without_key, "body": body},
        {"method": "POST", "path": path, "headers": headers, "body": body},
    ]


def serve_a_message(
    emulator: Emulator,
    http: Deployed,
    worker: Deployed,
    zip_path: Path,
    curl: list[str],
    api_key: str,
    tmp_path: Path,
) -> dict[str, Any]:
    """The HTTP function answers the documented calls (the blocking send waits for the turn)
    while the worker function runs the job it queued."""
    task_root = lambda_code(zip_path, [http, worker], tmp_path)
    provided = runtime_dir(tmp_path)
    python = lambda_python()
    requests = json.dumps(requests_from(curl, api_key))
    with open(tmp_path / "http.out", "w+") as out:
        http_process = subprocess.Popen(
            [python, "-S", SMOKE, task_root, provided, http.handler, "http", requests],
            env=function_env(emulator, http),
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            queue_url = worker.environment["A2A_SQS_QUEUE_URL"]
            job = run(
                [python, "-S", SMOKE, task_root, provided, worker.handler, "sqs", queue_url],
                env=function_env(emulator, worker),
                cwd=tmp_path,
                timeout_s=180,
            )
            http_process.wait(180)
        finally:
            with contextlib.suppress(ProcessLookupError):
                http_process.kill()
        out.seek(0)
        http_output = out.read()
    worker_seen = json.loads(job.stdout.strip().splitlines()[-1])
    assert worker_seen == {"jobs": 1, "answer": {"batchItemFailures": []}}, job.stdout
    http_seen = json.loads(http_output.strip().splitlines()[-1])
    assert "responses" in http_seen, http_output
    responses: list[dict[str, Any]] = http_seen["responses"]
    return {"card": responses[0], "without_key": responses[1], "with_key": responses[2]}


def assert_served(seen: dict[str, Any], agent: str = "Weather Agent") -> None:
    assert seen["card"]["status"] == 200
    assert seen["card"]["body"]["name"] == agent
    # Signing keys read from their parameter at start-up.
    assert seen["card"]["body"]["capabilities"]["pushNotifications"] is True
    assert seen["without_key"]["status"] == 401
    assert seen["with_key"]["status"] == 200, seen["with_key"]
    task = seen["with_key"]["body"]["result"]
    assert task["status"]["state"] == "completed", task
    if agent == "Weather Agent":
        assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "You said: hello"}]


def queue_name(url: str) -> str:
    return url.rstrip("/").rpartition("/")[2]


def assert_worker_reads_its_queue(emulator: Emulator, worker: Deployed) -> None:
    mappings = emulator.client("lambda").list_event_source_mappings()["EventSourceMappings"]
    sources = {
        m["EventSourceArn"].rpartition(":")[2]
        for m in mappings
        if m["FunctionArn"].endswith(f":function:{worker.name}")
    }
    assert queue_name(worker.environment["A2A_SQS_QUEUE_URL"]) in sources


def assert_worker_calls_back_to_the_http_api(emulator: Emulator, worker: Deployed) -> None:
    """Durable calls' callbacks are addressed to the agent's own HTTP API (the worker's
    A2A_PUBLIC_URL), set by the deploy itself: the only API in the emulator."""
    (api,) = emulator.client("apigatewayv2").get_apis()["Items"]
    assert api["ApiEndpoint"] == f"https://{api['ApiId']}.execute-api.{REGION}.amazonaws.com"
    assert worker.environment["A2A_PUBLIC_URL"] == api["ApiEndpoint"]


def test_the_docs_give_the_readmes_commands(project: Path) -> None:
    """docs/quickstart.md §5 and docs/deploy-aws.md show the commands the tests below run."""
    paths = readme_paths(project)
    tested = {c for documented in paths.values() for c in [*documented.setup, *documented.deploy]}
    for doc in ("quickstart.md", "deploy-aws.md"):
        text = (ROOT / "docs" / doc).read_text()
        shown = [c for c in commands(text) if "/weather-agent/" in c or "X-API-Key" in c]
        assert shown, doc
        assert not [c for c in shown if c not in tested], doc
    # Both parameters, each in the region deployed to, before deploying.
    setup = " ".join(paths["serverless"].setup)
    for parameter in ("push-signing-keys", "api-keys"):
        assert f"--region {REGION} --name /{PROJECT}/prod/{parameter}" in setup


def test_serverless_deploy_of_a_generated_project_serves_a_message(
    project: Path, emulator: Emulator, tmp_path: Path
) -> None:
    # The kit's node_modules stands in for the project's `npm install`: the same osls version
    # as the project's exact pin (the kit's own is a range its lock file resolves).
    lock = json.loads((ROOT / "package-lock.json").read_text())
    installed = lock["packages"]["node_modules/serverless"]["version"]
    pinned = json.loads((project / "package.json").read_text())["devDependencies"]["serverless"]
    assert pinned == f"npm:osls@{installed}"
    work = tmp_path / PROJECT
    shutil.copytree(project, work)
    (work / "node_modules").symlink_to(ROOT / "node_modules")
    documented = readme_paths(work)["serverless"]
    api_key = run_documented(documented, work, user_env(emulator, tmp_path))

    stack = emulator.client("cloudformation").describe_stacks(StackName=f"{PROJECT}-prod")
    assert stack["Stacks"][0]["StackStatus"] in ("CREATE_COMPLETE", "UPDATE_COMPLETE")
    http = deployed(emulator, f"{PROJECT}-prod-http")
    worker = deployed(emulator, f"{PROJECT}-prod-worker")
    assert http.environment["A2A_AUTH_API_KEYS"] == f"ssm:/{PROJECT}/prod/api-keys"
    assert_worker_reads_its_queue(emulator, worker)
    assert_worker_calls_back_to_the_http_api(emulator, worker)
    seen = serve_a_message(
        emulator, http, worker, work / "build" / "lambda.zip", documented.curl(), api_key, tmp_path
    )
    assert_served(seen)


def test_serverless_deploy_of_the_repository_serves_a_message(
    emulator: Emulator, tmp_path: Path
) -> None:
    """docs/deploy-aws-serverless.md, from the parameters to the deploy, in a copy of this
    checkout (its .venv and node_modules linked), with serverless-python-requirements building
    the zip as it would for a user."""
    doc = (ROOT / "docs" / "deploy-aws-serverless.md").read_text()
    documented = Documented(
        commands(section(doc, "## Before the first deploy")), commands(section(doc, "## Deploy"))
    )
    setup = " ".join(documented.setup)
    for parameter in ("push-signing-keys", "api-keys"):
        name = f"/a2a-serverless/prod/{parameter}"
        assert f"--region {REGION} --type SecureString --name {name}" in setup
    repo = tmp_path / "a2a-serverless"
    files = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    for linked in ("node_modules", ".venv"):
        (repo / linked).symlink_to(ROOT / linked)
    api_key = run_documented(documented, repo, user_env(emulator, tmp_path))

    http = deployed(emulator, "a2a-trip-planner-prod-http")
    worker = deployed(emulator, "a2a-trip-planner-prod-worker")
    assert http.environment["A2A_AUTH_API_KEYS"] == "ssm:/a2a-serverless/prod/api-keys"
    assert_worker_reads_its_queue(emulator, worker)
    assert_worker_calls_back_to_the_http_api(emulator, worker)
    zip_path = repo / ".serverless" / "a2a-trip-planner.zip"
    seen = serve_a_message(emulator, http, worker, zip_path, documented.curl(), api_key, tmp_path)
    assert_served(seen, agent="Trip Planner")
    task = seen["with_key"]["body"]["result"]
    text = "".join(p.get("text", "") for a in task["artifacts"] for p in a["parts"])
    assert "Day 2:" in text and "Lisbon" in text


def test_terraform_apply_of_a_generated_project_serves_a_message(
    terraform_deploying: Deploying | None, tmp_path: Path
) -> None:
    """Run last of tests/deploy: its commands have been running since that directory's first
    test (conftest.py's `terraform_deploying`)."""
    assert terraform_deploying is not None
    emulator, work = terraform_deploying.emulator, terraform_deploying.project
    documented = terraform_deploying.documented
    api_key = terraform_deploying.api_key()

    # The HTTP API's $default route goes to the HTTP function, payload 2.0 (what the test's
    # events are): as far as moto's API Gateway v2 goes, which stores it but never invokes.
    gateway = emulator.client("apigatewayv2")
    (api,) = gateway.get_apis()["Items"]
    assert api["Name"] == f"{PROJECT}-http-api"
    (route,) = gateway.get_routes(ApiId=api["ApiId"])["Items"]
    (integration,) = gateway.get_integrations(ApiId=api["ApiId"])["Items"]
    assert route["RouteKey"] == "$default"
    assert route["Target"] == f"integrations/{integration['IntegrationId']}"
    assert integration["PayloadFormatVersion"] == "2.0"
    assert f":function:{PROJECT}-http/" in integration["IntegrationUri"]
    http = deployed(emulator, f"{PROJECT}-http")
    worker = deployed(emulator, f"{PROJECT}-worker")
    assert http.environment["A2A_AUTH_API_KEYS"] == f"ssm:/{PROJECT}/prod/api-keys"
    assert_worker_reads_its_queue(emulator, worker)
    assert_worker_calls_back_to_the_http_api(emulator, worker)
    seen = serve_a_message(
        emulator, http, worker, work / "build" / "lambda.zip", documented.curl(), api_key, tmp_path
    )
    assert_served(seen)
