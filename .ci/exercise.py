"""Build the course exercise, walk it as a student would, and rewrite the scorer twice.

The exercise is evaluate.py with the body of each public function of the contract
of one question (EXERCISE) replaced by `raise NotImplementedError`; their
signatures and docstrings stay. A student runs `python -m unittest`, writes the
function that the first failure's traceback names, and runs it again. This
script checks, in a folder holding the four .py files:

1. the exercise: `python -m unittest` prints one FAIL/ERROR block, a check of
   GATES (the fixture's and the worked checks) whose traceback ends in the first
   function of EXERCISE;
2. each step (one more function written back, in the order of the contract): at
   most 80 lines, one block, a check later than the step before, whose traceback
   ends in the next function of EXERCISE; the last step passes the whole suite;
3. (CPython 3.9+, for ast.unparse) the contract of one question rewritten in
   other words: every private function and class between its START and END lines
   renamed, every local name changed, every function reformatted. The whole suite
   passes, with the four files and with README.md beside them, and demo.py prints
   the same bytes (plain, --explain --summary, --json --summary --explain);
4. the contract written from scratch by another hand (.ci/own_contract.py: the
   public functions only, with helpers of its own): the same.

    python .ci/exercise.py               the checks, one line each, then "N passed, N failed"
    python .ci/exercise.py --write DIR   write the exercise's four .py files into DIR
"""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from test_evaluate import GATES  # noqa: E402  (after the path is set)

HANDOUT = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py")
EXERCISE = ("validate", "lenient", "tally", "evaluate", "explain")
START, END = "START OF THE CONTRACT OF ONE QUESTION", "END OF THE CONTRACT OF ONE QUESTION"
MAX_LINES = 80
CHECKS = [name for group, name in GATES]
DEMO_OPTIONS = ([], ["--explain", "--summary"], ["--json", "--summary", "--explain"])


def functions(source):
    """Return {name: FunctionDef} of the module-level functions in source."""
    return {node.name: node for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)}


def stubbed(source, names):
    """Return source with the body of each function in names, after its docstring,
    replaced by `raise NotImplementedError`."""
    lines = source.split("\n")
    nodes = functions(source)
    for name in sorted(names, key=lambda name: -nodes[name].lineno):  # bottom up
        node = nodes[name]
        docstring = node.body[0]
        indent = " " * node.body[0].col_offset
        lines[docstring.end_lineno:node.end_lineno] = [indent + "raise NotImplementedError"]
    return "\n".join(lines)


def contract_lines(source):
    """Return the line numbers (from 1) of the START and END comment lines."""
    lines = source.split("\n")
    return tuple(next(number for number, line in enumerate(lines, start=1)
                      if line.startswith("#") and word in line) for word in (START, END))


def run_suite(folder):
    """Start python -m unittest in folder; return the process (stdout holds its output)."""
    return subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, env=dict(os.environ, EVERY_FAILURE="0"))


def finished(process):
    """Return (exit status, output) of a suite started by run_suite()."""
    output = process.communicate()[0]
    return process.returncode, output


def blocks(output):
    """Return the FAIL/ERROR blocks of unittest's output: [(test name, lines)]."""
    found = []
    for line in output.splitlines():
        if line.startswith(("FAIL: ", "ERROR: ")):
            found.append((line.split()[1], []))
        elif found:
            found[-1][1].append(line)
    return found


def function_raised(lines):
    """Return the evaluate.py function in which a traceback ends, or None."""
    frames = [re.search(r'evaluate\.py", line \d+, in (\w+)$', line) for line in lines]
    named = [frame.group(1) for frame in frames if frame]
    return named[-1] if named else None


def copy_handout(folder, evaluate_source, readme=False):
    """Write the four .py files into folder, with evaluate.py replaced by evaluate_source."""
    for name in HANDOUT + (("README.md",) if readme else ()):
        shutil.copy(os.path.join(ROOT, name), folder)
    with open(os.path.join(folder, "evaluate.py"), "w", encoding="utf-8") as file:
        file.write(evaluate_source)


def walk(source, scratch):
    """Yield (label, problem or None) for each step of the exercise walk.

    Step n has the first n functions of EXERCISE written back; the steps are
    run at once, and read in order.
    """
    processes = []
    for step in range(len(EXERCISE) + 1):
        folder = os.path.join(scratch, "step%d" % step)
        os.mkdir(folder)
        copy_handout(folder, stubbed(source, EXERCISE[step:]))
        processes.append(run_suite(folder))
    previous = -1
    for step, process in enumerate(processes):
        status, output = finished(process)
        found, lines = blocks(output), output.splitlines()
        label = "exercise, %s" % ("the stubbed contract" if step == 0 else
                                  "with %s() written" % EXERCISE[step - 1])
        if step == len(EXERCISE):
            yield label + ": the suite passes", None if status == 0 and not found else output[-800:]
            return
        expected = EXERCISE[step]
        problems = []
        if len(lines) > MAX_LINES:
            problems.append("%d lines, more than %d" % (len(lines), MAX_LINES))
        if len(found) != 1:
            problems.append("%d FAIL/ERROR blocks, not 1" % len(found))
        name, block = found[0] if found else (None, [])
        if name not in CHECKS:
            problems.append("the first block, %s, is no worked check" % name)
        elif CHECKS.index(name) <= previous:
            problems.append("%s is not a later rule than the step before" % name)
        else:
            previous = CHECKS.index(name)
        raised = function_raised(block)
        if raised != expected:
            problems.append("the traceback ends in %s, not %s" % (raised, expected))
        yield "%s: %s asks for %s()" % (label, name, expected), "; ".join(problems) or None


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


def rewritten(source):
    """Return source with the contract of one question in other words: each function
    between the START and END lines rewritten by ast.unparse (no comment, other
    formatting) with other local names, and each private function and class renamed."""
    start, end = contract_lines(source)
    lines = source.split("\n")
    tree = ast.parse("\n".join(lines[start:end - 1]))  # the lines between the two
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            Renamer(node).visit(node)
    region = ast.unparse(ast.fix_missing_locations(tree))
    private = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
               and node.name.startswith("_")]
    for index, name in enumerate(private):
        region = re.sub(r"\b%s\b" % re.escape(name), "_own_helper_%d" % index, region)
    return "\n".join(lines[:start] + region.split("\n") + lines[end - 1:])


def own_contract(source):
    """Return source with everything between the START and END lines replaced by the
    contract that .ci/own_contract.py writes from scratch."""
    start, end = contract_lines(source)
    lines = source.split("\n")
    with open(os.path.join(ROOT, ".ci", "own_contract.py"), encoding="utf-8") as file:
        own = file.read().rstrip("\n").split("\n")
    return "\n".join(lines[:start] + own + lines[end - 1:])


def demo_outputs(folder):
    """Return (status, stdout) of demo.py with each of DEMO_OPTIONS, run in folder."""
    return [subprocess.run([sys.executable, "demo.py"] + options, cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
            for options in DEMO_OPTIONS]


def rewrite_checks(source, scratch):
    """Yield (label, problem or None): each rewrite passes the suite, without and with
    README.md, and demo.py prints what it prints with the contract as written."""
    versions = [("own contract", own_contract(source))]
    if sys.version_info >= (3, 9):  # ast.unparse is new in 3.9
        versions.insert(0, ("rewrite in other words", rewritten(source)))
    processes = []
    for what, new in versions:
        if new == source:
            yield what + ": the contract was rewritten", "nothing changed"
        for readme in (False, True):
            folder = os.path.join(scratch, "%s-%s" % (what.replace(" ", "-"), readme))
            os.mkdir(folder)
            copy_handout(folder, new, readme)
            processes.append((what, readme, folder, run_suite(folder)))
    for what, readme, folder, process in processes:
        status, output = finished(process)
        yield "%s passes the suite, %s" % (what, "with README.md" if readme else "four files"), \
            None if status == 0 else output[-1500:]
        if readme:
            same = demo_outputs(folder) == demo_outputs(ROOT)
            yield "%s prints what demo.py prints" % what, None if same else "other output"


def main(arguments):
    """Run the checks, or write the exercise into a folder."""
    with open(os.path.join(ROOT, "evaluate.py"), encoding="utf-8") as file:
        source = file.read()
    if arguments[:1] == ["--write"] and len(arguments) == 2:
        os.makedirs(arguments[1], exist_ok=True)
        copy_handout(arguments[1], stubbed(source, EXERCISE))
        return 0
    passed = failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for label, problem in list(walk(source, scratch)) + list(rewrite_checks(source, scratch)):
            print("%s: %s" % (label, "ok" if problem is None else "FAIL"))
            if problem is not None:
                print("    " + problem.replace("\n", "\n    "))
            passed, failed = passed + (problem is None), failed + (problem is not None)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
