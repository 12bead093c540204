#!/usr/bin/env python3
"""Build the Cloud Functions source bundle, build/source.zip, that infra/ deploys.

    python package.py

The bundle is what Google's Python buildpack builds from: main.py, and a requirements.txt naming
wheels shipped in the bundle (this project's and, while a2a-serverless is not on PyPI, the
kit's); pip takes everything else from PyPI when Cloud Build installs it. Zipped with fixed
timestamps: the same files give the same zip, so deploying an unchanged build changes nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# a2a-serverless is not on PyPI yet: pip builds it from a source checkout at this path (relative
# to this project). Once it is published, set KIT = "" and name it in requirements.txt instead.
KIT = "{{ cookiecutter.kit_path }}"
PROJECTS = [KIT, f"{KIT}/adapters/gcp", "."] if KIT else ["."]
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def step(number: int, what: str) -> None:
    # pip runs quietly for a minute or more: say what is happening meanwhile.
    print(f"package.py: [{number}/2] {what}", flush=True)


def main() -> int:
    staging = HERE / "build" / "source"
    shutil.rmtree(staging, ignore_errors=True)
    wheels = staging / "wheels"
    step(1, "pip builds wheels of the kit, its GCP adapter and this project")
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
    command += ["--wheel-dir", str(wheels), *PROJECTS]
    if subprocess.run(command, cwd=HERE, check=False).returncode != 0:
        print("package.py: pip wheel failed (see above)", file=sys.stderr)
        return 1
    names = sorted(p.name for p in wheels.glob("*.whl"))
    (staging / "requirements.txt").write_text("".join(f"./wheels/{n}\n" for n in names))
    shutil.copy2(HERE / "main.py", staging / "main.py")
    step(2, "zipping build/source/ (main.py, requirements.txt, wheels)")
    print(make_zip(staging, HERE / "build" / "source.zip"))
    return 0


def make_zip(directory: Path, zip_path: Path) -> str:
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), FIXED_TIME)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    size = zip_path.stat().st_size / 1e6
    return f"{zip_path.relative_to(HERE)}: {len(files)} files, {size:.2f} MB zipped"


if __name__ == "__main__":
    sys.exit(main())
