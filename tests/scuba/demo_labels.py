"""Control labels and menu names quoted in SCUBA's demonstrations (``memory`` in ``data/test_demo_aug.json``),
checked against the pages a replay of the template's demonstration visits.

A demonstration is a few samples, each ``TASK: ...`` (the sample's own instruction, with its data values) and
``EXPERIENCE: ...`` (the plan a person followed in the real Salesforce UI). The labels are taken from the
experience: quoted strings (curly or straight quotes), Title-Case runs after an action verb (``Click New
Report``, ``open the Filters panel``), the steps of a menu path (``List View Controls > New``) and field labels
of ``Label: value`` bullets. Left out: a sample's own data (a value its TASK marks in brackets or quotes, or a
phrase of its TASK text in the same case: a name it typed, a field value it chose, see :func:`is_sample_data`),
the values a plan types (quoted after a colon or "enter"), CamelCase identifiers, code, numbers and addresses.

A trajectory's vocabulary is every accessible name, text and select option (and the selected value of a
select) on every page of every step, the page titles, and nothing typed into a text box: a search term the
demonstration types must be found as the thing it finds (``“reports,”`` as the link ``Reports``).
Matching ignores case, punctuation, ``&``/``and`` and a plural ``s``; a label is present when its words occur
as one phrase in a vocabulary entry at most :data:`EXTRA_WORDS` words longer than the label.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

EXTRA_WORDS = 3  # a label matches inside a vocabulary entry at most this many words longer than the label
OBSERVED_OPTIONS = 30  # options of a select an observation keeps (pytest_cua/envs/browser/dom_script.js)
MAX_LABEL_WORDS = 10  # longer quoted strings are sentences or typed text, not labels
SHORT_VALUE_WORDS = 4  # a bracketed TASK value this short is data as a whole and in its parts

VERBS = ("click", "clicked", "clicking", "select", "selected", "choose", "chose", "open", "opened", "check",
         "uncheck", "enable", "disable", "set", "go to", "navigate to", "switch to", "use", "under", "press",
         "expand", "toggle", "tap", "hit", "return to", "back to", "in")
_ARTICLES = r"(?:(?:the|a|an|on|its|their)\s+)*"
_TITLE_WORD = r"(?:[A-Z0-9][\w'’]*(?:[./-][\w'’]+)*)"
_RUN = rf"{_TITLE_WORD}(?:[ \t]+(?:&[ \t]+)?{_TITLE_WORD})*"  # a run stays on its line
_MENU_RUN = rf"{_TITLE_WORD}(?:[ \t]+(?:&[ \t]+|(?:to|of|for|by|as|in|with)[ \t]+)?{_TITLE_WORD})*"  # "Select Fields to Display"
_VERB_ALTERNATIVES = "|".join(v.replace(" ", r"\s+") for v in VERBS)
_VERB_RUN = re.compile(rf"\b(?i:{_VERB_ALTERNATIVES})\s+(?i:{_ARTICLES})(?!Up\b)({_RUN})")  # not "Set Up Roles"
_QUOTED = (re.compile(r"“([^”\n]{1,120})”"), re.compile(r'"([^"\n]{1,120})"'), re.compile(r"‘([^’\n]{1,120})’"),
           re.compile(r"(?<![\w’'])'([^'\n]{1,120})'(?![\w])"))
_BULLET_LABEL = re.compile(rf"^[ \t]*(?:[-*•]|\d+[).])?[ \t]*({_RUN})[ \t]*:[ \t]*\S", re.MULTILINE)
# a "Step: details" bullet starting with one of these is a step of the plan, not a "Label: value" bullet
_STEP_VERBS = frozenset({"access", "apply", "authenticate", "build", "change", "configure",
                         "confirm", "create", "define", "edit", "enable", "finish", "go", "handle", "log",
                         "navigate", "open", "proceed", "remove", "save", "search", "select", "set", "start",
                         "switch", "update", "verify"})
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]*[a-z][A-Z][A-Za-z0-9_]*")  # MyLeadRPT: a name typed, not a label
_TYPED_BEFORE = re.compile(r"(?::|\b(?i:enter|entered|enters))\s*$")
_SAMPLE = re.compile(r"Sample\s+\d+\s*:", re.IGNORECASE)
_CODE = re.compile(r"[()=<>{}\[\]]|__c\b|\b[A-Z]{2,}\(|^\W*[\d.,%$\s]+\W*$|@|\.com\b|https?:")
_AX_LINE = re.compile(r'^\s*(?:\[e\d+\]\s+)?([A-Za-z]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*(?:\[(.*)\])?\s*$')
_AX_ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
# words a plan puts before a label that never begin one of our labels ("Click Save", "Set Report Name: X")
_LEADING_WORDS = re.compile(r"^(?:(?:the|a|an|then|click|clicked|enter|set|navigate\s+to|go\s+to|return\s+to|back\s+to|"
                            r"navigate|type|choose|open|in|and|under|from)\s+(?!up\b))+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^.*?\w[’']s\s+")
_SELECT_ROLES = frozenset({"combobox", "listbox"})


@dataclass(frozen=True)
class Sample:
    """One sample of a demonstration: its instruction (with its own data values) and its experience."""

    task: str
    experience: str


@dataclass(frozen=True)
class Visit:
    """What a trajectory saw: the task, its template, the URLs of its pages and their vocabulary."""

    task_id: str
    template: str | None
    urls: tuple[str, ...]
    vocabulary: frozenset[str] = field(repr=False)
    cut_selects: frozenset[str] = frozenset()


@dataclass
class Absence:
    """Labels of a template's demonstration that no page of the task's trajectory shows."""

    task_id: str
    template: str | None
    labels: list[str]
    urls: tuple[str, ...] = field(default_factory=tuple)
    cut_selects: frozenset[str] = frozenset()


# --- text normalisation ------------------------------------------------------------------------------------

def words(text: str, singular: bool = True, keep_case: bool = False) -> tuple[str, ...]:
    """Words of a label or page text: punctuation dropped, ``&`` read as ``and``, lower case unless
    ``keep_case``, a plural ``s`` dropped unless ``singular`` is false (``Reports`` and ``report`` are the same
    word)."""
    text = text.replace("&", " and ").replace("’", "'")
    out = []
    for word in re.findall(r"[A-Za-z0-9]+", text):
        word = word if keep_case else word.lower()
        if singular and len(word) > 3 and word[-1] in "sS" and word[-2:].lower() != "ss":
            word = word[:-1]
        out.append(word)
    return tuple(out)


def task_sentences(task: str, keep_case: bool = True) -> list[tuple[str, ...]]:
    """The sentences of a TASK text as words in their number (and case, with ``keep_case``)."""
    sentences = re.split(r"(?:^|[.!?]\s+|\n+)(?:\d+[.)]\s*)?", task)
    return [words(sentence, singular=False, keep_case=keep_case) for sentence in sentences if sentence.strip()]


def contains_phrase(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as consecutive words."""
    n = len(needle)
    if n == 0 or n > len(haystack):
        return False
    return any(tuple(haystack[i:i + n]) == tuple(needle) for i in range(len(haystack) - n + 1))


# --- the demonstration ---------------------------------------------------------------------------------------

def split_samples(memory: str) -> list[Sample]:
    """The samples of a demonstration text, each split into its TASK and EXPERIENCE parts."""
    samples = []
    for chunk in _SAMPLE.split(memory)[1:]:
        task, sep, experience = chunk.partition("EXPERIENCE:")
        if not sep:
            task, experience = chunk, ""
        samples.append(Sample(task=task.replace("TASK:", "", 1).strip(), experience=experience.strip()))
    return samples


def clean_label(text: str) -> str:
    """A candidate label without surrounding punctuation and quotes, a leading article or plan word ("Click",
    "Set", "Navigate to") and a possessive ("Setup’s Quick Find" gives "Quick Find")."""
    text = re.sub(r"\s+", " ", text).strip(" \t,.;:!?'\"“”‘’")
    stripped = _POSSESSIVE.sub("", _LEADING_WORDS.sub("", text + " ")).strip()
    if stripped[:1].islower() and text[:1].isupper():  # "Set as Active", "Set up Roles": the verb is the label's
        stripped = text
    return stripped.strip(" ,.;:!?'\"“”‘’")


def is_label_like(text: str) -> bool:
    """Whether a quoted or extracted string can be the name of a control: a few words, not code, a formula,
    a number, an address, a URL or a CamelCase identifier (a record name the sample typed)."""
    n = len(words(text))
    return 0 < n <= MAX_LABEL_WORDS and not _CODE.search(text) and not _IDENTIFIER.fullmatch(text)


def typed_values(text: str) -> list[str]:
    """Quoted strings a plan types as a value: after a colon or ``enter`` (``Enter Subject: “Meeting to
    Discuss Implementation Timeline.”``, ``enter “(1 OR 2) AND 3”``), not labels of controls."""
    found = []
    for pattern in _QUOTED:
        for match in pattern.finditer(text):
            if _TYPED_BEFORE.search(text[max(0, match.start() - 12):match.start()]):
                found.append(clean_label(match.group(1)))
    return found


def quoted_phrases(text: str) -> list[str]:
    """Strings quoted in ``text`` with curly or straight, double or single quotes; a search result quoted as
    ``name — kind`` gives its two parts."""
    found = []
    for pattern in _QUOTED:
        for match in pattern.finditer(text):
            found += [clean_label(part) for part in match.group(1).split("—")]
    return found


def verb_phrases(text: str) -> list[str]:
    """Title-Case runs right after an action verb: ``Click New Report`` gives ``New Report``, ``open the
    Filters panel`` gives ``Filters`` (a capitalised verb, or ``in`` before a capitalised word, right after a
    capitalised word is part of a name: ``Permission Set Group Assignments`` and ``Permission Sets in Group``
    give nothing)."""
    found = []
    for match in _VERB_RUN.finditer(text):
        before = re.search(r"[“\"‘'(]?(\w\S*)\s+$", text[:match.start()])
        inside_name = before and before.group(1)[0].isupper() and before.group(1)[-1].isalnum()
        if inside_name and (match.group(0)[0].isupper() or re.match(r"in\s+[A-Z]", match.group(0))):
            continue  # "Permission Set Group Assignments", "Permission Sets in Group": the verb is inside a name
        found.append(clean_label(match.group(1)))
    return found


def menu_path_phrases(text: str) -> list[str]:
    """The steps of a menu path written with ``>`` or ``→``: ``Open List View Controls > New`` gives ``List View
    Controls`` and ``New`` (the Title-Case run at the end of the left part and the start of the right part)."""
    found = []
    for line in text.splitlines():
        parts = re.split(r"[>→]", line)
        if len(parts) < 2:
            continue
        for i, part in enumerate(parts):
            if i > 0:
                start = re.match(rf"\s*{_ARTICLES}({_MENU_RUN})", part)
                if start:
                    found.append(clean_label(start.group(1)))
            if i < len(parts) - 1:
                end = re.search(rf"({_MENU_RUN})\s*$", part.rstrip(" ([)"))
                if end:
                    found.append(clean_label(end.group(1)))
    return found


def bullet_labels(text: str) -> list[str]:
    """Field labels of ``Label: value`` steps (``- Chart Title: Leads by Source`` gives ``Chart Title``); a
    bullet starting with a verb of :data:`_STEP_VERBS` is a step of the plan (``- Configure Navigation Items:
    ...``, ``- Select Object: Contact``) and gives nothing."""
    return [clean_label(m.group(1)) for m in _BULLET_LABEL.finditer(text)
            if m.group(1).split()[0].lower() not in _STEP_VERBS]


def task_values(task: str) -> list[str]:
    """The values a TASK text marks: in brackets (``[MyLeadRPT]``) or quotes (``"John Doe"``)."""
    marked = re.findall(r"\[([^\]]*)\]", task)
    for value in list(marked):
        marked += quoted_phrases(value)
    return marked + quoted_phrases(task)


def is_sample_data(label: str, samples: Iterable[Sample]) -> bool:
    """Whether ``label`` is a data value of a sample:

    - a value the TASK marks in brackets or quotes, any case, plural or not (``Tasks`` for ``[Task]``), or a
      phrase inside a short one (at most :data:`SHORT_VALUE_WORDS` words) in the same number (``Email`` in
      ``[email field]``; a long bracket is an instruction, ``[set lockout effective period to forever]``);
    - or a phrase of a TASK sentence in the same case and number (the panel ``Filters`` is not the data of
      "add a standard filter", the radio ``Existing Account`` not that of "matches an existing account"); a
      one-word label does not count as the first word of a sentence (``Convert the lead ...``); a label in
      lower case (a search term, ``“alice bob”``) is compared in any case.
    """
    keep_case = label != label.lower()
    exact, loose = words(label, singular=False, keep_case=keep_case), words(label)
    for sample in samples:
        for value in task_values(sample.task):
            inside = words(value, singular=False)
            if words(value) == loose or (len(inside) <= SHORT_VALUE_WORDS
                                         and contains_phrase(inside, words(label, singular=False))):
                return True
        for sentence in task_sentences(sample.task, keep_case):
            if contains_phrase(sentence[1:] if len(exact) == 1 else sentence, exact):
                return True
    return False


def demonstration_labels(memory: str) -> list[str]:
    """The control labels and menu names a demonstration text names, minus its samples' own data and the
    values its plans type, in order of first mention (one spelling per label)."""
    samples = split_samples(memory)
    labels: dict[tuple[str, ...], str] = {}
    for sample in samples:
        text = sample.experience
        typed = {words(value) for value in typed_values(text)}
        for label in quoted_phrases(text) + verb_phrases(text) + menu_path_phrases(text) + bullet_labels(text):
            key = words(label)
            if key in labels or key in typed or not is_label_like(label) or is_sample_data(label, samples):
                continue
            labels[key] = label
    return list(labels.values())


# --- the trajectory ------------------------------------------------------------------------------------------

def unescape(text: str) -> str:
    """An accessibility-tree string without its backslash escapes."""
    return re.sub(r"\\(.)", r"\1", text)


def with_short_forms(entries: Iterable[str]) -> set[str]:
    """Entries plus their text before a parenthesis (``Forever (must be reset by admin)`` gives ``Forever``)."""
    out = set()
    for entry in entries:
        out.add(entry)
        short = entry.split(" (", 1)[0].strip()
        if short and short != entry:
            out.add(short)
    return out


def axtree_vocabulary(axtree: str) -> set[str]:
    """Every accessible name, text and select option of one page's accessibility tree (the selected value of a
    select too, never what was typed into a text box)."""
    vocabulary: set[str] = set()
    for line in axtree.splitlines():
        match = _AX_LINE.match(line)
        if not match:
            continue
        role, name, attrs = match.group(1), match.group(2), match.group(3) or ""
        if name:
            vocabulary.add(unescape(name))
        for key, value in _AX_ATTR.findall(attrs):
            if key == "options":
                vocabulary.update(o.strip() for o in unescape(value).split(" | ") if o.strip())
            elif key == "value" and role in _SELECT_ROLES:
                vocabulary.add(unescape(value))
    return with_short_forms(vocabulary)


def cut_selects(axtree: str) -> set[str]:
    """Names of the selects of a page whose options the observation cut at :data:`OBSERVED_OPTIONS` (the
    browser's page outline keeps the first 30 options of a select): a label absent from such a page may be
    one of the options left out."""
    names = set()
    for line in axtree.splitlines():
        match = _AX_LINE.match(line)
        if not match or not match.group(3):
            continue
        options = dict(_AX_ATTR.findall(match.group(3))).get("options")
        if options is not None and len(options.split(" | ")) >= OBSERVED_OPTIONS:
            names.add(unescape(match.group(2) or match.group(1)))
    return names


def read_steps(task_dir: Path) -> list[Mapping[str, Any]]:
    """The steps of one task's trajectory: ``steps.jsonl``, else the steps of ``trajectory.json``."""
    lines = task_dir / "steps.jsonl"
    if lines.exists():
        return [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines() if line.strip()]
    whole = task_dir / "trajectory.json"
    if whole.exists():
        return list(json.loads(whole.read_text(encoding="utf-8")).get("steps", []))
    return []


def read_template(task_dir: Path) -> str | None:
    """The template named in a trajectory's summary (``trajectory.json``), if there is one."""
    whole = task_dir / "trajectory.json"
    if not whole.exists():
        return None
    task = json.loads(whole.read_text(encoding="utf-8")).get("summary", {}).get("task", {})
    return task.get("template")


def read_visit(task_dir: Path) -> Visit:
    """The pages of one task's trajectory: URLs in order of first visit and the vocabulary of every page."""
    urls: list[str] = []
    vocabulary: set[str] = set()
    cut: set[str] = set()
    for step in read_steps(task_dir):
        observation = step.get("observation") or {}
        url = observation.get("url")
        if url and url not in urls:
            urls.append(url)
        vocabulary |= axtree_vocabulary(observation.get("axtree") or "")
        cut |= cut_selects(observation.get("axtree") or "")
        if observation.get("title"):
            vocabulary.add(observation["title"])
    return Visit(task_id=task_dir.name, template=read_template(task_dir), urls=tuple(urls),
                 vocabulary=frozenset(vocabulary), cut_selects=frozenset(cut))


def task_dirs(run_dir: Path) -> Iterator[Path]:
    """The task folders of a run's trajectories (``<reports>/trajectories/<run id>``), by task id."""
    for path in sorted(run_dir.iterdir()):
        if path.is_dir() and ((path / "steps.jsonl").exists() or (path / "trajectory.json").exists()):
            yield path


# --- the check -----------------------------------------------------------------------------------------------

def is_present(label: str, vocabulary: Iterable[str]) -> bool:
    """Whether a label occurs on a page: its words as one phrase in an accessible name, text or option at most
    :data:`EXTRA_WORDS` words longer."""
    wanted = words(label)
    if not wanted:
        return True
    for entry in vocabulary:
        have = words(entry)
        if len(have) <= len(wanted) + EXTRA_WORDS and contains_phrase(have, wanted):
            return True
    return False


def load_exceptions(path: Path) -> dict[tuple[str, ...], str]:
    """Phrases of the demonstrations that are not controls of our pages, with the reason for each."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {words(item["phrase"]): item["reason"] for item in data["phrases"]}


def load_deviations(path: Path) -> dict[tuple[str, tuple[str, ...]], str]:
    """Controls of Salesforce's UI that a template's demonstration names and our pages do not have, by (template,
    phrase), with the reason: reported as known deviations, not as failures; a listed one that a page shows is
    stale."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(item["template"], words(item["phrase"])): item["reason"] for item in data.get("deviations", [])}


def split_deviations(report: Mapping[str, Absence], deviations: Mapping[tuple[str, tuple[str, ...]], str]
                     ) -> tuple[dict[str, Absence], list[str]]:
    """``report`` less the listed deviations of each task's template, and the deviations it held (one line each:
    ``task id (template): "label" - reason``)."""
    left: dict[str, Absence] = {}
    known: list[str] = []
    for task_id, absence in report.items():
        keep = []
        for label in absence.labels:
            reason = deviations.get((str(absence.template), words(label)))
            if reason is None:
                keep.append(label)
            else:
                known.append(f'{task_id} ({absence.template}): "{label}" - {reason}')
        if keep:
            left[task_id] = Absence(task_id, absence.template, keep, absence.urls, absence.cut_selects)
    return left, known


def stale_deviations(visits: Iterable[Visit], deviations: Mapping[tuple[str, tuple[str, ...]], str]) -> list[str]:
    """Listed deviations of the visited templates that a visited page now shows."""
    stale = []
    for visit in visits:
        for (template, phrase), _ in deviations.items():
            if template == visit.template and is_present(" ".join(phrase), visit.vocabulary):
                stale.append(f'{template}: "{" ".join(phrase)}" is on a page {visit.task_id} visits')
    return stale


def absent_labels(memory: str, visit: Visit, exceptions: Mapping[tuple[str, ...], str] | None = None) -> list[str]:
    """The labels of a demonstration that no page of a trajectory shows, minus the listed exceptions."""
    exceptions = exceptions or {}
    return [label for label in demonstration_labels(memory)
            if words(label) not in exceptions and not is_present(label, visit.vocabulary)]


def check_visits(visits: Iterable[Visit], memories: Mapping[str, str],
                 exceptions: Mapping[tuple[str, ...], str] | None = None) -> dict[str, Absence]:
    """Absent labels by task id, for every visit whose task has a demonstration (tasks with none are left out).
    A visit without a page is reported with every label absent."""
    report: dict[str, Absence] = {}
    for visit in visits:
        memory = memories.get(visit.task_id)
        if not memory:
            continue
        absent = absent_labels(memory, visit, exceptions)
        if absent:
            report[visit.task_id] = Absence(visit.task_id, visit.template, absent, visit.urls, visit.cut_selects)
    return report


def release_records(release: Path) -> list[Mapping[str, Any]]:
    """The records of the release's demonstration-augmented file."""
    return json.loads((release / "data" / "test_demo_aug.json").read_text(encoding="utf-8"))


def first_task_per_template(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Template name -> its first task id (the lowest id)."""
    first: dict[str, str] = {}
    for record in sorted(records, key=lambda r: r["task_id"]):
        first.setdefault(record["query_template_name"], record["task_id"])
    return first


def format_absences(report: Mapping[str, Absence]) -> str:
    """One line per task: ``task id (template) -> "label", ... - visited: URL, ...`` (and the selects whose
    options were cut, where an absent label may hide)."""
    lines = []
    for task_id in sorted(report):
        item = report[task_id]
        labels = ", ".join(f'"{label}"' for label in item.labels)
        line = f"{task_id} ({item.template}) -> {labels} - visited: {', '.join(item.urls) or 'no page'}"
        if item.cut_selects:
            line += f" (options cut at {OBSERVED_OPTIONS} in: {', '.join(sorted(item.cut_selects))})"
        lines.append(line)
    return "\n".join(lines)
