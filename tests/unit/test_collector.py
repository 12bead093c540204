"""The garbage collector during a handler's init (a2a_serverless.collector): off while the
handler is built, back on after, and init's objects frozen by the first handler of a process;
during an import through a package face, in a function's process: off, and what it made frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from a2a_serverless import collector
from a2a_serverless.collector import paused_during_init


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As if no handler had been built yet; the freeze undone afterwards."""
    monkeypatch.setattr(collector, "_frozen", False)
    enabled = gc.isenabled()
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
        else:
            gc.disable()


class Built:
    @paused_during_init
    def __init__(self, fail: bool = False) -> None:
        self.collector_was_on = gc.isenabled()
        self.kept = [object() for _ in range(3)]
        if fail:
            raise ValueError("init failed")


def test_init_runs_with_the_collector_off_and_it_is_back_on_after(fresh_process: None) -> None:
    gc.enable()
    built = Built()
    assert built.collector_was_on is False
    assert gc.isenabled()


def test_the_first_handler_freezes_what_init_made_and_later_ones_do_not(
    fresh_process: None,
) -> None:
    gc.enable()
    Built()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    gc.unfreeze()
    Built()
    assert gc.get_freeze_count() == 0


def test_a_collector_turned_off_before_stays_off(fresh_process: None) -> None:
    gc.disable()
    Built()
    assert not gc.isenabled()


def test_a_failing_init_still_turns_the_collector_back_on(fresh_process: None) -> None:
    gc.enable()
    with pytest.raises(ValueError, match="init failed"):
        Built(fail=True)
    assert gc.isenabled()


class Made:
    """An object of an import, tracked by the collector."""


@pytest.fixture
def in_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in collector.FUNCTION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "echo")


def test_in_a_function_an_import_runs_with_the_collector_off_and_its_objects_are_frozen(
    fresh_process: None, in_a_function: None
) -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    seen: list[bool] = []

    def load() -> Made:
        seen.append(gc.isenabled())
        return Made()

    made = collector.imported_long_lived(load)
    assert seen == [False] and gc.isenabled()
    assert gc.get_freeze_count() > frozen
    assert not any(item is made for generation in range(3) for item in gc.get_objects(generation))


def test_an_import_that_fails_still_turns_the_collector_back_on(
    fresh_process: None, in_a_function: None
) -> None:
    gc.enable()

    def load() -> None:
        raise ImportError("no module")

    with pytest.raises(ImportError):
        collector.imported_long_lived(load)
    assert gc.isenabled()


def test_outside_a_function_an_import_is_a_plain_one(
    fresh_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in collector.FUNCTION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    gc.enable()
    frozen = gc.get_freeze_count()
    seen: list[bool] = []
    collector.imported_long_lived(lambda: seen.append(gc.isenabled()))
    assert seen == [True] and gc.get_freeze_count() == frozen


def test_once_a_handler_froze_the_process_an_import_is_a_plain_one(
    fresh_process: None, in_a_function: None
) -> None:
    gc.enable()
    Built()  # the first handler freezes the process
    frozen = gc.get_freeze_count()
    seen: list[bool] = []
    collector.imported_long_lived(lambda: seen.append(gc.isenabled()))
    assert seen == [True] and gc.get_freeze_count() == frozen


def test_a_collector_turned_off_stays_off_through_an_import(
    fresh_process: None, in_a_function: None
) -> None:
    gc.disable()
    collector.imported_long_lived(Made)
    assert not gc.isenabled()
