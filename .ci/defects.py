"""Break the scorer on purpose, once per defect, and check what a student would read.

For each defect in test_evaluate.DEFECTS, a copy of the project (the four .py
files and README.md) gets that defect in evaluate.py, and `python -m unittest`
runs there. It must fail, print at most 300 lines in all, raise no error, and
print first the worked check that names the broken rule.

    python .ci/defects.py        one line per defect, then "N passed, N failed"
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from test_evaluate import DEFECTS  # noqa: E402  (after the path is set)

FILES = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py", "README.md")
MAX_LINES = 300


def broken_copy(folder, original, replacement):
    """Copy the project into folder, with one defect put into evaluate.py."""
    for name in FILES:
        shutil.copy(os.path.join(ROOT, name), folder)
    path = os.path.join(folder, "evaluate.py")
    with open(path, encoding="utf-8") as file:
        source = file.read()
    if source.count(original) != 1:
        raise SystemExit("the text a defect replaces is not in evaluate.py once: %r" % original)
    with open(path, "w", encoding="utf-8") as file:
        file.write(source.replace(original, replacement))


def problems(output, check):
    """Return what is wrong with the suite's output for a defect; empty when all is well."""
    lines = output.splitlines()
    headings = [line for line in lines if line.startswith(("FAIL: ", "ERROR: "))]
    found = []
    if len(lines) > MAX_LINES:
        found.append("%d lines, more than %d" % (len(lines), MAX_LINES))
    if not headings:
        found.append("nothing failed")
    elif headings[0].split()[1] != check:
        found.append("first failure is %s, not %s" % (headings[0], check))
    errors = [line for line in headings if line.startswith("ERROR: ")]
    if errors:
        found.append("%d errors, the first: %s" % (len(errors), errors[0]))
    return found


def main():
    """Run the suite on every broken copy at once; report each defect."""
    with tempfile.TemporaryDirectory() as scratch:
        runs = {}
        for number, (defect, (original, replacement, check)) in enumerate(DEFECTS.items()):
            folder = os.path.join(scratch, str(number))
            os.mkdir(folder)
            broken_copy(folder, original, replacement)
            runs[defect] = subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            universal_newlines=True)
        failed = 0
        for defect, process in runs.items():
            output = process.communicate()[0]
            found = problems(output, DEFECTS[defect][2])
            failed += bool(found)
            print("%s: %s (%d lines)" % (defect, "; ".join(found) or "ok",
                                         len(output.splitlines())))
    print("%d passed, %d failed" % (len(DEFECTS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
