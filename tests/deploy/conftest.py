"""The deploy tests' shared fixture: the documented Terraform deploy, started with the first of
them and taken over by its test, which runs last of the directory.

`terraform apply` of a generated project spends most of its 80 s in the aws provider's fixed
waits, not on the CPU: each SQS queue's attributes are read back every 5 s until alike six
times running (25 s, the dead-letter queue's before the job queue's), each Lambda function's
state 5 s after its creation, the bucket's lifecycle rules likewise for 55 s. The other deploy
tests run meanwhile (none of them is timed); the Terraform test then finds its deploy done.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.serverless_support import service
from tests.deploy.test_documented_deploy import (
    TERRAFORM_TEST,
    Deploying,
    moto_emulator,
    new_project,
    readme_paths,
    user_env,
)

HERE = Path(__file__).parent


def _is_terraform_test(item: pytest.Item) -> bool:
    return item.name == TERRAFORM_TEST and item.path.parent == HERE


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The documented Terraform deploy's test after every other test of this directory."""
    moved = [item for item in items if _is_terraform_test(item)]
    if not moved:
        return
    rest = [item for item in items if not _is_terraform_test(item)]
    ours = [i for i, item in enumerate(rest) if HERE in item.path.parents]
    at = ours[-1] + 1 if ours else len(rest)
    items[:] = [*rest[:at], *moved, *rest[at:]]


@pytest.fixture(scope="session", autouse=True)
def terraform_deploying(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deploying | None]:
    """The generated project's documented Terraform commands, running in the background against
    a moto server of their own from the first deploy test on, when the Terraform test is
    selected (None otherwise)."""
    if not any(_is_terraform_test(item) for item in request.session.items):
        yield None
        return
    directory = tmp_path_factory.mktemp("terraform-deploy")
    work = new_project(directory / "new")
    documented = readme_paths(work)["terraform"]
    with moto_emulator(directory) as emulator:
        command = ["bash", "-c", documented.script()]
        env = user_env(emulator, directory)
        with service(command, directory / "deploy.log", env=env, cwd=work) as bash:
            yield Deploying(emulator, work, documented, bash)
