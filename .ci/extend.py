"""Add two questions to the fixture as a student would, and check what the suite asks for.

In a folder of the four .py files alone (a course handout), in one with README.md too, and
in the course lab: add an answerable question ("pager") and an unanswerable one ("budget"),
run by A and B, to fixtures.py. python -m unittest must fail the first row table alone,
EXPECTED_SCORES, naming the rows to add; with the rows below added (worked out by hand), the
suite passes and python demo.py prints 12 rows.   python .ci/extend.py: a line per check,
then "N passed, N failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from exercise import reported  # .ci's own module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HANDOUT = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py")

NEW_QUESTIONS = '''
# Two questions added by a student.
CORPUS["pager"] = "The fictional pager rotation hands over every Tuesday at noon."
CASES["pager"] = {"question": "When does the pager rotation hand over?",
                  "relevant": ("pager",), "support": {"tuesday": ("pager",)}}
CASES["budget"] = {"question": "What is next year's budget?", "relevant": (), "support": {}}
RUNS["pager"] = {
    "A": {"retrieved": ("archive", "pager"), "claims": (("tuesday", ("pager",)),)},
    "B": {"retrieved": ("pager",), "claims": (("tuesday", ("pager",)), ("noon", ("pager",)))},
}
RUNS["budget"] = {"A": {"retrieved": (), "claims": ()},
                  "B": {"retrieved": ("launch",), "claims": (("budget", ("launch",)),)}}
'''

# Worked out by hand. pager A: one hit (pager, second) in two slots, its one
# claim supported. pager B: one hit in two slots, first; "noon" has no label.
# budget: unanswerable; A abstains, B answers with a claim nobody labelled.
NEW_ROWS = {
    "EXPECTED_SCORES": [
        '    ("pager", "A"):    (0.5, 1.0, 0.5, 1.0, 1.0, None),',
        '    ("pager", "B"):    (0.5, 1.0, 1.0, 0.5, 1.0, None),',
        '    ("budget", "A"):   (None, None, None, None, None, True),',
        '    ("budget", "B"):   (None, None, None, 0.0, None, False),'],
    "EXPECTED_EXPLANATIONS": [
        '    ("pager", "A"):    ((("tuesday", None),), (), ()),',
        '    ("pager", "B"):    ((("tuesday", None), ("noon", "no label")), (), ()),',
        '    ("budget", "A"):   ((), (), ()),',
        '    ("budget", "B"):   ((("budget", "no label"),), (), ()),'],
}
ROW_TESTS = ["test_every_fixture_run_scores_exactly"]  # the second steps aside


def add_rows(path):
    """Add NEW_ROWS to the end of each table in test_evaluate.py."""
    with open(path, encoding="utf-8") as file:
        lines = file.read().split("\n")
    for table, rows in NEW_ROWS.items():
        start = lines.index(table + " = {")
        end = lines.index("}", start)
        lines[end:end] = rows
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines))


def suite(folder):
    """Run python -m unittest in folder; return (exit status, output)."""
    process = subprocess.run([sys.executable, "-m", "unittest"], cwd=folder,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
    return process.returncode, process.stdout


def checks(folder):
    """Yield (label, problem or None) for one folder, as the module docstring says."""
    with open(os.path.join(folder, "fixtures.py"), "a", encoding="utf-8") as file:
        file.write(NEW_QUESTIONS)
    status, output = suite(folder)
    failed = sorted(re.findall(r"^FAIL: (\S+)", output, re.M))
    errors = re.findall(r"^ERROR: (\S+)", output, re.M)
    problem = None
    if failed != ROW_TESTS or errors or status == 0:
        problem = "failed %s, errors %s" % (failed, errors)
    yield "new questions fail only the first row table", problem
    named = all("('pager', 'A'), ('pager', 'B'), ('budget', 'A'), ('budget', 'B')" in part
                for part in output.split("FAIL: ")[1:])
    yield "each row table names the rows to add", None if named else "rows not named"

    add_rows(os.path.join(folder, "test_evaluate.py"))
    status, output = suite(folder)
    yield "with their rows added, the suite passes", (
        None if status == 0 else output[-1500:])
    demo = subprocess.run([sys.executable, "demo.py"], cwd=folder, stdout=subprocess.PIPE,
                          universal_newlines=True)
    rows = demo.stdout.splitlines()[1:]
    yield "python demo.py prints a row per case and system", (
        None if demo.returncode == 0 and len(rows) == 12 else demo.stdout)


def every_check():
    """Yield (label, problem or None) with the four .py files alone, then with README.md
    beside them, then in the course lab that `python demo.py --lab` writes."""
    for files in (HANDOUT, HANDOUT + ("README.md",), "the course lab"):
        with tempfile.TemporaryDirectory() as folder:
            if files == "the course lab":
                subprocess.run([sys.executable, os.path.join(ROOT, "demo.py"), "--lab",
                                folder], check=True, stdout=subprocess.DEVNULL)
            for name in files if files != "the course lab" else ():
                shutil.copy(os.path.join(ROOT, name), folder)
            where = files if files == "the course lab" else "%d files" % len(files)
            for label, problem in checks(folder):
                yield "%s, %s" % (where, label), problem


if __name__ == "__main__":
    sys.exit(reported(every_check()))
