"""Forms of the chart library pages. They only collect input; the services hold the rules."""

from __future__ import annotations

from django import forms

from studies import answer_types
from studies.models import AnswerType

NEW_SET = "__new__"


class ChartSetCreateForm(forms.Form):
    title = forms.CharField(max_length=200, label="Title")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))


class ImportForm(forms.Form):
    file = forms.FileField(
        required=False,
        label="Benchmark (.zip)",
        help_text="A zip of the benchmark folder: chart_images/, FACT_questions/, "
        "FACT_answer_keys.csv and chart_manipulations.csv, or a manifest.csv / manifest.json "
        "with its images.",
        widget=forms.ClearableFileInput(attrs={"accept": ".zip,application/zip"}),
    )
    manifest = forms.FileField(
        required=False,
        label="…or a manifest (CSV or JSON)",
        help_text="One row per chart: chart_id, chart_type, manipulation, question, answer_type, "
        "answer, image. Choose its images below; the image column names each file.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.json,text/csv,application/json"}),
    )
    target = forms.ChoiceField(label="Import into", required=True)
    slug = forms.SlugField(
        required=False,
        max_length=80,
        label="Slug of the new set",
        help_text="Optional; taken from the title or file name. Importing again into the same "
        "set updates it in place.",
    )
    title = forms.CharField(required=False, max_length=200, label="Title of the new set")
    prune = forms.BooleanField(
        required=False,
        label="Remove pairs that are not in this upload",
        help_text="Without this, pairs already in the set but missing from the upload are kept.",
    )

    def __init__(self, *args, chart_sets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target"].choices = [(NEW_SET, "A new chart set")] + [
            (s.slug, f"{s.title} ({s.slug})") for s in chart_sets
        ]


class GeneratorForm(forms.Form):
    spec = forms.CharField(
        label="Chart spec (JSON)",
        widget=forms.Textarea(attrs={"rows": 22, "spellcheck": "false", "class": "code-input"}),
        help_text="One spec object: id, group, chart_type, manipulation, title, x_label, y_label, "
        "data, question, answer_type, answer (and options, unit, params).",
    )
    chart_set = forms.ChoiceField(label="Save into", required=False)
    new_title = forms.CharField(required=False, max_length=200, label="Title of the new set")

    def __init__(self, *args, chart_sets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["chart_set"].choices = [(s.slug, s.title) for s in chart_sets] + [
            (NEW_SET, "A new chart set…")
        ]


class QuestionForm(forms.Form):
    text = forms.CharField(
        label="FACT question",
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="A multiple-choice question lists its options in the text: 1. … 2. … 3. …",
    )
    answer_type = forms.ChoiceField(choices=AnswerType.choices, label="Answer type")
    answer_key = forms.CharField(
        max_length=500,
        label="Answer key",
        help_text=" ".join(t.key_help for t in answer_types.all_types()),
    )
    tolerance = forms.FloatField(
        min_value=0,
        max_value=0.99,
        label="Tolerance",
        help_text=" ".join(t.tolerance_help for t in answer_types.all_types() if t.uses_tolerance),
    )


class ImageForm(forms.Form):
    image = forms.FileField(
        label="New image",
        widget=forms.ClearableFileInput(
            attrs={"accept": "image/png,image/jpeg,image/gif,image/webp"}
        ),
    )


class ManipulationForm(forms.Form):
    label = forms.CharField(max_length=100, label="Name")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    vocabulary = forms.CharField(
        required=False,
        label="Words that name it",
        help_text="Comma-separated phrases a justification might use, e.g. truncated, baseline.",
    )
