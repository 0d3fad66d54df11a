"""An import's upload as one .zip: a benchmark .zip as sent, or a manifest with its images;
and the size above which an import runs in the background."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError

DEFAULT_SYNC_MAX_BYTES = 25 * 1024 * 1024


def _safe_basename(name: str) -> str:
    base = PurePosixPath(str(name).replace("\\", "/")).name.strip()
    if base in ("", ".", ".."):
        raise ValidationError({"images": f"The file name {name!r} cannot be used."})
    return base


def upload_bundle(*, file=None, manifest=None, images=()) -> tuple[bytes, str]:
    """The upload as .zip bytes and its name: a .zip as is, or a manifest with its images.

    Images sent beside a manifest are placed next to it under their own file names (folders
    in the browser's file name are dropped), so the manifest's image column names the file,
    e.g. ``G1_Q1_1.png``.
    """
    limit = settings.CHARTROOM_MAX_UPLOAD_BYTES
    if file is None and manifest is None:
        raise ValidationError(
            {"file": "Choose a .zip of the benchmark (or a manifest and its images)."}
        )
    if file is not None and manifest is not None:
        raise ValidationError({"file": "Send either a .zip or a manifest with images, not both."})
    if file is not None:
        if file.size > limit:
            raise ValidationError(
                {"file": f"The upload is larger than {limit // (1024 * 1024)} MB."}
            )
        data = file.read()
        if not data.startswith(b"PK"):
            raise ValidationError(
                {
                    "file": "This is not a .zip archive. Zip the benchmark folder (or send a "
                    "manifest.csv / manifest.json with its images)."
                }
            )
        return data, _safe_basename(file.name or "upload.zip")

    manifest_name = _safe_basename(manifest.name or "manifest.csv").lower()
    suffix = ".json" if manifest_name.endswith(".json") else ".csv"
    total = manifest.size + sum(i.size for i in images)
    if total > limit:
        raise ValidationError({"images": f"The upload is larger than {limit // (1024 * 1024)} MB."})
    buffer = io.BytesIO()
    seen: set[str] = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(f"manifest{suffix}", manifest.read())
        for image in images:
            name = _safe_basename(image.name)
            if name.casefold() in seen or name.casefold() == f"manifest{suffix}":
                raise ValidationError({"images": f"Two uploaded files are named {name}."})
            seen.add(name.casefold())
            zf.writestr(name, image.read())
    return buffer.getvalue(), manifest_name


def sync_max_bytes() -> int:
    return getattr(settings, "CHARTROOM_IMPORT_SYNC_MAX_BYTES", DEFAULT_SYNC_MAX_BYTES)
