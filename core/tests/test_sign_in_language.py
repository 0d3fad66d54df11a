"""The sign-in page speaks the browser's language (Accept-Language among the shipped
ones), English by default."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("accept", "lang", "words"),
    [
        ("de-DE,de;q=0.9,en;q=0.5", "de", ["<h1>Anmelden</h1>", "Benutzername", "Passwort"]),
        ("es", "es", ["<h1>Iniciar sesión</h1>", "Nombre de usuario", "Contraseña"]),
        ("fr-FR,fr;q=0.9", "en", ["<h1>Sign in</h1>", "Username", "Password"]),
        (None, "en", ["<h1>Sign in</h1>", "Username", "Password"]),
    ],
)
def test_the_sign_in_page_speaks_the_browsers_language(client, accept, lang, words):
    headers = {"HTTP_ACCEPT_LANGUAGE": accept} if accept else {}
    response = client.get(reverse("login"), **headers)
    body = response.content.decode()
    assert f'<html lang="{lang}' in body and 'dir="ltr"' in body
    assert all(word in body for word in words)
    assert "Accept-Language" in response["Vary"]


def test_a_wrong_password_is_refused_in_the_browsers_language(client, annotator):
    response = client.post(
        reverse("login"),
        {"username": annotator.username, "password": "not-the-password"},
        HTTP_ACCEPT_LANGUAGE="es",
    )
    body = response.content.decode()
    assert response.status_code == 200 and '<html lang="es"' in body
    assert "no corresponden a ninguna cuenta" in body


def test_signing_in_still_works(client, annotator, password):
    response = client.post(
        reverse("login"),
        {"username": annotator.username, "password": password},
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 302


def test_the_lockout_page_speaks_the_browsers_language(client, annotator, settings):
    settings.AXES_FAILURE_LIMIT = 1
    response = client.post(
        reverse("login"),
        {"username": annotator.username, "password": "not-the-password"},
        HTTP_ACCEPT_LANGUAGE="de",
    )
    body = response.content.decode()
    assert response.status_code == 429 and '<html lang="de"' in body
    assert "Zu viele fehlgeschlagene Anmeldeversuche" in body
    assert "Sie können es in 15 Minuten erneut versuchen." in body
