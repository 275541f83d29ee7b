"""``{% survey_script_contract %}``: the names a survey page's form posts, as JSON for survey.js
(``forms.script_contract``), so that the script reads them from the page instead of spelling them."""
import json

from django import template

from taking.forms import script_contract

register = template.Library()


@register.simple_tag
def survey_script_contract() -> str:
    return json.dumps(script_contract(), separators=(",", ":"))
