"""The exception tree (a2a_serverless/exceptions.py): every exception class of the kit and the
adapters derives from `A2AServerlessError` or is a listed control-flow signal, the tree drawn in
the module's docstring names them all, and no class lost a base an `except` clause relies on."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import a2a_serverless.exceptions
from a2a_serverless.exceptions import A2AServerlessError

ROOT = "a2a_serverless.exceptions.A2AServerlessError"

# Raised to steer a turn or a job, not to report a fault: apart from the root, so that an
# `except A2AServerlessError` never swallows them.
CONTROL_FLOW = {
    "a2a_serverless.queue.base.RetryJob",
    "a2a_serverless.turn.TurnOutcome",
    "a2a_serverless.turn.InputRequired",
    "a2a_serverless.turn.AuthRequired",
    "a2a_serverless.turn.Rejected",
    "a2a_serverless.turn.Failed",
    "a2a_serverless.executor.TaskEnded",
    "a2a_serverless.durable.outcomes.TurnSuspended",
    "a2a_serverless.durable.session.NonDeterministicReplay",
    # Private: raised and caught inside their module.
    "a2a_serverless.worker._Skip",
    "a2a_serverless.service._MaybeRetry",
    "a2a_serverless.limits._NotJSON",
    "a2a_serverless_aws.dynamodb.writes._Conflicted",
    "a2a_serverless_aws.dynamodb.writes._NoRoom",
}

# Each class whose place in the tree moved, with what it was an instance of before (beyond
# Exception): it must still be, or an `except` clause would stop catching it.
EARLIER_BASES = {
    "a2a_serverless.exceptions.ConfigurationError": ["builtins.ValueError"],
    "a2a_serverless.config.SettingsError": ["a2a_serverless.exceptions.ConfigurationError"],
    "a2a_serverless.codec.ValidationError": ["builtins.ValueError"],
    "a2a_serverless.devstore.StoreTakenError": ["builtins.ValueError"],
    "a2a_serverless.devserver.TargetError": ["builtins.ValueError"],
    "a2a_serverless.inspector.InspectorRefused": ["builtins.ValueError"],
    "a2a_serverless.queue.base.JobFormatError": ["builtins.ValueError"],
    "a2a_serverless.push.ssrf.UrlRefused": ["builtins.ValueError"],
    "a2a_serverless.push.keys.PushNotConfigured": ["builtins.RuntimeError"],
    "a2a_serverless.extras.MissingExtra": ["builtins.ImportError"],
    "a2a_serverless.store.base.StoreUnavailable": ["a2a_serverless.store.base.StoreError"],
    "a2a_serverless.store.base.StoreOpenError": [
        "a2a_serverless.store.base.StoreError",
        "builtins.ValueError",
    ],
    "a2a_serverless.auth.base.AuthenticationUnavailable": ["a2a_serverless.auth.base.AuthError"],
    "a2a_serverless.secretrefs.SecretUnavailable": ["builtins.RuntimeError"],
    "a2a_serverless.secretrefs.SecretMissing": ["a2a_serverless.secretrefs.SecretUnavailable"],
    "a2a_serverless_aws.sqs.QueueConfigurationError": [
        "a2a_serverless.exceptions.ConfigurationError"
    ],
    "a2a_serverless_aws.dynamodb.errors.DynamoDBUnavailable": [
        "a2a_serverless_aws.dynamodb.errors.DynamoDBStoreError",
        "a2a_serverless.store.base.StoreUnavailable",
    ],
    "a2a_serverless_aws.dynamodb.errors.ItemTooLarge": ["a2a_serverless.store.base.StoreError"],
    "a2a_serverless_aws.dynamodb.errors.TransactionTooLarge": [
        "a2a_serverless.store.base.StoreError"
    ],
    "a2a_serverless_gcp.pubsub.PushFormatError": ["builtins.ValueError"],
    "a2a_serverless_gcp.cloud_tasks.TaskFormatError": ["builtins.ValueError"],
    "a2a_serverless_gcp.firestore.documents.FirestoreLimitExceeded": [
        "a2a_serverless.store.base.StoreError"
    ],
}

# Every module of the kit and both adapters is imported in a fresh interpreter (this one's
# imports stay as other tests expect them), which lists each exception class defined there
# with the classes it is an instance of. An alias is listed under the name it was defined with.
PROGRAM = """
import importlib, inspect, json, pkgutil, sys
for name in ("a2a_serverless", "a2a_serverless_aws", "a2a_serverless_gcp"):
    package = importlib.import_module(name)
    for found in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(found.name)
classes = {}
for name, module in list(sys.modules.items()):
    if name.split(".")[0] not in ("a2a_serverless", "a2a_serverless_aws", "a2a_serverless_gcp"):
        continue
    for value in list(vars(module).values()):
        if inspect.isclass(value) and issubclass(value, BaseException):
            if value.__module__ == name:
                classes[f"{name}.{value.__qualname__}"] = [
                    f"{base.__module__}.{base.__qualname__}" for base in value.__mro__
                ]
print(json.dumps(classes))
"""


@pytest.fixture(scope="module")
def classes() -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True, timeout=120
    )
    found: dict[str, list[str]] = json.loads(result.stdout)
    return found


def test_every_exception_derives_from_the_root_or_is_a_control_flow_signal(
    classes: dict[str, list[str]],
) -> None:
    assert len(classes) > 80  # the walk found the kit's classes, the adapters' included
    assert any(name.startswith("a2a_serverless_aws.") for name in classes)
    assert any(name.startswith("a2a_serverless_gcp.") for name in classes)
    strays = sorted(n for n, mro in classes.items() if ROOT not in mro and n not in CONTROL_FLOW)
    assert strays == [], "derive these from A2AServerlessError (or list them as signals)"


def test_control_flow_signals_stay_apart_from_the_root(classes: dict[str, list[str]]) -> None:
    assert set(classes) >= CONTROL_FLOW, CONTROL_FLOW - set(classes)
    assert [name for name in CONTROL_FLOW if ROOT in classes[name]] == []


def test_no_class_lost_a_base_an_except_clause_relies_on(classes: dict[str, list[str]]) -> None:
    for name, bases in EARLIER_BASES.items():
        assert set(bases) <= set(classes[name]), (name, set(bases) - set(classes[name]))


def test_the_drawn_tree_names_every_class(classes: dict[str, list[str]]) -> None:
    drawing = a2a_serverless.exceptions.__doc__ or ""
    # A line of the tree: a bullet (`*`, `x`, `+`, `-`), then one or more names.
    lines = re.findall(r"^\s*[*x+-] ([A-Z]\w+(?:, [A-Z]\w+)*)", drawing, re.MULTILINE)
    drawn = {name for line in lines for name in line.split(", ")}
    public = {name.rsplit(".", 1)[1] for name in classes if "._" not in name}
    assert sorted(public - drawn) == [], "draw these in exceptions.py's tree"
    assert sorted(drawn - public) == [], "the tree draws classes that do not exist"


def test_renamed_classes_keep_their_old_names() -> None:
    from a2a_serverless import config, push
    from a2a_serverless.push import keys
    from a2a_serverless_aws import dynamodb
    from a2a_serverless_aws.dynamodb import errors

    assert keys.PushUnavailable is keys.PushNotConfigured is push.PushUnavailable
    assert errors.StoreUnavailable is errors.DynamoDBUnavailable is dynamodb.StoreUnavailable
    assert config.ConfigurationError is a2a_serverless.exceptions.ConfigurationError


def test_the_package_face_exports_the_root_and_its_branches() -> None:
    import a2a_serverless

    for name in ("ConfigurationError", "UnavailableError", "LimitError", "FormatError"):
        branch = getattr(a2a_serverless, name)
        assert issubclass(branch, A2AServerlessError) and name in a2a_serverless.__all__
    assert a2a_serverless.A2AServerlessError is A2AServerlessError
    assert issubclass(a2a_serverless.A2AError, A2AServerlessError)
    assert not issubclass(a2a_serverless.TaskEnded, A2AServerlessError)
    assert not issubclass(a2a_serverless.InputRequired, A2AServerlessError)
