"""Authoring attention checks: instructed-response items and sanity charts with known answers."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db.models import ProtectedError

from core.db.protection import delete_protected
from core.models import User
from core.services.audit import audit_record
from studies import answer_types, answers
from studies.answer_types import get_type
from studies.images import ImageRejected, generated_name, validate_image
from studies.models import AttentionCheck, Study, chart_alt_text, commonest_chart_type
from studies.selectors.readiness import trials_per_session
from studies.selectors.study import study_design_locked


def _clean_options(answer_type: str, options) -> list[str]:
    items = [" ".join(str(o).split()) for o in (options or [])]
    try:
        return get_type(answer_type).clean_check_options([o for o in items if o])
    except ValueError as exc:
        raise ValidationError({"options": str(exc)}) from None


def _default_alt_text(study: Study) -> str:
    """The image described as the study's charts are ("Bar chart"), so that its alt text
    does not mark it as a check; empty while the study has no charts to take it from."""
    chart_type = commonest_chart_type(
        study.study_pairs.order_by("position", "id").values_list(
            "question__group__chart_type", flat=True
        )
    )
    return chart_alt_text(chart_type) if chart_type else ""


def attention_check_create(
    *,
    study: Study,
    actor: User | None,
    kind: str,
    prompt: str,
    answer_type: str,
    answer_key: str,
    options=(),
    tolerance: float = answers.DEFAULT_TOLERANCE,
    position: int | None = None,
    image: bytes | None = None,
    alt_text: str = "",
) -> AttentionCheck:
    if study_design_locked(study):
        raise ValidationError("Participants have already started; attention checks cannot change.")
    if kind not in AttentionCheck.Kind.values:
        raise ValidationError({"kind": "Choose an instructed-response item or a sanity chart."})
    if answer_type not in answer_types.KEYS:
        raise ValidationError({"answer_type": "Choose an answer type."})
    prompt = (prompt or "").strip()
    if not prompt:
        raise ValidationError({"prompt": "Write what the participant reads."})
    if kind == AttentionCheck.Kind.SANITY and not image:
        raise ValidationError({"image": "A sanity chart needs its chart image."})
    if tolerance is None or tolerance < 0:
        raise ValidationError({"tolerance": "The tolerance is zero or more (0.1 is ±10%)."})
    alt_text = " ".join((alt_text or "").split())
    if len(alt_text) > 300:
        raise ValidationError({"alt_text": "Keep the alt text under 300 characters."})
    if position is not None and position < 1:
        raise ValidationError({"position": "Positions start at 1; leave empty for a random one."})
    last = trials_per_session(study) + 1  # with this check
    if position is not None and position > last:
        raise ValidationError(
            {
                "position": f"With this check each participant has {last} trials: choose a "
                f"position from 1 to {last}, or leave it empty for a random one."
            }
        )
    items = _clean_options(answer_type, options)
    key = (answer_key or "").strip()
    try:
        key_value = answer_types.normalize_key(answer_type, key, options=items)
    except answers.KeyFormatError as exc:
        raise ValidationError({"answer_key": exc.message}) from None
    mismatch = get_type(answer_type).check_key_matches_options(key_value, items)
    if mismatch:
        raise ValidationError({"answer_key": mismatch})

    check = AttentionCheck(
        study=study,
        kind=kind,
        prompt=prompt,
        answer_type=answer_type,
        options=items,
        answer_key=key,
        tolerance=tolerance,
        position=position,
    )
    if image:
        try:
            valid = validate_image(
                image,
                max_bytes=settings.CHARTROOM_MAX_IMAGE_BYTES,
                max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
            )
        except ImageRejected as exc:
            raise ValidationError({"image": exc.message}) from None
        check.image.save(
            generated_name(valid.data, valid.extension), ContentFile(valid.data), save=False
        )
        # Django leaves the dimension fields empty for an unsaved row; we know them already.
        check.width, check.height = valid.width, valid.height
        check.alt_text = alt_text or _default_alt_text(study)
    check.save()
    audit_record(actor=actor, action="study.attention_check.create", subject=study.subject)
    return check


def attention_check_delete_problem(check: AttentionCheck) -> str | None:
    """Why this check cannot be deleted, or None when it can.

    Trials and responses point at their check with PROTECT: a session that was shown
    the check keeps it, so deleting it would mean deleting what those sessions
    recorded. Live sessions fix the whole design; pilot and preview sessions can be
    cleared first, which is the researcher's explicit choice to lose them."""
    if study_design_locked(check.study):
        return "Participants have already started; attention checks cannot change."
    if not delete_protected(check):
        return None
    shown = check.trials.values("session").distinct().count()
    answered = check.responses.values("session").distinct().count()
    plural = "s" if shown != 1 else ""
    return (
        f"{shown} pilot or preview session{plural} {'were' if plural else 'was'} shown this "
        f"check ({answered} answered it). Deleting it would lose what they recorded, so it "
        "stays. Clear the test sessions first (“Delete pilot and preview sessions” on the "
        "study's overview)."
    )


def attention_check_delete(*, check: AttentionCheck, actor: User | None) -> None:
    study = check.study
    problem = attention_check_delete_problem(check)
    if problem:
        raise ValidationError(problem)
    try:
        check.delete()
    except ProtectedError:  # a session was shown it since the check above
        raise ValidationError(
            attention_check_delete_problem(check) or "A session was shown this check; it stays."
        ) from None
    audit_record(actor=actor, action="study.attention_check.delete", subject=study.subject)
