"""A queryset compiled once gives what the ORM gives, with its related objects, for any values."""

from __future__ import annotations

import pytest
from django.db.models import F

from core.db.compiled import CompiledQuery
from studies.models import Trial
from studies.selectors.study import participant_trials_with_session
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def trials_of(token, first, second):
    return (
        participant_trials_with_session()
        .filter(session__token=token, position__in=(first, second))
        .order_by("position")
    )


@pytest.fixture
def sessions(researcher):
    from studies.services.sessions import Identity, session_start

    study = make_study(researcher, pairs=3)
    return [
        session_start(
            study=study, identity=Identity("prolific", pid, {"PROLIFIC_PID": pid})
        ).session
        for pid in ("P1", "P2")
    ]


def fields(trial: Trial) -> tuple:
    return (
        trial.pk, trial.position, trial.kind, trial.item_order, trial.shown_at,
        trial.chart_id, trial.chart and trial.chart.image.name,
        trial.question and (trial.question.options, trial.question.answer_key),
        trial.attention_check and trial.attention_check.options,
        trial.session.token, trial.session.deadline, trial.session.study.slug,
        trial.session.study.translations,
    )  # fmt: skip


def test_it_returns_what_the_orm_returns_for_every_value(sessions, django_assert_num_queries):
    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    for session in sessions:
        for first in range(session.trial_count):
            expected = list(trials_of(session.token, first, first + 1))
            with django_assert_num_queries(1):  # related objects come with it
                got = compiled(token=session.token, first=first, second=first + 1)
                assert [fields(t) for t in got] == [fields(t) for t in expected]
    assert compiled(token="unknown", first=0, second=1) == []


def test_constants_of_the_shape_are_kept(sessions):
    def current(token):
        here = F("session__current_position")
        return participant_trials_with_session().filter(session__token=token, position=here + 2)

    compiled = CompiledQuery(current, token="\x1fsample")
    [trial] = compiled(token=sessions[0].token)
    assert trial.position == 2


def test_samples_must_be_distinct_plain_values_used_by_the_query():
    with pytest.raises(ValueError):
        CompiledQuery(trials_of, token="\x1fsample", first=1, second=1)
    with pytest.raises(TypeError):
        CompiledQuery(trials_of, token="\x1fsample", first=1.5, second=2)
    unused = CompiledQuery(
        lambda token, first, second: trials_of(token, 0, 1), token="t", first=7, second=8
    )
    with pytest.raises(ValueError, match="every sample"):
        unused(token="x", first=0, second=1)


def test_rows_joining_one_related_row_share_its_object(sessions):
    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    session = sessions[0]
    # Two chart trials (the order is drawn per session: checks may stand anywhere).
    a, b = session.trials.filter(attention_check__isnull=True).order_by("position")[:2]
    first, second = compiled(token=session.token, first=a.position, second=b.position)
    # One session and one study for both trials: a change made through one is seen
    # through the other, and the second row builds neither again.
    assert first.session is second.session
    assert first.session.study is second.session.study
    first.session.current_position = 1
    assert second.session.current_position == 1
    # Different related rows stay different objects; a missing one stays None.
    assert first.chart_id != second.chart_id and first.chart is not second.chart
    assert first.attention_check is None and second.attention_check is None
    other = compiled(token=sessions[1].token, first=0, second=1)[0]
    assert other.session is not first.session


def _loaded(instance) -> tuple:
    """What an instance holds from its row: each loaded field's value, and which are deferred."""
    deferred = instance.get_deferred_fields()
    values = {
        field.attname: getattr(instance, field.attname)
        for field in instance._meta.concrete_fields
        if field.attname not in deferred
    }
    # The attributes it holds: the state and the loaded values, nothing more or less.
    held = sorted(instance.__dict__)
    return values, deferred, instance._state.adding, instance._state.db, held


def test_each_object_loads_the_fields_the_orm_loads_and_defers_the_rest(sessions):
    # The instances are built from a table of where each field's value stands, made once;
    # every object of the join must hold what Django's own from_db gives it.
    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    session = sessions[0]
    for first in range(session.trial_count - 1):
        got = compiled(token=session.token, first=first, second=first + 1)
        expected = list(trials_of(session.token, first, first + 1))
        for mine, orm in zip(got, expected, strict=True):
            for path in ("", "session", "session.study", "chart", "question", "attention_check"):
                a, b = mine, orm
                for name in filter(None, path.split(".")):
                    a, b = getattr(a, name), getattr(b, name)
                assert (a is None) == (b is None), path
                if a is not None:
                    assert _loaded(a) == _loaded(b), path
        # The session's and the study's rows are read in part: their deferred fields are placed.
        assert mine.session.get_deferred_fields() and mine.session.study.get_deferred_fields()


def test_a_model_with_its_own_from_db_gets_the_fields_as_selected(sessions, monkeypatch):
    from studies.models import Study

    seen = []

    def from_db(cls, db, field_names, values):
        seen.append((list(field_names), len(values)))
        return super(Study, cls).from_db(db, field_names, values)

    monkeypatch.setattr(Study, "from_db", classmethod(from_db))
    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    [trial] = compiled(token=sessions[0].token, first=0, second=1_000_000)
    names, count = seen[0]
    assert "slug" in names and count == len(names) < len(Study._meta.concrete_fields)
    assert trial.session.study.slug == sessions[0].study.slug


def test_a_receiver_of_a_models_init_signals_hears_every_instance_built(sessions):
    # Objects are built without Model.__init__ only while nobody listens to its signals.
    from django.db.models.signals import post_init, pre_init

    from studies.models import ParticipantSession

    heard = []

    def hear(sender, **kwargs):
        heard.append((sender, "instance" in kwargs))

    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    compiled(token=sessions[0].token, first=0, second=1)  # compiled before anyone listens
    pre_init.connect(hear, sender=Trial)
    post_init.connect(hear, sender=ParticipantSession)
    try:
        trials = compiled(token=sessions[0].token, first=0, second=1)
    finally:
        pre_init.disconnect(hear, sender=Trial)
        post_init.disconnect(hear, sender=ParticipantSession)
    # Two trials (pre_init has no instance yet), and the one session they share.
    assert heard == [(Trial, False), (ParticipantSession, True), (Trial, False)]
    assert trials[0].session is trials[1].session


def test_a_field_that_does_more_when_set_is_set_through_its_descriptor(sessions, monkeypatch):
    from django.db.models.query_utils import DeferredAttribute

    from studies.models import Question

    set_to = []

    class Recording(DeferredAttribute):
        def __set__(self, instance, value):
            set_to.append(value)
            instance.__dict__[self.field.attname] = value

    monkeypatch.setattr(Question, "code", Recording(Question._meta.get_field("code")))
    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    trials = compiled(token=sessions[0].token, first=0, second=1)
    codes = [trial.question.code for trial in trials if trial.question is not None]
    assert codes and set_to == codes


def test_a_chart_is_built_without_model_init_and_still_sized_by_its_image_field(
    sessions, monkeypatch
):
    from django.db.models import Model

    from studies.models import Chart

    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    compiled(token=sessions[0].token, first=0, second=1)
    # A chart whose size is not stored: Django's image field reads it from the image
    # when the chart is built, and so must the read.
    trial = next(t for t in Trial.objects.filter(session=sessions[0]) if t.chart_id)
    Chart.objects.filter(pk=trial.chart_id).update(width=0, height=0)
    size = Chart.objects.get(pk=trial.chart_id).width  # read from the file by Django
    assert Chart.objects.filter(pk=trial.chart_id, width=0).exists() and size

    built = []
    real = Model.__init__

    def counting(self, *args, **kwargs):
        built.append(type(self))
        real(self, *args, **kwargs)

    monkeypatch.setattr(Model, "__init__", counting)
    got = compiled(token=sessions[0].token, first=trial.position, second=trial.position + 1)
    assert Chart not in built
    assert got[0].chart.width == size and got[0].chart.height


def test_a_receiver_of_a_charts_post_init_hears_every_chart_built(sessions):
    from django.db.models.signals import post_init

    from studies.models import Chart

    heard = []

    def hear(sender, instance, **kwargs):
        heard.append(instance.pk)

    compiled = CompiledQuery(trials_of, token="\x1fsample", first=1_000_001, second=1_000_002)
    compiled(token=sessions[0].token, first=0, second=1)
    post_init.connect(hear, sender=Chart)
    try:
        trials = compiled(token=sessions[0].token, first=0, second=1)
    finally:
        post_init.disconnect(hear, sender=Chart)
    charts = [trial.chart_id for trial in trials if trial.chart is not None]
    assert charts and heard == charts
