"""Small display helpers for annotation pages."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from core.templatetags.money import money

register = template.Library()

_BULLETS = ("- ", "• ", "* ")


@register.filter
def guidelines_html(text: str) -> str:
    """Plain-text guidelines to paragraphs and bullet lists (the text is escaped first)."""
    blocks, bullets, para = [], [], []

    def flush():
        if para:
            blocks.append(f"<p>{'<br>'.join(para)}</p>")
            para.clear()
        if bullets:
            blocks.append("<ul>" + "".join(f"<li>{b}</li>" for b in bullets) + "</ul>")
            bullets.clear()

    for line in (text or "").splitlines():
        stripped = line.strip()
        if not stripped:
            flush()
        elif stripped.startswith(_BULLETS):
            if para:
                flush()
            bullets.append(escape(stripped[2:].strip()))
        else:
            if bullets:
                flush()
            para.append(escape(stripped))
    flush()
    return mark_safe("\n".join(blocks))


@register.filter
def duration(seconds) -> str:
    """3725 -> "1 h 2 min"; 95 -> "1 min 35 s"."""
    seconds = int(round(float(seconds or 0)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s" if minutes < 10 else f"{minutes} min"
    return f"{secs} s"


# Annotator pages load their helpers from here; money is written the one way core defines.
register.filter("money", money)
