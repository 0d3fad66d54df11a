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
