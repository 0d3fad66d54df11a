"""Numbers read the way the session's language writes them (studies.answers.quantities)."""

import pytest
from django.utils import translation

from studies.answers import AnswerFormatError
from studies.answers.quantities import check_free_text, numbers_written_in, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3,5", 3.5),
        ("1.000", 1000),
        ("1.234.567", 1_234_567),
        ("1.234,5", 1234.5),
        ("0,125", 0.125),
        ("3.5", 3.5),
        ("1234,5", 1234.5),
        (",5", 0.5),
        ("3,5 Millionen", 3_500_000),
        ("1,2 Mio.", 1_200_000),
        ("2 Mrd.", 2_000_000_000),
        ("4 Tausend", 4000),
        ("12,5 %", 12.5),
        ("ca. 45 Personen", 45),
        ("-2,5", -2.5),
    ],
)
def test_german_reads_a_decimal_comma_and_a_thousands_point(text, value):
    assert parse_number(text, "de") == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3,5", 3.5),
        ("1.000", 1000),
        ("2,5 millones", 2_500_000),
        ("3 mil", 3000),
        ("3 mil millones", 3_000_000_000),
        ("1.234,5", 1234.5),
    ],
)
def test_spanish_reads_numbers_as_spanish_writes_them(text, value):
    assert parse_number(text, "es") == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1,000", 1000), ("3.5", 3.5), ("1,234.5", 1234.5), ("1.2 million", 1_200_000)],
)
def test_english_reads_a_thousands_comma_and_a_decimal_point(text, value):
    assert parse_number(text, "en") == pytest.approx(value)


@pytest.mark.parametrize("language", ["de", "es"])
def test_a_comma_before_three_digits_is_ambiguous_and_the_participant_is_asked(language):
    with pytest.raises(AnswerFormatError) as error:
        parse_number("1,500", language)
    assert error.value.message == (
        "“1,500” could be read two ways. Please write 1500 if you mean 1500, "
        "or 1,5 if you mean a number with decimals."
    )


def test_the_ambiguity_message_offers_a_decimal_that_cannot_be_misread():
    with pytest.raises(AnswerFormatError, match="or 2,1250 if"):
        parse_number("2,125", "de")


@pytest.mark.parametrize("text", ["1,234,567", "1,234.5"])
def test_english_grouping_in_a_german_session_asks_for_the_german_way(text):
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text, "de")
    assert "a comma before the decimals, like 1.234,5" in error.value.message


def test_the_session_language_applies_inside_the_block_only():
    with numbers_written_in("de"):
        assert parse_number("1.000") == 1000
    assert parse_number("1.000") == 1.0


def test_keys_are_read_in_english_whatever_the_session():
    # The researcher wrote the key "1.5"; a German participant typed one and a half.
    with numbers_written_in("de"):
        assert check_free_text("1,5", "1.5")
        assert not check_free_text("1.500", "1.5")
        assert check_free_text("1.500", "1,500")


@pytest.mark.parametrize(
    ("language", "found"), [("de", "3,5; 4"), ("es", "3,5; 4"), ("en", "3, 4")]
)
def test_numbers_found_are_listed_so_a_decimal_comma_cannot_be_misread(language, found):
    # "3,5, 4" read as three numbers where a comma marks decimals.
    text = "3,5 und 4" if language != "en" else "3 and 4"
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text, language)
    assert f"(we found {found})" in error.value.message


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "Bitte schreiben Sie das Vorzeichen direkt vor die Zahl, z. B. -5."),
        ("es", "Por favor, escriba el signo justo delante del número, por ejemplo -5."),
    ],
)
def test_a_sign_apart_from_its_number_is_asked_for_in_the_sessions_language(language, said):
    with translation.override(language), pytest.raises(AnswerFormatError) as error:
        parse_number("- 5", language)
    assert str(error.value.message) == said
