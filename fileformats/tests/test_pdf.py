"""Text in any script on a PDF page: the font chosen has every character, embedded and shaped."""
import io

import pytest
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from fileformats.pdf import draw_text, font_for

pytestmark = pytest.mark.usefixtures("slip_fonts")


@pytest.mark.parametrize(("text", "bold", "font"), [
    ("Lincoln Middle School", False, "Helvetica"), ("Encuesta: año escolar", True, "Helvetica-Bold"),
    ("Анна Иванова", False, "NotoSans-Regular"), ("Ελένη", True, "NotoSans-Bold"),
    ("محمد علي", False, "NotoSansArabic-Regular"), ("שרה", False, "NotoSansHebrew-Regular"),
    ("सर्वेक्षण", True, "NotoSansDevanagari-Bold"), ("ምርጫ", False, "NotoSansEthiopic-Regular"),
    ("王芳", False, "DroidSansFallbackFull"), ("学校調査 2026", True, "DroidSansFallbackFull"),
])
def test_a_text_is_drawn_in_a_font_that_has_every_character(text, bold, font):
    assert font_for(text, bold=bold) == font


def test_the_fonts_a_page_needs_are_embedded_and_its_text_reads_back():
    out = io.BytesIO()
    canvas = Canvas(out)
    for n, text in enumerate(["Lincoln", "Анна Иванова", "王芳", "محمد علي"]):
        draw_text(canvas, 72, 700 - 20 * n, text, size=12)
    canvas.save()
    page = PdfReader(io.BytesIO(out.getvalue())).pages[0]
    # A subset's name is its font's own, after a tag: /AAAAAA+NotoSans-Regular.
    fonts = {str(font.get_object()["/BaseFont"]).split("+")[-1].lstrip("/")
             for font in page["/Resources"]["/Font"].values()}
    assert fonts == {"Helvetica", "NotoSans-Regular", "DroidSansFallback", "NotoSansArabic-Regular"}
    text = page.extract_text()
    assert "Анна Иванова" in text and "王芳" in text and "Lincoln" in text
    # Arabic is shaped and laid out right to left: its glyphs are drawn in the order they are seen.
    assert "يلع دمحم" in text
