from django import forms

from core.slugs import NO_WORDS_IN_TITLE, title_has_words
from studies.models import Study


class StudyCreateForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["title", "description"]

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not title_has_words(title):
            raise forms.ValidationError(NO_WORDS_IN_TITLE)
        return title
