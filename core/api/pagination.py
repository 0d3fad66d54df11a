from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

from core.api.input import NOT_INPUT, RefusedKeys


def _positive(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


class Pagination(PageNumberPagination):
    """DRF's page numbers, with a malformed ?page= or ?page_size= a 400 that says so.

    DRF answers 404 for ?page=abc, and quietly falls back to the default size for
    ?page_size=abc or to the largest for a larger one; a page past the end stays a 404,
    naming the last page.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def paginate_queryset(self, queryset, request, view=None):
        self.refuse_unknown(request, view)
        errors = {}
        page = request.query_params.get(self.page_query_param)
        if page is not None and page not in self.last_page_strings and _positive(page) is None:
            errors[self.page_query_param] = [
                f"Give a page number of 1 or more (or 'last'), not {page[:40]!r}."
            ]
        size = request.query_params.get(self.page_size_query_param)
        if size is not None and not 1 <= (_positive(size) or 0) <= self.max_page_size:
            errors[self.page_size_query_param] = [
                f"Give a page size from 1 to {self.max_page_size}, not {size[:40]!r}."
            ]
        if errors:
            raise ValidationError(errors)
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            last = max(
                1, self.django_paginator_class(queryset, self.get_page_size(request)).num_pages
            )
            raise NotFound(f"There is no page {page}: the last page is {last}.") from None

    def refuse_unknown(self, request, view) -> None:
        """A query parameter the list does not read is a 400 that names it.

        Without it ``/studies/?state=live`` (a typo, or a filter the list does not have)
        answered every study, and the client believed it had filtered. A list view that
        reads parameters of its own names them in ``query_parameters``.
        """
        takes = [self.page_query_param, self.page_size_query_param]
        takes += list(getattr(view, "query_parameters", ()))
        unknown = [key for key in request.query_params if key not in takes and key not in NOT_INPUT]
        if unknown:
            summary = (
                f"Unknown query parameters: {', '.join(unknown)}. This list takes: "
                f"{', '.join(takes)}."
            )
            raise RefusedKeys({key: ["Unknown query parameter."] for key in unknown}, summary)
        # Each parameter a list reads holds one value: ``?status=open&status=complete``
        # answered the last one only, and the client believed it had both.
        repeated = {key: len(request.query_params.getlist(key)) for key in request.query_params}
        repeated = {key: n for key, n in repeated.items() if n > 1 and key not in NOT_INPUT}
        if repeated:
            errors = {key: [f"Give it once, not {n} times."] for key, n in repeated.items()}
            summary = f"Each query parameter takes one value: {', '.join(repeated)} repeated."
            raise RefusedKeys(errors, summary)
