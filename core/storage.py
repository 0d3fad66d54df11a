"""Storage for files that must not be public: exports, uploaded imports."""

from django.conf import settings
from django.core.files.storage import FileSystemStorage


def private_storage() -> FileSystemStorage:
    # Never given a base_url: these files are served only by views that check access.
    return FileSystemStorage(location=settings.PRIVATE_MEDIA_ROOT)
