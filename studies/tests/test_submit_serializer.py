"""The answer's serializer builds its fields once and still validates each body on its own."""

from __future__ import annotations

from studies.api.participant_serializers import SubmitSerializer


def test_each_serializer_binds_its_own_fields():
    first, second = SubmitSerializer(data={}), SubmitSerializer(data={})
    assert first.fields["position"] is not second.fields["position"]
    assert first.fields["position"].parent is first
    assert second.fields["answer"].parent is second


def test_bodies_are_validated_independently_after_the_first():
    good = {"position": 3, "answer": "12", "idempotency_key": "k-1", "interactions": 2}
    for _ in range(3):
        valid = SubmitSerializer(data=good)
        assert valid.is_valid(), valid.errors
        assert valid.validated_data["position"] == 3
        bad = SubmitSerializer(
            data={"position": -1, "answer": None, "idempotency_key": "no spaces"}
        )
        assert not bad.is_valid()
        assert set(bad.errors) == {"position", "answer", "idempotency_key"}
        assert SubmitSerializer(data={"answer": "1"}).is_valid() is False  # position required


PLAIN = {"position": 3, "answer": "12", "idempotency_key": "k-1", "interactions": 2}
BODIES = [
    PLAIN,
    {"position": 0, "answer": 2},
    {"position": 0, "answer": 2.5, "client_ms": None, "first_interaction_ms": 0},
    {"position": 1, "answer": ["b", "a"], "interactions": 100_000, "idempotency_key": ""},
    {**PLAIN, "client_ms": 24 * 3600 * 1000},
    # Values their fields convert or refuse, and bodies the serializer refuses whole.
    {**PLAIN, "position": "3"},
    {**PLAIN, "position": 3.0},
    {**PLAIN, "position": True},
    {**PLAIN, "position": -1},
    {**PLAIN, "client_ms": 24 * 3600 * 1000 + 1},
    {**PLAIN, "interactions": None, "first_interaction_ms": "5"},
    {**PLAIN, "idempotency_key": " k-1 "},
    {**PLAIN, "idempotency_key": "k-1\n"},
    {**PLAIN, "idempotency_key": "k 1"},
    {**PLAIN, "idempotency_key": "k\x00"},
    {**PLAIN, "idempotency_key": None},
    {**PLAIN, "answer": None},
    {**PLAIN, "answer": True},
    {**PLAIN, "answer": {"a": 1}},
    {**PLAIN, "answer": ["a", 1]},
    {**PLAIN, "colour": "red"},
    {"answer": "1"},
    {"position": 1},
    [PLAIN],
    "text",
]


def test_plain_bodies_are_validated_as_the_serializer_validates_them():
    taken = 0
    for body in BODIES:
        plain = SubmitSerializer.validated_plain(body)
        serializer = SubmitSerializer(data=body)
        assert (plain is not None) == serializer.is_valid(), body
        if plain is not None:
            taken += 1
            assert plain == dict(serializer.validated_data), body
    assert taken == 10  # the valid ones; the serializer refuses the rest, and words why


def test_the_plain_path_applies_every_validator_of_a_field(monkeypatch):
    from django.core.validators import MaxLengthValidator

    key = SubmitSerializer._declared_fields["idempotency_key"]
    monkeypatch.setattr(key, "validators", [*key.validators, MaxLengthValidator(4)])
    assert SubmitSerializer.validated_plain({**PLAIN, "idempotency_key": "k-1"}) is not None
    assert SubmitSerializer.validated_plain({**PLAIN, "idempotency_key": "k-100"}) is None
