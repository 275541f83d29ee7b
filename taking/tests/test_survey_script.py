"""survey.js as files: the modules take.html loads, the rule cases run in node, and the names the script reads
from the page instead of spelling them. What it does in a browser: test_browser.py."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from respondents.models import Nav

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "taking" / "static"
TAKE = ROOT / "taking" / "templates" / "taking" / "take.html"


def loaded_scripts():
    """The files of take.html's {% compress js %} block, in the order the page runs them."""
    block = re.search(r"{% compress js %}(.*?){% endcompress %}", TAKE.read_text(), re.S).group(1)
    return re.findall(r"""<script src="{% static '([^']+)' %}" defer></script>""", block)


def test_the_survey_page_loads_every_module_once_and_survey_js_last_in_one_compressed_block():
    scripts = loaded_scripts()
    modules = sorted(path.relative_to(STATIC).as_posix() for path in (STATIC / "taking" / "survey").glob("*.js"))
    assert scripts[0] == "taking/survey/rules.js" and scripts[1] == "taking/survey/page.js"  # read by the others
    assert sorted(scripts[:-1]) == modules and scripts[-1] == "taking/survey.js"
    assert TAKE.read_text().count("{% compress js %}") == 1


def script_code(path):
    """The script's code without its comments (which may name what the code must not)."""
    text = path.read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"^\s*//.*$|\s//\s.*$", "", text, flags=re.M)


def test_the_script_spells_neither_the_answer_prefix_nor_a_nav_value():
    """It reads them from the page (data-contract); the behaviour: test_browser's
    test_the_script_names_the_answer_fields_as_the_page_says and the screener's forward button."""
    for name in loaded_scripts():
        code = script_code(STATIC / name)
        assert "q-" not in code, name
        literals = re.findall(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'""", code)
        assert not {double or single for double, single in literals} & set(Nav.values), name


def golden_results_in_node(cases_name, call):
    """Run rules.js in node on every case of ``surveys/tests/<cases_name>``; return the cases and what ``call`` (a
    JavaScript expression of ``c``, a case, and ``kinds``, each code's kind) gave for each."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing; make install needs it (npm ci)")
        pytest.skip("node is not installed")
    program = f"""
        const [rules, casesFile] = process.argv.slice(-2);
        const fs = require("fs");
        globalThis.window = globalThis;  // rules.js is a classic script of the page: Survey is a window global
        require("vm").runInThisContext(fs.readFileSync(rules, "utf8"), {{filename: rules}});
        const {{questions, cases}} = JSON.parse(fs.readFileSync(casesFile, "utf8"));
        const kinds = Object.fromEntries(Object.entries(questions).map(([code, q]) => [code, q.kind]));
        console.log(JSON.stringify(cases.map(c => {call})));
    """
    cases_file = ROOT / "surveys" / "tests" / cases_name
    output = subprocess.run([node, "-e", program, str(STATIC / "taking" / "survey" / "rules.js"), str(cases_file)],
                            capture_output=True, text=True, check=True, timeout=60).stdout
    return json.loads(cases_file.read_text())["cases"], json.loads(output)


def test_survey_js_evaluates_every_golden_rule_case_in_node_as_the_server_does():
    cases, results = golden_results_in_node("rule_cases.json", """Survey.rules.evaluate(
        c.rule, c.answers, c.of ? Object.assign({}, kinds, {".": kinds[c.of]}) : kinds, c.own)""")
    wrong = [case["name"] for case, result in zip(cases, results, strict=True) if result != case["expected"]]
    assert not wrong and len(results) >= 100


def test_survey_js_computes_every_golden_calculation_case_in_node_as_the_server_does():
    cases, results = golden_results_in_node("calculation_cases.json",
                                            "Survey.rules.calculate(c.expression, c.answers, kinds)")
    wrong = [(case["name"], result) for case, result in zip(cases, results, strict=True) if result != case["expected"]]
    assert not wrong and len(results) >= 30
