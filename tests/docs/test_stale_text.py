"""Facts the package, the README and the project template state about themselves stay true:
the protocol versions they name are those the package serves (a2a_serverless.versions), the
README lists each feature once, and the template's deployment tooling, which ships without a
lock file, is pinned to exact versions (those this repository's lock file tests)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from a2a_serverless import versions

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / "agent" / "{{cookiecutter.project_slug}}"
EXACT = re.compile(r"^(?:npm:[\w.-]+@)?\d+\.\d+\.\d+$")


def protocol_phrase(text: str) -> str:
    match = re.search(r"Agent2Agent protocol ([^)]*)\)", text)
    assert match, "no '(Agent2Agent protocol ...)'"
    return match[1]


def test_the_descriptions_name_every_protocol_version_served() -> None:
    described = {
        "pyproject.toml": tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "description"
        ],
        "the template's README.md": (TEMPLATE / "README.md").read_text(),
    }
    for where, text in described.items():
        named = set(re.findall(r"\d+\.\d+", protocol_phrase(text)))
        assert named == set(versions.SUPPORTED), where


def test_the_readme_lists_each_feature_once() -> None:
    titles = re.findall(r"^- \*\*(.+?)\*\*", (ROOT / "README.md").read_text(), re.M)
    repeated = {title for title in titles if titles.count(title) > 1}
    assert not repeated


def test_the_templates_deployment_tools_are_pinned_exactly() -> None:
    assert not (TEMPLATE / "package-lock.json").exists()
    template = json.loads((TEMPLATE / "package.json").read_text())
    assert "Pinned" in template["description"]
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    for name, spec in template["devDependencies"].items():
        assert EXACT.match(spec), f"{name}: {spec} is a range, and the project has no lock file"
        # The version this repository's tests install (tests/deploy runs it).
        assert spec.rsplit("@", 1)[-1] == locked[f"node_modules/{name}"]["version"], name
