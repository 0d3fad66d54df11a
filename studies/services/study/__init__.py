"""Setting up a study: settings, pairs, video, attention checks and status."""

from studies.services.study.attention import (
    attention_check_create,
    attention_check_delete,
    attention_check_delete_problem,
)
from studies.services.study.languages import study_translation_set
from studies.services.study.setup import (
    DESIGN_FIELDS,
    SETTINGS_FIELDS,
    STOPPING_FIELDS,
    PairsWouldBeReplaced,
    study_pairs_set,
    study_update,
    study_video_clear,
    study_video_set,
    video_kind,
)
from studies.services.study.status import (
    TRANSITIONS,
    WarningsNotConfirmed,
    allowed_transitions,
    publishing_warnings,
    study_status_change,
    study_test_sessions_clear,
)

__all__ = [
    "DESIGN_FIELDS",
    "SETTINGS_FIELDS",
    "STOPPING_FIELDS",
    "TRANSITIONS",
    "PairsWouldBeReplaced",
    "WarningsNotConfirmed",
    "allowed_transitions",
    "attention_check_create",
    "attention_check_delete",
    "attention_check_delete_problem",
    "publishing_warnings",
    "study_pairs_set",
    "study_status_change",
    "study_test_sessions_clear",
    "study_translation_set",
    "study_update",
    "study_video_clear",
    "study_video_set",
    "video_kind",
]
