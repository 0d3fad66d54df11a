from django.db import migrations, models


def carry_resumes(apps, schema_editor):
    """Keep a resumed annotator's fresh start: earlier controls stay out of their score.

    Resuming used to delete the annotator's control results; now it sets
    ``controls_since``. The audit log has the time of every resume.
    """
    Qualification = apps.get_model("annotation", "Qualification")
    AuditEntry = apps.get_model("core", "AuditEntry")
    resumes = AuditEntry.objects.filter(action="annotation.annotator_resume").order_by("created_at")
    for entry in resumes:
        project_id = entry.subject.rpartition(":")[2]
        username = (entry.details or {}).get("annotator")
        if not project_id.isdigit() or not username:
            continue
        Qualification.objects.filter(
            project_id=int(project_id), annotator__username=username
        ).update(controls_since=entry.created_at)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0005_quality"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="qualification",
            name="controls_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(carry_resumes, migrations.RunPython.noop),
        migrations.DeleteModel(name="ControlResult"),
    ]
