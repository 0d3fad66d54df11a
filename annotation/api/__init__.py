"""The REST API. Views of an area in <area>.py, their serializers in <area>_serializers.py,
routes in urls.py (see the README's Layout)."""
