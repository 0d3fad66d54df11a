"""Normalising what people write: chart types, manipulation names, answer types, column names.

Released files and researchers' sets spell these many ways ("Bar chart", "truncated y-axis",
"Free text entry", "Chart ID"); everything downstream sees one slug or constant per meaning.
"""

from __future__ import annotations

import re
import unicodedata

from studies.answer_types import from_written_name
from studies.manipulations import BUILTIN as BUILTIN_MANIPULATIONS
from studies.manipulations import slugify_manipulation

CHART_TYPES = ("line", "bar", "scatter", "pie", "map")

# Table 1 of the paper, slug -> label, shared with the chart generator so
# imported and generated charts use the same slugs.
KNOWN_MANIPULATIONS = {m.slug: m.label for m in BUILTIN_MANIPULATIONS}

# Names the paper itself uses in section 5 besides those of Table 1.
_EXTRA_MANIPULATION_NAMES = {"manipulated_x_axis": "inconsistent_x_axis"}


def _slugify(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold().replace("&", " and ")
    return re.sub(r"[\W_]+", "_", text).strip("_")


def manipulation_slug(name: str, chart_type: str | None = None) -> str:
    """Slug for a manipulation name: "truncated y-axis" -> "truncated_y_axis".

    Known names and their usual spellings map to the slugs of
    ``KNOWN_MANIPULATIONS``; an empty name is "none"; unknown names keep a
    slug of their own, so researchers can add manipulations.
    """
    written = " ".join(str(name).split())
    slug = slugify_manipulation(written) if written else "none"
    slug = _EXTRA_MANIPULATION_NAMES.get(slug, slug)
    # The released file writes plain "3D effect" for both the bar group and
    # the pie group; only the chart type tells them apart.
    if slug == "bar_3d" and chart_type == "pie" and "bar" not in written.casefold():
        slug = "pie_3d"
    return slug


def manipulation_label(slug: str, written: str = "") -> str:
    """Display name: the known label, else the name as written (spacing tidied)."""
    return KNOWN_MANIPULATIONS.get(slug) or " ".join(str(written).split()) or slug


def chart_type_slug(text: str) -> str | None:
    """One of CHART_TYPES ("Bar chart", "scatter plot" are accepted), else None."""
    words = _slugify(text).replace("_", " ")
    words = re.sub(r"\s*\b(chart|plot|graph)s?$", "", words).replace(" ", "")
    words = {"scatterplot": "scatter", "choropleth": "map"}.get(words, words)
    return words if words in CHART_TYPES else None


def answer_type_from_label(text: str) -> str | None:
    """The answer-type key for a written name ("multiple choice", "free text", "rank"); None if unknown.

    Each type lists the names it is written as (``written_names`` in studies.answer_types).
    """
    words = " ".join(re.sub(r"[_\-]+", " ", str(text)).casefold().split())
    return from_written_name(words)


def _column(name: str) -> str:
    return re.sub(r"[\s_\-]+", "_", str(name).strip().lstrip("\ufeff").casefold()).strip("_")


_CHARTOM_COLUMNS = {
    "id": "chart_id",
    "chartid": "chart_id",
    "manipulation": "planted_manipulation",
    "manipulation_type": "planted_manipulation",
    "answer_key": "answer",
}
_MANIFEST_COLUMNS = {
    "id": "chart_id",
    "chartid": "chart_id",
    "planted_manipulation": "manipulation",
    "manipulation_type": "manipulation",
    "answer_key": "answer",
    "question_text": "question",
    "image_path": "image",
}
_MANIFEST_FIELDS = (
    "chart_id",
    "chart_type",
    "manipulation",
    "question",
    "answer_type",
    "answer",
    "image",
)
