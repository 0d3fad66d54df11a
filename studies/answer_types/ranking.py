"""Ranking: correct only when every item is in its keyed place.

The form starts unranked (participant.js); a ranking must be the participant's
own, so the JSON flow has to report the interactions that made it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from studies import answers
from studies.answers import rankings

from .base import BaseAnswerType, FormAnswerError, distinct_options

RANK_HELP = _("Please give every item its own rank, from 1 to {n}.")


def is_permutation(items: Sequence[str], options: Sequence[str]) -> bool:
    """Whether ``items`` name every option exactly once, in any order.

    Items compare as :func:`studies.answers.rankings.check_ranking` compares them (case,
    spacing and a final period don't count).
    """
    return sorted(map(answers.norm_item, items)) == sorted(map(answers.norm_item, options))


def ranking_from_places(places: Sequence[int | None], options: Sequence[str]) -> list[str]:
    """The options in the order of their places (``places[i]`` is option i's, from 1).

    Raises :class:`AnswerFormatError` unless the places are 1 to n, each given once
    (``None`` is an item still to place). The participant's form and the
    researcher's preview both read a ranking this way.
    """
    n = len(options)
    if len(places) != n or sorted(p for p in places if p) != list(range(1, n + 1)):
        missing = sum(1 for p in places if not p) + max(n - len(places), 0)
        if missing:
            message = ngettext(
                "Please place every item: give each its own rank, from 1 to %(n)d "
                "(%(missing)d still to place).",
                "Please place every item: give each its own rank, from 1 to %(n)d "
                "(%(missing)d still to place).",
                missing,
            ) % {"n": n, "missing": missing}
        else:
            message = gettext(
                "Please place every item: give each its own rank, from 1 to %(n)d."
            ) % {"n": n}
        raise answers.AnswerFormatError(message)
    return [options[i] for i in sorted(range(n), key=lambda i: places[i])]


def _places(post: Mapping[str, str], n: int, field: str) -> list[int | None]:
    """Each item's place as posted in ``<field>_<i>`` / ``<field>-<i>`` (None when not given)."""
    raw = [str(post.get(field.format(i=i), "")) for i in range(n)]
    return [int(v) if v.isdigit() else None for v in raw]


class Ranking(BaseAnswerType):
    key = "ranking"
    label = "Ranking"
    written_names = ("rank", "ranking")
    has_options = True
    options_label = "Items"
    orders_items = True
    needs_interaction = True
    no_interaction_message = _(
        "Please put the items in order yourself: place every item, then continue."
    )
    no_interaction_detail = "A ranking needs at least one reported interaction (interactions >= 1)."
    empty_message = _("Please put the items in order before continuing.")
    key_help = "Ranking: the items in order, separated by > or commas."
    prompt_hint = "Reply with only the items in order, separated by commas."
    api_answer = "Ranking: the item texts in order."

    # ------------------------------------------------------------ keys

    def normalize_key(self, key, *, options=None):
        try:
            items = rankings.parse_ranking(key)
        except answers.AnswerFormatError:
            raise answers.KeyFormatError(
                "The ranking key lists no items (write e.g. A > B > C)."
            ) from None
        if len(items) < 2:
            raise answers.KeyFormatError(
                f"The ranking key {key!r} has one item; separate items with commas or >."
            )
        return items

    def question_fields(self, text, key_value, options):
        if len({i.casefold() for i in key_value}) != len(key_value):
            raise answers.KeyFormatError("The ranking key names an item twice.")
        return {"stem": text, "options": self.imported_options(options, key_value)}

    def same_key(self, a, b):
        return [i.casefold() for i in a] == [i.casefold() for i in b]

    def imported_options(self, options, key_value):
        # Shown to participants in a neutral order, never the keyed one.
        return sorted(key_value, key=str.casefold)

    def clean_check_options(self, items):
        return distinct_options(items)

    def check_key_matches_options(self, key_value, options):
        if not is_permutation(key_value, options):
            return "The key must list every option exactly once."
        return ""

    def item_order(self, rng, options, key):
        """A shuffled first order of the items that is never the keyed order itself."""
        n = len(options)
        order = rng.sample(range(n), n)
        try:
            wanted = [answers.norm_item(i) for i in rankings.parse_ranking(key)]
            keyed = [wanted.index(answers.norm_item(options[i])) for i in order]
        except (answers.AnswerFormatError, ValueError):
            return order
        if keyed == sorted(keyed) and n > 1:
            # Leaving the list as it is must not count as knowing the answer.
            order = order[1:] + order[:1]
        return order

    # ------------------------------------------------------------ answers

    def normalize_answer(self, answer, *, options=None):
        return rankings.parse_ranking(answer)

    def validate_answer(self, value, options):
        if options and not is_permutation(value, options):
            raise answers.AnswerFormatError(RANK_HELP.format(n=len(options)))

    def check(self, answer, key, *, options=None, tolerance=answers.DEFAULT_TOLERANCE):
        return rankings.check_ranking(answer, key)

    def read_form(self, post: Mapping[str, str], options: Sequence[str]) -> tuple[Any, dict]:
        places = _places(post, len(options), "rank_{i}")
        ranks = dict(enumerate(places))
        try:
            ranking = ranking_from_places(places, options)
        except answers.AnswerFormatError as exc:
            raise FormAnswerError(exc.message, previous={"ranks": ranks}) from None
        return ranking, {"ranks": ranks}

    def read_preview(self, post, question):
        options = list(question.options)
        return ranking_from_places(_places(post, len(options), "rank-{i}"), options), ""

    def preview_state(self, post, question):
        return {
            "rank_rows": [
                {"index": i, "item": item, "place": _place(post.get(f"rank-{i}"), i + 1)}
                for i, item in enumerate(question.options)
            ]
        }

    # ------------------------------------------------------------ generator spec

    def spec_answer(self, raw, question, data, c):
        if raw.get("options") is not None:
            c.add("options", "only multiple_choice questions have options")
        items = _spec_items(raw.get("answer"), c)
        if items and data is not None:
            _check_follows_data(items, data, c)
        return " > ".join(items), ()

    def spec_question_parts(self, spec):
        items = list(spec.ranking)
        return spec.question, spec.question, sorted(items, key=str.casefold), spec.answer, items

    # ------------------------------------------------------------ simulation

    def model_replies(self, options, key, question):
        ranking = list(question.key_value or options)
        return ", ".join(ranking), ", ".join(reversed(ranking))

    def simulate(self, options, key, *, correct: bool, rng: random.Random):
        items = rankings.parse_ranking(key)
        if options:
            # Answer with the option texts, as the ranking widget posts them.
            by_norm = {answers.norm_item(o): o for o in options}
            items = [by_norm.get(answers.norm_item(i), i) for i in items]
        return items if correct else list(reversed(items))


def _place(raw, default: int) -> int:
    return int(raw) if str(raw or "").isdigit() else default


def _spec_items(answer: Any, c) -> tuple[str, ...]:
    if isinstance(answer, str):
        items = tuple(part.strip() for part in answer.split(">"))
    elif isinstance(answer, list) and all(isinstance(a, str) for a in answer):
        items = tuple(a.strip() for a in answer)
    else:
        c.add("answer", "a ranking key is a string like 'A > B > C'")
        return ()
    if len(items) < 2 or not all(items):
        c.add("answer", "a ranking key names at least two items, like 'A > B > C'")
        return ()
    if len(set(items)) != len(items):
        c.add("answer", "a ranking key names each item once")
        return ()
    return items


def _check_follows_data(items: tuple[str, ...], data, c) -> None:
    """On a one-series category chart the key must follow the data, in either direction."""
    if len(data.series) != 1:
        return
    by_label = dict(zip(data.category_labels, data.series[0].values, strict=True))
    unknown = [i for i in items if i not in by_label]
    if unknown:
        c.add("answer", f"ranking names unknown categories: {', '.join(unknown)}")
        return
    values = [by_label[i] for i in items]
    pairs = list(zip(values, values[1:], strict=False))
    if not (all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)):
        c.add("answer", "ranking key does not follow the chart's values")


ANSWER_TYPE = Ranking()
