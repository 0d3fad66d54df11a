import re

import pytest

from studies import answer_types, answers
from studies.answer_types import check_answer, normalize_answer, normalize_key, ranking
from studies.answers import AnswerFormatError, KeyFormatError, normalize_line_breaks
from studies.answers.choices import (
    check_multiple_choice,
    parse_options,
    question_stem,
    resolve_choice_key,
)
from studies.answers.quantities import check_free_text, parse_key, parse_number
from studies.answers.rankings import check_ranking, parse_ranking

# The registered answer types' keys (studies.answer_types).
MULTIPLE_CHOICE, FREE_TEXT, RANKING = "multiple_choice", "free_text", "ranking"

TREND = (
    "The following graph shows military spending. What is the trend of military spending "
    "from 2000 to 2012? 1. It has increased. 2. It has decreased. 3. It stayed the same."
)
TREND_OPTIONS = ["It has increased.", "It has decreased.", "It stayed the same."]

# ----------------------------------------------------------------- parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("3.5", 3.5),
        (" .5 ", 0.5),
        ("1,234,567", 1_234_567),
        ("1,234.5", 1234.5),
        ("-12", -12),
        ("+7", 7),
        ("\u22127", -7),
        ("$1,200", 1200),
        ("-$4.50", -4.5),
        ("\u20ac3", 3),
        ("45%", 45),
        ("45 percent", 45),
        ("1.2 million", 1_200_000),
        ("1.2 Million bags", 1_200_000),
        ("3 billion", 3_000_000_000),
        ("2.5k", 2500),
        ("4 thousand", 4000),
        ("$1.2m", 1_200_000),
        ("about 45 people", 45),
        ("12 kg", 12),
        ("12kg", 12),
        ("1.1 yards", 1.1),
        ("3,5", 3.5),
        ("1.2e6", 1_200_000),
        ("\uff11\uff12", 12),
        ("five", 5),
        ("twenty-five million", 25_000_000),
        ("It is 45.", 45),
        ("1.2 million (1,200,000)", 1_200_000),
    ],
)
def test_it_reads_numbers_as_people_write_them(text, value):
    assert parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "a lot", "more than last year", "1.234.567", "1.234,5", "G7", None, True],
)
def test_it_asks_for_a_number_when_there_is_none(text):
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text)
    assert error.value.message == "Please enter a number, like 42 or 3.5."


@pytest.mark.parametrize(
    "text", ["--5", "+-5", " - -5", "-$-5", "+$-5", "- 5", "- $5", "about --5"]
)
def test_a_number_with_two_signs_or_a_minus_apart_is_refused_not_guessed(text):
    # "--5" was stored as -5, "+$-5" as 5 and "- 5" as 5.
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text)
    assert error.value.message == "Please write the sign right before the number, like -5."


@pytest.mark.parametrize(
    ("text", "value"), [("-5", -5), ("$-5", -5), ("-$5", -5), ("+5", 5), ("+ 5", 5), ("−5", -5)]
)
def test_one_sign_next_to_its_number_is_read(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text", ["40-50", "45 in 2019", "between 3 and 4", "2019/2020", "5--6", "5 -- 6", "1 - -2"]
)
def test_it_refuses_text_with_several_different_numbers(text):
    with pytest.raises(AnswerFormatError, match="just one number"):
        parse_number(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [("0x10", "0x10"), ("0X1F", "0X1F"), ("-0x10", "-0x10"), ("0b101", "0b101"),
     ("0o17", "0o17"), ("about 12_000 people", "12_000")],
)  # fmt: skip
def test_it_refuses_numbers_in_other_notations_and_says_to_type_digits(text, found):
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text)
    assert error.value.message == (
        f"Please type the number with the digits 0 to 9, like 42 or 3.5 (we found {found})."
    )


@pytest.mark.parametrize("text", ["½", "3½", "1/2", "3 1/2", "3/4", "1⁄2"])
def test_it_asks_for_a_fraction_as_a_decimal(text):
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text)
    assert error.value.message == "Please type a fraction as a decimal number, like 0.5 for ½."
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text, "de")
    assert "0,5" in error.value.message


@pytest.mark.parametrize("text", ["1e-400", "1e400", "-1e-320", "1e301", 1e-320, 1e301])
def test_it_refuses_numbers_too_large_or_too_small_for_a_float(text):
    with pytest.raises(AnswerFormatError) as error:
        parse_number(text)
    assert error.value.message.startswith("That number is too large or too small to use.")


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "Infinity", "NaN", float("inf")])
def test_infinity_and_nan_are_no_numbers(text):
    with pytest.raises(AnswerFormatError, match="Please enter a number"):
        parse_number(text)


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("-0.5", -0.5), ("+3", 3), ("0.0001", 0.0001), ("1e-6", 1e-6)]
)
def test_small_and_signed_numbers_still_read(text, value):
    assert parse_number(text) == value


def test_it_takes_numbers_that_are_already_numbers():
    assert parse_number(3) == 3.0
    assert parse_number(2.5) == 2.5


def test_a_key_that_is_not_a_number_is_a_key_error():
    assert parse_key("1.2 million bags") == 1_200_000
    with pytest.raises(KeyFormatError, match="not a single number"):
        parse_key("more")


# -------------------------------------------------------------- free text check


@pytest.mark.parametrize("key", [1.2, 250, 1_000_000, 0.003, 37])
def test_the_tolerance_edges_are_correct_and_just_outside_is_not(key):
    assert check_free_text(0.9 * key, key)
    assert check_free_text(1.1 * key, key)
    assert check_free_text(key, key)
    assert not check_free_text(0.8999 * key, key)
    assert not check_free_text(1.1001 * key, key)


def test_edges_written_as_text_are_correct():
    assert check_free_text("1.08", "1.2")
    assert check_free_text("1.32", "1.2")
    assert not check_free_text("1.0799", "1.2")
    assert not check_free_text("1.3201", "1.2")


def test_a_negative_key_has_an_ordered_interval():
    assert check_free_text(-11, -10)
    assert check_free_text(-9, -10)
    assert check_free_text("-10.5", "-10")
    assert not check_free_text(-11.01, -10)
    assert not check_free_text(-8.99, -10)
    assert not check_free_text(10, -10)


def test_a_zero_key_accepts_only_zero():
    assert check_free_text(0, 0)
    assert check_free_text("0", "0")
    assert check_free_text("-0", 0)
    assert not check_free_text(0.001, 0)
    assert not check_free_text(-0.001, 0)


def test_the_tolerance_can_be_changed():
    assert check_free_text(1.2, 1, tolerance=0.2)
    assert not check_free_text(1.2, 1, tolerance=0.1)
    assert check_free_text(1, 1, tolerance=0)
    assert not check_free_text(1.001, 1, tolerance=0)
    with pytest.raises(ValueError):
        check_free_text(1, 1, tolerance=-0.1)


def test_thousands_separators_in_answers_and_keys():
    assert check_free_text("1,200,000", "1200000")
    assert check_free_text("1,100,000", "1.2 million")
    assert not check_free_text("1,000,000", "1.2 million")


def test_scale_words_on_one_side_also_compare_the_mantissa():
    assert check_free_text("1.2 million", "1.2 million")
    assert check_free_text("1.2 million", "1.2")
    assert check_free_text("1.2 million bags", 1.2)
    assert check_free_text("1.2", "1.2 million")
    assert check_free_text("1,200,000", "1.2 million")
    assert check_free_text("1.2 million", 1_200_000)
    # Written out in full against a plain key, the number is simply different.
    assert not check_free_text("1,200,000", "1.2")
    # Scale words on both sides compare by value.
    assert not check_free_text("1.2 thousand", "1.2 million")


def test_percentages_compare_as_written():
    assert check_free_text("45%", "45")
    assert check_free_text("45", "45%")
    assert check_free_text("48%", "45%")
    assert not check_free_text("0.45", "45%")


def test_an_unreadable_answer_or_key_raises_the_matching_error():
    with pytest.raises(AnswerFormatError):
        check_free_text("lots", "1.2")
    with pytest.raises(KeyFormatError):
        check_free_text("1.2", "lots")


# ------------------------------------------------------------- multiple choice


def test_it_reads_options_written_on_one_line():
    assert parse_options(TREND) == TREND_OPTIONS
    assert question_stem(TREND) == (
        "The following graph shows military spending. What is the trend of military "
        "spending from 2000 to 2012?"
    )


def test_numbers_inside_options_do_not_start_new_options():
    text = (
        "The following graph shows the profit of company X in millions. Which year was "
        "company X most profitable? 1. 2018 2. 2022 3. 2018 and 2022 were the same."
    )
    assert parse_options(text) == ["2018", "2022", "2018 and 2022 were the same."]


@pytest.mark.parametrize(
    "text",
    [
        "Which country had more tanks?\n1. Tomainia\n2. Bacteria",
        "Which country had more tanks?/n1. Tomainia/n2. Bacteria",
        "Which country had more tanks?\r\n1) Tomainia\r\n2) Bacteria\r\n",
        "Which country had more tanks? (1) Tomainia (2) Bacteria",
    ],
)
def test_it_reads_options_on_separate_lines_and_in_other_styles(text):
    assert parse_options(text) == ["Tomainia", "Bacteria"]
    assert question_stem(text) == "Which country had more tanks?"


def test_a_stray_number_in_the_stem_is_not_an_option():
    text = "Version 1. The chart shows sales. Did they rise? 1. Yes 2. No"
    assert parse_options(text) == ["Yes", "No"]
    assert question_stem(text) == "Version 1. The chart shows sales. Did they rise?"


def test_a_question_without_options_has_none():
    text = "Sort companies from largest (1) to smallest (5)."
    assert parse_options(text) == []
    assert question_stem(text) == text


def test_literal_line_breaks_are_not_read_inside_words():
    assert normalize_line_breaks("Yes/no and/nor?/nNext") == "Yes/no and/nor?\nNext"


@pytest.mark.parametrize(
    "key",
    [
        "2",
        "2.",
        "(2)",
        "2)",
        "It has decreased.",
        "it has decreased",
        "  IT HAS  DECREASED ",
        "2. It has decreased.",
    ],
)
def test_a_key_may_be_the_option_number_or_its_text(key):
    assert resolve_choice_key(key, TREND_OPTIONS) == 1


def test_a_key_may_be_an_option_whose_text_is_a_number():
    assert resolve_choice_key("2022", ["2018", "2022", "Same"]) == 1


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("4", "neither an option number (1-3)"),
        ("0", "neither an option number"),
        ("It went up", "nor the text of an option"),
        ("1. It has decreased.", "neither an option number"),
        ("", "neither an option number"),
    ],
)
def test_a_key_that_is_not_among_the_options_is_refused(key, message):
    with pytest.raises(KeyFormatError, match=re.escape(message)):
        resolve_choice_key(key, TREND_OPTIONS)


def test_a_key_that_reads_as_two_options_is_refused_as_ambiguous():
    with pytest.raises(KeyFormatError, match="both an option number and another option's text"):
        resolve_choice_key("2", ["2", "3"])
    assert resolve_choice_key("2. 3", ["2", "3"]) == 1


def test_a_key_needs_options():
    with pytest.raises(KeyFormatError, match="no numbered options"):
        resolve_choice_key("1", [])


def test_a_choice_may_be_an_index_or_the_option_text():
    assert check_multiple_choice(1, 1, TREND_OPTIONS)
    assert not check_multiple_choice(0, 1, TREND_OPTIONS)
    assert check_multiple_choice("It has decreased", 1, TREND_OPTIONS)
    assert check_multiple_choice("2", 1, TREND_OPTIONS)
    assert not check_multiple_choice("It has increased.", 1, TREND_OPTIONS)


@pytest.mark.parametrize("answer", [3, -1, "maybe", True, None])
def test_a_choice_outside_the_options_asks_to_choose_again(answer):
    with pytest.raises(AnswerFormatError, match="choose one of the options"):
        check_multiple_choice(answer, 1, TREND_OPTIONS)


# ---------------------------------------------------------------------- ranking


@pytest.mark.parametrize(
    "text",
    [
        "KFC, Subway, Wendy's",
        "KFC > Subway > Wendy's",
        "KFC>Subway>Wendy's",
        "KFC -> Subway -> Wendy's",
        "1. KFC\n2. Subway\n3. Wendy's",
        "KFC/nSubway/nWendy\u2019s",
        "KFC,\nSubway,\nWendy's\n",
    ],
)
def test_rankings_may_be_separated_by_commas_arrows_or_lines(text):
    assert parse_ranking(text) == ["KFC", "Subway", "Wendy's"]


def test_an_item_may_contain_a_comma_when_another_separator_is_used():
    assert parse_ranking("Apple, Inc. > Pepsi") == ["Apple, Inc.", "Pepsi"]


def test_a_ranking_is_correct_only_with_every_item_in_place():
    key = "A > B > C > D"
    assert check_ranking("a, b, c, d", key)
    assert check_ranking(["A ", " b", "C.", "d"], key)
    assert not check_ranking("A, B, D, C", key)
    assert not check_ranking("A, B, C", key)
    assert not check_ranking("A, B, C, D, E", key)


def test_an_empty_ranking_asks_for_the_items():
    with pytest.raises(AnswerFormatError, match="list the items in order"):
        parse_ranking(" , ")
    with pytest.raises(KeyFormatError):
        check_ranking("A, B", "")


# ------------------------------------------------------------------ dispatching


def test_check_answer_dispatches_on_the_answer_type():
    assert check_answer(FREE_TEXT, "about 1.25 million", "1.2 million")
    assert not check_answer(FREE_TEXT, "2 million", "1.2 million")
    assert check_answer(MULTIPLE_CHOICE, "2", "It has decreased.", options=TREND_OPTIONS)
    assert check_answer(MULTIPLE_CHOICE, 1, 1, options=TREND_OPTIONS)
    assert not check_answer(MULTIPLE_CHOICE, 0, "2", options=TREND_OPTIONS)
    assert check_answer(RANKING, "B > A", "b, a")
    assert check_answer(FREE_TEXT, "1.3", "1.2", tolerance=0.1)
    assert not check_answer(FREE_TEXT, "1.3", "1.2", tolerance=0.05)


def test_check_answer_refuses_unknown_types_and_missing_options():
    with pytest.raises(ValueError, match="Unknown answer type"):
        check_answer("essay", "x", "y")
    with pytest.raises(ValueError, match="needs its options"):
        check_answer(MULTIPLE_CHOICE, "1", "1")


def test_answers_are_normalised_for_storage():
    assert normalize_answer(FREE_TEXT, "1,234 people") == 1234.0
    assert normalize_answer(MULTIPLE_CHOICE, "It stayed the same", options=TREND_OPTIONS) == 2
    assert normalize_answer(RANKING, "a > b") == ["a", "b"]
    with pytest.raises(AnswerFormatError):
        normalize_answer(FREE_TEXT, "no idea")


def test_keys_are_normalised_for_their_type():
    assert normalize_key(FREE_TEXT, "1.2 million") == 1_200_000.0
    assert normalize_key(MULTIPLE_CHOICE, "3", options=TREND_OPTIONS) == 2
    assert normalize_key(MULTIPLE_CHOICE, 0, options=TREND_OPTIONS) == 0
    assert normalize_key(RANKING, "A, B") == ["A", "B"]
    with pytest.raises(KeyFormatError, match="one item"):
        normalize_key(RANKING, "A")
    with pytest.raises(KeyFormatError):
        normalize_key(MULTIPLE_CHOICE, 5, options=TREND_OPTIONS)


def test_a_ranking_names_every_option_once_as_the_check_compares_items():
    options = ["Apples", "Pears", "Plums"]
    assert ranking.is_permutation(["plums.", " PEARS ", "Apples"], options)
    # Full-width letters fold as they do when the ranking is checked.
    assert ranking.is_permutation(["Ａｐｐｌｅｓ", "Pears", "Plums"], options)
    assert not ranking.is_permutation(["Apples", "Apples", "Plums"], options)
    assert not ranking.is_permutation(["Apples", "Pears"], options)


def test_places_give_the_options_in_order_or_say_what_is_missing():
    options = ["A", "B", "C"]
    assert ranking.ranking_from_places([3, 1, 2], options) == ["B", "C", "A"]
    with pytest.raises(answers.AnswerFormatError, match=r"from 1 to 3 \(1 still to place\)"):
        ranking.ranking_from_places([1, None, 2], options)
    with pytest.raises(answers.AnswerFormatError, match=r"its own rank, from 1 to 3\.$"):
        ranking.ranking_from_places([1, 1, 3], options)
    with pytest.raises(answers.AnswerFormatError):
        ranking.ranking_from_places([1, 2, 4], options)


def test_a_question_is_checked_against_its_stored_or_numbered_options_and_resolved_key():
    class Q:
        answer_type = "multiple_choice"
        text = "Which? 1. Up 2. Down"
        options = []
        answer_key = "Down"
        key_value = 1

    assert answer_types.question_key(Q) == (["Up", "Down"], 1)
    unresolved = type("U", (Q,), {"key_value": None, "options": ["Up", "Down", "Flat"]})
    assert answer_types.question_key(unresolved) == (["Up", "Down", "Flat"], "Down")
    ranking = type(
        "R", (Q,), {"answer_type": "ranking", "options": ["B", "A"], "answer_key": "A > B"}
    )
    assert answer_types.question_key(ranking) == (["B", "A"], "A > B")
