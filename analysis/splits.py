"""The splits of CHOCOLATE's captioning models (seed section 2.2 and appendix C).

Plain constants, apart from the statistics in :mod:`analysis.captions`, so that the
annotation app's models can take a new project's defaults from here without
loading pandas and matplotlib.
"""

from __future__ import annotations

from types import MappingProxyType

SPLITS = ("LVLM", "LLM", "FT")
DEFAULT_SPLIT_MAP = MappingProxyType(
    {
        "gpt4v": "LVLM",
        "bard": "LVLM",
        "deplot": "LLM",
        "chartt5": "FT",
        "matcha": "FT",
        "unichart": "FT",
    }
)
