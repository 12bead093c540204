"""serverless.yml, checked with the real tools: osls, cfn-lint, checkov, serverless-offline.

- `serverless package --stage test --param=streaming=true --param=snapStart=true` (offline,
  dummy credentials: every optional function and setting on) builds
  the artifact with serverless-python-requirements (manylinux wheels, no Docker; pip as a fresh
  virtualenv has it, not upgraded) and the
  CloudFormation template, which must pass cfn-lint and checkov. Every cfn-lint rule left out
  is in CFN_LINT_IGNORED with its reason; every checkov skip carries its reason in the template
  (resource Metadata) and is listed in docs/deploy-aws-serverless.md.
- The template agrees with the code it deploys: the table with the DynamoDB store's model, the
  timeouts and queue settings with the adapter's timing rules, the handlers with the files in
  the artifact, and each function's role allows only what that function does.
- The guide's public agent without push (`serverless print` with `--param="apiKeys=none"` and
  `--param="pushSigningKeys=none"`): both settings empty, the example agent's card without
  push notifications nor security schemes, a message served without X-API-Key.
- The guide's `serverless offline` recipe, run by bash exactly as written (on free ports): the
  HTTP function serves the example agent's card and a message/send; the job it queues on a moto
  SQS queue reaches the worker function through serverless-offline-sqs, and the task completes.

A missing tool fails the tests with how to install it (scripts/emulators/serverless.sh,
scripts/emulators/checkov.sh).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.serverless_support import (
    ROOT,
    cfn_lint,
    checkov,
    free_port,
    run,
    serverless,
    service,
    stock_pip_python,
    tool_env,
)

pytestmark = pytest.mark.deploy

SERVICE = "a2a-trip-planner"
GUIDE = ROOT / "docs" / "deploy-aws-serverless.md"
# cfn-lint rules not applied, each with its reason.
CFN_LINT_IGNORED = {
    "W3005": (
        "the Serverless Framework adds DependsOn on each function's role and log group (and on "
        "the HTTP API's integration and log group) next to the GetAtt/Ref that already implies "
        "the order: redundant, harmless, and generated, not written in serverless.yml"
    ),
}
# What each function's role may do, beyond writing its own log group.
TABLE_ACTIONS = {
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
}
LOG_ACTIONS = {"logs:CreateLogStream", "logs:PutLogEvents"}
# The S3 content store: objects in the content bucket, and listing a finished task's objects.
CONTENT_ACTIONS = {
    "s3:GetObject",
    "s3:PutObject",
    "s3:DeleteObject",
    "s3:PutObjectTagging",
    "s3:ListBucket",
}
SHARED_ACTIONS = (
    LOG_ACTIONS | TABLE_ACTIONS | CONTENT_ACTIONS | {"sqs:SendMessage", "ssm:GetParameter"}
)
EXPECTED_ACTIONS = {
    "Http": SHARED_ACTIONS,
    "Stream": SHARED_ACTIONS,
    "Worker": SHARED_ACTIONS
    | {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"},
}


@dataclasses.dataclass(frozen=True)
class Packaged:
    directory: Path
    template: dict[str, Any]

    @property
    def resources(self) -> dict[str, Any]:
        resources: dict[str, Any] = self.template["Resources"]
        return resources

    @property
    def template_path(self) -> Path:
        return self.directory / "cloudformation-template-update-stack.json"

    @property
    def artifact(self) -> Path:
        return self.directory / f"{SERVICE}.zip"

    def function(self, name: str) -> dict[str, Any]:
        properties: dict[str, Any] = self.resources[f"{name}LambdaFunction"]["Properties"]
        return properties


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> Packaged:
    """`serverless package` of every function (streaming and SnapStart on), once for the module,
    with the pip a fresh virtualenv of this Python has (pip 23.2.1 on Python 3.11), as a user
    would."""
    python = stock_pip_python(tmp_path_factory.mktemp("stock-pip") / "venv")
    out = tmp_path_factory.mktemp("serverless") / "package"
    command = [
        serverless(),
        "package",
        "--stage",
        "test",
        "--param=streaming=true",
        "--param=snapStart=true",
        "--package",
        out,
    ]
    run(command, env=tool_env({"PYTHON": str(python)}), timeout_s=900)
    template = json.loads((out / "cloudformation-template-update-stack.json").read_text())
    return Packaged(out, template)


def test_template_passes_cfn_lint(packaged: Packaged) -> None:
    ignored = ",".join(sorted(CFN_LINT_IGNORED))
    result = run(
        [cfn_lint(), "--ignore-checks", ignored, "--", packaged.template_path], check=False
    )
    assert result.returncode == 0, f"cfn-lint:\n{result.stdout}{result.stderr}"
    print("cfn-lint rules not applied:")
    for rule, reason in CFN_LINT_IGNORED.items():
        print(f"  {rule}: {reason}")


def test_template_passes_checkov_with_every_skip_explained(packaged: Packaged) -> None:
    result = run(
        [
            checkov(),
            "--file",
            packaged.template_path,
            "--framework",
            "cloudformation",
            "--output",
            "json",
            "--skip-download",
        ],
        check=False,
    )
    report = json.loads(result.stdout)
    reports = report if isinstance(report, list) else [report]
    failed = [c for r in reports for c in r["results"]["failed_checks"]]
    skipped = [c for r in reports for c in r["results"]["skipped_checks"]]
    assert not failed, "checkov failed:\n" + "\n".join(
        f"{c['check_id']} {c['resource']}: {c['check_name']}" for c in failed
    )
    assert reports[0]["summary"]["passed"] > 0
    print("checkov checks skipped:")
    for check in sorted(skipped, key=lambda c: (c["check_id"], c["resource"])):
        reason = (check.get("check_result") or {}).get("suppress_comment", "")
        assert reason and len(reason) > 20, f"{check['check_id']} on {check['resource']}"
        print(f"  {check['check_id']} {check['resource']}: {reason}")
    # The guide lists the same skips, so a reader sees them without running checkov.
    documented = set(re.findall(r"\| (CKV_AWS_\d+) \|", GUIDE.read_text()))
    assert documented == {c["check_id"] for c in skipped}


def test_table_is_the_one_the_dynamodb_store_expects(packaged: Packaged) -> None:
    from a2a_serverless_aws.dynamodb.models import TTL_ATTRIBUTE, TableItem
    from a2a_serverless_aws.dynamodb.url import parse_dynamodb_url

    table = packaged.resources["TasksTable"]["Properties"]
    schema = TableItem._get_schema()

    def keys(key_schema: list[dict[str, str]]) -> set[tuple[str, str]]:
        return {(k["AttributeName"], k["KeyType"]) for k in key_schema}

    assert keys(table["KeySchema"]) == keys(schema["key_schema"])
    assert {(a["AttributeName"], a["AttributeType"]) for a in table["AttributeDefinitions"]} == {
        (a["AttributeName"], a["AttributeType"]) for a in schema["attribute_definitions"]
    }
    indexes = {i["IndexName"]: i for i in table["GlobalSecondaryIndexes"]}
    assert set(indexes) == {i["index_name"] for i in schema["global_secondary_indexes"]}
    for expected in schema["global_secondary_indexes"]:
        index = indexes[expected["index_name"]]
        assert keys(index["KeySchema"]) == keys(expected["key_schema"])
        assert index["Projection"]["ProjectionType"] == expected["projection"]["ProjectionType"]
        assert set(index["Projection"].get("NonKeyAttributes", [])) == set(
            expected["projection"].get("NonKeyAttributes", [])
        )
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["TimeToLiveSpecification"] == {"AttributeName": TTL_ATTRIBUTE, "Enabled": True}
    assert table["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    # CloudFormation names the table, so a stage removed (the table is retained) deploys again.
    assert "TableName" not in table
    assert packaged.resources["TasksTable"]["DeletionPolicy"] == "Retain"
    for name in ("Http", "Worker", "Stream"):
        url = packaged.function(name)["Environment"]["Variables"]["A2A_STORE_URL"]
        parts = url["Fn::Join"][1]
        assert parts[1] == {"Ref": "TasksTable"} and parts[3] == {"Ref": "AWS::Region"}
        assert parts[4:] == ["&content=s3://", {"Ref": "ContentBucket"}]
        # As CloudFormation resolves it: the store reads the generated names and the region.
        generated = "a2a-trip-planner-test-TasksTable-1A2B3C4D5E6F"
        bucket = "a2a-trip-planner-test-contentbucket-1a2b3c4d5e6f"
        parsed = parse_dynamodb_url(f"{parts[0]}{generated}{parts[2]}us-east-1{parts[4]}{bucket}")
        assert (parsed.table_name, parsed.region) == (generated, "us-east-1")
        assert parsed.content_url == f"s3://{bucket}"


def test_content_bucket_is_private_encrypted_and_expires_finished_tasks(
    packaged: Packaged,
) -> None:
    from a2a_serverless_aws.s3content import EXPIRING_TAG

    bucket = packaged.resources["ContentBucket"]
    properties = bucket["Properties"]
    assert bucket["DeletionPolicy"] == "Retain"
    assert set(properties["PublicAccessBlockConfiguration"].values()) == {True}
    (encryption,) = properties["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    rules = {rule["Id"]: rule for rule in properties["LifecycleConfiguration"]["Rules"]}
    finished = rules["finished-task-content"]
    assert finished["TagFilters"] == [{"Key": EXPIRING_TAG, "Value": "true"}]
    # A day past the finished task's TTL (A2A_FINISHED_TASK_TTL_S), never before it.
    ttl_s = int(packaged.function("Http")["Environment"]["Variables"]["A2A_FINISHED_TASK_TTL_S"])
    assert finished["ExpirationInDays"] * 86400 >= ttl_s + 86400
    policy = packaged.resources["ContentBucketPolicy"]["Properties"]["PolicyDocument"]
    (tls,) = policy["Statement"]
    assert tls["Effect"] == "Deny" and tls["Condition"]["Bool"]["aws:SecureTransport"] == "false"


def test_timeouts_and_queue_pass_the_adapters_timing_rules(packaged: Packaged) -> None:
    from a2a_serverless.config import Settings
    from a2a_serverless_aws.config import (
        RECOMMENDED_VISIBILITY_FACTOR,
        AwsSettings,
        check_http_timing,
        streaming_timeout,
        worker_time_budget,
    )
    from examples.trip_planner import trip_planner

    queue = packaged.resources["WorkQueue"]["Properties"]
    mapping = packaged.resources["WorkerEventSourceMappingSQSWorkQueue"]["Properties"]
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["WorkQueue", "Arn"]}
    dlq = queue["RedrivePolicy"]["deadLetterTargetArn"]
    assert dlq == {"Fn::GetAtt": ["WorkDeadLetterQueue", "Arn"]}
    for name in ("Http", "Worker", "Stream"):
        function = packaged.function(name)
        env = function["Environment"]["Variables"]
        assert env["A2A_SQS_QUEUE_URL"] == {"Ref": "WorkQueue"}
        assert int(env["A2A_LAMBDA_TIMEOUT_S"]) == function["Timeout"]
        assert int(env["A2A_SQS_MAX_RECEIVE_COUNT"]) == queue["RedrivePolicy"]["maxReceiveCount"]
        assert int(env["A2A_SQS_VISIBILITY_TIMEOUT_S"]) == queue["VisibilityTimeout"]
        # What the handlers check at init, from exactly this environment.
        plain = {k: v for k, v in env.items() if isinstance(v, str)}
        plain["A2A_PUSH_SIGNING_KEYS"] = ""
        settings, aws = Settings.from_env(plain), AwsSettings.from_env(plain)
        if name == "Worker":
            worker_time_budget(settings, aws, trip_planner.time_budget_s)
            assert queue["VisibilityTimeout"] >= RECOMMENDED_VISIBILITY_FACTOR * function["Timeout"]
        else:
            check_http_timing(settings, aws)
        if name == "Stream":
            streaming_timeout(settings, aws, explicit=False)
    assert packaged.function("Http")["Environment"]["Variables"]["A2A_STREAMING"] == "false"
    assert packaged.resources["HttpLambdaFunction"]["Properties"]["Timeout"] < 30


def test_signing_keys_are_read_from_ssm_at_start_up(packaged: Packaged) -> None:
    from a2a_serverless_aws.secrets import PREFIXES

    parameter = "/a2a-serverless/test/push-signing-keys"
    for name in ("Http", "Worker", "Stream"):
        keys = packaged.function(name)["Environment"]["Variables"]["A2A_PUSH_SIGNING_KEYS"]
        assert keys == f"ssm:{parameter}"
        assert keys.startswith(PREFIXES)  # a reference the adapter resolves at start-up
        statements = [
            s
            for policy in packaged.resources[f"{name}Role"]["Properties"]["Policies"]
            for s in policy["PolicyDocument"]["Statement"]
            if "ssm:GetParameter" in s["Action"]
        ]
        assert len(statements) == 1 and statements[0]["Action"] == ["ssm:GetParameter"]
        arns = [arn["Fn::Join"][1][-1] for arn in statements[0]["Resource"]]
        # Those parameters only: the signing keys and the API keys.
        assert arns == [f":parameter{parameter}", ":parameter/a2a-serverless/test/api-keys"]
    assert '"kty"' not in packaged.template_path.read_text()


def test_callers_need_an_api_key_by_default(packaged: Packaged) -> None:
    # Authentication is the default: the API keys come from a SecureString parameter, resolved
    # at start-up; a public agent takes --param="apiKeys=none" (docs/security.md).
    from a2a_serverless_aws.secrets import SECRET_FIELDS

    assert "auth_api_keys" in SECRET_FIELDS
    for name in ("Http", "Worker", "Stream"):
        env = packaged.function(name)["Environment"]["Variables"]
        assert env["A2A_AUTH_API_KEYS"] == "ssm:/a2a-serverless/test/api-keys"


# Where the guide gives the parameters of a public agent and of one without push.
PUBLIC_PARAM = re.compile(r'`--param="(apiKeys=[^"]*)"` deploys a public agent')
NO_PUSH_PARAM = re.compile(r'without push notifications, pass `--param="(pushSigningKeys=[^"]*)"`')


async def test_the_documented_public_agent_without_push_needs_no_key_and_offers_no_push() -> None:
    """The guide's `--param="apiKeys=none"` and `--param="pushSigningKeys=none"` (osls refuses an
    empty `--param` value, which the guide once gave): both settings empty, which the kit reads
    as unset; the example agent then answers a caller without X-API-Key and its card offers no
    push notifications."""
    from a2a_serverless.config import Settings
    from a2a_serverless.testing.client import AgentTestClient
    from examples.trip_planner import trip_planner

    guide = GUIDE.read_text()
    params = [
        f"--param={m[1]}" for m in (PUBLIC_PARAM.search(guide), NO_PUSH_PARAM.search(guide)) if m
    ]
    assert params == ["--param=apiKeys=none", "--param=pushSigningKeys=none"]
    command = [serverless(), "print", "--stage", "test", *params, "--format", "json"]
    printed = run(command, env=tool_env(), timeout_s=300).stdout
    config = json.loads(printed[printed.index("{") :])
    env = config["provider"]["environment"]
    assert env["A2A_AUTH_API_KEYS"] == "" and env["A2A_PUSH_SIGNING_KEYS"] == ""
    for function in config["functions"].values():
        assert not {"A2A_AUTH_API_KEYS", "A2A_PUSH_SIGNING_KEYS"} & set(function["environment"])

    deployed = {k: v for k, v in env.items() if isinstance(v, str)}
    settings = Settings.from_env({**deployed, "A2A_STORE_URL": "memory://"})
    assert settings.auth_api_keys is None and settings.push_signing_keys is None
    async with AgentTestClient(trip_planner, settings=settings) as client:
        card = await client.card()
        assert card["capabilities"]["pushNotifications"] is False
        assert not card.get("securitySchemes")
        task = await client.send("Plan a trip")  # no X-API-Key
        assert task.status.state == "input-required"

    empty = run(
        [serverless(), "print", "--stage", "test", "--param=apiKeys="], env=tool_env(), check=False
    )
    assert empty.returncode != 0
    assert 'invalid "--param" CLI option value: "apiKeys="' in empty.stdout + empty.stderr


def test_the_worker_addresses_durable_calls_callbacks_to_the_http_api(packaged: Packaged) -> None:
    """The worker sends durable calls and serves no request: its A2A_PUBLIC_URL is the stack's
    own HTTP API (the AgentUrl output), with no step after the deploy. The other functions find
    their URL in each request (their cards' URLs: the HTTP API's, the function URL's)."""
    api_endpoint = {"Fn::GetAtt": ["HttpApi", "ApiEndpoint"]}
    assert packaged.function("Worker")["Environment"]["Variables"]["A2A_PUBLIC_URL"] == api_endpoint
    assert packaged.template["Outputs"]["AgentUrl"]["Value"] == api_endpoint
    for name in ("Http", "Stream"):
        assert "A2A_PUBLIC_URL" not in packaged.function(name)["Environment"]["Variables"]


def test_streaming_function_url_runs_the_web_adapter(packaged: Packaged) -> None:
    stream = packaged.function("Stream")
    env = stream["Environment"]["Variables"]
    assert env["A2A_STREAMING"] == "true"
    assert env["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert env["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert env["AWS_LWA_READINESS_CHECK_PATH"] == "/.well-known/agent-card.json"
    assert any(":layer:LambdaAdapterLayerX86:" in layer for layer in stream["Layers"])
    url = packaged.resources["StreamLambdaFunctionUrl"]["Properties"]
    assert url["InvokeMode"] == "RESPONSE_STREAM"


def test_each_function_has_its_own_least_privilege_role(packaged: Packaged) -> None:
    assert "IamRoleLambdaExecution" not in packaged.resources  # no shared default role
    roles = set()
    for name, allowed in EXPECTED_ACTIONS.items():
        role = packaged.function(name)["Role"]["Fn::GetAtt"][0]
        assert role == f"{name}Role"
        roles.add(role)
        statements = [
            s
            for policy in packaged.resources[role]["Properties"]["Policies"]
            for s in policy["PolicyDocument"]["Statement"]
        ]
        actions = set()
        for statement in statements:
            assert statement["Effect"] == "Allow"
            assert "*" not in json.dumps(statement["Action"])
            for resource in statement["Resource"]:
                assert isinstance(resource, dict), f"{role}: literal resource {resource!r}"
            actions.update(statement["Action"])
            if set(statement["Action"]) <= LOG_ACTIONS:
                assert statement["Resource"] == [{"Fn::GetAtt": [f"{name}LogGroup", "Arn"]}]
        assert actions == allowed, role
    assert len(roles) == 3


def test_artifact_is_built_for_the_lambda_runtime(packaged: Packaged) -> None:
    with zipfile.ZipFile(packaged.artifact) as archive:
        names = archive.namelist()
        script = archive.getinfo("examples/aws_web_adapter.sh")
        entry_points = archive.read("a2a_serverless_aws-0.1.0.dist-info/entry_points.txt")
    tops = {name.split("/")[0] for name in names}
    for name in ("Http", "Worker"):
        module, _, attribute = packaged.function(name)["Handler"].rpartition(".")
        assert f"{module}.py" in names
        assert attribute in {"http", "worker"}
    assert packaged.function("Stream")["Handler"] == "examples/aws_web_adapter.sh"
    assert (script.external_attr >> 16) & 0o111, "the Web Adapter's handler must be executable"
    assert {"a2a_serverless", "a2a_serverless_aws", "mangum", "uvicorn", "examples"} <= tops
    assert "cryptography" in tops  # the core's crypto extra: the functions sign webhooks
    assert not tops & {"boto3", "botocore", "s3transfer", "google", "tests", "adapters"}
    assert b"dynamodb = a2a_serverless_aws.dynamodb:open_dynamodb_store" in entry_points
    assert any(n.endswith("cpython-312-x86_64-linux-gnu.so") for n in names)
    assert not [n for n in names if "__pycache__" in n]
    assert not [n for n in names if n.startswith("a2a_serverless/templates/")]
    unpacked = sum(i.file_size for i in zipfile.ZipFile(packaged.artifact).infolist())
    print(
        f"{packaged.artifact.name}: {len(names)} files, unzipped {unpacked / 1e6:.2f} MB, "
        f"zipped {packaged.artifact.stat().st_size / 1e6:.2f} MB"
    )
    # docs/deploy-aws-serverless.md states this artifact's size: within 10% of what was built,
    # so a figure measured before a dependency change is caught.
    guide = (ROOT / "docs" / "deploy-aws-serverless.md").read_text()
    stated = re.search(
        r"One artifact serves all functions: ([\d.]+) MB zipped, ([\d.]+) MB unpacked "
        r"\(([\d,]+) files",
        guide,
    )
    assert stated, "deploy-aws-serverless.md states no artifact size"
    zipped = packaged.artifact.stat().st_size
    assert abs(float(stated[1]) * 1e6 - zipped) < 0.1 * zipped, (stated[0], zipped)
    assert abs(float(stated[2]) * 1e6 - unpacked) < 0.1 * unpacked, (stated[0], unpacked)
    assert abs(int(stated[3].replace(",", "")) - len(names)) < 0.1 * len(names), stated[0]


def test_snapstart_publishes_versions_the_api_and_the_queue_invoke_through_an_alias(
    packaged: Packaged,
) -> None:
    resources = packaged.resources
    for name in ("Http", "Worker"):
        function = packaged.function(name)
        assert function["SnapStart"] == {"ApplyOn": "PublishedVersions"}
        assert function["Runtime"] in {"python3.12", "python3.13", "python3.14"}
        alias = resources[f"{name}SnapStartLambdaAlias"]
        assert alias["Type"] == "AWS::Lambda::Alias"
        version = alias["Properties"]["FunctionVersion"]["Fn::GetAtt"][0]
        assert resources[version]["Type"] == "AWS::Lambda::Version"
    qualified = {"Fn::Join": [":", [{"Fn::GetAtt": ["HttpLambdaFunction", "Arn"]}, "snapstart"]]}
    assert resources["HttpApiIntegrationHttp"]["Properties"]["IntegrationUri"] == qualified
    assert resources["HttpLambdaPermissionHttpApi"]["Properties"]["FunctionName"] == qualified
    mapping = resources["WorkerEventSourceMappingSQSWorkQueue"]["Properties"]
    assert mapping["FunctionName"] == {
        "Fn::Join": [":", [{"Fn::GetAtt": ["WorkerLambdaFunction", "Arn"]}, "snapstart"]]
    }
    # Not the Web Adapter's function: its process is the adapter's, not the Python runtime's.
    assert "SnapStart" not in packaged.function("Stream")


def test_default_deployment_has_no_streaming_function() -> None:
    # With a custom domain given for the callbacks (the parameter overrides the HTTP API's URL).
    domain = "https://agent.example.com"
    result = run(
        [
            serverless(),
            "print",
            "--stage",
            "test",
            f"--param=publicUrl={domain}",
            "--format",
            "json",
        ],
        env=tool_env(),
        timeout_s=300,
    )
    config = json.loads(result.stdout[result.stdout.index("{") :])
    assert set(config["functions"]) == {"http", "worker"}
    assert config["functions"]["worker"]["environment"]["A2A_PUBLIC_URL"] == domain
    assert {f["snapStart"] for f in config["functions"].values()} == {False}
    assert "StreamRole" not in config["resources"]["Resources"]
    assert config["custom"]["pythonRequirements"]["fileName"] == "scripts/lambda-requirements.txt"


# --- serverless offline ---------------------------------------------------------------------

OFFLINE_SECTION = "## Running it on your machine: `serverless offline`"
# The port the guide gives moto (serverless-offline's ports come from SLS_OFFLINE_*_PORT).
GUIDE_MOTO_PORT = "5000"


def documented_offline_recipe() -> str:
    """The first bash block of the guide's `serverless offline` section, as written."""
    text = GUIDE.read_text()
    section = text[text.index(OFFLINE_SECTION) :]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match is not None, "the guide's offline section has no bash block"
    return match.group(1)


@dataclasses.dataclass(frozen=True)
class Offline:
    http_url: str


@pytest.fixture
def offline(tmp_path: Path) -> Iterator[Offline]:
    """The guide's recipe run by bash as written, on free ports instead of the guide's (moto's
    5000 replaced in the text; serverless-offline's from SLS_OFFLINE_*_PORT), in an environment
    with no AWS or A2A variables: everything it needs, it sets itself."""
    http_port, lambda_port, moto_port = free_port(), free_port(), free_port()
    script = documented_offline_recipe().replace(GUIDE_MOTO_PORT, str(moto_port))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AWS_", "A2A_", "VIRTUAL_ENV", "PYTHONPATH"))
    }
    env.update(
        {
            "SLS_TELEMETRY_DISABLED": "1",
            "SLS_NOTIFICATIONS_MODE": "off",
            "SLS_OFFLINE_HTTP_PORT": str(http_port),
            "SLS_OFFLINE_LAMBDA_PORT": str(lambda_port),
        }
    )
    (tmp_path / "recipe.sh").write_text(script)
    command = ["bash", "-e", tmp_path / "recipe.sh"]
    with service(command, tmp_path / "offline.log", env=env) as started:
        http_url = f"http://127.0.0.1:{http_port}"
        started.wait_http(f"{http_url}/.well-known/agent-card.json", timeout_s=180)
        try:
            yield Offline(http_url)
        except BaseException:
            print(started.output())
            raise


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def test_the_documented_offline_recipe_runs_a_task_through_the_queue(offline: Offline) -> None:
    with urllib.request.urlopen(
        f"{offline.http_url}/.well-known/agent-card.json", timeout=30
    ) as response:
        card = json.load(response)
    assert card["name"] == "Trip Planner"
    assert card["capabilities"]["streaming"] is False

    sent = _post(
        f"{offline.http_url}/",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": "offline-1",
                    "parts": [{"kind": "text", "text": "Plan 2 days in Lisbon"}],
                },
                "configuration": {"blocking": False},
            },
        },
    )
    task_id = sent["result"]["id"]
    assert sent["result"]["status"]["state"] == "submitted"

    # The HTTP function queued the turn on the local SQS queue; serverless-offline-sqs hands it
    # to the worker function, as the event source mapping would on AWS.
    deadline = time.monotonic() + 90
    while True:
        task = _post(
            f"{offline.http_url}/",
            {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}},
        )["result"]
        if task["status"]["state"] == "completed" or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert task["status"]["state"] == "completed", task["status"]
    text = "".join(p.get("text", "") for a in task["artifacts"] for p in a["parts"])
    assert "Day 1:" in text and "Day 2:" in text and "Lisbon" in text
