"""Migration 0007: attempts made before draws keep asking every gold item of their round."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0006_control_scores_from_label_sets")]
AFTER = [("annotation", "0007_retries_item_draws_and_extra_attempts")]


@pytest.fixture(autouse=True)
def _back_to_the_latest():
    """Later tests expect every migration applied, whichever one this test stopped at."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_earlier_attempts_get_their_rounds_items_in_item_order():
    apps = _migrate(BEFORE)
    User = apps.get_model("core", "User")
    Project = apps.get_model("annotation", "Project")
    Item = apps.get_model("annotation", "Item")
    GoldItem = apps.get_model("annotation", "GoldItem")
    Round = apps.get_model("annotation", "QualificationRound")
    Qualification = apps.get_model("annotation", "Qualification")
    Attempt = apps.get_model("annotation", "RoundAttempt")
    owner = User.objects.create(username="owner", role="researcher")
    anna = User.objects.create(username="anna", role="annotator")
    project = Project.objects.create(owner=owner, title="P", slug="p", invite_code="y" * 12)
    golds = []
    for position in (2, 1):
        item = Item.objects.create(project=project, external_id=f"i{position}",
                                   sentences=["A."], position=position)  # fmt: skip
        golds.append(GoldItem.objects.create(project=project, item=item, labels=[[]]))
    round_ = Round.objects.create(project=project, position=1, title="R")
    round_.gold_items.set(golds)
    q = Qualification.objects.create(project=project, annotator=anna)
    Attempt.objects.create(qualification=q, round=round_, number=1)

    apps = _migrate(AFTER)
    Attempt = apps.get_model("annotation", "RoundAttempt")
    assert Attempt.objects.get().gold_ids == [golds[1].pk, golds[0].pk]  # item 1, then item 2
