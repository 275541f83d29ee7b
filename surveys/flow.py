"""What applies to a respondent: the pages and questions their answers lead to.

A survey's rules compile once per definition into a frozen ``SurveyFlow`` in the per-process memo. Read next:
``docs/architecture.md``, "Skip logic and constraints".
"""
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from surveys.calculations import (
    Calculation,
    calculation_codes,
    calculation_evaluate,
    calculation_parse,
    calculation_to_json,
)
from surveys.models import Choice, Page, Question
from surveys.rules import (
    AllOf,
    Rule,
    RuleJSON,
    RuleQuestion,
    rule_codes,
    rule_describe,
    rule_evaluate,
    rule_parse,
    rule_to_json,
)


@dataclass(frozen=True)
class FlowQuestion:
    """One answerable question as the rules see it."""

    code: str
    page: int
    kind: str
    # Its own show_if and, for a grid row, its grid's (both must hold).
    rules: tuple[Rule, ...] = ()
    constraint: Rule | None = None
    # Its rules read an answer on its own page: asked or not is decided as the
    # person answers (survey.js), and the page without JavaScript says when to answer.
    reads_own_page: bool = False
    # A calculation's: its value, computed from earlier answers (when its rules hold; else blank).
    calculation: Calculation | None = None
    # A cascading select's: (choice value, the rule under which it is offered), for its choices that have one;
    # whether those rules read an answer on its own page (survey.js then shows and hides the choices).
    choice_rules: tuple[tuple[str, Rule], ...] = ()
    choices_read_own_page: bool = False

    def ruled_out(self, answers: Mapping[str, str]) -> frozenset[str]:
        """Return the values of the choices not offered for ``answers`` (a cascading select's)."""
        return frozenset(value for value, rule in self.choice_rules if not rule_evaluate(rule, answers))

    @cached_property
    def choice_rules_text(self) -> dict[str, str]:
        """Each ruled choice's rule as compact JSON text (its ``data-show-if``)."""
        return {value: json.dumps(rule_to_json(rule), separators=(",", ":"), ensure_ascii=False)
                for value, rule in self.choice_rules}

    @property
    def rule(self) -> Rule | None:
        """Its rules as one rule; None when it is always asked (on a page that applies)."""
        if not self.rules:
            return None
        return self.rules[0] if len(self.rules) == 1 else AllOf(rules=self.rules)

    @property
    def show_if_json(self) -> RuleJSON | None:
        """Its rules as one canonical rule (JSON data), for survey.js; None when it is always asked."""
        rule = self.rule
        return rule_to_json(rule) if rule is not None else None

    @cached_property
    def show_if_text(self) -> str:
        """``show_if_json`` as compact JSON text (the page's ``data-show-if``)."""
        return json.dumps(self.show_if_json, separators=(",", ":"), ensure_ascii=False) if self.rules else ""


@dataclass(frozen=True)
class Route:
    """Where page ``number`` stands among the pages that apply to a respondent."""

    number: int
    pages: tuple[int, ...]

    @property
    def shown_count(self) -> int:
        return len(self.pages)

    @property
    def shown_number(self) -> int:
        """This page's place among the pages that apply (counted as if it applied, if it does not)."""
        return sum(1 for p in self.pages if p < self.number) + 1

    @property
    def is_first(self) -> bool:
        return not self.pages or self.number <= self.pages[0]

    @property
    def is_last(self) -> bool:
        return not self.pages or self.number >= self.pages[-1]

    @property
    def progress(self) -> int:
        """Percent of the pages that apply which come before this one."""
        return self.progress_at(self.number)

    def progress_at(self, number: int) -> int:
        if not self.pages:
            return 0
        return round(100 * sum(1 for p in self.pages if p < number) / len(self.pages))

    @property
    def previous(self) -> int:
        """The page Back leads to: the nearest earlier page that applies, else this one."""
        return max((p for p in self.pages if p < self.number), default=self.number)

    @property
    def next(self) -> int:
        """The page Next leads to: the nearest later page that applies, else this one."""
        return min((p for p in self.pages if p > self.number), default=self.number)

    def resolve(self, number: int) -> int:
        """Return the page to show for ``number``: it, or the first later page that applies, else the last one."""
        later = [p for p in self.pages if p >= number]
        if later:
            return later[0]
        return self.pages[-1] if self.pages else number


@dataclass(frozen=True)
class SurveyFlow:
    """A survey's compiled rules, and what they make of a respondent's answers."""

    page_count: int
    page_rules: Mapping[int, Rule]
    # Every answerable question, in survey order.
    questions: Mapping[str, FlowQuestion]
    reads: frozenset[str]
    # Every note with a show_if (a note takes no answer: it is only shown or not), in survey order.
    notes: Mapping[str, FlowQuestion] = field(default_factory=dict)
    # Every calculation, in survey order: rules read them as answers, ``effective`` computes them.
    calculations: Mapping[str, FlowQuestion] = field(default_factory=dict)
    # The codes of the questions and calculations, in survey order: what ``effective`` walks.
    order: tuple[str, ...] = ()
    # Page n to its calculations that read its own answers, as survey.js computes them (JSON text: [[code,
    # expression, [rules]], ...]); the other calculations' values come with the page's other answers.
    script_calculations: Mapping[int, str] = field(default_factory=dict)
    # The prompts (code to text) and choice labels ((code, value) to text) rules are described with, per language.
    prompts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    choice_labels: Mapping[str, Mapping[tuple[str, str], str]] = field(default_factory=dict)
    # Page number to the other pages' answers that showing or saving it needs , and
    # to whether any rule is at work on it (a show_if or constraint of its questions).
    page_reads: Mapping[int, frozenset[str]] = field(default_factory=dict)
    ruled_pages: frozenset[int] = frozenset()
    # The codes a save needs from the session's copy of the rules' answers (taking/respondent_session.py).
    session_codes: frozenset[str] = frozenset()
    # In survey order: ``reads`` (key 0), and ``page_reads[n]`` with page n's codes (key n): what ``effective`` walks.
    evaluation_order: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    # What survey.js needs on page n to decide its questions that read answers on the page (taking.forms):
    # the kinds of the codes those rules read (JSON text), and which of the codes are on other pages.
    script_kinds: Mapping[int, str] = field(default_factory=dict)
    script_other_reads: Mapping[int, frozenset[str]] = field(default_factory=dict)
    # Page n to what survey.js needs to place page n among the pages that apply as the person answers it (JSON
    # text), where a later page's rule reads (through the questions deciding it) one of page n's answers: the page
    # count, every page rule, and ``evaluation_order[n]`` with each code's page, rules and kind. Its buttons and
    # "Page X of Y" then follow the answers; the saved answers of the other pages come with the page (taking.forms).
    route_scripts: Mapping[int, str] = field(default_factory=dict)
    # (code, language) to a question's rule in words, described once.
    _described: dict[tuple[str, str | None], str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def conditional(self) -> bool:
        """Whether anything ever hides: a page or a question has a show_if."""
        return bool(self.page_rules) or any(q.rules for q in self.questions.values())

    def sometimes_hidden(self, code: str) -> bool:
        """Whether question ``code`` has a show_if, or stands on a page that has one."""
        question = self.questions[code]
        return bool(question.rules) or question.page in self.page_rules

    def effective_reads(self) -> tuple[frozenset[str], set[str] | None]:
        """The stored answers ``effective`` needs, and the ``codes`` to pass it: every answer and every code with
        calculations (a calculation may read any answer), else what the rules read."""
        if self.calculations:
            return frozenset(self.questions), set(self.order)
        return self.reads, None

    def texts(self, language: str | None) -> tuple[Mapping[str, str], Mapping[tuple[str, str], str]]:
        """Return ``(prompts, choice_labels)`` in ``language``, else in the survey's first language."""
        first = next(iter(self.prompts), None)
        language = language if language in self.prompts else first
        if language is None:  # no texts at all
            return {}, {}
        return self.prompts.get(language, {}), self.choice_labels.get(language, {})

    def asks(self, code: str, answers: Mapping[str, str]) -> bool:
        """Return whether question ``code`` is asked (a note: shown), given ``answers`` as rules read them
        (``effective``)."""
        question = self._question(code)
        page_rule = self.page_rules.get(question.page)
        if page_rule is not None and not rule_evaluate(page_rule, answers):
            return False
        return all(rule_evaluate(rule, answers) for rule in question.rules)

    def _question(self, code: str) -> FlowQuestion:
        if code in self.questions:
            return self.questions[code]
        return self.calculations[code] if code in self.calculations else self.notes[code]

    def effective(self, stored: Mapping[str, str], *, page: int = 0,
                  codes: Collection[str] | None = None) -> dict[str, str]:
        """Return ``stored`` answers (code to stored text) as rules read them: blank where not asked.

        Kept are the codes of ``reads`` (``page`` 0), or what page ``page``
        needs (``page_reads``) and its questions' codes, or only ``codes``,
        which must hold the codes deciding each of them, as ``reads`` does.
        """
        order: Sequence[str]
        if codes is None:
            order = self.evaluation_order.get(page, ())
        else:
            order = [code for code in self.order if code in codes]
        answers: dict[str, str] = {}
        for code in order:
            if not self.asks(code, answers):
                answers[code] = ""
            elif code in self.calculations:
                answers[code] = calculation_evaluate(self.calculations[code].calculation, answers)  # type: ignore[arg-type]
            else:
                answers[code] = stored.get(code, "")
        return answers

    def condition_words(self, code: str, language: str | None) -> str:
        """Return question ``code``'s rule in plain words, in ``language`` (a clause to follow "if")."""
        key = (code, language)
        words = self._described.get(key)
        if words is None:
            rule = self._question(code).rule
            if rule is None:
                raise ValueError(f"question '{code}' is always asked: it has no condition to put in words")
            prompts, choice_labels = self.texts(language)
            words = self._described[key] = rule_describe(rule, prompts=prompts, choice_labels=choice_labels)
        return words

    def pages(self, answers: Mapping[str, str]) -> tuple[int, ...]:
        """Return the numbers of the pages that apply, given ``answers`` as rules read them."""
        return tuple(
            number for number in range(1, self.page_count + 1)
            if number not in self.page_rules or rule_evaluate(self.page_rules[number], answers)
        )

    def route(self, number: int, answers: Mapping[str, str] | None = None) -> Route:
        """Return the Route of page ``number``; a survey without page rules needs no ``answers``."""
        if not self.page_rules:
            return Route(number=number, pages=tuple(range(1, self.page_count + 1)))
        return Route(number=number, pages=self.pages(answers or {}))


def _rule_reads(question: FlowQuestion) -> set[str]:
    """The codes a question's rules, constraint and choices' rules read."""
    codes: set[str] = set()
    for rule in (*question.rules, *((question.constraint,) if question.constraint else ()),
                 *(rule for _, rule in question.choice_rules)):
        codes |= rule_codes(rule)
    return codes


def _with_deciders(codes: Iterable[str], questions: Mapping[str, FlowQuestion],
                   page_rules: Mapping[int, Rule]) -> set[str]:
    """Return ``codes`` and, transitively, the codes whose answers decide whether they are asked, and those a
    calculation among them reads."""
    closed: set[str] = set()
    todo = list(codes)
    while todo:
        code = todo.pop()
        if code in closed or code not in questions:
            continue
        closed.add(code)
        question = questions[code]
        page_rule = page_rules.get(question.page)
        for rule in (*question.rules, *((page_rule,) if page_rule else ())):
            todo.extend(rule_codes(rule))
        if question.calculation is not None:
            todo.extend(calculation_codes(question.calculation))
    return closed


def flow_compile(*, page_count: int, pages: Sequence[Page], questions: Sequence[Question],
                 choices: Mapping[int, Sequence[Choice]], languages: Sequence[str] = ()) -> SurveyFlow:
    """Return the SurveyFlow of a survey's definition rows.

    ``pages`` are the survey's Page rows, ``questions`` all its Question rows
    (grids included), ``choices`` maps a question id to its choices in order.
    The rules were checked when the document was imported; compiling them
    again here only turns the stored JSON into the evaluator's dataclasses.
    """
    position = {page.pk: page.position for page in pages}
    grids = {q.pk: q for q in questions if q.grid_id is None}

    def order(q: Question) -> tuple[int, int, int]:
        top = grids[q.grid_id].position if q.grid_id else q.position
        return (position[q.page_id], top, q.position if q.grid_id else -1)

    ordered = sorted(questions, key=order)
    known: dict[str, RuleQuestion] = {}
    calculations: dict[str, Calculation] = {}
    for question in ordered:
        values = tuple(c.value for c in choices.get(question.grid_id or question.pk, ()))
        known[question.code] = RuleQuestion(code=question.code, kind=question.kind, choices=values)
        if question.kind == Question.Kind.CALCULATE:
            calculation = calculation_parse(question.calculation, path=question.code, earlier=known)
            calculations[question.code] = calculation
            known[question.code] = RuleQuestion(code=question.code, kind=calculation.read_as_kind)

    def compiled(raw: RuleJSON, path: str, own: RuleQuestion | None = None) -> Rule:
        return rule_parse(raw, path=path, earlier=known, own=own)

    page_rules = {
        page.position: compiled(page.show_if, f"pages[{page.position}].show_if")
        for page in pages if page.show_if is not None
    }
    page_of = {q.code: position[q.page_id] for q in questions}
    flow_questions: dict[str, FlowQuestion] = {}
    for question in ordered:
        if not question.is_answerable:
            continue
        raw_rules = [grids[question.grid_id].show_if] if question.grid_id else []
        rules = tuple(compiled(raw, question.code) for raw in [*raw_rules, question.show_if] if raw is not None)
        choice_rules = tuple((c.value, compiled(c.show_if, f"{question.code}.choices"))
                             for c in choices.get(question.pk, ()) if c.show_if is not None)
        page = position[question.page_id]
        reads_own_page = any(page_of.get(code) == page for rule in rules for code in rule_codes(rule))
        choices_read_own_page = any(page_of.get(code) == page for _, rule in choice_rules for code in rule_codes(rule))
        flow_questions[question.code] = FlowQuestion(
            code=question.code, page=page, kind=question.kind, rules=rules,
            constraint=(compiled(question.constraint, question.code, own=known[question.code])
                        if question.constraint is not None else None),
            reads_own_page=reads_own_page, choice_rules=choice_rules, choices_read_own_page=choices_read_own_page,
        )

    flow_notes: dict[str, FlowQuestion] = {}
    for question in ordered:
        if question.kind == Question.Kind.NOTE and question.show_if is not None:
            rule = compiled(question.show_if, question.code)
            page = position[question.page_id]
            flow_notes[question.code] = FlowQuestion(
                code=question.code, page=page, kind=question.kind, rules=(rule,),
                reads_own_page=any(page_of.get(code) == page for code in rule_codes(rule)))

    flow_calculations: dict[str, FlowQuestion] = {}
    for question in ordered:
        if question.kind == Question.Kind.CALCULATE:
            page = position[question.page_id]
            rules = (compiled(question.show_if, question.code),) if question.show_if is not None else ()
            flow_calculations[question.code] = FlowQuestion(
                code=question.code, page=page, kind=question.kind, rules=rules,
                calculation=calculations[question.code])
    deciding = {**flow_questions, **flow_calculations}
    survey_order = tuple(q.code for q in ordered if q.code in deciding)

    by_page = {number: [code for code, q in flow_questions.items() if q.page == number]
               for number in range(1, page_count + 1)}
    notes_on = {number: [note for note in flow_notes.values() if note.page == number]
                for number in range(1, page_count + 1)}
    # Where Back, Next and the progress lead: every page's rule, read whichever page is shown or saved.
    routing = set().union(*(rule_codes(rule) for rule in page_rules.values()))
    reads = _with_deciders(routing.union(*(_rule_reads(q) for q in flow_questions.values())), deciding, page_rules)
    # What showing or saving page n needs besides its own answers (calculations included): empty when no rule is
    # at work on it. ``page_reads`` is the other pages' answers among it: what the session keeps.
    needed = {
        number: _with_deciders(routing.union(*(_rule_reads(flow_questions[c]) for c in codes),
                                             *map(_rule_reads, notes_on[number])), deciding, page_rules) - set(codes)
        for number, codes in by_page.items()
    }
    page_reads = {number: frozenset(codes - flow_calculations.keys()) for number, codes in needed.items()}
    evaluation_order = {0: tuple(code for code in survey_order if code in reads)}
    for number, codes in by_page.items():
        evaluation_order[number] = tuple(code for code in survey_order if code in needed[number] or code in codes)

    def read_kind(code: str) -> str:
        return flow_questions[code].kind if code in flow_questions else calculations[code].read_as_kind

    script_kinds: dict[int, str] = {}
    script_other_reads: dict[int, frozenset[str]] = {}
    script_calculations: dict[int, str] = {}
    for number, codes in by_page.items():
        dynamic = [flow_questions[code] for code in codes if flow_questions[code].reads_own_page]
        dynamic += [note for note in notes_on[number] if note.reads_own_page]
        cascading = [flow_questions[code] for code in codes if flow_questions[code].choices_read_own_page]
        if dynamic or cascading:
            read = set().union(*(rule_codes(rule) for q in dynamic for rule in q.rules),
                               *(rule_codes(rule) for q in cascading for _, rule in q.choice_rules))
            # A calculation on this page is computed by survey.js from what it reads; others come computed.
            todo, here = list(read), []
            while todo:
                code = todo.pop()
                if code in flow_calculations and flow_calculations[code].page == number and code not in here:
                    here.append(code)
                    more = calculation_codes(calculations[code]).union(
                        *map(rule_codes, flow_calculations[code].rules))
                    read |= more
                    todo.extend(more)
            script_kinds[number] = json.dumps({code: read_kind(code) for code in sorted(read)},
                                              separators=(",", ":"))
            script_other_reads[number] = frozenset(read - set(codes) - set(here))
            if here:
                script_calculations[number] = json.dumps([
                    [code, calculation_to_json(calculations[code]),
                     [rule_to_json(rule) for rule in flow_calculations[code].rules]]
                    for code in survey_order if code in here], separators=(",", ":"), ensure_ascii=False)
    route_scripts = _route_scripts(page_count=page_count, page_rules=page_rules, questions=deciding,
                                   by_page=by_page, order=evaluation_order)
    languages = languages or ("",)
    return SurveyFlow(
        page_count=page_count, page_rules=page_rules, questions=flow_questions, notes=flow_notes,
        calculations=flow_calculations, order=survey_order, script_calculations=script_calculations,
        reads=frozenset(reads),
        prompts={lang: {q.code: q.translated("prompt", lang) for q in questions} for lang in languages},
        choice_labels={lang: {
            (q.code, c.value): c.translated("label", lang) for q in questions for c in choices.get(q.grid_id or q.pk, ())
        } for lang in languages},
        page_reads=page_reads,
        ruled_pages=frozenset(q.page for q in [*flow_questions.values(), *flow_notes.values()]
                              if q.rules or q.constraint or q.choice_rules),
        session_codes=frozenset().union(*page_reads.values()),
        evaluation_order=evaluation_order, script_kinds=script_kinds, script_other_reads=script_other_reads,
        route_scripts=route_scripts,
    )


def _route_scripts(*, page_count: int, page_rules: Mapping[int, Rule], questions: Mapping[str, FlowQuestion],
                   by_page: Mapping[int, list[str]], order: Mapping[int, tuple[str, ...]]) -> dict[int, str]:
    """Return ``SurveyFlow.route_scripts``: for each page whose answers a later page's rule reads, directly or
    through the questions that decide the codes it reads, what survey.js needs to run ``effective`` and ``pages``
    as Python does."""
    scripts: dict[int, str] = {}
    for number, codes in by_page.items():
        later = [rule for m, rule in page_rules.items() if m > number]
        if not later or not _with_deciders(set().union(*map(rule_codes, later)), questions, page_rules) & set(codes):
            continue
        walked = [questions[code] for code in order[number]]
        read = set().union(*map(rule_codes, page_rules.values()), *(rule_codes(r) for q in walked for r in q.rules),
                           *(calculation_codes(q.calculation) for q in walked if q.calculation))
        scripts[number] = json.dumps({
            "count": page_count,
            "pages": {str(m): rule_to_json(rule) for m, rule in sorted(page_rules.items())},
            # A calculation's entry carries its expression: survey.js computes it where the walk reaches it.
            "order": [[q.code, q.page, [rule_to_json(r) for r in q.rules],
                       *([calculation_to_json(q.calculation)] if q.calculation else [])] for q in walked],
            "kinds": {code: (questions[code].calculation.read_as_kind if questions[code].calculation  # type: ignore[union-attr]
                             else questions[code].kind) for code in sorted(read) if code in questions},
        }, separators=(",", ":"), ensure_ascii=False)
    return scripts
