"""A zip whose bytes depend only on what is written into it."""

from __future__ import annotations

import zipfile

# Zip entries carry a modification time; a fixed one makes an unchanged dataset
# export to the same bytes (1980-01-01 is the earliest time the format can hold).
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


class StableZip(zipfile.ZipFile):
    """``zipfile.ZipFile`` writing every entry with a fixed time and permissions."""

    def __init__(self, file, mode: str = "w"):
        super().__init__(file, mode, zipfile.ZIP_DEFLATED)

    def writestr(self, zinfo_or_arcname, data, compress_type=None, compresslevel=None):
        if isinstance(zinfo_or_arcname, str):
            info = zipfile.ZipInfo(zinfo_or_arcname, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zinfo_or_arcname = info
        super().writestr(zinfo_or_arcname, data, compress_type, compresslevel)
