"""Caption annotation: projects, categories, items, the work queue and labels."""

from annotation.models.items import ImportBatch, Item, ReferenceLabels
from annotation.models.project import Category, Project, ProjectMember, new_invite_code
from annotation.models.quality import (
    GoldItem,
    Qualification,
    QualificationRound,
    QualityPolicy,
    RoundAttempt,
)
from annotation.models.reports import ProjectReport
from annotation.models.work import Assignment, LabelSet

__all__ = [
    "Assignment",
    "Category",
    "GoldItem",
    "Qualification",
    "QualificationRound",
    "QualityPolicy",
    "RoundAttempt",
    "ImportBatch",
    "Item",
    "LabelSet",
    "Project",
    "ProjectMember",
    "ProjectReport",
    "ReferenceLabels",
    "new_invite_code",
]
