"""factory_boy factories for the annotation app, and label sets written straight to the database.

``ProjectFactory`` goes through ``project_create``, so a project has its seven default
categories like any other; items, assignments and label sets are plain rows.
"""

from __future__ import annotations

from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from annotation.models import Assignment, Item, LabelSet, Project, ReferenceLabels
from annotation.services import project_create
from core.tests.factories import UserFactory


class ProjectFactory(DjangoModelFactory):
    class Meta:
        model = Project

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Caption errors {n}")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        return project_create(**kwargs)


class ItemFactory(DjangoModelFactory):
    """A two-sentence caption of a chart given by URL, as CHOCOLATE's LVLM split has them."""

    class Meta:
        model = Item

    project = factory.SubFactory(ProjectFactory)
    position = factory.Sequence(lambda n: n)
    external_id = factory.LazyAttribute(lambda o: f"item-{o.project.pk}-{o.position}")
    sentences = factory.LazyFunction(lambda: ["Sales rose to 20.4% in 2010.", "They fell later."])
    model = "gpt4v"
    dataset = "pew"
    split = "LVLM"
    image_url = factory.LazyAttribute(lambda o: f"https://charts.example.org/{o.position}.png")


class ReferenceLabelsFactory(DjangoModelFactory):
    class Meta:
        model = ReferenceLabels

    item = factory.SubFactory(ItemFactory)
    labels = factory.LazyAttribute(lambda o: [[] for _ in o.item.sentences])


class AssignmentFactory(DjangoModelFactory):
    """A lease of an item; ``submitted=True`` for one that ended in a label set."""

    class Meta:
        model = Assignment

    class Params:
        seconds = 42.0
        submitted = factory.Trait(
            state=Assignment.State.SUBMITTED,
            leased_at=factory.LazyAttribute(
                lambda o: timezone.now() - timedelta(seconds=o.seconds + 5)
            ),
            finished_at=factory.LazyFunction(timezone.now),
            active_seconds=factory.SelfAttribute("seconds"),
        )

    project = factory.SelfAttribute("item.project")
    item = factory.SubFactory(ItemFactory)
    annotator = factory.SubFactory(UserFactory, role="annotator")
    slot = factory.LazyAttribute(lambda o: Assignment.objects.filter(item=o.item).count())
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(minutes=30))


class LabelSetFactory(DjangoModelFactory):
    class Meta:
        model = LabelSet

    assignment = factory.SubFactory(AssignmentFactory, submitted=True)
    project = factory.SelfAttribute("assignment.project")
    item = factory.SelfAttribute("assignment.item")
    annotator = factory.SelfAttribute("assignment.annotator")
    labels = factory.LazyAttribute(lambda o: [[] for _ in o.item.sentences])
    active_seconds = factory.SelfAttribute("assignment.active_seconds")
    submitted_at = factory.SelfAttribute("assignment.finished_at")


def submit(project, item: Item, annotator, labels, *, seconds: float = 42.0) -> LabelSet:
    """A submitted label set of ``annotator`` on ``item``, with the item's counters moved on as
    the queue would (the queue's rules are tested elsewhere)."""
    assignment = AssignmentFactory(
        project=project, item=item, annotator=annotator, submitted=True, seconds=seconds
    )
    Item.objects.filter(pk=item.pk).update(
        submitted_count=item.submitted_count + 1, filled_count=item.filled_count + 1
    )
    item.refresh_from_db()
    return LabelSetFactory(assignment=assignment, labels=labels)
