"""The package faces (`a2a_serverless`, `a2a_serverless.auth` and the adapters'): every name they
export resolves and is listed, and importing one module of the kit loads that module, not the
whole server (lazyface.py)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

FACES = ["a2a_serverless", "a2a_serverless.auth", "a2a_serverless_aws", "a2a_serverless_gcp"]


@pytest.mark.parametrize("name", FACES)
def test_every_exported_name_resolves_and_is_listed(name: str) -> None:
    face = importlib.import_module(name)
    for exported in face.__all__:
        assert getattr(face, exported) is not None, exported
    assert set(face.__all__) <= set(dir(face))


@pytest.mark.parametrize("name", FACES)
def test_a_name_not_exported_is_an_attribute_error(name: str) -> None:
    face = importlib.import_module(name)
    with pytest.raises(AttributeError, match="has no attribute 'not_exported'"):
        face.not_exported  # noqa: B018


def loaded_by(code: str) -> list[str]:
    """The kit's modules a fresh interpreter has loaded after running `code`."""
    program = (
        f"import sys\n{code}\nimport json\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('a2a_serverless'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(result.stdout)
    return loaded


SERVER = {"a2a_serverless.service", "a2a_serverless.runtime", "a2a_serverless.asgi"}


def test_the_package_face_loads_nothing_until_a_name_is_used() -> None:
    assert loaded_by("import a2a_serverless") == ["a2a_serverless", "a2a_serverless.lazyface"]
    for adapter in ("a2a_serverless_aws", "a2a_serverless_gcp"):
        assert loaded_by(f"import {adapter}") == [
            "a2a_serverless",
            "a2a_serverless.lazyface",
            adapter,
        ]


@pytest.mark.parametrize("module", ["a2a_serverless.models", "a2a_serverless.webhook_receiver"])
def test_a_module_of_the_kit_loads_without_the_server(module: str) -> None:
    assert not set(loaded_by(f"import {module}")) & SERVER


def test_a_name_shared_with_a_submodule_is_the_exported_one() -> None:
    # `agent` is the decorator and `a2a_serverless.agent` its module: loading the module must
    # not put it in the decorator's place, before or after the name is first used.
    import a2a_serverless
    import a2a_serverless.agent as imported
    from a2a_serverless import agent

    assert not isinstance(agent, ModuleType)
    assert imported is agent is a2a_serverless.agent
    assert isinstance(sys.modules["a2a_serverless.agent"], ModuleType)
    code = "import a2a_serverless.app\nfrom a2a_serverless import agent\nassert callable(agent)"
    assert "a2a_serverless.agent" in loaded_by(
        code + "\nimport types\nassert not isinstance(agent, types.ModuleType)"
    )


def test_the_adapters_faces_say_the_same_things_the_same_way() -> None:
    import a2a_serverless_aws as aws
    import a2a_serverless_gcp as gcp
    from a2a_serverless.exceptions import ConfigurationError

    for face, settings in ((aws, "AwsSettings"), (gcp, "GcpSettings")):
        for name in ("make_http_handler", "make_worker_handler", "entry_points", settings):
            assert name in face.__all__, (face.__name__, name)
        assert face.ConfigurationError is ConfigurationError
    # The GCP adapter's earlier names, kept as deprecated aliases.
    assert gcp.http_function is gcp.make_http_handler
    assert gcp.worker_function is gcp.make_worker_handler
    assert gcp.GcpConfig is gcp.GcpSettings
    assert gcp.ConfigError is ConfigurationError
    from a2a_serverless_gcp import wrap

    assert wrap.FunctionExecutor is wrap.CloudFunctionExecutor


def test_entry_points_are_made_on_first_use(tmp_path: Path) -> None:
    from a2a_serverless.lazyface import build_on_first_use

    # A user's module as Lambda's runtime or functions-framework reads it: a name looked up.
    (tmp_path / "user_entry_points.py").write_text(
        "from a2a_serverless.lazyface import build_on_first_use\n"
        "made = []\n"
        "build_on_first_use(__name__, {'http': lambda: made.append('http') or 'the handler'})\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("user_entry_points")
        assert module.made == [] and "http" in dir(module)
        assert module.http == "the handler" and module.http == "the handler"
        assert module.made == ["http"]  # made once, then kept
        with pytest.raises(AttributeError, match="has no attribute 'worker'"):
            module.worker  # noqa: B018
        with pytest.raises(ValueError, match="already has a __getattr__"):
            build_on_first_use("user_entry_points", {})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_entry_points", None)


def test_a_named_app_is_imported_when_asked_for() -> None:
    from a2a_serverless import lazyface
    from a2a_serverless.lazyface import imported

    assert imported("a2a_serverless.lazyface:imported") is lazyface.imported
    with pytest.raises(ValueError, match=r"package\.module:attribute"):
        imported("a2a_serverless.lazyface")
