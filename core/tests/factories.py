"""factory_boy factories for core's models, which the app factories build on."""

from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from core.models import User

PASSWORD = "correct-horse-battery"


class UserFactory(DjangoModelFactory):
    """An account; ``UserFactory(role="annotator")``. Its password is ``PASSWORD``."""

    class Meta:
        model = User

    role = "researcher"
    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)
