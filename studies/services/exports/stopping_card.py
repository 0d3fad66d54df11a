"""What the HMI export's data card says about how recruitment ended (the stopping rule)."""

from __future__ import annotations

from studies.models import StoppingRule, Study


def stopping_card_section(study: Study) -> tuple[str, str]:
    """A data-card section (title, markdown): the stopping rule, and whether and why it
    stopped the study."""
    if study.stopping_rule == StoppingRule.OFF:
        rule = "none: the researcher decided when to stop recruiting"
    else:
        top = study.stopping_max_included or "no maximum"
        rule = (
            f"precision: stop admitting once every chart's 95% Wilson interval is at most "
            f"±{study.stopping_half_width:.2f}, between {study.stopping_min_included} and {top} "
            "included participants, checked after each completed session"
        )
    if study.stopped_at is None:
        stopped = "- Not stopped by the rule."
    else:
        stopped = (
            f"- Stopped by the {study.stopped_reason} rule on {study.stopped_at:%Y-%m-%d %H:%M} "
            f"UTC: {study.stopped_detail} Sessions in progress then were allowed to finish."
        )
    return ("Stopping rule", f"- Rule: {rule}.\n{stopped}")
