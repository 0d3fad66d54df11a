import re

import pytest
from django.conf import settings
from django.core.management import call_command

from annotation.models import Item, Project
from core.models import User
from studies.models import Chart, Study


def _chart_files() -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in settings.MEDIA_ROOT.rglob("*.png")}


def _refuse_expensive_steps(monkeypatch) -> None:
    """A second `make demo` starts in seconds: it renders no chart (library or captions),
    simulates nobody, fits no model and imports no model answers again."""

    def refuse(*args, **kwargs):
        raise AssertionError("a second load_demo redid an expensive step")

    monkeypatch.setattr("studies.services.library.generating.render_pair", refuse)
    monkeypatch.setattr("studies.chartgen.render_chart", refuse)
    monkeypatch.setattr("demo.results.study_simulate", refuse)
    monkeypatch.setattr("demo.results.results_compute", refuse)
    monkeypatch.setattr("demo.model_eval.load_model_eval_demo", refuse)


@pytest.mark.django_db
def test_load_demo_builds_every_part_of_the_demo_and_a_second_run_adds_nothing(capsys, monkeypatch):
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

    assert "pair(s) rendered" in first and "results computed" in first
    files = _chart_files()
    assert len(files) >= 24

    _refuse_expensive_steps(monkeypatch)
    call_command("load_demo")
    second = capsys.readouterr().out
    assert "user 'admin', password" not in second  # printed once only
    assert "Chart library: up to date, nothing rendered" in second
    assert "nothing to redo" in second
    assert _chart_files() == files  # not one chart file written again
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


@pytest.mark.django_db
def test_demo_info_prints_the_address_demo_serve_started_on(settings, tmp_path, capsys):
    from demo.management.commands.demo_info import served_url_file

    settings.VAR_DIR = tmp_path
    call_command("demo_info")
    assert "http://127.0.0.1:8000/login/" in capsys.readouterr().out
    served_url_file().write_text("http://127.0.0.1:8231\n")  # as `demo_serve 127.0.0.1:8231` does
    call_command("demo_info")
    printed = capsys.readouterr().out
    assert "http://127.0.0.1:8231/login/" in printed and ":8000" not in printed
