"""Pseudonymous participant ids for exports: a salted hash, the salt kept per study."""

from __future__ import annotations

import hashlib

from studies.models import Study, StudyResults


def study_salt(study: Study) -> str:
    results, _ = StudyResults.objects.get_or_create(study=study)
    return results.salt


def pseudonym(salt: str, session_id: int, external_id: str = "") -> str:
    """A stable id for a participant that reveals neither the platform id nor the row id."""
    source = external_id or f"session:{session_id}"
    return "p_" + hashlib.sha256(f"{salt}:{source}".encode()).hexdigest()[:16]
