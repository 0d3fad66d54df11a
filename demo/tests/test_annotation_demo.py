"""The demo project `make demo` loads: generated charts, captions, demo annotators and labels."""

from collections import Counter

import pytest

from annotation.models import Item, LabelSet, ReferenceLabels
from annotation.services import assignment_next
from demo.annotation import load_annotation_demo

pytestmark = pytest.mark.django_db


def test_the_demo_project_is_built_once_and_reused(researcher, make_user):
    annotators = [make_user("annotator", username=f"demo{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    items = Item.objects.filter(project=project)
    assert items.count() == 24
    assert all(item.image.name.startswith("annotation/charts/") for item in items)
    assert len(set(items.values_list("image", flat=True))) == 12  # two captions per chart
    assert ReferenceLabels.objects.filter(item__project=project).count() == 24
    assert set(items.values_list("split", flat=True)) == {"LVLM", "LLM", "FT"}
    per_annotator = Counter(LabelSet.objects.values_list("annotator__username", flat=True))
    assert per_annotator == {"demo1": 6, "demo2": 16, "demo3": 16}
    assert project.members.count() == 4  # and annotator-new, who takes the qualification rounds

    again = load_annotation_demo(researcher, annotators)
    assert again.pk == project.pk
    assert Item.objects.filter(project=project).count() == 24
    assert LabelSet.objects.count() == 38

    # The first demo annotator starts on an item one label short of complete.
    # Control items come at random (annotation.services.quality), so they are off here.
    project.quality.control_rate = 0
    project.quality.save()
    lease = assignment_next(project=project, annotator=annotators[0])
    assert lease.item.submitted_count == 2
