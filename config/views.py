"""Pages that show the studies and annotation apps together.

The researcher's home lists their studies and their annotation projects side by
side. Neither app may import the other and core imports neither, so this page
lives where the project composes the apps: config/, beside the URLconf that
already mounts both. One view does not warrant an app of its own.
"""

from django.shortcuts import render

from annotation.models import Project
from core.decorators import researcher_required
from studies.models import Study


@researcher_required
def researcher_home(request):
    studies = Study.objects.visible_to(request.user).select_related("owner")
    projects = Project.objects.visible_to(request.user).select_related("owner")
    return render(request, "researcher/home.html", {"studies": studies, "projects": projects})
