#!/usr/bin/env python3
"""The pages say what the program does: the numbers they state and the command lines they show.

Numbers: the scenarios in the catalog (and in the Stripe set), the faults (`none` is not one),
the mutants, the verdicts, the reference client's base backoff step and the scenarios' backoff
floor, each found in a page by the phrases pages use for it ("24 scenarios: 24 met", "eleven
faults", "base 100 ms", "a 50 ms backoff floor", ...) and compared with what the program says
of itself (its --help, one scenario's report) and with the catalog it runs.

Commands: every `retryproof ...` in a code block or inline code names a subcommand the
program has, and only options that subcommand's --help lists.

Files and names: every file of the source tree a page names in a code span exists
(`provider/fault.cpp`; a glob such as `provider/http_connection.*` or
`scenarios/evidence/checkers/<id>.cpp` matches one), and a name a page places in a file
(`fault_catalogue()` in `provider/fault.cpp`, `ProviderCore::handle` (`provider/provider_core.cpp`))
is found in it: a "how to add" list or a walk through the code that names a file or a function
that is not there fails.

Links: a relative Markdown link leads to a file that exists, and its #anchor to a heading there;
a section cited by name ("docs/provider.md, *Memory*") is a heading of that page, in the pages
and in the source tree's comments alike.

Catalogues: a table preceded by "<!-- doc_facts_test: a row per fault -->" (or verdict, mutant;
"a column per profile") has exactly one row (column) per entry of the program's catalogue, so
that an entry added to fault_catalogue(), verdict_table(), mutant_catalogue() or
profile_catalogue() without its row in the docs fails. The pages the "how to add" lists of
docs/architecture.md send a contributor to must carry those tables (REQUIRED_TABLES), and
architecture.md's *Data in tables* ("a row per table") names every catalogue the source
defines (a `const std::vector<...>& name_catalogue()`, `_table()`, `_stages()` or `_formats()`).

A paragraph that reports a past state on purpose (a study of an older catalog) is preceded by
the line "<!-- doc_facts_test: historical -->": the paragraph is not checked for numbers.

Usage: doc_facts_test.py RETRYPROOF SOURCE_DIR [PAGE...]   (default: the project's pages)
"""

import glob
import os
import re
import shlex
import subprocess
import sys

HISTORICAL = "<!-- doc_facts_test: historical -->"
WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three "
    "twenty-four twenty-five twenty-six".split())}
NUMBER = r"(\d+|" + "|".join(sorted(WORDS, key=len, reverse=True)) + r")"


def number(text):
    return int(text) if text.isdigit() else WORDS[text.lower()]


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False).stdout


def program_facts(retryproof, source):
    """What the program says of itself, and the scenario sets it runs."""
    facts = {}
    top = run(retryproof, "--help")
    facts["subcommands"] = set(re.findall(r"^  ([\w-]+)\s{2,}", top.split("Subcommands:")[1], re.M))
    facts["options"] = {"": set(re.findall(r"--[\w-]+", top))}
    for sub in facts["subcommands"]:
        facts["options"][sub] = set(re.findall(r"(?<![\w-])--[\w-]+", run(retryproof, sub, "--help")))

    provider = run(retryproof, "provider", "--help")
    faults = re.findall(r"^  ([a-z0-9-]+)(?:\[?:<[a-z]+>\]?)?\s{2,}",
                        provider.split("Faults a plan can name")[1], re.M)
    facts["faults"] = len([f for f in faults if f != "none"])
    facts["fault names"] = set(faults)
    facts["profile names"] = set(
        re.search(r"--profile TEXT:\{([^}]*)\}", provider).group(1).split(","))

    client = run(retryproof, "client", "--help")
    facts["mutant names"] = set(re.search(r"--mutant TEXT:\{([^}]*)\}", client).group(1).split(","))
    facts["mutants"] = len(facts["mutant names"])
    facts["base step"] = int(re.search(r"--base-delay TEXT=(\d+)ms", client).group(1))

    # One scenario's report: the floor it was judged by and every verdict.
    report = run(retryproof, "run", "--filter", "commit-then-drop")
    facts["floor"] = int(re.search(r"min-backoff (\d+) ms", report).group(1))
    verdicts = report.split("  verdicts:\n")[1]
    facts["verdict names"] = set(re.findall(r"^    (\S+)", verdicts.split("\n\n")[0], re.M))
    facts["verdicts"] = len(facts["verdict names"])

    facts["catalog"] = len(glob.glob(os.path.join(source, "scenarios/catalog/*.json")))
    # What `run` with no paths runs: the catalog and the storm set beside it.
    facts["default run"] = facts["catalog"] + len(glob.glob(os.path.join(source, "scenarios/storm/*.json")))
    facts["stripe set"] = len(glob.glob(os.path.join(source, "scenarios/stripe/*.json")))
    facts["source"] = source
    return facts


# (fact, pattern): the first group of a match is the number the page states for the fact.
NUMBER_PHRASES = [
    ("faults", NUMBER + r" faults\b"),
    ("mutants", NUMBER + r" (?:mutants|deliberately broken clients)\b"),
    ("verdicts", NUMBER + r" verdicts\b"),
    ("catalog", r"catalog[^.;:]{0,40}?\(" + NUMBER + r" scenarios\)"),
    ("catalog", r"catalog[`/]*, " + NUMBER + r" scenarios\b"),
    ("catalog", r"catalog has " + NUMBER + r"\b"),
    ("default run", r"\[\d+/(\d+)\] (?:PASS|FAIL)\b"),
    ("base step", r"backoff from (\d+) ms"),
    ("base step", r"\(base (\d+) ms"),
    ("base step", r"base step (?:of )?(\d+) ms"),
    ("floor", r"(\d+) ms (?:backoff )?floor\b"),
    ("floor", r"floor is (\d+) ms"),
    ("floor", r"half the base step, (\d+) ms"),
    ("floor", r"baseDelay` \((\d+) ms by default\)"),
]


def pages(source):
    found = ["README.md", "CONTRIBUTING.md", "examples/README.md",
             "examples/libraries/FINDINGS.md"]
    found += sorted(glob.glob("docs/*.md", root_dir=source))
    found += sorted(glob.glob("examples/*/README.md", root_dir=source))
    return found


def blocks_and_prose(text):
    """Code blocks (lists of lines) and prose paragraphs (each joined into one line)."""
    blocks, prose, block, paragraph, inside, skip = [], [], None, [], False, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            if inside:
                blocks.append(block)
            else:
                block = []
            inside = not inside
            continue
        if inside:
            block.append(line)
        elif line.strip() == HISTORICAL:
            skip = True
        elif line.strip():
            paragraph.append(line)
        else:
            if paragraph:
                prose.append((" ".join(paragraph), skip))
            paragraph, skip = [], False
    if paragraph:
        prose.append((" ".join(paragraph), skip))
    return blocks, prose


def check_numbers(page, lines, facts, problems):
    for line in lines:
        for fact, pattern in NUMBER_PHRASES:
            for match in re.finditer(pattern, line, re.I):
                stated = number(match.group(1))
                if stated != facts[fact]:
                    problems.append(f"{page}: \"{match.group(0)}\" says {stated} for the {fact}; "
                                    f"the program says {facts[fact]}")


def check_run_summaries(page, block, facts, problems):
    """`N scenarios: N met ...` after a run (in a code block or a paragraph): what `run` with
    no paths runs (the catalog and the storm set), the catalog's count when the command shown
    names scenarios/catalog, or the Stripe set's or an SDK set's when the run is of it."""
    stripe = any("scenarios/stripe" in line for line in block)
    sets = {m for line in block for m in re.findall(r"scenarios/sdks/([\w-]+)", line)}
    sdk = len(sets) == 1
    if sdk:
        name = sets.pop()
        label, expected = f"scenarios/sdks/{name} set", len(glob.glob(os.path.join(
            facts["source"], "scenarios/sdks", name, "*.json")))
    elif stripe:
        label, expected = "Stripe set", facts["stripe set"]
    elif any(re.search(r"\brun\b.*scenarios/catalog", line) for line in block):
        label, expected = "catalog", facts["catalog"]
    else:
        label, expected = "default run (the catalog and the storm set)", facts["default run"]
    if not sdk:
        # run --api: a scenario that cannot apply to the shape is skipped, and says so.
        expected -= sum(1 for line in block if re.match(r"skipped \S+ on the .* API: ", line))
    for line in block:
        match = re.search(r"\b(\d+) scenarios: (\d+) met their\s+expectations", line)
        if match and int(match.group(1)) != expected:
            problems.append(f"{page}: \"{match.group(0)}\": the {label}"
                            f" has {expected} scenarios")


PROGRAM = re.compile(r"^(?:[\w./-]*/)?retryproof$|^\$R$|^\$retryproof$|^\$\{retryproof\}$")
OPERATORS = {"|", "||", "&", "&&", ";", ">", ">>", "<", "2>", "2>&1", ")"}
COMMAND_STARTS = {"-", "run:", "exec", "time", "sudo", "then", "do", "!"}


def commands_in(text):
    """The token lists of every retryproof invocation in a line of shell."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: a fragment, not a command
        return []
    found = []
    for i, token in enumerate(tokens):
        if not PROGRAM.match(token) or i + 1 >= len(tokens) or tokens[i + 1] in OPERATORS:
            continue
        if tokens[i + 1].endswith(":") or tokens[i + 1] in ("...", "\u2026"):
            continue  # the program's own output ("retryproof run: seed 0, ..."), or prose
        # A bare name is a command only where a command starts (a path or $R is one anywhere):
        # "The retryproof package" in a YAML step's name is not.
        if token == "retryproof" and i > 0 and not (
                tokens[i - 1] in OPERATORS or tokens[i - 1] in COMMAND_STARTS or
                re.fullmatch(r"[A-Za-z_]\w*=\S*", tokens[i - 1])):
            continue
        words = []
        for word in tokens[i + 1:]:
            if word in OPERATORS:
                break
            words.append(word)
        found.append(words)
    return found


def check_command(page, words, facts, problems):
    shown = "retryproof " + " ".join(words)
    if words[0].startswith("-"):
        sub = ""
    elif words[0] in facts["subcommands"]:
        sub, words = words[0], words[1:]
    else:
        problems.append(f"{page}: `{shown}`: retryproof has no subcommand {words[0]!r} "
                        f"(it has {', '.join(sorted(facts['subcommands']))})")
        return
    for word in words:
        option = word.split("=", 1)[0]
        if re.fullmatch(r"--[\w-]+", option) and option not in facts["options"][sub]:
            problems.append(f"{page}: `{shown}`: retryproof {sub or ''} has no option {option} "
                            f"(see retryproof {sub} --help)".replace("  ", " "))


# --- Files and names --------------------------------------------------------------------------

# A code span that names a file or folder of the source tree: a path whose first part is one of
# the tree's top folders. <placeholders>, NN and {a,b} alternatives stand for any name.
PATH_SPAN = re.compile(r"^[\w.-]+(?:/[\w.*<>{},+-]+)+/?$")
# `name` in `path`, `name` (`path`, (`name`, `path`), `name()` (path): a name the page places
# in a file.
NAME = r"`(~?[A-Za-z_][\w:~]*)(?:<[^`]*>)?(?:\([^`]*\))?`"
FILE = r"`?([\w.-]+(?:/[\w.*<>{}+-]+)+)`?"
NAME_IN_FILE = re.compile(rf"{NAME},? (?:in |\(){FILE}|(?<=\(){NAME}, {FILE}")
CODE_FILES = (".cpp", ".hpp", ".h", ".py", ".js", ".mjs", ".sh", ".cmake", ".txt", ".json")


def top_folders(source):
    return {name for name in os.listdir(source)
            if os.path.isdir(os.path.join(source, name)) and name not in ("build", ".git")}


def globs_of(path):
    """The glob patterns a page's path stands for."""
    pattern = re.sub(r"<[^>]*>", "*", path)
    pattern = re.sub(r"(?<![\w])NN(?=-)", "*", pattern)
    braces = re.search(r"\{([^}]*)\}", pattern)
    if braces:
        return [p for choice in braces.group(1).split(",")
                for p in globs_of(pattern[:braces.start()] + choice + pattern[braces.end():])]
    return [pattern]


def files_matching(source, path):
    found = []
    for pattern in globs_of(path):
        found += glob.glob(pattern.rstrip("/"), root_dir=source)
    return found


def is_tree_path(span, folders):
    return bool(PATH_SPAN.match(span)) and span.split("/")[0] in folders


def check_paths(page, text, facts, problems):
    folders = facts["folders"]
    for span in sorted(set(re.findall(r"`([^`\n]+)`", text))):
        if is_tree_path(span, folders) and not files_matching(facts["source"], span):
            problems.append(f"{page}: `{span}` names a file that is not in the source tree")
    placed = {(m[0] or m[2], m[1] or m[3]) for m in NAME_IN_FILE.findall(text)}
    for name, path in sorted(placed):
        if not is_tree_path(path, folders) or not path.endswith(CODE_FILES + ("*", "/")):
            continue
        files = files_matching(facts["source"], path)
        if not files:
            continue  # said above, for a span; an unquoted path that is not there says so here
        words = [part for part in name.lstrip("~").split("::") if part]
        texts = []
        for found in files:
            full = os.path.join(facts["source"], found)
            members = [full] if os.path.isfile(full) else glob.glob(os.path.join(full, "**", "*.*"),
                                                                   recursive=True)
            for member in members:
                with open(member, encoding="utf-8", errors="replace") as file:
                    texts.append(file.read())
        missing = [w for w in words if not any(re.search(rf"\b{re.escape(w)}\b", t) for t in texts)]
        if missing:
            problems.append(f"{page}: `{name}` is said to be in `{path}`, which has no "
                            f"{', '.join(missing)}")


# --- Links ------------------------------------------------------------------------------------

def anchor(heading):
    """A heading's anchor, as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def headings(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    found, inside = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside and re.match(r"#{1,6} ", line):
            found.append(line.lstrip("#").strip())
    return found


def check_links(page, text, facts, problems):
    here = os.path.dirname(os.path.join(facts["source"], page))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, fragment = target.partition("#")
        full = os.path.normpath(os.path.join(here, path)) if path else os.path.join(
            facts["source"], page)
        if not os.path.exists(full):
            problems.append(f"{page}: the link ({target}) leads to no file")
        elif fragment and full.endswith(".md") and fragment not in {
                anchor(h) for h in headings(full)}:
            problems.append(f"{page}: the link ({target}) names no heading of {path or page}")
    # "docs/provider.md, *Memory*", "[provider.md](provider.md), *Fault plans*, *Outages*"
    for match in re.finditer(r"\b((?:docs/)?[\w-]+\.md)(?:\]\([^)]*\))?((?:,? \*[^*]+\*)+)",
                             text):
        name = os.path.basename(match.group(1))
        target = os.path.join(facts["source"], "docs", name)
        if name == "README.md" or not os.path.exists(target):
            continue
        cited_all = re.findall(r"\*([^*]+)\*", match.group(2))
        known = [h.replace("`", "") for h in headings(target)]
        for cited in cited_all:
            if not any(h == cited or h.startswith(cited + " ") for h in known):
                problems.append(f"{page}: \"{name}, *{cited}*\": {name} has no such heading")


DRIFT_PAGE = "tests/doc_facts_drift.md"  # Docs.TheCheckFindsEachKindOfDrift's page


def check_cited_in_source(facts, problems):
    """Sections of docs/ that the code's comments and other files cite by name."""
    cited = re.compile(r"docs/([\w-]+\.md),? (?:\*([^*\n]+)\*|\"([^\"\n]+)\")")
    source = facts["source"]
    for folder in sorted(facts["folders"]):
        for root, dirs, files in os.walk(os.path.join(source, folder)):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "build")]
            for name in files:
                if not name.endswith(CODE_FILES + (".md",)):
                    continue
                path = os.path.join(root, name)
                if os.path.relpath(path, source) == DRIFT_PAGE:
                    continue  # wrong on purpose
                with open(path, encoding="utf-8", errors="replace") as file:
                    text = file.read()
                for match in cited.finditer(text):
                    page = os.path.join(source, "docs", match.group(1))
                    section = match.group(2) or match.group(3)
                    known = [h.replace("`", "") for h in headings(page)] if os.path.exists(
                        page) else []
                    if not any(h == section or h.startswith(section + " ") for h in known):
                        shown = os.path.relpath(path, source)
                        problems.append(f"{shown}: cites docs/{match.group(1)}, *{section}*, "
                                        f"which is not a heading there")


# --- Catalogues -------------------------------------------------------------------------------

TABLE_MARK = re.compile(
    r"<!-- doc_facts_test: a (row|column) per (fault|verdict|mutant|profile|table) -->")
CATALOGUE_DEFINITION = re.compile(
    r"^const std::vector<[\w:]+>& (\w+(?:_catalogue|_table|_stages|_formats))\(\) \{", re.M)
# The tables the "how to add" lists of docs/architecture.md send a contributor to.
REQUIRED_TABLES = [("docs/provider.md", "row", "fault"), ("docs/proxy.md", "row", "fault"),
                   ("docs/scenarios.md", "row", "verdict"), ("docs/scenarios.md", "row", "mutant"),
                   ("docs/provider.md", "column", "profile"), ("docs/architecture.md", "row", "table")]


def source_catalogues(source, folders):
    """Every catalogue the source defines: `const std::vector<Row>& fault_catalogue() {`."""
    found = set()
    for folder in folders:
        for path in glob.glob(os.path.join(source, folder, "**", "*.cpp"), recursive=True):
            if "/tests/" in path or "node_modules" in path:
                continue
            with open(path, encoding="utf-8", errors="replace") as file:
                found |= set(CATALOGUE_DEFINITION.findall(file.read()))
    return found


def catalogue_name(cell):
    """`rate-limited[:<seconds>]` -> rate-limited; `commit-then-delay:d` -> commit-then-delay."""
    span = re.search(r"`([^`]+)`", cell)
    return re.split(r"[\[:]", span.group(1))[0] if span else None


def check_catalogue_tables(page, text, facts, problems):
    lines = text.splitlines()
    marked = set()
    for i, line in enumerate(lines):
        mark = TABLE_MARK.search(line)
        if not mark:
            continue
        axis, kind = mark.groups()
        marked.add(kind)
        table = []
        for row in lines[i + 1:]:
            if row.startswith("|"):
                table.append([c.strip() for c in row.strip().strip("|").split("|")])
            elif table or row.strip():
                break
        if kind == "table":  # every catalogue named somewhere in the table's "where" column
            named = {n for r in table[2:] for n in re.findall(r"`(\w+)\(\)`", r[1] if len(r) > 1 else "")}
            missing = sorted(facts["table names"] - named)
            if missing:
                problems.append(f"{page}: the table of every table (line {i + 2}) lacks "
                                f"{', '.join(n + '()' for n in missing)}")
            continue
        if axis == "row":
            cells = [r[0] for r in table[2:]]
        else:
            cells = table[0][1:] if table else []
        shown = [catalogue_name(c) for c in cells]
        expected = facts[f"{kind} names"]
        missing = sorted(expected - set(shown))
        extra = sorted({n for n in shown if n and n not in expected})
        doubled = sorted({n for n in shown if n and shown.count(n) > 1})
        for what, names in (("lacks", missing), ("has, though the program has none of them,",
                                                  extra), ("repeats", doubled)):
            if names:
                problems.append(f"{page}: the table of every {kind} (line {i + 2}) {what} "
                                f"{', '.join(names)}")
    return marked


def main():
    retryproof, source = sys.argv[1], sys.argv[2]
    checked = [os.path.abspath(page) for page in sys.argv[3:]] or pages(source)
    facts = program_facts(retryproof, source)
    facts["folders"] = top_folders(source)
    facts["table names"] = source_catalogues(source, facts["folders"])
    problems = []
    commands = 0
    tables = set()
    for page in checked:
        with open(os.path.join(source, page), encoding="utf-8") as file:
            text = file.read()
        blocks, prose = blocks_and_prose(text)
        page = os.path.relpath(os.path.join(source, page), source)
        outside_code = "\n".join(t for t, _ in prose)
        check_paths(page, outside_code, facts, problems)
        check_links(page, outside_code, facts, problems)
        tables |= {(page, kind) for kind in check_catalogue_tables(page, text, facts, problems)}
        current = [text for text, historical in prose if not historical]
        check_numbers(page, current, facts, problems)
        for text in current:
            check_run_summaries(page, [text], facts, problems)
        for block in blocks:
            check_numbers(page, block, facts, problems)
            check_run_summaries(page, block, facts, problems)
            joined = "\n".join(block).replace("\\\n", " ").splitlines()
            for line in joined:
                for words in commands_in(line):
                    commands += 1
                    check_command(page, words, facts, problems)
        for text, _ in prose:
            for span in re.findall(r"`([^`]+)`", text):
                for words in commands_in(span):
                    commands += 1
                    check_command(page, words, facts, problems)
    if len(sys.argv) == 3:  # the project's pages: the tables the lists name must be there
        check_cited_in_source(facts, problems)
        for page, axis, kind in REQUIRED_TABLES:
            if (page, kind) not in tables:
                problems.append(f"{page}: no table of every {kind} (marked \"<!-- doc_facts_test: "
                                f"a {axis} per {kind} -->\"): architecture.md's lists send a "
                                f"contributor there")
    if problems:
        print("doc facts: the pages disagree with the program:", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        return 1
    shown = ", ".join(f"{k} {v}" for k, v in facts.items() if isinstance(v, int))
    print(f"doc facts: {len(checked)} pages, {commands} retryproof command lines; {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
