"""Human Misleadingness Index (HMI) and the CHARTOM statistics around it.

Definitions follow the CHARTOM paper (seed 000): HMI in section 4.2, the group
summary in Table 1 and the chi-square test of manipulated vs non-manipulated
error rates in section 5.1. The HMI interval is the Wilson score interval
(Wilson 1927). The per-group log odds ratios of section 5.2 and Appendix C,
and Kendall's tau between rankings, are in :mod:`analysis.log_odds`; the input
checks both share are in :mod:`analysis.tables`.

Input frames
------------
trials
    One row per included participant x chart they were assigned: participant,
    chart_id, correct (True / False / missing = unanswered).
charts
    chart_id, group, question, version (1 non-manipulated, 2 manipulated),
    chart_type, answer_type, manipulation.
trials_with_meta
    trials joined with charts (see :func:`attach_chart_meta`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.tables import (
    is_correct,
    join_unique,
    natural_sorted,
    require_columns,
    trial_errors,
    version_numbers,
)

if TYPE_CHECKING:
    import pandas as pd

_TRIAL_COLUMNS = ("participant", "chart_id", "correct")
_CHART_COLUMNS = ("chart_id", "group", "question", "version")

# --------------------------------------------------------------------------- intervals


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    With p = successes / n and z the (1 + confidence) / 2 normal quantile:

        centre    = (p + z^2 / (2n)) / (1 + z^2 / n)
        halfwidth = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

    Source: E. B. Wilson (1927), "Probable inference, the law of succession, and
    statistical inference", JASA 22:209-212. Unlike the Wald interval it stays
    inside [0, 1] and keeps its width at p = 0 or 1, which matters for HMI
    values near 0 on non-manipulated charts.

    Scalars give a ``(low, high)`` tuple of floats; arrays give a tuple of
    arrays. ``n == 0`` gives ``(nan, nan)``.
    """
    from scipy import stats

    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    s_in = np.asarray(successes, dtype=float)
    n_in = np.asarray(n, dtype=float)
    scalar = s_in.ndim == 0 and n_in.ndim == 0
    s, total = np.broadcast_arrays(s_in, n_in)
    if np.any(total < 0) or np.any(s < 0) or np.any(s > total):
        raise ValueError("need 0 <= successes <= n")
    z = stats.norm.ppf(0.5 + confidence / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / total
        denominator = 1 + z**2 / total
        centre = (p + z**2 / (2 * total)) / denominator
        half = z / denominator * np.sqrt(p * (1 - p) / total + z**2 / (4 * total**2))
    # Rounding can leave 1e-17 outside [0, 1] at the boundaries.
    low = np.where(s == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(s == total, 1.0, np.clip(centre + half, 0.0, 1.0))
    low = np.where(total == 0, np.nan, low)
    high = np.where(total == 0, np.nan, high)
    if scalar:
        return float(low), float(high)
    return low, high


# --------------------------------------------------------------------------- HMI


def attach_chart_meta(trials: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    """Join trials to the chart catalogue; every trial's chart must be in it."""
    import pandas as pd

    trials = pd.DataFrame(trials)
    charts = pd.DataFrame(charts)
    require_columns(trials, _TRIAL_COLUMNS, "trials")
    require_columns(charts, _CHART_COLUMNS, "charts")
    if charts["chart_id"].duplicated().any():
        raise ValueError("charts has duplicate chart_id values")
    unknown = set(trials["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"trials refer to unknown chart(s) {natural_sorted(unknown)[:5]}")
    meta = charts.drop(columns=[c for c in charts.columns if c in trials and c != "chart_id"])
    return trials.merge(meta, on="chart_id", how="left", validate="many_to_one")


def chart_hmi(trials: pd.DataFrame, *, chart_ids=None, confidence: float = 0.95) -> pd.DataFrame:
    """Human Misleadingness Index of each chart with a Wilson interval.

        HMI(chart) = n_wrong / n

    where n is the number of included participants assigned the chart and
    n_wrong those who did not answer its FACT question correctly; an
    unanswered question counts as not correct. Source: CHARTOM paper, section
    4.2 ("the percent of our study population who did not give a correct
    answer on the FACT question"). The interval is :func:`wilson_interval` on
    n_wrong of n.

    ``trials`` must already be restricted to included participants. Pass
    ``chart_ids`` to report charts nobody answered: they get n = 0, HMI NaN
    and a note rather than an invented value.

    Returns chart_id, n, n_wrong, n_unanswered, hmi, ci_low, ci_high, note.
    """
    import pandas as pd

    trials = pd.DataFrame(trials)
    require_columns(trials, _TRIAL_COLUMNS, "trials")
    if trials.duplicated(["participant", "chart_id"]).any():
        raise ValueError("each participant may appear at most once per chart")
    wrong = ~is_correct(trials["correct"])
    scored = pd.DataFrame(
        {
            "chart_id": trials["chart_id"].to_numpy(),
            "wrong": wrong.astype(int),
            "unanswered": trials["correct"].isna().to_numpy().astype(int),
        }
    )
    counts = scored.groupby("chart_id", sort=False).agg(
        n=("wrong", "size"), n_wrong=("wrong", "sum"), n_unanswered=("unanswered", "sum")
    )
    return hmi_from_counts(counts, chart_ids=chart_ids, confidence=confidence)


def hmi_from_counts(counts: pd.DataFrame, *, chart_ids=None, confidence: float = 0.95):
    """:func:`chart_hmi` from counts already made: HMI = n_wrong / n per chart, Wilson interval.

    ``counts`` is indexed by chart_id with columns n, n_wrong, n_unanswered
    (what a database GROUP BY over the included participants' trials gives,
    so the HMI table needs no trial-level frame). Charts of ``chart_ids``
    missing from it get n = 0; counts for a chart not in ``chart_ids`` are an
    error, as in :func:`chart_hmi`.
    """
    import pandas as pd

    require_columns(counts, ("n", "n_wrong", "n_unanswered"), "counts")
    ids = natural_sorted(counts.index) if chart_ids is None else list(dict.fromkeys(chart_ids))
    if chart_ids is not None:
        extra = set(counts.index) - set(ids)
        if extra:
            raise ValueError(f"trials refer to chart(s) not in chart_ids: {natural_sorted(extra)}")
    counts = counts.reindex(ids, fill_value=0)
    n = counts["n"].to_numpy(dtype=int)
    n_wrong = counts["n_wrong"].to_numpy(dtype=int)
    low, high = wilson_interval(n_wrong, n, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        hmi = np.where(n > 0, n_wrong / np.maximum(n, 1), np.nan)
    return pd.DataFrame(
        {
            "chart_id": ids,
            "n": n,
            "n_wrong": n_wrong,
            "n_unanswered": counts["n_unanswered"].to_numpy(dtype=int),
            "hmi": hmi,
            "ci_low": low,
            "ci_high": high,
            "note": [None if k > 0 else "no included participant answered this chart" for k in n],
        }
    )


def group_table(hmi_frame: pd.DataFrame, charts: pd.DataFrame) -> pd.DataFrame:
    """Mean HMI per manipulation group, non-manipulated vs manipulated (CHARTOM Table 1).

        HMI(group, version) = mean of HMI(chart) over the group's charts of that version

    Source: CHARTOM paper, Table 1 ("HMI score averaged across various
    manipulation groups"). Charts without an HMI (n = 0) are left out of the
    mean and of the chart count rather than counted as 0.

    Returns group, chart_type, answer_type, hmi_non_manipulated,
    n_charts_non_manipulated, manipulation, hmi_manipulated,
    n_charts_manipulated, note; groups in natural order (G2 before G10).
    """
    import pandas as pd

    hmi_frame = pd.DataFrame(hmi_frame)
    charts = pd.DataFrame(charts)
    require_columns(hmi_frame, ("chart_id", "hmi"), "hmi_frame")
    require_columns(charts, ("chart_id", "group", "version"), "charts")
    unknown = set(hmi_frame["chart_id"]) - set(charts["chart_id"])
    if unknown:
        raise ValueError(f"hmi_frame has chart(s) not in charts: {natural_sorted(unknown)[:5]}")
    merged = charts.merge(hmi_frame[["chart_id", "hmi"]], on="chart_id", how="left")
    merged["version"] = version_numbers(merged["version"])
    for column in ("chart_type", "answer_type", "manipulation"):
        if column not in merged:
            merged[column] = None

    rows = []
    for group in natural_sorted(merged["group"].unique()):
        part = merged[merged["group"] == group]
        plain = part.loc[part["version"] == 1, "hmi"].dropna()
        manipulated = part.loc[part["version"] == 2, "hmi"].dropna()
        notes = []
        if plain.empty:
            notes.append("no non-manipulated chart with an HMI")
        if manipulated.empty:
            notes.append("no manipulated chart with an HMI")
        rows.append(
            {
                "group": group,
                "chart_type": join_unique(part["chart_type"]),
                "answer_type": join_unique(part["answer_type"]),
                "hmi_non_manipulated": plain.mean() if len(plain) else np.nan,
                "n_charts_non_manipulated": len(plain),
                "manipulation": join_unique(part.loc[part["version"] == 2, "manipulation"]),
                "hmi_manipulated": manipulated.mean() if len(manipulated) else np.nan,
                "n_charts_manipulated": len(manipulated),
                "note": "; ".join(notes) or None,
            }
        )
    columns = [
        "group",
        "chart_type",
        "answer_type",
        "hmi_non_manipulated",
        "n_charts_non_manipulated",
        "manipulation",
        "hmi_manipulated",
        "n_charts_manipulated",
        "note",
    ]
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- chi-square


CHI_SQUARE_COLUMNS = [
    "scope",
    "group",
    "n_non_manipulated",
    "errors_non_manipulated",
    "n_manipulated",
    "errors_manipulated",
    "table",
    "chi2",
    "dof",
    "p_value",
    "yates_correction",
    "message",
]


def chi_square_row(part: pd.DataFrame, correction: bool) -> dict:
    """The 2x2 test of :func:`chi_square_manipulation` on one set of trials.

    ``part`` has version (1 or 2) and error (1.0 or 0.0) columns, as
    :func:`analysis.tables.trial_errors` returns. Returns every column of a
    :func:`chi_square_manipulation` row except scope and group.
    """
    plain = part.loc[part["version"] == 1, "error"]
    manipulated = part.loc[part["version"] == 2, "error"]
    return _chi_square_counts(
        len(plain), int(plain.sum()), len(manipulated), int(manipulated.sum()), correction
    )


def _chi_square_counts(n_n: int, e_n: int, n_m: int, e_m: int, correction: bool) -> dict:
    """:func:`chi_square_row` from the trials and errors on plain and on manipulated charts."""
    from scipy import stats

    table = ((e_n, n_n - e_n), (e_m, n_m - e_m))
    row = {
        "n_non_manipulated": n_n,
        "errors_non_manipulated": e_n,
        "n_manipulated": n_m,
        "errors_manipulated": e_m,
        "table": table,
        "chi2": np.nan,
        "dof": np.nan,
        "p_value": np.nan,
        "yates_correction": False,
        "message": None,
    }
    observed = np.array(table)
    empty_rows = [
        name
        for name, total in zip(("non-manipulated", "manipulated"), observed.sum(1), strict=True)
        if total == 0
    ]
    empty_cols = [
        name
        for name, total in zip(("error", "correct"), observed.sum(0), strict=True)
        if total == 0
    ]
    if empty_rows or empty_cols:
        reasons = [f"no {name} trials" for name in empty_rows]
        reasons += [
            f"every trial was {'correct' if name == 'error' else 'an error'}" for name in empty_cols
        ]
        row["message"] = "chi-square undefined: " + "; ".join(reasons)
        return row
    result = stats.chi2_contingency(observed, correction=correction)
    row.update(
        chi2=float(result.statistic),
        dof=int(result.dof),
        p_value=float(result.pvalue),
        # scipy applies Yates only when dof == 1, which a 2x2 table always has.
        yates_correction=bool(correction and result.dof == 1),
    )
    return row


def chi_square_manipulation(
    trials_with_meta: pd.DataFrame, *, correction: bool = True
) -> pd.DataFrame:
    """Chi-square test of error rate on manipulated vs non-manipulated charts.

    The 2x2 table is [[errors, correct] on non-manipulated,
    [errors, correct] on manipulated] trials; the statistic is Pearson's

        chi2 = sum over cells of (|O - E| - c)^2 / E,   E = row total x column total / N

    with c = 0.5 (Yates' continuity correction) when ``correction`` is true,
    else c = 0, on 1 degree of freedom (``scipy.stats.chi2_contingency``). The
    CHARTOM paper (section 5.1) reports a chi-square test of manipulated vs
    non-manipulated accuracy without naming a correction; Yates is the default
    here because it is scipy's default and errs on the conservative side when
    a group has few errors (HMI near 0 on plain charts). Unanswered counts as
    an error, as in HMI.

    The test treats trials as independent although each participant answers
    many charts; :func:`analysis.log_odds.log_odds_by_group` models that dependence.

    Returns one row for all trials (scope "overall", group None) and one per
    group: scope, group, n_non_manipulated, errors_non_manipulated,
    n_manipulated, errors_manipulated, table, chi2, dof, p_value,
    yates_correction, message. Where a row or column of the table is empty the
    test is undefined: the numbers are NaN and ``message`` says why.
    """
    import pandas as pd

    frame = trial_errors(trials_with_meta)
    rows = [{"scope": "overall", "group": None, **chi_square_row(frame, correction)}]
    for group in natural_sorted(frame["group"].unique()):
        part = frame[frame["group"] == group]
        rows.append({"scope": "group", "group": group, **chi_square_row(part, correction)})
    return pd.DataFrame(rows, columns=CHI_SQUARE_COLUMNS)


def chi_square_from_counts(hmi_frame: pd.DataFrame, *, correction: bool = True) -> pd.DataFrame:
    """:func:`chi_square_manipulation` from each chart's counts instead of its trials.

    ``hmi_frame`` has one row per chart with group, version, n and n_wrong (the
    chart catalogue joined to :func:`hmi_from_counts`, as the database counts
    them): the 2x2 tables are sums of those counts, so the test needs no
    trial-level frame. Charts nobody answered (n = 0) add nothing, and a group
    none of whose charts was answered has no row, as with trials.
    """
    import pandas as pd

    require_columns(hmi_frame, ("group", "version", "n", "n_wrong"), "hmi_frame")
    frame = pd.DataFrame(
        {
            "group": hmi_frame["group"].astype(str).to_numpy(),
            "version": version_numbers(hmi_frame["version"]),
            "n": hmi_frame["n"].fillna(0).to_numpy(dtype=np.int64),
            "n_wrong": hmi_frame["n_wrong"].fillna(0).to_numpy(dtype=np.int64),
        }
    )
    frame = frame[frame["n"] > 0]

    def row(part):
        plain, manipulated = part[part["version"] == 1], part[part["version"] == 2]
        return _chi_square_counts(
            int(plain["n"].sum()),
            int(plain["n_wrong"].sum()),
            int(manipulated["n"].sum()),
            int(manipulated["n_wrong"].sum()),
            correction,
        )

    rows = [{"scope": "overall", "group": None, **row(frame)}]
    for group in natural_sorted(frame["group"].unique()):
        rows.append({"scope": "group", "group": group, **row(frame[frame["group"] == group])})
    return pd.DataFrame(rows, columns=CHI_SQUARE_COLUMNS)
