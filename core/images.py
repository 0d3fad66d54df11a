"""Validation of uploaded chart images before anything stores or shows them.

An upload is untrusted bytes. It is accepted only when it is a PNG, JPEG, GIF
or WebP image that Pillow can fully decode and whose size, both in bytes and in
pixels, is within limits. Stored files are named after their content, never
after the uploaded path.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_PIXELS = 40_000_000

# Pillow format name -> (content type, extension). MPO is how Pillow reports a
# multi-picture JPEG straight from a camera; browsers show it as a JPEG.
_ACCEPTED = {
    "PNG": ("image/png", "png"),
    "JPEG": ("image/jpeg", "jpg"),
    "MPO": ("image/jpeg", "jpg"),
    "GIF": ("image/gif", "gif"),
    "WEBP": ("image/webp", "webp"),
}
# Only these plugins ever parse an upload: other decoders (EPS hands data to
# Ghostscript, for one) are not exposed to untrusted bytes.
_OPEN_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")
IMAGE_EXTENSIONS = frozenset({"png", "jpg", "jpeg", "gif", "webp"})

ACCEPTED_HINT = "PNG, JPEG, GIF or WebP"


class ImageRejected(ValueError):
    """An upload is not an acceptable image; ``message`` says what to fix."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ValidatedImage:
    """An image that passed :func:`validate_image`. ``extension`` has no dot ("png")."""

    format: str
    width: int
    height: int
    content_type: str
    extension: str
    data: bytes

    def __repr__(self) -> str:  # the bytes would drown any log or test failure
        return (
            f"ValidatedImage(format={self.format!r}, width={self.width}, height={self.height}, "
            f"{len(self.data)} bytes)"
        )


def human_size(n: int) -> str:
    """A byte count as people read it: "512 bytes", "20 KB", "10 MB", "12.5 MB"."""
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n / (1024 * 1024):.1f} MB".replace(".0 MB", " MB")


_DAMAGED = (
    "The image file is damaged or incomplete and could not be decoded. "
    "Please export or download it again and upload the new file."
)


def _looks_accepted(data: bytes) -> bool:
    """Whether the file starts like an accepted format, so a failure to open means damage."""
    return data.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")) or (
        data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    )


def _sniff_other_format(data: bytes) -> str | None:
    """Name a common non-accepted format, so the message can say what to convert."""
    head = data[:1024]
    if head.startswith(b"BM"):
        return "BMP"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF"
    if head.startswith(b"\x00\x00\x01\x00"):
        return "ICO"
    if head.startswith(b"8BPS"):
        return "Photoshop (PSD)"
    if head.startswith(b"%PDF"):
        return "PDF"
    if head[4:8] == b"ftyp" and head[8:12] in {b"heic", b"heix", b"mif1", b"msf1", b"hevc"}:
        return "HEIC"
    if head[4:8] == b"ftyp" and head[8:12] in {b"avif", b"avis"}:
        return "AVIF"
    if head.startswith((b"\x00\x00\x00\x0cjP  ", b"\xff\x4f\xff\x51")):
        return "JPEG 2000"
    if b"<svg" in head.lower():
        return "SVG"
    return None


def _with_article(name: str) -> str:
    """ "a PDF", "an SVG": the article goes by how the name is said."""
    return f"an {name}" if name in ("SVG", "ICO", "AVIF") else f"a {name}"


def _reject_pixels(width: int, height: int, max_pixels: int) -> ImageRejected:
    return ImageRejected(
        f"The image is {width:,} x {height:,} pixels ({width * height:,} in total); "
        f"the limit is {max_pixels:,} pixels. Please resize it and upload it again."
    )


def validate_image(
    data: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> ValidatedImage:
    """Check an uploaded image and describe it, or raise :class:`ImageRejected`.

    The pixel count is checked from the header before any pixel is decoded, so
    a small file that claims a huge canvas (a decompression bomb) costs nothing.
    Pillow's own bomb guard (``DecompressionBombError``, and its warning, which is
    raised as an error here) also rejects; it fires above ``Image.MAX_IMAGE_PIXELS``,
    so a ``max_pixels`` above that value is capped by Pillow. Integrity is checked
    twice: ``verify()`` reads the file's structure and checksums, then a full
    ``load()`` decodes the pixels (of the first frame for animations), which
    catches truncation that ``verify()`` does not see in JPEGs.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError("validate_image expects the file's bytes")
    data = bytes(data)
    if not data:
        raise ImageRejected("The file is empty. Please choose the chart image and upload it again.")
    if len(data) > max_bytes:
        raise ImageRejected(
            f"The image is {human_size(len(data))}; the limit is {human_size(max_bytes)}. "
            "Please save it smaller (fewer pixels, or as a compressed PNG or JPEG)."
        )

    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data), formats=_OPEN_FORMATS) as im:
                fmt = im.format
                width, height = im.size
                if width <= 0 or height <= 0:
                    raise ImageRejected("The image has no pixels. Please export the chart again.")
                if width * height > max_pixels:
                    raise _reject_pixels(width, height, max_pixels)
                im.verify()
            # verify() leaves the image unusable, so decoding needs a fresh open.
            with Image.open(io.BytesIO(data), formats=_OPEN_FORMATS) as im:
                im.load()
        except ImageRejected:
            raise
        except UnidentifiedImageError:
            if _looks_accepted(data):
                raise ImageRejected(_DAMAGED) from None
            other = _sniff_other_format(data)
            if other:
                raise ImageRejected(
                    f"This is {_with_article(other)} file; please save the chart as {ACCEPTED_HINT} "
                    "and upload it again."
                ) from None
            raise ImageRejected(
                f"This file is not an image we can read. Please upload a {ACCEPTED_HINT} image."
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageRejected(
                f"The image has more pixels than we accept (the limit is {max_pixels:,}). "
                "Please resize it and upload it again."
            ) from None
        except Exception:  # any decoder failure on untrusted bytes means "damaged"
            raise ImageRejected(_DAMAGED) from None

    if fmt not in _ACCEPTED:  # defensive: _OPEN_FORMATS already limits this
        raise ImageRejected(f"{fmt} images are not accepted; please save it as {ACCEPTED_HINT}.")
    content_type, extension = _ACCEPTED[fmt]
    return ValidatedImage(
        format="JPEG" if fmt == "MPO" else fmt,
        width=width,
        height=height,
        content_type=content_type,
        extension=extension,
        data=data,
    )


def generated_name(data: bytes, extension: str) -> str:
    """Storage name derived from the content: ``<sha256 hex>.<extension>``.

    Naming by content means uploaded paths (which may hold ``..``, personal
    names or odd characters) never reach the storage, and re-uploading the
    same image maps to the same file.
    """
    ext = extension.lower().lstrip(".")
    if ext not in IMAGE_EXTENSIONS:
        raise ValueError(f"Unexpected image extension {extension!r}")
    return f"{hashlib.sha256(bytes(data)).hexdigest()}.{ext}"
