"""The study's Languages page: the researcher's texts in each further language.

One tab per further language; each text shows the primary language's version beside
the field. The translations are saved through ``study_translation_set``, as over the API.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.decorators import researcher_required
from studies import answer_types
from studies.models import Question, Study
from studies.selectors import study as sel
from studies.selectors.languages import STUDY_TEXTS, language_name, translation_gaps
from studies.services import study as setup

TEXT_ROWS = {"title": 1, "description": 3}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class TranslationForm(forms.Form):
    """One field per researcher text; ``rows`` pairs each field with the original."""

    def __init__(self, *args, study: Study, language: str, **kwargs):
        super().__init__(*args, **kwargs)
        given = (study.translations or {}).get(language, {})
        self.rows: list[tuple[str, str, str]] = []  # (field name, label, original)
        for name, label in STUDY_TEXTS.items():
            self._add(name, label.capitalize(), getattr(study, name), given.get(name, ""))
        self.questions = list(
            Question.objects.filter(study_pairs__study=study).order_by("study_pairs__position")
        )
        for question in self.questions:
            entry = given.get("questions", {}).get(str(question.pk), {})
            options, _key = answer_types.question_key(question)
            prompt = question.kind.prompt_text(question.text, question.stem)
            self._add(f"q{question.pk}_text", f"Pair {question.code}: question", prompt,
                      entry.get("text", ""))  # fmt: skip
            if options:
                self._add(f"q{question.pk}_options", f"Pair {question.code}: options, one a line",
                          "\n".join(options), "\n".join(entry.get("options", [])))  # fmt: skip
        self.checks = list(study.attention_checks.order_by("id"))
        for number, check in enumerate(self.checks, start=1):
            entry = given.get("checks", {}).get(str(check.pk), {})
            self._add(f"c{check.pk}_prompt", f"Attention check {number}", check.prompt,
                      entry.get("prompt", ""))  # fmt: skip
            if check.options:
                self._add(f"c{check.pk}_options", f"Attention check {number}: options, one a line",
                          "\n".join(check.options), "\n".join(entry.get("options", [])))  # fmt: skip

    def _add(self, name: str, label: str, original: str, value: str) -> None:
        rows = TEXT_ROWS.get(name, max(2, min(8, original.count("\n") + 2)))
        widget = forms.TextInput() if rows == 1 else forms.Textarea(attrs={"rows": rows})
        self.fields[name] = forms.CharField(
            label=label, required=False, initial=value, widget=widget, strip=True
        )
        self.rows.append((name, label, original))

    def pairs(self) -> list[tuple]:
        """(bound field, the primary language's text) in the page's order."""
        return [(self[name], original) for name, _label, original in self.rows]

    def texts(self) -> dict:
        """The form's values in the shape ``study_translation_set`` takes."""
        data = self.cleaned_data
        texts: dict = {name: data[name] for name in STUDY_TEXTS}
        texts["questions"] = {
            str(q.pk): {
                "text": data[f"q{q.pk}_text"],
                "options": _lines(data.get(f"q{q.pk}_options", "")),
            }
            for q in self.questions
        }
        texts["checks"] = {
            str(c.pk): {
                "prompt": data[f"c{c.pk}_prompt"],
                "options": _lines(data.get(f"c{c.pk}_options", "")),
            }
            for c in self.checks
        }
        return texts


def _errors_to_form(form: TranslationForm, exc: ValidationError) -> None:
    for field, errors in getattr(exc, "message_dict", {None: exc.messages}).items():
        # "questions.12.options" is the field q12_options on this page.
        parts = field.split(".") if field else []
        name = f"{parts[0][0]}{parts[1]}_{parts[2]}" if len(parts) == 3 else field
        for error in errors:
            form.add_error(name if name in form.fields else None, error)


@researcher_required
@require_http_methods(["GET", "POST"])
def study_languages(request, slug: str):
    study = sel.study_get(user=request.user, slug=slug)
    further = study.languages[1:]
    language = request.GET.get("lang", "")
    if language not in further:
        language = further[0] if further else ""
    form = None
    if language:
        form = TranslationForm(request.POST or None, study=study, language=language)
        if request.method == "POST" and form.is_valid():
            try:
                setup.study_translation_set(
                    study=study, actor=request.user, language=language, texts=form.texts()
                )
            except ValidationError as exc:
                _errors_to_form(form, exc)
            else:
                messages.success(request, f"{language_name(language)} texts saved.")
                return redirect(
                    reverse("studies:languages", args=[study.slug]) + f"?lang={language}"
                )
    context = {
        "study": study,
        "language": language,
        "language_label": language_name(language),
        "primary_label": language_name(study.language),
        "tabs": [(code, language_name(code)) for code in further],
        "form": form,
        "gaps": [g for g in translation_gaps(study) if g.language == language],
    }
    return render(request, "studies/study/languages.html", context)
