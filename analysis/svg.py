"""Render matplotlib figures to self-contained, byte-stable SVG strings."""

from __future__ import annotations

import io
import re
from functools import cache
from html import escape


@cache
def _pyplot():
    """pyplot, set up once on first use: a process that draws nothing never loads matplotlib."""
    import matplotlib

    matplotlib.use("Agg")  # no display on servers or CI
    # A fixed salt and no date metadata make the same figure give the same bytes,
    # so rendered plots can be cached and compared in tests.
    matplotlib.rcParams["svg.hashsalt"] = "chartroom"
    matplotlib.rcParams["svg.fonttype"] = "none"  # keep text as text: smaller, selectable
    import matplotlib.pyplot as plt

    return plt


def figure_to_svg(fig, *, titles: dict[str, str] | None = None) -> str:
    """Serialize ``fig`` to an SVG document and close it.

    ``titles`` maps an artist's gid (``artist.set_gid``) to the text a browser shows when
    the pointer rests on it: an SVG ``<title>`` is the hover value without any script.
    """
    plt = _pyplot()
    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        plt.close(fig)
    svg = buffer.getvalue()
    # Drop the XML prolog and doctype so the SVG can be inlined in HTML.
    start = svg.find("<svg")
    svg = without_inline_styles(svg[start:] if start >= 0 else svg)
    return with_titles(svg, titles) if titles else svg


def with_titles(svg: str, titles: dict[str, str]) -> str:
    """Put a ``<title>`` first inside each ``<g id="gid">`` that matplotlib wrote for an artist."""

    def add(match: re.Match) -> str:
        text = titles.get(match.group(1))
        return match.group(0) if text is None else f"{match.group(0)}<title>{escape(text)}</title>"

    return re.sub(r'<g id="([^"]+)"[^>]*>', add, svg)


_STYLE_ATTRIBUTE = re.compile(r'\sstyle="([^"]*)"')
_STYLE_ELEMENT = re.compile(r"\s*<style[^>]*>\s*\*\s*\{([^}]*)\}\s*</style>")


def _as_attributes(declarations: str) -> str:
    pairs = (part.split(":", 1) for part in declarations.split(";") if ":" in part)
    return "".join(f' {name.strip()}="{value.strip()}"' for name, value in pairs)


def without_inline_styles(svg: str) -> str:
    """The same drawing with SVG presentation attributes instead of CSS.

    matplotlib writes ``style="fill: #fff; stroke-width: 0.8"`` on every element and a
    ``<style>*{...}</style>`` default. Pages forbid inline styles (their
    Content-Security-Policy), but presentation attributes such as ``fill="#fff"`` are
    not styles and draw the same: every property matplotlib writes (fill, stroke and
    their widths, opacities and dashes, font-family, font-size, text-anchor) is one.
    The ``*{}`` defaults move to the root element, from where they are inherited.
    """
    defaults = _STYLE_ELEMENT.search(svg)
    if defaults:
        svg = svg[: defaults.start()] + svg[defaults.end() :]
        svg = svg.replace("<svg ", "<svg" + _as_attributes(defaults.group(1)) + " ", 1)
    return _STYLE_ATTRIBUTE.sub(lambda match: _as_attributes(match.group(1)), svg)
