"""Reads for the study results: sessions with their exclusion facts, and the frames analysis consumes.

Everything here is a handful of queries whatever the study's size: values_list
rows streamed with iterator(), or aggregation done by the database.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.files.storage import default_storage
from django.db import connection
from django.db.models import Count, Q

from analysis.tables import natural_key
from studies import answer_types, exclusion_rules
from studies.models import (
    Chart,
    ExclusionOverride,
    ParticipantSession,
    Question,
    Response,
    Study,
    Trial,
)

if TYPE_CHECKING:
    import pandas as pd

CHUNK = 5000


@dataclass(slots=True)
class SessionFacts:
    """What the exclusion rules look at for one session (one per session: slots keep a large
    study's thousands of them small)."""

    id: int
    number: int | None
    status: str
    is_pilot: bool
    is_preview: bool
    external_id: str
    attention_failures: int
    answered: int
    trial_count: int
    median_chart_seconds: float | None = None
    fastest_trial_ms: int | None = None
    override: str | None = None
    override_reason: str = ""

    @property
    def is_test(self) -> bool:
        """A pilot or preview session, as ``ParticipantSession.is_test``."""
        return self.is_pilot or self.is_preview

    @property
    def rule_facts(self) -> exclusion_rules.RuleFacts:
        """The facts ``exclusion_rules.rule_reasons`` looks at."""
        return exclusion_rules.RuleFacts(
            status=self.status,
            is_test=self.is_test,
            attention_failures=self.attention_failures,
            answered=self.answered,
            trial_count=self.trial_count,
            median_chart_seconds=self.median_chart_seconds,
            fastest_trial_ms=self.fastest_trial_ms,
        )


def session_facts(study: Study, *, times: bool = False) -> list[SessionFacts]:
    """Every session of the study (declined ones too) with what the exclusion rules look at.

    With ``times`` (the monitor shows them) every session has its median time per chart and
    fastest trial; otherwise they are read only when a rule uses them, and the median only for
    the sessions the study's minimum could exclude (``rule_times``).
    """
    rows = ParticipantSession.objects.filter(study=study).order_by("number", "id")
    facts = [
        SessionFacts(*values)
        for values in rows.values_list(
            "id",
            "number",
            "status",
            "is_pilot",
            "is_preview",
            "external_id",
            "attention_failures",
            "current_position",
            "trial_count",
        ).iterator(chunk_size=CHUNK)
    ]
    if times:
        medians, fastest = session_times(study)
    else:
        medians, fastest = rule_times(study)
    for fact in facts:
        fact.median_chart_seconds = medians.get(fact.id)
        fact.fastest_trial_ms = fastest.get(fact.id)
    overrides = ExclusionOverride.objects.filter(session__study=study).values_list(
        "session_id", "decision", "reason"
    )
    by_session = {sid: (decision, reason) for sid, decision, reason in overrides}
    for fact in facts:
        if fact.id in by_session:
            fact.override, fact.override_reason = by_session[fact.id]
    return facts


def session_times(
    study: Study, *, medians: bool = True, fastest: bool = True
) -> tuple[dict[int, float], dict[int, int]]:
    """(session id -> median server-side seconds per chart answered, session id -> the
    shortest server-side time in ms on any trial it answered), each only if asked for.

    On PostgreSQL one grouped query reads the study's responses once for both (the
    database takes the medians: one row per session comes back); elsewhere the times
    are streamed and the medians taken here.
    """
    if not (medians or fastest):
        return {}, {}
    if connection.vendor == "postgresql":
        return _session_times_sql(study, medians=medians, fastest=fastest)
    times: dict[int, list[float]] = defaultdict(list)
    least: dict[int, int] = {}
    query = Response.objects.filter(session__study=study, server_ms__isnull=False).values_list(
        "session_id", "server_ms", "chart_id"
    )
    for session_id, ms, chart in query.iterator(chunk_size=CHUNK):
        if chart is not None:
            times[session_id].append(ms / 1000)
        least[session_id] = min(ms, least.get(session_id, ms))
    middle = {sid: statistics.median(values) for sid, values in times.items()}
    return (middle if medians else {}), (least if fastest else {})


def _session_times_sql(study: Study, *, medians: bool, fastest: bool, sessions=None):
    """Both on PostgreSQL, in one grouped query; ``sessions``: only these of the study's."""
    if sessions is not None and not sessions:
        return {}, {}
    median = (
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY r.server_ms) FILTER (WHERE r.chart_id "
        "IS NOT NULL)"
        if medians
        else "NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.session_id, {median}, {'MIN(r.server_ms)' if fastest else 'NULL'} "
            "FROM studies_response r JOIN studies_participantsession s ON s.id = r.session_id "
            "WHERE s.study_id = %s AND r.server_ms IS NOT NULL "
            f"{'' if fastest else 'AND r.chart_id IS NOT NULL '}"
            f"{'' if sessions is None else 'AND r.session_id = ANY(%s) '}GROUP BY r.session_id",
            [study.pk] if sessions is None else [study.pk, list(sessions)],
        )
        rows = cursor.fetchall()
    middle = {sid: float(ms) / 1000 for sid, ms, _least in rows if ms is not None}
    least = {sid: ms for sid, _ms, ms in rows if ms is not None}
    return middle, least


def rule_times(study: Study) -> tuple[dict[int, float], dict[int, int]]:
    """``session_times`` as far as the study's exclusion rules need them: the fastest trial if
    a rule uses it, and the median time per chart of every session that median could exclude.

    On PostgreSQL a session's median is taken only where counting says it may be below the
    minimum: the median of n times is below it only if at least n/2 of the times are (the
    comparison is monotone, and the median lies between the two middle times), so the other
    sessions are kept without sorting their times. Counting is a plain grouped aggregate;
    ``percentile_cont`` sorts every session's times and cost the exclusion rules most of
    their time on large studies.
    """
    minimum, least = study.min_seconds_per_trial, study.min_trial_ms > 0
    if minimum <= 0 or connection.vendor != "postgresql":
        return session_times(study, medians=minimum > 0, fastest=least)
    with connection.cursor() as cursor:
        # server_ms / 1000 < minimum exactly as the rule compares the median, in float8.
        cursor.execute(
            "SELECT r.session_id, COUNT(*) FILTER (WHERE r.chart_id IS NOT NULL), "
            "COUNT(*) FILTER (WHERE r.chart_id IS NOT NULL "
            "AND r.server_ms::float8 / 1000 < %s::float8), MIN(r.server_ms) "
            "FROM studies_response r JOIN studies_participantsession s ON s.id = r.session_id "
            "WHERE s.study_id = %s AND r.server_ms IS NOT NULL GROUP BY r.session_id",
            [float(minimum), study.pk],
        )
        rows = cursor.fetchall()
    maybe = [sid for sid, n, below, _least in rows if n and 2 * below >= n]
    medians = _session_times_sql(study, medians=True, fastest=False, sessions=maybe)[0]
    return medians, ({sid: ms for sid, _n, _below, ms in rows} if least else {})


def chart_catalogue(study: Study) -> pd.DataFrame:
    """The study's charts: chart_id, group, question, version, chart type, manipulation, ..."""
    import pandas as pd

    rows = (
        Chart.objects.filter(question__study_pairs__study=study)
        .order_by("chart_id")
        .values_list(
            "id",
            "chart_id",
            "question__group__code",
            "question__code",
            "version",
            "question__group__chart_type",
            "question__answer_type",
            "manipulation__slug",
            "manipulation__label",
            "question__group__manipulation__label",
            "question__text",
            "question__answer_key",
        )
    )
    columns = [
        "pk",
        "chart_id",
        "group",
        "question",
        "version",
        "chart_type",
        "answer_type",
        "manipulation",
        "manipulation_label",
        "group_manipulation",
        "fact_question",
        "answer_key",
    ]
    # In natural order (G2 before G10) here, not by the database's collation, so every page
    # and export built on the catalogue lists charts the same way.
    return pd.DataFrame(sorted(rows, key=lambda r: natural_key(r[1])), columns=columns)


def _chart_questions(study: Study) -> dict[int, Question]:
    """chart pk -> its FACT question (two queries)."""
    questions = {q.pk: q for q in Question.objects.filter(study_pairs__study=study)}
    charts = Chart.objects.filter(question__study_pairs__study=study).values_list(
        "id", "question_id"
    )
    return {pk: questions[question] for pk, question in charts}


def chart_details(study: Study) -> dict[int, dict]:
    """chart pk -> its image URL, FACT question and answer key (read as the answers are
    listed: ``answer_types.key_text``), for the results tables (three queries)."""
    questions = _chart_questions(study)
    images = Chart.objects.filter(pk__in=list(questions)).values_list("id", "image")
    return {
        pk: {
            "image_url": default_storage.url(image) if image else "",
            "question": questions[pk].text,
            "answer_key": answer_types.key_text(questions[pk]),
        }
        for pk, image in images
    }


def _sessions_filter(study: Study, session_ids: Iterable[int]) -> Q:
    """Rows of these sessions of ``study``, as a filter on ``session``.

    Nearly every session of a study is usually included, so the query names the study and
    the few sessions left out: a list of thousands of included ids makes PostgreSQL check
    each row against the list and costs more than the aggregation itself.
    """
    wanted = set(session_ids)
    sessions = ParticipantSession.objects.filter(study=study).values_list("id", flat=True)
    left_out = [sid for sid in sessions.iterator(chunk_size=CHUNK) if sid not in wanted]
    return (
        Q(session__study=study) & ~Q(session_id__in=left_out)
        if left_out
        else Q(session__study=study)
    )


def chart_trials_frame(study: Study, session_ids: Iterable[int]) -> pd.DataFrame:
    """One row per included participant x chart trial: participant, chart_id (pk), correct.

    A trial without a response is unanswered (correct missing), which HMI counts
    as not correct. One query, streamed.
    """
    import pandas as pd

    ids = set(session_ids)
    participant, chart, correct = [], [], []
    if ids:
        query = (
            Trial.objects.filter(_sessions_filter(study, ids), kind=Trial.Kind.CHART)
            .order_by()
            .values_list("session_id", "chart_id", "response__correct")
        )
        for sid, cid, ok in query.iterator(chunk_size=CHUNK):
            participant.append(sid)
            chart.append(cid)
            correct.append(ok)
    return pd.DataFrame(
        {
            "participant": pd.array(participant, dtype="Int64"),
            "chart_pk": pd.array(chart, dtype="Int64"),
            "correct": pd.array(correct, dtype="boolean"),
        }
    )


def chart_error_counts(study: Study, session_ids: Iterable[int]) -> dict[int, tuple[int, int, int]]:
    """chart pk -> (n, n_wrong, n_unanswered) over these sessions of the study, aggregated by
    the database in one query."""
    ids = set(session_ids)
    if not ids:
        return {}
    rows = (
        Trial.objects.filter(_sessions_filter(study, ids), kind=Trial.Kind.CHART)
        .order_by()
        .values("chart_id")
        .annotate(
            n=Count("id"),
            n_right=Count("id", filter=Q(response__correct=True)),
            n_unanswered=Count("id", filter=Q(response__isnull=True)),
        )
        .values_list("chart_id", "n", "n_right", "n_unanswered")
    )
    return {cid: (n, n - right, blank) for cid, n, right, blank in rows}


def answer_distribution(
    study: Study, session_ids: Iterable[int], *, top: int = 8
) -> dict[int, list[dict]]:
    """chart pk -> the most frequent answers of included participants, with counts.

    Each answer reads as ``answer_types.answer_text`` shows it beside the key, and answers
    that read alike count together (a choice sent as its index and one sent as its text).
    """
    ids = set(session_ids)
    if not ids:
        return {}
    rows = (
        Response.objects.filter(_sessions_filter(study, ids), chart__isnull=False)
        .order_by()
        .values("chart_id", "raw_answer", "value", "correct")
        .annotate(n=Count("id"))
        .values_list("chart_id", "raw_answer", "value", "correct", "n")
    )
    questions = _chart_questions(study)
    counts: dict[int, dict[tuple, int]] = defaultdict(lambda: defaultdict(int))
    for cid, raw, value, ok, n in rows:
        question = questions.get(cid)  # None: a chart whose pair has left the study since
        text = answer_types.answer_text(question, raw, value) if question else raw
        counts[cid][text, ok] += n
    out = {
        cid: [{"answer": text, "correct": ok, "n": n} for (text, ok), n in tally.items()]
        for cid, tally in counts.items()
    }
    for items in out.values():
        items.sort(key=lambda item: (-item["n"], item["answer"]))
        rest = items[top:]
        del items[top:]
        if rest:
            items.append(
                {"answer": "(other answers)", "correct": None, "n": sum(i["n"] for i in rest)}
            )
    return out


def study_response_count(study: Study) -> int:
    """Every response of the study, pilot and preview ones too (what an export holds)."""
    return Response.objects.filter(session__study=study).count()


def study_counted_response_count(study: Study) -> int:
    """The responses results are computed from: pilot and preview sessions never count, so
    the results page's "computed from" and its staleness leave them out too."""
    return Response.objects.filter(
        session__study=study, session__is_pilot=False, session__is_preview=False
    ).count()


def question_options(study: Study) -> dict[int, list]:
    return dict(Question.objects.filter(study_pairs__study=study).values_list("id", "options"))


def response_rows(study: Study, *, chunk_size: int = CHUNK) -> Iterator[tuple]:
    """Every chart and attention-check response of the study, in session and position order.

    (session_id, position, kind, chart code, attention check id, raw answer, value,
    correct, shown_at, answered_at, server_ms, client_ms, interactions,
    first_interaction_ms, abs_error), streamed from one query.
    """
    query = (
        Response.objects.filter(session__study=study)
        .order_by("session_id", "position")
        .values_list(
            "session_id",
            "position",
            "trial__kind",
            "chart__chart_id",
            "attention_check_id",
            "raw_answer",
            "value",
            "correct",
            "shown_at",
            "answered_at",
            "server_ms",
            "client_ms",
            "interactions",
            "first_interaction_ms",
            "abs_error",
        )
    )
    yield from query.iterator(chunk_size=chunk_size)


# ------------------------------------------------------------------ the results page


def study_results_state(study: Study):
    """(snapshot or None, latest compute job or None, counted responses now (as the snapshot's
    ``response_count``), recent export jobs)."""
    from core.models import Job
    from studies.models import StudyResults

    snapshot = StudyResults.objects.filter(study=study).select_related("job", "pending_job").first()
    jobs = Job.objects.filter(subject=study.subject)
    compute = jobs.filter(kind="studies.results_compute").order_by("-created_at").first()
    exports = list(jobs.filter(kind="studies.results_export").order_by("-created_at")[:8])
    return snapshot, compute, study_counted_response_count(study), exports
