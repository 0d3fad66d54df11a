"""Quality control: gold labels, qualification rounds and each annotator's standing.

Gold lives in its own tables, like reference labels: nothing that loads items or
assignments for annotators joins them, so gold cannot leak through a serializer
that forgot to leave a field out.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from annotation.models.items import Item
from annotation.models.project import Project

# Defaults, documented in the researcher's quality page: F1 on the error labels is
# the default rule because most (sentence, category) decisions are "no error", so
# accuracy is high even for someone who presses nothing; 0.6 is the pass mark the
# seed's "correspond closely" suggests for a sparse 7-category task.
DEFAULT_RULE = "f1"
DEFAULT_PASS_MARK = 0.6
# A slip should not end someone's time on a project: two attempts per round, and a
# short wait in between so a retry is a fresh look rather than a reflex.
DEFAULT_MAX_ATTEMPTS = 2
DEFAULT_RETRY_DELAY_MINUTES = 10


class QualityPolicy(models.Model):
    """A project's quality settings (one row, created on first use)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="quality")
    max_attempts = models.PositiveSmallIntegerField(
        default=DEFAULT_MAX_ATTEMPTS,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text=(
            "Attempts per qualification round; 1 means a failed round eliminates. Raising it "
            "re-opens the round for annotators who used every attempt under the old limit."
        ),
    )
    retry_delay_minutes = models.PositiveIntegerField(
        default=DEFAULT_RETRY_DELAY_MINUTES,
        validators=[MaxValueValidator(7 * 24 * 60)],
        help_text="Wait between a failed attempt and the next one, in minutes.",
    )
    show_gold_after_round = models.BooleanField(
        default=False,
        help_text=(
            "After each round, show the annotator the gold labels, as soon as doing so cannot "
            "give a retry away (the retry asks other captions, or no attempt is left)."
        ),
    )
    control_rate = models.FloatField(
        default=0.1,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Share of the items a qualified annotator gets that are control items.",
    )
    pause_threshold = models.FloatField(
        default=0.6,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Pause an annotator whose running control score falls below this.",
    )
    control_rule = models.CharField(
        max_length=10,
        choices=[("f1", "F1 on error labels"), ("accuracy", "Accuracy over all decisions")],
        default=DEFAULT_RULE,
        help_text="How one control item is scored; the running score is the mean.",
    )
    min_controls = models.PositiveSmallIntegerField(
        default=5, help_text="Controls an annotator labels before they can be paused."
    )

    def __str__(self) -> str:
        return f"quality policy of {self.project}"


class GoldItem(models.Model):
    """The researchers' labels for an item: used in qualification rounds and as control items."""

    class Source(models.TextChoices):
        ANNOTATED = "annotated", "Annotated by a researcher"
        REFERENCE = "reference", "Imported reference labels"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="gold_items")
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="gold")
    labels = models.JSONField(help_text="One list of category keys per sentence.")
    explanation = models.TextField(blank=True, help_text="Shown with the gold labels, if enabled.")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.ANNOTATED)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["item__position", "pk"]

    def __str__(self) -> str:
        return f"gold of {self.item}"


class QualificationRound(models.Model):
    class Rule(models.TextChoices):
        F1 = "f1", "F1 on error labels"
        ACCURACY = "accuracy", "Accuracy over all decisions"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rounds")
    position = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=120)
    gold_items = models.ManyToManyField(GoldItem, related_name="rounds")
    rule = models.CharField(max_length=10, choices=Rule.choices, default=DEFAULT_RULE)
    pass_mark = models.FloatField(
        default=DEFAULT_PASS_MARK, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    # Empty: the project's "attempts per round"; raising either re-opens the round.
    max_attempts = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text="Attempts at this round; empty uses the project's attempts per round.",
    )
    # The round's gold items are a pool; each attempt asks this many of them, items the
    # annotator has not had first, so a retry can ask different items (see draws.py).
    items_per_attempt = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Captions asked per attempt; empty asks every gold item of the round.",
    )

    # Like a project's (annotation/languages.py): annotators read the title in the project's
    # language, falling back to the title itself.
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='The title per language: {"de": {"title": "..."}}.',
    )

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["project", "position"], name="round_position_unique")
        ]

    def __str__(self) -> str:
        return f"round {self.position}: {self.title}"


class Qualification(models.Model):
    """One annotator's standing in a project: rounds passed, controls, pauses."""

    class State(models.TextChoices):
        INVITED = "invited", "Invited"
        STARTED = "started", "Taking rounds"
        QUALIFIED = "qualified", "Qualified"
        ELIMINATED = "eliminated", "Eliminated"

    class Work(models.TextChoices):
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        BLOCKED = "blocked", "Blocked"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualifications")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualifications"
    )
    state = models.CharField(max_length=12, choices=State.choices, default=State.INVITED)
    rounds_passed = models.PositiveSmallIntegerField(default=0)
    work_state = models.CharField(max_length=8, choices=Work.choices, default=Work.ACTIVE)
    # A blocked annotator's labels stay out of the data unless this is set.
    labels_included = models.BooleanField(default=False)
    manual_reason = models.TextField(blank=True)
    # Running control score: the sum of per-control scores and how many controls.
    # Each control's score is not stored apart: it is recomputed from the label set
    # and the gold whenever needed (qualification_recount), which keeps a control's
    # submit to the same statements as an ordinary one.
    controls_done = models.PositiveIntegerField(default=0)
    control_score_sum = models.FloatField(default=0.0)
    # Controls submitted before this (the researcher resumed the annotator) no longer count.
    controls_since = models.DateTimeField(null=True, blank=True)
    # Items taken since qualifying; drives the control rate deterministically.
    items_taken = models.PositiveIntegerField(default=0)
    controls_given = models.PositiveIntegerField(default=0)
    paused_at = models.DateTimeField(null=True, blank=True)
    # {round id (str): n}: attempts a researcher allowed this annotator on top of the limit.
    extra_attempts = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "annotator"], name="one_qualification_per_annotator"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.project}: {self.state}"

    @property
    def control_accuracy(self) -> float | None:
        return self.control_score_sum / self.controls_done if self.controls_done else None


class RoundAttempt(models.Model):
    qualification = models.ForeignKey(
        Qualification, on_delete=models.CASCADE, related_name="attempts"
    )
    round = models.ForeignKey(QualificationRound, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The gold item ids this attempt asks, in the order it asks them (drawn at its start).
    gold_ids = models.JSONField(default=list, blank=True)
    # {gold item id (str): labels}: the annotator's answers, kept for the side-by-side view.
    answers = models.JSONField(default=dict, blank=True)
    drafts = models.JSONField(default=dict, blank=True)
    accuracy = models.FloatField(null=True, blank=True)
    f1 = models.FloatField(null=True, blank=True)
    passed = models.BooleanField(null=True)

    class Meta:
        ordering = ["started_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["qualification", "round", "number"], name="attempt_number_unique"
            )
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.round}"
