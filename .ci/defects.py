"""Break the scorer on purpose, once per defect, and check what a student would read.

For each defect in test_evaluate.DEFECTS and test_evaluate.CRASHES, a copy of
the project (the four .py files and README.md) gets that defect in
evaluate.py, and `python -m unittest` runs there. It must fail and print at
most 300 lines in all, and the first block it prints must belong to a worked
check:
- a defect of DEFECTS fails an assertion, never raises, and its first block
  is the worked check that names its rule;
- a defect of CRASHES raises, and its first block is a worked check whose
  traceback shows the evaluate.py function that raised.

    python .ci/defects.py        one line per defect, then "N passed, N failed"
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from test_evaluate import CRASHES, DEFECTS, WorkedChecks  # noqa: E402  (after the path is set)

FILES = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py", "README.md")
MAX_LINES = 300
WORKED_CHECKS = {name for name in dir(WorkedChecks) if name.startswith("test_")}


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


def blocks(lines):
    """Return the failure and error blocks of unittest's output: (heading, lines)."""
    found = []
    for line in lines:
        if line.startswith(("FAIL: ", "ERROR: ")):
            found.append((line, []))
        elif found:
            found[-1][1].append(line)
    return found


def problems(output, check=None, function=None):
    """Return what is wrong with the suite's output for a defect; empty when all is well.

    check: the worked check that must come first, with no error anywhere;
    function: the evaluate.py function an error's traceback must show.
    """
    lines = output.splitlines()
    found = []
    if len(lines) > MAX_LINES:
        found.append("%d lines, more than %d" % (len(lines), MAX_LINES))
    printed = blocks(lines)
    if not printed:
        return found + ["nothing failed"]
    heading, block = printed[0]
    name = heading.split()[1]
    if name not in WORKED_CHECKS:
        found.append("first block is %s, not a worked check" % heading)
    if check is not None:
        if name != check:
            found.append("first failure is %s, not %s" % (heading, check))
        errors = [heading for heading, _ in printed if heading.startswith("ERROR: ")]
        if errors:
            found.append("%d errors, the first: %s" % (len(errors), errors[0]))
    if function is not None and heading.startswith("ERROR: "):
        frame = ', in %s' % function
        if not any('evaluate.py"' in line and line.endswith(frame) for line in block):
            found.append("the first error's traceback does not show %s() in evaluate.py"
                         % function)
    return found


def main():
    """Run the suite on every broken copy at once; report each defect."""
    defects = [(name, original, replacement, {"check": check})
               for name, (original, replacement, check) in DEFECTS.items()]
    defects += [(name, original, replacement, {"function": function})
                for name, (original, replacement, function) in CRASHES.items()]
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        runs = []
        for number, (name, original, replacement, expected) in enumerate(defects):
            folder = os.path.join(scratch, str(number))
            os.mkdir(folder)
            broken_copy(folder, original, replacement)
            process = subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       universal_newlines=True)
            runs.append((name, process, expected))
        for name, process, expected in runs:
            output = process.communicate()[0]
            found = problems(output, **expected)
            failed += bool(found)
            print("%s: %s (%d lines)" % (name, "; ".join(found) or "ok",
                                         len(output.splitlines())))
    print("%d passed, %d failed" % (len(defects) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
