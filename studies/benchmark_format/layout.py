"""Where the released CHARTOM layout keeps each part of a benchmark (see the package docstring)."""

KEYS_FILE = "FACT_answer_keys.csv"
MANIPULATIONS_FILE = "chart_manipulations.csv"
QUESTIONS_DIR = "FACT_questions"
IMAGES_DIR = "chart_images"
MANIFEST_NAMES = ("manifest.csv", "manifest.json")
