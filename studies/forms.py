from django import forms
from django.utils.text import slugify

from studies.models import Study


class StudyCreateForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["title", "description"]

    def clean_title(self):
        title = self.cleaned_data["title"].strip()
        if not slugify(title):
            raise forms.ValidationError("Use some letters or digits in the title.")
        return title
