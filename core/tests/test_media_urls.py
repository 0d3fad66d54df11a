"""Public file URLs worked out once per name (core/media_urls.py): the same URLs as Django's."""

from __future__ import annotations

import itertools

import pytest
from django.core.files.storage import FileSystemStorage
from django.db.models.fields.files import FieldFile
from django.test import RequestFactory

from core import media_urls
from core.media_urls import absolute_public_url, public_url

NAMES = ["charts/ab/abcdef.png", "charts/a b/ç ü+x.png", "charts/odd%name;x=1.png"]


class CountingStorage(FileSystemStorage):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked = 0

    def url(self, name):
        self.asked += 1
        return super().url(name)


class SigningStorage(CountingStorage):
    """A storage whose URLs carry a fresh signature each time (a private bucket's)."""

    querystring_auth = True
    signatures = itertools.count()

    def url(self, name):
        return f"{super().url(name)}?sig={next(self.signatures)}"


class BucketStorage(CountingStorage):
    def url(self, name):
        self.asked += 1
        return f"https://charts.example.org/bucket/{name}"


def file(storage, name) -> FieldFile:
    field = type("Field", (), {"storage": storage})()
    return FieldFile(None, field, name)


@pytest.fixture(autouse=True)
def forget():
    media_urls._urls.clear()
    yield
    media_urls._urls.clear()


def requests():
    factory = RequestFactory()
    return [
        factory.get("/"),
        factory.get("/", secure=True, HTTP_HOST="participants.example.org"),
        factory.get("/", HTTP_HOST="127.0.0.1:8000"),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_the_url_is_the_one_django_builds_for_each_request(name, settings):
    settings.ALLOWED_HOSTS = ["testserver", "participants.example.org", "127.0.0.1"]
    storage = CountingStorage()
    for request in requests():
        assert absolute_public_url(request, file(storage, name)) == request.build_absolute_uri(
            file(storage, name).url
        )


def test_a_name_is_worked_out_once_whatever_the_request():
    storage = CountingStorage()
    urls = {absolute_public_url(r, file(storage, NAMES[1])) for r in requests()[:1] * 3}
    assert len(urls) == 1
    assert storage.asked == 1
    public_url(file(storage, NAMES[0]))
    assert storage.asked == 2


def test_a_signing_storage_is_asked_each_time():
    storage = SigningStorage()
    first, second = (public_url(file(storage, NAMES[0])) for _ in range(2))
    assert first != second and storage.asked == 2


def test_a_bucket_url_is_given_as_the_bucket_makes_it():
    storage = BucketStorage()
    request = requests()[1]
    url = absolute_public_url(request, file(storage, NAMES[0]))
    assert url == "https://charts.example.org/bucket/charts/ab/abcdef.png"
    assert url == request.build_absolute_uri(file(storage, NAMES[0]).url)


def test_a_changed_setting_is_followed(settings):
    storage = FileSystemStorage()
    before = public_url(file(storage, NAMES[0]))
    settings.MEDIA_URL = "/files/"
    after = public_url(file(storage, NAMES[0]))
    assert before == "/media/charts/ab/abcdef.png" and after == "/files/charts/ab/abcdef.png"


def test_the_kept_urls_are_bounded(monkeypatch):
    monkeypatch.setattr(media_urls, "_LIMIT", 2)
    storage = CountingStorage()
    for name in NAMES:
        public_url(file(storage, name))
    assert len(media_urls._urls) <= 2
