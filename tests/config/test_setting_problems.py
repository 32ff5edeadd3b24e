"""A wrong value is one line naming the setting; a name close to ours is a warning naming it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from config import Settings
from config.setting_problems import misspelt_settings, validation_problem

MISSPELT = {
    "POLICY_FLIE": "POLICY_FILE",
    "OPENAI_BASEURL": "OPENAI_BASE_URL",
    "LLM_MODLE": "LLM_MODEL",
    "DATA_DATABSE_URL": "DATA_DATABASE_URL",
    "API_KEY": "API_KEYS",
    "CHECKPOINT_DB_URL": "CHECKPOINT_DATABASE_URL",
    "log_levl": "LOG_LEVEL",
}

NOT_OURS = [
    "PATH",
    "HOME",
    "HOSTNAME",
    "LANG",
    "PWD",
    "TERM",
    "http_proxy",
    "TEST_POSTGRES_URL",
    "TEST_MYSQL_URL",
    "REQUIRE_POSTGRES",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    "POSTGRES_PASSWORD",
    "OPENAI_ORG_ID",
    "MYSQL_ROOT_PASSWORD",
    "PROMETHEUS_MULTIPROC_DIR",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "KUBERNETES_SERVICE_HOST",
]


@pytest.mark.parametrize(("name", "meant"), MISSPELT.items())
def test_a_name_close_to_a_setting_is_named_with_the_setting_it_meant(name, meant):
    warnings = misspelt_settings({name: "x"}, Settings, None)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{name} (in the environment)") and warnings[0].endswith(
        f"did you mean {meant}?"
    )


def test_other_programs_variables_are_never_named():
    assert misspelt_settings(dict.fromkeys(NOT_OURS, "x"), Settings, None) == []


def test_our_own_names_are_never_named():
    assert (
        misspelt_settings({"POLICY_FILE": "p", "port": "1", "LLM_MODEL": "m"}, Settings, None) == []
    )


def test_a_misspelt_name_in_dotenv_is_named_with_the_file(tmp_path):
    dotenv = tmp_path / ".env"
    dotenv.write_text("POLICY_FLIE=policy.yaml\nLLM_MODEL=m\n", encoding="utf-8")
    warnings = misspelt_settings({}, Settings, dotenv)
    assert warnings == [
        f"POLICY_FLIE (in the {dotenv}) is not a setting; did you mean POLICY_FILE?"
    ]


def test_an_unknown_name_of_our_family_is_named_even_without_a_close_one():
    warnings = misspelt_settings({"POLICY_ENFORCEMENT_MODE": "strict"}, Settings, None)
    assert len(warnings) == 1 and warnings[0].startswith("POLICY_ENFORCEMENT_MODE")


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"PORT": "abc"}, "PORT: "),
        ({"LLM_TIMEOUT": "-1"}, "LLM_TIMEOUT: "),
        ({"WORKERS": "many"}, "WORKERS: "),
        ({"LLM_TEMPERATURE": "9"}, "LLM_TEMPERATURE: "),
        ({"METRICS": "perhaps"}, "METRICS: "),
    ],
)
def test_a_bad_value_is_one_line_naming_the_setting(monkeypatch, env, named):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)
    line = validation_problem(raised.value, Settings)
    assert line.startswith(named) and "\n" not in line


def test_a_bad_secret_value_is_never_shown(monkeypatch):
    monkeypatch.setenv("PORT", "abc")
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None, openai_api_key=["not", "a", "string"])  # type: ignore[arg-type]
    line = validation_problem(raised.value, Settings)
    assert "PORT: " in line and "OPENAI_API_KEY: " in line and "'not'" not in line
