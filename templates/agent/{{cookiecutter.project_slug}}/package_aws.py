#!/usr/bin/env python3
"""Build the Lambda zip, build/lambda.zip, that serverless.yml and infra/ deploy.

    python package.py

pip installs this project with its dependencies for the Lambda runtime (python3.12, x86_64:
manylinux wheels only, so nothing is compiled and no Docker is needed) into build/lambda/,
leaves out byte code and what every Lambda Python runtime already has (boto3, botocore and their
dependencies), and zips the rest with fixed timestamps: the same files give the same zip, so
deploying an unchanged build changes nothing. Needs network access to PyPI.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# a2a-serverless is not on PyPI yet: pip builds it from a source checkout at this path (relative
# to this project). Once it is published, set KIT = "" and pip takes it from PyPI.
KIT = "{{ cookiecutter.kit_path }}"
REQUIREMENTS = [KIT, f"{KIT}/adapters/aws", "."] if KIT else ["."]
PLATFORM = ["--platform", "manylinux2014_x86_64", "--implementation", "cp"]
PLATFORM += ["--python-version", "3.12", "--only-binary=:all:"]
# Every Lambda Python runtime has these on its path already.
RUNTIME_PROVIDED = ["boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3"]
DISTRIBUTIONS = ["boto3", "botocore", "s3transfer", "jmespath", "python_dateutil", "six", "urllib3"]
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def step(number: int, what: str) -> None:
    # pip runs quietly for a minute or more: say what is happening meanwhile.
    print(f"package.py: [{number}/3] {what}", flush=True)


def main() -> int:
    staging = HERE / "build" / "lambda"
    shutil.rmtree(staging, ignore_errors=True)
    step(1, "pip installs the project and its dependencies for the Lambda runtime (from PyPI)")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile"]
    command += ["--target", str(staging), *PLATFORM, *REQUIREMENTS]
    if subprocess.run(command, cwd=HERE, check=False).returncode != 0:
        print("package.py: pip install failed (see above)", file=sys.stderr)
        return 1
    step(2, "leaving out what the Lambda runtime has (boto3, botocore...) and byte code")
    for name in RUNTIME_PROVIDED:
        shutil.rmtree(staging / name, ignore_errors=True)
        (staging / f"{name}.py").unlink(missing_ok=True)
    for path in staging.glob("*.dist-info"):
        if path.name.split("-")[0] in DISTRIBUTIONS:
            shutil.rmtree(path)
    shutil.rmtree(staging / "bin", ignore_errors=True)
    # The project template `a2a-serverless new` renders: no function uses it.
    shutil.rmtree(staging / "a2a_serverless" / "templates", ignore_errors=True)
    for path in list(staging.rglob("__pycache__")):
        shutil.rmtree(path, ignore_errors=True)
    step(3, "zipping build/lambda/")
    print(make_zip(staging, HERE / "build" / "lambda.zip"))
    return 0


def make_zip(directory: Path, zip_path: Path) -> str:
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), FIXED_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    unzipped = sum(p.stat().st_size for p in files) / 1e6
    zipped = zip_path.stat().st_size / 1e6
    relative = zip_path.relative_to(HERE)
    return f"{relative}: {len(files)} files, {zipped:.2f} MB zipped ({unzipped:.2f} MB unzipped)"


if __name__ == "__main__":
    sys.exit(main())
