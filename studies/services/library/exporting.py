"""Writing a chart set back out in the CHARTOM layout (a .zip that imports again)."""

from __future__ import annotations

import io
import zipfile

from django.conf import settings
from django.core.exceptions import ValidationError

from studies.benchmark_format import ChartRecord, write_benchmark
from studies.benchmark_format.records import CHARTOM_NAMING, follows_chartom_naming
from studies.images import ImageRejected, validate_image
from studies.models import Chart, ChartSet


def chart_record(chart: Chart, *, otherwise: str) -> ChartRecord:
    """``chart`` as a CHARTOM record, its image checked as an upload would be.

    The one home of that rule for every export in the CHARTOM layout (a chart set here,
    a study's HMI dataset in studies/services/exports/hmi.py). ``chart`` comes with its
    question's group and its manipulation (``select_related``); ``otherwise`` ends the
    message for a chart whose id does not follow the layout's naming."""
    if not follows_chartom_naming(chart.chart_id):
        raise ValidationError(
            f"{chart.chart_id} does not follow the CHARTOM naming {CHARTOM_NAMING}, so {otherwise}"
        )
    try:
        with chart.image.open("rb") as handle:
            image = validate_image(
                handle.read(),
                max_bytes=settings.CHARTROOM_MAX_IMAGE_BYTES,
                max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
            )
    except (OSError, ImageRejected):
        raise ValidationError(f"The image of {chart.chart_id} is missing or damaged.") from None
    question = chart.question
    return ChartRecord(
        chart_id=chart.chart_id,
        group=question.group.code,
        question_id=question.code,
        version=chart.version,
        chart_type=question.group.chart_type,
        manipulation=chart.manipulation.slug,
        manipulation_label=chart.manipulation.label if chart.version == 2 else "none",
        answer_type=question.answer_type,
        question_text=question.text,
        question=question.stem,
        options=list(question.options),
        answer_key=question.answer_key,
        answer_value=question.key_value,
        image=image,
    )


def chartset_export_zip(*, chart_set: ChartSet) -> bytes:
    charts = (
        Chart.objects.filter(question__chart_set=chart_set)
        .select_related("question__group", "manipulation")
        .order_by("chart_id")
    )
    otherwise = "the set cannot be written in that layout."
    records = [chart_record(chart, otherwise=otherwise) for chart in charts]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        write_benchmark(records, zf)
    return buffer.getvalue()
