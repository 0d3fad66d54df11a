"""Caption text, ids and model names that start like a formula are escaped in every CSV."""

import pytest

from core.tests.test_csv_safety import assert_no_formula_cells


@pytest.mark.django_db
def test_caption_ids_and_text_starting_with_equals_are_escaped_in_annotation_exports(
    project, make_items, members
):
    from annotation.models import Item
    from annotation.services.exports import project_export
    from annotation.services.exports.report import TABLES, table_csv
    from annotation.services.reports import report_compute
    from annotation.tests.factories import submit

    first, second = members(2)
    (item,) = make_items(project, 1, sentences=('=HYPERLINK("http://evil.example","x")', "Ok."))
    Item.objects.filter(pk=item.pk).update(external_id="=cmd|' /C calc'!A0", model="@model")
    item.refresh_from_db()
    submit(project, item, first, [["value_error"], []])
    submit(project, item, second, [["value_error"], ["trend_error"]])

    labels = "".join(project_export(project=project, fmt="labels-csv").chunks)
    rows = assert_no_formula_cells(labels)
    assert {row[0] for row in rows[1:]} == {"'=cmd|' /C calc'!A0"}
    data = report_compute(project=project).data
    tables = {name: table_csv(data, name) for name in TABLES}
    for text in tables.values():
        assert_no_formula_cells(text)
    assert "'@model" in tables["error-types"]
