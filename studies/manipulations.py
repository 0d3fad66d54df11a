"""The built-in manipulation types (seed paper, Table 1), shipped as data.

Pure Python, so the chart generator and the benchmark reader use the same slugs.
Researchers add their own types in the app; these are seeded by a migration.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Manipulation(NamedTuple):
    slug: str
    label: str
    description: str
    aliases: tuple[str, ...]  # other ways benchmark files spell it
    vocabulary: tuple[str, ...]  # phrases that name it in a justification


BUILTIN = [
    Manipulation("none", "None", "The honest, non-manipulated version.", ("no manipulation", "non-manipulated"), ()),
    Manipulation(
        "truncated_y_axis", "Truncated y-axis", "The y-axis starts far above zero, exaggerating differences.",
        ("truncated y axis", "truncated axis", "y-axis truncated"),
        ("truncated", "does not start at zero", "doesn't start at zero", "not start at 0",
         "axis starts above", "cut off", "missing zero baseline"),
    ),
    Manipulation(
        "compressed_y_axis", "Compressed (wide-range) y-axis", "The y-axis range is much wider than the data, flattening changes.",
        ("compressed y-axis", "compressed y axis", "wide-range y-axis", "compressed (wide range) y-axis", "compressed axis"),
        ("compressed", "wide range", "large range", "flatten", "squash", "scale is too large", "axis range"),
    ),
    Manipulation(
        "inverted_y_axis", "Inverted y-axis", "Larger values are drawn lower.",
        ("inverted y axis", "reversed y-axis", "flipped y-axis"),
        ("inverted", "upside down", "reversed", "flipped", "y-axis is inverted", "higher values at the bottom"),
    ),
    Manipulation(
        "inconsistent_x_axis", "Inconsistent x-axis", "Unequal intervals drawn at equal distances.",
        ("inconsistent x axis", "uneven x-axis", "irregular x-axis"),
        ("inconsistent", "uneven", "unequal interval", "irregular", "not evenly spaced", "spacing"),
    ),
    Manipulation(
        "dual_axes", "Dual axes", "Two series on two differently scaled y-axes.",
        ("dual axis", "dual y-axes", "two axes"),
        ("dual axes", "dual axis", "two y-axes", "two axes", "different scales", "secondary axis"),
    ),
    Manipulation(
        "pictorial_bars", "Pictorial bars", "Icons whose area grows with both width and height.",
        ("pictorial bar", "pictograph", "pictogram"),
        ("pictorial", "icon", "pictogram", "area", "image size", "picture"),
    ),
    Manipulation(
        "bar_3d", "3D effect (bar)", "Bars drawn with depth, hiding where they end.",
        ("3d effect (bar)", "3d effect", "3d bar", "3-d effect"),
        ("3d", "3-d", "three-dimensional", "perspective", "depth"),
    ),
    Manipulation(
        "log_y_axis", "Logarithmic y-axis", "A log scale read as if it were linear.",
        ("logarithmic y axis", "log y-axis", "log scale", "logarithmic scale"),
        ("logarithmic", "log scale", "log-scale", "log axis", "exponential scale"),
    ),
    Manipulation(
        "inverted_x_axis", "Inverted x-axis", "Values run right to left.",
        ("inverted x axis", "reversed x-axis", "flipped x-axis"),
        ("inverted", "reversed", "right to left", "flipped", "backwards"),
    ),
    Manipulation(
        "inverted_color_scale", "Inverted color scale", "Darker means less, against convention.",
        ("inverted colour scale", "inverted color", "reversed color scale"),
        ("color scale", "colour scale", "inverted color", "inverted colour", "legend", "darker", "lighter"),
    ),
    Manipulation(
        "pie_3d", "3D effect (pie)", "A tilted pie whose front slices look bigger.",
        ("3d effect (pie)", "3d pie"),
        ("3d", "3-d", "perspective", "tilted", "tilt", "depth"),
    ),
    Manipulation(
        "pie_3d_popout", "3D effect + pop-out (pie)", "A tilted pie with one slice pulled out.",
        ("3d effect + pop out", "3d effect + pop-out", "3d effect + pop out (pie)", "3d pie with pop-out", "pop out", "pop-out"),
        ("3d", "pop out", "pop-out", "exploded", "pulled out", "perspective", "tilted"),
    ),
]  # fmt: skip

BY_SLUG = {m.slug: m for m in BUILTIN}


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9+]+", " ", text.lower()).strip()


_LOOKUP = {
    _key(name): m.slug for m in BUILTIN for name in (m.slug.replace("_", " "), m.label, *m.aliases)
}


def slugify_manipulation(name: str) -> str:
    """The slug for a manipulation as a file spells it; unknown names get a slug of their own."""
    key = _key(name)
    if key in _LOOKUP:
        return _LOOKUP[key]
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "none"
