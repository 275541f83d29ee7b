"""Text on a PDF page (reportlab)."""
from reportlab.pdfbase.pdfmetrics import stringWidth


def fitted_text(text: str, font: str, size: float, room: float, *, kept: str = "") -> str:
    """``text`` then ``kept``, cut to ``room`` points wide in ``font`` at ``size``: ``text`` loses its end to an
    ellipsis, ``kept`` (a mark such as "(conditional)") stays whole."""
    if stringWidth(text + kept, font, size) <= room:
        return text + kept
    while text and stringWidth(text + "…" + kept, font, size) > room:
        text = text[:-1]
    return text + "…" + kept


