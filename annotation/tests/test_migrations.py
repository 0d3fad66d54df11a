"""Data migrations of annotation: each test builds rows with the historical models of the
migration before, migrates one step, and reads what the data migration made of them."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)


def _executor():
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.fixture
def migrate():
    """Migrate to a node and return its historical apps; afterwards every migration is applied
    again, since later tests expect that whichever node a test stopped at."""

    def to(name):
        targets = [("annotation", name)]
        executor = _executor()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    yield to
    executor = _executor()
    executor.migrate(executor.loader.graph.leaf_nodes())


def _project(apps, *annotators):
    """A researcher's project and the given annotator accounts, as historical rows."""
    User = apps.get_model("core", "User")
    owner = User.objects.create(username="owner", role="researcher")
    people = [User.objects.create(username=name, role="annotator") for name in annotators]
    Project = apps.get_model("annotation", "Project")
    project = Project.objects.create(owner=owner, title="P", slug="p", invite_code="x" * 12)
    return project, people


def test_0006_resumed_annotators_keep_their_fresh_start(migrate):
    """Control scores come from label sets; a resume's fresh start is kept."""
    apps = migrate("0005_quality")
    Qualification = apps.get_model("annotation", "Qualification")
    project, people = _project(apps, "anna", "ben")
    for person in people:
        Qualification.objects.create(project=project, annotator=person, state="qualified")
    resumed_at = timezone.now()
    apps.get_model("core", "AuditEntry").objects.create(
        action="annotation.annotator_resume",
        subject=f"annotation.project:{project.pk}",
        details={"annotator": "anna"},
        created_at=resumed_at,
    )

    apps = migrate("0006_control_scores_from_label_sets")
    Qualification = apps.get_model("annotation", "Qualification")
    since = dict(Qualification.objects.values_list("annotator__username", "controls_since"))
    assert since == {"anna": resumed_at, "ben": None}
    with pytest.raises(LookupError):
        apps.get_model("annotation", "ControlResult")


def test_0007_earlier_attempts_get_their_rounds_items_in_item_order(migrate):
    """Attempts made before draws keep asking every gold item of their round."""
    apps = migrate("0006_control_scores_from_label_sets")
    Item = apps.get_model("annotation", "Item")
    GoldItem = apps.get_model("annotation", "GoldItem")
    project, (anna,) = _project(apps, "anna")
    golds = []
    for position in (2, 1):
        item = Item.objects.create(project=project, external_id=f"i{position}",
                                   sentences=["A."], position=position)  # fmt: skip
        golds.append(GoldItem.objects.create(project=project, item=item, labels=[[]]))
    round_ = apps.get_model("annotation", "QualificationRound").objects.create(
        project=project, position=1, title="R"
    )
    round_.gold_items.set(golds)
    q = apps.get_model("annotation", "Qualification").objects.create(
        project=project, annotator=anna
    )
    apps.get_model("annotation", "RoundAttempt").objects.create(
        qualification=q, round=round_, number=1
    )

    apps = migrate("0007_retries_item_draws_and_extra_attempts")
    Attempt = apps.get_model("annotation", "RoundAttempt")
    assert Attempt.objects.get().gold_ids == [golds[1].pk, golds[0].pk]  # item 1, then item 2
