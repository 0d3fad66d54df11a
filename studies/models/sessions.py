"""Participant sessions, trials and responses, and the study's attention checks."""

from __future__ import annotations

import secrets

from django.db import models
from django.utils import timezone

from studies.models.library import AnswerType, Chart, Question
from studies.models.study import Platform, Study

__all__ = ["AttentionCheck", "ParticipantSession", "Response", "Trial"]


def attention_image_path(instance: AttentionCheck, filename: str) -> str:
    # The service names the file after its content hash. Beside the charts, so that a
    # check's image address does not tell a participant's client that it is a check.
    return f"charts/{filename}"


def new_session_token() -> str:
    # 32 random bytes: the token is the participant's only credential.
    return secrets.token_urlsafe(32)


class AttentionCheck(models.Model):
    """An item with a known answer placed among the charts to catch inattentive participants."""

    class Kind(models.TextChoices):
        INSTRUCTED = (
            "instructed",
            "Instructed response (\u201cselect \u2018Strongly agree\u2019\u201d)",
        )
        SANITY = "sanity", "Sanity chart with a known answer"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="attention_checks")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.INSTRUCTED)
    prompt = models.TextField(help_text="What the participant reads: the instruction or question.")
    image = models.ImageField(
        upload_to=attention_image_path, width_field="width", height_field="height", blank=True
    )
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    # Written like a chart's (library.chart_alt_text), never naming the check as one.
    alt_text = models.CharField(
        max_length=300,
        blank=True,
        help_text="How the image is described to screen readers, as the study's charts are "
        "(e.g. \u201cBar chart: Apples sold\u201d).",
    )
    answer_type = models.CharField(
        max_length=20, choices=AnswerType.choices, default=AnswerType.MULTIPLE_CHOICE
    )
    options = models.JSONField(default=list, blank=True)
    answer_key = models.CharField(max_length=500)
    tolerance = models.FloatField(default=0.10)
    position = models.PositiveIntegerField(
        null=True, blank=True, help_text="1-based trial position; empty for a random position."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["study_id", "id"]

    def __str__(self) -> str:
        return f"Attention check {self.pk}: {self.prompt[:40]}"


class ParticipantSessionQuerySet(models.QuerySet):
    def counted(self):
        """Sessions of the real sample: pilot and preview sessions never count."""
        return self.filter(is_pilot=False, is_preview=False)

    def visible_to(self, user):
        return self.filter(study__in=Study.objects.visible_to(user))


class ParticipantSession(models.Model):
    """One participant's way through a study, held on the server and found by its token."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        COMPLETED = "completed", "Completed"
        TIMED_OUT = "timed_out", "Timed out"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DECLINED = "declined", "Declined consent"
        # The researcher released the platform id so its owner could start again;
        # the session and whatever it recorded are kept as they were.
        ABANDONED = "abandoned", "Abandoned (id released)"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="sessions")
    token = models.CharField(max_length=64, unique=True, default=new_session_token)
    # Position in the study's sequence of participants (live and test sessions are
    # numbered separately); with the study seed it fixes the trial order.
    number = models.PositiveIntegerField(null=True, blank=True)
    is_pilot = models.BooleanField(default=False)
    is_preview = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.IN_PROGRESS)

    platform = models.CharField(max_length=20, choices=Platform.choices, default=Platform.NONE)
    external_id = models.CharField(max_length=100, blank=True)
    platform_params = models.JSONField(default=dict, blank=True)

    order_seed = models.BigIntegerField(null=True, blank=True)
    order = models.JSONField(default=list, blank=True)
    trial_count = models.PositiveIntegerField(default=0)
    # How many trials are answered, so also the 0-based position of the current one.
    current_position = models.PositiveIntegerField(default=0)
    attention_failures = models.PositiveSmallIntegerField(default=0)
    answers_deleted = models.BooleanField(default=False)

    created_at = models.DateTimeField(default=timezone.now)
    consented_at = models.DateTimeField(null=True, blank=True)
    instructions_done_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    debriefed_at = models.DateTimeField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    # One of the study's languages, chosen at the study link; every page of the
    # session and the reading of its numbers follow it.
    language = models.CharField(max_length=10, blank=True)

    objects = ParticipantSessionQuerySet.as_manager()

    class Meta:
        # Orderings name columns, never relations: a relation would pull the related
        # model's ordering (and a join) into every participant query.
        ordering = ["study_id", "created_at", "id"]
        constraints = [
            # The same platform id entering again must find its session, never start a
            # second, until the researcher releases the id (the old session is abandoned).
            models.UniqueConstraint(
                fields=["study", "external_id", "is_pilot"],
                condition=models.Q(is_preview=False)
                & ~models.Q(external_id="")
                & ~models.Q(status="abandoned"),
                name="one_session_per_platform_id",
            ),
            models.UniqueConstraint(
                fields=["study", "number"],
                condition=models.Q(is_pilot=False, is_preview=False, number__isnull=False),
                name="unique_live_participant_number",
            ),
        ]
        indexes = [models.Index(fields=["study", "status"], name="session_study_status")]

    def __str__(self) -> str:
        return f"{self.study_id}#{self.number or '-'} ({self.status})"

    @property
    def is_test(self) -> bool:
        return self.is_pilot or self.is_preview

    @property
    def number_label(self) -> str:
        """The number as researchers read it: pilot and preview sessions count apart from the
        live sample (studies.services.sessions.start), so their numbers repeat live ones and
        are always named with their kind ("pilot 2"); a live participant is just "2"."""
        if self.number is None:
            return ""
        if self.is_preview:
            return f"preview {self.number}"
        if self.is_pilot:
            return f"pilot {self.number}"
        return str(self.number)

    @property
    def answers_on_record(self) -> int:
        """How many of its answers are stored: the trials answered, or none once a withdrawal
        deleted them (answers kept on withdrawal still count, as the session page says)."""
        return 0 if self.answers_deleted else self.current_position

    @property
    def withdrawn_at(self):
        """When the participant withdrew (the monitor's "withdrawn <time>"), else None."""
        return self.ended_at if self.status == self.Status.WITHDRAWN else None

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.IN_PROGRESS

    @property
    def all_answered(self) -> bool:
        return self.current_position >= self.trial_count

    def is_overdue(self, now=None) -> bool:
        return (
            self.status == self.Status.IN_PROGRESS
            and self.deadline is not None
            and (now or timezone.now()) > self.deadline
        )


class Trial(models.Model):
    """One page of a session: a chart of a pair or an attention check, at a fixed position."""

    class Kind(models.TextChoices):
        CHART = "chart", "Chart"
        ATTENTION = "attention", "Attention check"

    session = models.ForeignKey(ParticipantSession, on_delete=models.CASCADE, related_name="trials")
    position = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    chart = models.ForeignKey(
        Chart, null=True, blank=True, on_delete=models.PROTECT, related_name="trials"
    )
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.PROTECT, related_name="trials"
    )
    attention_check = models.ForeignKey(
        AttentionCheck, null=True, blank=True, on_delete=models.PROTECT, related_name="trials"
    )
    # For rankings: the order the items are first listed in, shuffled per trial so
    # that leaving the list as it is does not happen to be the key.
    item_order = models.JSONField(default=list, blank=True)
    shown_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="unique_trial_position"),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="chart", chart__isnull=False, attention_check__isnull=True)
                    | models.Q(kind="attention", chart__isnull=True, attention_check__isnull=False)
                ),
                name="trial_is_chart_or_check",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}@{self.position}"

    @property
    def is_attention(self) -> bool:
        return self.kind == self.Kind.ATTENTION


class Response(models.Model):
    """A participant's answer to one trial. One per trial, enforced by the database."""

    trial = models.OneToOneField(Trial, on_delete=models.CASCADE, related_name="response")
    session = models.ForeignKey(
        ParticipantSession, on_delete=models.CASCADE, related_name="responses"
    )
    # Copied from the trial so the analysis can aggregate per chart without a join.
    # No database constraint on these copies: the trial's own foreign keys already
    # guarantee them, and checking one on every insert would take a share lock on
    # the same chart row for every participant answering it at that moment.
    position = models.PositiveIntegerField()
    chart = models.ForeignKey(
        Chart,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="responses",
        db_constraint=False,
    )
    attention_check = models.ForeignKey(
        AttentionCheck,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="responses",
        db_constraint=False,
    )
    raw_answer = models.TextField()
    # The answer read for its type: a number, a 0-based option index or the ordered items.
    value = models.JSONField(null=True, blank=True)
    correct = models.BooleanField(null=True)
    # The answer's absolute distance from the key, for answer types that measure one
    # (a proportion: points on the 0-100 scale); empty for the others.
    abs_error = models.FloatField(null=True, blank=True)
    shown_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(default=timezone.now)
    # Time on the trial: by the server (shown to answered) and by the client's clock.
    server_ms = models.PositiveIntegerField(null=True, blank=True)
    client_ms = models.PositiveIntegerField(null=True, blank=True)
    # How the answer was given, as the client reports it (empty when it cannot, e.g.
    # a browser without JavaScript): answer-changing actions (a choice, a typed edit,
    # a ranking item placed or moved) and the time from the chart to the first one.
    interactions = models.PositiveIntegerField(null=True, blank=True)
    first_interaction_ms = models.PositiveIntegerField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["session_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="unique_response_idempotency_key",
            )
        ]
        indexes = [models.Index(fields=["chart", "session"], name="response_chart_session")]

    def __str__(self) -> str:
        return f"{self.session_id}@{self.position}: {self.raw_answer[:30]}"
