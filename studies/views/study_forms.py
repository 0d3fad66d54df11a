"""The forms of a study's set-up pages: settings (grouped as the page shows them), video, attention checks."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.forms.models import fields_for_model, model_to_dict

from core.form_bounds import bounds_from_model
from studies.forms import PARTICIPANTS_READ_IT
from studies.models import AnswerType, AttentionCheck, Study
from studies.selectors import study as sel
from studies.services import study as setup

FORM_FIELDS = list(setup.SETTINGS_FIELDS)
TEXTAREA = forms.Textarea(attrs={"rows": 6})


LABELS = {
    "language": "Primary language",
    "other_languages": "Further languages",
    "consent_text": "Consent text",
    "keep_answers_on_withdrawal": "Keep answers on withdrawal",
    "instructions_text": "Instructions text",
    "debrief_text": "Debrief text",
    "target_participants": "Target participants",
    "time_limit_minutes": "Time limit (minutes)",
    "expected_minutes": "Expected duration (minutes)",
    "allowed_devices": "Devices",
    "platform": "Recruitment platform",
    "completion_code": "Completion code",
    "completion_url": "Completion URL",
    "max_attention_failures": "Attention-check failures allowed",
    "min_seconds_per_trial": "Minimum seconds per chart",
    "min_trial_ms": "Minimum milliseconds on any trial",
    "exclude_incomplete": "Exclude incomplete sessions",
    "seed": "Order seed",
    "fast_answer_commit": "Faster answer saving (accepting a small loss if the database crashes)",
    "min_gap": "Minimum gap between a pair's charts",
    "license": "Dataset license",
    "citation": "Citation",
    "stopping_rule": "Stopping rule",
    "stopping_half_width": "Target half-width",
    "stopping_min_included": "Minimum included participants",
    "stopping_max_included": "Maximum included participants",
}
GROUPS = [
    (
        "What participants read",
        [
            "title",
            "description",
            "language",
            "other_languages",
            "consent_text",
            "keep_answers_on_withdrawal",
            "instructions_text",
            "debrief_text",
        ],
    ),
    (
        "Recruitment",
        [
            "platform",
            "target_participants",
            "expected_minutes",
            "time_limit_minutes",
            "allowed_devices",
            "completion_code",
            "completion_url",
        ],
    ),
    (
        "Exclusion rules",
        ["max_attention_failures", "min_seconds_per_trial", "min_trial_ms", "exclude_incomplete"],
    ),
    ("Stopping rule (see the planner)", list(setup.STOPPING_FIELDS)),
    ("Design", ["min_gap", "seed"]),
    ("Performance", ["fast_answer_commit"]),
    ("Publishing the dataset", ["license", "citation"]),
]


class FurtherLanguagesField(forms.MultipleChoiceField):
    """The languages besides ``primary``. A page ticked before its primary was changed may still
    send the new primary among them: it is dropped, as ``languages_clean`` drops it, rather
    than refused as a choice the page no longer shows."""

    def __init__(self, *, primary: str, **kwargs):
        self.primary = primary
        choices = [(code, name) for code, name in settings.LANGUAGES if code != primary]
        super().__init__(choices=choices, **kwargs)

    def to_python(self, value):
        return [code for code in super().to_python(value) if code != self.primary]


class StudySettingsForm(forms.Form):
    """The study's settings; saved through ``study_update`` so the same rules apply as in the API."""

    def __init__(self, *args, study: Study, **kwargs):
        kwargs.setdefault("initial", model_to_dict(study, fields=FORM_FIELDS))
        super().__init__(*args, **kwargs)
        self.fields.update(
            fields_for_model(
                Study,
                fields=FORM_FIELDS,
                widgets={
                    "description": forms.Textarea(attrs={"rows": 3}),
                    "consent_text": TEXTAREA,
                    "instructions_text": TEXTAREA,
                    "debrief_text": forms.Textarea(attrs={"rows": 4}),
                    "citation": forms.Textarea(attrs={"rows": 5, "spellcheck": "false"}),
                },
            )
        )
        self.fields["language"] = forms.ChoiceField(
            choices=settings.LANGUAGES,
            required=False,
            help_text="The texts on this page are in this language. The others are "
            "translated on the Languages page.",
        )
        # The primary is always offered, so it is no "further" language to tick; a posted form
        # leaves out the primary it chose, which may differ from the stored one.
        primary = (self.data.get("language") if self.is_bound else None) or study.language
        self.fields["other_languages"] = FurtherLanguagesField(
            primary=primary,
            required=False,
            widget=forms.CheckboxSelectMultiple,
            help_text="Participants see one language: the study link's lang=de, else their "
            "browser's, else the primary.",
        )
        for name, label in LABELS.items():
            self.fields[name].label = label
        self.fields["description"].help_text = PARTICIPANTS_READ_IT
        for name in FORM_FIELDS:
            bounds_from_model(self.fields.get(name), Study._meta.get_field(name))
        self.fields["completion_url"].help_text = (
            "Where finished participants are sent, e.g. "
            "https://app.prolific.com/submissions/complete?cc={code}. {code} and {pid} are filled in."
        )
        # A form posted without the license (an older page, a script) keeps the current one.
        self.fields["license"].required = False
        self._license = study.license
        if sel.study_design_locked(study):
            for name in setup.DESIGN_FIELDS:
                self.fields[name].disabled = True
                self.fields[name].help_text = "Fixed: real participants have started."
        for name in setup.STOPPING_FIELDS:  # a form posted without them keeps the stored rule
            self.fields[name].required = False

    def clean(self):
        data = super().clean()
        for name in setup.STOPPING_FIELDS:
            if name not in self.data:
                data.pop(name, None)
        # A form posted without the languages (an older page, a script) keeps them; the
        # page always sends the primary, and no further-language box ticked means none.
        if not self.data.get("language"):
            data.pop("language", None)
            data.pop("other_languages", None)
        return data

    def clean_license(self):
        return self.cleaned_data["license"] or self._license


class VideoForm(forms.Form):
    video = forms.FileField(
        help_text="MP4, WebM or Ogg. Participants see it with the instructions.",
        widget=forms.ClearableFileInput(attrs={"accept": "video/mp4,video/webm,video/ogg"}),
    )


class AttentionCheckForm(forms.Form):
    kind = forms.ChoiceField(choices=AttentionCheck.Kind.choices, widget=forms.RadioSelect)
    prompt = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="E.g. “To show you are reading carefully, select ‘Strongly agree’.”",
    )
    answer_type = forms.ChoiceField(choices=AnswerType.choices, initial=AnswerType.MULTIPLE_CHOICE)
    options = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="One per line: the choices, or the items to rank.",
    )
    answer_key = forms.CharField(
        max_length=500,
        help_text="The correct option (its text or number), the number, or the ranking (A > B > C).",
    )
    tolerance = forms.FloatField(initial=0.10, min_value=0, help_text="For numbers: 0.1 is ±10%.")
    position = forms.IntegerField(
        required=False,
        min_value=1,
        help_text="1-based trial position; leave empty for a random one.",
    )
    image = forms.FileField(
        required=False, help_text="The chart of a sanity check (PNG, JPEG, GIF, WebP)."
    )
    alt_text = forms.CharField(
        required=False,
        max_length=300,
        label="Alt text",
        help_text="Describe the chart as the study's charts are described (e.g. \u201cBar chart: "
        "Apples sold\u201d), never as a check. Empty: the study's chart type (\u201cBar chart\u201d).",
    )
