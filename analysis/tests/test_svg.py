"""Figures carry no CSS, so pages with a strict Content-Security-Policy can inline them."""

import re

import matplotlib.pyplot as plt

from analysis.svg import figure_to_svg, without_inline_styles


def test_figures_use_presentation_attributes_instead_of_inline_styles():
    fig, ax = plt.subplots()
    ax.bar([1, 2], [3, 4], alpha=0.5, label="bars")
    ax.plot([1, 2], [1, 2], "--o")
    ax.set_title("A title")
    ax.legend()
    svg = figure_to_svg(fig)
    assert "style=" not in svg and "<style" not in svg
    assert svg.startswith('<svg stroke-linejoin="round" stroke-linecap="butt" ')
    assert re.search(r'<text font-size="\d+(\.\d+)?px" font-family="[^"]+" text-anchor=', svg)
    assert 'fill="#1f77b4"' in svg and 'stroke-dasharray="' in svg


def test_each_declaration_becomes_one_attribute():
    svg = '<svg x="1"><defs><style type="text/css">*{stroke-linecap: butt}</style></defs><path d="M0" style="fill: #fff; stroke-width: 0.8"/></svg>'
    assert without_inline_styles(svg) == (
        '<svg stroke-linecap="butt" x="1"><defs></defs>'
        '<path d="M0" fill="#fff" stroke-width="0.8"/></svg>'
    )
