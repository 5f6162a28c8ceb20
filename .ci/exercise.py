"""Walk the exercise lab as a student would, and write it by another hand.

1. The walk: with the functions (demo.EXERCISE) of the steps before step n
   written, `python -m unittest` in the lab prints at most 40 lines, each
   within 79 columns, one FAIL block, saying "not written yet: step n,
   `name()`", and so does `python demo.py`, in one line (from step CLASS + 1,
   homework, it prints the table); with all, the suite passes.
2. Every function of the exercise as another hand writes it (the right
   rewrite of defects.py) passes the whole suite and prints the demo's
   bytes, in the project and in the lab.
   python .ci/exercise.py: a line per check, then "N passed, N failed".
"""
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import demo  # noqa: E402  (after the path is set)

CLASS = 7  # the steps of a two-hour class; the rest is homework
DEMO_OPTIONS = ([], ["--explain", "--summary"], ["--json", "--summary", "--explain"])
TABLE = pathlib.Path(ROOT, ".ci", "expected_demo_output.txt").read_text(encoding="utf-8")


def reported(checks):
    """Print "label: ok", or "label: FAIL" and the problem indented, for each
    (label, problem or None) of checks, then the tally; return the exit status."""
    passed = failed = 0
    for label, problem in checks:
        print("%s: %s" % (label, "ok" if problem is None else "FAIL"))
        if problem is not None:
            print("    " + str(problem).replace("\n", "\n    "))
        passed, failed = passed + (problem is None), failed + (problem is not None)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def run_suite(folder):
    """Start python -m unittest in folder; return the process."""
    return subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, env=dict(os.environ, EVERY_FAILURE="0"))


def demo_says(folder, *options):
    """Return what python demo.py prints in folder."""
    return subprocess.run([sys.executable, "demo.py"] + list(options), cwd=folder,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout


def blocks(output):
    """Return the FAIL/ERROR blocks of unittest's output: [(kind, test, lines)]."""
    found = []
    for line in output.splitlines():
        if line.startswith(("FAIL: ", "ERROR: ")):
            found.append((line.split(":")[0], line.split()[1], []))
        elif found:
            found[-1][2].append(line)
    return found


def wide(output):
    """True when a line of output, but a traceback's file line, is over 79 columns."""
    return any(len(line) > 79 for line in output.splitlines() if not line.startswith('  File "'))


def lab_or_project(lab):
    """Return {file name: text} of the course lab, or of the project's files."""
    return demo.lab_files(exercise=False) if lab else {
        name: pathlib.Path(ROOT, name).read_text(encoding="utf-8") for name in demo.LAB_CUTS}


def written(folder, files):
    """Write files ({name: text}) into folder, made if need be; return folder."""
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
            file.write(text)
    return folder


def walk(scratch):
    """Yield (label, problem or None) for each step of the exercise walk."""
    lab, names = lab_or_project(True), list(demo.EXERCISE)
    folders = [written(os.path.join(scratch, "step%d" % step), dict(
        lab, **{"evaluate.py": demo.stubbed(lab["evaluate.py"], names[step:])}))
        for step in range(len(names) + 1)]
    for step, process in enumerate([run_suite(folder) for folder in folders]):
        output = process.communicate()[0]
        label = "exercise, steps 1 to %d written" % step if step else "a fresh exercise"
        if step == len(names):
            yield label + ": the suite passes", None if process.returncode == 0 else output
            return
        said, shown = "not written yet: step %d, `%s()`" % (step + 1, names[step]), demo_says(
            folders[step])
        kinds = [kind for kind, name, lines in blocks(output)]
        problems = ["%d lines" % len(output.splitlines())] * (len(output.splitlines()) > 40)
        problems += ["a line over 79 columns"] * wide(output) + ["blocks %s" % kinds] * (
            kinds != ["FAIL"]) + ["no %r" % said] * (said not in output)
        problems += ["demo.py: %r" % shown[:300]] * (shown != TABLE if step >= CLASS else (
            shown.count("\n") != 1 or said not in shown))
        yield "%s: the next is %s()" % (label, names[step]), "; ".join(problems) or None


def rewrite_checks(scratch):
    """Yield (label, problem or None): the exercise written by another hand passes
    the suite, in the project and in the lab, and demo.py prints the same bytes."""
    import defects  # (.ci's own: it imports this module)
    right, processes = defects.entries()[0][2], []
    for where in ("project", "lab"):
        files = lab_or_project(where == "lab")
        folder = written(os.path.join(scratch, where), dict(files, **{
            "evaluate.py": defects.with_functions(files["evaluate.py"], right)}))
        processes.append((where, folder, run_suite(folder)))
    for where, folder, process in processes:
        output = process.communicate()[0]
        yield "the exercise by another hand passes the suite, in the " + where, \
            None if process.returncode == 0 else output[-1500:]
        options = DEMO_OPTIONS if where == "project" else DEMO_OPTIONS[:1]
        yield "the exercise by another hand prints what demo.py prints, in the " + where, None if all(
            demo_says(folder, *option) == demo_says(ROOT, *option) for option in options) \
            else "other output"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.exit(reported(list(walk(scratch)) + list(rewrite_checks(scratch))))
