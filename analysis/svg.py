"""Render matplotlib figures to self-contained, byte-stable SVG strings."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # no display on servers or CI

import matplotlib.pyplot as plt  # noqa: E402

# A fixed salt and no date metadata make the same figure give the same bytes,
# so rendered plots can be cached and compared in tests.
matplotlib.rcParams["svg.hashsalt"] = "chartroom"
matplotlib.rcParams["svg.fonttype"] = "none"  # keep text as text: smaller, selectable


def figure_to_svg(fig) -> str:
    """Serialize ``fig`` to an SVG document and close it."""
    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        plt.close(fig)
    svg = buffer.getvalue()
    # Drop the XML prolog and doctype so the SVG can be inlined in HTML.
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
