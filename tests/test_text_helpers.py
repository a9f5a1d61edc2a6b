"""The base helpers every layer shares: `clip` and the `${VAR}` rule."""

from __future__ import annotations

from zen.base import env_vars
from zen.base.text import clip


def test_clip_keeps_short_text_and_cuts_long_text_to_the_limit() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab…"
    assert len(clip("x" * 500, 80)) == 80
    assert clip("", 5) == ""


ENV = {"HOME": "/home/u", "EMPTY": "", "KEY": "sk-1"}


def test_variables_expand_in_both_spellings() -> None:
    assert env_vars.expand("$HOME/x ${HOME}/y", ENV) == ("/home/u/x /home/u/y", [])
    assert env_vars.expand("Bearer ${KEY}", ENV) == ("Bearer sk-1", [])


def test_default_applies_when_unset_or_empty() -> None:
    assert env_vars.expand("${NOPE:-d1} ${EMPTY:-d2} ${KEY:-d3}", ENV) == ("d1 d2 sk-1", [])
    assert env_vars.expand("${EMPTY}", ENV) == ("", [])  # set but empty: no default asked


def test_double_dollar_is_a_literal_dollar() -> None:
    assert env_vars.expand("cost $$5 and $$HOME", ENV) == ("cost $5 and $HOME", [])


def test_unset_variables_stay_as_written_and_are_named() -> None:
    text, missing = env_vars.expand("a $NOPE b ${ALSO} c", ENV)
    assert text == "a $NOPE b ${ALSO} c"
    assert missing == ["NOPE", "ALSO"]


def test_names_are_ascii_and_a_lone_dollar_stays() -> None:
    assert env_vars.expand("$1 $ $-x ${bad-name}", ENV) == ("$1 $ $-x ${bad-name}", [])
    assert env_vars.expand("$HOMEé", ENV) == ("/home/ué", [])


def test_names_and_references() -> None:
    assert env_vars.names("$A ${B} ${C:-x} $$D") == {"A", "B", "C"}
    assert env_vars.is_reference("${KEY}")
    assert not env_vars.is_reference("sk-literal")
    assert not env_vars.is_reference("$$")
    assert not env_vars.is_reference("${KEY} extra")
