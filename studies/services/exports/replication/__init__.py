"""The HMI dataset's replication files: the trials that enter the log odds model, the
platform's log odds on them, and an R script that refits the paper's glmer on the same rows.

Kept apart from the dataset's other files so each addition to the zip stays one call.
"""

from __future__ import annotations

import io
from importlib.resources import files
from typing import TYPE_CHECKING

from analysis.hmi import attach_chart_meta
from analysis.log_odds import MIXED_ESTIMATOR, log_odds_by_group, model_trials
from core.csv_safety import csv_writer
from core.datasets import Field
from studies.models import Study
from studies.selectors import results as sel
from studies.selectors.languages import session_languages
from studies.services.exports.pseudonyms import pseudonym, study_salt
from studies.services.results.exclusion import study_exclusion

if TYPE_CHECKING:
    import pandas as pd

TRIALS_FILE = "log_odds_trials.csv"
PLATFORM_FILE = "log_odds_platform.csv"
SCRIPT_FILE = "replicate_glmer.R"

# The columns as written, and as the dataset's metadata describes them.
S, INT, N = "string", "integer", "number"
TRIALS_FIELDS = (
    Field("participant", S, "The participant, under the same salted pseudonym as the responses "
          "export."),
    Field("chart_id", S, "Chart id G<group>_Q<question>_<version> (CHARTOM naming)."),
    Field("group", S, "Manipulation group of the chart (G1, G2 ...)."),
    Field("question", S, "Question id within the group (Q1, Q2 ...)."),
    Field("version", INT, "1 = non-manipulated, 2 = manipulated."),
    Field("manipulated", INT, "1 if the chart is manipulated (version 2), else 0."),
    Field("error", INT, "1 if the answer was wrong or missing, 0 if correct."),
    Field("language", S, "The language the participant took the study in (a code such as de)."),
)  # fmt: skip
PLATFORM_FIELDS = (
    Field("group", S, "Manipulation group (G1, G2 ...)."),
    Field("manipulation", S, "The manipulation planted in the group's manipulated charts."),
    Field("platform", N, "The platform's log odds ratio of an error, manipulated vs "
          "non-manipulated (mixed-effects model, variational Bayes)."),
    Field("platform_se", N, "Posterior standard deviation of that log odds ratio."),
    Field("ci_low", N, "Lower end of its 95% credible interval."),
    Field("ci_high", N, "Upper end of its 95% credible interval."),
)  # fmt: skip
PLATFORM_COLUMNS = [f.name for f in PLATFORM_FIELDS]
# The dataset's description of each replication file: (resource name, media type, fields,
# description); a file without fields is kept as it is, not read as a table.
REPLICATION_FILES = {
    TRIALS_FILE: ("log_odds_trials", "text/csv", TRIALS_FIELDS, "One row per trial that enters "
                  "the log odds model (included participants; groups with an unbounded cell "
                  "left out)."),
    PLATFORM_FILE: ("log_odds_platform", "text/csv", PLATFORM_FIELDS, "The platform's log odds "
                    "ratio per group on the trials of log_odds_trials.csv."),
    # R sources have no registered media type; text/x-r is the one in common use.
    SCRIPT_FILE: ("replicate_glmer", "text/x-r", (), "R script: `Rscript replicate_glmer.R` in "
                  "the unzipped folder refits the paper's glmer (lme4) on log_odds_trials.csv "
                  "and prints its log odds ratios beside the platform's."),
}  # fmt: skip


def replication_trials(study: Study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every trial of an included participant that enters the log odds model (see
    :func:`analysis.log_odds.model_trials`), participants under their export pseudonym;
    and every included trial with its chart's facts, as the model fit reads them."""
    import pandas as pd

    exclusion = study_exclusion(study)
    catalogue = sel.chart_catalogue(study)
    trials = sel.chart_trials_frame(study, exclusion.included_ids)
    salt = study_salt(study)
    external = {d.facts.id: d.facts.external_id for d in exclusion.took_part}
    languages = session_languages(study)
    code = dict(zip(catalogue["pk"], catalogue["chart_id"], strict=True))
    frame = pd.DataFrame(
        {
            "participant": [
                pseudonym(salt, int(sid), external.get(int(sid), ""))
                for sid in trials["participant"]
            ],
            "chart_id": trials["chart_pk"].map(code),
            "correct": trials["correct"],
        }
    )
    meta = catalogue[["chart_id", "group", "question", "version", "group_manipulation"]]
    with_meta = attach_chart_meta(
        frame, meta.rename(columns={"group_manipulation": "manipulation"})
    )
    rows = model_trials(with_meta)
    # Which language each participant took the study in, so a replication can split by it.
    language = {
        pseudonym(salt, sid, external.get(sid, "")): languages.get(sid, study.language)
        for sid in map(int, trials["participant"].unique())
    }
    rows["language"] = rows["participant"].map(language)
    return rows, with_meta


def _csv(header: list[str], rows) -> bytes:
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def replication_files(study: Study) -> dict[str, bytes]:
    """The trials CSV, the platform's log odds on them and the R script, by path in the zip."""
    trials, with_meta = replication_trials(study)
    columns = [f.name for f in TRIALS_FIELDS]
    rows = []
    if not trials.empty:
        fits = log_odds_by_group(with_meta, seed=study.seed, include_gee=False)
        fits = fits[(fits["estimator"] == MIXED_ESTIMATOR) & fits["log_odds_ratio"].notna()]
        rows = [
            [r.group, r.manipulation or "", r.log_odds_ratio, r.se, r.ci_low, r.ci_high]
            for r in fits.itertuples(index=False)
        ]
    return {
        TRIALS_FILE: _csv(columns, trials[columns].itertuples(index=False)),
        PLATFORM_FILE: _csv(PLATFORM_COLUMNS, rows),
        SCRIPT_FILE: files(__package__).joinpath(SCRIPT_FILE).read_bytes(),
    }


README_TITLE = "Replicating the log odds in R"
README_SECTION = """- {trials}: one row per trial that enters the log odds model (included participants,
  under the same pseudonym as the responses export; every chart they were given, an
  unanswered one counted as an error): participant, chart_id, group, question, version
  (1 non-manipulated, 2 manipulated), manipulated (0/1), error (1 wrong or unanswered).
  Groups where every non-manipulated or every manipulated answer was right (or wrong) have
  an unbounded log odds and are left out, as the platform leaves them out of its fit.
- {platform}: the platform's log odds ratio per group on those trials, with its SD and
  95% credible interval.
- {script}: `Rscript {script}` in the unzipped folder fits the paper's model with lme4
  (`glmer(error ~ 0 + cell + (1 | participant) + (1 | group:question), family = binomial)`,
  cell = group x version, the paper's `group_id:manipulation_type` in cell coding) and
  prints its log odds ratios beside the platform's with their differences.

Estimator. The platform does not fit glmer's maximum-likelihood model: it fits the same
model by mean-field variational Bayes (statsmodels `BinomialBayesMixedGLM.fit_vb`, the
study's seed fixing the starting values). Priors: each cell's log odds ~ N(0, 5^2), wide so
the estimates stay near maximum likelihood; the log standard deviation of each random
intercept (participant, group:question) ~ N(0, 1). p = expit(beta) at random effects 0, as
emmeans reports for glmer, and log OR = beta_manipulated - beta_non-manipulated. Mean-field
VB treats the two cells as independent and tends to understate posterior spread, so its
intervals are on the narrow side of glmer's Wald intervals.

Measured difference. An outside check on data of the paper's size found the platform's log
odds within about 2% of glmer's. It was not measured on this dataset when it was exported
(the platform does not run R); the script above measures it: it prints the mean and the
largest relative difference per group.

Kendall's tau. The p-value of the ranking comparison is scipy's: the exact null
distribution for up to 33 groups without ties, the normal approximation otherwise (R's
`cor.test` is exact up to 49 items, so its p-value may differ slightly between 34 and 49).
"""


def replication_readme() -> str:
    return README_SECTION.format(trials=TRIALS_FILE, platform=PLATFORM_FILE, script=SCRIPT_FILE)
