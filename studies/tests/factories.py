"""factory_boy factories for the studies app, and the small scenarios the tests share.

The factories build rows straight through the ORM (with tiny generated PNGs) so these tests
do not depend on the library's import code: ``QuestionFactory(answer_type=AnswerType.RANKING)``
is a ranking question with its key, ``ChartFactory(question=q, version=2)`` its manipulated
chart. ``make_chart_set`` and ``make_study`` put them together into a ready-to-run study.
"""

from __future__ import annotations

import io

import factory
from django.core.files.base import ContentFile
from factory.django import DjangoModelFactory
from PIL import Image, ImageDraw

from core.slugs import unique_slug
from core.tests.factories import UserFactory
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


# --- factories ---------------------------------------------------------------------------


class ManipulationTypeFactory(DjangoModelFactory):
    class Meta:
        model = ManipulationType
        django_get_or_create = ("slug",)

    slug = "test-truncated-axis"
    label = "Truncated axis (test)"


class ChartSetFactory(DjangoModelFactory):
    class Meta:
        model = ChartSet

    title = factory.Sequence(lambda n: f"Test set {n}")
    slug = factory.Sequence(lambda n: f"test-set-{n}")
    owner = factory.SubFactory(UserFactory)


class ChartGroupFactory(DjangoModelFactory):
    class Meta:
        model = ChartGroup

    chart_set = factory.SubFactory(ChartSetFactory)
    code = "G1"
    chart_type = "bar"
    manipulation = factory.SubFactory(ManipulationTypeFactory)


class QuestionFactory(DjangoModelFactory):
    """A FACT question of ``answer_type`` with the text, options and key of ``QUESTIONS``."""

    class Meta:
        model = Question

    chart_set = factory.SubFactory(ChartSetFactory)
    group = factory.SubFactory(ChartGroupFactory, chart_set=factory.SelfAttribute("..chart_set"))
    code = factory.Sequence(lambda n: f"G1_Q{n + 1}")
    answer_type = AnswerType.MULTIPLE_CHOICE
    text = factory.LazyAttribute(lambda o: QUESTIONS[o.answer_type][0])
    stem = factory.LazyAttribute(
        lambda o: o.text.split(" 1. ")[0] if o.answer_type == AnswerType.MULTIPLE_CHOICE else ""
    )
    options = factory.LazyAttribute(lambda o: QUESTIONS[o.answer_type][1])
    answer_key = factory.LazyAttribute(lambda o: QUESTIONS[o.answer_type][2])
    key_value = factory.LazyAttribute(lambda o: QUESTIONS[o.answer_type][3])


def _chart_manipulation(chart) -> ManipulationType:
    """Version 2 carries the group's manipulation; version 1 none."""
    if chart.version == 2:
        return chart.question.group.manipulation
    return ManipulationTypeFactory(slug="none", label="None")


class ChartFactory(DjangoModelFactory):
    """One chart of a pair: a bar chart, on a truncated axis for version 2."""

    class Meta:
        model = Chart

    class Params:
        color = (31, 95, 191)

    question = factory.SubFactory(QuestionFactory)
    version = 1
    chart_id = factory.LazyAttribute(lambda o: f"{o.question.code}_{o.version}")
    manipulation = factory.LazyAttribute(_chart_manipulation)
    alt_text = factory.LazyAttribute(lambda o: f"Bar chart {o.question.code} version {o.version}")
    image = factory.LazyAttribute(
        lambda o: ContentFile(
            bar_chart_png(truncated=o.version == 2, color=o.color), name=f"{o.chart_id}.png"
        )
    )
    width = 480
    height = 300


class StudyFactory(DjangoModelFactory):
    """A live study with its texts and completion code, on a chart set without pairs.

    Use ``make_study`` for one with pairs and attention checks."""

    class Meta:
        model = Study

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Study {n}")
    # As study_create names it.
    slug = factory.LazyAttribute(lambda o: unique_slug(Study, o.title))
    chart_set = factory.SubFactory(ChartSetFactory, owner=factory.SelfAttribute("..owner"))
    consent_text = "You agree to answer questions about charts. You may stop at any time."
    instructions_text = "Answer each question as accurately as you can."
    debrief_text = "Some charts were drawn to mislead. Thank you for helping us measure how much."
    completion_code = "C0DE42"
    platform = "prolific"
    status = Study.Status.LIVE


class StudyPairFactory(DjangoModelFactory):
    class Meta:
        model = StudyPair

    study = factory.SubFactory(StudyFactory)
    question = factory.SubFactory(
        QuestionFactory, chart_set=factory.SelfAttribute("..study.chart_set")
    )
    position = factory.Sequence(lambda n: n)


class AttentionCheckFactory(DjangoModelFactory):
    """An instructed-response item; ``sanity=True`` gives a sanity chart (answer: 10)."""

    class Meta:
        model = AttentionCheck

    class Params:
        sanity = factory.Trait(
            kind=AttentionCheck.Kind.SANITY,
            prompt="The bar shows 10 apples. How many apples does it show?",
            answer_type=AnswerType.FREE_TEXT,
            options=[],
            answer_key="10",
            alt_text="Bar chart: Apples",
            image=factory.LazyFunction(
                lambda: ContentFile(png_bytes((200, 60, 60)), name="sanity.png")
            ),
        )

    study = factory.SubFactory(StudyFactory)
    kind = AttentionCheck.Kind.INSTRUCTED
    prompt = "To show you are reading carefully, select 'Strongly agree'."
    answer_type = AnswerType.MULTIPLE_CHOICE
    options = ["Strongly disagree", "Disagree", "Agree", "Strongly agree"]
    answer_key = "Strongly agree"
    position = None


# --- scenarios ---------------------------------------------------------------------------


def make_chart_set(owner, *, pairs: int = 3, answer_types=None) -> ChartSet:
    """A chart set of ``pairs`` complete pairs cycling through the three answer types."""
    types = answer_types or [AnswerType.MULTIPLE_CHOICE, AnswerType.FREE_TEXT, AnswerType.RANKING]
    chart_set = ChartSetFactory(owner=owner)
    group = ChartGroupFactory(chart_set=chart_set)
    for i in range(pairs):
        question = QuestionFactory(
            chart_set=chart_set, group=group, code=f"G1_Q{i + 1}", answer_type=types[i % len(types)]
        )
        for version in (1, 2):
            ChartFactory(question=question, version=version, color=((40 + 60 * i) % 255, 95, 191))
    return chart_set


def add_checks(study: Study, *, positions=(None, None)) -> list[AttentionCheck]:
    """An instructed-response item and a sanity chart (answer: 10)."""
    checks = [AttentionCheckFactory(study=study, position=positions[0])]
    if len(positions) > 1:
        checks.append(AttentionCheckFactory(study=study, position=positions[1], sanity=True))
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
    study = StudyFactory(owner=owner, chart_set=chart_set, status=status, **settings)
    for i, question in enumerate(chart_set.questions.order_by("code")):
        StudyPairFactory(study=study, question=question, position=i)
    if checks:
        add_checks(study, positions=checks)
    return study


def simulated_study(owner, *, participants=30, pairs=3, seed=4, compute=True, **settings):
    """``make_study`` with simulated participants and, unless ``compute=False``, its results."""
    from studies.selectors.results import study_counted_response_count
    from studies.services.results.compute import results_compute, results_snapshot_save
    from studies.services.results.simulate import study_simulate

    study = make_study(owner, pairs=pairs, **settings)
    study_simulate(study=study, participants=participants, seed=seed, timeout_rate=0.05)
    if compute:
        data = results_compute(study)
        results_snapshot_save(
            study=study, data=data, response_count=study_counted_response_count(study)
        )
    return study


def answer_for(trial, *, correct: bool = True):
    """An answer (as the JSON flow takes it) for a trial."""
    if trial.is_attention:
        table = CHECK_CORRECT if correct else CHECK_WRONG
        return table[trial.attention_check.answer_type]
    table = CORRECT if correct else WRONG
    return table[trial.question.answer_type]
