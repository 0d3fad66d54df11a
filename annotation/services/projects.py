"""Writes for annotation projects, their settings, categories and membership."""

from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from analysis.aggregation import METHODS
from annotation.assignment import strategy as rules
from annotation.defaults import (
    DEFAULT_CATEGORIES,
    DEFAULT_CATEGORY_TRANSLATIONS,
    RESERVED_SHORTCUTS,
    split_for,
)
from annotation.languages import CATEGORY_TEXTS, PROJECT_TEXTS, check_language, clean_translations
from annotation.models import Category, Item, LabelSet, Project, ProjectMember, ReferenceLabels
from annotation.services.overlap import overlap_estimates_refresh, project_disputes_recompute
from core.currencies import currency_error
from core.errors import ServiceError
from core.models import User
from core.services.audit import audit_record
from core.slugs import unique_slug


class InviteError(ServiceError, ValidationError):
    """An invite link that cannot be used, or an account that cannot join with it.

    Still a ValidationError, so the sign-up form shows it beside its fields.
    """

    def __init__(self, message: str, *, status: int = 403, code: str = "invite_refused"):
        ValidationError.__init__(self, message, code=code)
        self.status, self.errors = status, {}


_SHORTCUT_RE = re.compile(r"^[a-z0-9]$")
_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
PROJECT_SETTINGS = (
    "title",
    "description",
    "guidelines",
    "annotators_per_item",
    "lease_minutes",
    "split_map",
    "pay_per_item",
    "target_hourly_rate",
    "currency",
    "accepting_annotators",
    "overlap_policy",
    "overlap_k_min",
    "overlap_k_max",
    "overlap_rule",
    "overlap_threshold",
    "license",
    "citation",
    "aggregation_method",
    "language",
    "translations",
)
# Changing one of these can change which items are undecided.
_DISPUTE_SETTINGS = {"overlap_policy", "overlap_k_min", "overlap_rule", "overlap_threshold"}


def _currency_errors(settings: dict) -> dict:
    if "currency" not in settings:
        return {}
    problem = currency_error(settings["currency"])
    return {"currency": [problem]} if problem else {}


@transaction.atomic
def project_create(
    *, owner: User, title: str, description: str = "", slug: str = "", **settings
) -> Project:
    """A project with the seed's guidelines and seven error categories, ready for imports."""
    unknown = set(settings) - set(PROJECT_SETTINGS)
    if unknown:
        raise TypeError(f"project_create got unexpected settings {sorted(unknown)}")
    if "split_map" in settings:
        settings["split_map"] = _clean_split_map(settings["split_map"])
    errors = {
        **_overlap_errors(Project(), settings),
        **_language_errors(settings),
        **_currency_errors(settings),
    }
    if errors:
        raise ValidationError(errors)
    project = Project.objects.create(
        owner=owner,
        title=title,
        description=description,
        slug=slug or unique_slug(Project, title),
        **settings,
    )
    Category.objects.bulk_create(
        Category(
            project=project,
            position=n,
            translations=DEFAULT_CATEGORY_TRANSLATIONS.get(default.key, {}),
            **default._asdict(),
        )
        for n, default in enumerate(DEFAULT_CATEGORIES)
    )
    return project


def _clean_split_map(value) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValidationError({"split_map": ["Give the split map as model -> split pairs."]})
    cleaned = {}
    for model, split in value.items():
        if not isinstance(model, str) or not isinstance(split, str):
            raise ValidationError({"split_map": ["Model names and splits are text."]})
        model, split = model.strip().lower(), split.strip()
        if not model or not split:
            raise ValidationError({"split_map": ["Each model needs a name and a split."]})
        if len(model) > 60 or len(split) > 20:
            raise ValidationError(
                {"split_map": ["Model names are at most 60 characters, splits at most 20."]}
            )
        cleaned[model] = split
    return cleaned


@transaction.atomic
def project_update(*, project: Project, actor: User | None = None, **changes) -> Project:
    """Change a project's settings; a new split map re-labels every item's split."""
    unknown = set(changes) - set(PROJECT_SETTINGS)
    if unknown:
        raise TypeError(f"project_update got unexpected settings {sorted(unknown)}")
    errors = {}
    if "annotators_per_item" in changes:
        k = changes["annotators_per_item"]
        if not isinstance(k, int) or not 1 <= k <= 50:
            errors["annotators_per_item"] = ["Use a whole number from 1 to 50."]
    if "lease_minutes" in changes:
        minutes = changes["lease_minutes"]
        if not isinstance(minutes, int) or not 1 <= minutes <= 24 * 60:
            errors["lease_minutes"] = ["Use a number of minutes from 1 to 1440."]
    for money in ("pay_per_item", "target_hourly_rate"):
        if money in changes and Decimal(changes[money]) < 0:
            errors[money] = ["Use an amount of zero or more."]
    errors.update(_overlap_errors(project, changes))
    errors.update(_language_errors(changes))
    errors.update(_currency_errors(changes))
    if "aggregation_method" in changes and changes["aggregation_method"] not in METHODS:
        errors["aggregation_method"] = [f"Choose one of {', '.join(METHODS)}."]
    if errors:
        raise ValidationError(errors)
    redispute = any(
        field in _DISPUTE_SETTINGS and changes[field] != getattr(project, field)
        for field in changes
    )
    remap = False
    if "split_map" in changes:
        changes["split_map"] = _clean_split_map(changes["split_map"])
        remap = changes["split_map"] != project.split_map
    before = {field: str(getattr(project, field)) for field in changes if field != "guidelines"}
    for field, value in changes.items():
        setattr(project, field, value)
    project.full_clean()
    project.save(update_fields=list(changes) or None)
    if remap:
        _resplit(project)
    if (
        "aggregation_method" in before
        and before["aggregation_method"] != project.aggregation_method
    ):
        # The confidence rule reads the new method's rates (and recomputes the flags).
        overlap_estimates_refresh(project)
    elif redispute:
        project_disputes_recompute(project)
    if actor is not None and changes:
        audit_record(
            actor=actor,
            action="annotation.project_update",
            subject=project.subject,
            details={"before": before, "fields": sorted(changes)},
        )
    return project


def _language_errors(changes: dict) -> dict:
    """Check the language and the translations, cleaning the translations in place."""
    errors = {}
    if "language" in changes:
        try:
            check_language(changes["language"])
        except ValidationError as exc:
            errors["language"] = exc.messages
    if "translations" in changes:
        try:
            changes["translations"] = clean_translations(changes["translations"], PROJECT_TEXTS)
        except ValidationError as exc:
            errors["translations"] = exc.messages
    return errors


def _overlap_errors(project: Project, changes: dict) -> dict:
    """The overlap settings checked together, with the values they keep where not changed."""
    errors = {}
    policy = changes.get("overlap_policy", project.overlap_policy)
    if policy not in (rules.FIXED, rules.ADAPTIVE):
        errors["overlap_policy"] = ["Choose “fixed” (exactly k) or “adaptive”."]
    rule = changes.get("overlap_rule", project.overlap_rule)
    if rule not in (rules.DISAGREEMENT, rules.CONFIDENCE):
        errors["overlap_rule"] = ["Choose “disagreement” or “confidence”."]
    bounds = {}
    for field in ("overlap_k_min", "overlap_k_max"):
        value = changes.get(field, getattr(project, field))
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 50:
            errors[field] = ["Use a whole number from 1 to 50."]
        bounds[field] = value
    if not errors.keys() & bounds.keys() and bounds["overlap_k_min"] > bounds["overlap_k_max"]:
        errors["overlap_k_max"] = [
            f"k_max must be at least k_min ({bounds['overlap_k_min']}): "
            "an item cannot get fewer label sets at most than it gets at least."
        ]
    threshold = changes.get("overlap_threshold", project.overlap_threshold)
    try:
        threshold = float(threshold)
    except (TypeError, ValueError):
        threshold = -1.0
    if not 0 < threshold < 0.5:
        errors["overlap_threshold"] = [
            "Use a threshold above 0 and below 0.5: a sentence is undecided while its "
            "posterior is between the threshold and 1 minus the threshold."
        ]
    return errors


def _resplit(project: Project) -> None:
    items = list(Item.objects.filter(project=project).only("pk", "model", "split"))
    changed = []
    for item in items:
        split = split_for(item.model, project.split_map)
        if split != item.split:
            item.split = split
            changed.append(item)
    Item.objects.bulk_update(changed, ["split"], batch_size=1000)


def _check_category(project: Project, *, shortcut: str, key: str, exclude_pk=None) -> dict:
    errors = {}
    if not _SHORTCUT_RE.match(shortcut):
        errors["shortcut"] = ["Use one lowercase letter or digit."]
    elif shortcut in RESERVED_SHORTCUTS:
        errors["shortcut"] = [f"“{shortcut}” moves between sentences; choose another key."]
    others = Category.objects.filter(project=project).exclude(pk=exclude_pk)
    if "shortcut" not in errors and others.filter(shortcut=shortcut).exists():
        errors["shortcut"] = [f"Another category already uses the key “{shortcut}”."]
    if not _KEY_RE.match(key) or len(key) > 40:
        errors["key"] = ["Use lowercase letters, digits, _ or - (at most 40)."]
    elif others.filter(key=key).exists():
        errors["key"] = [f"Another category already has the key “{key}”."]
    return errors


def category_create(
    *,
    project: Project,
    key: str,
    name: str,
    definition: str,
    shortcut: str,
    example: str = "",
    is_factual: bool = True,
    translations: dict | None = None,
) -> Category:
    shortcut = (shortcut or "").strip().lower()
    key = (key or "").strip().lower()
    errors = _check_category(project, shortcut=shortcut, key=key)
    if not name.strip():
        errors["name"] = ["Give the category a name."]
    if not definition.strip():
        errors["definition"] = ["Annotators need a definition."]
    try:
        translations = clean_translations(translations, CATEGORY_TEXTS)
    except ValidationError as exc:
        errors["translations"] = exc.messages
    if errors:
        raise ValidationError(errors)
    last = Category.objects.filter(project=project).order_by("-position").first()
    return Category.objects.create(
        project=project,
        key=key,
        name=name.strip(),
        definition=definition.strip(),
        example=example.strip(),
        shortcut=shortcut,
        is_factual=is_factual,
        translations=translations,
        position=(last.position + 1) if last else 0,
    )


def category_update(*, category: Category, **changes) -> Category:
    """Edit a category's wording, key binding or factual flag; its stored key never changes."""
    allowed = {
        "name",
        "definition",
        "example",
        "shortcut",
        "is_factual",
        "position",
        "translations",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise ValidationError({field: ["This cannot be changed."] for field in sorted(unknown)})
    if "shortcut" in changes:
        changes["shortcut"] = (changes["shortcut"] or "").strip().lower()
        errors = _check_category(
            category.project,
            shortcut=changes["shortcut"],
            key=category.key,
            exclude_pk=category.pk,
        )
        errors.pop("key", None)
        if errors:
            raise ValidationError(errors)
    for field in ("name", "definition"):
        if field in changes and not str(changes[field]).strip():
            raise ValidationError({field: ["This cannot be empty."]})
    if "translations" in changes:
        try:
            changes["translations"] = clean_translations(changes["translations"], CATEGORY_TEXTS)
        except ValidationError as exc:
            raise ValidationError({"translations": exc.messages}) from None
    for field, value in changes.items():
        setattr(category, field, value.strip() if isinstance(value, str) else value)
    category.save(update_fields=list(changes) or None)
    return category


def category_delete(*, category: Category) -> None:
    project = category.project
    used = (
        LabelSet.objects.filter(project=project).exists()
        or ReferenceLabels.objects.filter(item__project=project).exists()
        or project.assignments.filter(draft__isnull=False).exists()
    )
    if used:
        raise ValidationError(
            "Labels already use this project's categories, so none can be removed. "
            "Rename it or change its definition instead."
        )
    category.delete()


def project_for_invite(*, code: str) -> Project:
    project = Project.objects.filter(invite_code=code).first()
    if project is None:
        raise InviteError(_("This invite link is not valid. Ask the researcher for a new one."))
    if not project.accepting_annotators:
        raise InviteError(_("This project is not taking new annotators at the moment."))
    return project


def project_join(*, project: Project, annotator: User) -> ProjectMember:
    if not annotator.is_annotator:
        raise InviteError(_("Only annotator accounts can join a project. Sign in as an annotator."))
    member, _created = ProjectMember.objects.get_or_create(project=project, annotator=annotator)
    return member


@transaction.atomic
def annotator_sign_up(*, project: Project, username: str, password: str, email: str = "") -> User:
    """Create an annotator account and its membership together, or neither."""
    user = User.objects.create_user(
        username=username, password=password, email=email, role=User.Role.ANNOTATOR
    )
    project_join(project=project, annotator=user)
    return user
