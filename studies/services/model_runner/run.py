"""Asking a model every FACT and MIND question of a study, and importing its replies as answers.

For each chart the runner sends the FACT prompt and the MIND prompt, each with
the chart image as a base64 data URL in an ``image_url`` content part, to an
OpenAI-compatible chat-completions endpoint (see :mod:`.client`). Each reply
is stored as a :class:`~studies.models.ModelReply` the moment it arrives, so
an interrupted run (Ctrl-C, a network failure, ``--limit``) loses nothing and
the next run asks only what is missing. A stored reply is reused only when
the request it answered is the one that would be sent now (same model,
prompt, image and parameters, compared by hash); a reply to an edited
question or a replaced image is asked again.

The FACT prompt is the question as participants read it plus, by default, one
line asking for a bare answer of the question's type, because the answer
checker reads one choice, one number or one ordering and would score a
chatty but right reply as unreadable. The MIND prompt is the section 3.1
template, which already asks for the number first.

:func:`replies_import` turns the stored replies into model answers through
:func:`studies.services.model_eval.model_answers_import`, so FACT replies are
scored by the participants' checker and MIND replies read by the same number
extractor as an imported file.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from django.utils import timezone

from analysis.tables import natural_key
from studies.model_answers_format import FILE, Problem
from studies.models import Chart, ModelAnswer, ModelReply, Study
from studies.services.model_eval import ImportReport, model_answers_import
from studies.services.model_prompts import study_prompt_charts
from studies.services.model_runner.client import (
    ChatClient,
    EndpointError,
    FatalEndpointError,
)
from studies.services.model_runner.progress import ProgressBar

FACT = ModelReply.QuestionKind.FACT.value
MIND = ModelReply.QuestionKind.MIND.value
KINDS = (FACT, MIND)


# This many refused requests in a row means the endpoint refuses them all
# (a model without image input, say): stop rather than fail every chart.
MAX_REFUSED_IN_A_ROW = 5

_IMAGE_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class TooManyRefusals(FatalEndpointError):
    pass


class ChartImageError(Exception):
    """A chart's image file cannot be read, so its requests cannot be built."""


# --------------------------------------------------------------------------- requests


def image_data_url(data: bytes) -> str:
    """A ``data:`` URL for a chart image (PNG, JPEG, GIF or WebP, told apart by content)."""
    mime = next((m for magic, m in _IMAGE_TYPES if data.startswith(magic)), None)
    if mime is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    return f"data:{mime or 'image/png'};base64,{base64.b64encode(data).decode('ascii')}"


def fact_prompt(chart: Chart, *, answer_format: bool = True) -> str:
    question = chart.question
    # Each answer type says how a model should reply (studies.answer_types).
    hint = question.kind.prompt_hint if answer_format else None
    return f"{question.text}\n\n{hint}" if hint else question.text


def question_prompt(chart: Chart, kind: str, *, answer_format: bool = True) -> str:
    if kind == FACT:
        return fact_prompt(chart, answer_format=answer_format)
    return chart.question.mind_question


def chat_payload(
    *, model: str, prompt: str, image_url: str, temperature: float | None = None
) -> dict:
    """A chat-completions request body: one user message with the prompt and the image."""
    payload = {
        "model": model,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": prompt},
                    {"type": "image_url", "image_url": {"url": image_url}},
                ],
            }
        ],
    }
    if temperature is not None:
        payload["temperature"] = temperature
    return payload


def payload_hash(payload: dict) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PlannedRequest:
    kind: str
    prompt: str
    payload: dict
    request_hash: str


@dataclass
class ChartPlan:
    chart: Chart
    requests: list[PlannedRequest]

    @property
    def complete(self) -> bool:
        return not self.requests


def plan_requests(
    *,
    study: Study,
    model: str,
    kinds: Iterable[str] = KINDS,
    answer_format: bool = True,
    temperature: float | None = None,
) -> list[ChartPlan]:
    """Per chart of the study, the requests still to send (none when every reply is stored)."""
    kinds = [k for k in KINDS if k in set(kinds)]
    stored = {
        (r.chart_id, r.question): r.request_hash
        for r in ModelReply.objects.filter(
            study=study, model=model, status=ModelReply.Status.DONE
        ).only("chart_id", "question", "request_hash")
    }
    plans = []
    # G2_Q1_1 before G10_Q1_1, so a run (and a --limit) goes in the order people read ids.
    for chart in sorted(study_prompt_charts(study), key=lambda c: natural_key(c.chart_id)):
        try:
            with chart.image.open("rb") as handle:
                image_url = image_data_url(handle.read())
        except (OSError, ValueError) as exc:
            raise ChartImageError(
                f"The image of chart {chart.chart_id} cannot be read ({exc.__class__.__name__}); "
                "replace it in the chart library."
            ) from None
        todo = []
        for kind in kinds:
            prompt = question_prompt(chart, kind, answer_format=answer_format)
            payload = chat_payload(
                model=model, prompt=prompt, image_url=image_url, temperature=temperature
            )
            digest = payload_hash(payload)
            if stored.get((chart.pk, kind)) != digest:
                todo.append(PlannedRequest(kind, prompt, payload, digest))
        plans.append(ChartPlan(chart, todo))
    return plans


# --------------------------------------------------------------------------- storing


def reply_store(
    *,
    study: Study,
    model: str,
    chart: Chart,
    request: PlannedRequest,
    endpoint: str,
    status: str,
    text: str = "",
    raw=None,
    error: str = "",
    attempts: int = 0,
    elapsed: float = 0.0,
) -> ModelReply:
    """Store (or replace) the reply to one question; one row, committed on its own."""
    now = timezone.now()
    values = {
        "endpoint": endpoint[:300],
        "request_hash": request.request_hash,
        "prompt": request.prompt,
        "status": status,
        "reply_text": text,
        "raw_reply": raw,
        "error": error,
        "attempts": attempts,
        "elapsed_ms": max(0, round(elapsed * 1000)),
        "updated_at": now,
    }
    reply, _ = ModelReply.objects.update_or_create(
        study=study,
        model=model,
        chart=chart,
        question=request.kind,
        defaults=values,
        create_defaults={**values, "created_at": now},
    )
    return reply


# --------------------------------------------------------------------------- running


@dataclass
class RunSummary:
    charts: int = 0  # charts in the study
    complete_before: int = 0  # charts whose replies were all stored already
    charts_done: int = 0  # charts finished in this run
    asked: int = 0  # replies stored in this run
    failed: int = 0  # requests refused in this run (stored as failed, asked again next run)
    retries: int = 0
    remaining: int = 0  # charts still missing a reply after this run

    def describe(self) -> str:
        text = (
            f"{self.asked} {'reply' if self.asked == 1 else 'replies'} stored for "
            f"{self.charts_done} {'chart' if self.charts_done == 1 else 'charts'} "
            f"({self.retries} {'retry' if self.retries == 1 else 'retries'}, "
            f"{self.failed} failed)"
        )
        if self.complete_before:
            text += f"; {self.complete_before} already done"
        return text + f"; {self.remaining} of {self.charts} charts left to ask."


@dataclass
class ReplyRunner:
    """Asks one model the study's questions, storing each reply as it arrives.

    ``summary`` is kept up to date during :meth:`run`, so after an exception
    (a fatal endpoint error or Ctrl-C) it still tells what was stored.
    """

    study: Study
    model: str
    client: ChatClient
    kinds: tuple[str, ...] = KINDS
    limit: int | None = None
    answer_format: bool = True
    temperature: float | None = None
    progress_stream: TextIO | None = None
    summary: RunSummary = field(default_factory=RunSummary)
    _last_error: str = field(default="", init=False, repr=False)

    def run(self) -> RunSummary:
        plans = plan_requests(
            study=self.study,
            model=self.model,
            kinds=self.kinds,
            answer_format=self.answer_format,
            temperature=self.temperature,
        )
        todo = [p for p in plans if not p.complete]
        summary = self.summary
        summary.charts = len(plans)
        summary.complete_before = len(plans) - len(todo)
        summary.remaining = len(todo)
        if self.limit is not None:
            todo = todo[: self.limit]
        progress = None
        if self.progress_stream is not None and todo:
            progress = ProgressBar(
                summary.complete_before + len(todo),
                done=summary.complete_before,
                stream=self.progress_stream,
            )
            progress.draw()
        previous_hook = self.client.on_retry

        def on_retry(retry: int, delay: float, reason: str) -> None:
            summary.retries += 1
            if progress is not None:
                progress.retry()
            if previous_hook is not None:
                previous_hook(retry, delay, reason)

        self.client.on_retry = on_retry
        try:
            refused_in_a_row = 0
            for plan in todo:
                chart_ok = True
                for request in plan.requests:
                    ok = self._ask(plan.chart, request, progress)
                    chart_ok &= ok
                    refused_in_a_row = 0 if ok else refused_in_a_row + 1
                    if refused_in_a_row >= MAX_REFUSED_IN_A_ROW:
                        raise TooManyRefusals(
                            f"{refused_in_a_row} requests in a row were refused; the last: "
                            f"{self._last_error}"
                        )
                summary.charts_done += 1
                if chart_ok:
                    summary.remaining -= 1
                if progress is not None:
                    progress.advance()
        finally:
            self.client.on_retry = previous_hook
            if progress is not None:
                progress.close()
        return summary

    def _ask(self, chart: Chart, request: PlannedRequest, progress: ProgressBar | None) -> bool:
        """Send one request and store the outcome; False when the endpoint refused it."""
        started = self.client.clock()
        try:
            reply = self.client.complete(request.payload)
        except EndpointError as exc:
            if exc.fatal:
                raise
            failed = exc
            outcome = {"status": ModelReply.Status.FAILED, "raw": exc.raw, "error": exc.message,
                       "attempts": exc.attempts, "elapsed": self.client.clock() - started}  # fmt: skip
        else:
            failed = None
            outcome = {"status": ModelReply.Status.DONE, "text": reply.text, "raw": reply.raw,
                       "attempts": reply.attempts, "elapsed": reply.elapsed}  # fmt: skip
        reply_store(study=self.study, model=self.model, chart=chart, request=request,
                    endpoint=self.client.endpoint, **outcome)  # fmt: skip
        if failed is not None:
            self.summary.failed += 1
            self._last_error = failed.message
            if progress is not None:
                progress.fail()
            return False
        self.summary.asked += 1
        return True


# --------------------------------------------------------------------------- importing


def reply_answer_rows(*, study: Study, model: str) -> list[dict]:
    """The stored replies of ``model`` as rows of the model answer format, one per chart."""
    rows: dict[str, dict] = {}
    replies = (
        ModelReply.objects.filter(study=study, model=model, status=ModelReply.Status.DONE)
        .select_related("chart")
        .order_by("chart__chart_id", "question")
    )
    for reply in replies:
        row = rows.setdefault(
            reply.chart.chart_id, {"model": model, "chart_id": reply.chart.chart_id}
        )
        # A MIND reply goes in whole: the reader takes the number and keeps the text as
        # the justification, exactly as for an imported file with no justification column.
        row["fact_answer" if reply.question == FACT else "mind_prediction"] = reply.reply_text
    return list(rows.values())


@dataclass
class ReplyImport:
    report: ImportReport
    # (chart id, notes) for each imported answer with a note: a FACT reply the
    # checker could not read (scored wrong), a MIND reply without a usable number.
    notes: list[tuple[str, list[str]]] = field(default_factory=list)


def replies_import(*, study: Study, model: str, user=None) -> ReplyImport:
    """Replace ``model``'s answers in the study with its stored replies, checked and scored."""
    rows = reply_answer_rows(study=study, model=model)
    source = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    if not rows:
        report = ImportReport()
        report.problems.append(
            Problem(
                "stored replies",
                None,
                f"No stored replies from {model!r} in this study; run without --import-only first.",
                FILE,
            )
        )
        return ReplyImport(report)
    report = model_answers_import(
        study=study, source=source, filename=f"stored replies of {model}.jsonl", user=user
    )
    notes = []
    if report.imported:
        answers = ModelAnswer.objects.filter(study=study, model=model).select_related("chart")
        notes = [(a.chart.chart_id, list(a.problems)) for a in answers if a.problems]
    return ReplyImport(report, notes)
