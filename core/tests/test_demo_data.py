import pytest
from django.core.management import call_command

from annotation.models import Item, Project
from core.models import User
from studies.models import Chart, Study


@pytest.mark.django_db
def test_load_demo_builds_every_part_of_the_demo_and_a_second_run_adds_nothing(capsys):
    call_command("load_demo")
    counts = (
        User.objects.count(),
        Chart.objects.count(),
        Study.objects.count(),
        Project.objects.count(),
        Item.objects.count(),
    )
    assert User.objects.get(username="researcher").is_researcher
    assert Chart.objects.count() >= 24 and Study.objects.filter(status="live").exists()
    assert Item.objects.exists()

    call_command("load_demo")
    again = (
        User.objects.count(),
        Chart.objects.count(),
        Study.objects.count(),
        Project.objects.count(),
        Item.objects.count(),
    )
    assert again == counts

    call_command("demo_info", base_url="http://127.0.0.1:8000")
    printed = capsys.readouterr().out
    assert (
        "password 'chartroom-demo'" in printed
        and "/s/" in printed
        and "/annotation/join/" in printed
    )
