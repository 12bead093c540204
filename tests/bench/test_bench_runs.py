"""The bench command runs (bench/README.md): a quick cold-start pass exits 0 and prints its table.

Not a timed test: it checks that the harness works end to end (bundles built, fresh processes
serving an API Gateway event on both sides, the DynamoDB handler and the reference making its
requests on DynamoDB Local, the GCP function serving a request on the Firestore emulator, the
table printed), never how fast anything is. The durable-calls bench's AWS path
(bench/durable_aws.py) runs with three calls the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_quick_cold_start_prints_the_table(tmp_path: Path) -> None:
    results = tmp_path / "bench.json"
    command = [sys.executable, "-m", "bench", "--quick", "--only", "cold-start", "--runs", "1"]
    done = subprocess.run(
        [*command, "--json", str(results)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert "section" in done.stdout and "cold start" in done.stdout

    rows = json.loads(results.read_text())["rows"]
    headline = rows[0]
    assert headline["section"] == "cold start"
    assert headline["metric"].startswith("median, ours:")
    assert headline["ours"] > 0 and headline["peer"] > 0
    assert headline["ratio"] is not None
    # Against both peers: a2a-sdk 0.3.26 (in 0.3) and 1.3.0 (ours speaking 1.0 to match).
    assert headline["ours1"] > 0 and headline["peer1"] > 0
    assert headline["ratio1"] is not None
    assert "over the stdlib floor" in headline["note"]
    fastapi = [r for r in rows if "serving a FastAPI app" in r["metric"]]
    assert len(fastapi) == 1 and fastapi[0]["ours"] > 0, rows
    assert "over the bare FastAPI app" in fastapi[0]["note"]
    by_metric = {r["metric"]: r for r in rows}
    function = by_metric["median, ours: GCP function + Firestore emulator"]
    assert function["ours"] is not None and function["ours"] > 0, function
    assert "floor" in function["note"] and "first request" in function["note"]
    floor = by_metric[
        "median, reference: functions-framework app + google-cloud-firestore import + one client"
    ]
    assert floor["ours"] > 0, floor
    dynamodb = by_metric["median, ours: adapter handler + DynamoDB Local"]
    assert dynamodb["ours"] is not None and dynamodb["ours"] > 0, dynamodb
    requests = by_metric[
        "median, reference: the DynamoDB floor + the handler's requests, plain boto3 calls"
    ]
    assert requests["ours"] > 0 and "over this reference" in requests["note"], requests


def test_client_import_rows(tmp_path: Path) -> None:
    results = tmp_path / "bench.json"
    command = [sys.executable, "-m", "bench", "--only", "client-import", "--runs", "2"]
    done = subprocess.run(
        [*command, "--json", str(results)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    rows = json.loads(results.read_text())["rows"]
    assert [r["section"] for r in rows] == ["client import", "client import"]
    assert rows[0]["metric"].startswith("import on top of the app")
    assert rows[0]["ours"] is not None and rows[1]["ours"] is not None
    assert rows[0]["peer"] is not None and rows[0]["peer"] > 0, rows  # .venv-a2a-sdk1 is there


def test_storage_rows_with_a_large_artifact(tmp_path: Path) -> None:
    results = tmp_path / "bench.json"
    command = [sys.executable, "-m", "bench", "--quick", "--only", "storage"]
    done = subprocess.run(
        [*command, "--json", str(results)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    by_metric = {r["metric"]: r for r in json.loads(results.read_text())["rows"]}
    assert by_metric["DynamoDB requests: $ per 1M tasks"]["ours"] > 0
    large = by_metric["DynamoDB + S3, 1 MB artifact: $ per 1M tasks"]
    assert large["ours"] is not None and large["ours"] > 0, large
    assert "write units per status change" in large["note"]
    assert "PutObject x1" in large["note"] and "GetObject x1" in large["note"], large
    # Without a content store the 1 MB artifact does not fit DynamoDB's item.
    assert "without a content store the task ends failed: " in large["note"], large
    stored = by_metric["S3 storage, 1 MB artifact: $ per 1M tasks per month"]
    assert stored["ours"] > 0
    # Flat: a status change after the artifact costs a few write units, as before it (the 1 MB
    # inline would be about 1,000 a write).
    units = {
        line.rsplit(None, 2)[0].strip(): float(line.split()[-2])
        for line in done.stdout.splitlines()
        if line.endswith(" WRU") and line.startswith("  ")
    }
    assert units["working"] <= 5, units
    assert units["working + a status message"] <= 6, units
    assert units["working + a second status message"] <= 6, units


@pytest.mark.aws
def test_durable_calls_on_the_aws_path() -> None:
    """bench/durable_aws.py with three calls: the orchestrator's functions under awslambdaric,
    resumed by the remote's callbacks through the HTTP function; no worker runs while the calls
    wait."""
    command = [sys.executable, "-m", "bench.durable", "--path", "aws", "--calls", "3"]
    done = subprocess.run(
        [*command, "--idle", "1"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    figures = {line[:40].strip(): line[40:].strip() for line in done.stdout.splitlines()}
    assert figures["calls"] == "3", done.stdout
    assert figures["resumed by"] == "callback (via the HTTP function)"
    assert figures["worker invocations while all wait"] == "0", done.stdout
    assert float(figures["resume delay max (ms)"]) > 0
    assert figures["callbacks"] == "3 x 202", done.stdout
    assert figures["callback answered -> agent goes on"].startswith("p50 "), done.stdout
