"""Does a model's MIND justification name the manipulation planted in the chart?

CHARTOM (section 5) suggests comparing each justification with the "chart
manipulations" file: a capable model should name the planted manipulation as
a cause, especially on charts with a high HMI. This module does that by phrase
matching against each manipulation type's vocabulary (``studies.manipulations``
ships one per built-in type; researchers add their own).

Matching rule (:func:`mentions_manipulation`)
    * Case-insensitive, after Unicode normalisation (NFKC), with typographic
      apostrophes and dashes folded to ASCII.
    * Whole words only: "area" does not match "rearranged". A plural "s" or "es"
      on the phrase's last word also matches ("icon" matches "icons").
    * Hyphens, spaces and apostrophes between words are interchangeable or
      optional, and so is the break between a digit and a letter: "y axis"
      matches "y-axis" and "yaxis", "3D" matches "3-D" and "3 d", "doesn't"
      matches "doesnt".
    * Negation: an occurrence is negated when a cue - not, no, never, without,
      nothing, none, neither, nor, cannot or a word ending in n't - stands
      within the 5 words before it in the same clause. Clauses end at
      punctuation (. , ; : ! ? brackets, line breaks) and at but, however,
      although, though, whereas, yet, while, and, so, because, since, which.
      "not only", "not just", "no doubt" and "no matter" are not negations.
      So "the axis is not truncated" and "no 3D effect" are negated, while
      "no gridlines, but the axis is truncated" is not. Cues inside the phrase
      itself are part of it: "does not start at zero" is a positive phrase.
      A phrase counts when at least one occurrence is not negated.
    Longer-range negation ("there is no evidence that the axis is truncated")
    is beyond this simple rule and reads as a mention.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analysis.hmi import wilson_interval
from analysis.tables import natural_sorted

if TYPE_CHECKING:
    import pandas as pd

NEGATION_WINDOW = 5

_NEGATION = re.compile(r"^(?:not|no|never|without|nothing|none|neither|nor|cannot|[a-z]+n't)$")
# Contractions typed without the apostrophe ("doesnt"), for the common verbs only:
# a bare "-nt" ending would take "different" or "percent" for a negation.
_NT_WORDS = re.compile(
    r"^(?:isnt|arent|wasnt|werent|doesnt|dont|didnt|hasnt|havent|hadnt|cant|couldnt|"
    r"wont|wouldnt|shouldnt)$"
)
_NOT_A_NEGATION_AFTER = {"only", "just", "doubt", "matter"}
_CLAUSE_BREAK = re.compile(
    r"[.,;:!?()\[\]\n]|\b(?:but|however|although|though|whereas|yet|while|and|so|because|"
    r"since|which)\b"
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class Match:
    """Which vocabulary phrases a justification names.

    ``phrases`` are the phrases with at least one occurrence that is not
    negated, in vocabulary order; ``negated`` those found only negated.
    """

    matched: bool
    phrases: list[str]
    negated: list[str] = field(default_factory=list)


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    for ch in "\u2018\u2019\u02bc\u2032`":
        text = text.replace(ch, "'")
    for ch in "\u2010\u2011\u2012\u2013\u2014\u2212":
        text = text.replace(ch, "-")
    return text


def _phrase_pattern(phrase: str) -> re.Pattern | None:
    tokens = re.findall(r"[a-z]+|[0-9]+", _normalise(phrase))
    if not tokens:
        return None
    body = r"[\s'-]{0,3}".join(re.escape(t) for t in tokens)
    plural = "(?:e?s)?" if tokens[-1].isalpha() else ""
    return re.compile(rf"(?<![a-z0-9]){body}{plural}(?![a-z0-9])")


def _is_cue(words: list[str], index: int) -> bool:
    word = words[index]
    if not (_NEGATION.match(word) or _NT_WORDS.match(word)):
        return False
    following = words[index + 1] if index + 1 < len(words) else None
    return following not in _NOT_A_NEGATION_AFTER


def _negated(text: str, start: int) -> bool:
    before = text[:start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    clause = before[breaks[-1].end() :] if breaks else before
    words = _WORD.findall(clause)
    window = words[-NEGATION_WINDOW:]
    return any(_is_cue(window, i) for i in range(len(window)))


def mentions_manipulation(justification, vocabulary: Iterable[str]) -> Match:
    """Whether ``justification`` names any phrase of ``vocabulary``; rule in the module docstring."""
    phrases = [p for p in dict.fromkeys(str(v).strip() for v in vocabulary) if p]
    if justification is None or (isinstance(justification, float) and np.isnan(justification)):
        return Match(False, [], [])
    text = _normalise(justification)
    found, negated = [], []
    for phrase in phrases:
        pattern = _phrase_pattern(phrase)
        if pattern is None:
            continue
        outcomes = [_negated(text, m.start()) for m in pattern.finditer(text)]
        if not outcomes:
            continue
        if all(outcomes):
            negated.append(phrase)
        else:
            found.append(phrase)
    return Match(bool(found), found, negated)


# --------------------------------------------------------------------------- report


@dataclass(frozen=True)
class JustificationReport:
    """The output of :func:`justification_report`.

    per_model
        model, n_manipulated, n_scored, n_named, share_named, ci_low, ci_high,
        n_plain_scored, n_plain_named, false_alarm_rate, mean_hmi_named,
        mean_hmi_not_named, hmi_r, hmi_p, message.
    by_group
        model, group, manipulation, hmi (mean over the group's manipulated
        charts that were scored), n_scored, n_named, share_named.
    charts
        One row per input row: model, chart_id, group, version, manipulation,
        hmi, named (True / False / None when not scored), phrases, negated,
        status (None, or why the row was not scored).
    """

    per_model: pd.DataFrame
    by_group: pd.DataFrame
    charts: pd.DataFrame


PER_MODEL_COLUMNS = [
    "model",
    "n_manipulated",
    "n_scored",
    "n_named",
    "share_named",
    "ci_low",
    "ci_high",
    "n_plain_scored",
    "n_plain_named",
    "false_alarm_rate",
    "mean_hmi_named",
    "mean_hmi_not_named",
    "hmi_r",
    "hmi_p",
    "message",
]
BY_GROUP_COLUMNS = ["model", "group", "manipulation", "hmi", "n_scored", "n_named", "share_named"]
CHART_COLUMNS = [
    "model",
    "chart_id",
    "group",
    "version",
    "manipulation",
    "hmi",
    "named",
    "phrases",
    "negated",
    "status",
]
_NONE = {"", "none", "no manipulation", "non-manipulated"}


def _blank(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and np.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _rows(rows, charts) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows)
    needed = ["model", "chart_id", "justification"]
    if charts is None:
        needed += ["version", "manipulation"]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"rows are missing column(s) {missing}")
    frame = frame.copy()
    if charts is not None:
        charts = pd.DataFrame(charts)
        missing = [c for c in ("chart_id", "group", "version", "manipulation") if c not in charts]
        if missing:
            raise ValueError(f"charts is missing column(s) {missing}")
        versions = pd.to_numeric(charts["version"], errors="coerce")
        # The _1 chart of a pair carries "none"; the pair's planted manipulation
        # is on its _2 chart, and naming it on the _1 chart is a false alarm.
        planted = (
            charts[versions == 2].groupby("group", sort=False)["manipulation"].first().to_dict()
        )
        meta = charts.set_index("chart_id")
        unknown = set(frame["chart_id"]) - set(meta.index)
        if unknown:
            raise ValueError(f"rows refer to unknown chart(s) {natural_sorted(unknown)[:5]}")
        frame["group"] = frame["chart_id"].map(meta["group"])
        frame["version"] = frame["chart_id"].map(meta["version"])
        frame["manipulation"] = frame["group"].map(planted)
    if "group" not in frame:
        frame["group"] = None
    if "hmi" not in frame:
        frame["hmi"] = np.nan
    frame["version"] = pd.to_numeric(frame["version"], errors="coerce")
    frame["hmi"] = pd.to_numeric(frame["hmi"], errors="coerce").astype(float)
    frame["model"] = frame["model"].astype(str)
    return frame


def _score(row: dict, vocabularies: Mapping) -> dict:
    out = {c: row.get(c) for c in CHART_COLUMNS if c in row}
    out.update(named=None, phrases=[], negated=[], status=None)
    manipulation = row.get("manipulation")
    if _blank(manipulation) or str(manipulation).strip().lower() in _NONE:
        out["status"] = "no planted manipulation to look for"
    elif row.get("version") not in (1, 2):
        out["status"] = "version must be 1 or 2"
    elif _blank(row.get("justification")):
        out["status"] = "no justification"
    elif manipulation not in vocabularies or not list(vocabularies[manipulation]):
        out["status"] = f"no vocabulary for manipulation {manipulation!r}"
    else:
        match = mentions_manipulation(row["justification"], vocabularies[manipulation])
        out.update(named=match.matched, phrases=match.phrases, negated=match.negated)
    return out


def _hmi_association(part: pd.DataFrame) -> dict:
    from scipy import stats

    named = part.loc[part["named"] == True, "hmi"].dropna()  # noqa: E712
    not_named = part.loc[part["named"] == False, "hmi"].dropna()  # noqa: E712
    out = {
        "mean_hmi_named": named.mean() if len(named) else np.nan,
        "mean_hmi_not_named": not_named.mean() if len(not_named) else np.nan,
        "hmi_r": np.nan,
        "hmi_p": np.nan,
        "message": None,
    }
    both = part[part["hmi"].notna()]
    flags = both["named"].astype(float).to_numpy()
    if len(both) < 3:
        out["message"] = "fewer than 3 scored manipulated charts with an HMI: no correlation"
    elif np.ptp(flags) == 0 or np.ptp(both["hmi"].to_numpy()) == 0:
        out["message"] = "named on all or none of the charts (or constant HMI): no correlation"
    else:
        result = stats.pearsonr(both["hmi"].to_numpy(float), flags)
        out.update(hmi_r=float(result.statistic), hmi_p=float(result.pvalue))
    return out


def justification_report(
    rows,
    vocabularies: Mapping[str, Iterable[str]],
    *,
    charts: pd.DataFrame | None = None,
    confidence: float = 0.95,
) -> JustificationReport:
    """Per model, how often the justification names the planted manipulation.

    ``rows`` (a frame or dicts) have model, chart_id, justification and either
    version and manipulation - the manipulation planted in the chart's pair,
    also on the _1 chart - or pass ``charts`` (chart_id, group, version,
    manipulation) to look them up; group and hmi are optional.
    ``vocabularies`` maps each manipulation to its phrases.

        share_named      = n_named / n_scored over manipulated (_2) charts
        false_alarm_rate = n_plain_named / n_plain_scored over their _1 partners

    with a Wilson interval on share_named. A chart is scored when it has a
    justification and a vocabulary. Against HMI: the mean HMI of manipulated
    charts whose manipulation was named vs not named, and the point-biserial
    correlation (Pearson's r of HMI with the 0/1 named flag, scipy.stats.pearsonr);
    a model that sees what misleads people names it more often on high-HMI
    charts (CHARTOM section 5).
    """
    import pandas as pd

    vocabularies = {k: tuple(v) for k, v in dict(vocabularies).items()}
    frame = _rows(rows, charts)
    scored = pd.DataFrame(
        [_score(r, vocabularies) for r in frame.to_dict("records")], columns=CHART_COLUMNS
    )
    per_model, by_group = [], []
    for model in dict.fromkeys(scored["model"]):
        mine = scored[scored["model"] == model]
        manipulated = mine[mine["version"] == 2]
        ok = manipulated[manipulated["named"].notna()]
        plain = mine[(mine["version"] == 1) & mine["named"].notna()]
        n, k = len(ok), int(ok["named"].astype(bool).sum())
        low, high = wilson_interval(k, n, confidence)
        k_plain = int(plain["named"].astype(bool).sum())
        per_model.append(
            {
                "model": model,
                "n_manipulated": len(manipulated),
                "n_scored": n,
                "n_named": k,
                "share_named": k / n if n else np.nan,
                "ci_low": low,
                "ci_high": high,
                "n_plain_scored": len(plain),
                "n_plain_named": k_plain,
                "false_alarm_rate": k_plain / len(plain) if len(plain) else np.nan,
                **_hmi_association(ok),
            }
        )
        groups = natural_sorted({g for g in ok["group"] if not _blank(g)})
        for group in groups:
            part = ok[ok["group"] == group]
            named = int(part["named"].astype(bool).sum())
            by_group.append(
                {
                    "model": model,
                    "group": group,
                    "manipulation": part["manipulation"].iloc[0],
                    "hmi": part["hmi"].mean() if part["hmi"].notna().any() else np.nan,
                    "n_scored": len(part),
                    "n_named": named,
                    "share_named": named / len(part),
                }
            )
    return JustificationReport(
        per_model=pd.DataFrame(per_model, columns=PER_MODEL_COLUMNS),
        by_group=pd.DataFrame(by_group, columns=BY_GROUP_COLUMNS),
        charts=scored,
    )
