#!/usr/bin/env python3
"""The pages say what the program does: the numbers they state and the command lines they show.

Numbers: the scenarios in the catalog (and in the Stripe set), the faults (`none` is not one),
the mutants, the verdicts, the reference client's base backoff step and the scenarios' backoff
floor, each found in a page by the phrases pages use for it ("24 scenarios: 24 met", "eleven
faults", "base 100 ms", "a 50 ms backoff floor", ...) and compared with what the program says
of itself (its --help, one scenario's report) and with the catalog it runs.

Commands: every `retryproof ...` in a code block or inline code names a subcommand the
program has, and only options that subcommand's --help lists.

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

    client = run(retryproof, "client", "--help")
    facts["mutants"] = len(re.search(r"--mutant TEXT:\{([^}]*)\}", client).group(1).split(","))
    facts["base step"] = int(re.search(r"--base-delay TEXT=(\d+)ms", client).group(1))

    # One scenario's report: the floor it was judged by and every verdict.
    report = run(retryproof, "run", "--filter", "commit-then-drop")
    facts["floor"] = int(re.search(r"min-backoff (\d+) ms", report).group(1))
    verdicts = report.split("  verdicts:\n")[1]
    facts["verdicts"] = len(re.findall(r"^    \S", verdicts.split("\n\n")[0], re.M))

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


def main():
    retryproof, source = sys.argv[1], sys.argv[2]
    checked = [os.path.abspath(page) for page in sys.argv[3:]] or pages(source)
    facts = program_facts(retryproof, source)
    problems = []
    commands = 0
    for page in checked:
        with open(os.path.join(source, page), encoding="utf-8") as file:
            blocks, prose = blocks_and_prose(file.read())
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
