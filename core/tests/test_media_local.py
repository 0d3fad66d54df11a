"""Files in the default local folders: chart images served for a year, private files unlinked."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from core.storage import private_storage


def test_a_chart_image_is_served_with_a_year_of_immutable_caching(client, settings):
    name = default_storage.save("charts/ab/abc123.png", ContentFile(b"png bytes"))
    assert (settings.MEDIA_ROOT / name).exists()  # the test's own folder, from MEDIA_ROOT
    response = client.get(f"/media/{name}")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == b"png bytes"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    # Link checkers, CDNs and `curl -I` ask with HEAD: the same headers, no body.
    head = client.head(f"/media/{name}")
    assert head.status_code == 200 and head["Cache-Control"] == response["Cache-Control"]


@pytest.mark.parametrize(
    "path", ["charts/none.png", "../private/x", "%2e%2e/secret_key", "charts/", "charts"]
)
def test_missing_files_folders_and_paths_outside_the_folder_are_404(client, path):
    default_storage.save("charts/ab/abc123.png", ContentFile(b"png bytes"))
    assert client.get(f"/media/{path}").status_code == 404


def test_private_files_live_in_private_media_root_and_have_no_url(client, settings):
    storage = private_storage()
    name = storage.save("jobs/export.csv", ContentFile(b"a,b\n"))
    assert (settings.PRIVATE_MEDIA_ROOT / name).read_bytes() == b"a,b\n"
    with pytest.raises(ValueError, match="no public URL"):
        storage.url(name)
    assert client.get(f"/media/{name}").status_code == 404  # not in the public folder
