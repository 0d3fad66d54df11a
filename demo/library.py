"""The demo chart set: the fixture specs rendered by the chart generator."""

from django.conf import settings

from core.models import User
from studies.models import ChartSet
from studies.services.library import chartset_generate_new_or_update, specs_parse
from studies.services.library.generating import GenerateResult

DEMO_SET_SLUG = "demo-benchmark"
DEMO_SPECS = settings.BASE_DIR / "fixtures" / "chart_specs.json"


def load_library_demo(owner: User) -> ChartSet:
    """Build (or bring up to date) the demo benchmark; a second run renders nothing again."""
    return library_demo_generate(owner).chart_set


def library_demo_generate(owner: User) -> GenerateResult:
    """The generator's result, whose summary says which pairs were (re)rendered."""
    specs = specs_parse(DEMO_SPECS.read_text(encoding="utf-8"))
    return chartset_generate_new_or_update(
        owner=owner,
        specs=specs,
        slug=DEMO_SET_SLUG,
        title="Demo benchmark",
        description=(
            "Generated chart pairs, one group per manipulation type of the CHARTOM paper, with "
            "multiple-choice, free-text and ranking FACT questions."
        ),
    )
