from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from config.views import researcher_home
from core.views import media

api_v1 = [
    path("", include("studies.api.urls")),
    path("", include("core.api.urls")),
    path("", include("annotation.api.urls")),
]

urlpatterns = [
    # The API first: participants' and annotators' requests are the most frequent, and
    # URLs resolve in order (no other pattern starts with api/).
    path("api/v1/", include((api_v1, "api"))),
    path("", include("core.urls")),
    path("researcher/", researcher_home, name="researcher-home"),
    path("studies/", include("studies.urls")),
    path("s/", include("studies.participant_urls")),
    path("annotation/", include("annotation.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up code as a script file, and the Redoc
    # template loads nothing from other sites: both run under the site's CSP.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", template_name="api/swagger_ui.html"
        ),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        # Redoc's bundle always shows its maker's logo from their CDN.
        csp_update({"img-src": ["https://cdn.redoc.ly"]})(
            SpectacularRedocView.as_view(url_name="api-schema", template_name="api/redoc.html")
        ),
        name="api-redoc",
    ),
    path("admin/", admin.site.urls),
]

# Chart images are public media: participants need them without an account. Files
# that are not public (exports, uploads being imported) live in PRIVATE_MEDIA_ROOT
# and are only served through views that check who is asking. A large deployment
# can put a web server or object store in front of MEDIA_URL instead.
urlpatterns += [path("media/<path:path>", media, name="media")]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
