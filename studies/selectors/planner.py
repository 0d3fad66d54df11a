"""The study planner: participants needed, to recruit and what they cost, before going live.

The statistics are :mod:`analysis.planning`; this module gathers what the study
knows (its groups, its pilot) and states the assumptions it used.
"""

from __future__ import annotations

import dataclasses

from analysis import planning
from analysis.planning_plots import planning_curve_svg
from analysis.simulate import chartom_groups
from core.errors import ServiceError
from studies import exclusion_rules
from studies.models import ParticipantSession, Question, Study
from studies.selectors.results import session_facts

Status = ParticipantSession.Status
FINISHED = (Status.COMPLETED, Status.TIMED_OUT, Status.WITHDRAWN, Status.ABANDONED)
# CHARTOM excluded 10 of the 78 people it recruited (seed 000): the default without a pilot.
CHARTOM_EXCLUSION_RATE = round(10 / 78, 3)
# Below this many finished pilot sessions their exclusion rate is a rough guess: with 4
# sessions each one moves it by 25 points, and one excluded person reads as 25% or 100%.
MIN_PILOT_SESSIONS = 5


class PlanProblem(ServiceError):
    """The inputs cannot give a plan (e.g. no effect to detect); the message says why."""

    status = 400
    code = "plan_problem"


def pilot_exclusion(study: Study) -> tuple[float | None, int]:
    """(share of finished pilot sessions the study's exclusion rules exclude, how many finished).

    The rules are applied as if the sessions were real (a pilot is always
    excluded for being a pilot), through the one rule function.
    """
    finished = [
        f for f in session_facts(study) if f.is_pilot and not f.is_preview and f.status in FINISHED
    ]
    if not finished:
        return None, 0
    excluded = sum(
        bool(exclusion_rules.rule_reasons(study, dataclasses.replace(f.rule_facts, is_test=False)))
        for f in finished
    )
    return excluded / len(finished), len(finished)


def table_1_pairs(study: Study) -> tuple[list[tuple[str, float, float]], list[str]]:
    """(the study's groups found in CHARTOM Table 1 with its two HMIs, the groups not found)."""
    codes = sorted(
        set(Question.objects.filter(study_pairs__study=study).values_list("group__code", flat=True))
    )
    table = chartom_groups().set_index("group")
    found = [
        (c, float(table.at[c, "hmi_non_manipulated"]), float(table.at[c, "hmi_manipulated"]))
        for c in codes
        if c in table.index
    ]
    return found, [c for c in codes if c not in table.index]


@dataclasses.dataclass(frozen=True)
class PlanInput:
    mode: str = "precision"  # or "power"
    half_width: float = 0.10
    prior: str = "worst"  # "worst" (HMI 0.5) or "table1"
    power: float = 0.80
    effect: float | None = None  # a named HMI difference; None: Table 1 per group
    exclusion_rate: float | None = None  # None: the pilot's, else CHARTOM's
    pay: float = 0.0


DEFAULTS = PlanInput()
MODES = ("precision", "power")
PRIORS = ("worst", "table1")
# The inputs' ranges (min, max), for the page's form and the API's serializer alike.
LIMITS = {
    "half_width": (0.01, 0.49),
    "power": (0.5, 0.99),
    "effect": (0.01, 0.99),
    "exclusion_rate": (0, 0.95),
    # Per participant, as the page's form takes it (8 digits, 2 after the point); a bound
    # also keeps recruit x pay a finite number.
    "pay": (0, 999_999.99),
}


def limits(name: str) -> dict:
    """``min_value`` and ``max_value`` of an input, as form and serializer fields take them."""
    low, high = LIMITS[name]
    return {"min_value": low, "max_value": high}


def _precision(inp: PlanInput, found, missing) -> dict:
    priors = [0.5]
    if inp.prior == "table1":
        priors = [p for _c, p1, p2 in found for p in (p1, p2)] + ([0.5] if missing else [])
    plan = planning.plan_precision(inp.half_width, priors)
    svg = planning_curve_svg(
        kind="precision", needed=plan["included"], goal=inp.half_width, p=plan["limiting_hmi"]
    )
    basis = (
        "the worst case, an HMI of 0.5"
        if plan["limiting_hmi"] == 0.5
        else f"the chart nearest 0.5 in the prior, HMI {plan['limiting_hmi']:.2f}"
    )
    return {**plan, "basis": basis, "svg": svg}


def _power(inp: PlanInput, found) -> dict:
    if inp.effect is not None:
        pairs = [("named effect", *planning.worst_case_pair(inp.effect))]
    elif found:
        pairs = found
    else:
        raise PlanProblem(
            "None of this study's groups is coded like the paper's Table 1 (G1..G15): "
            "name the effect (the difference of HMIs) you want to detect."
        )
    try:
        plan = planning.plan_power(inp.power, pairs)
    except ValueError as exc:
        raise PlanProblem(str(exc)) from None
    limiting = plan["limiting"]
    pair = (limiting["p_plain"], limiting["p_manipulated"])
    svg = planning_curve_svg(kind="power", needed=plan["included"], goal=inp.power, pair=pair)
    basis = f"the hardest pair, {limiting['name']}: HMI {pair[0]:.2f} vs {pair[1]:.2f}"
    return {**plan, "basis": basis, "svg": svg}


@dataclasses.dataclass(frozen=True)
class ExclusionRate:
    """The exclusion rate a plan uses, where it came from, and how far to trust it."""

    rate: float
    source: str
    pilot_sessions: int = 0  # finished pilot sessions it was estimated from
    uncertain: bool = False
    note: str = ""


def plan_exclusion_rate(study: Study, entered: float | None) -> ExclusionRate:
    """The entered rate, else the pilot's (a rough guess under MIN_PILOT_SESSIONS), else CHARTOM's."""
    if entered is not None:
        return ExclusionRate(entered, "as entered")
    rate, pilots = pilot_exclusion(study)
    if rate is None:
        return ExclusionRate(CHARTOM_EXCLUSION_RATE, "CHARTOM's (10 of 78 excluded); no pilot yet")
    sessions = f"{pilots} finished pilot session{'s' if pilots != 1 else ''}"
    if rate >= 1:
        # Nobody would ever be included at this rate, so it plans nothing; it usually means
        # a rule that is too strict or a pilot run by hand, which the researcher should see.
        return ExclusionRate(
            CHARTOM_EXCLUSION_RATE,
            "CHARTOM's (10 of 78 excluded), because the pilot excluded everyone",
            pilot_sessions=pilots,
            uncertain=True,
            note=(
                f"The study's exclusion rules excluded all {sessions}, so the pilot cannot "
                "give an exclusion rate and the plan uses CHARTOM's instead. Check why on "
                "the overview (each session's exclusion preview), or enter the rate you expect."
            ),
        )
    if pilots < MIN_PILOT_SESSIONS:
        return ExclusionRate(
            rate,
            f"from only {sessions}: a rough guess",
            pilot_sessions=pilots,
            uncertain=True,
            note=(
                f"The exclusion rate comes from only {sessions}, so it is a rough guess: "
                f"each session moves it by {100 / pilots:.0f} points. Run at least "
                f"{MIN_PILOT_SESSIONS} pilot sessions, or enter the rate you expect."
            ),
        )
    return ExclusionRate(rate, f"from {sessions}", pilot_sessions=pilots)


def study_plan(study: Study, inp: PlanInput) -> dict:
    """Participants needed (included and to recruit), cost, the curve and the assumptions."""
    found, missing = table_1_pairs(study)
    exclusion = plan_exclusion_rate(study, inp.exclusion_rate)
    plan = _precision(inp, found, missing) if inp.mode == "precision" else _power(inp, found)
    try:
        cost = planning.plan_cost(plan["included"], exclusion.rate, inp.pay)
    except ValueError as exc:
        raise PlanProblem(str(exc)) from None
    return {
        **plan,
        **cost,
        "mode": inp.mode,
        "exclusion_rate": exclusion.rate,
        "exclusion_source": exclusion.source,
        "exclusion_rate_uncertain": exclusion.uncertain,
        "exclusion_pilot_sessions": exclusion.pilot_sessions,
        "exclusion_note": exclusion.note,
        "table_1_groups": [c for c, _p1, _p2 in found],
        "groups_not_in_table_1": missing,
    }
