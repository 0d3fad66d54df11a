"""The demo project's quality set-up: two rounds, gold, controls, qualified demo annotators."""

import pytest

from annotation.models import GoldItem, Qualification
from annotation.selectors.quality import control_items, counted_label_sets
from annotation.services import QueueError, assignment_next
from core.models import User
from demo.annotation import NEW_ANNOTATOR, load_annotation_demo

pytestmark = pytest.mark.django_db


def test_the_demo_has_two_rounds_gold_controls_and_a_fresh_annotator(researcher, make_user):
    annotators = [make_user("annotator", username=f"demo{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    assert [r.title for r in project.rounds.all()] == ["A first caption", "A second caption"]
    assert GoldItem.objects.filter(project=project).count() == 8
    assert control_items(project).count() == 4
    # Two attempts, each asking one of a round's two captions: a retry asks the other one.
    assert (project.quality.max_attempts, project.quality.retry_delay_minutes) == (2, 2)
    assert [(r.gold_items.count(), r.items_per_attempt) for r in project.rounds.all()] == [
        (2, 1),
        (2, 1),
    ]
    states = set(
        Qualification.objects.filter(annotator__in=annotators).values_list("state", flat=True)
    )
    assert states == {"qualified"}
    assert assignment_next(project=project, annotator=annotators[0]) is not None
    new = User.objects.get(username=NEW_ANNOTATOR)
    assert new.check_password("chartroom-demo")
    with pytest.raises(QueueError):
        assignment_next(project=project, annotator=new)
    assert counted_label_sets(project).count() > 0
    load_annotation_demo(researcher, annotators)  # idempotent
    assert project.rounds.count() == 2
