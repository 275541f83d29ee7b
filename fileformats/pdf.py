"""Text on a PDF page (reportlab), in whatever script it is written: in a font that has every character, shaped.

Read next: ``docs/architecture.md``, "The staff area" (*Slips*); the fonts: ``docs/xlsform.md``, "Languages".
"""
import functools
import logging
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen.canvas import Canvas

log = logging.getLogger(__name__)

# Where Debian installs the fonts (deploy/packages.txt: fonts-noto-core, fonts-droid-fallback).
NOTO_DIR = Path("/usr/share/fonts/truetype/noto")
FALLBACK_FONTS = (Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),)
_STANDARD = {False: "Helvetica", True: "Helvetica-Bold"}


def fitted_text(text: str, font: str, size: float, room: float, *, kept: str = "") -> str:
    """``text`` then ``kept``, cut to ``room`` points wide in ``font`` at ``size``: ``text`` loses its end to an
    ellipsis, ``kept`` (a mark such as "(conditional)") stays whole."""
    if stringWidth(text + kept, font, size) <= room:
        return text + kept
    while text and stringWidth(text + "…" + kept, font, size) > room:
        text = text[:-1]
    return text + "…" + kept


def wrapped_lines(text: str, font: str, size: float, room: float) -> list[str]:
    """``text`` in lines at most ``room`` points wide in ``font`` at ``size``, broken between words (a word wider
    than a line, as a text without spaces, between its characters)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if stringWidth(candidate, font, size) <= room:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if line and stringWidth(line + char, font, size) > room:
                lines.append(line)
                line = ""
            line += char
    return [*lines, line] if line else lines


def _standard_font_draws(text: str) -> bool:
    try:
        text.encode("cp1252")  # reportlab's standard fonts are encoded WinAnsi
    except UnicodeEncodeError:
        return False
    return True


@functools.cache
def _font_files(bold: bool) -> tuple[Path, ...]:
    """The fonts to try, in order: Noto Sans (Latin, Greek, Cyrillic), Noto Sans of each other script, then the
    fallback; a bold face where the family has one."""
    weight = "Bold" if bold else "Regular"
    noto = sorted(NOTO_DIR.glob(f"NotoSans*-{weight}.ttf")) if NOTO_DIR.is_dir() else []
    if bold:  # a script without a bold face is drawn regular
        have = {path.name.removesuffix("-Bold.ttf") for path in noto}
        noto += [path for path in sorted(NOTO_DIR.glob("NotoSans*-Regular.ttf"))
                 if path.name.removesuffix("-Regular.ttf") not in have] if NOTO_DIR.is_dir() else []
    first = [path for path in noto if path.name.startswith("NotoSans-")]
    return (*first, *(path for path in noto if path not in first), *(p for p in FALLBACK_FONTS if p.exists()))


@functools.cache
def _registered(path: Path) -> tuple[str, frozenset[int]] | None:
    """Register the font at ``path`` with reportlab; return its name and the characters it draws (None: not a
    font reportlab can embed)."""
    name = path.stem
    try:
        font = TTFont(name, str(path))
    except (TTFError, OSError) as error:
        log.warning("Font %s cannot be embedded: %s", path, error)
        return None
    pdfmetrics.registerFont(font)
    return name, frozenset(font.face.charToGlyph)


def font_for(text: str, *, bold: bool = False) -> str:
    """Return the name of a font that draws every character of ``text`` (``bold``: its bold face, where there is
    one): Helvetica when it will do, else the first of the embedded fonts that has them all, else the one that has
    the most (or Helvetica, when none is installed)."""
    if _standard_font_draws(text):
        return _STANDARD[bold]
    needed = {ord(c) for c in text if not c.isspace()}
    best, best_count = _STANDARD[bold], 0
    for path in _font_files(bold):
        registered = _registered(path)
        if registered is None:
            continue
        name, has = registered
        count = len(needed & has)
        if count == len(needed):
            return name
        if count > best_count:
            best, best_count = name, count
    return best


def draw_text(canvas: Canvas, x: float, y: float, text: str, *, size: float, bold: bool = False,
              room: float | None = None, kept: str = "") -> None:
    """Draw ``text`` (then ``kept``) at (x, y) in a font that has its characters (``font_for``), at ``size``
    points, cut to ``room`` points wide when given (``kept`` stays whole: ``fitted_text``); shaped where the font
    is embedded."""
    font = font_for(text + kept, bold=bold)
    if room is not None:
        text = fitted_text(text, font, size, room, kept=kept)
    elif kept:
        text += kept
    canvas.setFont(font, size)
    canvas.drawString(x, y, text, shaping=font not in _STANDARD.values())
