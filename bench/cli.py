"""`bench/run` (`python -m bench`): our figures next to the official SDK's, measured in one run.

    bench/run                                   # everything (about 4 minutes)
    bench/run --quick                           # fewer runs and calls, 3 s loads (~1.5 minutes)
    bench/run --only cold-start,size --runs 30  # some sections
    bench/run --only profile                    # where our warm request time goes (cProfile)

Sections: size, cold-start, warm (latency and memory), throughput, storage, client-import (the
client's import beside the a2a-sdk 1.x client's), and profile (only when asked for).
bench/README.md describes what each one measures, and how.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import json
import os
import platform
import subprocess
import sys
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from . import client_import, cold, profiling, size, storage, throughput, warm
from .dynamodb_local import (
    CREDENTIALS,
    REGION,
    credentials,
    dynamodb_local,
    store_url,
)
from .environments import (
    GCP_PROJECT,
    PEER_03,
    PEER_13,
    REPO,
    WORK,
    BenchSetupError,
    Bundle,
    ensure_peer_venv,
    gcp_bundle,
    log,
    ours_bundle,
    peer_bundle,
    with_fastapi,
)
from .firestore_emulator import firestore_emulator
from .moto_s3 import s3_bucket
from .processes import ProbeFailed, Variant, run_probe
from .report import Report, Row, load_average

SECTIONS = ("size", "cold-start", "warm", "throughput", "storage", "client-import", "profile")
DEFAULT_SECTIONS = ("size", "cold-start", "warm", "throughput", "storage", "client-import")
RESULTS = WORK / "results"

# The peer's figures quoted in the issue (measured earlier on this kind of machine).
ISSUE_COLD_MS = 335.0
ISSUE_SEND_US = 539.0
ISSUE_GET_US = 126.0
ISSUE_REQ_S = 1044.0
ISSUE_RSS_MIB = 81.0
ISSUE_ZIP_MIB = 15.5
# Issue 32: the a2a-sdk client's import, measured with our bridge (272 ms against 103 ms).
ISSUE_SDK_CLIENT_MS = 170.0

ADAPTER = "ours: AWS adapter handler"
MANGUM = "ours: create_app + Mangum"
FASTAPI = "ours: AWS adapter handler serving a FastAPI app (agent under /agent)"
FASTAPI_FLOOR = "reference: bare FastAPI app + Mangum, echo from a dict"
PEER = "peer: a2a-sdk 0.3.26 + Mangum"
PEER1 = "peer: a2a-sdk 1.3.0 + Mangum"
# The environment making the probe speak A2A 1.0 (bench/function/events.py).
SPEAK_10 = {"BENCH_A2A_PROTOCOL": "1.0"}
# Issue 34's goals: ours at least this many times better than both peers.
COLD_GOAL = 3.5
SEND_GOAL = 3.5
GET_GOAL = 4.0
THROUGHPUT_GOAL = 3.5
# ... and our handlers' cold starts at most this much over their floors.
STDLIB_FLOOR_MARGIN_MS = 40.0
ZIP_GOAL_MIB = 4.3
GCP_FLOOR_MARGIN_MS = 40.0
DYNAMODB = "ours: adapter handler + DynamoDB Local"
DYNAMODB_FLOOR = "reference: stdlib handler + pynamodb, boto3 imports + one DynamoDB client"
DYNAMODB_FLOOR_MARGIN_MS = 30.0
# Beside that floor (which the issue's goal is against): the same floor making our requests.
DYNAMODB_REQUESTS = "reference: the DynamoDB floor + the handler's requests, plain boto3 calls"
GCP = "ours: GCP function + Firestore emulator"
GCP_FLOOR = "reference: functions-framework app + google-cloud-firestore import + one client"
# Warm message/send calls timed against DynamoDB Local, to tell its latency from a cold start's.
DYNAMODB_WARM_CALLS = 20
# The message/send and tasks/get calls that warm DynamoDB Local up before the cold starts: a
# JVM just started compiles its request paths as they run (a send's four requests took ~44 ms
# at first, ~12 ms after 300 sends, ~9 ms after 1200), where DynamoDB itself is always warm.
DYNAMODB_LOCAL_WARMUP_CALLS = 600
# References (bench/function/floor_*.py): the least a handler built like ours can cost, and on
# which bundle each runs. Our bundle has no pydantic since the models stopped using it: the
# pydantic reference runs on the 0.3 peer's (the pydantic the official SDK installs).
STDLIB_FLOOR = "reference: asyncio handler, stdlib only"
FLOORS = (
    (STDLIB_FLOOR, "floor_stdlib", "ours"),
    ("reference: asyncio handler + pydantic models", "floor_pydantic", "peer"),
)


@dataclass(frozen=True)
class Options:
    sections: tuple[str, ...]
    runs: int
    calls: int
    warmup: int
    rounds: int
    duration_s: float
    warmup_s: float
    connections: int
    storage_repeats: int
    profile_calls: int
    json_path: Path | None


@dataclass
class Context:
    options: Options
    report: Report
    ours: Bundle | None = None
    peer: Bundle | None = None
    peer1: Bundle | None = None
    # The variant standing for "ours" in the headline rows (and the same speaking A2A 1.0, to
    # compare with the 1.x peer), and the others measured beside it.
    primary: Variant | None = None
    primary1: Variant | None = None
    secondary: list[Variant] = field(default_factory=list)
    peer_variant: Variant | None = None
    peer1_variant: Variant | None = None
    floors: list[Variant] = field(default_factory=list)
    dynamodb_url: str | None = None
    dynamodb_note: str = ""
    # The S3 content store of the storage section's large-artifact rows (moto's server).
    s3: tuple[str, str] | None = None
    s3_note: str = ""
    # The GCP rows: the bundle and the variables pointing its processes at the emulator.
    gcp: Bundle | None = None
    gcp_env: dict[str, str] = field(default_factory=dict)
    gcp_note: str = ""
    failed: bool = False


def parse_args(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and calls, short loads")
    parser.add_argument(
        "--only",
        default="",
        help=f"comma-separated sections ({', '.join(SECTIONS)}); default: all but profile",
    )
    parser.add_argument("--runs", type=int, help="cold starts per variant (default 20; quick 5)")
    parser.add_argument("--calls", type=int, help="warm calls per method (default 2000; quick 300)")
    parser.add_argument("--rounds", type=int, help="warm rounds per variant (default 3; quick 1)")
    parser.add_argument("--duration", type=float, help="seconds per load run (default 20; quick 3)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    sections = tuple(s.strip() for s in args.only.split(",") if s.strip()) or DEFAULT_SECTIONS
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    quick = args.quick
    return Options(
        sections=sections,
        runs=args.runs or (5 if quick else 20),
        calls=args.calls or (300 if quick else 2000),
        warmup=20 if quick else 50,
        rounds=args.rounds or (1 if quick else 3),
        duration_s=args.duration or (3.0 if quick else 20.0),
        warmup_s=1.0 if quick else 2.0,
        connections=args.connections,
        storage_repeats=3 if quick else 10,
        profile_calls=200 if quick else 1000,
        json_path=args.json,
    )


def main(argv: list[str] | None = None) -> int:
    options = parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    with (WORK / ".lock").open("w") as lock:
        # Two runs at once would rebuild the bundles under each other (and share the CPUs).
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _main(options)


def _main(options: Options) -> int:
    report = Report()
    context = Context(options, report)
    report.header = _header(options)
    with contextlib.ExitStack() as stack:
        try:
            _prepare(context, stack)
        except (BenchSetupError, ProbeFailed) as error:
            report.notes.append(f"setup failed: {error}")
            context.failed = True
        else:
            for section in SECTIONS:
                if section in options.sections:
                    _run_section(context, section)
    output = report.render()
    print(output)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.txt").write_text(output + "\n")
    if options.json_path is not None:
        options.json_path.write_text(json.dumps(report.to_json(), indent=2) + "\n")
    return 1 if context.failed else 0


def _header(options: Options) -> list[str]:
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if _git("status", "--porcelain") else ""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        f"a2a-serverless bench, {now}, commit {commit}{dirty}",
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs "
        f"(shared), load average at start {load_average()}",
        f"sections: {', '.join(options.sections)}; cold starts {options.runs} per variant; "
        f"warm calls {options.calls} x {options.rounds} round(s); loads {options.duration_s:g} s "
        f"x {options.connections} connections",
        "'x' is how many times better ours is than the peer to its left, both measured in this "
        "run: ours speaking A2A 0.3 against a2a-sdk 0.3.26, 'ours (1.0)' the same handler "
        "speaking A2A 1.0 against a2a-sdk 1.3.0 (where a row has no 'ours (1.0)', ours speaks "
        "0.3 in both); 'met' needs the goal against both peers.",
    ]


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def _prepare(context: Context, stack: contextlib.ExitStack) -> None:
    sections = set(context.options.sections)
    if sections & {"size", "cold-start", "warm", "profile"}:
        context.ours = ours_bundle()
        context.peer = peer_bundle(PEER_03)
        context.peer1 = peer_bundle(PEER_13)
        context.peer_variant = Variant(PEER, context.peer, PEER_03.handler_module)
        context.peer1_variant = Variant(
            PEER1, context.peer1, PEER_13.handler_module, dict(SPEAK_10)
        )
        bundles = {"ours": context.ours, "peer": context.peer}
        context.floors = [Variant(label, bundles[side], module) for label, module, side in FLOORS]
        adapter = Variant(ADAPTER, context.ours, "handler_ours")
        mangum = Variant(MANGUM, context.ours, "handler_ours_mangum")
        try:
            run_probe(adapter, "cold")
        except ProbeFailed as error:
            context.primary, context.secondary = mangum, []
            context.report.notes.append(
                "the AWS adapter's handler (a2a_serverless_aws.lambda_http) did not serve the "
                f"probe, so ours is create_app + Mangum only: {_first_line(error)}"
            )
        else:
            context.primary, context.secondary = adapter, [mangum]
            _add_fastapi_variant(context)
        primary = context.primary
        context.primary1 = Variant(
            f"{primary.label}, speaking A2A 1.0",
            primary.bundle,
            primary.module,
            {**(primary.env or {}), **SPEAK_10},
        )
        for probed in (context.primary1, context.peer1_variant):
            run_probe(probed, "cold")
    if sections & {"cold-start", "storage"}:
        try:
            stack.enter_context(credentials())
            endpoint = stack.enter_context(dynamodb_local())
            from a2a_serverless_aws.dynamodb import create_table

            table = f"a2a-bench-{uuid.uuid4().hex[:8]}"
            create_table(table, region=REGION, endpoint_url=endpoint)
            context.dynamodb_url = store_url(table, endpoint)
        except Exception as error:  # whatever stops the emulator or the table: rows left out
            context.dynamodb_note = f"DynamoDB rows left out: {_first_line(error)}"
    if "storage" in sections and context.dynamodb_url is not None:
        try:
            context.s3 = stack.enter_context(s3_bucket())
        except Exception as error:  # no moto: the large-artifact rows say why
            context.s3_note = f"large-artifact rows left out: {_first_line(error)}"
    if "cold-start" in sections:
        try:
            context.gcp = gcp_bundle()
            host_port = stack.enter_context(firestore_emulator())
        except Exception as error:  # a missing emulator or bundle: the GCP rows say why
            context.gcp = None
            context.gcp_note = f"GCP rows left out: {_first_line(error)}"
        else:
            prefix = f"bench{uuid.uuid4().hex[:8]}"
            context.gcp_env = {
                "FIRESTORE_EMULATOR_HOST": host_port,
                "A2A_STORE_URL": f"firestore://{GCP_PROJECT}/(default)?prefix={prefix}",
            }


def _add_fastapi_variant(context: Context) -> None:
    """The adapter's handler serving a FastAPI app with the agent in it, beside the agent
    alone; left out, with a note, when its bundle cannot be built or it does not serve."""
    assert context.ours is not None
    try:
        bundle = with_fastapi(context.ours)
        path = {"BENCH_A2A_PATH": "/agent/"}
        variant = Variant(FASTAPI, bundle, "handler_ours_fastapi", path)
        floor = Variant(FASTAPI_FLOOR, bundle, "floor_fastapi", path)
        for probed in (variant, floor):
            run_probe(probed, "cold")
    except (BenchSetupError, ProbeFailed) as error:
        context.report.notes.append(f"the FastAPI rows are left out: {_first_line(error)}")
    else:
        context.secondary.append(variant)
        context.floors.append(floor)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    lines = text.splitlines()
    last = lines[-1] if lines else ""
    return f"{lines[0] if lines else type(error).__name__} ... {last}" if len(lines) > 1 else text


def _run_section(context: Context, section: str) -> None:
    log(f"section {section} (load average {load_average()})")
    runner = {
        "size": _size,
        "cold-start": _cold_start,
        "warm": _warm,
        "throughput": _throughput,
        "storage": _storage,
        "client-import": _client_import,
        "profile": _profile,
    }[section]
    try:
        runner(context)
    except Exception as error:  # one broken section must not hide the others' figures
        context.failed = True
        context.report.notes.append(f"section {section} failed: {type(error).__name__}: {error}")
        log(f"section {section} failed:\n{traceback.format_exc()}")


def _variants(context: Context) -> Iterator[Variant]:
    assert context.primary is not None
    yield context.primary
    yield from context.secondary


# --- size ----------------------------------------------------------------------------------------


def _size(context: Context) -> None:
    assert context.ours is not None and context.peer is not None and context.peer1 is not None
    load = load_average()
    ours, peer = size.measure(context.ours), size.measure(context.peer)
    peer1 = size.measure(context.peer1)
    mib = size.MIB
    rows = [
        Row(
            "size",
            "zip -9 (with .pyc)",
            "MiB",
            ours.zipped_bytes / mib,
            peer.zipped_bytes / mib,
            goal=2.0,
            issue_target=ISSUE_ZIP_MIB,
            load=load,
            peer1=peer1.zipped_bytes / mib,
            note=f"goal: ours <= {ZIP_GOAL_MIB} MiB "
            f"({'met' if ours.zipped_bytes / mib <= ZIP_GOAL_MIB else 'NOT met'})",
        ),
        Row(
            "size",
            "zip -9 without .pyc",
            "MiB",
            ours.zipped_without_pyc_bytes / mib,
            peer.zipped_without_pyc_bytes / mib,
            load=load,
            peer1=peer1.zipped_without_pyc_bytes / mib,
        ),
        Row(
            "size",
            "unzipped (with .pyc)",
            "MiB",
            ours.unzipped_bytes / mib,
            peer.unzipped_bytes / mib,
            load=load,
            peer1=peer1.unzipped_bytes / mib,
        ),
    ]
    # What a deployment that signs webhooks or verifies JWTs ships (the echo agent does not).
    crypto = size.with_crypto_extra(context.ours)
    rows.append(
        Row(
            "size",
            "zip -9 (with .pyc), ours with the crypto extra",
            "MiB",
            crypto.zipped_bytes / mib,
            peer.zipped_bytes / mib,
            load=load,
            peer1=peer1.zipped_bytes / mib,
        )
    )
    for row in rows:
        context.report.add(row)
    context.report.notes.append(
        "size: ours without boto3, botocore, s3transfer, jmespath, python-dateutil, six, urllib3 "
        "(the Lambda Python runtime ships them), and without the core's crypto extra "
        "(cryptography: push signing keys, JWT auth) unless the row says so"
    )
    context.report.details += ["", *size.package_lines(ours), "", *size.package_lines(peer)]
    context.report.details += ["", *size.package_lines(peer1)]
    context.report.details += ["", *size.package_lines(crypto, top=6)]


# --- cold start ----------------------------------------------------------------------------------


def _cold_start(context: Context) -> None:
    assert context.peer_variant is not None and context.primary is not None
    assert context.peer1_variant is not None and context.primary1 is not None
    variants = [
        *_variants(context),
        context.peer_variant,
        context.primary1,
        context.peer1_variant,
        *context.floors,
    ]
    dynamodb = dynamodb_floor = dynamodb_requests = None
    if context.dynamodb_url is not None:
        store_env = {**CREDENTIALS, "A2A_STORE_URL": context.dynamodb_url}
        dynamodb = Variant(DYNAMODB, context.primary.bundle, "handler_ours", store_env)
        dynamodb_floor = Variant(
            DYNAMODB_FLOOR, context.primary.bundle, "floor_dynamodb", dict(CREDENTIALS)
        )
        dynamodb_requests = Variant(
            DYNAMODB_REQUESTS, context.primary.bundle, "floor_dynamodb_requests", store_env
        )
        try:
            run_probe(dynamodb, "cold")
            # Through the reference (plain boto3 calls, the same requests): this warms the
            # emulator only, each cold start being a fresh process.
            calls = DYNAMODB_LOCAL_WARMUP_CALLS
            run_probe(dynamodb_requests, "warm", calls, calls, 0)
        except ProbeFailed as error:
            context.dynamodb_note = f"the DynamoDB rows failed: {_first_line(error)}"
            dynamodb = dynamodb_floor = dynamodb_requests = None
        else:
            variants += [dynamodb, dynamodb_floor, dynamodb_requests]
    gcp_variants = _gcp_variants(context)
    variants += gcp_variants
    stats, load = cold.measure(variants, context.options.runs)
    peer, peer1 = stats[PEER], stats[PEER1]
    runs = context.options.runs
    primary, primary1 = stats[context.primary.label], stats[context.primary1.label]
    floor = stats[STDLIB_FLOOR]
    over_floor = primary.median_ms - floor.median_ms
    report = context.report
    report.add(
        Row(
            "cold start",
            f"median, {primary.label} (n={runs})",
            "ms",
            primary.median_ms,
            peer.median_ms,
            goal=COLD_GOAL,
            issue_target=ISSUE_COLD_MS,
            load=load,
            peer1=peer1.median_ms,
            ours1=primary1.median_ms,
            note=(
                f"{over_floor:.0f} ms over the stdlib floor ({floor.median_ms:.0f} ms; goal <= "
                f"{STDLIB_FLOOR_MARGIN_MS:.0f} ms: "
                f"{'met' if over_floor <= STDLIB_FLOOR_MARGIN_MS else 'NOT met'})"
            ),
        )
    )
    for metric, attribute in (("min", "min_ms"), ("max", "max_ms")):
        report.add(
            Row(
                "cold start",
                metric,
                "ms",
                getattr(primary, attribute),
                getattr(peer, attribute),
                load=load,
                peer1=getattr(peer1, attribute),
                ours1=getattr(primary1, attribute),
            )
        )
    for name, title in (
        ("import_ms", "imports + handler init"),
        ("first_request_ms", "first request"),
    ):
        report.add(
            Row(
                "cold start",
                f"{title} (median)",
                "ms",
                median(primary.field(name)),
                median(peer.field(name)),
                load=load,
                peer1=median(peer1.field(name)),
                ours1=median(primary1.field(name)),
            )
        )
    report.add(
        Row(
            "cold start",
            "peak RSS after the first request",
            "MiB",
            primary.rss_mib,
            peer.rss_mib,
            load=load,
            peer1=peer1.rss_mib,
            ours1=primary1.rss_mib,
        )
    )
    for variant in context.secondary:
        other = stats[variant.label]
        fastapi_floor = stats.get(FASTAPI_FLOOR) if variant.label == FASTAPI else None
        note = ""
        if fastapi_floor is not None:
            # FastAPI's own import is most of this row: the goal against the peer (itself on
            # FastAPI) is for the agent alone; here what counts is what we add to the app.
            note = (
                f"{other.median_ms - fastapi_floor.median_ms:.0f} ms over the bare FastAPI app "
                f"({fastapi_floor.median_ms:.0f} ms); "
                f"{other.median_ms - primary.median_ms:.0f} ms over the agent alone, mostly "
                "FastAPI's own import (fastapi, pydantic, starlette)"
            )
        report.add(
            Row(
                "cold start",
                f"median, {variant.label}",
                "ms",
                other.median_ms,
                peer.median_ms,
                goal=None if variant.label == FASTAPI else COLD_GOAL,
                load=load,
                note=note,
                peer1=peer1.median_ms,
            )
        )
    if dynamodb is not None and dynamodb_floor is not None and dynamodb_requests is not None:
        other = stats[dynamodb.label]
        # What a warm message/send costs against the same DynamoDB Local: the part of the first
        # request that is the emulator's own latency, not a cold start's.
        warm_send_ms = median(warm.measure(dynamodb, DYNAMODB_WARM_CALLS, 3).send_us) / 1000
        report.add(
            Row(
                "cold start",
                f"median, {dynamodb.label}",
                "ms",
                other.median_ms,
                peer.median_ms,
                load=load,
                peer1=peer1.median_ms,
                note=(
                    f"imports + init {median(other.field('import_ms')):.0f} ms (clients primed), "
                    f"first request {median(other.field('first_request_ms')):.0f} ms (goal <= 10) "
                    f"against {warm_send_ms:.0f} ms for a warm message/send on the same DynamoDB "
                    "Local (its 4 requests' latency); the peer keeps its tasks in memory"
                ),
            )
        )
        dynamodb_floor_stats = stats[dynamodb_floor.label]
        over = other.median_ms - dynamodb_floor_stats.median_ms
        report.add(
            Row(
                "cold start",
                f"median, {dynamodb_floor.label}",
                "ms",
                dynamodb_floor_stats.median_ms,
                peer.median_ms,
                load=load,
                peer1=peer1.median_ms,
                note=(
                    f"the DynamoDB handler is {over:.0f} ms over this floor (goal <= "
                    f"{DYNAMODB_FLOOR_MARGIN_MS:.0f} ms: "
                    f"{'met' if over <= DYNAMODB_FLOOR_MARGIN_MS else 'NOT met'})"
                ),
            )
        )
        # The emulator's latency for the handler's requests, as a bare client meets it in the
        # same runs: what of the gap above is DynamoDB Local's and what is the handler's own.
        requests = stats[dynamodb_requests.label]
        report.add(
            Row(
                "cold start",
                f"median, {dynamodb_requests.label}",
                "ms",
                requests.median_ms,
                peer.median_ms,
                load=load,
                peer1=peer1.median_ms,
                note=(
                    f"imports + init {median(requests.field('import_ms')):.0f} ms, first request "
                    f"{median(requests.field('first_request_ms')):.0f} ms (the handler's 4 "
                    "requests, nothing primed); the DynamoDB handler is "
                    f"{other.median_ms - requests.median_ms:.0f} ms over this reference, "
                    f"{requests.median_ms - dynamodb_floor_stats.median_ms:.0f} ms of the gap "
                    "to the floor being the requests themselves"
                ),
            )
        )
    else:
        report.add(
            Row(
                "cold start",
                f"median, {DYNAMODB}",
                "ms",
                None,
                None,
                note=context.dynamodb_note or "DynamoDB Local not started",
            )
        )
    _gcp_rows(context, stats, load, gcp_variants)
    for variant in context.floors:
        report.add(
            Row(
                "cold start",
                f"median, {variant.label}",
                "ms",
                stats[variant.label].median_ms,
                peer.median_ms,
                load=load,
                peer1=peer1.median_ms,
            )
        )
    for variant in [context.primary, context.peer_variant, context.peer1_variant]:
        report.details += ["", *cold.import_report(variant.label, cold.import_times(variant))]


def _gcp_variants(context: Context) -> list[Variant]:
    """The GCP function on Firestore and its floor, once each served a probe (which also
    warms the emulator up: its first request takes a second); none, with a note, otherwise."""
    if context.gcp is None:
        return []
    found = [
        Variant(GCP, context.gcp, "handler_gcp.py", context.gcp_env, probe="probe_gcp.py"),
        Variant(GCP_FLOOR, context.gcp, "floor_firestore.py", context.gcp_env, "probe_gcp.py"),
    ]
    try:
        for variant in found:
            run_probe(variant, "cold")
    except ProbeFailed as error:
        context.gcp_note = f"the GCP function failed: {_first_line(error)}"
        context.failed = True
        return []
    return found


def _gcp_rows(
    context: Context, stats: dict[str, cold.ColdStats], load: str, variants: list[Variant]
) -> None:
    peer, peer1 = stats[PEER].median_ms, stats[PEER1].median_ms
    if not variants:
        note = context.gcp_note or "the Firestore emulator was not started"
        context.report.add(Row("cold start", f"median, {GCP}", "ms", None, None, note=note))
        return
    function, floor = stats[GCP], stats[GCP_FLOOR]
    first_ms = median(function.field("first_request_ms"))
    context.report.add(
        Row(
            "cold start",
            f"median, {GCP}",
            "ms",
            function.median_ms,
            peer,
            load=load,
            peer1=peer1,
            note=(
                f"{function.median_ms:.0f} ms, floor "
                f"{floor.median_ms:.0f} ms, first request {first_ms:.0f} ms (imports + init "
                f"{median(function.field('import_ms')):.0f} ms); the peer is on Lambda, in memory"
            ),
        )
    )
    over = function.median_ms - floor.median_ms
    context.report.add(
        Row(
            "cold start",
            f"median, {GCP_FLOOR}",
            "ms",
            floor.median_ms,
            peer,
            load=load,
            peer1=peer1,
            note=(
                f"the GCP function is {over:.0f} ms over this floor (goal <= "
                f"{GCP_FLOOR_MARGIN_MS:.0f} ms: "
                f"{'met' if over <= GCP_FLOOR_MARGIN_MS else 'NOT met'}; imports + init "
                f"{median(floor.field('import_ms')):.0f} ms)"
            ),
        )
    )
    context.report.details += ["", *cold.import_report(GCP, cold.import_times(variants[0]))]


# --- warm latency and memory ---------------------------------------------------------------------


def _warm(context: Context) -> None:
    assert context.peer_variant is not None and context.peer1_variant is not None
    assert context.primary1 is not None
    options = context.options
    variants = [
        *_variants(context),
        context.peer_variant,
        context.primary1,
        context.peer1_variant,
        *context.floors,
    ]
    pooled: dict[str, list[warm.WarmStats]] = {v.label: [] for v in variants}
    for round_index in range(options.rounds):
        for variant in variants:
            pooled[variant.label].append(warm.measure(variant, options.calls, options.warmup))
        log(f"warm: round {round_index + 1}/{options.rounds} done")
    merged = {label: _merge(found) for label, found in pooled.items()}
    peer, peer1 = merged[PEER], merged[PEER1]
    primary1 = merged[context.primary1.label]
    report = context.report
    calls = options.calls * options.rounds
    for index, variant in enumerate(_variants(context)):
        ours = merged[variant.label]
        # The headline variant is also measured speaking 1.0; the others speak 0.3 only.
        ours1 = primary1 if index == 0 else None
        name = variant.label if index == 0 else variant.label.removeprefix("ours: ")
        for kind, method, target, goal in (
            ("send", "message/send", ISSUE_SEND_US, SEND_GOAL),
            ("get", "tasks/get", ISSUE_GET_US, GET_GOAL),
        ):
            mine, theirs, theirs1 = ours.summary(kind), peer.summary(kind), peer1.summary(kind)
            mine1 = ours1.summary(kind) if ours1 is not None else None
            report.add(
                Row(
                    "warm",
                    f"{method} p50, {name} (n={calls})",
                    "us",
                    mine["p50"],
                    theirs["p50"],
                    goal=goal,
                    issue_target=target if index == 0 else None,
                    load=ours.load,
                    peer1=theirs1["p50"],
                    ours1=None if mine1 is None else mine1["p50"],
                )
            )
            if index == 0:
                report.add(
                    Row(
                        "warm",
                        f"{method} p99",
                        "us",
                        mine["p99"],
                        theirs["p99"],
                        load=ours.load,
                        peer1=theirs1["p99"],
                        ours1=None if mine1 is None else mine1["p99"],
                    )
                )
        report.add(
            Row(
                "memory",
                f"peak RSS after the warm calls, {name}",
                "MiB",
                ours.peak_rss_mib,
                peer.peak_rss_mib,
                issue_target=ISSUE_RSS_MIB if index == 0 else None,
                load=ours.load,
                peer1=peer1.peak_rss_mib,
                ours1=None if ours1 is None else ours1.peak_rss_mib,
            )
        )
    for variant in context.floors:
        floor = merged[variant.label]
        for kind, method in (("send", "message/send"), ("get", "tasks/get")):
            report.add(
                Row(
                    "warm",
                    f"{method} p50, {variant.label}",
                    "us",
                    floor.summary(kind)["p50"],
                    peer.summary(kind)["p50"],
                    load=floor.load,
                    peer1=peer1.summary(kind)["p50"],
                )
            )


def _merge(found: list[warm.WarmStats]) -> warm.WarmStats:
    return warm.WarmStats(
        label=found[0].label,
        send_us=[v for s in found for v in s.send_us],
        get_us=[v for s in found for v in s.get_us],
        peak_rss_mib=max(s.peak_rss_mib for s in found),
        rss_mib=max(s.rss_mib for s in found),
        load=" / ".join(s.load.split()[0] for s in found),
    )


# --- throughput ----------------------------------------------------------------------------------


def _throughput(context: Context) -> None:
    options = context.options
    throughput.require_wrk()
    ours_env = {"A2A_STORE_URL": "memory://"}
    servers = [
        throughput.Server("ours", sys.executable, "echo_ours:server_app", ours_env),
        throughput.Server(
            "peer", str(ensure_peer_venv(PEER_03)), f"{PEER_03.echo_module}:build_app", {}
        ),
        throughput.Server(
            "ours1", sys.executable, "echo_ours:server_app", ours_env, protocol="1.0"
        ),
        throughput.Server(
            "peer1",
            str(ensure_peer_venv(PEER_13)),
            f"{PEER_13.echo_module}:build_app",
            {},
            protocol=PEER_13.protocol,
        ),
    ]
    report = context.report
    for method in ("message/send", "message/stream"):
        results = throughput.run_pair(
            servers, method, options.connections, options.duration_s, options.warmup_s
        )
        load = " / ".join(results["ours"].load.split())
        failed = {side: result.errors for side, result in results.items() if result.errors}
        note = (
            "failed requests: " + ", ".join(f"{n} ({side})" for side, n in failed.items())
            if failed
            else ""
        )

        rate = _load_row(results, f"{method} requests/s", "req/s", "requests_per_s", load)
        rate.better, rate.goal, rate.note = "higher", THROUGHPUT_GOAL, note
        rate.issue_target = ISSUE_REQ_S if method == "message/send" else None
        report.add(rate)
        report.add(_load_row(results, f"{method} latency p50", "ms", "p50_ms", load))
        report.add(_load_row(results, f"{method} latency p99", "ms", "p99_ms", load))
        peak = _load_row(results, f"{method} server peak RSS", "MiB", "server_peak_rss_mib", load)
        report.add(peak)
    report.notes.append(
        "throughput: uvicorn (asyncio loop, h11), one process per side, wrk -t1 on loopback, "
        "the four sides (ours in 0.3, the 0.3 peer, ours in 1.0, the 1.x peer) loaded in "
        "alternating slices of about 5 s; p50 is the median of the slices' p50s, p99 the worst "
        "slice's; load avg is at the start of each slice of ours"
    )


def _load_row(
    results: dict[str, throughput.LoadResult], metric: str, unit: str, attribute: str, load: str
) -> Row:
    """One throughput figure of the four sides (keyed as `_throughput` names its servers)."""
    ours, peer = results["ours"], results["peer"]
    ours1, peer1 = results["ours1"], results["peer1"]
    return Row(
        "throughput",
        metric,
        unit,
        getattr(ours, attribute),
        getattr(peer, attribute),
        load=load,
        peer1=getattr(peer1, attribute),
        ours1=getattr(ours1, attribute),
    )


# --- storage -------------------------------------------------------------------------------------


def _storage(context: Context) -> None:
    report = context.report
    if context.dynamodb_url is None:
        report.add(
            Row(
                "storage",
                "DynamoDB $ per 1M tasks",
                "$",
                None,
                None,
                note=context.dynamodb_note or "DynamoDB Local not started",
            )
        )
        return
    load = load_average()
    result = storage.measure(context.dynamodb_url, context.options.storage_repeats)
    per_task = result.per_task()
    report.add(
        Row(
            "storage",
            "DynamoDB requests: $ per 1M tasks",
            "$",
            round(per_task.dollars_per_million, 2),
            None,
            load=load,
            note=f"a task = one blocking message/send + one tasks/get: "
            f"{per_task.read_units:.1f} read + {per_task.write_units:.1f} write units; "
            f"on-demand us-east-1 prices of {storage.PRICES_DATE} "
            f"(${storage.PRICE_PER_MILLION_WRITE_UNITS}/M writes, "
            f"${storage.PRICE_PER_MILLION_READ_UNITS}/M reads)",
        )
    )
    report.add(
        Row(
            "storage",
            "DynamoDB storage: $ per 1M tasks per month",
            "$",
            round(result.storage_dollars_per_million_month, 2),
            None,
            load=load,
            note=f"about {result.bytes_per_task:.0f} bytes per finished echo task, "
            f"indexes included, at ${storage.PRICE_PER_GB_MONTH}/GB-month",
        )
    )
    lines = [
        "",
        f"DynamoDB per A2A method (DynamoDB Local, mean of {context.options.storage_repeats}; "
        "RRU/WRU = read/write request units):",
        f"  {'method':<18} {'RRU':>5} {'WRU':>5} {'$/1M calls':>10}  requests; units by target",
    ]
    for cost in result.methods:
        usage = cost.usage
        calls = ", ".join(f"{n} x{c:.3g}" for n, c in sorted(usage.calls.items()))
        targets = ", ".join(f"{n} {u:.3g}" for n, u in sorted(usage.units_by_target.items()))
        lines.append(
            f"  {cost.method:<18} {usage.read_units:5.1f} {usage.write_units:5.1f} "
            f"{usage.dollars_per_million:10.2f}  {calls}; {targets}"
        )
        if cost.note:
            lines.append(f"  {'':<18} ({cost.note})")
    report.details += lines
    _storage_large_artifact(context)


def _storage_large_artifact(context: Context) -> None:
    """A task whose agent writes a 1 MB file artifact among status changes, its content in S3."""
    report = context.report
    metric = "DynamoDB + S3, 1 MB artifact: $ per 1M tasks"
    if context.s3 is None or context.dynamodb_url is None:
        report.add(Row("storage", metric, "$", None, None, note=context.s3_note or "no S3"))
        return
    load = load_average()
    endpoint, bucket = context.s3
    repeats = context.options.storage_repeats
    result = storage.measure_large_artifact(context.dynamodb_url, endpoint, bucket, repeats)
    dynamodb, s3_calls = result.dynamodb, result.s3_calls
    s3_dollars = storage.s3_dollars_per_million(s3_calls)
    steps = dict(zip(storage.LARGE_ARTIFACT_STEPS, result.write_units_per_step, strict=True))
    status_changes = [units for name, units in steps.items() if name != "the 1 MB artifact"]
    calls = ", ".join(f"{name} x{count:.3g}" for name, count in sorted(s3_calls.items()))
    report.add(
        Row(
            "storage",
            metric,
            "$",
            round(dynamodb.dollars_per_million + s3_dollars, 2),
            None,
            load=load,
            note=f"a task = blocking message/send (working, a 1 MB file artifact, two status "
            f"messages, completed) + tasks/get on another instance; DynamoDB "
            f"{dynamodb.read_units:.1f} read + {dynamodb.write_units:.1f} write units "
            f"(${dynamodb.dollars_per_million:.2f}); write units per status change "
            f"{', '.join(f'{units:.1f}' for units in status_changes)}, the artifact's write "
            f"{steps['the 1 MB artifact']:.1f}; S3 {calls} (${s3_dollars:.2f}, S3 Standard "
            f"us-east-1 prices of {storage.S3_PRICES_DATE}: "
            f"${storage.S3_PRICE_PER_THOUSAND_PUT}/1,000 PUT, COPY, LIST, "
            f"${storage.S3_PRICE_PER_THOUSAND_GET}/1,000 GET); without a content store the "
            f"task ends {result.without_content}",
        )
    )
    report.add(
        Row(
            "storage",
            "S3 storage, 1 MB artifact: $ per 1M tasks per month",
            "$",
            round(result.s3_storage_dollars_per_million_month, 2),
            None,
            load=load,
            note=f"about {result.object_bytes_per_task:.0f} bytes of objects per task (the "
            f"part's JSON) at ${storage.S3_PRICE_PER_GB_MONTH}/GB-month, until the bucket's "
            "lifecycle rule removes them with the task",
        )
    )
    report.details += [
        "",
        f"A task with a 1 MB artifact (DynamoDB Local + moto S3, mean of {repeats}):",
        *(f"  {name:<36} {units:5.1f} WRU" for name, units in steps.items()),
        f"  message/send: DynamoDB {result.send.read_units:.1f} RRU "
        f"{result.send.write_units:.1f} WRU; S3 {_calls(result.s3_send)}",
        f"  tasks/get (another instance): DynamoDB {result.get.read_units:.1f} RRU; "
        f"S3 {_calls(result.s3_get)}",
    ]


def _calls(calls: dict[str, float]) -> str:
    return ", ".join(f"{name} x{count:.3g}" for name, count in sorted(calls.items())) or "none"


# --- client import -------------------------------------------------------------------------------


def _client_import(context: Context) -> None:
    load = load_average()
    costs = client_import.measure(context.options.runs)
    for metric, ours in (
        ("import on top of the app; peer: a2a-sdk 1.x a2a.client", costs.ours_ms),
        ("the same, with httpx (ours: imported on the first call)", costs.ours_first_call_ms),
    ):
        row = Row("client import", metric, "ms", ours, costs.peer_ms, load=load, note=costs.note)
        row.issue_target = ISSUE_SDK_CLIENT_MS
        context.report.add(row)


# --- profile -------------------------------------------------------------------------------------


def _profile(context: Context) -> None:
    options = context.options
    for variant in _variants(context):
        context.report.details += [
            "",
            *profiling.profile(variant, options.profile_calls, options.warmup, RESULTS),
        ]
        break  # the primary variant; the others share its core code paths


if __name__ == "__main__":
    sys.exit(main())
