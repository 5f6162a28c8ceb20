"""Walk the exercise lab as a student would, and rewrite the scorer twice.

1. The walk: with the functions (demo.EXERCISE) of the steps before step n
   written, `python -m unittest` in the lab prints at most 40 lines, each
   within 79 columns, and one FAIL block saying "not written yet: step n,
   `name()`", the function to write, and `python demo.py` says so in one
   line (from step CLASS + 1, homework, it prints the table); with all, the
   suite passes.
2. (3.9+) The contract of one question in other words: locals renamed and
   reformatted (in the lab, private functions renamed too). 3. Every function
   of the exercise as another hand writes it (the right rewrite of
   defects.py). Each of 2 and 3 passes the whole suite and prints the demo's
   bytes, in the project and in the lab.  python .ci/exercise.py: a line
   per check, then "N passed, N failed".
"""
import ast
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import demo  # noqa: E402  (after the path is set)
from reporting import reported  # noqa: E402  (.ci's own module)

CLASS = 7  # the steps of a two-hour class; the rest is homework
START, END = "START OF THE CONTRACT OF ONE QUESTION", "END OF THE CONTRACT OF ONE QUESTION"
DEMO_OPTIONS = ([], ["--explain", "--summary"], ["--json", "--summary", "--explain"])


def run_suite(folder):
    """Start python -m unittest in folder; return the process."""
    return subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, env=dict(os.environ, EVERY_FAILURE="0"))


def blocks(output):
    """Return the FAIL/ERROR blocks of unittest's output: [(kind, test, lines)]."""
    found = []
    for line in output.splitlines():
        if line.startswith(("FAIL: ", "ERROR: ")):
            found.append((line.split(":")[0], line.split()[1], []))
        elif found:
            found[-1][2].append(line)
    return found


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
    processes = [run_suite(folder) for folder in folders]
    for step, process in enumerate(processes):
        output = process.communicate()[0]
        label = "exercise, steps 1 to %d written" % step if step else "a fresh exercise"
        if step == len(names):
            yield label + ": the suite passes", None if process.returncode == 0 else output
            return
        said = "not written yet: step %d, `%s()`" % (step + 1, names[step])
        shown = subprocess.run([sys.executable, "demo.py"], cwd=folders[step],
                               stdout=subprocess.PIPE, universal_newlines=True).stdout
        problems = ["%d lines" % len(output.splitlines())] * (len(output.splitlines()) > 40)
        problems += ["a line over 79 columns"] * any(
            len(line) > 79 for line in output.splitlines() if not line.startswith('  File "'))
        problems += ["blocks %s" % [kind for kind, name, lines in blocks(output)]] * (
            [kind for kind, name, lines in blocks(output)] != ["FAIL"])
        problems += ["no %r" % said] * (said not in output)
        table = pathlib.Path(ROOT, ".ci", "expected_demo_output.txt").read_text()
        problems += ["demo.py: %r" % shown[:300]] * (shown != table if step >= CLASS else (
            shown.count("\n") != 1 or said not in shown))
        yield "%s: the next is %s()" % (label, names[step]), "; ".join(problems) or None


def between(source, region):
    """Return source with the lines between its START and END lines made region(lines)."""
    lines = source.split("\n")
    start, end = (next(number for number, line in enumerate(lines, start=1)
                       if line.startswith("#") and word in line) for word in (START, END))
    return "\n".join(lines[:start] + region(lines[start:end - 1]) + lines[end - 1:])


def in_other_words(lines, lab=True):
    """Return the lines of the contract rewritten by ast.unparse (no comment, other
    formatting), other local names, in the lab each private function renamed."""
    tree = ast.parse("\n".join(lines))
    for function in [node for node in tree.body if isinstance(node, ast.FunctionDef)]:
        names = {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and
                 isinstance(node.ctx, ast.Store)} - {arg.arg for arg in ast.walk(function.args)
                                                     if isinstance(arg, ast.arg)}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in names:
                node.id = "my_" + node.id
    region = ast.unparse(ast.fix_missing_locations(tree))
    for index, node in enumerate(node for node in tree.body if lab and isinstance(
            node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_")):
        region = re.sub(r"\b%s\b" % re.escape(node.name), "_own_helper_%d" % index, region)
    return region.split("\n")


def rewrite_checks(scratch):
    """Yield (label, problem or None): each rewrite passes the suite, in the project
    and in the lab, and demo.py prints what it prints with the contract as written."""
    import defects  # (.ci's own: it imports this module)
    right = defects.entries()[0][2]
    versions = [("the exercise written by another hand", None)] + [
        ("rewrite in other words", in_other_words)] * (sys.version_info >= (3, 9))
    processes = []
    for (what, region), where in [(version, where) for version in versions
                                  for where in ("project", "lab")]:
        files = lab_or_project(where == "lab")
        source = defects.with_functions(files["evaluate.py"], right) if region is None \
            else between(files["evaluate.py"], lambda lines: region(lines, where == "lab"))
        folder = written(os.path.join(scratch, "%s-%s" % (what, where)), dict(
            files, **{"evaluate.py": source}))
        processes.append((what, where, folder, run_suite(folder)))
    for what, where, folder, process in processes:
        output = process.communicate()[0]
        yield "%s passes the suite, in the %s" % (what, where), \
            None if process.returncode == 0 else output[-1500:]
        outputs = [[subprocess.run([sys.executable, "demo.py"] + option, cwd=cwd,
                                   stdout=subprocess.PIPE).stdout for cwd in (folder, ROOT)]
                   for option in (DEMO_OPTIONS if where == "project" else DEMO_OPTIONS[:1])]
        yield "%s prints what demo.py prints, in the %s" % (what, where), \
            None if all(mine == theirs for mine, theirs in outputs) else "other output"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.exit(reported(list(walk(scratch)) + list(rewrite_checks(scratch))))
