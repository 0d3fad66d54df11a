"""Where one participant answer's CPU goes, stage by stage (``profile_participant_request.py --split``).

cProfile charges every Python call its own bookkeeping, which inflates call-heavy stages
(the ORM's instance building) against the rest; a sampling profiler is not part of the
project. This times a few named functions of the answer path themselves with the
thread's CPU clock, so the split adds a microsecond or so per stage and the stages add
up to the whole answer. Each stage is inclusive: an indented stage is part of the one
above it, and "rest" lines are what the stage above spent outside its timed parts.
"""

from __future__ import annotations

import time
from collections import defaultdict


class AnswerStages:
    def __init__(self):
        self.cpu: dict[str, float] = defaultdict(float)
        self._undo: list = []
        self.counting = True  # off while the bench starts a session (not an answer)

    def _timed(self, name: str, function):
        cpu = self.cpu

        def timed(*args, **kwargs):
            if not self.counting:
                return function(*args, **kwargs)
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                cpu[name] += time.thread_time() - start

        return timed

    def _patch(self, owner, attribute: str, name: str) -> None:
        own = owner.__dict__.get(attribute)  # None: inherited, so undone by deleting it
        self._undo.append((owner, attribute, own))
        original = own if own is not None else getattr(owner, attribute)
        if isinstance(original, property):
            setattr(owner, attribute, property(self._timed(name, original.fget)))
        elif isinstance(original, classmethod):
            setattr(owner, attribute, classmethod(self._timed(name, original.__func__)))
        else:
            setattr(owner, attribute, self._timed(name, original))

    def install(self) -> None:
        # Imported here: the bench sets Django up first.
        from rest_framework.renderers import JSONRenderer

        from studies.api import participant
        from studies.api.participant_serializers import SubmitSerializer
        from studies.services import sessions
        from studies.services.sessions import record

        # Each is looked up by name when it is called, so replacing the attribute reaches it.
        self._patch(participant.ParticipantAPIView, "dispatch", "view")
        self._patch(participant.ResponseSubmitView, "post_json", "post")
        self._patch(SubmitSerializer, "validated_plain", "input")  # the usual body
        self._patch(SubmitSerializer, "is_valid", "input")  # any other
        self._patch(sessions, "response_record", "record")
        self._patch(record, "_TRIALS", "read")  # the usual answer's
        self._patch(record, "_locked_trials", "read")  # the locked path's
        self._patch(record, "read_answer", "read_answer")
        self._patch(record, "answer_write", "write")
        self._patch(participant, "trial_payload", "payload")
        self._patch(JSONRenderer, "render", "render")

    def uninstall(self) -> None:
        while self._undo:
            owner, attribute, own = self._undo.pop()
            if own is None:
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, own)

    def print_split(self, answers: int, whole_cpu: float) -> None:
        ms = {name: seconds / answers * 1000 for name, seconds in self.cpu.items()}
        whole = whole_cpu / answers * 1000
        timed_in_record = ms.get("read", 0.0) + ms["read_answer"] + ms["write"]
        timed_in_post = ms.get("input", 0.0) + ms["record"] + ms["payload"]
        rows = [
            (0, "whole answer request", whole),
            (1, "middleware, handler, test client", whole - ms["view"]),
            (1, "the view", ms["view"]),
            (2, "dispatch around the answer", ms["view"] - ms["post"] - ms["render"]),
            (2, "rendering the JSON reply", ms["render"]),
            (2, "input check (SubmitSerializer)", ms.get("input", 0.0)),
            (2, "response_record", ms["record"]),
            (3, "read of session and trials", ms.get("read", 0.0)),
            (3, "reading the answer", ms["read_answer"]),
            (3, "the write", ms["write"]),
            (3, "rest (checks, advance)", ms["record"] - timed_in_record),
            (2, "the next trial's payload", ms["payload"]),
            (2, "rest of post (session state, body)", ms["post"] - timed_in_post),
        ]
        print("CPU per answer by stage (ms; an indented stage is part of the one above):")
        for depth, label, value in rows:
            print(f"  {'  ' * depth}{label:<{44 - 2 * depth}} {value:6.3f}")
