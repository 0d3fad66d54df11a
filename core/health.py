"""Readiness checks for /healthz."""

from __future__ import annotations

import os
import secrets
import socket

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection

from core.storage import private_storage


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


def storage_status() -> dict:
    """Write, read back and delete a small private object: a node that cannot reach the
    shared files would hand out pages whose images and exports fail."""
    storage = private_storage()
    payload = secrets.token_hex(8).encode()
    name = f"healthz/{socket.gethostname()}-{os.getpid()}-{payload.decode()}"
    mode = settings.CHARTROOM_STORAGE
    try:
        stored = storage.save(name, ContentFile(payload))
        try:
            with storage.open(stored, "rb") as handle:
                if handle.read() != payload:
                    return {"ok": False, "mode": mode, "error": "Read back other bytes."}
        finally:
            storage.delete(stored)
    except Exception as exc:  # any failure means "degraded", with the reason shown
        return {"ok": False, "mode": mode, "error": f"{type(exc).__name__}: {exc}"[:200]}
    return {"ok": True, "mode": mode}
