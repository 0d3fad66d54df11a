"""Chart studies: the pairs they show, the texts participants read, recruitment and rules."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from core.models import dataset_citation_field, dataset_license_field
from studies.models.library import ChartSet, Question

__all__ = ["Devices", "Platform", "StoppingRule", "Study", "StudyPair"]


def new_study_seed() -> int:
    return secrets.randbelow(2**31)


def study_video_path(instance: Study, filename: str) -> str:
    # The service names the file after its content hash; the uploaded name is never used.
    return f"study_videos/{filename}"


class Platform(models.TextChoices):
    PROLIFIC = "prolific", "Prolific"
    SONA = "sona", "SONA Systems"
    MTURK = "mturk", "Amazon Mechanical Turk"
    PID = "pid", "Plain participant id (?pid=...)"
    NONE = "none", "No id (anonymous link)"

    @property
    def id_param(self) -> str | None:
        """The URL parameter that carries the participant's id on this platform."""
        return PLATFORM_PARAMS[self.value][0]

    @property
    def extra_params(self) -> tuple[str, ...]:
        return PLATFORM_PARAMS[self.value][1]


# platform -> (the id parameter, other parameters recorded with the session)
PLATFORM_PARAMS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "prolific": ("PROLIFIC_PID", ("STUDY_ID", "SESSION_ID")),
    "sona": ("id", ()),
    "mturk": ("workerId", ("assignmentId", "hitId")),
    "pid": ("pid", ()),
    "none": (None, ()),
}


class Devices(models.TextChoices):
    """Which screens a study may be taken on; see studies/services/sessions/devices.py."""

    DESKTOP_TABLET = "desktop_tablet", "Computers and tablets only"
    ALL = "all", "Computers, tablets and phones"


class StoppingRule(models.TextChoices):
    """The stopping rules a study can use. A power rule is not offered: see README."""

    OFF = "off", "Off: recruit until you close the study"
    PRECISION = "precision", "Precision: stop when every chart's interval is narrow enough"


class StudyQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Studies the researcher owns or that were shared with them."""
        if not (user.is_authenticated and user.is_researcher):
            return self.none()
        return self.filter(models.Q(owner=user) | models.Q(collaborators=user)).distinct()


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PILOT = "pilot", "Pilot"
        LIVE = "live", "Live"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_studies"
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_studies"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    # --- design
    chart_set = models.ForeignKey(
        ChartSet, null=True, blank=True, on_delete=models.PROTECT, related_name="studies"
    )
    pairs = models.ManyToManyField(
        Question, through="StudyPair", related_name="studies", blank=True
    )
    seed = models.BigIntegerField(
        default=new_study_seed,
        help_text="With the participant number, fixes each participant's trial order.",
    )
    min_gap = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(500)],
        help_text="At least this many other trials between the two charts of a pair.",
    )

    # --- what participants read
    # Codes of settings.LANGUAGES, checked by study_update. The texts below are in
    # ``language``; ``translations`` holds the others (studies.selectors.languages).
    language = models.CharField(
        max_length=10,
        default="en",
        help_text="The language the texts below are written in; participants whose "
        "language is not offered see this one.",
    )
    other_languages = models.JSONField(
        default=list,
        blank=True,
        help_text="Further languages participants can take the study in.",
    )
    translations = models.JSONField(default=dict, blank=True, editable=False)
    consent_text = models.TextField(blank=True)
    keep_answers_on_withdrawal = models.BooleanField(
        default=False,
        help_text="Keep a withdrawing participant's answers. Only if the consent text says so.",
    )
    instructions_text = models.TextField(blank=True)
    instructions_video = models.FileField(upload_to=study_video_path, blank=True)
    debrief_text = models.TextField(blank=True)

    # --- running it
    fast_answer_commit = models.BooleanField(
        default=False,
        help_text="Confirm each answer before PostgreSQL has flushed it to disk "
        "(synchronous_commit off for answers only). Answers are saved faster under heavy "
        "load, and nothing is ever half-written; but if the database server itself crashes, "
        "the answers of its last second or so can be lost, and their participants are not "
        "asked again. Leave off unless that is acceptable for this study.",
    )
    target_participants = models.PositiveIntegerField(
        null=True,
        blank=True,
        # A million is far beyond any study; the bound turns a slip (a pasted id) into
        # a message instead of a target no study could meet.
        validators=[MinValueValidator(1), MaxValueValidator(1_000_000)],
        help_text="Included participants wanted; the link shows a polite 'full' page after that.",
    )
    time_limit_minutes = models.PositiveIntegerField(
        default=60,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        help_text="The hard limit: a session ends this many minutes after consent.",
    )
    # What participants are told the study usually takes, kept apart from the hard
    # limit so that neither is passed off as the other.
    expected_minutes = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        help_text="What it usually takes. Empty: estimated from completed pilot sessions.",
    )
    allowed_devices = models.CharField(
        max_length=20,
        choices=Devices.choices,
        default=Devices.DESKTOP_TABLET,
        help_text="Phones show a chart about 390 px wide; allow them only if your charts read "
        "well that small.",
    )
    platform = models.CharField(max_length=20, choices=Platform.choices, default=Platform.PROLIFIC)
    completion_code = models.CharField(max_length=100, blank=True)
    completion_url = models.CharField(
        max_length=500,
        blank=True,
        help_text="Where finished participants go; {code} and {pid} are filled in.",
    )

    # --- stopping rule (studies/services/study/stopping.py; analysis/stopping.py)
    stopping_rule = models.CharField(
        max_length=20,
        choices=StoppingRule.choices,
        default=StoppingRule.OFF,
        help_text="Stop taking new participants once every chart's HMI is measured precisely "
        "enough (checked after each completed session).",
    )
    stopping_half_width = models.FloatField(
        default=0.10,
        validators=[MinValueValidator(0.01), MaxValueValidator(0.49)],
        help_text="Precision wanted: the largest half-width of any chart's 95% Wilson interval "
        "(0.10 = HMI within ±10 points).",
    )
    stopping_min_included = models.PositiveIntegerField(
        default=20,
        validators=[MinValueValidator(1)],
        help_text="Never stop before this many included participants.",
    )
    stopping_max_included = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Stop at this many included participants even if not yet precise (empty: no cap).",
    )
    # Set once, when the rule is met; a researcher reopening the study clears them.
    stopped_at = models.DateTimeField(null=True, blank=True, editable=False)
    # "precision" (every interval narrow enough) or "max" (the cap was reached).
    stopped_reason = models.CharField(max_length=20, blank=True, editable=False)
    stopped_detail = models.CharField(max_length=300, blank=True, editable=False)

    # --- exclusion rules (applied by the analysis; previewed on the monitoring page)
    max_attention_failures = models.PositiveSmallIntegerField(
        default=0, help_text="Attention-check failures allowed before a participant is excluded."
    )
    min_seconds_per_trial = models.FloatField(
        default=0,
        # At most 10 minutes, as min_trial_ms: a bigger median excludes everyone.
        validators=[MinValueValidator(0), MaxValueValidator(600)],
        help_text="Exclude participants whose median time per chart is below this (0: off).",
    )
    min_trial_ms = models.PositiveIntegerField(
        default=0,
        validators=[MaxValueValidator(10 * 60 * 1000)],
        help_text="Exclude participants who answered any trial faster than this, in "
        "milliseconds from the chart being shown (0: off).",
    )
    exclude_incomplete = models.BooleanField(
        default=True, help_text="Exclude sessions that did not answer every trial."
    )

    # --- publishing the dataset (written into every dataset export's metadata)
    license = dataset_license_field()
    citation = dataset_citation_field()

    # Participant numbers drive the balanced order; test sessions count separately
    # so a pilot or a preview never disturbs the balance of the real sample.
    live_counter = models.PositiveIntegerField(default=0, editable=False)
    test_counter = models.PositiveIntegerField(default=0, editable=False)

    objects = StudyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title

    @property
    def subject(self) -> str:
        """What the study's jobs and audit entries name it by (as ``Project.subject``)."""
        return self.subject_of(self.pk)

    @staticmethod
    def subject_of(pk: int) -> str:
        """``subject`` from the study's id alone, where only the id is at hand."""
        return f"studies.study:{pk}"

    @property
    def platform_choice(self) -> Platform:
        return Platform(self.platform)

    @property
    def allows_phones(self) -> bool:
        return self.allowed_devices == Devices.ALL

    @property
    def languages(self) -> list[str]:
        """The primary language first, then the others."""
        return [self.language, *(c for c in self.other_languages if c != self.language)]

    @property
    def is_stopped(self) -> bool:
        return self.stopped_at is not None

    @property
    def accepts_participants(self) -> bool:
        return self.status in (self.Status.PILOT, self.Status.LIVE)


class StudyPair(models.Model):
    """A question (and so its pair of charts) used by a study."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="study_pairs")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="study_pairs")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["study_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "question"], name="unique_pair_per_study")
        ]

    def __str__(self) -> str:
        return f"{self.study_id}:{self.question_id}"
