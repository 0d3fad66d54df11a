"""A plain-text progress bar for the terminal: ``[#####     ] 23/112 charts, 2 retries, eta 1m20s``.

On a terminal the line is redrawn in place; written to a file or a pipe, each
change of the count is a new line, so logs stay readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


def format_duration(seconds: float) -> str:
    """``45s``, ``1m20s``, ``2h05m``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class ProgressBar:
    """Counts finished items out of ``total``; ``done`` starts at the items already finished.

    The ETA uses only the items finished since the bar started, so a resumed
    run does not count the earlier run's work as instantaneous.
    """

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO,
        done: int = 0,
        unit: str = "charts",
        width: int = 24,
        clock: Callable[[], float] = time.monotonic,
        interactive: bool | None = None,
    ):
        self.total = total
        self.done = done
        self.start_done = done
        self.unit = unit
        self.width = width
        self.retries = 0
        self.failed = 0
        self.stream = stream
        self.clock = clock
        self.started = clock()
        if interactive is None:
            isatty = getattr(stream, "isatty", None)
            interactive = bool(isatty and isatty())
        self.interactive = interactive
        self._last_width = 0
        self._open = False

    def eta(self) -> str:
        finished = self.done - self.start_done
        if finished <= 0 or self.done >= self.total:
            return "--" if self.done < self.total else "0s"
        per_item = (self.clock() - self.started) / finished
        return format_duration(per_item * (self.total - self.done))

    def line(self) -> str:
        fraction = self.done / self.total if self.total else 1.0
        filled = min(self.width, int(fraction * self.width))
        bar = "#" * filled + " " * (self.width - filled)
        parts = [f"[{bar}] {self.done}/{self.total} {self.unit}"]
        parts.append(f"{self.retries} {'retry' if self.retries == 1 else 'retries'}")
        if self.failed:
            parts.append(f"{self.failed} failed")
        parts.append(f"eta {self.eta()}")
        return ", ".join(parts)

    def draw(self) -> None:
        text = self.line()
        if self.interactive:
            # Pad over a longer previous line, then return to the line's start.
            self.stream.write("\r" + text.ljust(self._last_width))
            self._last_width = len(text)
            self._open = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def advance(self, n: int = 1) -> None:
        self.done += n
        self.draw()

    def retry(self) -> None:
        self.retries += 1
        if self.interactive:
            self.draw()

    def fail(self) -> None:
        self.failed += 1

    def close(self) -> None:
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
