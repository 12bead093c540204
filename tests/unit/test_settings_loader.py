"""The one settings loader (`a2a_serverless.config.fields_from_env`): each field's variable is
parsed by the field's declared type, as `Settings`, the `A2A_AUTH_*` settings and the adapters'
settings read theirs."""

from dataclasses import dataclass
from typing import Annotated

import msgspec
import pytest

from a2a_serverless.auth.config import FIELDS
from a2a_serverless.config import ConfigurationError, Settings, fields_from_env


@dataclass(frozen=True)
class Sample:
    text: str = "x"
    maybe: str | None = None
    flag: bool = False
    count: int = 1
    at_least_two: Annotated[int, msgspec.Meta(ge=2)] = 2
    seconds: float | None = None
    names: tuple[str, ...] = ()


def test_each_variable_is_parsed_by_its_field_type() -> None:
    env = {
        "A2A_TEXT": " a ",
        "A2A_MAYBE": "",
        "A2A_FLAG": "on",
        "A2A_COUNT": "7",
        "A2A_AT_LEAST_TWO": "3",
        "A2A_SECONDS": "2.5",
        "A2A_NAMES": "a, b,,c",
    }
    assert fields_from_env(Sample, env) == {
        "text": " a ",
        "maybe": None,
        "flag": True,
        "count": 7,
        "at_least_two": 3,
        "seconds": 2.5,
        "names": ("a", "b", "c"),
    }
    assert fields_from_env(Sample, env, blank_is_default=True, only=("text", "maybe")) == {
        "text": "a"
    }
    assert fields_from_env(Sample, env, skip=("text", "maybe", "names")).keys() == {
        "flag",
        "count",
        "at_least_two",
        "seconds",
    }


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"A2A_FLAG": "maybe"}, r"^A2A_FLAG='maybe' is not a boolean \(true or false\)$"),
        ({"A2A_COUNT": "many"}, r"^A2A_COUNT='many' is not a number$"),
        ({"A2A_SECONDS": "soon"}, r"^A2A_SECONDS='soon' is not a number$"),
        ({"A2A_AT_LEAST_TWO": "1"}, r"^A2A_AT_LEAST_TWO must be at least 2, got 1$"),
    ],
)
def test_a_bad_value_names_its_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        fields_from_env(Sample, env)


def test_a_postponed_annotation_is_refused_with_a_reason() -> None:
    @dataclass
    class Postponed:
        value: "int" = 0

    with pytest.raises(TypeError, match="from __future__ import annotations"):
        fields_from_env(Postponed, {"A2A_VALUE": "1"})


def test_the_auth_fields_are_declared_once_on_settings() -> None:
    declared = tuple(name for name in Settings.__dataclass_fields__ if name.startswith("auth_"))
    assert declared == FIELDS
    assert len(declared) == 15
