"""The guides' `pip install` commands install what the page around them promises: every extra a
command names exists, and an install for `a2a-serverless dev` (the `server` extra) brings the
`crypto` extra too, since dev mode signs push notifications (without it push is off)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
# The kit installed with extras: `a2a-serverless[a,b]` (a name or a path), or `.[a,b]` in a
# block that went to the kit's checkout (`cd a2a-serverless`; elsewhere `.` is a project).
KIT_EXTRAS = re.compile(r"""(?:^|[\s'"])\S*a2a-serverless\[([\w,-]+)\]""")
HERE_EXTRAS = re.compile(r"""(?:^|[\s'"])\.\[([\w,-]+)\]""")


def kit_extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(project["project"]["optional-dependencies"])


def installs(guide: Path) -> list[tuple[str, set[str]]]:
    """Each `pip install` line of the guide's code blocks that installs the kit with extras,
    and those extras."""
    found = []
    for block in FENCE.findall(guide.read_text()):
        in_kit = False
        for line in block.splitlines():
            if line.startswith("cd "):
                in_kit = line.split()[1].rstrip("/").endswith("a2a-serverless")
            if "pip install" not in line:
                continue
            named = KIT_EXTRAS.findall(line) + (HERE_EXTRAS.findall(line) if in_kit else [])
            found.extend((line.strip(), set(extras.split(","))) for extras in named)
    return found


def test_the_quickstart_installs_the_kit_with_its_extras() -> None:
    [(line, extras)] = installs(ROOT / "docs" / "quickstart.md")
    assert extras == {"server", "new", "crypto"}, line


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_an_install_for_dev_brings_the_crypto_extra(guide: Path) -> None:
    known = kit_extras()
    for line, extras in installs(guide):
        assert extras <= known, f"{guide.name}: {line}: no such extra {extras - known}"
        if "server" in extras:
            assert "crypto" in extras, (
                f"{guide.name}: {line}: dev mode signs push notifications, which needs the "
                "'crypto' extra"
            )
