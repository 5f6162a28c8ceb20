"""Walk the exercise lab as a student would, and rewrite the scorer twice.

1. The walk: with the functions (demo.EXERCISE) of the steps before step n
   written, `python -m unittest` in the lab prints at most 40 lines and one
   FAIL block, step n's check, saying "the rule broken:" and the function to
   write (at step CLASS, the first homework check); with all, the suite passes.
2. (3.9+) The contract of one question in other words: private functions and
   locals renamed, reformatted. 3. The contract from scratch (own_contract.py).
   Each of 2 and 3 passes the whole suite and prints the demo's bytes, in the
   project and in the lab.  python .ci/exercise.py: a line per check, then
   "N passed, N failed".
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

STEPS = [  # the function each step writes, and the check that asks for it
    ("_retrieval_counts", "test_the_top_k_holds_k_documents_no_more_no_fewer"),
    ("_values", "test_precision_divides_the_hits_by_k"),
    ("_reasons", "test_an_answer_is_judged_when_some_label_judges_it"),
    ("_uncovered", "test_uncovered_claims_come_in_label_order"),
    ("_unsupported_because", "test_a_claim_citing_its_labelled_source_is_supported"),
    ("_disclosed", "test_a_restricted_document_in_the_top_k_or_cited_is_disclosed"),
    ("_reviewed", "test_a_rejected_claim_is_told_from_one_nobody_reviewed"),
    ("_lenient_reading", "test_lenient_agrees_each_disputed_label_in_a_new_case")]
CLASS = 6  # the steps of a two-hour class; the rest is homework
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
    lab, names = lab_or_project(True), [name for name, check in STEPS]
    stubbed = demo.stubbed(lab["evaluate.py"], names)
    if list(demo.EXERCISE) != names or demo.lab_files(True)["evaluate.py"] != stubbed:
        yield "the exercise lab stubs the functions of STEPS", "it stubs others"
    processes = [run_suite(written(os.path.join(scratch, "step%d" % step), dict(
        lab, **{"evaluate.py": demo.stubbed(lab["evaluate.py"], names[step:])})))
        for step in range(len(STEPS) + 1)]
    for step, process in enumerate(processes):
        output = process.communicate()[0]
        label = "exercise, steps 1 to %d written" % step if step else "a fresh exercise"
        if step == len(STEPS):
            yield label + ": the suite passes", None if process.returncode == 0 else output
            return
        (function, check), found = STEPS[step], blocks(output)
        text = "\n".join(found[0][2]) if found else ""
        problems = ["%d lines" % len(output.splitlines())] * (len(output.splitlines()) > 40)
        problems += ["blocks %s" % [name for kind, name, lines in found]] * (
            [name for kind, name, lines in found] != [check])
        problems += ["no %r" % words for words in ("the rule broken: " + check[5:].replace(
            "_", " "), "%s() in evaluate.py" % function) if words not in text]
        if step == CLASS:
            label += " (the class path): every class check passes, then homework"
        yield "%s: %s asks for %s()" % (label, check, function), "; ".join(problems) or None


def between(source, region):
    """Return source with the lines between its START and END lines made region(lines)."""
    lines = source.split("\n")
    start, end = (next(number for number, line in enumerate(lines, start=1)
                       if line.startswith("#") and word in line) for word in (START, END))
    return "\n".join(lines[:start] + region(lines[start:end - 1]) + lines[end - 1:])


def in_other_words(lines):
    """Return the lines of the contract rewritten by ast.unparse (no comment, other
    formatting), other local names, each private function renamed."""
    tree = ast.parse("\n".join(lines))
    for function in [node for node in tree.body if isinstance(node, ast.FunctionDef)]:
        names = {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and
                 isinstance(node.ctx, ast.Store)} - {arg.arg for arg in ast.walk(function.args)
                                                     if isinstance(arg, ast.arg)}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in names:
                node.id = "my_" + node.id
    region = ast.unparse(ast.fix_missing_locations(tree))
    for index, node in enumerate(node for node in tree.body if isinstance(
            node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_")):
        region = re.sub(r"\b%s\b" % re.escape(node.name), "_own_helper_%d" % index, region)
    return region.split("\n")


def rewrite_checks(scratch):
    """Yield (label, problem or None): each rewrite passes the suite, in the project
    and in the lab, and demo.py prints what it prints with the contract as written."""
    own = pathlib.Path(ROOT, ".ci", "own_contract.py").read_text(encoding="utf-8").split("\n")
    versions = [("own contract", lambda lines: own)] + [
        ("rewrite in other words", in_other_words)] * (sys.version_info >= (3, 9))
    processes = []
    for (what, region), where in [(version, where) for version in versions
                                  for where in ("project", "lab")]:
        files = lab_or_project(where == "lab")
        folder = written(os.path.join(scratch, "%s-%s" % (what, where)), dict(
            files, **{"evaluate.py": between(files["evaluate.py"], region)}))
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
