"""Editing a study: its settings, the pairs it shows and the instructions video."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import File
from django.db import transaction
from django.template.defaultfilters import pluralize

from core.errors import ServiceError
from core.models import User
from core.services.audit import audit_record
from studies.models import ChartSet, Question, Study, StudyPair
from studies.selectors.study import study_design_locked
from studies.services.results.exclusion import results_inputs_changed
from studies.services.study.languages import languages_clean
from studies.services.study.stopping import study_stop_clear

STOPPING_FIELDS = (
    "stopping_rule",
    "stopping_half_width",
    "stopping_min_included",
    "stopping_max_included",
)
SETTINGS_FIELDS = (
    "title",
    "description",
    "language",
    "other_languages",
    "consent_text",
    "keep_answers_on_withdrawal",
    "instructions_text",
    "debrief_text",
    "target_participants",
    "time_limit_minutes",
    "expected_minutes",
    "allowed_devices",
    "platform",
    "completion_code",
    "completion_url",
    "max_attention_failures",
    "min_seconds_per_trial",
    "min_trial_ms",
    "exclude_incomplete",
    "fast_answer_commit",
    "seed",
    "min_gap",
    "license",
    "citation",
    *STOPPING_FIELDS,
)
# The exclusion rules: computed results depend on them.
EXCLUSION_FIELDS = (
    "max_attention_failures",
    "min_seconds_per_trial",
    "min_trial_ms",
    "exclude_incomplete",
)
# Changing these after real participants started would break the balance of the
# order or the meaning of the ids already collected.
DESIGN_FIELDS = ("seed", "min_gap", "platform")

VIDEO_TYPES = {"mp4": "video/mp4", "webm": "video/webm", "ogv": "video/ogg"}
VIDEO_HINT = "MP4, WebM or Ogg"


def _check_completion_url(url: str) -> None:
    # Participants are sent there with their completion code (and often their platform
    # id) in the address: over plain http anyone on the network could read or change it.
    if not url:
        return
    parts = urlsplit(url.strip())
    if parts.scheme.lower() != "https" or not parts.hostname:
        raise ValidationError(
            {
                "completion_url": "Use a full https:// address (e.g. https://app.prolific.com/"
                "submissions/complete?cc={code}); plain http:// and other schemes are refused "
                "because the address carries the participant's completion code."
            }
        )


def study_update(*, study: Study, actor: User | None, **changes) -> Study:
    """Change a study's settings; unknown fields are refused, the design locks once live."""
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValidationError(
            dict.fromkeys(sorted(unknown), "This setting cannot be changed here.")
        )
    changed = {f: v for f, v in changes.items() if getattr(study, f) != v}
    if not changed:
        return study
    locked = [f for f in changed if f in DESIGN_FIELDS]
    if locked and study_design_locked(study):
        raise ValidationError(
            dict.fromkeys(locked, "Participants have already started; this cannot change any more.")
        )
    if "title" in changed and not str(changed["title"]).strip():
        raise ValidationError({"title": "Give the study a title."})
    _check_completion_url(changed.get("completion_url", ""))
    if {"language", "other_languages"} & set(changed):
        language, others = languages_clean(
            changed.get("language", study.language),
            changed.get("other_languages", study.other_languages),
        )
        changed.update(language=language, other_languages=others)
    for name, value in changed.items():
        setattr(study, name, value)
    study.full_clean(exclude=["slug", "owner", "chart_set", "instructions_video"])
    low, high = study.stopping_min_included, study.stopping_max_included
    if high is not None and high < low:
        raise ValidationError({"stopping_max_included": "Make the maximum at least the minimum."})
    study.save(update_fields=[*changed, "updated_at"])
    if set(changed) & set(STOPPING_FIELDS):
        # A new rule decides afresh at the next completed session.
        study_stop_clear(study)
    if set(changed) & set(EXCLUSION_FIELDS):
        results_inputs_changed(study)
    audit_record(
        actor=actor,
        action="study.update",
        subject=study.subject,
        details={"fields": sorted(changed)},
    )
    return study


class PairsWouldBeReplaced(ServiceError):
    """The new choice drops pairs the study uses now, and the request did not say replace."""

    status = 409
    code = "pairs_replaced"

    def __init__(self, dropped: list[Question]):
        self.dropped = dropped
        n = len(dropped)
        super().__init__(
            f"This replaces {n} pair{pluralize(n)} the study uses now "
            f"({', '.join(q.code for q in dropped[:20])}{' ...' if n > 20 else ''}). "
            "Send replace=true to replace them.",
            errors={"replace": [f"{n} chosen pair{pluralize(n)} would be removed."]},
        )

    def body(self) -> dict:
        return {**super().body(), "code": self.code, "replaced": len(self.dropped)}


@transaction.atomic
def study_pairs_set(
    *,
    study: Study,
    chart_set: ChartSet,
    question_ids,
    actor: User | None,
    replace: bool = True,
) -> list[StudyPair]:
    """Use exactly these questions (pairs) of ``chart_set`` in the study.

    With ``replace=False`` a choice that drops any pair the study uses now is refused
    (PairsWouldBeReplaced) and nothing changes: the API and the pairs page ask first.
    """
    if study_design_locked(study):
        raise ValidationError(
            {"questions": "Participants have already started; the pairs cannot change any more."}
        )
    wanted = {int(q) for q in question_ids}
    questions = list(
        Question.objects.filter(chart_set=chart_set, id__in=wanted)
        .prefetch_related("charts")
        .order_by("group__code", "code")
    )
    missing = wanted - {q.id for q in questions}
    if missing:
        raise ValidationError(
            {
                "questions": f"{len(missing)} of the chosen pairs are not in the chart set “{chart_set}”."
            }
        )
    incomplete = [q.code for q in questions if not q.has_both_charts]
    if incomplete:
        raise ValidationError(
            {"questions": "These pairs lack a chart and cannot be used: " + ", ".join(incomplete)}
        )
    if not replace:
        dropped = list(
            Question.objects.filter(study_pairs__study=study)
            .exclude(id__in=wanted)
            .select_related("group")  # the confirmation lists each pair's chart type
            .order_by("code")
        )
        if dropped:
            raise PairsWouldBeReplaced(dropped)
    StudyPair.objects.filter(study=study).delete()
    pairs = StudyPair.objects.bulk_create(
        StudyPair(study=study, question=q, position=i) for i, q in enumerate(questions)
    )
    if study.chart_set_id != chart_set.pk:
        study.chart_set = chart_set
        study.save(update_fields=["chart_set", "updated_at"])
    audit_record(
        actor=actor,
        action="study.pairs",
        subject=study.subject,
        details={"chart_set": chart_set.pk, "questions": sorted(wanted)},
    )
    return pairs


def video_kind(head: bytes) -> str | None:
    """The container of a video from its first bytes: mp4, webm or ogv (None otherwise)."""
    if len(head) >= 12 and head[4:8] == b"ftyp":
        return "mp4"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "webm"
    if head.startswith(b"OggS"):
        return "ogv"
    return None


def study_video_set(*, study: Study, upload, actor: User | None) -> Study:
    """Store an instructions video after checking its size and that it really is a video."""
    limit = getattr(settings, "CHARTROOM_MAX_VIDEO_BYTES", settings.CHARTROOM_MAX_UPLOAD_BYTES)
    size = getattr(upload, "size", None) or 0
    if size <= 0:
        raise ValidationError({"instructions_video": "The file is empty."})
    if size > limit:
        raise ValidationError(
            {
                "instructions_video": f"The video is {size / 2**20:.0f} MB; the limit is "
                f"{limit / 2**20:.0f} MB. Please compress it."
            }
        )
    upload.seek(0)
    kind = video_kind(upload.read(64))
    if kind is None:
        raise ValidationError(
            {"instructions_video": f"This file is not a video browsers can play ({VIDEO_HINT})."}
        )
    upload.seek(0)
    digest = hashlib.sha256()
    for chunk in (
        upload.chunks() if hasattr(upload, "chunks") else iter(lambda: upload.read(2**20), b"")
    ):
        digest.update(chunk)
    upload.seek(0)
    old = study.instructions_video.name if study.instructions_video else ""
    study.instructions_video.save(f"{digest.hexdigest()}.{kind}", File(upload), save=False)
    study.save(update_fields=["instructions_video", "updated_at"])
    if old and old != study.instructions_video.name:
        study.instructions_video.storage.delete(old)
    audit_record(actor=actor, action="study.video", subject=study.subject)
    return study


def study_video_clear(*, study: Study, actor: User | None) -> Study:
    if study.instructions_video:
        study.instructions_video.delete(save=False)
        study.instructions_video = ""
        study.save(update_fields=["instructions_video", "updated_at"])
        audit_record(actor=actor, action="study.video.remove", subject=study.subject)
    return study
