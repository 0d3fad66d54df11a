"""A researcher's decision about an annotator, with what it does to the work they hold.

Above both the quality standing (``quality.moderation``, which records the decision) and
the queue (``queue_moves``, which releases leases): the queue imports the quality gate, so
the quality package cannot call the queue itself.
"""

from __future__ import annotations

from annotation.models import Assignment, Project, Qualification
from annotation.services.quality import annotator_decide
from annotation.services.queue_moves import assignment_release

# Actions after which the annotator takes no more work; the items they hold go back to the
# pool at once. Otherwise a blocked annotator could still label (and be paid for) every
# item leased before the block, its label set counted nowhere.
ENDS_WORK = ("block", "disqualify")


def annotator_decision(
    *, project: Project, annotator, action: str, reason: str, actor
) -> Qualification:
    """Apply ``action`` (annotator_decide) and, if it ends their work, release their items.

    The release comes after the decision's commit: a submit locks the item before the
    standing, so taking item locks while holding the standing's could deadlock with one.
    """
    qualification = annotator_decide(
        project=project, annotator=annotator, action=action, reason=reason, actor=actor
    )
    if action in ENDS_WORK:
        open_leases = Assignment.objects.filter(
            project=project, annotator=annotator, state=Assignment.State.LEASED
        ).values_list("pk", flat=True)
        for assignment_id in list(open_leases):
            assignment_release(
                assignment_id=assignment_id,
                project=project,
                actor=actor,
                reason=f"annotator {action}",
            )
    return qualification
