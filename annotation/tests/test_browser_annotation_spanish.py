"""An annotator labels captions of a Spanish project in headless Chromium, keyboard only."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, Category, LabelSet
from annotation.services import category_update, project_update
from annotation.tests.test_browser_annotation import pressed, sign_in
from demo.annotation import load_annotation_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def spanish_demo(researcher, make_user):
    """The demo project in Spanish, with a Spanish name and definition for one category."""
    annotators = [make_user("annotator", username=f"anotador{n}") for n in (1, 2, 3)]
    project = load_annotation_demo(researcher, annotators)
    project_update(project=project, language="es")
    category_update(
        category=Category.objects.get(project=project, key="value_error"),
        translations={
            "es": {"name": "Valor", "definition": "Un número no coincide con el gráfico."}
        },
    )
    return project, annotators[0]


def test_an_annotator_labels_a_spanish_project_with_the_keyboard(
    page, live_server, spanish_demo, password
):
    project, annotator = spanish_demo
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page).to_have_title(re.compile("^Etiquetar una descripción"))
    expect(page.locator("#submit")).to_contain_text("Enviar")
    expect(page.locator("#guidelines-open")).to_contain_text("Directrices")
    lease = Assignment.objects.get(annotator=annotator, state=Assignment.State.LEASED)

    # Keyboard only: the first sentence has focus; v toggles the Value category.
    assert page.evaluate("document.activeElement.classList.contains('sentence')")
    page.keyboard.press("v")
    page.keyboard.press("j")
    page.keyboard.press("t")
    page.keyboard.press("k")
    page.keyboard.press("Tab")  # into the first sentence's buttons: the definition shows
    expect(page.locator("#tip")).to_be_visible()
    expect(page.locator("#tip")).to_contain_text("Error: Valor")
    expect(page.locator("#tip")).to_contain_text("Un número no coincide con el gráfico.")
    expect(page.locator("#save-status")).to_contain_text("Borrador guardado")
    expect(page.locator("#lease")).to_contain_text("para este elemento")
    assert pressed(page, 0) == ["value_error"]
    assert pressed(page, 1) == ["trend_error"]

    page.keyboard.press("Shift+?")
    expect(page.locator("#guidelines-dialog")).to_be_visible()
    expect(page.locator("#guidelines-dialog")).to_contain_text("Categorías de error")
    expect(page.locator("#guidelines-dialog")).to_contain_text("Teclas")
    page.keyboard.press("Escape")
    expect(page.locator("#guidelines-dialog")).to_be_hidden()

    page.locator(".sentence").nth(0).focus()
    expect(page.locator("#submit")).to_be_enabled()  # the item has settled
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.getElementById('work-state') && "
        f"JSON.parse(document.getElementById('work-state').textContent).assignment !== {lease.pk}"
    )
    label_set = LabelSet.objects.get(assignment=lease)
    assert label_set.labels[:2] == [["value_error"], ["trend_error"]]
    # The next item, still in Spanish, nothing pressed.
    expect(page.locator("#progress")).to_contain_text("Elemento")
    expect(page.locator("#progress")).to_contain_text("más disponibles")
    assert page.locator('.toggle[aria-pressed="true"]').count() == 0
    expect(page.locator(".toggle[data-key=value_error]").first).to_contain_text("Valor")


# The arrow keys move between a sentence's toggles the way they point, also right to left.
FOCUSED = (
    "Array.from(document.activeElement.parentElement.children).indexOf(document.activeElement)"
)


@pytest.mark.parametrize(
    ("direction", "forward", "back"),
    [("ltr", "ArrowRight", "ArrowLeft"), ("rtl", "ArrowLeft", "ArrowRight")],
)
def test_arrow_keys_follow_the_page_direction(
    page, live_server, spanish_demo, password, direction, forward, back
):
    project, annotator = spanish_demo
    sign_in(page, live_server, annotator, password)
    page.goto(f"{live_server.url}/annotation/p/{project.slug}/work/")
    # No right-to-left catalogue ships; the page's direction is what the script reads.
    page.evaluate(f"document.documentElement.dir = '{direction}'")
    first = page.locator(".sentence").nth(0).locator(".toggle").nth(0)
    first.focus()
    expect(first).to_be_focused()
    page.keyboard.press(forward)
    assert page.evaluate(FOCUSED) == 1
    page.keyboard.press(back)
    assert page.evaluate(FOCUSED) == 0
