"""The packaging command (scripts/package): both bundles built, their sizes reported, and each
one run the way its platform runs it.

- AWS: the Lambda zip, unpacked, imported by `python3.12 -S` (no site-packages: only the
  standard library, the unpacked zip as Lambda's task root, and what the Lambda runtime
  provides), serves API Gateway v2 events (the card, the JWKS, message/send, tasks/get) and an
  SQS event through the handlers the deployment names, against a moto server (DynamoDB + SQS).
- GCP: the source bundle's requirements.txt installed into a fresh Python 3.12 virtualenv, as
  Cloud Functions' buildpack does, and its main.py served by that venv's functions-framework.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.serverless_support import (
    ROOT,
    aws_emulator,
    free_port,
    lambda_python,
    run,
    service,
    tool_env,
)

pytestmark = pytest.mark.deploy

PACKAGE = ROOT / "scripts" / "package"
SMOKE = Path(__file__).with_name("lambda_zip_smoke.py")
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3")
# Lambda's limits for a zip uploaded directly and for the unpacked code.
LAMBDA_ZIP_LIMIT = 50 * 1024 * 1024
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("package")


@pytest.fixture(scope="module")
def bundles(out: Path) -> dict[str, Any]:
    """`scripts/package all --json`: both bundles, built once for the module."""
    result = run([sys.executable, PACKAGE, "all", "--out", out, "--json"], timeout_s=900)
    reported: dict[str, Any] = json.loads(result.stdout)
    reported["printed"] = result.stderr
    return reported


def test_builds_both_bundles_and_reports_their_sizes(bundles: dict[str, Any]) -> None:
    assert set(bundles) == {"aws", "gcp", "printed"}
    for target in ("aws", "gcp"):
        bundle = bundles[target]
        zipped = Path(bundle["zip_path"])
        assert zipped.is_file(), target
        assert bundle["zipped_bytes"] == zipped.stat().st_size
        assert 0 < bundle["zipped_bytes"] < bundle["unzipped_bytes"]
        with zipfile.ZipFile(zipped) as archive:
            assert archive.testzip() is None
            assert len(archive.namelist()) == bundle["files"]
            assert sum(i.file_size for i in archive.infolist()) == bundle["unzipped_bytes"]
        # The line for people: the same numbers, in MB.
        assert f"{target}: {bundle['zip_path']}: {bundle['files']} files" in bundles["printed"]
        assert f"zipped {bundle['zipped_bytes'] / 1_000_000:.2f} MB" in bundles["printed"]
    aws = bundles["aws"]
    assert aws["zipped_bytes"] < LAMBDA_ZIP_LIMIT
    assert aws["unzipped_bytes"] < LAMBDA_UNZIPPED_LIMIT
    print(bundles["printed"])


def test_lambda_zip_holds_only_what_runs(bundles: dict[str, Any]) -> None:
    with zipfile.ZipFile(bundles["aws"]["zip_path"]) as archive:
        names = archive.namelist()
        tops = {name.split("/")[0] for name in names}
        entry_points = archive.read("a2a_serverless_aws-0.1.0.dist-info/entry_points.txt")
    for present in ("examples/aws_lambda.py", "examples/trip_planner.py"):
        assert present in names
    assert {"a2a_serverless", "a2a_serverless_aws", "mangum", "pynamodb"} <= tops
    # The example signs webhooks: the core's crypto extra is in (--no-crypto leaves it out).
    assert "cryptography" in tops
    # The runtime's own SDK is not shipped again; nor uvicorn without --streaming.
    assert not tops & {*RUNTIME_PROVIDED, "uvicorn", "google"}
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyi"))]
    assert not [n for n in names if n.startswith("a2a_serverless/templates/")]
    # No install records that could leak this machine's paths (direct_url.json) or weigh.
    assert not [n for n in names if n.endswith(("/RECORD", "/direct_url.json", "/INSTALLER"))]
    assert b"dynamodb = a2a_serverless_aws.dynamodb:open_dynamodb_store" in entry_points
    # Wheels for the Lambda runtime, not for this machine's Python.
    assert any(n.endswith("cpython-312-x86_64-linux-gnu.so") for n in names)
    assert not any("cpython-311" in n for n in names)


def test_lambda_zip_serves_api_gateway_and_sqs_events(
    bundles: dict[str, Any], tmp_path: Path
) -> None:
    from a2a_serverless.push.keys import generate_keys_json

    python = lambda_python()
    task_root = tmp_path / "task"
    with zipfile.ZipFile(bundles["aws"]["zip_path"]) as archive:
        archive.extractall(task_root)
    runtime_dir = Path(bundles["aws"]["directory"]).parent / "aws-runtime-provided"
    with aws_emulator(tmp_path) as aws:
        # Only what a Lambda function's environment would hold: no PYTHONPATH, no venv.
        env = {
            "PATH": "/usr/bin:/bin",
            **{k: v for k, v in tool_env().items() if k.startswith("AWS_")},
            "AWS_ENDPOINT_URL_SQS": aws.endpoint,
            "A2A_STORE_URL": aws.store_url,
            "A2A_SQS_QUEUE_URL": aws.queue_url,
            "A2A_LAMBDA_TIMEOUT_S": "60",
            "A2A_PUSH_SIGNING_KEYS": generate_keys_json(),
        }
        result = run(
            [python, "-S", SMOKE, task_root, runtime_dir], env=env, cwd=tmp_path, timeout_s=120
        )
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["python"] == [3, 12]
    assert seen["site_imported"] is False
    assert seen["card_status"] == 200
    assert seen["card_name"] == "Trip Planner"
    assert seen["streaming"] is False  # API Gateway + Mangum cannot hold a response open
    assert seen["jwks_keys"] == 1  # signing keys loaded: cryptography works from the zip
    assert seen["store"] == "DynamoDBStore"  # found through the packaged entry point
    assert seen["sent_state"] == "submitted"
    assert seen["jobs"] == 1
    assert seen["worker_answer"] == {"batchItemFailures": []}
    assert seen["final_state"] == "completed"
    assert "Day 2:" in seen["text"] and "Lisbon" in seen["text"]


def test_lambda_zip_without_the_crypto_extra_is_smaller_and_says_what_keys_need(
    bundles: dict[str, Any], out: Path, tmp_path: Path
) -> None:
    from a2a_serverless.push.keys import generate_keys_json

    result = run(
        [sys.executable, PACKAGE, "aws", "--no-crypto", "--out", out / "lean", "--json"],
        timeout_s=900,
    )
    lean = json.loads(result.stdout)["aws"]
    task_root = tmp_path / "task"
    with zipfile.ZipFile(lean["zip_path"]) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
        archive.extractall(task_root)
    assert {"a2a_serverless", "a2a_serverless_aws", "jwt"} <= tops
    assert not tops & {"cryptography", "cffi", "pycparser"}
    assert lean["zipped_bytes"] < bundles["aws"]["zipped_bytes"] - 3 * 1024 * 1024
    # Built with signing keys, the HTTP handler refuses to start and names the extra; without
    # them it serves (the card says push is off).
    runtime_dir = Path(lean["directory"]).parent / "aws-runtime-provided"
    code = (
        "import sys, json\n"
        f"sys.path[:0] = [{str(task_root)!r}, {str(runtime_dir)!r}]\n"
        "try:\n"
        "    from examples.aws_lambda import http\n"
        "except ImportError as error:\n"
        "    print(json.dumps({'error': type(error).__name__, 'message': str(error)}))\n"
        "else:\n"
        "    print(json.dumps({'push': http.container.runtime.notifier is not None}))\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        **{k: v for k, v in tool_env().items() if k.startswith("AWS_")},
        "A2A_STORE_URL": "memory://",
        "A2A_SQS_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/jobs",
        "A2A_LAMBDA_TIMEOUT_S": "29",
    }
    python = lambda_python()
    with_keys = {**env, "A2A_PUSH_SIGNING_KEYS": generate_keys_json()}
    last_line = run([python, "-S", "-c", code], env=with_keys, cwd=tmp_path).stdout.splitlines()[-1]
    refused = json.loads(last_line)
    assert refused["error"] == "MissingExtra"
    assert "pip install 'a2a-serverless[crypto]'" in refused["message"]
    served = run([python, "-S", "-c", code], env=env, cwd=tmp_path).stdout.splitlines()[-1]
    assert json.loads(served) == {"push": False}


def test_streaming_lambda_zip_with_byte_code_runs_the_web_adapter_server(
    out: Path, tmp_path: Path
) -> None:
    python = lambda_python()
    command = [sys.executable, PACKAGE, "aws", "--streaming", "--compile-with", python]
    result = run([*command, "--out", out / "streaming", "--json"], timeout_s=900)
    bundle = json.loads(result.stdout)["aws"]
    task_root = tmp_path / "task"
    with zipfile.ZipFile(bundle["zip_path"]) as archive:
        run_sh = archive.getinfo("run.sh")
        tops = {name.split("/")[0] for name in archive.namelist()}
        archive.extractall(task_root)
    assert (run_sh.external_attr >> 16) & 0o111, "run.sh must be executable"
    assert "uvicorn" in tops
    # Byte code of the runtime's version that Python trusts whatever the files' timestamps
    # (PEP 552 flags 0b01: hash-based, unchecked).
    pyc = task_root / "a2a_serverless" / "__pycache__" / "__init__.cpython-312.pyc"
    assert int.from_bytes(pyc.read_bytes()[4:8], "little") == 0b01
    # run.sh as the Lambda Web Adapter starts it: `python3` is the runtime's interpreter, and
    # boto3 sits in the runtime's own site-packages (here: the directory put aside for it).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    port = free_port()
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "PYTHONPATH": str(Path(bundle["directory"]).parent / "aws-runtime-provided"),
        **{k: v for k, v in tool_env().items() if k.startswith("AWS_")},
        "LAMBDA_TASK_ROOT": str(task_root),
        "AWS_LAMBDA_FUNCTION_NAME": "a2a-smoke-stream",
        "AWS_LWA_INVOKE_MODE": "response_stream",
        "AWS_LWA_PORT": str(port),
        "A2A_STORE_URL": "memory://",
        "A2A_SQS_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/jobs",
        "A2A_LAMBDA_TIMEOUT_S": "300",
    }
    card_url = f"http://127.0.0.1:{port}/.well-known/agent-card.json"
    with service(
        ["sh", task_root / "run.sh"], tmp_path / "run.log", env=env, cwd=task_root
    ) as server:
        server.wait_http(card_url)
        with urllib.request.urlopen(card_url, timeout=10) as response:
            card = json.load(response)
    assert card["name"] == "Trip Planner"
    assert card["capabilities"]["streaming"] is True  # response_stream: live SSE


@pytest.fixture(scope="module")
def gcp_venv(bundles: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh Python 3.12 virtualenv with the bundle's requirements.txt installed from the
    bundle's own directory, as the Cloud Functions Python buildpack installs it."""
    venv = tmp_path_factory.mktemp("gcp") / "venv"
    run([lambda_python(), "-m", "venv", venv])
    bundle_dir = Path(bundles["gcp"]["directory"])
    run(
        [
            venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",  # quicker; what gets installed is the same
            "--requirement",
            "requirements.txt",
        ],
        cwd=bundle_dir,
        timeout_s=900,
    )
    return venv


@pytest.fixture
def gcp_function(
    bundles: dict[str, Any], gcp_venv: Path, tmp_path: Path
) -> Iterator[tuple[str, str]]:
    """Both functions of the bundle under functions-framework; yields their base URLs."""
    bundle_dir = Path(bundles["gcp"]["directory"])
    env = {
        "PATH": f"{gcp_venv / 'bin'}:/usr/bin:/bin",
        "A2A_STORE_URL": "memory://",
        "A2A_PUBSUB_TOPIC": "projects/deploy-test/topics/jobs",
        "GOOGLE_CLOUD_PROJECT": "deploy-test",
        "A2A_WORKER_AUTH": "secret",
        "A2A_WORKER_SECRET": "s3cret-for-the-test",
    }
    urls = []
    with contextlib.ExitStack() as stack:
        for target in ("a2a", "worker"):
            port = free_port()
            command = [
                gcp_venv / "bin" / "functions-framework",
                "--target",
                target,
                "--source",
                "main.py",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ]
            started = stack.enter_context(
                service(command, tmp_path / f"{target}.log", env=env, cwd=bundle_dir)
            )
            url = f"http://127.0.0.1:{port}"
            started.wait_http(f"{url}/.well-known/agent-card.json" if target == "a2a" else url)
            urls.append(url)
        yield urls[0], urls[1]


def test_gcp_bundle_installs_and_serves_both_functions(gcp_function: tuple[str, str]) -> None:
    a2a, worker = gcp_function
    with urllib.request.urlopen(f"{a2a}/.well-known/agent-card.json", timeout=10) as response:
        card = json.load(response)
    assert card["name"] == "Trip Planner"
    assert card["capabilities"]["streaming"] is True  # Cloud Functions gen2 can stream
    request = urllib.request.Request(
        f"{a2a}/",
        data=json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "nope"}}
        ).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["error"]["code"] == -32001
    # The worker refuses a caller without the shared secret: it is loaded and guarded.
    push = urllib.request.Request(f"{worker}/", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(push, timeout=10)
    assert refused.value.code in (401, 403)


def test_the_guides_sizes_are_those_of_the_bundles_built(bundles: dict[str, Any]) -> None:
    """docs/deploy-aws-serverless.md's table (and the figures other guides repeat) within 10%
    of what `scripts/package` just built: a size measured before a dependency change is caught."""
    guide = (ROOT / "docs" / "deploy-aws-serverless.md").read_text()
    for target, name in (("aws", "aws-lambda.zip"), ("gcp", "gcp-source.zip")):
        row = re.search(
            rf"^\| `{name}`[^|]*\| (\d+) \| ([\d.]+) MB \| ([\d.]+) MB \|$", guide, re.M
        )
        assert row, f"no row for {name}"
        unpacked, zipped = float(row[2]) * 1e6, float(row[3]) * 1e6
        built = bundles[target]
        assert abs(zipped - built["zipped_bytes"]) < 0.1 * built["zipped_bytes"], (name, built)
        assert abs(unpacked - built["unzipped_bytes"]) < 0.1 * built["unzipped_bytes"], name
    # The figures the other guides repeat, to the same 10%.
    repeated = {
        "deploy-aws.md": (r"`build/package/aws-lambda.zip` \(([\d.]+) MB zipped", "aws"),
        "deploy-gcp.md": (r"the same for the example agent \(([\d.]+) MB\)", "gcp"),
        "streaming-and-push.md": (r"a zip\s+([\d.]+) -> [\d.]+ MB zipped", "aws"),
    }
    for page, (pattern, target) in repeated.items():
        found = re.search(pattern, (ROOT / "docs" / page).read_text())
        assert found, f"{page}: no size"
        size = float(found[1]) * 1e6
        assert (
            abs(size - bundles[target]["zipped_bytes"]) < 0.1 * bundles[target]["zipped_bytes"]
        ), page
