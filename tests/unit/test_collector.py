"""The garbage collector during a handler's init (a2a_serverless.collector): off while the
handler is built, back on after, and init's objects frozen by the first handler of a process."""

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
