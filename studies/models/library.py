"""The chart library: sets of chart pairs with their FACT questions and answer keys.

A chart set (a benchmark such as CHARTOM, or a researcher's own) holds groups
(G1..G15); a group has one chart type and one manipulation type; a question
(G7_Q1) belongs to a group, and its pair of charts share it: version 1 is the
non-manipulated chart (G7_Q1_1), version 2 the manipulated one (G7_Q1_2).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from studies import answer_types

__all__ = [
    "AnswerType",
    "Chart",
    "ChartGroup",
    "ChartSet",
    "ChartType",
    "ManipulationType",
    "chart_alt_text",
    "commonest_chart_type",
    "Question",
    "MIND_TEMPLATE",
    "PAIR_VERSIONS",
]

# A pair is complete with both charts: the non-manipulated (1) and the manipulated (2),
# Chart.Version's values.
PAIR_VERSIONS = frozenset({1, 2})

MIND_TEMPLATE = (
    "Here is a chart we will present to typical university students and ask them the following "
    "question:\n\n{fact_question}\n\nWhat fraction of typical university students do you predict "
    "will be misled by the chart when answering the question? First, give your prediction as a "
    "decimal number between 0 and 1, then justify your prediction in words."
)


class ChartType(models.TextChoices):
    LINE = "line", "Line"
    BAR = "bar", "Bar"
    SCATTER = "scatter", "Scatter"
    PIE = "pie", "Pie"
    MAP = "map", "Map"


def chart_alt_text(chart_type: str, title: str = "") -> str:
    """A chart image's alt text, "Bar chart" or "Bar chart: <title>": the one form for the
    library's charts and a study's attention-check images, so that a participant's client
    reading the alt text cannot tell a check from a chart."""
    label = ChartType(chart_type).label
    return f"{label} chart: {title}" if title else f"{label} chart"


def commonest_chart_type(chart_types) -> str:
    """The chart type most of ``chart_types`` have (the first listed on a tie), or "" for none:
    what an attention-check image is described as when its author gives no alt text."""
    counts: dict[str, int] = {}
    for chart_type in chart_types:
        if chart_type in ChartType.values:
            counts[chart_type] = counts.get(chart_type, 0) + 1
    return max(counts, key=counts.__getitem__, default="")


# The registered answer types (studies.answer_types), as model choices:
# AnswerType.MULTIPLE_CHOICE == "multiple_choice", and so on for each type.
AnswerType = models.TextChoices(
    "AnswerType", [(t.key.upper(), (t.key, t.label)) for t in answer_types.all_types()]
)


class ManipulationType(models.Model):
    """A visualization fallacy planted in manipulated charts; ships as data, researchers add more."""

    NONE = "none"

    slug = models.SlugField(max_length=60, unique=True)
    label = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    # Words and phrases that name the manipulation, used to check whether a model's
    # justification mentions it ("truncated", "axis does not start at zero", ...).
    vocabulary = models.JSONField(default=list, blank=True)
    builtin = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["label"]

    def __str__(self) -> str:
        return self.label


class ChartSetQuerySet(models.QuerySet):
    def visible_to(self, user):
        if not (user.is_authenticated and user.is_researcher):
            return self.none()
        return self.filter(models.Q(owner=user) | models.Q(collaborators=user)).distinct()


class ChartSet(models.Model):
    """A benchmark: a named collection of chart pairs owned by a researcher."""

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        GENERATED = "generated", "Generated"
        MANUAL = "manual", "Built by hand"

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.MANUAL)
    # What it was last imported from (an upload's or folder's name), for the researcher's record.
    source_name = models.CharField(max_length=255, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chart_sets"
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_chart_sets"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ChartSetQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title


class ChartGroup(models.Model):
    chart_set = models.ForeignKey(ChartSet, on_delete=models.CASCADE, related_name="groups")
    code = models.CharField(max_length=20, help_text="e.g. G7")
    chart_type = models.CharField(max_length=20, choices=ChartType.choices)
    manipulation = models.ForeignKey(
        ManipulationType, on_delete=models.PROTECT, related_name="groups"
    )

    class Meta:
        ordering = ["chart_set", "code"]
        constraints = [
            models.UniqueConstraint(fields=["chart_set", "code"], name="unique_group_code_per_set")
        ]

    def __str__(self) -> str:
        return self.code


class QuestionQuerySet(models.QuerySet):
    def complete(self):
        """The pairs that have both their charts (one join a version; at most one chart each)."""
        queryset = self
        for version in sorted(PAIR_VERSIONS):
            queryset = queryset.filter(charts__version=version)
        return queryset


class Question(models.Model):
    """A FACT question and its answer key, shared by both charts of a pair."""

    chart_set = models.ForeignKey(ChartSet, on_delete=models.CASCADE, related_name="questions")
    group = models.ForeignKey(ChartGroup, on_delete=models.CASCADE, related_name="questions")
    code = models.CharField(max_length=40, help_text="e.g. G7_Q1")
    text = models.TextField(help_text="The FACT question as shown, options included.")
    stem = models.TextField(blank=True, help_text="The question without its numbered options.")
    answer_type = models.CharField(max_length=20, choices=AnswerType.choices)
    options = models.JSONField(
        default=list, blank=True, help_text="Multiple-choice options or ranking items."
    )
    answer_key = models.CharField(max_length=500, help_text="The key as the researcher wrote it.")
    # The key parsed for its type: an option index, a number, or the ordered items.
    key_value = models.JSONField(null=True, blank=True)
    tolerance = models.FloatField(
        default=0.10, help_text="Relative tolerance for free-text numbers."
    )
    # The generator spec a generated pair was rendered from, so it can be rendered again.
    spec = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["chart_set", "group__code", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["chart_set", "code"], name="unique_question_code_per_set"
            )
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def has_both_charts(self) -> bool:
        """Whether the pair is complete; reads ``charts`` (prefetch it for many questions)."""
        return {chart.version for chart in self.charts.all()} == PAIR_VERSIONS

    @property
    def mind_question(self) -> str:
        return MIND_TEMPLATE.format(fact_question=self.text)

    @property
    def kind(self) -> answer_types.BaseAnswerType:
        """This question's answer type, with its rules and template names."""
        return answer_types.get_type(self.answer_type)

    @property
    def prompt(self) -> str:
        """The question as a trial shows it (a multiple-choice stem without its options)."""
        return self.kind.prompt_text(self.text, self.stem)

    @property
    def ranking_rows(self) -> list[dict]:
        """A ranking question's items with a starting place each, for the answer form."""
        return [{"index": i, "item": item, "place": i + 1} for i, item in enumerate(self.options)]


def chart_image_path(instance: Chart, filename: str) -> str:
    # The name is generated from the content hash by the service; `filename` is never the uploaded path.
    return f"charts/{filename}"


class Chart(models.Model):
    class Version(models.IntegerChoices):
        NON_MANIPULATED = 1, "Non-manipulated"
        MANIPULATED = 2, "Manipulated"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="charts")
    version = models.PositiveSmallIntegerField(choices=Version.choices)
    chart_id = models.CharField(max_length=50, help_text="e.g. G7_Q1_2")
    manipulation = models.ForeignKey(
        ManipulationType, on_delete=models.PROTECT, related_name="charts"
    )
    image = models.ImageField(
        upload_to=chart_image_path, width_field="width", height_field="height"
    )
    image_sha256 = models.CharField(max_length=64, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    alt_text = models.CharField(max_length=300, blank=True)
    # The file's name in the upload, shown to researchers only; storage uses the content hash.
    original_name = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["question__chart_set", "chart_id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "version"], name="one_chart_per_version"),
        ]

    def __str__(self) -> str:
        return self.chart_id

    @property
    def is_manipulated(self) -> bool:
        return self.version == self.Version.MANIPULATED

    @property
    def mind_question(self) -> str:
        return self.question.mind_question
