"""One Python for the suite and the deployments: `scripts/bootstrap.sh` builds the suite's
`.venv` on the Python every runtime we ship names (Lambda python3.12 in infra/aws, serverless.yml
and the template's serverless.yml and package_aws.py; Cloud Functions python312 in infra/gcp),
and the package's oldest supported Python (requires-python) is the one `scripts/test` also runs
the core's tests on (.venv-py311)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "agent" / "{{cookiecutter.project_slug}}"


def bootstrap_versions() -> dict[str, str]:
    """The Python version of each venv bootstrap.sh builds."""
    script = (ROOT / "scripts" / "bootstrap.sh").read_text()
    return dict(re.findall(r"^\s*bootstrap_venv (\S+) (\d+\.\d+) ", script, re.M))


def test_the_suite_runs_on_the_python_the_deployments_run() -> None:
    suite = bootstrap_versions()[".venv"]
    lambda_runtime = f"python{suite}"
    named = {
        "infra/aws/variables.tf": re.findall(
            r'variable "runtime" \{[^}]*default\s*=\s*"([^"]+)"',
            (ROOT / "infra" / "aws" / "variables.tf").read_text(),
        ),
        "infra/gcp/variables.tf": re.findall(
            r'variable "runtime" \{[^}]*default\s*=\s*"([^"]+)"',
            (ROOT / "infra" / "gcp" / "variables.tf").read_text(),
        ),
        "serverless.yml": re.findall(
            r"^\s+runtime: (\S+)", (ROOT / "serverless.yml").read_text(), re.M
        ),
        "the template's serverless.yml": re.findall(
            r"^\s+runtime: (\S+)", (TEMPLATE / "serverless.yml").read_text(), re.M
        ),
        "the template's package_aws.py": [
            f"python{v}"
            for v in re.findall(
                r'"--python-version", "([\d.]+)"', (TEMPLATE / "package_aws.py").read_text()
            )
        ],
    }
    expected = {
        "infra/aws/variables.tf": [lambda_runtime],
        "infra/gcp/variables.tf": [lambda_runtime.replace(".", "")],
        "serverless.yml": [lambda_runtime],
        "the template's serverless.yml": [lambda_runtime],
        "the template's package_aws.py": [lambda_runtime],
    }
    assert named == expected


def test_the_oldest_supported_python_is_tested_too() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    oldest = project["requires-python"].removeprefix(">=")
    assert bootstrap_versions()[".venv-py311"] == oldest
    test = (ROOT / "scripts" / "test").read_text()
    assert "scripts/bootstrap.sh --py311" in test
    assert ".venv-py311/bin/pytest -q tests/unit tests/integration" in test
