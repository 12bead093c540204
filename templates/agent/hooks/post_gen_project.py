"""Keep only the files of the chosen cloud (infra/<cloud>/ becomes infra/), the FastAPI app
only when it was asked for, and the chosen kind of agent (with its tests) as agent.py."""

import shutil
from pathlib import Path

CLOUD = "{{ cookiecutter.cloud }}"
MODULE = "{{ cookiecutter.module_name }}"
FASTAPI = "{{ cookiecutter.fastapi }}" == "yes"
KIND = "{{ cookiecutter.kind }}"

FILES = {
    "aws": [
        "serverless.yml",
        "package.json",
        f"{MODULE}/aws_lambda.py",
        "tests/test_aws_lambda.py",
        "package_aws.py",
    ],
    "gcp": ["main.py", "tests/test_gcp_main.py", "package_gcp.py"],
}

project = Path.cwd()
for cloud, files in FILES.items():
    if cloud != CLOUD:
        for name in files:
            (project / name).unlink()

if not FASTAPI:
    for name in (f"{MODULE}/api.py", "tests/test_api.py"):
        (project / name).unlink()

# The echo agent is agent.py; another kind replaces it, and its tests test_agent.py.
for kind in ("orchestrator",):
    agent = project / MODULE / f"agent_{kind}.py"
    tests = project / "tests" / f"test_agent_{kind}.py"
    if kind == KIND:
        agent.replace(project / MODULE / "agent.py")
        tests.replace(project / "tests" / "test_agent.py")
    else:
        agent.unlink()
        tests.unlink()

infra = project / "infra"
chosen = infra / CLOUD
if chosen.is_dir():
    for path in chosen.iterdir():
        path.rename(infra / path.name)
for cloud in FILES:
    shutil.rmtree(infra / cloud, ignore_errors=True)
if not any(infra.iterdir()):
    infra.rmdir()

if CLOUD in FILES:
    (project / f"package_{CLOUD}.py").rename(project / "package.py")
