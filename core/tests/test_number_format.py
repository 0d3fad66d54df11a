"""One number format for every page: the num filter."""

import pytest

from core.templatetags.numbers import format_number


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        (0.7935, "", "0.79"),
        (0.04321, "", "0.043"),
        (0.0, "", "0.00"),
        (1.0, "int", "1"),
        (12, "", "12"),
        (0.0, "p", "< 0.001"),
        (0.00049, "p", "< 0.001"),
        (0.0456, "p", "0.046"),
        (0.0, "p=", "p < 0.001"),
        (0.0456, "p=", "p = 0.046"),
        (None, "p=", "p = —"),
        (True, "flag", "yes"),
        (None, "", "—"),
        (float("nan"), "", "—"),
        ("bar", "", "bar"),
    ],
)
def test_it_formats_numbers_the_same_everywhere(value, kind, text):
    assert format_number(value, kind) == text
