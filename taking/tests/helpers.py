"""What the browser tests share: logging in and answering a page as a person does."""
from playwright.sync_api import expect


def log_in(page, base_url, respondent, *, script=True):
    page.goto(base_url + "/")
    page.get_by_label("Access code").click()
    page.keyboard.type(respondent.formatted_access_code.lower())
    page.keyboard.press("Enter")
    expect(page.locator("form.survey-form")).to_be_visible()
    if script:
        # survey.js is deferred: a click before it has taken over the form would post it without it.
        expect(page.locator("#survey-page[data-enhanced]")).to_have_count(1)


def answer_page(page, variant):
    """Answer every question shown on the current page; return ``{code: stored value}`` of what was chosen.

    Whether a question is shown is read as it is reached: an answer may show the questions after it.
    """
    chosen = {}
    form = page.locator("form.survey-form")
    for fieldset in form.locator("fieldset.question.single").all():
        if not fieldset.is_visible():
            continue
        radios = fieldset.locator("input[type=radio]")
        pick = radios.nth(variant % radios.count())
        fieldset.locator("label.choice").nth(variant % radios.count()).click()  # the label, as a person does
        chosen[pick.get_attribute("name")[2:]] = pick.get_attribute("value")
    for fieldset in form.locator("fieldset.question.multiple").all():
        if not fieldset.is_visible():
            continue
        boxes = fieldset.locator("input[type=checkbox]")
        picks = sorted({0, boxes.count() - 1, variant % boxes.count()})
        for index in picks:
            boxes.nth(index).check()
        chosen[boxes.first.get_attribute("name")[2:]] = " ".join(boxes.nth(i).get_attribute("value") for i in picks)
    for row in form.locator("tr.grid-row").all():
        if not row.is_visible():
            continue
        radios = row.locator("input[type=radio]")
        # Keyboard: focus the first cell, Space selects it, an arrow key moves the choice on.
        radios.first.focus()
        page.keyboard.press("Space")
        steps = variant % radios.count()
        for _ in range(steps):
            page.keyboard.press("ArrowRight")
        chosen[radios.first.get_attribute("name")[2:]] = radios.nth(steps).get_attribute("value")
    for field in form.locator("input[type=number]").all():
        if not field.is_visible():
            continue
        low = int(field.get_attribute("min") or 0)
        value = str(low + 1 + variant)
        field.click()
        page.keyboard.type(value)
        chosen[field.get_attribute("name")[2:]] = value
    for field in form.locator("input[type=date]").all():
        if not field.is_visible():
            continue
        value = f"2015-06-{10 + variant:02d}"
        field.fill(value)
        chosen[field.get_attribute("name")[2:]] = value
    for field in form.locator("input[type=text], textarea").all():
        if not field.is_visible():
            continue
        field.click()
        page.keyboard.type(f"Answer {variant}, ok")
        # What the field holds (the browser stops typing at maxlength), less the
        # surrounding white space the server trims.
        chosen[field.get_attribute("name")[2:]] = field.input_value().strip()
    return chosen


def expect_page(page, number):
    expect(page.locator(f'.survey-page[data-page="{number}"]')).to_be_visible()
