"""The HMI dataset's replication files: the model's trials as long CSV, the platform's log odds
and the R script that refits the paper's glmer on them."""

import csv
import io
import zipfile

import pytest

from studies.models import ParticipantSession, Trial
from studies.services.exports import export_write
from studies.services.results.exclusion import study_exclusion
from studies.tests.factories import simulated_study

pytestmark = pytest.mark.django_db


def _zip(study) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    export_write(study=study, slug="hmi-zip", out=buffer)
    buffer.seek(0)
    return zipfile.ZipFile(buffer)


def _rows(archive, name):
    return list(csv.DictReader(io.StringIO(archive.read(name).decode("utf-8"))))


def test_the_trials_csv_has_one_row_per_included_trial_of_each_fitted_group(researcher):
    study = simulated_study(researcher, participants=30, pairs=3, compute=False)
    archive = _zip(study)
    trials = _rows(archive, "log_odds_trials.csv")
    platform = _rows(archive, "log_odds_platform.csv")
    fitted = {r["group"] for r in platform}
    assert fitted and {r["group"] for r in trials} == fitted

    # Counted apart from the export's own code: the chart trials of included sessions.
    included = study_exclusion(study).included_ids
    expected = Trial.objects.filter(
        session_id__in=included,
        kind=Trial.Kind.CHART,
        chart__question__group__code__in=fitted,
    )
    assert len(trials) == expected.count()
    wrong = expected.exclude(response__correct=True).count()
    assert sum(int(r["error"]) for r in trials) == wrong
    assert {r["manipulated"] for r in trials} == {"0", "1"}
    assert all(r["manipulated"] == str(int(r["version"]) - 1) for r in trials)
    # Participants appear under the export's pseudonym, never the platform id.
    external = set(
        ParticipantSession.objects.filter(pk__in=included).values_list("external_id", flat=True)
    )
    assert all(r["participant"].startswith("p_") for r in trials)
    assert not external & {r["participant"] for r in trials}
    assert len({r["participant"] for r in trials}) == len(included)


def test_the_zip_has_the_r_script_and_the_readme_says_how_the_numbers_were_made(researcher):
    study = simulated_study(researcher, participants=12, pairs=2, compute=False)
    archive = _zip(study)
    script = archive.read("replicate_glmer.R").decode()
    assert "glmer(error ~ 0 + cell + (1 | participant) + (1 | group_question)" in script
    assert "log_odds_trials.csv" in script and "log_odds_platform.csv" in script
    readme = archive.read("README.md").decode()
    for text in ("variational Bayes", "N(0, 5^2)", "about 2%", "not", "Rscript", "33 groups"):
        assert text in readme, text
    header = archive.read("log_odds_platform.csv").decode().splitlines()[0]
    assert header == "group,manipulation,platform,platform_se,ci_low,ci_high"
