"""Readiness checks for /healthz."""

from __future__ import annotations

from django.conf import settings
from django.db import connection


def database_status() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "down", with the reason shown
        return {
            "ok": False,
            "vendor": connection.vendor,
            "error": f"{type(exc).__name__}: {exc}"[:200],
        }
    return {"ok": True, "vendor": connection.vendor}


def broker_status() -> dict:
    if not settings.CELERY_BROKER_URL:
        return {
            "ok": True,
            "mode": "eager",
            "detail": "No broker configured; tasks run in-process.",
        }
    from config.celery import app

    try:
        with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return {"ok": False, "mode": "broker", "error": f"{type(exc).__name__}: {exc}"[:200]}
    return {
        "ok": True,
        "mode": "broker",
        "transport": settings.CELERY_BROKER_URL.split("://", 1)[0],
    }
