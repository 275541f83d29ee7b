"""Code slips: every code of the school in the PDF, the QR address keeps the code in its fragment."""
import io

import pytest
from django.core.management import CommandError, call_command
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of
from rosters.services import respondent_withdraw
from rosters.slips import slip_url, slips_for_school, slips_write_pdf
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


def pdf_text(data):
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_the_slips_hold_every_code_of_the_school_and_no_other(tmp_path):
    survey = make_survey()
    lincoln, adams = make_school("LIN", "Lincoln"), make_school("ADA", "Adams", ("D2", "Two"))
    sevens = make_respondents(survey, 9, school=lincoln, grade="7")
    eights = make_respondents(survey, 3, school=lincoln, grade="8", language="es")
    others = make_respondents(survey, 2, school=adams, grade="7")
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[sevens[0].pk], survey=survey)
    out = io.BytesIO()
    count = slips_write_pdf(stream=out, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                            slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=lincoln))
    text = pdf_text(out.getvalue())
    assert count == 11
    assert all(p.formatted_access_code in text for p in sevens[1:] + eights)
    assert sevens[0].formatted_access_code not in text  # withdrawn
    assert not any(p.formatted_access_code in text for p in others)
    assert "Grade 7: 8 slips" in text and "Grade 8: 3 slips" in text and "Su código de acceso" in text


def test_the_qr_address_carries_the_code_in_the_fragment_only():
    assert slip_url("https://survey.example.org/", "ABCDEFGHJK") == "https://survey.example.org/#code=ABCDE-FGHJK"


def test_a_coordinator_prints_only_their_own_schools_and_an_analyst_none():
    from django.core.exceptions import PermissionDenied

    survey = make_survey()
    lincoln, adams = make_school("LIN", "Lincoln"), make_school("ADA", "Adams", ("D2", "Two"))
    make_respondents(survey, 2, school=adams)
    coordinator = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln]))
    assert list(slips_for_school(scope=coordinator, survey=survey, school=adams)) == []
    with pytest.raises(PermissionDenied):
        list(slips_for_school(scope=scope_of(make_staff(StaffMember.Role.ANALYST)), survey=survey, school=lincoln))


def test_code_slips_writes_the_pdf_and_the_audit_entry(tmp_path):
    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln")
    people = make_respondents(survey, 3, school=lincoln, grade="7")
    output = tmp_path / "slips.pdf"
    out = io.StringIO()
    call_command("code_slips", survey.slug, "--school", "LIN", "--output", str(output),
                 "--url", "https://survey.example.org/", stdout=out)
    assert "3 slips for Lincoln" in out.getvalue()
    text = pdf_text(output.read_bytes())
    assert all(p.formatted_access_code in text for p in people)
    assert AuditEntry.objects.get(action="slips_printed").school_id == lincoln.pk
    with pytest.raises(CommandError, match="No school 'NOPE'"):
        call_command("code_slips", survey.slug, "--school", "NOPE", "--output", str(output), "--url", "x")


def test_each_slip_carries_the_survey_title_in_its_respondent_s_language(lincoln):
    from surveys.tests.factories import make_demo_survey

    survey = make_demo_survey()
    make_respondents(survey, 1, school=lincoln, grade="7", language="en")
    make_respondents(survey, 1, school=lincoln, grade="7", language="es")
    out = io.BytesIO()
    slips_write_pdf(stream=out, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                    slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=lincoln))
    cover, slips = (page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    assert "School Climate Survey (demo)" in cover  # the cover is for the teacher: the survey's first language
    slips = " ".join(slips.split())  # a title longer than the room beside the QR code wraps
    assert slips.count("School Climate Survey (demo)") == 1 and slips.count("Encuesta sobre el clima escolar") == 1
    assert "Su código de acceso" in slips and "Your access code" in slips


def test_people_without_a_grade_get_a_cover_named_for_their_role_not_a_blank_grade(lincoln):
    survey = make_survey()
    students = make_respondents(survey, 3, school=lincoln, grade="7", role="student")
    teachers = make_respondents(survey, 2, school=lincoln, role="teacher")
    parent = make_respondents(survey, 1, school=lincoln, role="parent")
    out = io.BytesIO()
    count = slips_write_pdf(stream=out, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                            slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=lincoln))
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages]
    assert count == 6 and len(pages) == 6  # a cover and a page of slips for each of three groups
    assert "Grade 7: 3 slips" in pages[0] and "For the teacher" in pages[0]  # the grades first, no grade last
    assert all(s.formatted_access_code in pages[1] for s in students)
    assert "Parents: 1 slip\n" in pages[2] and "For whoever hands them out" in pages[2]
    assert parent.formatted_access_code in pages[3]
    assert "Teachers: 2 slips" in pages[4] and all(t.formatted_access_code in pages[5] for t in teachers)
    assert "Grade —" not in "".join(pages)


def test_slips_in_a_script_helvetica_lacks_embed_a_font_that_has_it(lincoln, slip_fonts):
    from surveys.services import survey_create

    survey = survey_create(document={
        "slug": "wellbeing", "title": {"en": "Wellbeing", "zh": "健康调查"}, "languages": ["en", "zh"],
        "pages": [{"questions": [{"code": "ok", "kind": "short_text", "prompt": {"en": "Well?", "zh": "好吗?"}}]}]})
    make_respondents(survey, 1, school=lincoln, grade="7", language="zh", display_name="王芳")
    make_respondents(survey, 1, school=lincoln, grade="7", language="en", display_name="Анна Иванова")
    out = io.BytesIO()
    slips_write_pdf(stream=out, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                    slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=lincoln))
    cover, slips = (page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    assert "王芳" in cover and "Анна Иванова" in cover
    assert "健康调查" in slips and "王芳" in slips and "Wellbeing" in slips and "Анна Иванова" in slips


def test_slip_covers_and_the_mail_merge_csv_go_in_grade_order_k_first_and_grade_10_after_9(lincoln):
    import csv

    from rosters.slips import codes_write_csv

    survey = make_survey()
    for grade in ("10", "9", "K", "07", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    out = io.BytesIO()
    slips_write_pdf(stream=out, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                    slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=lincoln))
    covers = [line.split(":")[0] for line in pdf_text(out.getvalue()).splitlines() if line.endswith(": 1 slip")]
    assert covers == ["Grade K", "Grade 07", "Grade 9", "Grade 10", "Teachers"]
    stream = io.StringIO()
    codes_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln, login_url="https://survey.example.org/",
                    stream=stream)
    assert [row["grade"] for row in csv.DictReader(io.StringIO(stream.getvalue().lstrip("\ufeff")))] == [
        "K", "07", "9", "10", ""]


# ---------------------------------------------------------------- what is printed where (read back from the PDF)

LONG_TITLES = {
    "en": "The State-Wide School Climate, Safety and Student Wellbeing Survey of the Autumn Term 2026-2027",
    "es": "Encuesta estatal sobre el clima escolar, la seguridad y el bienestar de los estudiantes, "
          "otoño de 2026-2027",
}


def qr_boxes(page):
    """The QR codes drawn on a pypdf ``page``: the bounding box (x0, y0, x1, y1, in points from the bottom left) of
    each run of small filled squares (the codes' modules; the cut lines are the only other rectangles)."""
    from pypdf.generic import ContentStream

    boxes, modules = [], []
    for operands, operator in ContentStream(page.get_contents(), page.pdf).operations:
        if operator == b"re" and float(operands[2]) < 10:
            x, y, w, h = (float(value) for value in operands)
            modules.append((x, y, x + w, y + h))
        elif operator in (b"f", b"f*", b"B") and modules:
            boxes.append((min(m[0] for m in modules), min(m[1] for m in modules),
                          max(m[2] for m in modules), max(m[3] for m in modules)))
            modules = []
    return boxes


def word_boxes(path):
    """Every word of the PDF at ``path`` with its box, page by page (``pdftotext -bbox``): [[(word, x0, y0, x1,
    y1)]], in points from the bottom left as qr_boxes gives them."""
    import re
    import subprocess

    html = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True).stdout
    pages = []
    word = re.compile(r'<word xMin="([^"]+)" yMin="([^"]+)" xMax="([^"]+)" yMax="([^"]+)">([^<]*)</word>')
    for height, words in re.findall(r'<page width="[^"]+" height="([^"]+)">(.*?)</page>', html, re.S):
        top = float(height)
        pages.append([(text, float(x0), top - float(y1), float(x1), top - float(y0))
                      for x0, y0, x1, y1, text in word.findall(words)])
    return pages


def decoded_qr_codes(path, tmp_path):
    """What each page's QR codes say, read from the page as printed (``pdftoppm`` at 150 dpi, then ``zbarimg``)."""
    import subprocess

    subprocess.run(["pdftoppm", "-r", "150", "-png", str(path), str(tmp_path / "page")], check=True)
    return [sorted(subprocess.run(["zbarimg", "-q", "--raw", "--nodbus", str(image)], capture_output=True,
                                  text=True).stdout.split())
            for image in sorted(tmp_path.glob("page-*.png"))]


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_long_survey_title_wraps_beside_the_qr_code_and_nothing_prints_over_it(tmp_path, lincoln, language,
                                                                                 pdf_readers):
    from surveys.services import survey_create

    survey = survey_create(document={
        "slug": "long", "languages": [language, *({"en", "es"} - {language})], "title": LONG_TITLES,
        "pages": [{"questions": [{"code": "ok", "kind": "short_text", "prompt": {"en": "Well?", "es": "¿Bien?"}}]}]})
    school = make_school("NOR", "Abraham Lincoln Middle School of the North Side of the City")
    people = make_respondents(survey, 8, school=school, grade="7", language=language,
                              display_name="María José Pérez-Ruiz de la Torre y Gasset")
    path = tmp_path / "slips.pdf"
    with path.open("wb") as out:
        slips_write_pdf(stream=out, survey=survey, school=school, login_url="https://survey.example.org/",
                        slips=slips_for_school(scope=COMMAND_LINE, survey=survey, school=school))
    reader = PdfReader(path)
    slips_page, words = reader.pages[1], word_boxes(path)[1]  # the cover sheet first
    boxes = qr_boxes(slips_page)
    assert len(boxes) == 8 and all(abs((x1 - x0) - 90) < 1 and abs((y1 - y0) - 90) < 1 for x0, y0, x1, y1 in boxes)
    assert not [(word, box) for word, *at in words for box in boxes if overlaps(at, box)]
    # The title, on several lines left of its slip's code, from its first word to the last that fits.
    title_words = LONG_TITLES[language].split()
    first_words = [at for word, *at in words if word == title_words[0]]
    assert len(first_words) == 8
    assert any(word == title_words[3] for word, *_ in words)
    assert decoded_qr_codes(path, tmp_path)[1] == sorted(
        f"https://survey.example.org/#code={person.formatted_access_code}" for person in people)


def test_a_title_that_fits_stays_on_one_line_at_its_full_size():
    from rosters.slips import TITLE_SIZES, title_lines

    assert title_lines("Climate survey", 150) == (TITLE_SIZES[0], ["Climate survey"])
    size, lines = title_lines(LONG_TITLES["es"], 150)
    assert 1 < len(lines) <= 3 and size < TITLE_SIZES[0]
    assert all(stringWidth(line, "Helvetica-Bold", size) <= 150 for line in lines)
    size, lines = title_lines("Encuesta " * 40, 150)  # too long even small: its last line cut
    assert size == TITLE_SIZES[-1] and len(lines) == 3 and lines[-1].endswith("…")
