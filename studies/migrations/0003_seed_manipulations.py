from django.db import migrations

from studies.manipulations import BUILTIN


def seed(apps, schema_editor):
    ManipulationType = apps.get_model("studies", "ManipulationType")
    for m in BUILTIN:
        ManipulationType.objects.update_or_create(
            slug=m.slug,
            defaults={"label": m.label, "description": m.description, "vocabulary": list(m.vocabulary), "builtin": True},
        )


class Migration(migrations.Migration):
    dependencies = [("studies", "0002_chart_library")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
