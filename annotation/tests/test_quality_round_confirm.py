"""A round caption is submitted only once confirmed, with or without JavaScript."""

import pytest
from django.test import Client

from annotation.models import RoundAttempt
from annotation.services.quality import attempt_start
from annotation.tests.quality_setup import GOLD_A, with_rounds

pytestmark = pytest.mark.django_db


def test_the_page_asks_for_a_confirmation_and_the_no_script_form_requires_it(
    project, make_items, members, researcher, password
):
    with_rounds(project, make_items, researcher, controls=0)
    (anna,) = members(1)
    attempt_start(project=project, annotator=anna, position=1)
    client = Client()
    client.login(username=anna.username, password=password)
    page = client.get(f"/annotation/p/{project.slug}/qualify/1/").content.decode()
    # The script's state carries the question; the confirmation box and the form are there.
    assert '"confirm": "Submit caption 1 of 1? This is the last one' in page
    assert 'id="confirm-box"' in page and 'id="noscript-answer"' in page
    assert 'name="confirm" value="yes" required' in page

    url = f"/annotation/p/{project.slug}/qualify/1/items/1/answer/"
    unconfirmed = client.post(url, {"s1": ["value_error"]})
    assert unconfirmed.status_code == 400
    assert "Tick the confirmation box" in unconfirmed.content.decode()
    # What was ticked is kept on the page that asks again, and nothing was recorded.
    assert 'value="value_error" checked' in unconfirmed.content.decode()
    assert RoundAttempt.objects.get(qualification__annotator=anna).answers == {}

    done = client.post(url, {"s1": ["value_error"], "confirm": "yes"})
    assert done.status_code == 302
    attempt = RoundAttempt.objects.get(qualification__annotator=anna)
    assert list(attempt.answers.values()) == [GOLD_A] and attempt.passed is True
    assert client.get(done["Location"])["Location"].endswith("/qualify/1/result/")
