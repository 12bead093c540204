"""The OpenAPI document is data (a2a_serverless/rest/openapi.json), written by
scripts/openapi_gen.py: it must be current, the server must fill in every deployment limit, and
wheels (hence the Lambda zip, built from them) must carry it."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from a2a_serverless.config import Settings
from a2a_serverless.rest import openapi

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "scripts" / "openapi_gen.py"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openapi_gen", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_shipped_document_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(max_message_parts=7, max_file_bytes=1234, max_message_file_bytes=98_765),
        Settings(max_message_parts=1, max_file_bytes=0, max_message_file_bytes=0),
    ],
    ids=["defaults", "custom", "smallest"],
)
def test_the_served_document_is_the_generated_one(
    generator: ModuleType, settings: Settings
) -> None:
    served = openapi.document(settings)
    assert served == generator.build(generator.Limits.of(settings))
    assert "{{" not in json.dumps(served)


def test_a_wheel_carries_the_document(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("a2a_serverless-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert "a2a_serverless/rest/openapi.json" in archive.namelist()
        archive.extractall(tmp_path / "site")
    # Served from the unpacked wheel, with no checkout on the path.
    code = (
        "import json, a2a_serverless.rest.openapi as o\n"
        "from a2a_serverless.config import Settings\n"
        f"assert o.__file__.startswith({str(tmp_path)!r}), o.__file__\n"
        "print(json.dumps(o.document(Settings())))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == openapi.document(Settings())
