from django.contrib import messages
from django.contrib.auth import login
from django.shortcuts import redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from annotation.forms import AnnotatorSignUpForm, ProjectCreateForm
from annotation.models import Project
from annotation.selectors.standing import annotator_card
from annotation.selectors.work import is_member
from annotation.services import (
    InviteError,
    annotator_sign_up,
    project_create,
    project_for_invite,
    project_join,
)
from annotation.views.language import shown
from core.decorators import annotator_required, researcher_required
from core.languages import reader_language, speaking
from core.security import sign_up_throttled


@annotator_required
def home(request):
    projects = [shown(p) for p in Project.objects.joined_by(request.user).order_by("title")]
    # The card texts are translated as they are made, so they are made in the page's language;
    # each project's title and description are its own, in its language (shown()).
    with speaking(request, reader_language(request, {p.language for p in projects})):
        cards = [annotator_card(project=p, annotator=request.user) for p in projects]
        response = render(request, "annotation/home.html", {"cards": cards, "projects": projects})
    patch_vary_headers(response, ["Accept-Language"])
    return response


def join(request, code: str):
    """The invite link: sign up (or, signed in as an annotator, just join)."""
    try:
        project = project_for_invite(code=code)
    except InviteError as exc:
        return render(
            request, "annotation/invite_invalid.html", {"reason": exc.message}, status=404
        )
    with speaking(request, project.language):
        return _join(request, shown(project))


def _join(request, project):
    if request.user.is_authenticated:
        if is_member(project=project, annotator=request.user):
            # Joined already (or added by the researcher): nothing to do but go on.
            messages.info(request, _("You are already in “%(title)s”.") % {"title": project.title})
            return redirect("annotation:home")
        if request.method == "POST":
            try:
                project_join(project=project, annotator=request.user)
            except InviteError as exc:
                messages.error(request, exc.message)
                return render(
                    request, "annotation/join.html", {"project": project, "form": None}, status=403
                )
            messages.success(request, _("You joined “%(title)s”.") % {"title": project.title})
            return redirect("annotation:home")
        return render(request, "annotation/join.html", {"project": project, "form": None})

    form = AnnotatorSignUpForm(request.POST or None)
    if request.method == "POST" and (throttled := sign_up_throttled(request)):
        form.errors.clear()
        form.add_error(
            None,
            _(
                "Too many accounts were created from your network in a short time. "
                "Try again in %(wait)s, or ask the researcher for help."
            )
            % {"wait": throttled.wait},
        )
        response = render(request, "annotation/join.html", {"project": project, "form": form})
        response.status_code = 429
        response["Retry-After"] = str(throttled.retry_after)
        return response
    if request.method == "POST" and form.is_valid():
        user = annotator_sign_up(
            project=project,
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data.get("email", ""),
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! You joined “%(title)s”.") % {"title": project.title})
        return redirect("annotation:home")
    return render(request, "annotation/join.html", {"project": project, "form": form})


@researcher_required
def project_new(request):
    form = ProjectCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        project = project_create(owner=request.user, **form.cleaned_data)
        messages.success(
            request,
            f"Project “{project.title}” created with the standard guidelines and seven error "
            "categories. Import captions next.",
        )
        return redirect("annotation:project-detail", slug=project.slug)
    return render(request, "annotation/project_form.html", {"form": form})
