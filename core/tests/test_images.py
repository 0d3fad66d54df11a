import hashlib
import io
import os
import struct
import zlib

import pytest
from PIL import Image

from core.images import ImageRejected, ValidatedImage, generated_name, validate_image


def encoded(fmt, size=(1, 1), mode="RGB"):
    buffer = io.BytesIO()
    Image.new(mode, size, "red" if mode == "RGB" else 1).save(buffer, fmt)
    return buffer.getvalue()


def png_claiming(width, height):
    """A PNG whose header claims a canvas far bigger than its data."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


def rejection(data, **limits):
    with pytest.raises(ImageRejected) as error:
        validate_image(data, **limits)
    return error.value.message


def test_it_accepts_a_1x1_png():
    data = encoded("PNG")

    image = validate_image(data)

    assert image == ValidatedImage("PNG", 1, 1, "image/png", "png", data)


@pytest.mark.parametrize(
    ("fmt", "mode", "content_type", "extension"),
    [
        ("JPEG", "RGB", "image/jpeg", "jpg"),
        ("GIF", "P", "image/gif", "gif"),
        ("WEBP", "RGB", "image/webp", "webp"),
    ],
)
def test_it_accepts_the_other_web_formats(fmt, mode, content_type, extension):
    image = validate_image(encoded(fmt, (8, 6), mode))

    assert (image.format, image.width, image.height) == (fmt, 8, 6)
    assert (image.content_type, image.extension) == (content_type, extension)


def test_it_rejects_an_empty_file():
    assert "The file is empty" in rejection(b"")


def test_it_rejects_a_file_over_the_size_limit_before_reading_it():
    message = rejection(b"\x89PNG" + b"\x00" * (11 * 1024 * 1024))
    assert "the limit is 10 MB" in message
    assert "save it smaller" in message


def test_the_size_limit_can_be_lowered():
    assert "the limit is" in rejection(encoded("PNG", (50, 50)), max_bytes=20)


@pytest.mark.parametrize("data", [os.urandom(2048), b"chart id,answer\nG1_Q1_1,3\n"])
def test_it_rejects_random_bytes_and_text(data):
    assert "not an image we can read" in rejection(data)
    assert "PNG, JPEG, GIF or WebP" in rejection(data)


@pytest.mark.parametrize(("fmt", "name"), [("TIFF", "TIFF"), ("BMP", "BMP")])
def test_it_names_other_image_formats_so_people_know_what_to_convert(fmt, name):
    message = rejection(encoded(fmt, (4, 4)))
    assert f"This is a {name} file" in message
    assert "PNG, JPEG, GIF or WebP" in message


def test_it_rejects_an_svg():
    svg = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'
    assert "This is an SVG file" in rejection(svg)


def test_it_rejects_a_truncated_png():
    data = encoded("PNG", (200, 200))
    assert "damaged or incomplete" in rejection(data[: len(data) // 2])
    assert "damaged or incomplete" in rejection(data[:-30])


def test_it_rejects_a_truncated_jpeg_that_only_a_full_decode_notices():
    buffer = io.BytesIO()
    Image.effect_noise((300, 300), 50).convert("RGB").save(buffer, "JPEG")
    data = buffer.getvalue()

    assert "damaged or incomplete" in rejection(data[: len(data) // 2])


@pytest.mark.parametrize("offset", [37, 45], ids=["chunk-type", "chunk-data"])
def test_it_rejects_a_png_with_a_corrupt_chunk(offset):
    data = bytearray(encoded("PNG", (20, 20)))
    data[offset] ^= 0xFF  # in the IDAT chunk, so its checksum no longer matches
    assert "damaged or incomplete" in rejection(bytes(data))


def test_it_rejects_a_decompression_bomb_from_its_header():
    message = rejection(png_claiming(100_000, 100_000))
    assert "more pixels than we accept" in message
    assert "40,000,000" in message


def test_it_checks_the_pixel_limit_before_decoding():
    # The IDAT holds 16 bytes for a claimed 7,000 x 7,000 canvas: decoding would
    # fail, so the size message proves the header check came first.
    message = rejection(png_claiming(7_000, 7_000))
    assert "7,000 x 7,000 pixels (49,000,000 in total)" in message
    assert "the limit is 40,000,000 pixels" in message


def test_the_pixel_limit_can_be_lowered():
    assert "10 x 10 pixels" in rejection(encoded("PNG", (10, 10)), max_pixels=99)
    assert validate_image(encoded("PNG", (10, 10)), max_pixels=100).width == 10


def test_it_refuses_anything_but_bytes():
    with pytest.raises(TypeError):
        validate_image("not bytes")


def test_generated_names_come_from_the_content():
    data = encoded("PNG")

    name = generated_name(data, "png")

    assert name == hashlib.sha256(data).hexdigest() + ".png"
    assert generated_name(data, ".PNG") == name
    assert generated_name(encoded("PNG", (2, 2)), "png") != name


def test_generated_names_refuse_unexpected_extensions():
    with pytest.raises(ValueError):
        generated_name(b"x", "../../etc/passwd")
    with pytest.raises(ValueError):
        generated_name(b"x", "html")
