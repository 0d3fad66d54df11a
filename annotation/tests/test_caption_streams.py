"""Caption files read as streams: the same records and the same error positions as a whole-file
read, whatever the chunk boundaries. No database."""

import io
import itertools
import json
import re
import time

import pytest

from annotation.caption_streams import (
    StreamProblem,
    json_list_items,
    text_chunks,
    text_lines,
)


def pieces(text: str, size: int):
    return iter([text[i : i + size] for i in range(0, len(text), size)])


RECORDS = [
    {"_id": f"r{i}", "sentences": ["Turnout rose to 20.4% in 1990.", 'Vote "now" \\ é'], "n": i}
    for i in range(40)
]


@pytest.mark.parametrize("size", [1, 3, 7, 64, 10_000])
@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_list_is_read_element_by_element_across_any_chunk_size(size, indent):
    text = json.dumps(RECORDS + [12345, 1.5e3, None], indent=indent)
    assert list(json_list_items(pieces(text, size))) == RECORDS + [12345, 1.5e3, None]


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1},\n {"b": 2}\n {"c": 3}]',
        '[\n  {"a": 1},\n  {"b": tru},\n]',
        '[{"a": "unterminated}]',
        '[{"a": 1}] trailing',
        '[{"a": 1},',
        "[",
        "",
        '{"a": ',
    ],
)
@pytest.mark.parametrize("size", [2, 5, 10_000])
def test_broken_json_names_the_line_and_column_a_whole_file_read_gives(text, size):
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        expected = f"at line {exc.lineno}, column {exc.colno}."
    with pytest.raises(StreamProblem) as raised:
        list(json_list_items(pieces(text, size)))
    assert raised.value.field == "json"
    assert raised.value.reason.startswith("not valid JSON: ")
    assert raised.value.reason.endswith(expected)


def test_json_that_is_not_a_list_says_so():
    with pytest.raises(StreamProblem, match="CHOCOLATE JSON is a list of records"):
        list(json_list_items(pieces('{"_id": 1}', 3)))


@pytest.mark.parametrize("size", [1, 2, 5, 4096])
def test_bad_utf8_is_found_on_its_line_even_across_chunks(size):
    data = "ligne été\n".encode() * 3 + b"fin \xe9t\xc3\n"
    with pytest.raises(StreamProblem) as raised:
        "".join(text_chunks(io.BytesIO(data), size=size))
    assert raised.value.field == "encoding"
    assert raised.value.reason.startswith("not UTF-8 text: byte 0xe9 in line 4.")


def test_a_byte_order_mark_is_dropped_and_text_split_in_a_character_is_joined():
    data = "\ufeffcafé, thé".encode()
    assert "".join(text_chunks(io.BytesIO(data), size=1)) == "café, thé"


@pytest.mark.parametrize("size", [1, 2, 3, 100])
def test_lines_keep_their_endings_as_csv_expects(size):
    text = 'a,b\r\n"x\ny",2\rlast'
    assert list(text_lines(pieces(text, size))) == ["a,b\r\n", '"x\n', 'y",2\r', "last"]


def test_every_split_of_every_short_text_gives_the_lines_a_whole_read_gives():
    whole = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
    for length in range(7):
        for text in map("".join, itertools.product("a\r\n", repeat=length)):
            expected = whole.findall(text)
            for cut in range(len(text) + 1):
                assert list(text_lines(iter([text[:cut], text[cut:]]))) == expected, (text, cut)


def test_a_long_line_is_split_in_linear_time():
    # A 100 KB line took minutes (a pattern retried from every character), holding the
    # interpreter lock so that every request of the web process waited.
    line = "word " * 60_000  # 300 KB over five chunks (it took many minutes), then a line
    started = time.perf_counter()
    lines = list(text_lines(pieces(line + "\nnext", 1 << 16)))
    assert lines == [line + "\n", "next"]
    assert time.perf_counter() - started < 2.0


def test_a_number_too_long_for_python_names_where_it_is():
    # Python reads at most 4300 digits into an int; its ValueError was a 500.
    text = '[{"_id": 1},\n {"_id": ' + "1" * 5001 + "}]"
    with pytest.raises(StreamProblem) as problem:
        list(json_list_items(iter([text])))
    assert "more than 4300 digits at line 2" in str(problem.value)


def test_a_lone_surrogate_names_where_it_is():
    text = '[{"_id": 1},\n {"_id": "a\\ud800"}]'
    with pytest.raises(StreamProblem) as problem:
        list(json_list_items(iter([text])))
    assert "lone surrogate (such as \\ud800), which is not a character at line 2" in str(
        problem.value
    )
