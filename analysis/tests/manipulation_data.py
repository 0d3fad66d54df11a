"""Manipulation vocabularies and slugs for the analysis tests, independent of any app.

analysis/ imports no app, its tests included, so these are fixed test data: the phrases
that name each manipulation in a model's justification (as the studies app shipped them when
these tests were written) and the slugs of the manipulation names analysis.simulate writes.
"""

VOCABULARIES: dict[str, tuple[str, ...]] = {
    "none": (),
    "truncated_y_axis": (
        "truncated",
        "does not start at zero",
        "doesn't start at zero",
        "not start at 0",
        "axis starts above",
        "cut off",
        "missing zero baseline",
    ),
    "compressed_y_axis": (
        "compressed",
        "wide range",
        "large range",
        "flatten",
        "squash",
        "scale is too large",
        "axis range",
    ),
    "inverted_y_axis": (
        "inverted",
        "upside down",
        "reversed",
        "flipped",
        "y-axis is inverted",
        "higher values at the bottom",
    ),
    "inconsistent_x_axis": (
        "inconsistent",
        "uneven",
        "unequal interval",
        "irregular",
        "not evenly spaced",
        "spacing",
    ),
    "dual_axes": (
        "dual axes",
        "dual axis",
        "two y-axes",
        "two axes",
        "different scales",
        "secondary axis",
    ),
    "pictorial_bars": ("pictorial", "icon", "pictogram", "area", "image size", "picture"),
    "bar_3d": ("3d", "3-d", "three-dimensional", "perspective", "depth"),
    "log_y_axis": ("logarithmic", "log scale", "log-scale", "log axis", "exponential scale"),
    "inverted_x_axis": ("inverted", "reversed", "right to left", "flipped", "backwards"),
    "inverted_color_scale": (
        "color scale",
        "colour scale",
        "inverted color",
        "inverted colour",
        "legend",
        "darker",
        "lighter",
    ),
    "pie_3d": ("3d", "3-d", "perspective", "tilted", "tilt", "depth"),
    "pie_3d_popout": (
        "3d",
        "pop out",
        "pop-out",
        "exploded",
        "pulled out",
        "perspective",
        "tilted",
    ),
}

# analysis.simulate.make_charts names manipulations as CHARTOM Table 1 spells them.
SIMULATED_SLUGS: dict[str, str] = {
    "3D effect": "bar_3d",
    "3D effect + pop out": "pie_3d_popout",
    "compressed y-axis": "compressed_y_axis",
    "dual axes": "dual_axes",
    "inconsistent x-axis": "inconsistent_x_axis",
    "inverted color scale": "inverted_color_scale",
    "inverted x-axis": "inverted_x_axis",
    "inverted y-axis": "inverted_y_axis",
    "logarithmic y-axis": "log_y_axis",
    "none": "none",
    "pictorial bars": "pictorial_bars",
    "truncated y-axis": "truncated_y_axis",
}
