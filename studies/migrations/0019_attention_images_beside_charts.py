"""Attention check images stored before checks lived beside the charts move to ``charts/``.

An image under ``attention/`` told a participant's client, by its address alone, which trial
was an attention check. Each such image is copied to ``charts/`` under the same content-hash
name (or pointed at the chart file already there with the same bytes), the check is updated,
and the old file is deleted only once the migration's transaction has committed, so a failed
migration never leaves a check pointing at a deleted file. A check whose file is missing from
storage is left as it is: there is nothing to move, and the check's page says so already.
"""

import posixpath

from django.db import migrations, transaction

OLD_PREFIX = "attention/"


def _same_bytes(storage, name: str, data: bytes) -> bool:
    with storage.open(name, "rb") as existing:
        return existing.read() == data


def move_images_beside_charts(apps, schema_editor):
    AttentionCheck = apps.get_model("studies", "AttentionCheck")
    storage = AttentionCheck._meta.get_field("image").storage
    alias = schema_editor.connection.alias
    moved: dict[str, str] = {}
    checks = AttentionCheck.objects.using(alias).filter(image__startswith=OLD_PREFIX)
    # Names only: loading a check would open its image to read the size, and fail on a lost file.
    for pk, old in checks.order_by("pk").values_list("pk", "image"):
        if old not in moved:
            if not storage.exists(old):
                continue
            with storage.open(old, "rb") as source:
                data = source.read()
            new = "charts/" + posixpath.basename(old)
            if not (storage.exists(new) and _same_bytes(storage, new, data)):
                # The storage picks a free name if a different file already has this one.
                with storage.open(old, "rb") as source:
                    new = storage.save(new, source)
            moved[old] = new
        AttentionCheck.objects.using(alias).filter(pk=pk).update(image=moved[old])

    def delete_old_files():
        for old in moved:
            storage.delete(old)

    transaction.on_commit(delete_old_files, using=alias)


class Migration(migrations.Migration):
    dependencies = [
        ("studies", "0018_results_inputs_changed_at"),
    ]

    operations = [
        migrations.RunPython(move_images_beside_charts, migrations.RunPython.noop, elidable=True),
    ]
