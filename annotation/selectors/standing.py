"""Where an annotator stands in a project: each round's status, the home card, a round's result.

Pages and the API read these; none of them carries gold unless ``review_state``
(annotation.selectors.attempts) opens it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.languages import text_in
from annotation.models import Project, Qualification, QualityPolicy
from annotation.round_draws import fresh_left
from annotation.selectors.attempts import (
    STANDING_LABELS,
    attempt_gold,
    attempts_allowed,
    retry_at,
    review_state,
    round_attempts,
    round_pool,
    round_size,
    standing_key,
)
from annotation.selectors.work import AnnotatorProgress, annotator_progress

State, Work = Qualification.State, Qualification.Work
RULE_NAMES = {"f1": "F1 on error labels", "accuracy": "accuracy over all decisions"}


@dataclass(frozen=True)
class RoundStatus:
    position: int
    title: str
    items: int  # captions one attempt asks
    status: str  # passed, failed, open, available, locked
    attempts_used: int
    attempts_allowed: int
    retry_at: datetime | None  # when a failed round can be tried again
    last_score: float | None
    passed: bool | None
    rule: str
    pass_mark: float

    @property
    def attempts_left(self) -> int:
        return max(0, self.attempts_allowed - self.attempts_used)


@dataclass(frozen=True)
class AnnotatorRounds:
    state: str  # a key of STANDING_LABELS
    state_label: str
    rounds: list
    current: int | None
    show_review: bool
    work_state: str
    retry_delay_minutes: int = 0


def _policy(project: Project) -> QualityPolicy:
    return QualityPolicy.objects.filter(project=project).first() or QualityPolicy(project=project)


def _round_status(round_, q, policy, passed: int, eliminated: bool, now) -> RoundStatus:
    attempts = round_attempts(q, round_)
    last = attempts[-1] if attempts else None
    used, allowed_at = retry_at(q, round_, policy, attempts=attempts)
    score = None
    if last is not None and last.finished_at:
        score = last.f1 if round_.rule == "f1" else last.accuracy
    waiting = None
    if round_.position <= passed:
        status = "passed"
    elif eliminated:
        status = "failed" if last is not None and last.passed is False else "locked"
    elif round_.position > passed + 1:
        status = "locked"
    elif last is not None and last.finished_at is None:
        status = "open"
    elif allowed_at is None:
        status = "failed"
    elif allowed_at > now:
        status, waiting = "failed", allowed_at
    else:
        status = "available"
    size = round_.items_per_attempt or round_.n
    return RoundStatus(
        round_.position, text_in(round_, "title", round_.project.language), min(size, round_.n),
        status, used,
        attempts_allowed(q, round_, policy), waiting, score,
        last.passed if last is not None else None, round_.rule, round_.pass_mark,
    )  # fmt: skip


def annotator_rounds(*, project: Project, annotator, now=None) -> AnnotatorRounds:
    """What the annotator's qualification overview shows: each round's status, no gold."""
    now = now or timezone.now()
    policy = _policy(project)
    q = (
        Qualification.objects.filter(project=project, annotator=annotator)
        .prefetch_related("attempts")
        .first()
    )
    passed = q.rounds_passed if q else 0
    eliminated = q is not None and q.state == State.ELIMINATED
    rounds = list(project.rounds.annotate(n=Count("gold_items")).order_by("position"))
    statuses = [_round_status(r, q, policy, passed, eliminated, now) for r in rounds]
    current = next((s.position for s in statuses if s.status in ("open", "available")), None)
    if current is None:
        current = next((s.position for s in statuses if s.retry_at is not None), None)
    key = standing_key(q, rounds, policy)
    return AnnotatorRounds(
        state=key,
        state_label=STANDING_LABELS[key],
        rounds=statuses,
        current=current,
        show_review=policy.show_gold_after_round,
        work_state=q.work_state if q else Work.ACTIVE.value,
        retry_delay_minutes=policy.retry_delay_minutes,
    )


@dataclass(frozen=True)
class ProjectCard:
    project: Project
    state: str
    headline: str
    action: str
    url: str
    progress: AnnotatorProgress
    secondary: list = field(default_factory=list)


def _at(when: datetime, now: datetime) -> str:
    local = timezone.localtime(when)
    if local.date() == timezone.localtime(now).date():
        return f"{local:%H:%M} UTC"
    return f"{local:%Y-%m-%d %H:%M} UTC"


def _card_text(status: AnnotatorRounds, progress: AnnotatorProgress, slug: str, now) -> tuple:
    """(headline, action label, action url) for the annotator's state, in the active language."""
    qualify = reverse("annotation:qualify", args=[slug])
    work = reverse("annotation:work", args=[slug])
    current = next((r for r in status.rounds if r.position == status.current), None)
    n = len(status.rounds)
    if status.state == "blocked":
        return _("No more work for you in this project"), "", ""
    if status.state == "paused":
        return _("Paused while the research team reviews your recent labels"), "", ""
    if status.state == "eliminated":
        return _("Not qualified for this project"), _("See your results"), qualify
    if status.state == "qualified":
        left = progress.left_for_you
        if progress.in_hand or left:
            headline = ngettext("%(n)d item left for you", "%(n)d items left for you", left)
            action = _("Continue your item") if progress.in_hand else _("Start labelling")
            return headline % {"n": left}, action, work
        return _("Nothing left for you right now"), "", ""
    if current is None:
        return _("Qualification rounds"), _("Open"), qualify
    result = reverse("annotation:qualify-result", args=[slug, current.position])
    at = {"n": current.position}
    if current.status == "failed" and current.retry_at is not None:
        at["when"] = _at(current.retry_at, now)
        return (_("Round %(n)d failed, next attempt at %(when)s") % at,
                _("See your result"), result)  # fmt: skip
    if current.status == "open":
        return _("Round %(n)d in progress") % at, _("Continue round %(n)d") % at, qualify
    if current.attempts_used:
        return (_("Round %(n)d failed, you can try again now") % at,
                _("Try round %(n)d again") % at, qualify)  # fmt: skip
    if status.state == "invited":
        headline = ngettext(
            "Qualification: %(n)d short round, start round 1",
            "Qualification: %(n)d short rounds, start round 1",
            n,
        )
        return headline % {"n": n}, _("Start round 1"), qualify
    return (_("Qualification: round %(n)d of %(total)d next") % {**at, "total": n},
            _("Start round %(n)d") % at, qualify)  # fmt: skip


def annotator_card(*, project: Project, annotator, now=None) -> ProjectCard:
    """The home page card: the annotator's real state in one line, and what to do next."""
    now = now or timezone.now()
    status = annotator_rounds(project=project, annotator=annotator, now=now)
    progress = annotator_progress(project=project, annotator=annotator)
    headline, action, url = _card_text(status, progress, project.slug, now)
    return ProjectCard(project, status.state, headline, action, url, progress)


def _marks(yours: list, expected: list | None, names: dict) -> list[dict]:
    """Each category named on a sentence: on both sides, only expected (missed), only yours (extra)."""
    if expected is None:
        return [{"key": k, "name": names.get(k, k), "kind": "yours"} for k in yours]
    keys = [k for k in names if k in yours or k in expected]
    out = []
    for k in keys:
        kind = "both" if k in yours and k in expected else ("missed" if k in expected else "extra")
        out.append({"key": k, "name": names.get(k, k), "kind": kind})
    return out


def round_result(
    *, project: Project, annotator, position: int, names: dict, now=None
) -> dict | None:
    """The latest finished attempt at round ``position``: score, rule, items; gold only if open."""
    from annotation.models import RoundAttempt

    now = now or timezone.now()
    attempt = (
        RoundAttempt.objects.filter(
            qualification__project=project, qualification__annotator=annotator,
            round__position=position, finished_at__isnull=False,
        ).order_by("-number").select_related("round", "qualification").first()
    )  # fmt: skip
    if attempt is None:
        return None
    round_, q = attempt.round, attempt.qualification
    policy = _policy(project)
    opened, note = review_state(policy=policy, qualification=q, round_=round_, attempt=attempt)
    items = []
    for gold in attempt_gold(attempt):
        answer = attempt.answers.get(str(gold.pk)) or [[] for _ in gold.item.sentences]
        sentences = []
        for n, text in enumerate(gold.item.sentences):
            expected = gold.labels[n] if opened else None
            marks = _marks(answer[n], expected, names)
            differs = opened and any(m["kind"] != "both" for m in marks)
            sentences.append({
                "text": text, "marks": marks, "differs": differs,
                "has_yours": any(m["kind"] != "missed" for m in marks),
                "has_expected": any(m["kind"] in ("both", "missed") for m in marks),
            })  # fmt: skip
        items.append({"item": gold.item, "sentences": sentences,
                      "explanation": gold.explanation if opened else ""})  # fmt: skip
    used, next_at = retry_at(q, round_, policy)
    pool = round_pool(round_)
    allowed = attempts_allowed(q, round_, policy)
    return {
        "attempt": attempt,
        "round": round_,
        "score": attempt.f1 if round_.rule == "f1" else attempt.accuracy,
        "rule": RULE_NAMES.get(round_.rule, round_.rule),
        "passed": attempt.passed,
        "eliminated": q.state == State.ELIMINATED,
        "attempts_used": used,
        "attempts_left": 0 if q.state == State.ELIMINATED else max(0, allowed - used),
        # A passed round is not tried again: no time to wait for.
        "retry_at": next_at
        if not attempt.passed and next_at is not None and next_at > now
        else None,
        "review_open": opened,
        "review_note": note,
        "items": items,
        "next_fresh": fresh_left(pool, [a.gold_ids for a in round_attempts(q, round_)])
        >= round_size(round_, pool),
        "last_round": not project.rounds.filter(position__gt=position).exists(),
    }
