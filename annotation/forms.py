from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.text import slugify

from annotation.models import Project
from core.models import User


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
        if not slugify(title):
            raise forms.ValidationError("Use some letters or digits in the title.")
        return title
