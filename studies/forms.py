from django import forms

from core.slugs import NO_WORDS_IN_TITLE, title_has_words
from studies.models import Study

# Said beside the field on both forms: notes meant for the team do not belong here.
PARTICIPANTS_READ_IT = (
    "Participants read it on the study's first page, before they consent; keep notes for "
    "your team elsewhere."
)


class StudyCreateForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["title", "description"]
        help_texts = {
            "title": "Participants see it at the top of every page.",
            "description": PARTICIPANTS_READ_IT,
        }

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not title_has_words(title):
            raise forms.ValidationError(NO_WORDS_IN_TITLE)
        return title
