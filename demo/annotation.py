"""The demo annotation project: generated charts, machine-style captions and a few labels.

Charts and captions come from ``fixtures/caption_charts.json`` (chart specs rendered with
studies.chartgen, two captions per chart with reference labels). They go through the same
importer researchers use, as a CHOCOLATE JSON file and a zip of PNGs. Two of the demo
annotators have already labelled part of the items, so progress pages have something to
show and the first annotator's queue starts with items one label short of complete.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Project
from annotation.services import (
    assignment_next,
    assignment_submit,
    captions_import,
    project_create,
    project_join,
)
from core.demo_accounts import DEMO_PASSWORD, NEW_ANNOTATOR
from core.models import User

DEMO_SLUG = "demo-captions"
FIXTURE = Path(settings.BASE_DIR) / "fixtures" / "caption_charts.json"
PRELABELLED = 16  # items the second and third demo annotators have already done
# The first demo annotator has done a few too, so some items are complete (k = 3)
# and the agreement report has numbers at once; the rest are left for whoever signs in.
PRELABELLED_FIRST = 6


def _demo_files(records) -> tuple[bytes, bytes]:
    """A CHOCOLATE JSON file and a zip of the rendered charts it names."""
    from studies.chartgen import load_specs, render_chart

    specs = load_specs([record["chart"] for record in records])
    archive = io.BytesIO()
    rows = []
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zipped:
        for record, spec in zip(records, specs, strict=True):
            name = f"{spec.id}.png"
            zipped.writestr(name, render_chart(spec, manipulated=False))
            for caption in record["captions"]:
                rows.append(
                    {
                        "_id": f"{caption['model']}-{record['id']}",
                        "sentences": caption["sentences"],
                        "labels": caption.get("labels"),
                        "model": caption["model"],
                        "dataset": caption.get("dataset", "generated"),
                        "image_path": name,
                    }
                )
    return json.dumps(rows).encode(), archive.getvalue()


def _noisy(labels, keys, rng) -> list[list[str]]:
    """An annotator's take on the reference: mostly agreeing, sometimes not."""
    out = []
    for sentence in labels:
        chosen = set(sentence)
        if chosen and rng.random() < 0.15:
            chosen.discard(rng.choice(sorted(chosen)))
        if rng.random() < 0.08:
            chosen.add(rng.choice(keys))
        out.append([k for k in keys if k in chosen])
    return out


def _prelabel(project: Project, annotators: list[tuple[User, int]]) -> None:
    from annotation.services.quality import controls

    rng = random.Random(20240604)
    # Seeded control draws, so `make demo` gives the same data every time.
    system_rng, controls._rng = controls._rng, random.Random(7)
    try:
        _prelabel_with(project, annotators, rng)
    finally:
        controls._rng = system_rng


def _prelabel_with(project: Project, annotators: list[tuple[User, int]], rng) -> None:
    keys = project.category_keys()
    references = dict(project.items.values_list("pk", "reference__labels"))
    for annotator, count in annotators:
        for _ in range(count):
            assignment = assignment_next(project=project, annotator=annotator)
            if assignment is None:
                break
            seconds = rng.uniform(50, 140)
            # Backdated so the measured time fits inside the lease, as it would in real work.
            Assignment.objects.filter(pk=assignment.pk).update(
                leased_at=timezone.now() - timedelta(seconds=seconds + 10)
            )
            reference = references.get(assignment.item_id) or [
                [] for _ in assignment.item.sentences
            ]
            assignment_submit(
                assignment_id=assignment.pk,
                annotator=annotator,
                labels=_noisy(reference, keys, rng),
                active_seconds=seconds,
            )


def load_annotation_demo(owner: User, annotators: list[User]) -> Project:
    """Create (or reuse) the demo project; safe to run again."""
    with transaction.atomic():
        project = Project.objects.filter(slug=DEMO_SLUG).first() or project_create(
            owner=owner,
            title="Demo caption annotation",
            slug=DEMO_SLUG,
            description=(
                "Machine-written captions of generated charts. Mark each sentence with the "
                "errors it makes about its chart."
            ),
        )
        for annotator in annotators:
            project_join(project=project, annotator=annotator)
        if project.items.exists():
            return project
        records = json.loads(FIXTURE.read_text(encoding="utf-8"))
        data, images = _demo_files(records)
        captions_import(
            project=project,
            data=data,
            filename="demo_captions.json",
            images=images,
            images_filename="demo_charts.zip",
            user=owner,
        )
        _quality_demo(project, owner, annotators)
        _prelabel(project, [(a, PRELABELLED) for a in annotators[1:]]
                  + [(a, PRELABELLED_FIRST) for a in annotators[:1]])  # fmt: skip
    return project


# Quality control in the demo: two qualification rounds of one caption per attempt,
# each drawn from two gold captions, so a retry asks a caption not seen before and the
# researchers' labels can be shown after a failed attempt; a few control items, all
# gold taken over from the fixture's reference labels. Two attempts per round with a
# short wait. The demo annotators are qualified by hand so they can label at once;
# `annotator-new` takes the rounds.
ROUNDS = [
    ("A first caption", ["gpt4v-caption-01", "chartt5-caption-01"]),
    ("A second caption", ["bard-caption-02", "deplot-caption-02"]),
]
ROUND_ITEMS = [external_id for _title, pool in ROUNDS for external_id in pool]
CONTROL_ITEMS = ["chartt5-caption-07", "deplot-caption-08", "matcha-caption-09", "bard-caption-12"]
EXPLANATIONS = {
    "gpt4v-caption-01": "The third sentence gives a value the chart does not show.",
    "chartt5-caption-01": "The 65+ group has the lowest share, not the highest; the last "
    "sentence is not language.",
    "bard-caption-02": "The second sentence gets the direction of the trend wrong.",
    "deplot-caption-02": "The chart says nothing about oil companies' profits.",
}
DEMO_ATTEMPTS = 2
DEMO_RETRY_MINUTES = 2


def _quality_demo(project: Project, owner: User, annotators: list[User]) -> None:
    from annotation.models import GoldItem
    from annotation.services.quality import (
        annotator_decide,
        gold_from_reference,
        gold_set,
        policy_for,
        round_create,
    )

    items = dict(project.items.values_list("external_id", "pk"))
    gold_from_reference(
        project=project, actor=owner, item_ids=[items[x] for x in ROUND_ITEMS + CONTROL_ITEMS]
    )
    for external_id, text in EXPLANATIONS.items():
        gold = GoldItem.objects.get(item_id=items[external_id])
        gold_set(project=project, item=gold.item, labels=gold.labels, explanation=text,
                 actor=owner, source=gold.source)  # fmt: skip
    for title, pool in ROUNDS:
        round_create(
            project=project,
            title=title,
            gold_items=[GoldItem.objects.get(item_id=items[x]) for x in pool],
            items_per_attempt=1,
            actor=owner,
        )
    policy = policy_for(project)
    policy.show_gold_after_round = True
    policy.max_attempts = DEMO_ATTEMPTS
    policy.retry_delay_minutes = DEMO_RETRY_MINUTES
    policy.save(update_fields=["show_gold_after_round", "max_attempts", "retry_delay_minutes"])
    for annotator in annotators:
        annotator_decide(project=project, annotator=annotator, action="qualify",
                         reason="Demo annotator, qualified in advance.", actor=owner)  # fmt: skip
    new, created = User.objects.get_or_create(
        username=NEW_ANNOTATOR, defaults={"role": User.Role.ANNOTATOR}
    )
    if created:
        new.set_password(DEMO_PASSWORD)
        new.save(update_fields=["password"])
    project_join(project=project, annotator=new)


def annotation_demo_remove() -> bool:
    """Delete the demo project, so that the next load builds it as ``make demo`` does.

    Deleting the project takes its items, labels, rounds, gold and every annotator's
    standing with it (``annotator-new`` starts the rounds afresh). Its chart images go
    once the deletion is committed: a reset that fails later keeps them with the rows.
    """
    project = Project.objects.filter(slug=DEMO_SLUG).first()
    if project is None:
        return False
    images = [item.image for item in project.items.exclude(image="")]
    with transaction.atomic():
        project.delete()

        def images_delete():
            for image in images:
                image.storage.delete(image.name)

        transaction.on_commit(images_delete)
    return True
