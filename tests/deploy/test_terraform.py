"""The Terraform modules under infra/, checked with the real tools.

- `terraform fmt -check` over infra/;
- infra/aws: `terraform init` (from the local plugin directory) + `validate`, the example root
  module's `validate`, `terraform test` (the *.tftest.hcl suites, mocked aws provider), and an
  offline `terraform plan` whose task table is compared with the DynamoDB store's own model;
- checkov on infra/aws and infra/gcp: no failed check, every skip with its reason and listed in
  infra/README.md;
- the names the modules depend on (A2A_* settings, the Firestore index file) still exist in the
  adapters.

There is no google provider offline, so infra/gcp gets fmt and checkov only.

Terraform runs in a copy of infra/ under pytest's tmp dir, with TF_DATA_DIR there too, so no
.terraform/, lock file or state ever lands in the repository. A missing terraform, aws provider
or checkov fails the tests with how to install it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra"
CHECKOV = ROOT / ".emulators" / "checkov-venv" / "bin" / "checkov"
PLUGIN_DIR = Path(os.environ.get("A2A_TF_PLUGIN_DIR", "/opt/tf-plugins"))
AWS_PROVIDER = PLUGIN_DIR / "registry.terraform.io" / "hashicorp" / "aws"
# The tftest files point package_zip here; the contents do not matter to the mocked provider.
DUMMY_PACKAGE = Path("tests") / "fixtures" / "package.zip"
TIMEOUT_S = 300

TERRAFORM_HINT = (
    "terraform is not on PATH: install Terraform >= 1.9 (the project uses 1.11.4), "
    "https://developer.hashicorp.com/terraform/install"
)
PROVIDER_HINT = (
    f"no hashicorp/aws provider under {PLUGIN_DIR}: put terraform-provider-aws 5.100.x there "
    "(registry.terraform.io/hashicorp/aws/<version>/<os>_<arch>/), or point A2A_TF_PLUGIN_DIR "
    "at a directory that has it"
)
CHECKOV_HINT = f"checkov is not installed at {CHECKOV}: run scripts/emulators/checkov.sh"

# Used against the copy, so nothing the tests write reaches the repository.
OFFLINE_PROVIDER = """
provider "aws" {
  region                      = "eu-west-1"
  access_key                  = "offline"
  secret_key                  = "offline"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}
"""


def terraform() -> str:
    found = shutil.which("terraform")
    if found is None:
        pytest.fail(TERRAFORM_HINT)
    return found


def checkov() -> Path:
    if not os.access(CHECKOV, os.X_OK):
        pytest.fail(CHECKOV_HINT)
    return CHECKOV


def run(
    args: Sequence[str | Path], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, (
        f"{' '.join(result.args)} exited {result.returncode}\n"
        f"--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"
    )
    return result.stdout


def terraform_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TF_DATA_DIR=str(data_dir),
        TF_IN_AUTOMATION="1",
        TF_INPUT="0",
        # No call to HashiCorp's version-check service.
        CHECKPOINT_DISABLE="1",
    )
    return env


@dataclasses.dataclass(frozen=True)
class Workspace:
    """A copy of infra/ where terraform may write what it likes."""

    infra: Path
    scratch: Path

    def env(self, name: str) -> dict[str, str]:
        return terraform_env(self.scratch / f"tf-data-{name}")

    def init(self, module: Path, name: str) -> None:
        if not AWS_PROVIDER.is_dir():
            pytest.fail(PROVIDER_HINT)
        ok(
            run(
                [terraform(), "init", "-backend=false", f"-plugin-dir={PLUGIN_DIR}", "-no-color"],
                module,
                self.env(name),
            )
        )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    scratch = tmp_path_factory.mktemp("terraform")
    infra = scratch / "infra"
    shutil.copytree(
        INFRA,
        infra,
        ignore=shutil.ignore_patterns(".terraform", ".terraform.lock.hcl", "*.tfstate*"),
    )
    package = infra / "aws" / DUMMY_PACKAGE
    package.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("handler.py", "def handler(event, context):\n    return {}\n")
    yield Workspace(infra=infra, scratch=scratch)


@pytest.fixture(scope="module")
def aws_module(workspace: Workspace) -> Path:
    module = workspace.infra / "aws"
    workspace.init(module, "aws")
    return module


def test_terraform_files_are_formatted() -> None:
    result = run([terraform(), "fmt", "-check", "-recursive", "-diff", "-no-color", "infra"], ROOT)
    assert result.returncode == 0, (
        "terraform fmt -check found files to format (run `terraform fmt -recursive infra`):\n"
        f"{result.stdout}{result.stderr}"
    )


def test_aws_module_validates(workspace: Workspace, aws_module: Path) -> None:
    out = ok(run([terraform(), "validate", "-no-color"], aws_module, workspace.env("aws")))
    assert "The configuration is valid" in out


def test_aws_example_validates(workspace: Workspace) -> None:
    example = workspace.infra / "aws" / "examples" / "basic"
    workspace.init(example, "aws-example")
    out = ok(run([terraform(), "validate", "-no-color"], example, workspace.env("aws-example")))
    assert "The configuration is valid" in out


def test_aws_module_terraform_test(workspace: Workspace, aws_module: Path) -> None:
    result = run([terraform(), "test", "-no-color"], aws_module, workspace.env("aws"))
    out = ok(result)
    summary = re.search(r"Success! (\d+) passed, 0 failed", out)
    assert summary is not None, out[-4000:]
    suites = sorted(p.name for p in (aws_module / "tests").glob("*.tftest.hcl"))
    assert suites, "no *.tftest.hcl under infra/aws/tests"
    for suite in suites:
        assert f"tests/{suite}... pass" in out, f"{suite} did not run or pass:\n{out[-4000:]}"
    # Every run block ran (none skipped after an earlier failure).
    runs = sum(
        len(re.findall(r'^run "', (aws_module / "tests" / s).read_text(), re.M)) for s in suites
    )
    assert int(summary.group(1)) == runs


@pytest.fixture(scope="module")
def aws_plan(workspace: Workspace, aws_module: Path) -> dict[str, Any]:
    """`terraform show -json` of an offline plan of the module with streaming on."""
    (aws_module / "offline_provider.tf").write_text(OFFLINE_PROVIDER)
    plan = workspace.scratch / "aws.tfplan"
    env = workspace.env("aws")
    try:
        ok(
            run(
                [
                    terraform(),
                    "plan",
                    "-no-color",
                    "-lock=false",
                    f"-out={plan}",
                    "-var=name=test-agent",
                    f"-var=package_zip={DUMMY_PACKAGE}",
                    "-var=streaming=true",
                    # An offline plan has no account to build the API keys' SSM ARN with (the
                    # default, covered by `terraform test` with the mocked provider above).
                    "-var=public=true",
                    "-var=web_adapter_layer_arn="
                    "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:25",
                ],
                aws_module,
                env,
            )
        )
        shown = ok(run([terraform(), "show", "-json", "-no-color", str(plan)], aws_module, env))
    finally:
        (aws_module / "offline_provider.tf").unlink()
    data: dict[str, Any] = json.loads(shown)
    return data


def planned(plan: dict[str, Any], address: str) -> dict[str, Any]:
    for resource in plan["planned_values"]["root_module"]["resources"]:
        if resource["address"] == address:
            values: dict[str, Any] = resource["values"]
            return values
    raise AssertionError(f"{address} is not in the plan")


def test_aws_table_is_what_the_dynamodb_store_creates(aws_plan: dict[str, Any]) -> None:
    """The planned table against the pynamodb model `create_table` creates tables from."""
    from a2a_serverless_aws.dynamodb.models import TTL_ATTRIBUTE, TableItem

    schema = TableItem._get_schema()
    table = planned(aws_plan, "aws_dynamodb_table.tasks")

    assert table["billing_mode"] == "PAY_PER_REQUEST"
    keys = {k["KeyType"]: k["AttributeName"] for k in schema["key_schema"]}
    assert (table["hash_key"], table["range_key"]) == (keys["HASH"], keys["RANGE"])
    assert {a["name"]: a["type"] for a in table["attribute"]} == {
        a["AttributeName"]: a["AttributeType"] for a in schema["attribute_definitions"]
    }
    expected_indexes = {
        index["index_name"]: (
            {k["KeyType"]: k["AttributeName"] for k in index["key_schema"]},
            index["projection"]["ProjectionType"],
            sorted(index["projection"].get("NonKeyAttributes", [])),
        )
        for index in schema["global_secondary_indexes"]
    }
    planned_indexes = {
        index["name"]: (
            {"HASH": index["hash_key"]}
            | ({"RANGE": index["range_key"]} if index["range_key"] else {}),
            index["projection_type"],
            sorted(index["non_key_attributes"] or []),
        )
        for index in table["global_secondary_index"]
    }
    assert planned_indexes == expected_indexes
    assert not schema.get("local_secondary_indexes")
    assert table["ttl"] == [{"attribute_name": TTL_ATTRIBUTE, "enabled": True}]
    assert table["point_in_time_recovery"][0]["enabled"] is True
    assert table["server_side_encryption"][0]["enabled"] is True


def test_aws_plan_streaming_and_queue(aws_plan: dict[str, Any]) -> None:
    url = planned(aws_plan, "aws_lambda_function_url.stream[0]")
    assert url["invoke_mode"] == "RESPONSE_STREAM"
    worker = planned(aws_plan, "aws_lambda_function.worker")
    queue = planned(aws_plan, 'aws_sqs_queue.queue["jobs"]')
    assert queue["visibility_timeout_seconds"] >= 6 * worker["timeout"]
    mapping = planned(aws_plan, 'aws_lambda_event_source_mapping.worker["jobs"]')
    assert mapping["function_response_types"] == ["ReportBatchItemFailures"]


def a2a_names(directory: Path) -> set[str]:
    """Every A2A_* name in the module's .tf files (not prefixes such as A2A_AUTH_*)."""
    names: set[str] = set()
    for path in directory.rglob("*.tf"):
        found = re.findall(r"\bA2A_[A-Z0-9_]+", path.read_text())
        names.update(name for name in found if not name.endswith("_"))
    return names


def core_setting_names() -> set[str]:
    from a2a_serverless.config import Settings

    return {f"A2A_{f.name.upper()}" for f in dataclasses.fields(Settings)}


def test_aws_module_sets_only_settings_the_code_reads() -> None:
    from a2a_serverless_aws.config import AwsSettings

    known = core_setting_names() | {
        f"A2A_{f.name.upper()}" for f in dataclasses.fields(AwsSettings)
    }
    unknown = a2a_names(INFRA / "aws") - known
    assert not unknown, f"infra/aws sets settings nothing reads: {sorted(unknown)}"


def test_gcp_module_sets_only_settings_the_code_reads() -> None:
    import a2a_serverless_gcp.config as gcp_config

    source = Path(gcp_config.__file__).read_text()
    # Each field is its A2A_<FIELD> variable; a few more are named in the code itself.
    fields = {f"A2A_{f.name.upper()}" for f in dataclasses.fields(gcp_config.GcpSettings)}
    named = set(re.findall(r'"(A2A_[A-Z0-9_]+)"', source))
    known = core_setting_names() | fields | named
    unknown = a2a_names(INFRA / "gcp") - known
    assert not unknown, f"infra/gcp sets settings nothing reads: {sorted(unknown)}"


def test_gcp_module_indexes_are_the_adapters() -> None:
    """infra/gcp reads its own copy of the Firestore index file: it must not drift."""
    adapter = json.loads((ROOT / "adapters" / "gcp" / "firestore.indexes.json").read_text())
    module = json.loads((INFRA / "gcp" / "firestore.indexes.json").read_text())
    assert module == adapter, (
        "infra/gcp/firestore.indexes.json differs from adapters/gcp/firestore.indexes.json: "
        "copy the adapter's file over"
    )


def test_example_entry_points_exist() -> None:
    """The handlers and entry points the examples name are in the repository, and the
    streaming function's default handler is the script the packaging command writes."""
    aws_example = (INFRA / "aws" / "examples" / "basic" / "main.tf").read_text()
    handlers = re.findall(r'_handler\s*=\s*"([^"]+)"', aws_example)
    assert handlers, "the AWS example names no handlers"
    for handler in handlers:
        module, _, attribute = handler.rpartition(".")
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.is_file(), f"{handler}: no {path.relative_to(ROOT)}"
        # Listed, not built: `entry_points` makes a handler when it is first read.
        assert attribute in dir(importlib.import_module(module)), f"{handler}: no {attribute}"
    variables = (INFRA / "aws" / "variables.tf").read_text()
    stream_default = re.search(
        r'variable "stream_handler" \{[^}]*default\s*=\s*"([^"]+)"', variables
    )
    assert stream_default is not None
    assert f'"{stream_default.group(1)}"' in (ROOT / "scripts" / "package").read_text()
    gcp_example = (INFRA / "gcp" / "examples" / "basic" / "main.tf").read_text()
    # `entry_points` registers each function under the name it defines it by.
    main = dir(importlib.import_module("examples.gcp_main"))
    targets = re.findall(r'_entry_point\s*=\s*"([^"]+)"', gcp_example)
    assert targets, "the GCP example names no entry points"
    for target in targets:
        assert target in main, f"examples/gcp_main.py registers no {target!r}"


def documented_skips() -> set[str]:
    readme = (INFRA / "README.md").read_text()
    return set(re.findall(r"^\|\s*`?(CKV2?_[A-Z]+_\d+)`?\s*\|", readme, re.M))


@pytest.mark.parametrize("module", ["aws", "gcp"])
def test_checkov_passes(workspace: Workspace, module: str) -> None:
    result = run(
        [
            checkov(),
            "--directory",
            workspace.infra / module,
            "--framework",
            "terraform",
            "--output",
            "json",
            "--skip-download",
            "--quiet",
        ],
        workspace.scratch,
        # No lookups of Prisma Cloud's guideline mappings (no network here).
        {**os.environ, "BC_SKIP_MAPPING": "TRUE"},
    )
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"checkov gave no JSON report:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    reports = report if isinstance(report, list) else [report]
    assert [r["check_type"] for r in reports] == ["terraform"]
    summary = reports[0]["summary"]
    results = reports[0]["results"]
    failed = [
        f"{c['check_id']} {c['resource']} ({c['file_path']}): {c['check_name']}"
        for c in results.get("failed_checks", [])
    ]
    assert not failed, "checkov failed checks:\n" + "\n".join(failed)
    assert summary["parsing_errors"] == 0
    assert summary["passed"] > 0
    skipped = results.get("skipped_checks", [])
    unexplained = [
        f"{c['check_id']} {c['resource']}"
        for c in skipped
        if len((c["check_result"].get("suppress_comment") or "").strip()) < 20
    ]
    assert not unexplained, f"checkov skips without a reason: {unexplained}"
    undocumented = {c["check_id"] for c in skipped} - documented_skips()
    assert not undocumented, f"skipped checks missing from infra/README.md: {sorted(undocumented)}"
    assert result.returncode == 0, result.stderr[-3000:]
