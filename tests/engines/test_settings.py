"""The engines' settings are declared once (engines.settings): the command line's options, each
engine's keywords and defaults, the service's fields and the table in docs/commands.md must say
what the declaration says, so a setting added or changed in one place alone fails here."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from pegsearch.cli.main import build_parser
from pegsearch.engines import ENGINES, engine_class, make_engine
from pegsearch.engines.settings import SETTINGS, numbers, served, settings_table, taken_by
from pegsearch.errors import InputError, PegsearchError
from pegsearch.service.app import SearchRequest
from pegsearch.service.refusals import SERVICE_SETTINGS

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_table_is_the_declarations() -> None:
    assert settings_table(list(ENGINES)) in (ROOT / "docs" / "commands.md").read_text()


@pytest.mark.parametrize("command", ["run", "survey"])
def test_the_command_line_takes_every_setting_declared(command: str) -> None:
    parser = build_parser()
    sub = next(action for action in parser._subparsers._group_actions
               if hasattr(action, "choices")).choices[command]
    options = {action.dest: action for action in sub._actions}
    for setting in SETTINGS:
        assert setting.name in options, f"{command} lacks {setting.flag}"
        assert {setting.flag, *setting.aliases} <= set(options[setting.name].option_strings)
        assert options[setting.name].default is None  # an engine's default, not the parser's


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_each_engine_takes_what_is_declared_for_it_with_its_defaults(name: str) -> None:
    try:
        chosen = engine_class(name)
    except PegsearchError as missing:  # the gpu engine without numba-cuda
        pytest.skip(str(missing))
    keywords = set(inspect.signature(chosen.__init__).parameters) - {"self"}
    assert set(taken_by(name)) <= keywords
    try:
        engine = chosen()
    except PegsearchError as missing:
        pytest.skip(str(missing))
    for setting in SETTINGS:
        if name in setting.engines and setting.default is not None:
            assert getattr(engine, setting.name) == setting.default, setting.name


def test_a_setting_an_engine_does_not_take_is_refused() -> None:
    with pytest.raises(InputError, match="does not apply to the local engine"):
        make_engine("local", runner="inline")


def test_the_service_takes_the_served_settings_and_never_a_path_on_the_server() -> None:
    assert set(SERVICE_SETTINGS) == set(served()) == {s.name for s in SETTINGS} - {"mrjob_conf"}


def test_the_api_description_says_which_settings_are_numbers() -> None:
    """The dashboard sends a setting as a number where the description says `integer` (it sent
    only batch_size so, by a hand list, and driver_below went as text the server refuses)."""
    described = SearchRequest.model_json_schema()["properties"]["settings"]
    assert set(described["properties"]) == set(served()) and not described["additionalProperties"]
    integers = {name for name, field in described["properties"].items()
                if field.get("type") == "integer"}
    assert integers == set(numbers()) & set(served()) == {"driver_below", "batch_size"}
