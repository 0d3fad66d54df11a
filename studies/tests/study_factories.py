"""Small chart sets and ready-to-run studies for the study and participant tests.

Built straight through the ORM (with tiny generated PNGs) so these tests do not
depend on the library's import code.
"""

from __future__ import annotations

import io
import itertools

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from studies.models import (
    AnswerType,
    AttentionCheck,
    Chart,
    ChartGroup,
    ChartSet,
    ManipulationType,
    Question,
    Study,
    StudyPair,
)
from studies.services import study_create

_counter = itertools.count(1)

# (answer type, text, options, answer key, parsed key)
QUESTIONS = {
    AnswerType.MULTIPLE_CHOICE: (
        "The graph shows dogs adopted. Which year had more? 1. 2018 2. 2019",
        ["2018", "2019"],
        "2",
        1,
    ),
    AnswerType.FREE_TEXT: (
        "The dogs adopted in 2018 eat 1 million bags of food. How many million bags do the "
        "dogs adopted in 2019 eat?",
        [],
        "1.2",
        1.2,
    ),
    AnswerType.RANKING: (
        "Sort the companies by market share from largest (1) to smallest (3).",
        ["Alpha", "Beta", "Gamma"],
        "Alpha > Beta > Gamma",
        ["Alpha", "Beta", "Gamma"],
    ),
    AnswerType.PROPORTION: (
        "What percentage of the whole is the largest slice? Move the slider.",
        [],
        "35",
        35.0,
    ),
}
CORRECT = {
    AnswerType.MULTIPLE_CHOICE: 1,
    AnswerType.FREE_TEXT: "1.2",
    AnswerType.RANKING: ["Alpha", "Beta", "Gamma"],
    AnswerType.PROPORTION: "38",
}
WRONG = {
    AnswerType.MULTIPLE_CHOICE: 0,
    AnswerType.FREE_TEXT: "5",
    AnswerType.RANKING: ["Gamma", "Beta", "Alpha"],
    AnswerType.PROPORTION: "60",
}


def png_bytes(color=(40, 90, 200), size=(120, 80)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def bar_chart_png(*, truncated: bool, color=(31, 95, 191)) -> bytes:
    """Two bars (250 and 300) on a full or a truncated y-axis, like CHARTOM's G7 pair."""
    width, height, left, bottom, top = 480, 300, 60, 260, 30
    low, high = (240, 305) if truncated else (0, 320)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    step = 10 if truncated else 50
    for tick in range(low - low % step, high + 1, step):
        if tick < low:
            continue
        y = bottom - (bottom - top) * (tick - low) / (high - low)
        draw.line([(left, y), (width - 20, y)], fill=(230, 230, 230))
        draw.text((left - 35, y - 6), str(tick), fill="black")
    for i, (label, value) in enumerate([("2018", 250), ("2019", 300)]):
        x = left + 80 + i * 180
        y = bottom - (bottom - top) * (value - low) / (high - low)
        draw.rectangle([(x, y), (x + 100, bottom)], fill=color)
        draw.text((x + 35, bottom + 10), label, fill="black")
    draw.line([(left, top), (left, bottom), (width - 20, bottom)], fill="black", width=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def make_chart_set(owner, *, pairs: int = 3, answer_types=None) -> ChartSet:
    """A chart set of ``pairs`` complete pairs cycling through the three answer types."""
    n = next(_counter)
    types = answer_types or [AnswerType.MULTIPLE_CHOICE, AnswerType.FREE_TEXT, AnswerType.RANKING]
    chart_set = ChartSet.objects.create(title=f"Test set {n}", slug=f"test-set-{n}", owner=owner)
    manipulation, _ = ManipulationType.objects.get_or_create(
        slug="test-truncated-axis", defaults={"label": "Truncated axis (test)"}
    )
    none, _ = ManipulationType.objects.get_or_create(slug="none", defaults={"label": "None"})
    group = ChartGroup.objects.create(
        chart_set=chart_set, code="G1", chart_type="bar", manipulation=manipulation
    )
    for i in range(pairs):
        answer_type = types[i % len(types)]
        text, options, key, key_value = QUESTIONS[answer_type]
        question = Question.objects.create(
            chart_set=chart_set,
            group=group,
            code=f"G1_Q{i + 1}",
            text=text,
            stem=text.split(" 1. ")[0] if answer_type == AnswerType.MULTIPLE_CHOICE else "",
            answer_type=answer_type,
            options=options,
            answer_key=key,
            key_value=key_value,
        )
        for version in (1, 2):
            chart = Chart(
                question=question,
                version=version,
                chart_id=f"G1_Q{i + 1}_{version}",
                manipulation=manipulation if version == 2 else none,
                alt_text=f"Bar chart G1_Q{i + 1} version {version}",
            )
            data = bar_chart_png(truncated=version == 2, color=((40 + 60 * i) % 255, 95, 191))
            chart.image.save(f"n{n}-q{i}-v{version}.png", ContentFile(data), save=False)
            chart.width, chart.height = 480, 300
            chart.save()
    return chart_set


def add_checks(study: Study, *, positions=(None, None)) -> list[AttentionCheck]:
    """An instructed-response item and a sanity chart (answer: 10)."""
    checks = [
        AttentionCheck.objects.create(
            study=study,
            kind=AttentionCheck.Kind.INSTRUCTED,
            prompt="To show you are reading carefully, select 'Strongly agree'.",
            answer_type=AnswerType.MULTIPLE_CHOICE,
            options=["Strongly disagree", "Disagree", "Agree", "Strongly agree"],
            answer_key="Strongly agree",
            position=positions[0],
        )
    ]
    if len(positions) > 1:
        check = AttentionCheck(
            study=study,
            kind=AttentionCheck.Kind.SANITY,
            prompt="The bar shows 10 apples. How many apples does it show?",
            answer_type=AnswerType.FREE_TEXT,
            answer_key="10",
            position=positions[1],
        )
        check.image.save("sanity.png", ContentFile(png_bytes((200, 60, 60))), save=False)
        check.width, check.height = 120, 80
        check.save()
        checks.append(check)
    return checks


CHECK_CORRECT = {AnswerType.MULTIPLE_CHOICE: 3, AnswerType.FREE_TEXT: "10"}
CHECK_WRONG = {AnswerType.MULTIPLE_CHOICE: 0, AnswerType.FREE_TEXT: "3"}


def make_study(
    owner,
    *,
    pairs: int = 3,
    checks=(None, None),
    status: str = Study.Status.LIVE,
    chart_set: ChartSet | None = None,
    **settings,
) -> Study:
    """A study using every pair of a fresh chart set, ready to run."""
    chart_set = chart_set or make_chart_set(owner, pairs=pairs)
    study = study_create(owner=owner, title=f"Study {next(_counter)}")
    study.chart_set = chart_set
    study.consent_text = "You agree to answer questions about charts. You may stop at any time."
    study.instructions_text = "Answer each question as accurately as you can."
    study.debrief_text = (
        "Some charts were drawn to mislead. Thank you for helping us measure how much."
    )
    study.completion_code = "C0DE42"
    study.platform = settings.pop("platform", "prolific")
    study.status = status
    for name, value in settings.items():
        setattr(study, name, value)
    study.save()
    for i, question in enumerate(chart_set.questions.order_by("code")):
        StudyPair.objects.create(study=study, question=question, position=i)
    if checks:
        add_checks(study, positions=checks)
    return study


def answer_for(trial, *, correct: bool = True):
    """An answer (as the JSON flow takes it) for a trial."""
    if trial.is_attention:
        table = CHECK_CORRECT if correct else CHECK_WRONG
        return table[trial.attention_check.answer_type]
    table = CORRECT if correct else WRONG
    return table[trial.question.answer_type]
