"""Walk the exercise lab as a student would, and rewrite the scorer twice.

`python demo.py --lab FOLDER --exercise` writes the course lab with each
function of demo.EXERCISE a stub. This script checks, on the Python that
runs it:

1. the walk: with the functions of the steps before n written back,
   `python -m unittest` in the lab prints at most 40 lines and one FAIL
   block, the first check of step n, saying "the rule broken:" and naming
   the function to write; a class that stops at step CLASS sees that block
   name the first homework check; with every step written, the suite passes;
2. (CPython 3.9+) the contract of one question in other words: each private
   function between START and END renamed, each local, and reformatted;
3. the contract written from scratch by another hand (.ci/own_contract.py).
   Each of 2 and 3 passes the whole suite, in the project and in the lab,
   and makes demo.py print the same bytes.

    python .ci/exercise.py        one line per check, then "N passed, N failed"
"""
import ast
import os
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
    if lab:
        return demo.lab_files(exercise=False)
    files = {}
    for name in demo.LAB_CUTS:
        with open(os.path.join(ROOT, name), encoding="utf-8") as file:
            files[name] = file.read()
    return files


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


class Renamer(ast.NodeTransformer):
    """Give every local variable of one function another name; parameters keep theirs."""

    def __init__(self, function):
        parameters = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
        stored = {node.id for node in ast.walk(function)
                  if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        self.names = {name: "my_" + name for name in stored - parameters}

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node


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
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            Renamer(node).visit(node)
    region = ast.unparse(ast.fix_missing_locations(tree))
    for index, node in enumerate(node for node in tree.body if isinstance(
            node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_")):
        region = re.sub(r"\b%s\b" % re.escape(node.name), "_own_helper_%d" % index, region)
    return region.split("\n")


def from_scratch(lines):
    """Return the contract .ci/own_contract.py writes from scratch, as lines."""
    with open(os.path.join(ROOT, ".ci", "own_contract.py"), encoding="utf-8") as file:
        return file.read().rstrip("\n").split("\n")


def demo_outputs(folder, options):
    """Return the standard output of demo.py with each of options, run in folder."""
    return [subprocess.run([sys.executable, "demo.py"] + option, cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
            for option in options]


def rewrite_checks(scratch):
    """Yield (label, problem or None): each rewrite passes the suite, in the project
    and in the lab, and demo.py prints what it prints with the contract as written."""
    versions = [("own contract", from_scratch)] + [
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
        options = DEMO_OPTIONS if where == "project" else DEMO_OPTIONS[:1]
        same = demo_outputs(folder, options) == demo_outputs(ROOT, options)
        yield "%s prints what demo.py prints, in the %s" % (what, where), \
            None if same else "other output"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.exit(reported(list(walk(scratch)) + list(rewrite_checks(scratch))))
