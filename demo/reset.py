"""`make demo-reset`: what a visit to the demo changed, put back (demo_reset runs these).

The expensive parts that a visit cannot change (the chart library's renders, the
simulated participants) stay; load_demo then redoes only what a reset removed, such
as the results of a study whose visitor sessions or settings changed.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import ProtectedError

from annotation.models import Project
from core.models import ApiToken, User
from demo.annotation import DEMO_SLUG as PROJECT_SLUG
from demo.library import DEMO_SET_SLUG
from demo.model_eval import DEMO_MODELS
from demo.study import DEMO_SLUG as STUDY_SLUG
from demo.study import STUDY_SETTINGS
from demo.study_de import german_translation
from studies.models import ChartSet, ModelRun, ParticipantSession, Study, StudyResults


@transaction.atomic
def study_demo_reset(owner: User) -> tuple[int, list[str]]:
    """Remove the visitors' sessions, put the settings, status and models back.

    Returns (sessions removed, settings put back). The results snapshot goes when
    either changed the numbers, so load_demo computes it afresh.
    """
    study = Study.objects.filter(slug=STUDY_SLUG).first()
    if study is None:
        return 0, []
    # The printed link carries a fresh made-up id each time, so every session but the
    # simulated participants' (``sim-<seed>-<i>``) came from a visitor.
    visitors = ParticipantSession.objects.filter(study=study).exclude(
        external_id__startswith="sim-"
    )
    removed = visitors.count()
    visitors.delete()
    changed = [name for name, value in STUDY_SETTINGS.items() if getattr(study, name) != value]
    for name in changed:
        setattr(study, name, STUDY_SETTINGS[name])
    german = {"de": german_translation(study)}
    if study.translations != german:
        study.translations = german
        changed.append("translations")
    if study.status != Study.Status.LIVE:
        changed.append("status")
    study.status, study.owner = Study.Status.LIVE, owner
    study.save()
    ModelRun.objects.filter(study=study).exclude(model__in=DEMO_MODELS).delete()
    if removed or changed:
        StudyResults.objects.filter(study=study).delete()
    return removed, changed


def researcher_extras_remove(owner: User) -> dict[str, int]:
    """Studies, projects, chart sets and API tokens the demo researcher made during a visit.

    A study goes with everything its participants left: the sessions (and with them
    their trials and answers) first, since an answer to an attention check protects the
    check, and the check goes with its study.
    """
    removed = {
        "studies": 0,
        "participant sessions": 0,
        "annotation projects": 0,
        "chart sets": 0,
        "API tokens": 0,
    }
    with transaction.atomic():
        studies = Study.objects.filter(owner=owner).exclude(slug=STUDY_SLUG)
        removed["participant sessions"] = _delete(
            ParticipantSession.objects.filter(study__in=studies)
        )
        removed["studies"] = _delete(studies)
        removed["annotation projects"] = _delete(
            Project.objects.filter(owner=owner).exclude(slug=PROJECT_SLUG)
        )
        removed["API tokens"] = _delete(ApiToken.objects.filter(user=owner))
        for chart_set in ChartSet.objects.filter(owner=owner).exclude(slug=DEMO_SET_SLUG):
            try:
                with transaction.atomic():
                    chart_set.delete()
                removed["chart sets"] += 1
            except ProtectedError:
                pass  # another researcher's study uses it: theirs to keep
    return removed


# What researcher_extras_remove counts, as one thing and as many.
NOUNS = {
    "studies": ("study", "studies"),
    "participant sessions": ("participant session", "participant sessions"),
    "annotation projects": ("annotation project", "annotation projects"),
    "chart sets": ("chart set", "chart sets"),
    "API tokens": ("API token", "API tokens"),
}


def counted(n: int, one: str, many: str) -> str:
    """``1 study``, ``2 studies``, ``0 studies``."""
    return f"{n} {one if n == 1 else many}"


def extras_text(removed: dict[str, int]) -> str:
    """researcher_extras_remove's counts in words: "1 study, 3 participant sessions in it"."""
    parts = []
    for key, n in removed.items():
        if not n:
            continue
        text = counted(n, *NOUNS[key])
        if key == "participant sessions":
            text += " in it" if removed["studies"] == 1 else " in them"
        parts.append(text)
    return ", ".join(parts) or "nothing"


def _delete(queryset) -> int:
    count = queryset.count()
    queryset.delete()
    return count
