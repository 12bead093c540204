"""`a2a-serverless new`: the cookiecutter template (templates/agent) rendered for each cloud,
each also "with FastAPI" (`--fastapi`: a FastAPI app with GET /hello and the agent under /agent),
with the echo agent; and the orchestrator (`--kind orchestrator`: two remote agents asked at once
with durable calls) for each cloud, with and without FastAPI between them.

- The projects hold exactly their cloud's files (and the app's), pass their own tests (run in a
  subprocess with this virtualenv's Python, where a2a-serverless and both adapters are
  installed) and ruff.
- Bad names and existing directories are refused with a message; without cookiecutter, `new`
  says how to install it; importing the CLI does not import cookiecutter.
- A built wheel carries the template, and `new` renders from the wheel's copy.
- Deployment files, with the real tools (marker `deploy`): `terraform fmt -check` of both
  Terraform root modules; the AWS one through `init -plugin-dir`, `validate` and an offline
  `plan` against this repository's infra/aws; `serverless package` of serverless.yml, cfn-lint,
  and the adapter's timing rules on each function's settings; `serverless print` of the
  README's public agent without push (`apiKeys=none`, `pushSigningKeys=none`: no keys);
  package.py building the Lambda zip and the Cloud Functions bundle (needs PyPI); with FastAPI,
  the Lambda zip unpacked and run
  alone by a Python 3.12 (the runtime's) serves the app's route and the agent's card through
  the HTTP handler, and the GCP bundle's project wheel asks for the kit's fastapi extra.

There is no google provider offline, so the GCP root module is only formatted, never validated.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.cli import main
from a2a_serverless.config import Settings
from tests.deploy.serverless_support import cfn_lint, lambda_python, serverless, tool_env

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "agent"
CLOUDS = ("aws", "gcp", "none")
# Each cloud alone and with FastAPI ("aws+fastapi": `new --cloud aws --fastapi`).
ECHO_VARIANTS = (*CLOUDS, *(f"{cloud}+fastapi" for cloud in CLOUDS))
# The orchestrator ("none+orchestrator": `new --cloud none --kind orchestrator`): every cloud and
# both ways of FastAPI once, not every combination (each project's tests take seconds).
ORCHESTRATOR_VARIANTS = ("none+orchestrator", "aws+fastapi+orchestrator", "gcp+orchestrator")
VARIANTS = (*ECHO_VARIANTS, *ORCHESTRATOR_VARIANTS)
BIN = Path(sys.executable).parent
TF_PLUGIN_DIR = os.environ.get("A2A_TF_PLUGIN_DIR", "/opt/tf-plugins")

COMMON = {
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "tests/conftest.py",
    "tests/test_agent.py",
    "{module}/__init__.py",
    "{module}/agent.py",
}
FILES = {
    "none": COMMON,
    "aws": COMMON
    | {
        "package.json",
        "package.py",
        "serverless.yml",
        "infra/main.tf",
        "infra/outputs.tf",
        "infra/variables.tf",
        "tests/test_aws_lambda.py",
        "{module}/aws_lambda.py",
    },
    "gcp": COMMON
    | {
        "main.py",
        "package.py",
        "infra/main.tf",
        "infra/outputs.tf",
        "infra/variables.tf",
        "tests/test_gcp_main.py",
    },
}
FASTAPI_FILES = {"{module}/api.py", "tests/test_api.py"}
# Tests of each generated project: the agent's (the echo's 3, the orchestrator's 4), each under
# A2A 0.3 and 1.0 (its conftest's AgentTestClient), plus 2 of its cloud's entry points, plus the
# FastAPI app's 1.
AGENT_TEST_COUNTS = {"echo": 6, "orchestrator": 8}
CLOUD_TEST_COUNTS = {"none": 0, "aws": 2, "gcp": 2}


def cloud_of(variant: str) -> str:
    return variant.split("+")[0]


def kind_of(variant: str) -> str:
    return "orchestrator" if variant.endswith("+orchestrator") else "echo"


def has_fastapi(variant: str) -> bool:
    return "+fastapi" in variant


def module_of(variant: str) -> str:
    return "echo_" + variant.replace("+", "_")


# cfn-lint rules not applied to the packaged template, with the reason.
CFN_LINT_IGNORED = {
    "W3005": "the Serverless Framework adds DependsOn next to a GetAtt/Ref already implying it",
}
OFFLINE_PROVIDER = """
provider "aws" {
  access_key                  = "offline"
  secret_key                  = "offline"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}
"""


def run(
    command: Sequence[str | Path],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 300,
) -> str:
    """Run `command` and return its stdout; fail the test with its output unless it succeeds."""
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, command))} exited with {result.returncode} in {cwd}\n"
            f"--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"
        )
    return result.stdout


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without settings that would change what a generated project does."""
    prefixes = ("A2A_", "AWS_", "GOOGLE_", "FIRESTORE_", "PUBSUB_", "PYTEST_", "FUNCTION_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(extra)
    return env


def terraform() -> str:
    found = shutil.which("terraform")
    if found is None:
        pytest.fail("terraform is not installed: get Terraform >= 1.9 (developer.hashicorp.com)")
    if not (Path(TF_PLUGIN_DIR) / "registry.terraform.io" / "hashicorp" / "aws").is_dir():
        pytest.fail(
            f"no hashicorp/aws provider under {TF_PLUGIN_DIR}: set A2A_TF_PLUGIN_DIR to a "
            "provider plugin directory (terraform providers mirror)"
        )
    return found


def new(*args: str) -> int:
    return main(["new", *args])


def rendered_files(project: Path) -> set[str]:
    return {
        p.relative_to(project).as_posix()
        for p in project.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts
    }


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("new")
    for variant in VARIANTS:
        options = ["--cloud", cloud_of(variant), "--output-dir", str(out), "--kit-path", str(ROOT)]
        options += ["--kind", kind_of(variant)] if kind_of(variant) != "echo" else []
        if has_fastapi(variant):
            options.append("--fastapi")
        assert new(f"Echo {variant.replace('+', ' ')}", *options, "--no-input") == 0
    return {v: out / module_of(v).replace("_", "-") for v in VARIANTS}


# --- the projects ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_cloud_gets_its_own_files(projects: dict[str, Path], variant: str) -> None:
    project, cloud = projects[variant], cloud_of(variant)
    names = FILES[cloud] | (FASTAPI_FILES if has_fastapi(variant) else set())
    assert rendered_files(project) == {name.format(module=module_of(variant)) for name in names}
    assert os.access(project / "package.py", os.X_OK) or cloud == "none"


@pytest.mark.parametrize("variant", VARIANTS)
def test_generated_project_passes_its_own_tests(projects: dict[str, Path], variant: str) -> None:
    out = run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        projects[variant],
        clean_env(PYTHONDONTWRITEBYTECODE="1"),
        # A process that does not end (a thread left waiting) fails here, not later.
        timeout_s=120,
    )
    expected = (
        AGENT_TEST_COUNTS[kind_of(variant)]
        + CLOUD_TEST_COUNTS[cloud_of(variant)]
        + has_fastapi(variant)
    )
    assert f"{expected} passed" in out, out


@pytest.mark.parametrize("variant", VARIANTS)
def test_generated_code_is_ruff_clean(projects: dict[str, Path], variant: str) -> None:
    run([BIN / "ruff", "check", "--no-cache", "."], projects[variant], clean_env())
    run([BIN / "ruff", "format", "--check", "--no-cache", "."], projects[variant], clean_env())


def test_the_project_points_at_the_kit(projects: dict[str, Path]) -> None:
    aws, gcp = projects["aws"], projects["gcp"]
    assert f'KIT = "{ROOT}"' in (aws / "package.py").read_text()
    assert f'source = "{ROOT}/infra/aws"' in (aws / "infra" / "main.tf").read_text()
    assert f'source = "{ROOT}/infra/gcp"' in (gcp / "infra" / "main.tf").read_text()
    readme = (aws / "README.md").read_text()
    assert f"pip install -e {ROOT} -e {ROOT}/adapters/aws -e '.[dev]'" in readme
    assert "a2a-serverless dev echo_aws.agent:echo" in readme
    assert "a2a-serverless-aws>=0.1.0" in (aws / "pyproject.toml").read_text()
    assert "a2a-serverless-gcp>=0.1.0" in (gcp / "pyproject.toml").read_text()
    none = (projects["none"] / "pyproject.toml").read_text()
    assert "a2a-serverless-aws" not in none and "a2a-serverless-gcp" not in none
    assert "fastapi" not in (aws / "pyproject.toml").read_text()


@pytest.mark.parametrize("cloud", CLOUDS)
def test_with_fastapi_the_project_serves_the_app(projects: dict[str, Path], cloud: str) -> None:
    project, module = projects[f"{cloud}+fastapi"], module_of(f"{cloud}+fastapi")
    assert '"a2a-serverless[crypto,fastapi]>=0.1.0"' in (project / "pyproject.toml").read_text()
    readme = (project / "README.md").read_text()
    assert f"a2a-serverless dev {module}.api:api" in readme
    assert "curl http://127.0.0.1:8000/agent/.well-known/agent-card.json" in readme
    # The app is named, not imported: the worker functions do not load FastAPI.
    entry = f'entry_points(__name__, echo, app="{module}.api:api")'
    if cloud == "aws":
        assert entry in (project / module / "aws_lambda.py").read_text()
    if cloud == "gcp":
        assert entry in (project / "main.py").read_text()


@pytest.mark.parametrize("cloud", ["aws", "gcp"])
def test_the_readme_names_only_what_the_terraform_reads(
    projects: dict[str, Path], cloud: str
) -> None:
    """Every `-var name=...` of the README is a variable of infra/, and each reaches the kit's
    module (main.tf passes it on), so a reader's command does what the README says."""
    project = projects[cloud]
    readme = (project / "README.md").read_text()
    variables = set(
        re.findall(r'^variable "(\w+)"', (project / "infra" / "variables.tf").read_text(), re.M)
    )
    main = (project / "infra" / "main.tf").read_text()
    named = set(re.findall(r"-var '?(\w+)=", readme))
    assert named, "the README shows no terraform -var"
    assert named <= variables, named - variables
    for name in variables - {"project_id", "region"}:
        assert re.search(rf"=\s*var\.{name}\b", main), f"infra/main.tf does not use var.{name}"
    kit = (ROOT / "infra" / cloud / "variables.tf").read_text()
    module = main[main.index('module "agent"') :]
    passed = set(re.findall(r"^\s*(\w+)\s*=\s*var\.\w+", module, re.M))
    assert {name for name in passed if f'variable "{name}"' not in kit} == set()
    if cloud == "aws":
        # Terraform never reads the parameter: the README must not say it does.
        assert "reads the signing keys' parameter when it plans" not in readme
        assert "does not check that the parameter exists" in readme


def test_the_orchestrator_is_configured_by_the_names_it_calls(projects: dict[str, Path]) -> None:
    """Its agent calls two remotes by name; the entry points serve it; the README and
    serverless.yml say where their URLs go (A2A_REMOTE_AGENTS), and only the orchestrator's."""
    variant = "aws+fastapi+orchestrator"
    project, module = projects[variant], module_of(variant)
    agent = (project / module / "agent.py").read_text()
    assert 'REMOTES = {"planner": "Planner", "second_opinion": "Second opinion"}' in agent
    assert "async def orchestrator(ctx: Context) -> str:" in agent
    handlers = (project / module / "aws_lambda.py").read_text()
    assert f'entry_points(__name__, orchestrator, app="{module}.api:api")' in handlers
    assert "mount_agent(api, orchestrator, " in (project / module / "api.py").read_text()
    gcp = projects["gcp+orchestrator"]
    assert "entry_points(__name__, orchestrator)\n" in (gcp / "main.py").read_text()
    readme = (project / "README.md").read_text()
    assert "## The remote agents" in readme
    # Under the app, callbacks reach the mount: the worker is given the app for its prefix.
    assert "(`A2A_PUBLIC_URL` + `/agent/_a2a/callbacks/...`)" in readme
    assert "`aws_lambda.py`\ngives it the app (`app=`)" in readme
    assert "resumed by polls" not in readme
    assert "--param='remoteAgents={" in readme
    assert "A2A_REMOTE_AGENTS: ${param:remoteAgents}" in (project / "serverless.yml").read_text()
    assert "A2A_REMOTE_AGENTS" not in (projects["aws"] / "serverless.yml").read_text()
    assert "## The remote agents" not in (projects["aws"] / "README.md").read_text()


def test_new_prints_how_to_run_the_orchestrator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--kind", "orchestrator", "--cloud", "none", "--output-dir", str(tmp_path)]
    assert new("relay", *options, "--kit-path", str(ROOT), "--no-input") == 0
    out = capsys.readouterr().out
    assert "(kind: orchestrator, cloud: none)" in out
    assert '  A2A_REMOTE_AGENTS=\'{"planner": "http://127.0.0.1:8001"' in out
    assert "a2a-serverless dev relay.agent:orchestrator\n" in out


def test_every_setting_the_projects_name_exists(projects: dict[str, Path]) -> None:
    setting = re.compile(r"A2A_[A-Z][A-Z0-9_]*[A-Z0-9](_\*)?")
    reference = (ROOT / "docs" / "configuration.md").read_text()
    documented = {m.group(0) for m in setting.finditer(reference)}

    def known(name: str) -> bool:  # a family written A2A_AUTH_* names documented settings
        family = name.removesuffix("*")
        return name in documented or (
            family != name and any(d.startswith(family) for d in documented)
        )

    unknown = {
        f"{path.relative_to(project.parent)}: {match.group(0)}"
        for project in projects.values()
        for path in project.rglob("*")
        if path.is_file()
        for match in setting.finditer(path.read_text())
        if not known(match.group(0))
    }
    assert not unknown, f"settings docs/configuration.md does not know: {sorted(unknown)}"


# --- the command ------------------------------------------------------------------------------


def test_a_bad_name_is_refused_and_nothing_is_written(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert new("9 lives", "--output-dir", str(tmp_path), "--no-input") == 1
    assert "project_slug '9-lives' must be" in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_left_alone(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me")
    assert new("taken", "--output-dir", str(tmp_path), "--no-input") == 1
    assert "already exists" in capfd.readouterr().err
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]


def test_without_cookiecutter_new_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "cookiecutter.exceptions", None)
    monkeypatch.setitem(sys.modules, "cookiecutter.main", None)
    assert new("anything", "--output-dir", str(tmp_path), "--no-input") == 1
    assert "pip install 'a2a-serverless[new]'" in capsys.readouterr().err


def test_the_cli_imports_cookiecutter_only_for_new() -> None:
    code = "import sys, a2a_serverless.cli; print(sorted(m for m in sys.modules if 'cookie' in m))"
    assert run([sys.executable, "-c", code], ROOT).strip() == "[]"


def test_a_wheel_carries_the_template_and_new_renders_from_it(tmp_path: Path) -> None:
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path, ROOT], ROOT)
    (wheel,) = tmp_path.glob("a2a_serverless-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    prefix = "a2a_serverless/templates/agent/"
    shipped = {n.removeprefix(prefix) for n in names if n.startswith(prefix)}
    template = {
        p.relative_to(TEMPLATE).as_posix()
        for p in TEMPLATE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert shipped == template

    # A Python that finds the package in the unpacked wheel, not in this checkout: `new` takes
    # the template from the package and, with no checkout around, the template's default for
    # where the kit's source is.
    site, out = tmp_path / "site", tmp_path / "out"
    code = (
        "import sys, a2a_serverless.cli as cli\n"
        f"assert cli.__file__.startswith({str(site)!r}), cli.__file__\n"
        f"sys.exit(cli.main(['new', 'from-wheel', '--cloud', 'gcp', '--output-dir', {str(out)!r},"
        " '--no-input']))\n"
    )
    run([sys.executable, "-c", code], tmp_path, clean_env(PYTHONPATH=str(site)))
    project = out / "from-wheel"
    assert rendered_files(project) == {n.format(module="from_wheel") for n in FILES["gcp"]}
    assert 'KIT = "../a2a-serverless"' in (project / "package.py").read_text()
    main_tf = (project / "infra" / "main.tf").read_text()
    assert 'source = "../../a2a-serverless/infra/gcp"' in main_tf


# --- deployment files, with the real tools ------------------------------------------------------


@pytest.mark.deploy
@pytest.mark.parametrize("cloud", ["aws", "gcp"])
def test_terraform_is_formatted(projects: dict[str, Path], cloud: str) -> None:
    run([terraform(), "fmt", "-check", "-diff", "-no-color"], projects[cloud] / "infra")


@pytest.mark.deploy
def test_aws_terraform_validates_and_plans_with_the_kit_module(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    # A copy, so the lock file, the dummy zip and the provider override stay out of the project.
    project = tmp_path / "echo-aws"
    shutil.copytree(projects["aws"], project)
    infra = project / "infra"
    env = clean_env(TF_DATA_DIR=str(tmp_path / "tf"), TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    tf = terraform()
    init = [tf, "init", "-backend=false", f"-plugin-dir={TF_PLUGIN_DIR}", "-input=false"]
    run([*init, "-no-color"], infra, env)
    assert "The configuration is valid" in run([tf, "validate", "-no-color"], infra, env)

    (project / "build").mkdir()
    with zipfile.ZipFile(project / "build" / "lambda.zip", "w") as archive:
        archive.writestr("echo_aws/__init__.py", "")
    # An offline plan has no account to build the API keys' SSM ARN with: plan it public (the
    # module's default, API keys, is covered by its own `terraform test`, mocked provider).
    offline_public = 'module "agent" {\n  public = true\n}\n'
    (infra / "offline_override.tf").write_text(OFFLINE_PROVIDER + offline_public)
    plan = tmp_path / "plan.tfplan"
    run([tf, "plan", "-no-color", "-input=false", "-lock=false", f"-out={plan}"], infra, env)
    shown = json.loads(run([tf, "show", "-json", "-no-color", plan], infra, env))
    functions = {
        r["address"]: r["values"]
        for r in _resources(shown["planned_values"]["root_module"])
        if r["type"] == "aws_lambda_function"
    }
    handlers = {address.rsplit(".", 1)[1]: f["handler"] for address, f in functions.items()}
    assert handlers == {
        "http": "echo_aws.aws_lambda.http",
        "worker": "echo_aws.aws_lambda.worker",
        "dead_letters[0]": "echo_aws.aws_lambda.dead_letters",
    }
    assert {f["runtime"] for f in functions.values()} == {"python3.12"}
    outputs = shown["planned_values"]["outputs"]
    assert outputs["table_name"]["value"] == "echo-aws-tasks"


def _resources(module: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(module.get("resources", []))
    for child in module.get("child_modules", []):
        found += _resources(child)
    return found


@pytest.mark.deploy
def test_serverless_yml_packages_and_its_timings_hold(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    from a2a_serverless_aws.config import (
        AwsSettings,
        check_http_timing,
        visibility_below_recommendation,
        worker_time_budget,
    )

    project = tmp_path / "echo-aws"
    shutil.copytree(projects["aws"], project)
    (project / "build").mkdir()
    with zipfile.ZipFile(project / "build" / "lambda.zip", "w") as archive:
        archive.writestr("echo_aws/__init__.py", "")

    def package(*params: str) -> dict[str, Any]:
        """`serverless package` with these parameters: the template's resources, cfn-lint clean."""
        run(
            [serverless(), "package", "--stage", "test", *params],
            project,
            tool_env(),
            timeout_s=300,
        )
        template_path = project / ".serverless" / "cloudformation-template-update-stack.json"
        lint = subprocess.run(
            [cfn_lint(), "--ignore-checks", *CFN_LINT_IGNORED, "--", template_path],
            capture_output=True,
            text=True,
            check=False,
        )
        assert lint.returncode == 0, lint.stdout + lint.stderr
        found: dict[str, Any] = json.loads(template_path.read_text())["Resources"]
        return found

    resources = package()
    functions = {
        name.removesuffix("LambdaFunction"): r["Properties"]
        for name, r in resources.items()
        if r["Type"] == "AWS::Lambda::Function"
    }
    assert {name: f["Handler"] for name, f in functions.items()} == {
        "Http": "echo_aws.aws_lambda.http",
        "Worker": "echo_aws.aws_lambda.worker",
        "DeadLetters": "echo_aws.aws_lambda.dead_letters",
    }
    queues = {"Worker": "Jobs", "DeadLetters": "JobsDeadLetters"}
    for name, function in functions.items():
        env = {
            k: v if isinstance(v, str) else "https://sqs.us-east-1.amazonaws.com/1/jobs"
            for k, v in function["Environment"]["Variables"].items()
        }
        # Lambda does not expose its timeout: each function is told it, and it must be true.
        assert float(env["A2A_LAMBDA_TIMEOUT_S"]) == function["Timeout"], name
        settings, aws = Settings.from_env(env), AwsSettings.from_env(env)
        if name == "Http":
            check_http_timing(settings, aws)
            continue
        queue = resources[queues[name]]["Properties"]
        assert float(env["A2A_SQS_VISIBILITY_TIMEOUT_S"]) == queue["VisibilityTimeout"], name
        assert worker_time_budget(settings, aws, None) == function["Timeout"] - 3
        assert not visibility_below_recommendation(aws), name
    redrive = resources["Jobs"]["Properties"]["RedrivePolicy"]
    assert (
        str(redrive["maxReceiveCount"])
        == functions["Worker"]["Environment"]["Variables"]["A2A_SQS_MAX_RECEIVE_COUNT"]
    )
    assert not any("SnapStart" in f for f in functions.values())
    # Durable calls' callbacks: the worker sends the calls, to be called back at the stack's own
    # HTTP API (the other functions find their URL in each request).
    public_urls = {
        n: f["Environment"]["Variables"].get("A2A_PUBLIC_URL") for n, f in functions.items()
    }
    assert public_urls == {
        "Http": None,
        "Worker": {"Fn::GetAtt": ["HttpApi", "ApiEndpoint"]},
        "DeadLetters": None,
    }

    # One parameter turns SnapStart on: versions, an alias, the API and the trigger on it. And
    # a custom domain in front of the API takes the callbacks instead.
    domain = "https://agent.example.com"
    resources = package("--param=snapStart=true", f"--param=publicUrl={domain}")
    worker_env = resources["WorkerLambdaFunction"]["Properties"]["Environment"]["Variables"]
    assert worker_env["A2A_PUBLIC_URL"] == domain
    for name in ("Http", "Worker"):
        function = resources[f"{name}LambdaFunction"]["Properties"]
        assert function["SnapStart"] == {"ApplyOn": "PublishedVersions"}
        assert resources[f"{name}SnapStartLambdaAlias"]["Properties"]["Name"] == "snapstart"
    alias = {"Fn::Join": [":", [{"Fn::GetAtt": ["HttpLambdaFunction", "Arn"]}, "snapstart"]]}
    assert resources["HttpApiIntegrationHttp"]["Properties"]["IntegrationUri"] == alias
    worker_mappings = [
        r["Properties"]["FunctionName"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and "Worker" in json.dumps(r["Properties"]["FunctionName"])
    ]
    assert worker_mappings == [
        {"Fn::Join": [":", [{"Fn::GetAtt": ["WorkerLambdaFunction", "Arn"]}, "snapstart"]]}
    ]


@pytest.mark.deploy
def test_the_orchestrators_serverless_yml_requires_its_remote_agents(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    """serverless.yml gives every function A2A_REMOTE_AGENTS from the remoteAgents parameter,
    which a deploy without it is refused for (an orchestrator that could call nobody)."""
    project = tmp_path / "orchestrator"
    shutil.copytree(projects["aws+fastapi+orchestrator"], project)
    remotes = '{"planner": "https://p.example.com", "second_opinion": "https://s.example.com"}'
    printed = run(
        [serverless(), "print", "--stage=test", f"--param=remoteAgents={remotes}", "--format=json"],
        project,
        tool_env(),
    )
    config = json.loads(printed[printed.index("{") :])
    assert config["provider"]["environment"]["A2A_REMOTE_AGENTS"] == remotes
    refused = subprocess.run(
        [serverless(), "print", "--stage", "test"],
        cwd=project,
        env=tool_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode != 0
    missing = 'Cannot resolve variable at "provider.environment.A2A_REMOTE_AGENTS": Value not found'
    assert missing in refused.stdout + refused.stderr


@pytest.mark.deploy
def test_the_readmes_public_agent_without_push_has_no_keys(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    """The README's `--param="apiKeys=none"` (a public agent) and `--param="pushSigningKeys=none"`
    (no push) deploy: osls takes them (it refuses an empty value) and every function gets both
    settings empty, which the kit reads as unset; without them, the SSM references."""
    project = tmp_path / "echo-aws"
    shutil.copytree(projects["aws"], project)
    readme = (project / "README.md").read_text()
    documented = re.findall(r'`--param="((?:apiKeys|pushSigningKeys)=[^"]*)"`', readme)
    assert sorted(documented) == ["apiKeys=none", "pushSigningKeys=none"]

    def environment(*params: str) -> dict[str, Any]:
        command = [serverless(), "print", "--stage=test", *params, "--format=json"]
        printed = run(command, project, tool_env())
        found: dict[str, Any] = json.loads(printed[printed.index("{") :])["provider"]["environment"]
        return found

    env = environment(*(f"--param={param}" for param in documented))
    assert env["A2A_AUTH_API_KEYS"] == "" and env["A2A_PUSH_SIGNING_KEYS"] == ""
    settings = Settings.from_env({k: v for k, v in env.items() if isinstance(v, str)})
    assert settings.auth_api_keys is None and settings.push_signing_keys is None
    env = environment()
    assert env["A2A_AUTH_API_KEYS"] == "ssm:/echo-aws/test/api-keys"
    assert env["A2A_PUSH_SIGNING_KEYS"] == "ssm:/echo-aws/test/push-signing-keys"


@pytest.mark.deploy
@pytest.mark.parametrize("variant", ["gcp", "gcp+fastapi"])
def test_package_py_builds_the_gcp_source_bundle(
    projects: dict[str, Path], tmp_path: Path, variant: str
) -> None:
    project = tmp_path / "echo-gcp"
    shutil.copytree(projects[variant], project)
    out = run([sys.executable, "package.py"], project, clean_env(), timeout_s=600)
    assert "build/source.zip: 5 files" in out, out
    # pip is quiet for a minute or more: the steps say what is going on.
    assert "package.py: [1/2] pip builds wheels" in out and "package.py: [2/2] zipping" in out
    with zipfile.ZipFile(project / "build" / "source.zip") as bundle:
        names = set(bundle.namelist())
        requirements = bundle.read("requirements.txt").decode().split()
    assert {"main.py", "requirements.txt"} <= names
    assert sorted(r.split("/")[-1].split("-")[0] for r in requirements) == [
        "a2a_serverless",
        "a2a_serverless_gcp",
        module_of(variant),
    ]
    assert all(
        f"./{r.removeprefix('./')}" == r and r.removeprefix("./") in names for r in requirements
    )
    if variant.endswith("+fastapi"):
        # Cloud Build installs the project's wheel: it asks for the kit's fastapi extra.
        wheel = next(r.removeprefix("./") for r in requirements if module_of(variant) in r)
        with (
            zipfile.ZipFile(project / "build" / "source.zip") as bundle,
            zipfile.ZipFile(bundle.open(wheel)) as project_wheel,
        ):
            metadata = next(n for n in project_wheel.namelist() if n.endswith("/METADATA"))
            requires = project_wheel.read(metadata).decode()
        assert "Requires-Dist: a2a-serverless[crypto,fastapi]" in requires, requires


@pytest.mark.deploy
def test_package_py_builds_the_lambda_zip(projects: dict[str, Path], tmp_path: Path) -> None:
    project = tmp_path / "echo-aws"
    shutil.copytree(projects["aws"], project)
    out = run([sys.executable, "package.py"], project, clean_env(), timeout_s=600)
    assert "build/lambda.zip:" in out and "MB zipped" in out, out
    assert [line[:15] for line in out.splitlines() if line.startswith("package.py: [")] == [
        "package.py: [1/",
        "package.py: [2/",
        "package.py: [3/",
    ]
    with zipfile.ZipFile(project / "build" / "lambda.zip") as bundle:
        names = bundle.namelist()
    top = {name.split("/")[0] for name in names}
    assert {"echo_aws", "a2a_serverless", "a2a_serverless_aws", "mangum", "pynamodb"} <= top
    # The project depends on the core's crypto extra: its deployment signs webhooks.
    assert "cryptography" in top
    # What the Lambda runtime provides is left out.
    assert not top & {"boto3", "botocore", "s3transfer", "urllib3"}
    assert not [name for name in names if "__pycache__" in name]
    assert not [name for name in names if name.startswith("a2a_serverless/templates/")]


# What the FastAPI variant's zip must run on the Lambda runtime: its HTTP handler built from the
# unpacked zip alone (python -S: no site-packages), serving the app's route and the agent's card.
ZIP_SMOKE = """
import json, sys, uuid
task_root, runtime_dir, module = sys.argv[1:4]
sys.path[:0] = [task_root, runtime_dir]

class Context:
    function_name = "echo-aws-fastapi"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:echo-aws-fastapi"
    aws_request_id = str(uuid.uuid4())
    def get_remaining_time_in_millis(self):
        return 20_000

def get(path):
    http = {"method": "GET", "path": path, "protocol": "HTTP/1.1", "sourceIp": "192.0.2.1"}
    return {
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
        "headers": {"host": "abc123.execute-api.us-east-1.amazonaws.com"},
        "requestContext": {"http": http, "requestId": str(uuid.uuid4()),
                           "routeKey": "$default", "stage": "$default"},
        "isBase64Encoded": False,
    }

handlers = __import__(module + ".aws_lambda", fromlist=["http"])
hello = handlers.http(get("/hello"), Context())
card = handlers.http(get("/agent/.well-known/agent-card.json"), Context())
print(json.dumps({
    "python": list(sys.version_info[:2]),
    "fastapi_from": sys.modules["fastapi"].__file__.startswith(task_root),
    "hello": [hello["statusCode"], json.loads(hello["body"])],
    "card": [card["statusCode"], json.loads(card["body"])["url"]],
}))
"""

# What every Lambda Python runtime provides (package.py leaves it out of the zip): pure Python,
# so this virtualenv's copies stand in for the runtime's.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")


@pytest.mark.deploy
def test_the_fastapi_variants_lambda_zip_serves_the_app_on_the_lambda_python(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    import botocore

    variant = "aws+fastapi"
    project = tmp_path / "echo-aws-fastapi"
    shutil.copytree(projects[variant], project)
    out = run([sys.executable, "package.py"], project, clean_env(), timeout_s=600)
    assert "build/lambda.zip:" in out, out
    task_root = tmp_path / "task"
    with zipfile.ZipFile(project / "build" / "lambda.zip") as bundle:
        bundle.extractall(task_root)
    top = {p.name for p in task_root.iterdir()}
    assert {module_of(variant), "fastapi", "starlette", "pydantic", "pydantic_core"} <= top
    site = Path(botocore.__file__).parent.parent
    runtime_dir = tmp_path / "runtime"
    runtime_dir.mkdir()
    for name in RUNTIME_PROVIDED:
        (runtime_dir / name).symlink_to(site / name)
    env = {
        "PATH": "/usr/bin:/bin",
        "AWS_DEFAULT_REGION": "us-east-1",
        "A2A_STORE_URL": "memory://",
        "A2A_SQS_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/jobs",
        "A2A_LAMBDA_TIMEOUT_S": "29",
    }
    smoke = [lambda_python(), "-S", "-c", ZIP_SMOKE, task_root, runtime_dir, module_of(variant)]
    seen = json.loads(run(smoke, tmp_path, env, timeout_s=120).strip().splitlines()[-1])
    assert seen == {
        "python": [3, 12],
        "fastapi_from": True,
        "hello": [200, {"hello": "world"}],
        "card": [200, "https://abc123.execute-api.us-east-1.amazonaws.com/agent/"],
    }
