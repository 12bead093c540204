"""Bundle size: the Lambda folder as installed (with pip's .pyc files), unzipped and `zip -9`.

boto3, botocore and their dependencies are not in our bundle (the Lambda runtime has them; see
environments.py); the bench's own files (bench/function) are left out of both.

Our bundle is what the echo agent needs: the core and the AWS adapter, without the core's
`crypto` extra (cryptography: push signing keys, JWT auth), which the echo agent does not use.
`with_crypto_extra` measures it with the extra as well, what a deployment that signs webhooks
ships: the extra's packages (from pyproject.toml's `crypto` list) installed next to a copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import tomllib
import zipfile
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from .environments import (
    LAMBDA_DIR,
    REPO,
    BenchSetupError,
    Bundle,
    function_files,
    log,
    python,
)

CRYPTO_EXTRA_DIR = LAMBDA_DIR / "crypto-extra"

MIB = 1024 * 1024


@dataclass(frozen=True)
class BundleSize:
    label: str
    unzipped_bytes: int
    zipped_bytes: int
    zipped_without_pyc_bytes: int
    # Compressed bytes per top-level package (dist-info folded into its package).
    by_package: dict[str, int]


def _bench_files(bundle: Path) -> set[str]:
    names = set(function_files())
    excluded = set(names)
    for name in names:
        stem = name.removesuffix(".py")
        for pyc in (bundle / "__pycache__").glob(f"{stem}.*.pyc"):
            excluded.add(str(pyc.relative_to(bundle)))
    return excluded


def _zip(bundle: Path, target: Path, excluded: set[str], with_pyc: bool) -> None:
    """`zip -9 -r` of the bundle (Python's zipfile at level 9 if there is no zip command)."""
    exclude = sorted(excluded)
    if not with_pyc:
        exclude += ["*__pycache__*", "*.pyc"]
    zip_command = shutil.which("zip")
    if zip_command is not None:
        args = [zip_command, "-9", "-r", "-q", "-X", str(target), "."]
        if exclude:
            args += ["-x", *exclude]
        subprocess.run(args, cwd=bundle, check=True)
        return
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for root, _, files in os.walk(bundle):
            for name in files:
                path = Path(root) / name
                relative = str(path.relative_to(bundle))
                if relative in excluded or (not with_pyc and name.endswith(".pyc")):
                    continue
                archive.write(path, relative)


def _package_of(member: str) -> str:
    top = member.split("/", 1)[0]
    if top.endswith(".dist-info"):
        return top.split("-", 1)[0].lower()
    return top.removesuffix(".py").lower()


def measure(bundle: Bundle) -> BundleSize:
    excluded = _bench_files(bundle.path)
    unzipped = 0
    for root, _, files in os.walk(bundle.path):
        for name in files:
            path = Path(root) / name
            if str(path.relative_to(bundle.path)) not in excluded:
                unzipped += path.stat().st_size
    with tempfile.TemporaryDirectory(prefix="a2a-bench-zip-") as scratch:
        full = Path(scratch) / "bundle.zip"
        bare = Path(scratch) / "bundle-no-pyc.zip"
        _zip(bundle.path, full, excluded, with_pyc=True)
        _zip(bundle.path, bare, excluded, with_pyc=False)
        by_package: dict[str, int] = defaultdict(int)
        with zipfile.ZipFile(full) as archive:
            for info in archive.infolist():
                by_package[_package_of(info.filename)] += info.compress_size
        return BundleSize(
            label=bundle.name,
            unzipped_bytes=unzipped,
            zipped_bytes=full.stat().st_size,
            zipped_without_pyc_bytes=bare.stat().st_size,
            by_package=dict(by_package),
        )


def package_lines(size: BundleSize, top: int = 12) -> list[str]:
    total = sum(size.by_package.values())
    lines = [f"zip -9, {size.label}: compressed bytes by package ({total / MIB:.1f} MiB)"]
    for name, compressed in sorted(size.by_package.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"  {compressed / MIB:6.2f} MiB  {100 * compressed / total:5.1f}%  {name}")
    return lines


def crypto_requirements() -> list[str]:
    """The core's `crypto` extra, as pyproject.toml lists it."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements: list[str] = project["optional-dependencies"]["crypto"]
    return requirements


def _crypto_extra(bundle: Path) -> Path:
    """The packages the `crypto` extra adds to `bundle` (installed once per requirement list)."""
    requirements = crypto_requirements()
    stamp = LAMBDA_DIR / ".crypto-extra-requirements"
    wanted = json.dumps(requirements)
    if CRYPTO_EXTRA_DIR.is_dir() and stamp.is_file() and stamp.read_text() == wanted:
        return CRYPTO_EXTRA_DIR
    log(f"pip install --target {CRYPTO_EXTRA_DIR.relative_to(REPO)} {' '.join(requirements)}")
    if CRYPTO_EXTRA_DIR.exists():
        shutil.rmtree(CRYPTO_EXTRA_DIR)
    pip = [python(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    done = subprocess.run(
        [*pip, "--target", str(CRYPTO_EXTRA_DIR), *requirements], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise BenchSetupError(f"installing the crypto extra failed:\n{done.stderr[-4000:]}")
    # What the bundle has already (PyJWT itself) is not part of what the extra adds.
    for entry in list(CRYPTO_EXTRA_DIR.iterdir()):
        if entry.name != "bin" and not (bundle / entry.name).exists():
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    stamp.write_text(wanted)
    return CRYPTO_EXTRA_DIR


def with_crypto_extra(bundle: Bundle) -> BundleSize:
    """The size of `bundle` plus the packages of the core's `crypto` extra."""
    extra = _crypto_extra(bundle.path)
    with tempfile.TemporaryDirectory(prefix="a2a-bench-crypto-") as scratch:
        merged = Path(scratch) / "bundle"
        shutil.copytree(bundle.path, merged, symlinks=True)
        shutil.copytree(extra, merged, symlinks=True, dirs_exist_ok=True)
        size = measure(replace(bundle, path=merged))
    return replace(size, label=f"{bundle.name} with the crypto extra")
