import re

import pytest
from django.core.management import call_command

from annotation.models import Item, Project
from core.models import User
from studies.models import Chart, Study


@pytest.mark.django_db
def test_load_demo_builds_every_part_of_the_demo_and_a_second_run_adds_nothing(capsys):
    # an older demo made the researcher a superuser
    User.objects.create_superuser(
        username="researcher", password="chartroom-demo", role="researcher"
    )
    call_command("load_demo")
    first = capsys.readouterr().out
    counts = (
        User.objects.count(),
        Chart.objects.count(),
        Study.objects.count(),
        Project.objects.count(),
        Item.objects.count(),
    )
    researcher = User.objects.get(username="researcher")
    assert researcher.is_researcher and not researcher.is_staff and not researcher.is_superuser
    admin = User.objects.get(username="admin")
    password = re.search(r"user 'admin', password '([^']+)'", first).group(1)
    assert admin.is_superuser and admin.check_password(password) and len(password) >= 16
    assert Chart.objects.count() >= 24 and Study.objects.filter(status="live").exists()
    assert Item.objects.exists()

    call_command("load_demo")
    assert "user 'admin', password" not in capsys.readouterr().out  # printed once only
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


@pytest.mark.django_db
def test_the_printed_participant_link_is_a_working_prolific_link(capsys, client):
    call_command("load_demo")
    capsys.readouterr()
    call_command("demo_info", base_url="http://testserver")
    printed = capsys.readouterr().out
    link = next(w for w in printed.split() if "/s/" in w)
    study = Study.objects.get(slug="demo-chart-study")
    assert study.platform == "prolific" and study.expected_minutes == 15
    assert "PROLIFIC_PID=" in link and "STUDY_ID=" in link and "SESSION_ID=" in link
    path = link.removeprefix("http://testserver")
    welcome = client.get(path)
    assert welcome.status_code == 200
    assert b"It usually takes about 15 minutes; you have up to 60." in welcome.content
    params = dict(p.split("=") for p in path.split("?")[1].split("&"))
    started = client.post(f"/s/{study.slug}/consent/", {"choice": "agree", **params})
    assert started.status_code == 302 and "/s/p/" in started["Location"]
    # Each run prints a fresh id, so the next newcomer is not told the id is taken.
    call_command("demo_info", base_url="http://testserver")
    assert next(w for w in capsys.readouterr().out.split() if "/s/" in w) != link
