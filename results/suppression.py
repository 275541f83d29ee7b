"""Small-cell suppression: which figures of the results are hidden, so that no small group's answers can be read
from one selection, or worked out by subtracting one selection's figures from another's.

``figures_suppressed`` is the one function every figure shown to staff passes through (the results page now; an API
and the reports later): it takes the figures of every selection a viewer can make (a place: the state, a district,
a school, the schools of a coordinator's scope; within it a grade, a role, both or neither) and how they add up, and
returns them all with those to hide. docs/architecture.md ("Small-cell suppression") gives the rule and its reasons.
"""
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

# A place (``Node``), and within it a grade and a role (None: every grade, every role), and the figure: a cell of
# the results (``AnswerCount.Cell``: "value", "answered", "mean", "respondents"; "not": those who answered a
# multiple choice without choosing the value, never shown) and its value.
Node = tuple[str, int | None]
Cell = tuple[Node, str | None, str | None, str, str]

STATE: Node = ("state", None)
# Respondents with no school: counted in the state's figures, in no district's, and nobody can select them.
NO_SCHOOL: Node = ("no_school", None)
SCOPE: Node = ("scope", None)


def district_node(district_id: int) -> Node:
    return ("district", district_id)


def school_node(school_id: int) -> Node:
    return ("school", school_id)


def scope_district_node(district_id: int) -> Node:
    """The schools of a coordinator's scope in a district the scope covers only in part."""
    return ("scope_district", district_id)


class Adding(StrEnum):
    """How a selection's figures of one question (or its respondents) add up."""

    VALUES = "values"  # a single choice, a grid row, a number's bins: those who answered = the values added up
    CHOICES = "choices"  # a multiple choice: those who answered = who chose the value + who did not, each value
    NOTHING = "nothing"  # text, dates, times: only how many answered
    PEOPLE = "people"  # the respondents: all of them = those in progress + those completed


CELL_ALL = {Adding.VALUES: "answered", Adding.CHOICES: "answered", Adding.NOTHING: "answered",
            Adding.PEOPLE: "respondents"}
PARTS = {Adding.VALUES: "value", Adding.CHOICES: "value", Adding.PEOPLE: "respondents"}


@dataclass
class Places:
    """The places of a solve and how they nest: ``children[p]`` add up to ``p``; ``unseen`` are places nobody is
    shown (the respondents with no school)."""

    children: dict[Node, list[Node]] = field(default_factory=dict)
    unseen: frozenset[Node] = frozenset()


@dataclass(frozen=True, slots=True)
class Figure:
    """A selection's figure: its count, its answers added up (a mean's, else None), and whether it is hidden."""

    count: int
    total: float | None
    hidden: bool


def figures_suppressed(*, counts: Mapping[Cell, int], places: Places, kind: Adding, threshold: int,
                       totals: Mapping[Cell, float] | None = None,
                       fixed: Mapping[Cell, bool] | None = None) -> dict[Cell, Figure]:
    """Return every figure of one question (or of the respondents, ``kind`` Adding.PEOPLE) in every selection of
    ``places``, with those to hide.

    ``counts`` gives the leaf places' figures by grade and role (not every grade or role: those are added up here,
    and so are the places that have children); a figure not given is 0; a "mean" is given as how many answered (its
    size in people) and its answers added up in ``totals``; where the values add up to those who answered (Adding.VALUES,
    Adding.PEOPLE), that total is added up here. ``fixed`` (hidden or not) are figures decided before, never changed. A
    figure is hidden:

    1. when 0 < its count < ``threshold`` (a selection or a question of fewer people shows nothing, since each of
       its figures is under the threshold too; a zero is shown: it is nobody's answer);
    2. when it could be worked out from figures shown, through any relation (a selection's values add up to those
       who answered; a parent place's figures are its children's added up; every grade's are each grade's added up,
       and every role's): then another figure of that relation is hidden too, the smallest part above 0, else its
       total;
    3. when a relation's shown figures leave over, together, a small group: its total less its shown parts is
       above 0 and under the threshold ("the school less its grade 10" is the one grade-12 student); then another
       part is hidden, the smallest above 0, else the total.

    Rules 2 and 3 are applied again until nothing changes. Where only fixed figures could protect one (a solve over
    fixed places), every figure not fixed is hidden. Unseen figures (of places nobody may select, of the blank grade
    or role, and who did not choose a value) are hidden and left out of what is returned.
    """
    cells, weights, summed, relations = _figures(counts, totals or {}, places, kind)
    unseen = [c[0] in places.unseen or c[1] == "" or c[2] == "" or c[3] == "not" for c in cells]
    # Unseen figures are nobody's to fix: hidden, and guarded only while small, in every solve.
    decided = {i: fixed[cell] for i, cell in enumerate(cells) if cell in fixed and not unseen[i]} if fixed else {}
    try:
        hidden = set(_solve(weights, relations, unseen, decided, threshold))
    except SuppressionImpossible:
        hidden = {i for i in range(len(cells)) if decided.get(i, True)}
    return {cell: Figure(weights[i], summed.get(i), i in hidden) for i, cell in enumerate(cells)
            if cell[3] != "not" and cell[0] not in places.unseen}


def _figures(counts: Mapping[Cell, int], totals: Mapping[Cell, float], places: Places, kind: Adding
             ) -> tuple[list[Cell], list[int], dict[int, float], list[list[int]]]:
    """Every figure of every selection (the leaves' counts, added up by grade, role and place), its size, the
    means' answers added up, and the relations between the figures, as indices: each relation is [total, part,
    part...]."""
    # {place: {(grade, role, name, value): count}} (and the totals): the leaves' groups first.
    by_place: defaultdict[Node, defaultdict[_Key, int]] = defaultdict(lambda: defaultdict(int))
    sums: defaultdict[Node, defaultdict[_Key, float]] = defaultdict(lambda: defaultdict(float))
    derived_total = kind in (Adding.VALUES, Adding.PEOPLE)
    for (node, grade, role, name, value), count in counts.items():
        if count and grade is not None and role is not None and not (derived_total and name == CELL_ALL[kind]
                                                                     and value == ""):
            by_place[node][grade, role, name, value] += count
            if derived_total and name == PARTS[kind] and value != "":
                # Those who answered (all the respondents): the values (statuses) added up.
                by_place[node][grade, role, CELL_ALL[kind], ""] += count
    for (node, grade, role, name, value), total in totals.items():
        if grade is not None and role is not None and counts.get((node, grade, role, name, value)):
            sums[node][grade, role, name, value] += total
    if kind == Adding.CHOICES:
        # Who answered without choosing each value, in each group; added up with the rest below.
        for figures in by_place.values():
            for (grade, role, name, value), count in list(figures.items()):
                rest = figures.get((grade, role, "answered", ""), 0) - count if name == "value" else 0
                if rest > 0:
                    figures[grade, role, "not", value] = rest
    order = _bottom_up(places)
    _add_up(by_place, places, order)
    _add_up(sums, places, order)
    cells: list[Cell] = sorted(((node, *key) for node, figures in by_place.items() for key in figures),
                               key=_order)
    index = {cell: i for i, cell in enumerate(cells)}
    weights = [by_place[cell[0]][cell[1:]] for cell in cells]
    summed = {i: sums[cell[0]][cell[1:]] for i, cell in enumerate(cells)
              if cell[0] in sums and cell[1:] in sums[cell[0]]}
    grades = sorted({c[1] for c in cells if c[1] is not None})
    roles = sorted({c[2] for c in cells if c[2] is not None})
    relations: list[list[int]] = []

    def relate(total: Cell, parts: Iterable[Cell]) -> None:
        members = [index[part] for part in parts if part in index]
        if members:
            relations.append([index[total], *members])

    parts_of: defaultdict[tuple[Node, str | None, str | None], list[Cell]] = defaultdict(list)
    if kind in PARTS:
        for cell in cells:
            if cell[3] == PARTS[kind] and cell[4] != "":
                parts_of[cell[:3]].append(cell)
    for cell in cells:
        node, grade, role, name, value = cell
        if grade is None:
            relate(cell, ((node, g, role, name, value) for g in grades))
        if role is None:
            relate(cell, ((node, grade, r, name, value) for r in roles))
        if node in places.children:
            relate(cell, ((child, grade, role, name, value) for child in places.children[node]))
        if kind in PARTS and name == CELL_ALL[kind] and value == "":
            if kind == Adding.CHOICES:
                for part in parts_of[cell[:3]]:
                    relate(cell, (part, (node, grade, role, "not", part[4])))
            else:
                relate(cell, parts_of[cell[:3]])
    return cells, weights, summed, relations


_Key = tuple[str | None, str | None, str, str]
_Number = TypeVar("_Number", int, float)


def _add_up(by_place: defaultdict[Node, defaultdict[_Key, _Number]], places: Places, order: Sequence[Node]) -> None:
    """Add the leaves' groups up into their parent places' (``order``: children first), then each place's into
    every grade's and every role's."""
    for node in order:
        mine = by_place[node]
        for child in places.children[node]:
            for key, number in by_place.get(child, {}).items():
                mine[key] += number
    for figures in by_place.values():
        for (grade, role, name, value), number in list(figures.items()):
            figures[None, role, name, value] += number
            figures[grade, None, name, value] += number
            figures[None, None, name, value] += number


def _order(cell: Cell) -> tuple[object, ...]:
    node, grade, role, name, value = cell
    return (node[0], node[1] or 0, grade is not None, grade or "", role is not None, role or "", name, value)


def _bottom_up(places: Places) -> list[Node]:
    """The places that have children, each after its children."""
    order: list[Node] = []
    seen: set[Node] = set()

    def visit(node: Node) -> None:
        if node in seen:
            return
        seen.add(node)
        for child in places.children.get(node, ()):
            visit(child)
        if places.children.get(node):
            order.append(node)

    for node in list(places.children):
        visit(node)
    return order


def _solve(weights: Sequence[int], relations: Sequence[Sequence[int]], unseen: Sequence[bool],
           fixed: Mapping[int, bool], threshold: int) -> list[int]:
    """The indices of the cells to hide (rules 1-3 of ``figures_suppressed``), unseen ones included."""
    count = len(weights)
    member_of: list[list[int]] = [[] for _ in range(count)]
    for r, relation in enumerate(relations):
        for m in relation:
            member_of[m].append(r)
    hidden = bytearray(count)
    protected = bytearray(count)
    for i, weight in enumerate(weights):
        decided = fixed.get(i)
        if decided is not None:
            hidden[i] = protected[i] = decided
        elif 0 < weight < threshold:
            hidden[i] = protected[i] = 1
        elif unseen[i]:
            hidden[i] = 1
    # How many of each relation's figures are hidden, kept up to date as more are.
    unknown = [sum(hidden[m] for m in relation) for relation in relations]

    while True:
        known, via, left = _known(hidden, unknown, relations, member_of)
        mending = _Round(relations, member_of, weights, hidden, known, via, left,
                         free=lambda i: not hidden[i] and i not in fixed and not unseen[i] and weights[i] > 0)
        given = [(cell, r) for cell, r in via.items() if protected[cell]]
        # First the figures worked out from shown ones alone: mending those often mends what was worked out from
        # them in turn, which is looked at again in the next round.
        for cell, r in given:
            if all(not hidden[m] for m in relations[r] if m != cell):
                mending.complement(r, cell)
        if not mending.chosen:
            for cell, r in given:
                mending.complement(r, cell)
        if not mending.chosen:
            for r, n in enumerate(left):
                relation = relations[r]
                if n >= 2 and known[relation[0]]:
                    rest = sum(weights[p] for p in relation[1:] if not known[p])
                    if 0 < rest < threshold:
                        mending.complement(r, None)
        if not mending.chosen:
            return [i for i in range(count) if hidden[i]]
        for i in mending.chosen:
            hidden[i] = protected[i] = 1
            for r in member_of[i]:
                unknown[r] += 1


def _known(hidden: bytearray, unknown: Sequence[int], relations: Sequence[Sequence[int]],
           member_of: Sequence[Sequence[int]]) -> tuple[bytearray, dict[int, int], list[int]]:
    """What a viewer of the shown cells can work out: each cell known, and for those worked out the relation that
    gave it (one unknown left in it); and how many figures of each relation are still unknown."""
    known = bytearray(hidden.translate(_FLIP))
    left = list(unknown)
    queue = [r for r, n in enumerate(left) if n == 1]
    via: dict[int, int] = {}
    while queue:
        r = queue.pop()
        if left[r] != 1:
            continue
        cell = next(m for m in relations[r] if not known[m])
        known[cell] = 1
        via[cell] = r
        for other in member_of[cell]:
            left[other] -= 1
            if left[other] == 1:
                queue.append(other)
    return known, via, left


@dataclass
class _Round:
    """One round of mending: what the viewer knows now, and the figures chosen to hide more."""

    relations: Sequence[Sequence[int]]
    member_of: Sequence[Sequence[int]]
    weights: Sequence[int]
    hidden: bytearray
    known: bytearray
    via: Mapping[int, int]
    left: Sequence[int]  # each relation's figures still unknown
    free: Callable[[int], bool]
    chosen: set[int] = field(default_factory=set)
    touched: set[int] = field(default_factory=set)

    def complement(self, r: int, cell: int | None, depth: int = 0) -> None:
        """Choose another figure of relation ``r`` to hide (``cell``: the one it gave away, if any): a part above 0
        (the one whose hiding gives the fewest others away in turn, as the one unknown of a relation of figures
        known; then the smallest), else its total; where every other is hidden already and was itself worked out,
        go back to the relation that gave that one."""
        if r in self.touched:
            return  # mended in this round already: looked at again in the next
        self.touched.add(r)
        relation = self.relations[r]
        if any(m in self.chosen for m in relation):
            return  # another figure of it is being hidden: it is looked at again once that is done
        candidates = [m for m in relation if m != cell and self.free(m)]
        if candidates:
            total = relation[0]
            self.chosen.add(min(candidates, key=lambda m: (m == total, self._given_away(m, r), self.weights[m], m)))
            return
        for other in relation:
            if other != cell and self.hidden[other] and self.known[other] and other in self.via:
                if depth < 100:
                    self.complement(self.via[other], other, depth + 1)
                return
        raise SuppressionImpossible(f"relation {r}: no figure left to hide")

    def _given_away(self, cell: int, r: int) -> int:
        """How many relations besides ``r`` would have ``cell`` as their one unknown figure once it is hidden."""
        return sum(1 for other in self.member_of[cell] if other != r and self.left[other] == 0)


_FLIP = bytes([1, 0]) + bytes(254)  # 0 -> 1, 1 -> 0


class SuppressionImpossible(Exception):
    """Nothing a solve may change can protect a figure (only where another solve fixed the rest)."""
