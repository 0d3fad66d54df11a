"""python manage.py run_models: asking a model through a local fake endpoint, resuming, importing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from studies.models import ModelAnswer, ModelReply, ModelRun
from studies.services.model_runner import run as run_module
from studies.tests.factories import make_study
from studies.tests.fake_chat_server import FakeChatServer
from studies.tests.model_eval_helpers import CHART_IDS

pytestmark = pytest.mark.django_db

KEY = "sk-live-5ecret-Key-0042"
ENV = "CHARTROOM_TEST_KEY"


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, checks=None)


@pytest.fixture
def server():
    s = FakeChatServer(key=KEY)
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(ENV, KEY)


def run(study, server, *args):
    """Run the command; returns (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "run_models",
        study.slug,
        "--base-url",
        server.base_url,
        "--model",
        "vision-1",
        "--api-key-env",
        ENV,
        "--backoff",
        "0.001",
        *args,
        stdout=out,
        stderr=err,
    )
    return out.getvalue(), err.getvalue()


def stored(study):
    return ModelReply.objects.filter(study=study, model="vision-1")


def test_a_full_run_stores_every_reply_and_imports_the_answers(study, server):
    out, err = run(study, server)

    assert len(server.hits) == 12  # 6 charts x (FACT + MIND)
    assert {h.authorization for h in server.hits} == {f"Bearer {KEY}"}
    assert len({h.request_key for h in server.hits}) == 12
    # FACT prompts carry the line asking for a bare answer; MIND prompts are the template.
    fact = [h.prompt for h in server.hits if h.kind == "fact"]
    assert all("Reply with only" in p for p in fact)
    assert stored(study).filter(status=ModelReply.Status.DONE).count() == 12

    reply = stored(study).get(chart__chart_id="G1_Q2_2", question="fact")
    assert reply.reply_text == "1.2"
    assert reply.attempts == 1
    assert reply.endpoint == server.base_url + "/chat/completions"
    assert reply.raw_reply["choices"][0]["message"]["content"] == "1.2"
    assert len(reply.request_hash) == 64

    answers = ModelAnswer.objects.filter(study=study, model="vision-1")
    assert sorted(a.chart.chart_id for a in answers) == sorted(CHART_IDS)
    assert all(a.fact_correct is True for a in answers)
    assert all(a.mind_prediction == 0.35 for a in answers)
    assert all("truncated" in a.mind_justification for a in answers)
    assert ModelRun.objects.get(study=study, model="vision-1")
    assert "Imported 6 answers of vision-1: answered 6/6 charts (FACT 6, MIND 6)." in out
    assert "12 replies stored for 6 charts (0 retries, 0 failed)" in out
    assert "] 6/6 charts, 0 retries, eta 0s" in err


def test_a_limited_run_resumes_without_asking_again(study, server):
    out, _ = run(study, server, "--limit", "2")
    assert len(server.hits) == 4
    assert stored(study).count() == 4
    assert "4 of 6 charts left to ask" in out
    assert "answered 2/6 charts" in out
    assert "no reply yet: G1_Q2_1, G1_Q2_2, G1_Q3_1, G1_Q3_2" in out

    out, err = run(study, server)
    assert len(server.hits) == 12
    assert len({h.request_key for h in server.hits}) == 12  # nothing asked twice
    assert "2 already done" in out
    assert "answered 6/6 charts" in out
    assert "] 2/6 charts" in err and "] 6/6 charts" in err

    out, _ = run(study, server)
    assert len(server.hits) == 12
    assert "0 replies stored for 0 charts" in out and "6 already done" in out


def test_ctrl_c_keeps_the_stored_replies_and_a_rerun_asks_the_rest(study, server, monkeypatch):
    real_store = run_module.reply_store
    calls = []

    def store_then_interrupt(**kwargs):
        calls.append(kwargs["request"].kind)
        if len(calls) == 5:  # Ctrl-C while the fifth reply is on its way in
            raise KeyboardInterrupt
        return real_store(**kwargs)

    monkeypatch.setattr(run_module, "reply_store", store_then_interrupt)
    with pytest.raises(CommandError, match="Interrupted: 4 replies stored") as caught:
        run(study, server)
    assert caught.value.returncode == 130
    assert stored(study).count() == 4
    assert len(server.hits) == 5
    assert not ModelAnswer.objects.exists()  # nothing imported from a broken run

    monkeypatch.setattr(run_module, "reply_store", real_store)
    run(study, server)
    # The interrupted request is asked again, the four stored ones are not.
    assert len(server.hits) == 12 + 1
    first_four = [h.request_key for h in server.hits[:4]]
    assert all(key not in first_four for key in (h.request_key for h in server.hits[5:]))
    assert stored(study).count() == 12
    assert ModelAnswer.objects.filter(study=study).count() == 6


def test_retries_are_counted_and_the_run_continues(study, server):
    server.script = [("status", 429, {"Retry-After": "0"}), ("status", 500), ("status", 502)]
    out, err = run(study, server)
    assert len(server.hits) == 15
    assert "(3 retries, 0 failed)" in out
    assert "3 retries" in err
    assert stored(study).get(chart__chart_id=CHART_IDS[0], question="fact").attempts == 4


def test_a_wrong_key_stops_with_a_clear_error_and_never_shows_the_key(study, server, monkeypatch):
    monkeypatch.setenv(ENV, "sk-wrong-Secret-77")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(
            "run_models",
            study.slug,
            "--base-url",
            server.base_url,
            "--model",
            "vision-1",
            "--api-key-env",
            ENV,
            stdout=out,
            stderr=err,
        )
    message = str(caught.value)
    assert "refused the API key (HTTP 401)" in message
    assert "Run the same command again to resume" in message
    assert "Traceback" not in message
    # The server quoted the wrong key back; it is masked everywhere.
    for text in (message, out.getvalue(), err.getvalue()):
        assert "sk-wrong-Secret-77" not in text
    assert len(server.hits) == 1
    assert not ModelReply.objects.exists()


def test_the_key_is_never_stored_even_when_the_endpoint_echoes_it(study, server):
    server.echo_authorization = True
    out, err = run(study, server)
    rows = list(ModelReply.objects.values())
    assert len(rows) == 12
    dump = json.dumps(rows, default=str)
    assert KEY not in dump
    assert "seen Bearer ***" in dump  # the echo is kept, the key masked
    assert KEY not in out and KEY not in err
    answers = json.dumps(list(ModelAnswer.objects.values()), default=str)
    assert KEY not in answers


def test_a_missing_key_variable_or_a_pasted_key_is_a_clear_error(study, server, monkeypatch):
    monkeypatch.delenv(ENV)
    with pytest.raises(CommandError, match=f"environment variable {ENV} is not set"):
        run(study, server)
    with pytest.raises(CommandError, match="not the key itself") as caught:
        call_command(
            "run_models",
            study.slug,
            "--base-url",
            server.base_url,
            "--model",
            "m",
            "--api-key-env",
            "sk-abc-123",
        )
    assert "sk-abc-123" not in str(caught.value)
    assert server.hits == []


def test_a_bad_base_url_or_a_wrong_path_is_a_clear_error(study, server):
    with pytest.raises(CommandError, match="must start with http"):
        call_command(
            "run_models", study.slug, "--base-url", "localhost:1234", "--model", "m",
            "--api-key-env", ENV,
        )  # fmt: skip
    with pytest.raises(CommandError, match=r"Not found \(HTTP 404\).*--base-url and --model"):
        call_command(
            "run_models", study.slug, "--base-url", server.base_url + "/v9", "--model", "m",
            "--api-key-env", ENV,
        )  # fmt: skip


def test_a_refused_request_is_stored_as_failed_and_asked_again_next_time(study, server):
    server.script = [("status", 400, {}, {"error": {"message": "content policy"}})]
    out, err = run(study, server)
    failed = stored(study).get(status=ModelReply.Status.FAILED)
    assert failed.chart.chart_id == CHART_IDS[0] and failed.question == "fact"
    assert "content policy" in failed.error
    assert "11 replies stored for 6 charts (0 retries, 1 failed); 1 of 6 charts left" in out
    assert "1 failed" in err
    # The answer for that chart has its MIND part only.
    answer = ModelAnswer.objects.get(study=study, chart__chart_id=CHART_IDS[0])
    assert answer.fact_correct is None and answer.mind_prediction == 0.35

    out, _ = run(study, server)
    assert len(server.hits) == 13
    assert server.hits[-1].kind == "fact"
    assert stored(study).filter(status=ModelReply.Status.DONE).count() == 12
    assert ModelAnswer.objects.get(study=study, chart__chart_id=CHART_IDS[0]).fact_correct


def test_an_endpoint_refusing_everything_stops_the_run(study, server):
    server.script = [("status", 400, {}, {"error": {"message": "no image input"}})] * 20
    with pytest.raises(CommandError, match="5 requests in a row were refused.*no image input"):
        run(study, server)
    assert len(server.hits) == 5


def test_giving_up_after_timeouts_is_a_clear_error(study, server):
    server.script = [("hang",), ("hang",)]
    with pytest.raises(CommandError, match=r"Gave up after 2 attempts.*no reply within 0.2 s"):
        run(study, server, "--timeout", "0.2", "--retries", "1")
    assert not ModelReply.objects.exists()


def test_an_edited_question_is_asked_again(study, server):
    run(study, server)
    question = study.chart_set.questions.get(code="G1_Q2")
    question.text = question.text.replace("How many", "About how many")
    question.save()
    out, _ = run(study, server)
    # Both charts of the pair, FACT and MIND (the MIND prompt quotes the question).
    assert len(server.hits) == 12 + 4
    assert {h.prompt.count("About how many") for h in server.hits[12:]} == {1}
    assert "4 replies stored for 2 charts" in out


def test_only_the_asked_questions_are_sent(study, server):
    out, _ = run(study, server, "--questions", "mind")
    assert {h.kind for h in server.hits} == {"mind"}
    assert len(server.hits) == 6
    assert "answered 6/6 charts (FACT 0, MIND 6)" in out


def test_replies_are_read_by_the_same_checker_and_extractor_as_imports(study, server):
    def answer(prompt):
        if prompt.startswith("Here is a chart"):
            if "Which year" in prompt:
                return "Hard to say; many readers would be fooled."
            return "Prediction: 35% of students, since the axis is truncated."
        if "Which year" in prompt:
            return "The year 2019 had more adoptions than 2018."
        return {"How many": "1.2", "Sort": "Alpha, Beta, Gamma"}[
            "How many" if "How many" in prompt else "Sort"
        ]

    server.answer = answer
    out, _ = run(study, server)
    q1 = ModelAnswer.objects.filter(study=study, chart__chart_id__startswith="G1_Q1_")
    assert all(a.fact_correct is False and a.mind_prediction is None for a in q1)
    assert all("answer not readable" in a.problems[0] for a in q1)
    others = ModelAnswer.objects.exclude(chart__chart_id__startswith="G1_Q1_")
    assert all(a.fact_correct and a.mind_prediction == 0.35 for a in others)
    assert "Notes on 2 answers:" in out
    assert "  G1_Q1_1: answer not readable" in out


def test_import_only_sends_nothing(study, server):
    with pytest.raises(CommandError, match="Nothing imported"):
        call_command("run_models", study.slug, "--model", "vision-1", "--import-only")
    run(study, server, "--limit", "1")
    ModelAnswer.objects.all().delete()
    out = io.StringIO()
    call_command("run_models", study.slug, "--model", "vision-1", "--import-only", stdout=out)
    assert "answered 1/6 charts" in out.getvalue()
    assert len(server.hits) == 2


def test_bad_options_are_refused_before_anything_is_sent(study, server):
    for args, message in [
        (("--rate", "fast"), "--rate"),
        (("--questions", "fact,vibes"), "--questions"),
        (("--limit", "0"), "--limit"),
        (("--timeout", "0"), "--timeout"),
    ]:
        with pytest.raises(CommandError, match=message):
            run(study, server, *args)
    with pytest.raises(CommandError, match="No study"):
        call_command("run_models", "nope", "--model", "m", "--base-url", server.base_url)
    with pytest.raises(CommandError, match="--base-url is required"):
        call_command("run_models", study.slug, "--model", "m")
    assert server.hits == []


def test_a_chart_image_missing_from_storage_is_a_clear_error(study, server):
    chart = study.chart_set.questions.get(code="G1_Q2").charts.get(version=2)
    chart.image.storage.delete(chart.image.name)
    with pytest.raises(CommandError, match="The image of chart G1_Q2_2 cannot be read"):
        run(study, server)
    assert server.hits == []


def test_the_models_page_shows_what_a_run_stored_and_what_failed(
    study, server, client, researcher, other_researcher, password
):
    server.script = [("status", 400, {}, {"error": {"message": "content policy"}})]
    run(study, server, "--limit", "2")
    client.login(username=researcher.username, password=password)
    page = client.get(f"/studies/study/{study.slug}/models/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Runs against a model endpoint" in html
    # 2 charts asked: 3 answered, 1 failed, 12 - 4 = 8 questions not asked yet.
    row = html.split('<th scope="row">vision-1</th>', 1)[1].split("</tr>", 1)[0]
    cells = [c.split(">", 1)[1] for c in row.split("<td")[1:]]
    assert [c.split("<", 1)[0] for c in cells[1:4]] == ["3 / 12", "1", "8"]
    assert f"{CHART_IDS[0]} FACT: " in html and "content policy" in html
    assert KEY not in html

    client.logout()
    client.login(username=other_researcher.username, password=password)
    assert client.get(f"/studies/study/{study.slug}/models/").status_code == 404
