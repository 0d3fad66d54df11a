"""The demo study in German: its texts, questions and attention checks (``make demo``).

Take it in German with ``?lang=de`` on the study link (or a browser set to German).
Numbers are typed the German way there: "1,5" is one and a half.
"""

from __future__ import annotations

from studies import answer_types
from studies.models import Question, Study

TEXTS = {
    "title": "Wie lesen Menschen Diagramme? (Demo)",
    "description": "Eine kurze Studie mit ehrlichen und manipulierten Fassungen derselben Diagramme.",
    "consent_text": """Sie sind eingeladen, an einer Studie darüber teilzunehmen, wie Menschen Diagramme lesen.

Sie sehen nacheinander Diagramme und beantworten zu jedem eine kurze Frage. Es sind keine Risiken bekannt. Ihre Antworten werden unter einem zufälligen Code gespeichert; Ihre Prolific-ID wird nur für die Bezahlung aufbewahrt und nie veröffentlicht.

Die Teilnahme ist freiwillig.""",
    "instructions_text": """Die meisten Seiten zeigen ein Diagramm und eine Frage dazu. Antworten Sie so genau wie möglich: Lesen Sie die Achsen und Beschriftungen sorgfältig.

Manche Fragen verlangen eine Zahl: Tippen Sie sie in das Feld (zum Beispiel 1,2 oder 45). Bei manchen wählen Sie eine Antwort aus, bei anderen bringen Sie Einträge in eine Reihenfolge (geben Sie jedem Eintrag einen Platz, den ersten zuerst; ändern Sie die Reihenfolge dann durch Ziehen oder mit den Pfeilen).

Sie können eine Antwort nicht nachträglich ändern. Einige Seiten prüfen, ob Sie aufmerksam lesen.""",
    "debrief_text": """Vielen Dank! Einige der Diagramme, die Sie gesehen haben, sollten in die Irre führen: eine abgeschnittene oder umgekehrte Achse, ein 3D-Effekt, eine logarithmische Skala. Jedes gab es in einer ehrlichen und einer manipulierten Fassung derselben Daten; Ihre Antworten zeigen uns, wie oft jede Manipulation Leserinnen und Leser täuscht.""",
}

TREND = ["Sie ist gestiegen.", "Sie ist gesunken.", "Sie ist etwa gleich geblieben."]

# Question code -> (text, options). Options keep the original order; names stay as they are.
QUESTIONS = {
    "G1_Q1": (
        "Die folgende Grafik zeigt die Körperschaftsteuer der Northwind Ltd. Als Stapel von "
        "1-Dollar-Scheinen war ihre Körperschaftsteuer 2014 ein Yard hoch. Wie hoch (in Yards) "
        "ist ihre Körperschaftsteuer 2018 als Stapel von 1-Dollar-Scheinen?",
        [],
    ),
    "G2_Q1": (
        "Die folgende Grafik zeigt die Körperschaftsteuer der Halvorsen Corp. Ihre "
        "Körperschaftsteuer wog 2018 eine Tonne in Gold. Wie viele Tonnen in Gold wiegt ihre "
        "Körperschaftsteuer 2022?",
        [],
    ),
    "G3_Q1": (
        "Die folgende Grafik zeigt CD-Verkäufe. Wie entwickelten sich die CD-Verkäufe "
        "von 2017 bis 2020?",
        TREND,
    ),
    "G3_Q2": (
        "Die folgende Grafik zeigt die durchschnittliche Pendelzeit in Riverton. Wie "
        "entwickelte sich die durchschnittliche Pendelzeit von 2016 bis 2022?",
        TREND,
    ),
    "G4_Q1": (
        "Die folgende Grafik zeigt Militärausgaben. In welchem Zeitraum wuchsen die "
        "Militärausgaben pro Jahr schneller?",
        ["Von 2000 bis 2008", "Von 2008 bis 2012", "In beiden Zeiträumen gleich schnell"],
    ),
    "G5_Q1": (
        "Die folgende Grafik zeigt die Zahl der Masernfälle im Landkreis Brookfield. In Woche 10 "
        "begann eine Impfaktion an Schulen. Wann stieg die Zahl der Fälle stärker?",
        ["Vor der Impfaktion (Wochen 1 bis 10)", "Nach der Impfaktion (Wochen 10 bis 20)"],
    ),
    "G6_Q1": (
        "Die folgende Grafik zeigt den Zusammenhang zwischen dem Gewicht eines Autos und seinen "
        "Meilen pro Gallone. Was geschieht mit den Meilen pro Gallone, wenn das Gewicht steigt?",
        ["Die Meilen pro Gallone steigen.", "Die Meilen pro Gallone sinken."],
    ),
    "G7_Q1": (
        "Die folgende Grafik zeigt die Zahl der adoptierten Hunde. Die 2018 adoptierten Hunde "
        "fressen in ihrem Leben 1 Million Säcke Hundefutter. Wie viele Millionen Säcke fressen "
        "die 2019 adoptierten Hunde in ihrem Leben?",
        [],
    ),
    "G7_Q2": (
        "Die folgende Grafik zeigt die Zahl der Bibliotheksbesuche. 2021 liehen die Besucher "
        "20.000 Bücher aus. Wie viele Bücher liehen sie 2022 aus, wenn sie im gleichen "
        "Verhältnis ausliehen?",
        [],
    ),
    "G8_Q1": (
        "Die folgende Grafik zeigt die Zahl der adoptierten Katzen. Die 2017 adoptierten Katzen "
        "brauchen 1 Tonne Katzenstreu. Wie viele Tonnen Katzenstreu brauchen die 2018 "
        "adoptierten Katzen?",
        [],
    ),
    "G9_Q1": (
        "Zwei erfundene Länder, Tomainia und Bacteria, ringen um militärische Überlegenheit. Die "
        "Abbildung zeigt, wie viele Panzer die Länder über die Jahre hatten. Welches Land hatte "
        "2021 mehr Panzer?",
        ["Tomainia", "Bacteria"],
    ),
    "G10_Q1": (
        "Die Grafik zeigt, wie viele Scheffel Äpfel dieses Jahr je Sorte geerntet wurden. Wenn "
        "3 Lastwagen nötig sind, um alle Pink-Lady-Äpfel zu transportieren, wie viele Lastwagen "
        "braucht man für alle Honeycrisp-Äpfel?",
        [],
    ),
    "G12_Q1": (
        "Die folgende Grafik zeigt den Gewinn von Firma X in Millionen. In welchem Jahr war "
        "Firma X profitabler?",
        ["2018", "2022", "2018 und 2022 waren gleich."],
    ),
    "G13_Q1": (
        "Die Abbildung unten zeigt die Marktanteile verschiedener Unternehmen. Ordnen Sie die "
        "Unternehmen nach Marktanteil, vom größten zum kleinsten.",
        ["Altex", "Brightway", "Corvana", "Dunmore", "Elsinor"],
    ),
    "G14_Q1": (
        "Die Abbildung unten zeigt die Marktanteile verschiedener Schnellrestaurants. Ordnen Sie "
        "die Restaurants nach Marktanteil, vom größten zum kleinsten.",
        ["Burger Barn", "Chicken Shack", "Noodle Nook", "Pizza Planet", "Taco Town"],
    ),
    "G15_Q1": (
        "Welcher Bundesstaat hat den höheren Anteil im Ausland geborener Menschen, Wisconsin (WI) "
        "oder Florida (FL)?",
        ["Wisconsin (WI)", "Florida (FL)"],
    ),
}

# Attention checks by their English prompt.
CHECKS = {
    "This item checks that you are reading carefully. Please select 'Strongly agree'.": (
        "Diese Frage prüft, ob Sie aufmerksam lesen. Bitte wählen Sie „Stimme voll zu“.",
        ["Stimme gar nicht zu", "Stimme nicht zu", "Neutral", "Stimme zu", "Stimme voll zu"],
    ),
    "How many apples does the bar show?": ("Wie viele Äpfel zeigt der Balken?", []),
}


def german_translation(study: Study) -> dict:
    """The demo study's German texts, keyed by this database's question and check ids."""
    questions = {}
    for question in Question.objects.filter(study_pairs__study=study):
        text, options = QUESTIONS.get(question.code, ("", []))
        if text:
            entry = {"text": text}
            if options and len(options) == len(answer_types.question_key(question)[0]):
                entry["options"] = options
            questions[str(question.pk)] = entry
    checks = {}
    for check in study.attention_checks.all():
        prompt, options = CHECKS.get(check.prompt, ("", []))
        if prompt:
            checks[str(check.pk)] = {"prompt": prompt, **({"options": options} if options else {})}
    return {**TEXTS, "questions": questions, "checks": checks}
