"""Nothing an annotator can fetch gives away gold labels or which items are controls.

The test walks every page and API response an annotator reaches while
qualifying and working, scans each for gold words and gold label values, and
checks that a control item's page and API response are byte-identical to an
ordinary item's once the per-item numbers are normalised.
"""

import json
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.services.quality import policy_for
from annotation.tests.quality_setup import GOLD_A, GOLD_B, control_item_ids, with_rounds

pytestmark = pytest.mark.django_db

WORDS = re.compile(r"gold|\bcontrols?\b|control_|\breference\b|is_control|is_gold", re.I)
GUIDELINES = re.compile(r'<div class="guidelines-text">.*?</div>', re.S)
VOLATILE = [
    (
        re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"'),
        'name="csrfmiddlewaretoken" value=""',
    ),
    # Whole numbers, not digits: counts such as "10 more available" vs "9" differ in length.
    (re.compile(r"\d+"), "0"),
]


def _scan(text: str, where: str) -> None:
    # The seed's guidelines themselves warn about "control labels" and mention the
    # "reference chart"; that text is the same for every item, so it is left out.
    body = GUIDELINES.sub("", text)
    found = WORDS.findall(body)
    assert not found, f"{where} mentions {found}"


def _normal(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def test_nothing_an_annotator_fetches_reveals_gold_or_controls(
    project, make_items, members, researcher, password
):
    with_rounds(project, make_items, researcher, controls=6, control_rate=0.5, min_controls=100)
    make_items(project, 12)
    (anna,) = members(1)
    pages = Client()
    pages.login(username=anna.username, password=password)
    api = APIClient()
    api.force_authenticate(anna)
    slug = project.slug
    seen = []

    def get(client, url, **kw):
        response = client.get(url, **kw)
        assert response.status_code < 500, url
        seen.append((url, response))
        return response

    # Qualification: overview pages and API, round items, answers.
    get(pages, "/annotation/")
    get(pages, f"/annotation/p/{slug}/qualify/")
    get(api, f"/api/v1/annotator/projects/{slug}/qualification/")
    for position, gold in ((1, GOLD_A), (2, GOLD_B)):
        started = api.post(f"/api/v1/annotator/projects/{slug}/rounds/{position}/start/")
        seen.append(("start", started))
        page = get(pages, f"/annotation/p/{slug}/qualify/{position}/")
        assert page.status_code == 200
        assert 'aria-pressed="true"' not in page.content.decode()  # gold is not pre-pressed
        item = get(api, f"/api/v1/annotator/projects/{slug}/rounds/{position}/item/").json()
        assert item["draft"] == [[], []]
        answer = api.post(
            f"/api/v1/annotator/projects/{slug}/rounds/{position}/items/1/answer/",
            {"labels": gold}, format="json",
        )  # fmt: skip
        assert answer.status_code == 201
        seen.append(("answer", answer))
        review = get(api, f"/api/v1/annotator/projects/{slug}/rounds/{position}/review/")
        assert review.status_code == 403  # not turned on
    get(pages, f"/annotation/p/{slug}/qualify/")

    # Real work: every page and API response over all items, controls among them.
    controls = control_item_ids(project)
    work_pages, api_items = {}, {}
    for _ in range(30):
        page = get(pages, f"/annotation/p/{slug}/work/")
        if b'id="work-state"' not in page.content:
            break
        state = json.loads(re.search(rb'id="work-state" type="application/json">(.*?)</script>', page.content, re.S).group(1))  # fmt: skip
        pk = state["assignment"]
        got = get(api, f"/api/v1/annotator/assignments/{pk}/")
        nxt = api.post(f"/api/v1/annotator/projects/{slug}/next/")
        seen.append(("next", nxt))
        assert nxt.json()["id"] == pk
        from annotation.models import Assignment

        item_id = Assignment.objects.get(pk=pk).item_id
        kind = "control" if item_id in controls else "normal"
        work_pages.setdefault(kind, page.content.decode())
        api_items.setdefault(kind, got.content.decode())
        draft = api.put(
            f"/api/v1/annotator/assignments/{pk}/draft/", {"labels": [[], []]}, format="json"
        )
        submit = api.post(
            f"/api/v1/annotator/assignments/{pk}/submit/", {"labels": [[], []]}, format="json"
        )
        assert (draft.status_code, submit.status_code) == (200, 201)
        seen += [("draft", draft), ("submit", submit)]
        get(api, f"/api/v1/annotator/projects/{slug}/progress/")
    get(pages, f"/annotation/p/{slug}/guidelines/")
    get(api, "/api/v1/annotator/projects/")
    assert set(work_pages) == {"control", "normal"}, "the walk met both kinds of item"

    for url, response in seen:
        _scan(response.content.decode(), url)
    # Gold label values never reach the annotator as a control's draft or anywhere in a state.
    assert _normal(work_pages["control"]) == _normal(work_pages["normal"])
    assert _normal(api_items["control"]) == _normal(api_items["normal"])


def test_an_annotator_cannot_read_gold_through_the_api(project, make_items, members, researcher):
    setup = with_rounds(project, make_items, researcher)
    (anna,) = members(1)
    api = APIClient()
    api.force_authenticate(anna)
    item = setup["gold"][0].item_id
    for url in (
        f"/api/v1/projects/{project.slug}/gold/",
        f"/api/v1/projects/{project.slug}/rounds/",
        f"/api/v1/projects/{project.slug}/quality/overview/",
        f"/api/v1/projects/{project.slug}/items/{item}/",
    ):
        assert api.get(url).status_code == 403, url
    review = api.get(f"/api/v1/annotator/projects/{project.slug}/rounds/1/review/")
    assert review.status_code == 403 and "labels" in review.json()["detail"]
    policy = policy_for(project)
    policy.show_gold_after_round = True
    policy.save()
    assert api.get(f"/api/v1/annotator/projects/{project.slug}/rounds/1/review/").status_code == 403
    # A round that does not exist is not found, as at its other addresses.
    missing = api.get(f"/api/v1/annotator/projects/{project.slug}/rounds/99/review/")
    assert missing.status_code == 404 and missing.json()["detail"] == "No such round."


REVEAL = re.compile(r'mark-(missed|both|extra)|"kind":\s*"(missed|both|extra)"|"expected"|Why:')


@pytest.mark.parametrize(("pool", "per_attempt"), [(4, 2), (2, 2)], ids=["fresh", "hidden"])
def test_after_a_failed_round_nothing_open_to_the_annotator_gives_away_the_retry(
    project, make_items, members, researcher, password, pool, per_attempt
):
    """Fail round 1 with the review on, read everything, start the retry: no gold of its items.

    With a pool of 4 and 2 captions per attempt the retry asks the other two (and the
    failed attempt's labels are shown); with a pool of 2 it asks the same two again,
    so the labels stay hidden until the annotator passes or has no attempt left.
    """
    from annotation.models import RoundAttempt
    from annotation.selectors.attempts import attempt_gold
    from annotation.tests.quality_setup import wait_out_cooldown, with_pool

    with_pool(project, make_items, researcher, pool=pool, per_attempt=per_attempt)
    make_items(project, 3)
    (anna,) = members(1)
    pages = Client()
    pages.login(username=anna.username, password=password)
    api = APIClient()
    api.force_authenticate(anna)
    slug = project.slug
    mine = f"/api/v1/annotator/projects/{slug}"
    seen = []

    def walk():
        for url in ("/annotation/", f"/annotation/p/{slug}/qualify/",
                    f"/annotation/p/{slug}/qualify/1/", f"/annotation/p/{slug}/qualify/1/result/",
                    f"/annotation/p/{slug}/qualify/1/review/", f"/annotation/p/{slug}/work/",
                    f"/annotation/p/{slug}/guidelines/"):  # fmt: skip
            response = pages.get(url, follow=True)
            assert response.status_code < 500, url
            seen.append((url, response.content.decode()))
        for url in (f"{mine}/qualification/", f"{mine}/rounds/1/item/", f"{mine}/rounds/1/result/",
                    f"{mine}/rounds/1/review/", f"{mine}/progress/", "/api/v1/annotator/projects/"):  # fmt: skip
            response = api.get(url)
            assert response.status_code < 500, url
            seen.append((url, response.content.decode()))

    assert api.post(f"{mine}/rounds/1/start/").status_code == 201
    for index in range(1, per_attempt + 1):
        answer = api.post(f"{mine}/rounds/1/items/{index}/answer/", {"labels": [[], []]},
                          format="json")  # fmt: skip
        assert answer.status_code == 201
    first = RoundAttempt.objects.get(qualification__annotator=anna, number=1)
    assert first.passed is False
    walk()
    wait_out_cooldown(first)
    walk()
    assert api.post(f"{mine}/rounds/1/start/").status_code == 201
    walk()

    retry = RoundAttempt.objects.get(qualification__annotator=anna, number=2)
    fresh = not set(first.gold_ids) & set(retry.gold_ids)
    assert fresh is (pool == 4)
    results = [body for url, body in seen if url.endswith("/result/")]
    # The failed attempt's labels are shown exactly when the retry asks other captions.
    assert any(REVEAL.search(body) for body in results) is fresh
    for gold in attempt_gold(retry):
        for url, body in seen:
            assert gold.explanation not in body, url
            if gold.item.sentences[0] in body:
                assert not REVEAL.search(body), f"{url} shows labels beside a retry caption"
    for url, body in seen:
        _scan(body, url)
