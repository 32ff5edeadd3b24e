"""A key list that would make an empty or odd key stops the start; it never fails open."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from app import create_app
from app.http.auth import parse_api_keys
from react_agent.errors import ConfigurationError

ODD_LISTS = {
    "=alice,bob": "no key before '='",  # the key forgotten: the service would stay open
    "k1,k2": "comma",  # one key named `k1,k2`
    "k1, k2": "comma",
    "good-key; =alice": "no key before '='",
    "k1 k2": "space",
    "k1\tk2=alice": "space",
    "k=alice,,bob": "empty or spaced user name",
    "k=alice,bob smith": "empty or spaced user name",
    "k=": None,  # a key for no user's data: allowed
}


@pytest.mark.parametrize(("text", "problem"), ODD_LISTS.items())
def test_an_odd_key_list_is_refused_naming_the_entry_never_the_key(text, problem):
    if problem is None:
        assert [key.users for key in parse_api_keys(text)] == [frozenset()]
        return
    with pytest.raises(ValueError, match=problem) as raised:
        parse_api_keys(text)
    assert "entry" in str(raised.value)
    for secret in ("k1", "k2", "good-key"):
        assert secret not in str(raised.value).replace("k1; k2", "")


def test_the_file_problem_names_the_file_and_its_line(settings, tmp_path):
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("# keys\nfirst-key\nsecond-key,third-key\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        create_app(settings.model_copy(update={"api_keys_file": keys_file}))
    assert raised.value.setting == "API_KEYS_FILE" and raised.value.can_retry is False
    assert f"API_KEYS_FILE {keys_file}: line 3, entry 1: a key holds a comma" in raised.value.detail
    assert "second-key" not in raised.value.detail


@pytest.mark.parametrize("text", ["=alice,bob", "k1,k2", "ok; k 2"])
def test_the_app_does_not_open_on_an_odd_api_keys_setting(settings, text):
    with pytest.raises(ConfigurationError) as raised:
        create_app(settings.model_copy(update={"api_keys": SecretStr(text)}))
    assert raised.value.detail.startswith("API_KEYS line 1, entry ")


def test_a_good_list_still_parses_as_documented():
    keys = parse_api_keys("k1; k2=alice, bob ;\n# a comment\nk3=\nk4 ; # trailing\n")
    assert [(k.secret, k.users) for k in keys] == [
        (b"k1", None),
        (b"k2", frozenset({"alice", "bob"})),
        (b"k3", frozenset()),
        (b"k4", None),
    ]
