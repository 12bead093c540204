"""Where each side runs: the peer's virtualenv and the Lambda bundles (pip install --target).

Layout, all under `.bench/` (git-ignored):

- `peer-venv/`, `peer1-venv/`: virtualenvs with the official `a2a-sdk[http-server]`, 0.3.26
  and 1.3.0 (the two peers), and the same Mangum and uvicorn versions as ours. uvicorn serves
  each peer from its own (throughput).
- `lambda/peer/`, `lambda/peer1/`: `pip install --target` of each peer's Lambda dependencies
  (SDK + Mangum).
- `lambda/ours/`: `pip install --target` of the core and the AWS adapter. The packages installed
  from this checkout (`a2a_serverless`, `a2a_serverless_aws`) are replaced by fresh copies of
  the working tree (and byte-compiled, as pip does) on every run, so the bench always measures
  the code as it is now; the third-party packages are reinstalled only when a pyproject.toml
  changes.
- `lambda/aws-runtime/`: what the Lambda Python runtime already ships (boto3, botocore and
  their dependencies), moved out of ours: not part of the bundle's size, but on `sys.path`
  after the bundle, as in Lambda (/var/task, then /var/runtime).

Each bundle also gets the files of `bench/function/` (the handlers, the probe), as a
deployment's own handler module sits next to its packages; they are left out of the sizes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / ".bench"
FUNCTION_DIR = Path(__file__).resolve().parent / "function"
LAMBDA_DIR = WORK / "lambda"
OURS_BUNDLE = LAMBDA_DIR / "ours"
AWS_RUNTIME = LAMBDA_DIR / "aws-runtime"
FASTAPI_EXTRA = LAMBDA_DIR / "fastapi-extra"
GCP_BUNDLE = WORK / "gcp" / "ours"


@dataclass(frozen=True)
class Peer:
    """One official SDK line measured beside ours: where its environments live, the A2A version
    its server speaks (the probe and wrk speak it to both sides), its bench/function modules."""

    name: str  # "peer" or "peer1": the directories under .bench/ and the bundle's name
    requirement: str
    protocol: str  # "0.3" or "1.0"
    label: str  # how the table names it

    @property
    def venv(self) -> Path:
        return WORK / f"{self.name}-venv"

    @property
    def bundle_dir(self) -> Path:
        return LAMBDA_DIR / self.name

    @property
    def echo_module(self) -> str:
        return f"echo_{self.name}"

    @property
    def handler_module(self) -> str:
        return f"handler_{self.name}"


PEER_03 = Peer("peer", "a2a-sdk[http-server]==0.3.26", "0.3", "a2a-sdk 0.3.26")
PEER_13 = Peer("peer1", "a2a-sdk[http-server]==1.3.0", "1.0", "a2a-sdk 1.3.0")
# Our packages installed from this checkout: refreshed from the working tree on every run.
OUR_PACKAGES = {
    "a2a_serverless": REPO / "a2a_serverless",
    "a2a_serverless_aws": REPO / "adapters" / "aws" / "a2a_serverless_aws",
}
# The same for the Google Cloud bundle.
OUR_GCP_PACKAGES = {
    "a2a_serverless": REPO / "a2a_serverless",
    "a2a_serverless_gcp": REPO / "adapters" / "gcp" / "a2a_serverless_gcp",
}
# What Lambda sets in a Python function's environment.
_LAMBDA_ENV = {
    # The runtime is the interpreter the bench runs (the `.venv`'s: python3.12, as deployed).
    "AWS_EXECUTION_ENV": f"AWS_Lambda_python{sys.version_info.major}.{sys.version_info.minor}",
    "AWS_LAMBDA_FUNCTION_NAME": "a2a-bench",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
    "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# What Cloud Run sets in a Cloud Functions (gen2) instance, and what the function is.
GCP_PROJECT = "a2a-bench"
GCP_FUNCTION_ENV = {
    "K_SERVICE": "a2a-bench",
    "K_REVISION": "a2a-bench-00001-abc",
    "K_CONFIGURATION": "a2a-bench",
    "PORT": "8080",
    "FUNCTION_TARGET": "a2a",
    "FUNCTION_SIGNATURE_TYPE": "http",
    "GOOGLE_CLOUD_PROJECT": GCP_PROJECT,
}
# Top-level names the Lambda Python runtime provides (boto3, botocore and their dependencies).
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3")
RUNTIME_DISTRIBUTIONS = (
    "boto3",
    "botocore",
    "s3transfer",
    "jmespath",
    "python_dateutil",
    "six",
    "urllib3",
)


class BenchSetupError(RuntimeError):
    """An environment the bench needs could not be built (the message carries pip's output)."""


@dataclass(frozen=True)
class Bundle:
    name: str
    path: Path
    # Extra sys.path entries after the bundle (the runtime's own packages).
    runtime_path: tuple[Path, ...] = ()
    # Whose environment variables its processes get: "lambda" or "gcp".
    platform: str = "lambda"

    @property
    def python_path(self) -> str:
        return os.pathsep.join(str(p) for p in (self.path, *self.runtime_path))


def python() -> str:
    """The interpreter every measured process runs on (the one running the bench)."""
    return sys.executable


def shared_pins() -> list[str]:
    """Mangum and uvicorn pinned to the versions ours uses, so both sides run the same ones."""
    return [f"{name}=={importlib.metadata.version(name)}" for name in ("mangum", "uvicorn")]


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _run(args: Sequence[str], what: str) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        # pip warns about configured but absent local indexes on every call: not the error.
        noise = "WARNING: Location"
        output = "\n".join(
            line for line in (done.stdout + done.stderr).splitlines() if not line.startswith(noise)
        )
        raise BenchSetupError(f"{what} failed (exit {done.returncode}):\n{output[-4000:]}")


def _stamp_matches(stamp: Path, wanted: str) -> bool:
    return stamp.is_file() and stamp.read_text() == _for_this_python(wanted)


def _write_stamp(stamp: Path, wanted: str) -> None:
    stamp.write_text(_for_this_python(wanted))


def _for_this_python(wanted: str) -> str:
    # What pip installed holds compiled extensions for the interpreter that ran it (the
    # `.venv`'s): another Python (3.11 -> 3.12) needs it installed again.
    return f"{sys.implementation.cache_tag}\n{wanted}"


def _pip_target(target: Path, requirements: Sequence[str], what: str) -> None:
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    pip = [python(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, "--target", str(target), *requirements], what)
    # Console scripts (bin/) are of no use in a Lambda bundle and hold absolute paths.
    shutil.rmtree(target / "bin", ignore_errors=True)


def ensure_peer_venv(peer: Peer) -> Path:
    """The peer's virtualenv (created or updated when its requirements change); its python."""
    requirements = [peer.requirement, *shared_pins()]
    wanted = json.dumps(requirements)
    stamp = peer.venv / ".bench-requirements"
    venv_python = peer.venv / "bin" / "python"
    if venv_python.exists() and _stamp_matches(stamp, wanted):
        return venv_python
    log(f"creating {peer.venv.relative_to(REPO)} with {', '.join(requirements)}")
    if peer.venv.exists():
        shutil.rmtree(peer.venv)
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(peer.venv)], f"creating {peer.label}'s virtualenv")
    pip = [str(venv_python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, *requirements], f"installing {peer.label} into its virtualenv")
    _write_stamp(stamp, wanted)
    return venv_python


def peer_bundle(peer: Peer) -> Bundle:
    requirements = [peer.requirement, shared_pins()[0]]
    wanted = json.dumps(requirements)
    stamp = LAMBDA_DIR / f".{peer.name}-requirements"
    target = peer.bundle_dir
    if not (target.is_dir() and _stamp_matches(stamp, wanted)):
        log(f"pip install --target {target.relative_to(REPO)} {' '.join(requirements)}")
        _pip_target(target, requirements, f"installing {peer.label}'s Lambda bundle")
        _write_stamp(stamp, wanted)
    _add_function_files(target)
    return Bundle(peer.name, target)


def ours_bundle() -> Bundle:
    projects = [REPO, REPO / "adapters" / "aws"]
    digest = hashlib.sha256()
    for project in projects:
        digest.update((project / "pyproject.toml").read_bytes())
    wanted = digest.hexdigest()
    stamp = LAMBDA_DIR / ".ours-requirements"
    if not (OURS_BUNDLE.is_dir() and AWS_RUNTIME.is_dir() and _stamp_matches(stamp, wanted)):
        log(f"pip install --target {OURS_BUNDLE.relative_to(REPO)} . adapters/aws")
        _pip_target(OURS_BUNDLE, [str(p) for p in projects], "installing our Lambda bundle")
        _move_runtime_packages()
        _write_stamp(stamp, wanted)
    _refresh_our_packages(OURS_BUNDLE, OUR_PACKAGES)
    _add_function_files(OURS_BUNDLE)
    return Bundle("ours", OURS_BUNDLE, (AWS_RUNTIME,))


def gcp_bundle() -> Bundle:
    """Ours as Cloud Functions (gen2, Python) installs a function whose requirements are the
    GCP adapter: `pip install --target` of the core and adapters/gcp with every dependency (the
    Python runtime ships none of them), our packages refreshed from the working tree."""
    projects = [REPO, REPO / "adapters" / "gcp"]
    digest = hashlib.sha256()
    for project in projects:
        digest.update((project / "pyproject.toml").read_bytes())
    wanted = digest.hexdigest()
    stamp = GCP_BUNDLE.parent / ".ours-requirements"
    if not (GCP_BUNDLE.is_dir() and _stamp_matches(stamp, wanted)):
        log(f"pip install --target {GCP_BUNDLE.relative_to(REPO)} . adapters/gcp")
        _pip_target(GCP_BUNDLE, [str(p) for p in projects], "installing our GCP bundle")
        _write_stamp(stamp, wanted)
    _refresh_our_packages(GCP_BUNDLE, OUR_GCP_PACKAGES)
    _add_function_files(GCP_BUNDLE)
    return Bundle("ours-gcp", GCP_BUNDLE, platform="gcp")


def with_fastapi(ours: Bundle) -> Bundle:
    """`ours` with the packages the `fastapi` extra adds (FastAPI, Starlette, pydantic...) on
    the path after it: what a FastAPI app with the agent in it deploys. FastAPI is pinned to
    the version the project's .venv has; installed once per version."""
    requirement = f"fastapi=={importlib.metadata.version('fastapi')}"
    stamp = LAMBDA_DIR / ".fastapi-extra-requirements"
    if not (FASTAPI_EXTRA.is_dir() and _stamp_matches(stamp, requirement)):
        log(f"pip install --target {FASTAPI_EXTRA.relative_to(REPO)} {requirement}")
        _pip_target(FASTAPI_EXTRA, [requirement], "installing the fastapi extra")
        _write_stamp(stamp, requirement)
    return Bundle(ours.name, ours.path, (FASTAPI_EXTRA, *ours.runtime_path))


def _move_runtime_packages() -> None:
    if AWS_RUNTIME.exists():
        shutil.rmtree(AWS_RUNTIME)
    AWS_RUNTIME.mkdir(parents=True)
    for entry in sorted(OURS_BUNDLE.iterdir()):
        name = entry.name
        top = name.removesuffix(".py")
        distribution = name.split("-")[0] if name.endswith(".dist-info") else None
        if top in RUNTIME_PROVIDED or distribution in RUNTIME_DISTRIBUTIONS:
            shutil.move(str(entry), AWS_RUNTIME / name)


def _refresh_our_packages(bundle: Path, packages: dict[str, Path]) -> None:
    """Replace the installed copies of our packages with the working tree, byte-compiled."""
    for name, source in packages.items():
        target = bundle / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _compile(target)


def _add_function_files(bundle: Path) -> None:
    for source in FUNCTION_DIR.glob("*.py"):
        shutil.copy2(source, bundle / source.name)
    _compile(bundle, only=[bundle / p.name for p in FUNCTION_DIR.glob("*.py")])


def function_files() -> list[str]:
    """The bench's own files in a bundle, left out of its size."""
    return sorted(p.name for p in FUNCTION_DIR.glob("*.py"))


def _compile(path: Path, only: Sequence[Path] = ()) -> None:
    # As pip does after installing: the bundle ships .pyc files, and Lambda's /var/task is
    # read-only, so a bundle without them would compile every module on every cold start.
    targets = [str(p) for p in only] if only else [str(path)]
    _run([python(), "-m", "compileall", "-q", *targets], f"byte-compiling {path}")


def child_env(bundle: Bundle, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a process measured on a bundle: its platform's variables, nothing
    else of ours (no site-packages: processes run with `python -S`)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TZ": ":UTC",
        "PYTHONPATH": bundle.python_path,
        # /var/task is read-only in Lambda (and a function's source is not rewritten on Cloud
        # Run): nothing gets byte-compiled at run time.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if bundle.platform == "gcp":
        env.update(GCP_FUNCTION_ENV)
    else:
        env.update(_LAMBDA_ENV)
        env["LAMBDA_TASK_ROOT"] = str(bundle.path)
    env["A2A_STORE_URL"] = "memory://"
    # Like the peers, which offer none: push notifications off, said rather than left to a
    # missing signing key (which init warns about, and that first log line builds the powertools
    # Logger, ~15 ms of a cold start a deployment without push need not pay).
    env["A2A_PUSH_NOTIFICATIONS"] = "false"
    env.update(extra or {})
    return env
