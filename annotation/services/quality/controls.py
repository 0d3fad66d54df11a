"""Control items in real work: the gate before a lease, mixing controls in, scoring them, pausing.

Control items are gold items that are not part of any qualification round. They
are leased through the very same Assignment rows, ids and pages as any other
item; only these server-side functions know which is which.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import (
    LabelSet,
    Project,
    Qualification,
    QualificationRound,
)
from annotation.selectors.quality import unseen_controls
from annotation.services import queue_sql_store
from annotation.services.quality.common import QualityError, policy_for
from annotation.services.quality.scoring import score_labels
from core.services.audit import audit_record

# SystemRandom: annotators cannot reconstruct the draws from earlier ones.
_rng = random.SystemRandom()

PAUSED_MESSAGE = gettext_lazy(
    "Thank you for your work so far. Your account is paused for this project while the "
    "research team reviews recent labels; they will be in touch. You do not need to do anything."
)
BLOCKED_MESSAGE = gettext_lazy("Thank you for your work. This project has no more items for you.")


def work_gate(
    *, project: Project, annotator, rounds: bool | None = None, qualification=None, read=True
) -> Qualification | None:
    """Refuse new work to anyone not qualified, paused or blocked; None when the project has no rounds.

    A caller that has read them already passes ``rounds`` (whether the project
    has qualification rounds) and ``qualification`` with ``read=False``, which
    saves the queue those queries on its hot path.
    """
    if read:
        qualification = Qualification.objects.filter(project=project, annotator=annotator).first()

    def has_rounds() -> bool:
        if rounds is not None:
            return rounds
        return QualificationRound.objects.filter(project=project).exists()

    if qualification is None:
        if not has_rounds():
            return None
        raise QualityError(
            _("Please take the qualification rounds first."), status=403, code="not_qualified"
        )
    if qualification.work_state == Qualification.Work.BLOCKED:
        raise QualityError(str(BLOCKED_MESSAGE), status=403, code="blocked")
    if qualification.work_state == Qualification.Work.PAUSED:
        raise QualityError(str(PAUSED_MESSAGE), status=403, code="paused")
    if qualification.state == Qualification.State.QUALIFIED:
        return qualification
    if qualification.state == Qualification.State.ELIMINATED:
        raise QualityError(
            _("Thank you for taking the qualification rounds. This project has no work for you."),
            status=403, code="eliminated",
        )  # fmt: skip
    if not has_rounds():
        return qualification
    raise QualityError(
        _("Please take the qualification rounds first."), status=403, code="not_qualified"
    )


def control_draws() -> random.Random:
    """The random source the queue draws each item's kind from (rules.choose)."""
    return _rng


def control_candidates(*, project: Project, annotator):
    """Control items this annotator has never had.

    The queue orders them by its strategy's control order and picks from them
    exactly as it picks ordinary items (one locking query, SKIP LOCKED), then
    leases the item through the same code.
    """
    return unseen_controls(project=project, annotator=annotator)


def control_tally(*, qualification: Qualification | None, control: bool):
    """Count a leased item towards the control rate: one UPDATE, whichever kind it was.

    Returns that UPDATE as (sql, params), for the lease to write with its own
    rows in one statement (queue_sql_store.write_all); None without a standing.
    """
    if qualification is None:
        return None
    qualification.items_taken += 1
    qualification.controls_given += control
    return queue_sql_store.standing_update(qualification, ("items_taken", "controls_given"))


def control_record(
    *, label_set: LabelSet, keys: list[str], project: Project | None = None, standing=None
) -> Qualification | None:
    """Score a submitted label set if its item is a control; may pause the annotator.

    Ordinary items run the very same statements: one read (the annotator's
    standing, locked, with the item's gold labels if it has any) and one UPDATE
    of the standing (only its values differ), so a submit's response time does
    not tell a control apart (bench/bench_controls.py). ``keys`` are the
    project's category keys, which the submit has already read, ``project`` the
    label set's project if the caller has it, ``standing`` what
    queue_sql_store.standing_from gave if the caller has locked and read it with its
    own writes. Returns the annotator's locked, updated standing (None without
    one), which a submit that leases the next item reuses for the work gate.
    """
    if standing is None:
        standing = queue_sql_store.standing_lock(
            label_set.project_id, label_set.annotator_id, label_set.item_id
        )
    qualification, policy, gold = standing
    if qualification is None:
        return None
    if project is None or project.pk != qualification.project_id:
        project = Project.objects.get(pk=qualification.project_id)
    qualification.project = project
    if policy is None:
        policy = policy_for(project)
    project.quality = policy
    if gold is not None:
        value = score_labels(label_set.labels, gold, keys)
        qualification.controls_done += 1
        qualification.control_score_sum += value.value(policy.control_rule)
    _pause_if_below(qualification, policy, actor=None)
    return qualification


def control_label_sets(qualification: Qualification):
    """The annotator's label sets on control items that count towards their running score."""
    label_sets = LabelSet.objects.filter(
        project_id=qualification.project_id,
        annotator_id=qualification.annotator_id,
        item__gold__isnull=False,
    )
    if qualification.controls_since is not None:
        label_sets = label_sets.filter(submitted_at__gte=qualification.controls_since)
    return label_sets.select_related("item__gold")


def _pause_if_below(qualification: Qualification, policy, *, actor) -> None:
    """Save the running score; pause below the threshold once enough controls are in."""
    fields = ["controls_done", "control_score_sum", "updated_at"]
    accuracy = qualification.control_accuracy
    if (
        qualification.work_state == Qualification.Work.ACTIVE
        and qualification.controls_done >= policy.min_controls
        and accuracy is not None
        and accuracy < policy.pause_threshold
    ):
        qualification.work_state = Qualification.Work.PAUSED
        qualification.paused_at = timezone.now()
        fields += ["work_state", "paused_at"]
        audit_record(
            actor=actor,
            action="annotation.annotator_paused",
            subject=qualification.project.subject,
            reason=f"Control score {accuracy:.2f} below {policy.pause_threshold:.2f}",
            details={
                "annotator": qualification.annotator.username,
                "controls": qualification.controls_done,
            },
        )
    qualification.updated_at = timezone.now()
    queue_sql_store.standing_save(qualification, fields)


def qualification_recount(*, qualification_id: int, actor, keys: list[str] | None = None):
    """Recompute the running control score from the label sets (after gold changed)."""
    with transaction.atomic():
        qualification = (
            Qualification.objects.select_for_update(of=("self",))
            .select_related("project", "annotator")
            .get(pk=qualification_id)
        )
        policy = policy_for(qualification.project)
        keys = keys if keys is not None else qualification.project.category_keys()
        scores = [
            score_labels(ls.labels, ls.item.gold.labels, keys).value(policy.control_rule)
            for ls in control_label_sets(qualification)
        ]
        qualification.controls_done = len(scores)
        qualification.control_score_sum = float(sum(scores))
        _pause_if_below(qualification, policy, actor=actor)
    return qualification
