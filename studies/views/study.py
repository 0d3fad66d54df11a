from django.contrib import messages
from django.shortcuts import redirect, render

from core.decorators import researcher_required
from studies.forms import StudyCreateForm
from studies.services import study_create as create_study


@researcher_required
def study_create(request):
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        study = create_study(owner=request.user, **form.cleaned_data)
        messages.success(request, f"Study “{study.title}” created.")
        return redirect("researcher-home")
    return render(request, "studies/study_form.html", {"form": form})
