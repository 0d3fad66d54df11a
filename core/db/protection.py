"""Whether a row can be deleted, asked before deleting it.

A confirmation page says up front that a deletion will be refused; the models'
``on_delete=PROTECT`` relations are what refuse it, so the question is put to
Django's deletion collector (which reads those relations) rather than restated
as queries beside the models, where the two could drift apart.
"""

from __future__ import annotations

from django.db import router
from django.db.models import Model, ProtectedError, RestrictedError
from django.db.models.deletion import Collector


def delete_protected(obj: Model) -> bool:
    """True when deleting ``obj`` would raise ProtectedError (or RestrictedError)."""
    collector = Collector(using=router.db_for_write(type(obj), instance=obj))
    try:
        collector.collect([obj])
    except (ProtectedError, RestrictedError):
        return True
    return False
