from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm

from annotation.models import Category, Project
from core.form_bounds import model_bounds_for
from core.models import User
from core.slugs import NO_WORDS_IN_TITLE, title_has_words


class AnnotatorSignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; only the researcher sees it.")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ["username", "email"]


class ProjectCreateForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = ["title", "description"]

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not title_has_words(title):
            raise forms.ValidationError(NO_WORDS_IN_TITLE)
        return title


def kept_translations(form) -> dict:
    """The posted translations; a form posted without the field (an older page, a script)
    keeps the current ones rather than erasing them."""
    if form.add_prefix("translations") not in form.data:
        return form.instance.translations
    return form.cleaned_data["translations"] or {}


def split_map_text(split_map: dict) -> str:
    return "\n".join(f"{model} = {split}" for model, split in (split_map or {}).items())


OVERLAP_FIELDS = (
    "overlap_policy",
    "overlap_k_min",
    "overlap_k_max",
    "overlap_rule",
    "overlap_threshold",
)


class ProjectSettingsForm(forms.ModelForm):
    split_map_text = forms.CharField(
        label="Split map",
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text="One “model = split” per line, e.g. “gpt4v = LVLM”. Changing it re-labels every item's split.",
    )

    class Meta:
        model = Project
        fields = [
            "title",
            "description",
            "guidelines",
            "annotators_per_item",
            "lease_minutes",
            "pay_per_item",
            "target_hourly_rate",
            "accepting_annotators",
            *OVERLAP_FIELDS,
            "license",
            "citation",
            "aggregation_method",
            "language",
            "translations",
        ]
        # Django capitalises a field's verbose name ("K_min"); these read as the README writes them.
        labels = {
            "overlap_k_min": "Adaptive: first label sets (k_min)",
            "overlap_k_max": "Adaptive: most label sets (k_max)",
        }
        widgets = {
            "guidelines": forms.Textarea(attrs={"rows": 16}),
            "citation": forms.Textarea(attrs={"rows": 5, "spellcheck": "false"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The platform's languages are settings, not model choices (annotation/languages.py).
        self.fields["language"] = forms.ChoiceField(
            choices=settings.LANGUAGES,
            required=False,
            initial=self.instance.language,
            help_text=Project._meta.get_field("language").help_text,
        )
        if not self.is_bound:
            self.initial["split_map_text"] = split_map_text(self.instance.split_map)
        # A form posted without the license (an older page, a script) keeps the current one.
        self.fields["license"].required = False
        # Nor does one without the aggregation method change it.
        self.fields["aggregation_method"].required = False
        # Nor does one without the overlap settings change them.
        for field in OVERLAP_FIELDS:
            self.fields[field].required = False
        model_bounds_for(self, Project, self.Meta.fields)

    def clean_language(self):
        return self.cleaned_data["language"] or self.instance.language

    def clean_translations(self):
        return kept_translations(self)

    def clean_license(self):
        return self.cleaned_data["license"] or self.instance.license

    def clean_aggregation_method(self):
        return self.cleaned_data["aggregation_method"] or self.instance.aggregation_method

    def clean_split_map_text(self):
        mapping = {}
        for number, line in enumerate(self.cleaned_data["split_map_text"].splitlines(), start=1):
            if not line.strip():
                continue
            model, sep, split = line.partition("=")
            if not sep or not model.strip() or not split.strip():
                raise forms.ValidationError(f"Line {number}: write it as “model = split”.")
            mapping[model.strip().lower()] = split.strip()
        return mapping

    def changes(self) -> dict:
        """The settings as project_update takes them."""
        data = {field: self.cleaned_data[field] for field in self.Meta.fields}
        for field in OVERLAP_FIELDS:
            if data[field] in (None, ""):
                del data[field]
        data["split_map"] = self.cleaned_data["split_map_text"]
        return data


class CategoryForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = ["name", "shortcut", "is_factual", "definition", "example", "translations"]
        widgets = {
            "definition": forms.Textarea(attrs={"rows": 3}),
            "example": forms.Textarea(attrs={"rows": 2}),
            "shortcut": forms.TextInput(attrs={"size": 2, "maxlength": 1, "autocomplete": "off"}),
        }
        labels = {"is_factual": "Factual error"}

    def clean_translations(self):
        return kept_translations(self)


class NewCategoryForm(CategoryForm):
    class Meta(CategoryForm.Meta):
        fields = ["key", "name", "shortcut", "is_factual", "definition", "example", "translations"]
        help_texts = {
            "key": "Stored in labels and exports, e.g. “unit_error”. It cannot change later."
        }


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Caption file",
        help_text="CHOCOLATE JSON (.json), JSON Lines (.jsonl) or CSV with a caption column (.csv).",
    )
    images = forms.FileField(
        label="Chart images (zip, optional)",
        required=False,
        help_text="Needed when image_path gives file names; URLs are kept as given.",
    )


class ReassignForm(forms.Form):
    annotator = forms.ChoiceField(label="Give it to")
    reason = forms.CharField(required=False, max_length=500)

    def __init__(self, *args, members=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["annotator"].choices = [(m, m) for m in members]
