"""Two of a researcher's studies side by side: do they rank the manipulations alike?

Each study's last computed results hold a mixed-model log odds ratio per
manipulation group. Groups are matched by their manipulation (so studies whose
charts came from different sets still line up), falling back to the group code
when a group names no manipulation. Kendall's tau-b compares the two rankings
over the groups both studies have.
"""

from __future__ import annotations

import math

from analysis.log_odds import MIXED_ESTIMATOR, kendall_tau
from studies.models import Study, StudyResults

MIN_GROUPS = 2


def _match_key(row: dict) -> str:
    return (row.get("manipulation") or row.get("group") or "").strip().lower()


def _mixed_log_odds(data: dict) -> dict[str, dict]:
    """{match key: row} of the fitted mixed-model log odds ratios in a results snapshot."""
    rows = {}
    for row in data.get("log_odds") or []:
        value = row.get("log_odds_ratio")
        if row.get("estimator") != MIXED_ESTIMATOR or value is None or math.isnan(value):
            continue
        if key := _match_key(row):
            rows[key] = row
    return rows


def _listed_groups(data: dict) -> set[str]:
    """Match keys of every group a results snapshot lists, whether or not its model could be
    fitted: a group left out of the fit (an unbounded cell, a failed fit) is still there."""
    rows = [*(data.get("groups") or []), *(data.get("log_odds") or [])]
    return {key for row in rows if (key := _match_key(row))}


def _labels(rows: dict[str, dict], keys: set[str]) -> list[str]:
    return sorted(rows[k].get("manipulation") or k for k in keys)


def comparable_studies(*, study: Study) -> list[Study]:
    """The owner's other studies whose results have been computed."""
    computed = StudyResults.objects.filter(computed_at__isnull=False).values("study_id")
    return list(
        Study.objects.filter(owner_id=study.owner_id, pk__in=computed)
        .exclude(pk=study.pk)
        .order_by("title", "pk")
    )


def study_comparison(study: Study, other: Study) -> dict:
    """Kendall's tau between two studies' rankings of groups by mixed-model log OR."""
    our_data, their_data = _results(study), _results(other)
    ours, theirs = _mixed_log_odds(our_data), _mixed_log_odds(their_data)
    # A group fitted in one study only is either absent from the other or there but not
    # estimated; researchers read the two differently (different charts vs too few errors).
    ours_only, theirs_only = set(ours) - set(theirs), set(theirs) - set(ours)
    in_theirs, in_ours = _listed_groups(their_data), _listed_groups(our_data)
    common = sorted(set(ours) & set(theirs), key=lambda k: -ours[k]["log_odds_ratio"])
    rows = [
        {
            "manipulation": ours[k].get("manipulation") or ours[k].get("group"),
            "group": ours[k].get("group"),
            "other_group": theirs[k].get("group"),
            "log_odds_ratio": ours[k]["log_odds_ratio"],
            "other_log_odds_ratio": theirs[k]["log_odds_ratio"],
        }
        for k in common
    ]
    base = {
        "study": study.slug,
        "other": other.slug,
        "other_title": other.title,
        "estimator": MIXED_ESTIMATOR,
        "groups": rows,
        "only_here": _labels(ours, ours_only - in_theirs),
        "only_there": _labels(theirs, theirs_only - in_ours),
        "not_estimated_there": _labels(ours, ours_only & in_theirs),
        "not_estimated_here": _labels(theirs, theirs_only & in_ours),
        "tau": None,
        "p_value": None,
        "message": None,
    }
    if len(common) < MIN_GROUPS:
        return base | {
            "message": f"Kendall's tau needs at least {MIN_GROUPS} manipulation groups with a "
            f"fitted log odds ratio in both studies; they share {len(common)}."
        }
    result = kendall_tau(
        {k: ours[k]["log_odds_ratio"] for k in common},
        {k: theirs[k]["log_odds_ratio"] for k in common},
    )
    if math.isnan(result.tau):
        return base | {"message": "Kendall's tau is undefined: one of the rankings is constant."}
    return base | {"tau": float(result.tau), "p_value": float(result.p_value)}


def _results(study: Study) -> dict:
    snapshot = StudyResults.objects.filter(study=study, computed_at__isnull=False).first()
    return snapshot.data if snapshot else {}
