"""Print the six values evaluate() gives each question and system:

    python demo.py

A row says "not run" where the fixture holds no run of that system.
"""
import sys
if __name__ == "__main__":  # Ctrl-C: no traceback, then Python ends by SIGINT
    sys.excepthook = lambda *error: KeyboardInterrupt in error or \
        sys.__excepthook__(*error)
from evaluate import evaluate  # noqa: E402 (after Ctrl-C is set)
from fixtures import CASES, CORPUS, RUNS  # noqa: E402

COLUMNS = ("P@%d", "R@%d", "RR@%d", "support", "coverage", "abstention")


def cell(value):
    """Return a value as the table shows it: 0.50, n/a, yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def table_lines(rows, k=2, labels=COLUMNS):
    """Return the per-question table: a header, then a line for each
    ('case system', its six values, or None for a run not made) of rows."""
    header = " ".join(label.replace("%d", str(k)) for label in labels)
    lines = ["case system | " + header]
    for where, values in rows:
        shown = "not run" if values is None else " ".join(map(cell, values))
        lines.append("%s | %s" % (where, shown))
    return lines


def fixture_rows(k=2):
    """Return ('case system', the six values, or None) for each case of the
    fixture and each system that ran any case, in the fixture's order."""
    systems = dict.fromkeys(system for runs in RUNS.values()
                            for system in runs)
    rows = []
    for name, case in CASES.items():
        for system in systems:
            run = RUNS.get(name, {}).get(system)
            values = run and evaluate(CORPUS, case, run, k=k).values()
            rows.append(("%s %s" % (name, system), values))
    return rows


# END OF THE LAB'S DEMO: a course lab's demo.py is the part above and LAB_MAIN.
# Below, the full module's options: report, compare, decide, read data files.

import os  # noqa: E402
from evaluate import (EvaluationError, gate_text, load_data,  # noqa: E402
                      load_trec, report, report_text)
from fixtures import POLICY, TAGS  # noqa: E402

USAGE = """\
usage: python demo.py [--summary] [--explain] [--json] [--gate] [--data FILE.json]
       python demo.py --qrels FILE --run FILE [--run FILE ...] [--k K]
                      [--policy FILE.json] [any option of the first line]
       python demo.py --lab FOLDER [--exercise]

  (no option)        the per-question table of the fixture
  --explain          and why each unsupported claim is unsupported
  --summary          verdicts, changes, slice means, paired tests, decisions
  --json             the report of the other options, as one line of JSON
  --gate             exit with status 3 unless every candidate is accepted,
                     saying why on standard error, a line per candidate
  --data FILE.json   any of these for your own data (see the README)
  --qrels FILE       or for TREC files: the qrels, and each --run FILE (the
  --run FILE         first the baseline) at the cutoff --k K (10 unless given),
                     with the policy of --policy FILE.json if any
  --lab FOLDER       write a course lab into a new or empty folder; with
                     --exercise, the rules of one question left to write

Exit status: 0 printed; 1 a fault in the data or the folder; 2 an option
not understood; 3 see --gate; 74 output not written; 130 interrupted; 141
the reader stopped first.
"""
OPTIONS = {  # option: whether a path (or K) follows it
    "--summary": False, "--explain": False, "--json": False, "--gate": False,
    "--data": True, "--lab": True, "--exercise": False, "--help": False,
    "-h": False, "--qrels": True, "--run": True, "--k": True, "--policy": True}
REPEATED = ("--run",)  # given once or more, in order: a tuple of paths
TREC = ("--run", "--k", "--policy")  # each needs --qrels, which needs --run
NOT_ACCEPTED = 3  # with --gate: some candidate is not accepted
# A data file's words for the contract's: an array is a list, an object has keys.
JSON_WORDS = (("a tuple", "a list"), ("a dict", "an object"), ("tuple", "list"),
              ("dict", "object"))


def fixture_data():
    """Return the fixture as a report's data: A, then B, k=2, cases tagged."""
    cases = {name: dict(case, tags=TAGS[name]) if name in TAGS else case
             for name, case in CASES.items()}
    return {"k": 2, "systems": ("A", "B"), "corpus": CORPUS, "cases": cases,
            "runs": RUNS, "policy": POLICY, "manifests": None}


def parsed(arguments):
    """Return ({option: its path, or True}, None) of the arguments, or
    (None, why) at the first one not understood."""
    given, rest = {}, list(arguments)
    while rest:
        word = rest.pop(0)
        if word not in OPTIONS:
            return None, "%s is not an option" % ascii(word)
        if word in given and word not in REPEATED:
            return None, "%s is given twice" % ascii(word)
        if OPTIONS[word] and (not rest or rest[0].startswith("-")):
            return None, "%s needs a path" % ascii(word)  # never an option
        value = rest.pop(0) if OPTIONS[word] else True
        given[word] = given.get(word, ()) + (value,) if word in REPEATED else value
    if "--data" in given and "--qrels" in given:
        return None, "--data and --qrels exclude each other"
    if ("--qrels" in given) != ("--run" in given) or "--qrels" not in given \
            and set(TREC) & set(given):
        return None, "--qrels FILE goes with --run FILE, and --k and --policy with them"
    k = given.get("--k", "10")
    if not (k.isascii() and k.isdigit()):
        return None, "--k needs a whole number, not %s" % ascii(k)[:80]
    cutoff = k.lstrip("0")  # int() refuses over 4,300 digits, even of zeros
    if not 0 < len(cutoff) <= 4 or int(cutoff) > 1000:
        return None, "--k needs a cutoff from 1 to 1000, not %s" % ascii(k)[:80]
    return given, None


def main(arguments=None):
    """Print what the options ask for (see USAGE); return the exit status."""
    given, why = parsed(sys.argv[1:] if arguments is None else arguments)
    if given is not None and ("-h" in given or "--help" in given):
        return write(USAGE)
    lab = given is not None and "--lab" in given
    if lab and set(given) <= {"--lab", "--exercise"}:
        return write_lab(given["--lab"], "--exercise" in given)
    if given is not None and not lab and "--exercise" not in given:
        return printed(given)
    why = why or "--exercise goes with --lab FOLDER, and --lab with no " \
        "other option"
    write("demo.py: %s; python demo.py --help lists the options\n" % why,
          "stderr")
    return 2


def printed(given):
    """Print the report the options ask for; return the exit status."""
    if not given:  # the fixture's table: its rows alone, as in the lab
        try:
            return write("\n".join(table_lines(fixture_rows())) + "\n")
        except EvaluationError:
            pass  # a fault: the report below says where it is
    import gc  # (not for the table: it starts faster without it)
    # A report makes millions of objects and no cycle among them: the
    # collector would only scan them, again and again, as they come.
    gc.disable()
    source = shown_path(given.get("--data", "fixtures.py"))
    if "--qrels" in given:
        source = "%s with %s" % (shown_path(given["--qrels"]), ", ".join(
            map(shown_path, given["--run"])))
    try:
        result = report(data_given(given), summary="--summary" in given
                        or "--gate" in given, explain="--explain" in given,
                        source=source)
    except EvaluationError as error:  # a fault in the data: one line
        write("%s: %s\n" % (source, in_file_words(str(error), given)), "stderr")
        return 1
    status, why = 0, ""
    if "--gate" in given:
        status = 0 if result["summary"]["accepted"] else NOT_ACCEPTED
        why = gate_text(result) + "\n"
    if "--summary" not in given:
        result["summary"] = None  # made for the gate alone
    written = write(rendered(result, given) + "\n")
    if not written:  # else its one line alone: the report is not there
        write(why, "stderr")
    return written or status


def data_given(given):
    """Return the data the options name: a JSON file's, TREC files' (with
    the policy file's, if any), or the fixture's."""
    if "--data" in given:
        return load_data(given["--data"])
    if "--qrels" not in given:
        return fixture_data()
    data = load_trec(given["--qrels"], given["--run"], k=int(given.get("--k", "10").lstrip("0")))
    if "--policy" in given:
        try:
            data["policy"] = load_data(given["--policy"])
        except EvaluationError as error:  # named as its file
            raise EvaluationError("%s: %s" % (shown_path(given["--policy"]), error))
    return data


def in_file_words(message, given):
    """Return a message as a data file's reader says it: in JSON's words
    where the data came from a JSON file, else as it is."""
    if "--data" not in given and "--policy" not in given:
        return message
    for python, json in JSON_WORDS:
        message = message.replace(python, json)
    return message


def rendered(result, options):
    """Return the report as the options ask: text, or one line of JSON."""
    if "--json" in options:
        import json  # only this option writes JSON
        return json.dumps(result, default=float, allow_nan=False)
    return report_text(result)


def shown_path(path):
    """Return a path as it is, or as ascii() shows it if it is not printable ASCII."""
    return path if path.isascii() and path.isprintable() else ascii(path)


def write(text, stream="stdout"):
    """Write text to a standard stream in ASCII; return 0, 141 or 74 (see USAGE)."""
    output = getattr(sys, stream)
    try:
        if output is None:  # started with it closed
            raise OSError("it is closed")
        binary = getattr(output, "buffer", None)  # where each write's count is known
        for start in range(0, len(text), 2 ** 20):  # no copy of all of it
            chunk = text[start:start + 2 ** 20].encode("ascii", "backslashreplace")
            while binary and chunk:  # a pipe takes part of it as its reader goes
                chunk = chunk[binary.write(chunk):]  # the rest: an error then
            output.write(chunk.decode())  # (all of it to a stream of text alone)
        output.flush()
    except OSError as error:  # closed, full or stopped: at most one line
        try:  # onto the null device: what is left in its buffer says nothing at exit
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, output.fileno())
            os.close(null)
        except (AttributeError, OSError, ValueError):
            pass  # no file under it: nothing to say at exit either
        if isinstance(error, BrokenPipeError):
            return 141
        if stream == "stdout":
            write("demo.py: cannot write the report: %s\n" % (
                error.strerror or error), "stderr")
        return 74
    return 0


# --- The course lab --------------------------------------------------------
# python demo.py --lab FOLDER [--exercise] writes it: each file cut from this
# project's own at its marker line, written aside, then moved into place.

LAB_MAIN = """

def main():
    \"\"\"Print the per-question table, or the exercise's next step.\"\"\"
    try:
        print("\\n".join(table_lines(fixture_rows())))
    except NotImplementedError:  # a rule of the exercise still to write
        import evaluate
        steps = [(len(text), text, name) for name, value in vars(
            evaluate).items() for text in getattr(getattr(
                value, "__code__", None), "co_consts", ()) if str(
                    text).startswith("not written yet: step ")]
        print("%s, `%s()`: python -m unittest checks it" % min(steps)[1:])
        return 1


if __name__ == "__main__":  # a reader that stops early: no traceback
    import signal
    signal.signal(getattr(signal, "SIGPIPE", signal.SIGINT), signal.SIG_DFL)
    sys.exit(main())
"""
LAB_CUTS = {  # file: the line that ends the lab's part, or None for all of it
    "evaluate.py": "# END OF THE CONTRACT OF ONE QUESTION",
    "test_evaluate.py": "# END OF THE LAB'S TESTS",
    "demo.py": "# END OF THE LAB'S DEMO",
    "README.md": "<!-- END OF THE LAB -->",
    "fixtures.py": "# END OF THE LAB'S FIXTURE", "LICENSE": None}
LAB_START = "<!-- START OF THE LAB -->"  # of README.md: the lab's begins
LAB_ENDINGS = {  # what the lab's file gets after its part
    "demo.py": LAB_MAIN,
    "test_evaluate.py": "\n\n__unittest = True  # a failure shows its message, "
    "not this file's lines\n\n" 'if __name__ == "__main__":\n    unittest.main()\n'}
EXERCISE = ("_retrieval_counts", "_labels", "_claim_counts", "_values",
            "_uncovered", "_unsupported_because", "_disclosed",
            "_lenient_reading", "_reviewed")  # in step order


def lab_files(exercise):
    """Return {file name: text} of the course lab, EXERCISE stubbed if exercise."""
    here = os.path.dirname(os.path.abspath(__file__))
    files = {}
    for name, marker in LAB_CUTS.items():
        with open(os.path.join(here, name), encoding="utf-8") as file:
            text = file.read()
        if marker is not None:
            lines = text.split("\n")
            if LAB_START in lines:  # the title, then the lab's part
                lines = lines[:1] + lines[lines.index(LAB_START) + 1:]
            end = next(index for index, line in enumerate(lines)
                       if line.startswith(marker))
            if name == "evaluate.py":
                end += 2  # the END line and the rule below it
            text = "\n".join(lines[:end]).rstrip("\n") + "\n"
        files[name] = text + LAB_ENDINGS.get(name, "")
    if exercise:
        files["evaluate.py"] = stubbed(files["evaluate.py"], EXERCISE)
    return files


def stubbed(source, names):
    """Return source with each named function's body, past its docstring,
    a raise that names its step (of EXERCISE)."""
    import ast
    lines = source.split("\n")
    nodes = [node for node in ast.parse(source).body
             if isinstance(node, ast.FunctionDef) and node.name in names]
    for node in sorted(nodes, key=lambda node: -node.lineno):  # bottom up
        indent = " " * node.body[0].col_offset
        lines[node.body[0].end_lineno:node.end_lineno] = [
            indent + 'raise NotImplementedError("not written yet: step %d")'
            % (EXERCISE.index(node.name) + 1)]
    return "\n".join(lines)


def placed(aside, target, moved):
    """Move the folder aside to target or, when target is an empty folder
    already (whoever sits in it stays there), its files into target, each
    noted in moved."""
    if not os.path.isdir(target):
        os.rename(aside, target)
        return
    for name in os.listdir(aside):
        os.rename(os.path.join(aside, name), os.path.join(target, name))
        moved.append(os.path.join(target, name))
    os.rmdir(aside)


def write_lab(folder, exercise):
    """Write the course lab into a new or empty folder, whole or not at all
    (written aside, then moved into place); return the exit status."""
    import shutil
    import signal
    import tempfile
    target = above = os.path.abspath(folder)
    made, moved = [], []  # what this call made: undone on any fault
    held = getattr(signal, "pthread_sigmask", lambda *signals: None)  # not on Windows
    held(signal.SIG_BLOCK, {signal.SIGINT})  # Ctrl-C waits: the lab whole or undone
    try:
        files = lab_files(exercise)  # all read before anything is written
        if os.path.lexists(target) and (not os.path.isdir(target)
                                        or os.listdir(target)):
            raise OSError("is not a new or empty folder")
        while not os.path.lexists(os.path.dirname(above)):  # folders to make
            above = os.path.dirname(above)
            made.insert(0, above)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        aside = tempfile.mkdtemp(".part", ".lab-", os.path.dirname(target))
        made.append(aside)
        umask = os.umask(0o22)  # read by setting it, then put back
        os.umask(umask)
        os.chmod(aside, 0o777 & ~umask)  # as a folder made new would be
        for name, text in files.items():
            with open(os.path.join(aside, name), "x", encoding="utf-8") as file:
                file.write(text)
        placed(aside, target, moved)
    except (OSError, StopIteration) as error:
        for path in moved:
            os.remove(path)
        for path in made[::-1]:
            shutil.rmtree(path, ignore_errors=True)
        reason = getattr(error, "strerror", None) or str(error) or "a marker is missing"
        write("demo.py --lab %s: %s\n" % (ascii(folder), reason), "stderr")
        return 1
    finally:
        held(signal.SIG_UNBLOCK, {signal.SIGINT})  # then it ends the run, if pressed
    steps = "python demo.py and python -m unittest"
    if exercise:
        steps = "python -m unittest: each failure names the next rule to write"
    return write("wrote the course lab%s into %s: cd there, then %s\n" % (
        " exercise" * exercise, ascii(folder), steps))


if __name__ == "__main__":
    if sys.argv[1:]:  # a report or a lab: Ctrl-C ends it at once, unwinding nothing
        import signal  # (not for the plain table: it starts faster without it)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
