"""Migration 0006: control scores come from label sets; a resume's fresh start is kept."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0005_quality")]
AFTER = [("annotation", "0006_control_scores_from_label_sets")]


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


def test_resumed_annotators_keep_their_fresh_start():
    apps = _migrate(BEFORE)
    User = apps.get_model("core", "User")
    Project = apps.get_model("annotation", "Project")
    Qualification = apps.get_model("annotation", "Qualification")
    AuditEntry = apps.get_model("core", "AuditEntry")
    owner = User.objects.create(username="owner", role="researcher")
    anna = User.objects.create(username="anna", role="annotator")
    ben = User.objects.create(username="ben", role="annotator")
    project = Project.objects.create(owner=owner, title="P", slug="p", invite_code="x" * 12)
    for person in (anna, ben):
        Qualification.objects.create(project=project, annotator=person, state="qualified")
    resumed_at = timezone.now()
    AuditEntry.objects.create(
        action="annotation.annotator_resume",
        subject=f"annotation.project:{project.pk}",
        details={"annotator": "anna"},
        created_at=resumed_at,
    )

    apps = _migrate(AFTER)
    Qualification = apps.get_model("annotation", "Qualification")
    since = dict(Qualification.objects.values_list("annotator__username", "controls_since"))
    assert since == {"anna": resumed_at, "ben": None}
    with pytest.raises(LookupError):
        apps.get_model("annotation", "ControlResult")
