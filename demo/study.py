"""The demo study that `make demo` loads: every pair of a chart set, two attention checks, live."""

from __future__ import annotations

import io

from django.core.files.base import ContentFile
from django.db import transaction
from PIL import Image, ImageDraw

from core.models import User
from demo.study_de import german_translation
from studies.images import generated_name
from studies.models import (
    AnswerType,
    AttentionCheck,
    ChartSet,
    Question,
    Study,
    StudyPair,
    chart_alt_text,
)
from studies.selectors.study import study_has_live_sessions

DEMO_SLUG = "demo-chart-study"
# Where Prolific takes a finished participant; {code} is filled in.
PROLIFIC_COMPLETION = "https://app.prolific.com/submissions/complete?cc={code}"

CONSENT = """You are invited to take part in a study about how people read charts.

You will see charts, one at a time, and answer one short question about each. There are no known risks. Your answers are stored under a random code; your Prolific ID is kept only to pay you and is never published.

Taking part is voluntary."""

INSTRUCTIONS = """Most pages show a chart and one question about it. Answer as accurately as you can: read the axes and labels carefully.

Some questions ask for a number: type it in the box (for example 1.2 or 45). Some ask you to pick an option, and some to put items in order (place each item, first place first; then drag or use the arrows to change the order).

You cannot go back to change an answer. A few pages check that you are reading carefully."""

DEBRIEF = """Thank you! Some of the charts you saw were drawn to mislead: a truncated or inverted axis, a 3D effect, a logarithmic scale. Each came in an honest and a manipulated version of the same data, and your answers tell us how often each manipulation misleads readers."""


# The demo study's settings as `make demo` first makes them (demo_reset puts them back).
STUDY_SETTINGS = {
    "title": "How do people read charts? (demo)",
    "description": "A short study with honest and manipulated versions of the same charts.",
    "consent_text": CONSENT,
    "instructions_text": INSTRUCTIONS,
    "debrief_text": DEBRIEF,
    "language": "en",
    "other_languages": ["de"],
    "platform": "prolific",
    "completion_code": "CHARTROOM-DEMO",
    "completion_url": PROLIFIC_COMPLETION,
    "expected_minutes": 15,
    "time_limit_minutes": 60,
    "max_attention_failures": 0,
    "min_seconds_per_trial": 1.0,
    "min_gap": 2,
    "seed": 20240601,
}


def _sanity_chart() -> bytes:
    """A plain bar chart of one bar reaching 10, with its gridlines labelled."""
    image = Image.new("RGB", (480, 320), "white")
    draw = ImageDraw.Draw(image)
    left, bottom, top = 60, 280, 40
    for value in range(0, 13, 2):
        y = bottom - (bottom - top) * value / 12
        draw.line([(left, y), (440, y)], fill=(225, 225, 225))
        draw.text((left - 28, y - 6), str(value), fill="black")
    bar_top = bottom - (bottom - top) * 10 / 12
    draw.rectangle([(200, bar_top), (300, bottom)], fill=(31, 95, 191))
    draw.line([(left, top), (left, bottom), (440, bottom)], fill="black", width=2)
    draw.text((225, bottom + 10), "Apples", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _complete_pairs(chart_set: ChartSet) -> list[Question]:
    return list(
        Question.objects.filter(chart_set=chart_set).complete().order_by("group__code", "code")
    )


@transaction.atomic
def load_study_demo(owner: User, chart_set: ChartSet) -> Study:
    """Create (or bring up to date) the live demo study over every pair of ``chart_set``.

    Running it again changes nothing once participants have started; before that it
    re-syncs the pairs with the chart set.
    """
    study, _created = Study.objects.get_or_create(
        slug=DEMO_SLUG, defaults={**STUDY_SETTINGS, "owner": owner}
    )
    if not study_has_live_sessions(study):
        pairs = _complete_pairs(chart_set)
        study.chart_set = chart_set
        # Demos loaded before it was set up for Prolific catch up while nobody has started.
        study.platform = "prolific"
        study.completion_url = study.completion_url or PROLIFIC_COMPLETION
        study.expected_minutes = study.expected_minutes or 15
        study.min_gap = min(study.min_gap, max(len(pairs) - 1, 1))
        StudyPair.objects.filter(study=study).delete()
        StudyPair.objects.bulk_create(
            StudyPair(study=study, question=q, position=i) for i, q in enumerate(pairs)
        )
        if not study.attention_checks.exists():
            AttentionCheck.objects.create(
                study=study,
                kind=AttentionCheck.Kind.INSTRUCTED,
                prompt="This item checks that you are reading carefully. Please select 'Strongly agree'.",
                answer_type=AnswerType.MULTIPLE_CHOICE,
                options=["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"],
                answer_key="Strongly agree",
            )
            data = _sanity_chart()
            check = AttentionCheck(
                study=study,
                kind=AttentionCheck.Kind.SANITY,
                prompt="How many apples does the bar show?",
                answer_type=AnswerType.FREE_TEXT,
                answer_key="10",
                alt_text=chart_alt_text("bar", "Apples"),
                width=480,
                height=320,
            )
            check.image.save(generated_name(data, "png"), ContentFile(data), save=False)
            check.width, check.height = 480, 320
            check.save()
        study.status = Study.Status.LIVE if pairs else Study.Status.DRAFT
        study.save()
    if "de" not in (study.translations or {}):
        # Texts only, so a demo that participants already started gains it too.
        study.other_languages = sorted({*study.other_languages, "de"})
        study.translations = {**(study.translations or {}), "de": german_translation(study)}
        study.save(update_fields=["other_languages", "translations", "updated_at"])
    return study
