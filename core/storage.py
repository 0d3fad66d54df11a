"""Storage for files that must not be public: exports, uploaded imports, job results.

Which storage that is comes from settings.STORAGES["private"] (config/storage_settings.py):
a local folder by default, a private bucket with CHARTROOM_STORAGE=s3. Code reads and writes
these files only through the storage API, never through paths, so any node can serve them.
"""

from django.conf import settings
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.utils.functional import cached_property


def private_storage() -> Storage:
    return storages["private"]


class PrivateFileSystemStorage(FileSystemStorage):
    """A folder (PRIVATE_MEDIA_ROOT) whose files have no URL: views that check access serve them."""

    @cached_property
    def base_location(self):
        return self._value_or_setting(self._location, settings.PRIVATE_MEDIA_ROOT)

    def _clear_cached_properties(self, setting, **kwargs):
        super()._clear_cached_properties(setting, **kwargs)
        if setting == "PRIVATE_MEDIA_ROOT":
            self.__dict__.pop("base_location", None)
            self.__dict__.pop("location", None)

    def url(self, name):
        # FileSystemStorage would fall back to MEDIA_URL, which is public.
        raise ValueError("Private files have no public URL; serve them through a view.")
