"""Annotation projects, their annotators and their error categories."""

import secrets
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from analysis.aggregation import METHODS
from annotation.assignment import strategy as rules
from annotation.defaults import DEFAULT_GUIDELINES, default_split_map
from core.models import dataset_citation_field, dataset_license_field


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


def default_guidelines() -> str:
    return DEFAULT_GUIDELINES


class ProjectQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Projects the researcher owns or that were shared with them."""
        if not (user.is_authenticated and user.is_researcher):
            return self.none()
        return self.filter(models.Q(owner=user) | models.Q(collaborators=user)).distinct()

    def joined_by(self, user):
        if not (user.is_authenticated and user.is_annotator):
            return self.none()
        return self.filter(members__annotator=user)


class Project(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects"
    )
    collaborators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="shared_projects"
    )
    invite_code = models.CharField(max_length=40, unique=True, default=new_invite_code)
    accepting_annotators = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    guidelines = models.TextField(
        default=default_guidelines,
        help_text="Shown to annotators one click away from every item.",
    )
    annotators_per_item = models.PositiveSmallIntegerField(
        "annotators per item (k)",
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="How many different annotators label each item.",
    )
    lease_minutes = models.PositiveIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        help_text="An item not submitted within this time goes back to the pool.",
    )
    split_map = models.JSONField(
        default=default_split_map,
        blank=True,
        help_text="Captioning model -> split (LVLM, LLM, FT ...).",
    )
    pay_per_item = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        default=Decimal("0.50"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text="What an annotator earns for one submitted item.",
    )
    target_hourly_rate = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        default=Decimal("15.00"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text="The hourly pay the project aims for (the CHOCOLATE seed paid $15-20).",
    )
    currency = models.CharField(max_length=3, default="USD")
    # A code of settings.LANGUAGES (checked by project_update, not by choices, so that adding
    # a language needs no migration); see annotation/languages.py.
    language = models.CharField(
        max_length=10,
        default="en",
        help_text="The language of the work page, qualification rounds and guidelines.",
    )
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='Title, description and guidelines per language: {"es": {"guidelines": "..."}}.',
    )
    tie_rule = models.CharField(max_length=10, choices=[("negative", "A tie is no error"), ("positive", "A tie is an error")], default="negative", help_text="How a majority vote with as many raters for as against an error is decided.")  # fmt: skip
    aggregation_method = models.CharField(
        "label aggregation",
        max_length=20,
        choices=list(METHODS.items()),
        default="majority",
        help_text="How each sentence's annotators' labels become one label per category, in the "
        "report and exports. Dawid-Skene and MACE weigh annotators by their estimated accuracy.",
    )

    # --- publishing the dataset (written into every dataset export's metadata)
    license = dataset_license_field()
    citation = dataset_citation_field()

    overlap_policy = models.CharField(
        "overlap",
        max_length=10,
        choices=[(rules.FIXED, "Exactly k per item"), (rules.ADAPTIVE, "Adaptive: k_min, more when undecided, up to k_max")],
        default=rules.FIXED,
        help_text="Adaptive: every item gets k_min label sets; an item they leave undecided gets one more at a time, up to k_max.",
    )  # fmt: skip
    overlap_k_min = models.PositiveSmallIntegerField("k_min", default=2, validators=[MinValueValidator(1), MaxValueValidator(50)], help_text="Adaptive: label sets every item gets.")  # fmt: skip
    overlap_k_max = models.PositiveSmallIntegerField("k_max", default=4, validators=[MinValueValidator(1), MaxValueValidator(50)], help_text="Adaptive: label sets an undecided item gets at most.")  # fmt: skip
    overlap_rule = models.CharField(
        "undecided when",
        max_length=12,
        choices=[(rules.DISAGREEMENT, "Any category differs on any sentence"), (rules.CONFIDENCE, "The aggregation's confidence is below the threshold")],
        default=rules.DEFAULT_RULE,
        help_text="Adaptive: the confidence rule's savings were measured with Dawid-Skene; under majority vote with a threshold below 1/3, any disagreement among up to three label sets asks for another, as the disagreement rule does.",
    )  # fmt: skip
    overlap_threshold = models.FloatField(
        "confidence threshold",
        default=rules.DEFAULT_THRESHOLD,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Confidence rule: a sentence's category is undecided while its posterior lies between this and 1 minus this; "
        "a lower threshold asks for more label sets and buys accuracy with them (simulated CHOCOLATE captions, Dawid-Skene: 0.3 used about 10% fewer than 3 per item with majority vote and was more accurate, 0.4 about 19% fewer and slightly less accurate, 0.1 more).",
    )  # fmt: skip
    # The annotators' rates and class priors of the last fit of the aggregation
    # method, per category ({"method", "categories": {key: {"prior", "rates": {annotator id: [sens, spec]}}}}):
    # the confidence rule scores a new label set with them under the item's lock.
    overlap_estimates = models.JSONField(default=dict, blank=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title

    @property
    def lease_time(self) -> timedelta:
        return timedelta(minutes=self.lease_minutes)

    @property
    def subject(self) -> str:
        return f"annotation.project:{self.pk}"

    def overlap(self) -> rules.Overlap:
        """The overlap policy as the pure assignment rule takes it."""
        return rules.Overlap(
            policy=self.overlap_policy,
            k=self.annotators_per_item,
            k_min=self.overlap_k_min,
            k_max=self.overlap_k_max,
            rule=self.overlap_rule,
            threshold=self.overlap_threshold,
        )

    def category_keys(self) -> list[str]:
        """The keys labels are written in, in the order the categories are shown (one query)."""
        return list(self.categories.order_by("position", "pk").values_list("key", flat=True))


class ProjectMember(models.Model):
    """An annotator who joined a project through its invite code."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="members")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "annotator"], name="one_membership_per_annotator"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.project}"


class Category(models.Model):
    """One error type annotators can mark on a sentence."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="categories")
    # Stored in labels, so it never changes once labels use it; the name can.
    key = models.SlugField(max_length=40)
    name = models.CharField(max_length=60)
    definition = models.TextField()
    example = models.TextField(blank=True)
    shortcut = models.CharField(max_length=1, help_text="One key that toggles it.")
    is_factual = models.BooleanField(
        default=True,
        help_text="Whether this error makes a sentence non-factual (a grammatical slip does not).",
    )
    position = models.PositiveSmallIntegerField(default=0)
    translations = models.JSONField(
        default=dict,
        blank=True,
        help_text='Name, definition and example per language: {"es": {"name": "..."}}.',
    )

    class Meta:
        ordering = ["position", "pk"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="category_key_per_project"),
            models.UniqueConstraint(
                fields=["project", "shortcut"], name="category_shortcut_per_project"
            ),
        ]

    def __str__(self) -> str:
        return self.name
