"""The repository carries the license its distributions declare (Apache-2.0), in full."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = ("pyproject.toml", "adapters/aws/pyproject.toml", "adapters/gcp/pyproject.toml")


def test_license_file_is_the_full_apache_2_text() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    # The whole text, not a pointer to it: all nine sections and the end of the terms.
    for section in range(1, 10):
        assert f"\n   {section}. " in text, f"section {section} missing"
    assert "END OF TERMS AND CONDITIONS" in text


def test_every_distribution_declares_the_license_of_the_file() -> None:
    for pyproject in DISTRIBUTIONS:
        project = tomllib.loads((ROOT / pyproject).read_text(encoding="utf-8"))["project"]
        assert project["license"] == "Apache-2.0", pyproject
