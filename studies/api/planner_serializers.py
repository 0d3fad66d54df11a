"""Shapes of the planner endpoint. The numbers come from studies.selectors.planner."""

from __future__ import annotations

from rest_framework import serializers

from core.api.input import InputSerializer
from studies.selectors.planner import DEFAULTS, MODES, PRIORS, limits


class PlanInputSerializer(InputSerializer):
    mode = serializers.ChoiceField(choices=list(MODES), default=DEFAULTS.mode)
    half_width = serializers.FloatField(default=DEFAULTS.half_width, **limits("half_width"))
    prior = serializers.ChoiceField(choices=list(PRIORS), default=DEFAULTS.prior)
    power = serializers.FloatField(default=DEFAULTS.power, **limits("power"))
    effect = serializers.FloatField(required=False, allow_null=True, **limits("effect"))
    exclusion_rate = serializers.FloatField(
        required=False, allow_null=True, **limits("exclusion_rate")
    )
    pay = serializers.FloatField(default=DEFAULTS.pay, **limits("pay"))


class PlanSerializer(serializers.Serializer):
    mode = serializers.CharField()
    included = serializers.IntegerField(help_text="Included participants needed.")
    recruit = serializers.IntegerField(help_text="Participants to recruit, exclusions allowed for.")
    cost = serializers.FloatField(help_text="recruit x pay.")
    exclusion_rate = serializers.FloatField()
    exclusion_source = serializers.CharField()
    exclusion_rate_uncertain = serializers.BooleanField(
        help_text="The rate is a rough guess: from fewer than 5 finished pilot sessions, or "
        "CHARTOM's because the pilot excluded every session (exclusion_note says which)."
    )
    exclusion_pilot_sessions = serializers.IntegerField(
        help_text="Finished pilot sessions the rate was estimated from (0: entered, or no pilot)."
    )
    exclusion_note = serializers.CharField(
        allow_blank=True, help_text="What to know about the rate; empty when nothing."
    )
    basis = serializers.CharField(help_text="Which chart or pair sets the number.")
    table_1_groups = serializers.ListField(child=serializers.CharField())
    groups_not_in_table_1 = serializers.ListField(child=serializers.CharField())
    per_pair = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Power only: each pair's HMIs (name, p_plain, p_manipulated) and n.",
    )
    svg = serializers.CharField(help_text="The curve of precision or power against n.")
