from rest_framework.permissions import BasePermission


class IsResearcher(BasePermission):
    message = "This needs a researcher account."

    def has_permission(self, request, view):
        user = request.user
        return bool(user and user.is_authenticated and user.is_researcher)


class IsAnnotator(BasePermission):
    message = "This needs an annotator account."

    def has_permission(self, request, view):
        user = request.user
        return bool(user and user.is_authenticated and user.is_annotator)
