"""Priming on Google Cloud (a2a_serverless_gcp.priming): building a function imports what its
first request would (the Runtime, the store's and the queues' client libraries) and connects to
nothing, so it stays safe before functions-framework's gunicorn forks its worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_serverless.config import Settings
from a2a_serverless.durable.deferred import CALLBACK_MODULES
from a2a_serverless_gcp.config import ConfigError, GcpConfig
from a2a_serverless_gcp.priming import modules_to_prime

pytestmark = pytest.mark.gcp

REPO = Path(__file__).resolve().parents[3]
TOPIC = "projects/p/topics/jobs"
QUEUE = "projects/p/locations/europe-west1/queues/hooks"
HEAVY = ("google.cloud.firestore", "google.cloud.pubsub_v1", "grpc")


def loaded_after_building(prime: str) -> set[str]:
    """Which of HEAVY a fresh process has loaded once the HTTP function is built."""
    code = (
        "import sys\n"
        "from a2a_serverless import agent\n"
        "from a2a_serverless_gcp import http_function\n"
        "@agent(name='a', description='d')\n"
        "def a(text: str) -> str:\n    return text\n"
        "http_function(a, configure_logging=False)\n"
        f"print(','.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("A2A_")},
        "PYTHONPATH": str(REPO),
        "A2A_STORE_URL": "firestore://p",
        "A2A_PUBSUB_TOPIC": TOPIC,
        "A2A_PRIME": prime,
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines() or [""]  # nothing loaded: an empty last line
    return set(filter(None, lines[-1].split(",")))


def test_building_a_function_imports_what_its_first_request_needs() -> None:
    assert loaded_after_building("true") == set(HEAVY)
    # Off, the first request imports them (Firestore's and Pub/Sub's libraries, gRPC).
    assert loaded_after_building("false") == set()


def test_the_modules_follow_the_store_and_the_queues() -> None:
    memory = Settings(store_url="memory://")
    assert modules_to_prime(memory, GcpConfig(pubsub_topic=TOPIC)) == [
        "a2a_serverless.runtime",
        "a2a_serverless.asgi",
        "a2a_serverless.budget",
        "a2a_serverless.store.memory",
        "google.cloud.pubsub_v1",
    ]
    firestore = Settings(store_url="firestore://p")
    tasks = GcpConfig(cloud_tasks_queue=QUEUE, cloud_tasks_url="https://worker.example")
    assert modules_to_prime(firestore, tasks) == [
        "a2a_serverless.runtime",
        "a2a_serverless.asgi",
        "a2a_serverless.budget",
        "a2a_serverless_gcp.firestore.store",
        "google.cloud.firestore",
        "google.cloud.tasks_v2",
        "google.auth",
    ]


def test_a2a_prime_is_a_boolean() -> None:
    assert GcpConfig.from_env({"A2A_PRIME": "off"}).prime is False
    assert GcpConfig.from_env({}).prime is True
    with pytest.raises(ConfigError, match="A2A_PRIME"):
        GcpConfig.from_env({"A2A_PRIME": "sometimes"})


def test_an_agent_with_remote_agents_has_its_callbacks_modules_primed() -> None:
    memory = Settings(store_url="memory://")
    topic = GcpConfig(pubsub_topic=TOPIC)
    assert modules_to_prime(memory, topic, remote_agents=True) == [
        *modules_to_prime(memory, topic),
        *CALLBACK_MODULES,
    ]
    # Built from A2A_REMOTE_AGENTS, in a fresh process: the callback's modules are loaded.
    code = (
        "import sys\n"
        "from a2a_serverless import agent\n"
        "from a2a_serverless_gcp import http_function\n"
        "@agent(name='a', description='d')\n"
        "def a(text: str) -> str:\n    return text\n"
        "http_function(a, configure_logging=False)\n"
        f"print(','.join(m for m in {CALLBACK_MODULES!r} if m in sys.modules))\n"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("A2A_")},
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'adapters' / 'gcp'}",
        "A2A_STORE_URL": "memory://",
        "A2A_PUBSUB_TOPIC": TOPIC,
        "A2A_REMOTE_AGENTS": '{"other": "https://other.example"}',
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1].split(",") == list(CALLBACK_MODULES)
