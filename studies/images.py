"""Image checks now live in :mod:`core.images`, shared by studies and annotation.

This module only re-exports them so the many studies modules that import
``studies.images`` keep working; new code imports ``core.images``.
"""

from core.images import (  # noqa: F401
    ACCEPTED_HINT,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_PIXELS,
    IMAGE_EXTENSIONS,
    ImageRejected,
    ValidatedImage,
    generated_name,
    human_size,
    validate_image,
)
