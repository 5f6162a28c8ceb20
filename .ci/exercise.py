"""Build the course exercise, walk it as a student would, and rewrite the scorer in other words.

The exercise is evaluate.py with the body of each function in EXERCISE, the
scoring of one question, replaced by `raise NotImplementedError`; their
signatures and docstrings stay. A student runs `python -m unittest`, writes
the function that the first failure's traceback names, and runs it again.
This script checks, in a folder holding the four .py files:

1. the exercise: `python -m unittest` prints one FAIL/ERROR block, a worked
   check whose traceback ends in the first function of EXERCISE;
2. each step (one more function written back, in the order the suite asks):
   at most 80 lines, one block, a worked check later than the step before,
   whose traceback ends in the next function of EXERCISE; the last step
   passes the whole suite;
3. (CPython 3.9+, for ast.unparse) every function above the end of the
   contract of one question, rewritten with other local names and other
   formatting, passes the whole suite, with the four files and with
   README.md beside them: the suite grades behaviour, not this text.

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
from test_evaluate import WorkedChecks, in_order  # noqa: E402  (after the path is set)

HANDOUT = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py")
EXERCISE = ("_hit_ranks", "_reciprocal_rank", "_scores", "_unsupported_because",
            "_claim_reasons", "_disclosed", "_counted", "evaluate", "_explained")
CONTRACT_END = "END OF THE CONTRACT OF ONE QUESTION"
MAX_LINES = 80
WORKED_CHECKS = in_order(WorkedChecks)


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


def run_suite(folder):
    """Start python -m unittest in folder; return the process (stdout holds its output)."""
    return subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)


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
        label = "exercise, %s" % ("the stubbed scorer" if step == 0 else
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
        if name not in WORKED_CHECKS:
            problems.append("the first block, %s, is no worked check" % name)
        elif WORKED_CHECKS.index(name) <= previous:
            problems.append("%s is not a later rule than the step before" % name)
        else:
            previous = WORKED_CHECKS.index(name)
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
    """Return source with each function above the end of the contract of one question
    rewritten by ast.unparse, with other local names: no comment, other formatting."""
    end = next(number for number, line in enumerate(source.split("\n"), start=1)
               if line.startswith("# " + CONTRACT_END))
    lines = source.split("\n")
    nodes = [node for node in functions(source).values() if node.lineno < end]
    for node in sorted(nodes, key=lambda node: -node.lineno):  # bottom up
        new = ast.fix_missing_locations(Renamer(node).visit(node))
        lines[node.lineno - 1:node.end_lineno] = ast.unparse(new).split("\n")
    return "\n".join(lines)


def rewrite_checks(source, scratch):
    """Yield (label, problem or None): the rewritten scorer passes, without and with README.md."""
    if sys.version_info < (3, 9):
        return  # ast.unparse is new in 3.9
    new = rewritten(source)
    if new == source:
        yield "rewrite: the scorer was rewritten", "nothing changed"
    processes = []
    for readme in (False, True):
        folder = os.path.join(scratch, "rewrite-%s" % readme)
        os.mkdir(folder)
        copy_handout(folder, new, readme)
        processes.append((readme, run_suite(folder)))
    for readme, process in processes:
        status, output = finished(process)
        label = "rewrite in other words passes the suite, %s" % (
            "with README.md" if readme else "four files")
        yield label, None if status == 0 else output[-1500:]


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
