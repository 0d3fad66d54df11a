"""Writing a chart set back out in the CHARTOM layout (a .zip that imports again)."""

from __future__ import annotations

import io
import zipfile

from django.conf import settings
from django.core.exceptions import ValidationError

from studies.benchmark_format import ChartRecord, parse_chart_id, write_benchmark
from studies.images import ImageRejected, validate_image
from studies.models import Chart, ChartSet


def chartset_export_zip(*, chart_set: ChartSet) -> bytes:
    charts = (
        Chart.objects.filter(question__chart_set=chart_set)
        .select_related("question__group", "manipulation")
        .order_by("chart_id")
    )
    records = []
    for chart in charts:
        if (
            parse_chart_id(chart.chart_id) is None
            or str(parse_chart_id(chart.chart_id)) != chart.chart_id
        ):
            raise ValidationError(
                f"{chart.chart_id} does not follow the CHARTOM naming G<group>_Q<question>_<1|2>, "
                "so the set cannot be written in that layout."
            )
        question = chart.question
        try:
            with chart.image.open("rb") as handle:
                image = validate_image(
                    handle.read(),
                    max_bytes=settings.CHARTROOM_MAX_IMAGE_BYTES,
                    max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
                )
        except (OSError, ImageRejected):
            raise ValidationError(f"The image of {chart.chart_id} is missing or damaged.") from None
        records.append(
            ChartRecord(
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
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        write_benchmark(records, zf)
    return buffer.getvalue()
