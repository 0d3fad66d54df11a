"""Scoring models against a chart benchmark (CHARTOM section 5 and appendices A-C).

Models answer the same FACT questions as participants and the MIND question
("what fraction of typical university students will be misled?"). These pure
functions turn their answers into the paper's analyses: FACT error rates with
the chi-square test (Figures 3 and 6), MIND error against HMI (Table 2,
Figures 5 and 7) and the model-population log odds ratios ranked against the
humans' (Figure 4, Kendall's tau). No Django here; see ``frames`` for the
input frames.
"""

from analysis.model_eval.fact import (
    HUMANS,
    FactErrorRates,
    fact_error_rates,
    human_error_rates,
    human_fact_rates,
)
from analysis.model_eval.mind import MIN_PREDICTIONS, mind_group_arrows, mind_metrics
from analysis.model_eval.plots import (
    fact_error_svg,
    fact_group_svg,
    log_odds_comparison_svg,
    mind_arrows_svg,
    mind_scatter_svg,
)
from analysis.model_eval.probability import ProbabilityParse, extract_probability
from analysis.model_eval.ranking import (
    EMPIRICAL_ESTIMATOR,
    RankingComparison,
    compare_rankings,
    empirical_log_odds,
    model_population_log_odds,
)
from analysis.model_eval.simulate import BEHAVIOURS, simulate_model_answers

__all__ = [
    "BEHAVIOURS",
    "EMPIRICAL_ESTIMATOR",
    "HUMANS",
    "MIN_PREDICTIONS",
    "FactErrorRates",
    "ProbabilityParse",
    "RankingComparison",
    "compare_rankings",
    "empirical_log_odds",
    "extract_probability",
    "fact_error_rates",
    "fact_error_svg",
    "fact_group_svg",
    "human_error_rates",
    "human_fact_rates",
    "log_odds_comparison_svg",
    "mind_arrows_svg",
    "mind_group_arrows",
    "mind_metrics",
    "mind_scatter_svg",
    "model_population_log_odds",
    "simulate_model_answers",
]
