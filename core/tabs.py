"""The tabs of a study's or a project's pages (templates/_tabs.html), built by each app's tag."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse


@dataclass(frozen=True)
class Tab:
    key: str
    label: str
    url: str


def tabs_context(*, label: str, current: str, pages: list[tuple[str, str, str]], slug: str):
    """``pages`` as (key, label, URL name); each URL takes the object's slug."""
    tabs = [Tab(key, text, reverse(name, args=[slug])) for key, text, name in pages]
    return {"label": label, "current": current, "tabs": tabs}
