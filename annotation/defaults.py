"""A new project's defaults: the CHOCOLATE guidelines, error typology and split map.

Texts follow seed 001 (Huang et al., CHOCOLATE): section 2.1 for the category
definitions and examples (Table 1), appendix B.2 for the guidelines. Category
keys are the label names of the released ``chocolate.json``, so its labels import
as they are. No Django import: the import parser and analysis scripts use it too.
"""

from __future__ import annotations

from typing import NamedTuple

# Splits follow the captioning model, as in the paper.
from analysis.splits import DEFAULT_SPLIT_MAP

DEFAULT_GUIDELINES = """\
In this task, you will evaluate the factual errors for a generated caption with regard to the \
reference chart. To correctly solve this task, follow these steps:

- Carefully read the generated caption and the reference chart.
- Compare the generated caption against the reference chart and decide whether the caption \
contains any factual error defined below.
- You should click/press the button if an error occurs. A blue button indicates the caption \
contains the corresponding factual error, while a white button means the caption does not \
contain such an error.

Warning: Annotations will be checked for quality against control labels, low-quality work will \
be rejected.

Error definition

- Value error: A quantitative data value is incorrect.
- Label error: A non-quantitative data value is incorrect.
- Trend error: The direction of a trend is wrong.
- Magnitude error: The magnitude or variance of a trend is wrong.
- Out-of-context error: The caption introduces concepts that are not present in the chart.
- Grammatical error: The grammar of the caption is wrong.
- Nonsense error: The caption is incomplete or does not make sense at all.
"""

# The standard guidelines in the platform's other languages (annotation/languages.py shows them
# to a project set to one of them while it keeps the standard text). Category names follow
# DEFAULT_CATEGORY_TRANSLATIONS below, so the list reads like the buttons on the work page.
DEFAULT_GUIDELINES_TRANSLATIONS: dict[str, str] = {
    "de": """\
In dieser Aufgabe bewerten Sie die sachlichen Fehler einer automatisch erzeugten \
Bildunterschrift im Vergleich zum zugehörigen Diagramm. Gehen Sie dafür so vor:

- Lesen Sie die erzeugte Bildunterschrift und das Diagramm sorgfältig.
- Vergleichen Sie die Bildunterschrift mit dem Diagramm und entscheiden Sie, ob sie einen der \
unten beschriebenen sachlichen Fehler enthält.
- Klicken oder drücken Sie die Schaltfläche, wenn ein Fehler vorliegt. Eine blaue Schaltfläche \
bedeutet, dass die Bildunterschrift den jeweiligen Fehler enthält; eine weiße Schaltfläche \
bedeutet, dass sie diesen Fehler nicht enthält.

Achtung: Die Annotationen werden anhand von Kontrollbeispielen auf ihre Qualität geprüft; \
Arbeit von geringer Qualität wird abgelehnt.

Fehlerdefinitionen

- Wert: Ein quantitativer Datenwert ist falsch.
- Beschriftung: Ein nicht quantitativer Datenwert ist falsch.
- Trend: Die Richtung eines Trends ist falsch.
- Ausmaß: Das Ausmaß oder die Stärke eines Trends ist falsch.
- Außerhalb des Kontexts: Die Bildunterschrift führt Begriffe ein, die im Diagramm nicht \
vorkommen.
- Grammatik: Die Grammatik der Bildunterschrift ist falsch.
- Unsinn: Die Bildunterschrift ist unvollständig oder ergibt überhaupt keinen Sinn.
""",
    "es": """\
En esta tarea evaluará los errores factuales de una descripción generada automáticamente con \
respecto al gráfico de referencia. Para hacerlo correctamente, siga estos pasos:

- Lea con atención la descripción generada y el gráfico de referencia.
- Compare la descripción con el gráfico y decida si contiene alguno de los errores factuales \
definidos a continuación.
- Haga clic en el botón (o púlselo) si hay un error. Un botón azul indica que la descripción \
contiene ese error factual; un botón blanco indica que no lo contiene.

Atención: la calidad de las anotaciones se comprobará con etiquetas de control; el trabajo de \
baja calidad será rechazado.

Definición de los errores

- Valor: un valor cuantitativo de los datos es incorrecto.
- Etiqueta: un valor no cuantitativo de los datos es incorrecto.
- Tendencia: la dirección de una tendencia es incorrecta.
- Magnitud: la magnitud o la variación de una tendencia es incorrecta.
- Fuera de contexto: la descripción introduce conceptos que no están en el gráfico.
- Gramatical: la gramática de la descripción es incorrecta.
- Sin sentido: la descripción está incompleta o no tiene ningún sentido.
""",
}


def standard_text_in(field: str, text: str, language: str) -> str | None:
    """The platform's own translation of ``text`` when it is still a standard text (the
    default guidelines, unedited), else None."""
    if field != "guidelines" or _lines(text) != _lines(DEFAULT_GUIDELINES):
        return None
    return DEFAULT_GUIDELINES_TRANSLATIONS.get(language)


def _lines(text: str) -> str:
    # A textarea sends the text back with CRLF line ends: the same guidelines all the same.
    return "\n".join(line.rstrip() for line in (text or "").strip().splitlines())


class CategoryDefault(NamedTuple):
    key: str
    name: str
    shortcut: str
    is_factual: bool
    definition: str
    example: str


DEFAULT_CATEGORIES: tuple[CategoryDefault, ...] = (
    CategoryDefault(
        "value_error",
        "Value",
        "v",
        True,
        "A quantitative data value from the chart is incorrectly stated in the caption. This "
        "includes numbers representing values on axes, percentages, or other numerical data "
        "points.",
        "Asians have a turnout rate of 20.4% in 1990.",
    ),
    CategoryDefault(
        "label_error",
        "Label",
        "l",
        True,
        "A non-numerical label, category, or text element from the chart is incorrectly "
        "referenced in the caption. This includes labels on axes, legend items, categorical "
        "variables, etc.",
        "Asians have the highest turnout rates across the years.",
    ),
    CategoryDefault(
        "trend_error",
        "Trend",
        "t",
        True,
        "The overall direction of change over time or comparison between groups is incorrectly "
        "described in the caption, such as stating an increasing trend when it is actually "
        "decreasing.",
        "From 1986-2014, the turnout rates are increasing overall.",
    ),
    CategoryDefault(
        "magnitude_error",
        "Magnitude",
        "m",
        True,
        "The degree or amount of difference described for a trend is unfaithful to the chart, "
        "such as stating an increase “sharp” when the chart shows it is actually “smooth”.",
        "From 1986-2014, the turnout rates are sharply decreasing overall.",
    ),
    CategoryDefault(
        "ooc_error",
        "Out-of-context",
        "o",
        True,
        "Concepts, variables, or any information introduced in the caption that does not exist "
        "at all in the content of the chart. The caption contains factual statements not "
        "grounded in the actual chart contents.",
        "Vietnamese have the highest turnout rates among Asians.",
    ),
    CategoryDefault(
        "grammatical_error",
        "Grammatical",
        "g",
        False,
        "There are grammatical mistakes in the structure or syntax of the caption.",
        "The turnout rates are decrease overall.",
    ),
    CategoryDefault(
        "nonsense_error",
        "Nonsense",
        "n",
        True,
        "The caption contains incomplete sentences, disconnected phrases that do not connect "
        "logically, or sequences of words that simply do not make coherent sense.",
        "From 1986-2014, #?sep #sep #sep #sep.",
    ),
)


# The standard categories' names and definitions in the platform's other languages, so a project
# set to one of them (annotation/languages.py) reads in it from the start. Examples stay as written:
# they quote the captions, which are English.
DEFAULT_CATEGORY_TRANSLATIONS: dict[str, dict[str, dict[str, str]]] = {
    "value_error": {
        "de": {
            "name": "Wert",
            "definition": "Ein quantitativer Datenwert aus dem Diagramm ist in der Bildunterschrift "
            "falsch angegeben. Dazu gehören Zahlen, die Werte auf Achsen darstellen, Prozentsätze "
            "oder andere numerische Datenpunkte.",
        },
        "es": {
            "name": "Valor",
            "definition": "Un valor cuantitativo del gráfico aparece mal indicado en la descripción. "
            "Esto incluye números que representan valores de los ejes, porcentajes u otros datos "
            "numéricos.",
        },
    },
    "label_error": {
        "de": {
            "name": "Beschriftung",
            "definition": "Eine nicht numerische Beschriftung, Kategorie oder ein Textelement aus dem "
            "Diagramm wird in der Bildunterschrift falsch wiedergegeben. Dazu gehören "
            "Achsenbeschriftungen, Legendeneinträge, kategoriale Variablen usw.",
        },
        "es": {
            "name": "Etiqueta",
            "definition": "Una etiqueta no numérica, una categoría o un elemento de texto del gráfico "
            "se menciona de forma incorrecta en la descripción. Esto incluye las etiquetas de los "
            "ejes, los elementos de la leyenda, las variables categóricas, etc.",
        },
    },
    "trend_error": {
        "de": {
            "name": "Trend",
            "definition": "Die allgemeine Richtung einer Veränderung über die Zeit oder ein Vergleich "
            "zwischen Gruppen wird in der Bildunterschrift falsch beschrieben, etwa wenn von einem "
            "steigenden Trend die Rede ist, obwohl er tatsächlich fällt.",
        },
        "es": {
            "name": "Tendencia",
            "definition": "La dirección general del cambio a lo largo del tiempo o la comparación entre "
            "grupos se describe de forma incorrecta en la descripción, por ejemplo, al afirmar una "
            "tendencia creciente cuando en realidad es decreciente.",
        },
    },
    "magnitude_error": {
        "de": {
            "name": "Ausmaß",
            "definition": "Das für einen Trend beschriebene Ausmaß oder die Stärke eines Unterschieds "
            "entspricht nicht dem Diagramm, etwa wenn ein Anstieg als „steil“ bezeichnet wird, "
            "obwohl das Diagramm ihn als „sanft“ zeigt.",
        },
        "es": {
            "name": "Magnitud",
            "definition": "El grado o la cantidad de diferencia descritos para una tendencia no son "
            "fieles al gráfico, por ejemplo, al calificar de «brusco» un aumento que el gráfico "
            "muestra como «suave».",
        },
    },
    "ooc_error": {
        "de": {
            "name": "Außerhalb des Kontexts",
            "definition": "Begriffe, Variablen oder sonstige Informationen, die in der "
            "Bildunterschrift eingeführt werden, im Inhalt des Diagramms aber gar nicht vorkommen. "
            "Die Bildunterschrift enthält Tatsachenbehauptungen, die sich nicht auf den "
            "tatsächlichen Inhalt des Diagramms stützen.",
        },
        "es": {
            "name": "Fuera de contexto",
            "definition": "Conceptos, variables o cualquier información que la descripción introduce "
            "y que no existe en absoluto en el contenido del gráfico. La descripción contiene "
            "afirmaciones que no se basan en el contenido real del gráfico.",
        },
    },
    "grammatical_error": {
        "de": {
            "name": "Grammatik",
            "definition": "Die Bildunterschrift enthält Fehler in Grammatik, Satzbau oder Syntax.",
        },
        "es": {
            "name": "Gramatical",
            "definition": "Hay errores gramaticales en la estructura o la sintaxis de la descripción.",
        },
    },
    "nonsense_error": {
        "de": {
            "name": "Unsinn",
            "definition": "Die Bildunterschrift enthält unvollständige Sätze, unzusammenhängende "
            "Satzteile ohne logische Verbindung oder Wortfolgen, die schlicht keinen Sinn ergeben.",
        },
        "es": {
            "name": "Sin sentido",
            "definition": "La descripción contiene frases incompletas, fragmentos inconexos sin "
            "relación lógica o secuencias de palabras que simplemente no tienen sentido.",
        },
    },
}

# Keys the page keeps for itself: navigation, submit, zoom and help.
RESERVED_SHORTCUTS = frozenset({"j", "k", "?", "+", "-", "=", "0", " "})


def default_split_map() -> dict[str, str]:
    return dict(DEFAULT_SPLIT_MAP)


def split_for(model: str, split_map: dict[str, str]) -> str:
    """The split of a captioning model; model names compare without case."""
    lowered = {key.lower(): value for key, value in split_map.items()}
    return lowered.get(model.strip().lower(), "")
