from decimal import Decimal

from react_agent.results.exports import csv_cell, csv_lines


def test_text_that_starts_like_a_formula_is_shown_not_run():
    assert csv_cell('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert csv_cell("+1") == "'+1"
    assert csv_cell("-2") == "'-2"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("华东") == "华东"


def test_numbers_and_nulls_keep_their_values():
    assert csv_cell(-5) == "-5"
    assert csv_cell(Decimal("-19.90")) == "-19.90"
    assert csv_cell(None) == ""
    assert csv_lines([["a,b", 1]]) == '"a,b",1\r\n'
