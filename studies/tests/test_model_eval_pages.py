"""The study's Models page: upload, coverage, every analysis, and who may open it."""

import pytest
from django.urls import reverse

from demo.model_eval import load_model_eval_demo
from studies.models import ModelAnswer
from studies.tests.factories import make_study, simulated_study
from studies.tests.model_eval_helpers import full_rows, row, upload

pytestmark = pytest.mark.django_db


def page(study):
    return reverse("studies:models", args=[study.slug])


def test_it_shows_an_empty_state_before_any_import(client, researcher):
    study = make_study(researcher, pairs=3, checks=None)
    client.force_login(researcher)
    html = client.get(page(study)).content.decode()
    assert "No model answers yet" in html
    assert 'aria-current="page">Models<' in html


def test_it_shows_both_demo_models_and_every_analysis(client, researcher):
    study = simulated_study(researcher, participants=20, pairs=3, checks=None)
    load_model_eval_demo(study)
    client.force_login(researcher)
    response = client.get(page(study))
    assert response.status_code == 200
    html = response.content.decode()
    for text in (
        "perceptive-model",
        "flat-model",
        "FACT error rates",
        "Chi-square test",
        "MIND: predicted vs measured HMI",
        "MAE SD",
        "Pearson r",
        "slope",
        "Model population",
        "Humans (from the study results)",
        "Kendall",
        "pooled empirical estimate",
        "Justifications",
        "share named",
    ):
        assert text in html, text
    assert html.count("<svg") >= 5


def test_an_upload_with_problems_lists_them_and_imports_nothing(client, researcher):
    study = make_study(researcher, pairs=3, checks=None)
    client.force_login(researcher)
    rows = full_rows("m1") + [row("m1", "G7_Q1_1")]
    response = client.post(page(study), {"file": upload(rows)})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was imported" in html
    assert "Row 7" in html and "G7_Q1_1" in html
    assert not ModelAnswer.objects.exists()


def test_a_good_upload_redirects_with_coverage(client, researcher):
    study = make_study(researcher, pairs=3, checks=None)
    client.force_login(researcher)
    response = client.post(page(study), {"file": upload(full_rows("m1")[:2])}, follow=True)
    html = response.content.decode()
    assert "Imported m1 (2 rows)" in html
    assert "2 / 6" in html
    response = client.post(
        reverse("studies:models-delete", args=[study.slug]), {"model": "m1"}, follow=True
    )
    assert not ModelAnswer.objects.exists()


def test_removing_a_models_answers_is_confirmed_on_its_own_page(client, researcher):
    study = make_study(researcher, pairs=3, checks=None)
    client.force_login(researcher)
    client.post(page(study), {"file": upload(full_rows("m1")[:2])})
    url = reverse("studies:models-delete", args=[study.slug])
    html = client.get(page(study)).content.decode()
    assert (
        f'<form method="get" action="{url}">' in html
        and f'method="post" action="{url}"' not in html
    )

    confirm = client.get(url, {"model": "m1"})
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "Remove the answers of m1?" in text
    assert "Its 2 answers are deleted" in text and 'name="model" value="m1"' in text
    assert ModelAnswer.objects.count() == 2
    assert client.get(url, {"model": "nobody"}).status_code == 404

    response = client.post(url, {"model": "m1"})
    assert response["Location"] == page(study)
    assert not ModelAnswer.objects.exists()


def test_other_researchers_get_404_and_annotators_403(
    client, researcher, other_researcher, annotator
):
    study = make_study(researcher, pairs=3, checks=None)
    client.force_login(other_researcher)
    assert client.get(page(study)).status_code == 404
    prompts = reverse("studies:models-prompts", args=[study.slug])
    assert client.get(prompts).status_code == 404
    client.force_login(annotator)
    assert client.get(page(study)).status_code == 403
    assert client.get(prompts).status_code == 403
