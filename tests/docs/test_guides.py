"""The guides under docs/ cannot drift from the code and from each other:

- every `A2A_*` setting a guide names is in docs/configuration.md (generated from the code); a
  family written as a prefix (`A2A_AUTH_*`) must name at least one documented setting. The only
  exceptions are the test suite's own variables (TEST_VARIABLES), which the tests must read;
- every relative link resolves: the file exists, and a `#fragment` is a heading of it (GitHub's
  anchors) or a line range (`#L10`).

Code blocks are read too for settings (a command line must not set a setting that does not
exist), but not for links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "configuration.md"
GUIDES = sorted(DOCS.glob("*.md"))

SETTING = re.compile(r"A2A_[A-Z][A-Z0-9_]*[A-Z0-9](_\*)?")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[(?:[^\]\n]|\][^(])*?\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
LINE_ANCHOR = re.compile(r"L\d+(-L\d+)?")
# Variables the test suite reads, not settings of the kit; the guides name them in "Tests".
TEST_VARIABLES = {
    "A2A_LAMBDA_PYTHON": "the Python 3.12 the bundle tests run the Lambda zip with",
    "A2A_TF_PLUGIN_DIR": "the Terraform provider directory of the Terraform tests",
    "A2A_RACE_ROUNDS": "cancel-vs-complete rounds per store in the race tests",
    "A2A_RACE_TASKS": "tasks taking concurrent messages per store in the race tests",
    "A2A_LOAD_TASKS": "tasks per cloud in the load tests",
}


def documented() -> set[str]:
    return {m.group(0) for m in SETTING.finditer(REFERENCE.read_text())}


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats -1, -2."""
    seen: dict[str, int] = {}
    found = set()
    for title in HEADING.findall(FENCE.sub("", markdown)):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(markdown: str) -> list[str]:
    prose = INLINE_CODE.sub("", FENCE.sub("", markdown))
    return LINK.findall(prose)


def test_there_are_guides() -> None:
    names = {p.name for p in GUIDES}
    assert {"README.md", "quickstart.md", "configuration.md"} <= names


def test_test_variables_are_read_by_the_tests() -> None:
    sources = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    for name in TEST_VARIABLES:
        assert f'"{name}"' in sources, f"{name} is read by no test"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_setting_a_guide_names_exists(guide: Path) -> None:
    known = documented() | set(TEST_VARIABLES)
    unknown = set()
    for match in SETTING.finditer(guide.read_text()):
        name = match.group(0)
        if name.endswith("_*"):
            family = name.removesuffix("*")
            if not any(k.startswith(family) for k in known):
                unknown.add(name)
        elif name not in known:
            unknown.add(name)
    assert not unknown, f"{guide.name} names settings docs/configuration.md lacks: {unknown}"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_relative_link_resolves(guide: Path) -> None:
    broken = []
    for target in links(guide.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        path, _, fragment = unquote(target).partition("#")
        linked = (guide.parent / path).resolve() if path else guide
        if not linked.exists():
            broken.append(f"{target}: no such file")
            continue
        if not fragment or LINE_ANCHOR.fullmatch(fragment):
            continue
        if linked.suffix != ".md" or fragment not in anchors(linked.read_text()):
            broken.append(f"{target}: no heading #{fragment} in {linked.relative_to(ROOT)}")
    assert not broken, f"{guide.name}: " + "; ".join(broken)


def test_the_anchor_rule_matches_github() -> None:
    markdown = "# Deploy on AWS\n## `serverless offline`: on your machine\n## Tests\n## Tests\n"
    assert anchors(markdown) == {
        "deploy-on-aws",
        "serverless-offline-on-your-machine",
        "tests",
        "tests-1",
    }
