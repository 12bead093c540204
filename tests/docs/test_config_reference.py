"""docs/configuration.md is generated from the code (scripts/config_reference.py): it must be
current, and every `A2A_*` variable the code reads must be in it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "configuration.md"
SOURCES = [
    ROOT / "a2a_serverless",
    ROOT / "adapters" / "aws" / "a2a_serverless_aws",
    ROOT / "adapters" / "gcp" / "a2a_serverless_gcp",
]
# Names built from a field name at run time (f"A2A_{name.upper()}") are covered by the
# generator itself; these regexes find the literal ones.
LITERAL = re.compile(r"A2A_[A-Z][A-Z0-9_]*[A-Z0-9]")


def test_the_reference_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "config_reference.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_variable_the_code_reads_is_documented() -> None:
    documented = set(LITERAL.findall(DOC.read_text()))
    read: dict[str, str] = {}
    for source in SOURCES:
        for path in source.rglob("*.py"):
            for name in LITERAL.findall(path.read_text()):
                read.setdefault(name, str(path.relative_to(ROOT)))
    # Examples in messages and families written as prefixes ("A2A_AUTH_*"), not variables.
    read.pop("A2A_FIELD_NAME", None)
    missing = {
        name: where
        for name, where in read.items()
        if name not in documented and not any(d.startswith(f"{name}_") for d in documented)
    }
    assert not missing, f"undocumented settings (run scripts/config_reference.py): {missing}"
