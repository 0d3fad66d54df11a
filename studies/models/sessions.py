"""Participant sessions, trials and responses."""

__all__: list[str] = []
