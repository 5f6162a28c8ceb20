"""Walk the exercise lab as a student would, and rewrite the scorer twice.

`python demo.py --lab FOLDER --exercise` writes the course lab with the body of
each function of the contract that holds a rule replaced by
`raise NotImplementedError`. A student runs `python -m unittest`, writes the
function that the first failure names, and runs it again. This script checks:

1. the walk: with the first n functions of STEPS written back, `python -m
   unittest` in the lab prints at most 40 lines and one FAIL/ERROR block, the
   first worked check of the next function's rule, whose traceback ends in
   that function; with all of them written, the suite passes;
2. (CPython 3.9+, for ast.unparse) the contract of one question in other
   words: every private function and class between its START and END lines
   renamed, every local name changed, every function reformatted;
3. the contract written from scratch by another hand (.ci/own_contract.py:
   the public functions only, with helpers of its own and another plan).
   Each of 2 and 3 must pass the whole suite, in the project and in the lab,
   and make demo.py print the same bytes.

    python .ci/exercise.py        the checks, one line each, then "N passed, N failed"
    python .ci/exercise.py --help this text
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
import demo  # noqa: E402  (after the path is set)
from reporting import reported  # noqa: E402  (.ci's own module)

FILES = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py", "README.md")
# The function to write at each step, and the worked check that asks for it.
STEPS = [
    ("_hit_ranks", "test_the_top_k_holds_k_documents_no_more_no_fewer"),
    ("_values", "test_precision_divides_the_hits_by_k"),
    ("_unsupported_because", "test_a_claim_citing_its_labelled_source_in_the_top_k_is_supported"),
    ("_uncovered", "test_expected_claims_are_counted_from_the_labels"),
    ("_reviewed", "test_a_rejected_claim_is_told_from_one_nobody_reviewed"),
    ("_disclosed", "test_a_restricted_document_in_the_top_k_or_cited_is_disclosed"),
    ("lenient", "test_the_lenient_reading_adds_each_disputed_source_and_expects_no_new_claim"),
]
START, END = "START OF THE CONTRACT OF ONE QUESTION", "END OF THE CONTRACT OF ONE QUESTION"
MAX_LINES = 40
DEMO_OPTIONS = ([], ["--explain", "--summary"], ["--json", "--summary", "--explain"])


def run_suite(folder):
    """Start python -m unittest in folder; return the process."""
    return subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, env=dict(os.environ, EVERY_FAILURE="0"))


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
    named = re.findall(r'evaluate\.py", line \d+, in (\w+)$', "\n".join(lines), re.M)
    return named[-1] if named else None


def write_lab(folder, evaluate_source=None):
    """Write the course lab into folder, its evaluate.py replaced if given."""
    files = demo.lab_files(exercise=False)
    if evaluate_source is not None:
        files["evaluate.py"] = evaluate_source
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
            file.write(text)


def walk(scratch):
    """Yield (label, problem or None) for each step of the exercise walk."""
    lab = demo.lab_files(exercise=False)["evaluate.py"]
    names = [name for name, check in STEPS]
    if demo.lab_files(exercise=True)["evaluate.py"] != demo.stubbed(lab, names):
        yield "the exercise lab stubs the functions of STEPS", "it stubs others"
    processes = []
    for step in range(len(STEPS) + 1):
        folder = os.path.join(scratch, "step%d" % step)
        write_lab(folder, demo.stubbed(lab, names[step:]))
        processes.append(run_suite(folder))
    for step, process in enumerate(processes):
        output = process.communicate()[0]
        label = "exercise, %s" % ("every rule left to write" if step == 0 else
                                  "%s() written" % names[step - 1])
        if step == len(STEPS):
            yield label + ": the suite passes", None if process.returncode == 0 else output[-800:]
            return
        function, check = STEPS[step]
        found, problems = blocks(output), []
        if len(output.splitlines()) > MAX_LINES:
            problems.append("%d lines, more than %d" % (len(output.splitlines()), MAX_LINES))
        if len(found) != 1:
            problems.append("%d FAIL/ERROR blocks, not 1" % len(found))
        name, block = found[0] if found else (None, [])
        if name != check:
            problems.append("the first block is %s, not %s" % (name, check))
        if function_raised(block) != function:
            problems.append("the traceback ends in %s, not %s" % (function_raised(block),
                                                                  function))
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


def contract_lines(source):
    """Return the line numbers (from 1) of the START and END comment lines."""
    lines = source.split("\n")
    return tuple(next(number for number, line in enumerate(lines, start=1)
                      if line.startswith("#") and word in line) for word in (START, END))


def rewritten(source):
    """Return source with the contract of one question in other words: each function
    between the START and END lines rewritten by ast.unparse (no comment, other
    formatting) with other local names, and each private function renamed."""
    start, end = contract_lines(source)
    lines = source.split("\n")
    tree = ast.parse("\n".join(lines[start:end - 1]))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            Renamer(node).visit(node)
    region = ast.unparse(ast.fix_missing_locations(tree))
    private = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef,
                                                                    ast.ClassDef))
               and node.name.startswith("_")]
    for index, name in enumerate(private):
        region = re.sub(r"\b%s\b" % re.escape(name), "_own_helper_%d" % index, region)
    return "\n".join(lines[:start] + region.split("\n") + lines[end - 1:])


def own_contract(source):
    """Return source with everything between the START and END lines replaced by
    the contract .ci/own_contract.py writes from scratch."""
    start, end = contract_lines(source)
    lines = source.split("\n")
    with open(os.path.join(ROOT, ".ci", "own_contract.py"), encoding="utf-8") as file:
        own = file.read().rstrip("\n").split("\n")
    return "\n".join(lines[:start] + own + lines[end - 1:])


def demo_outputs(folder, options=DEMO_OPTIONS):
    """Return the standard output of demo.py with each of options, run in folder."""
    return [subprocess.run([sys.executable, "demo.py"] + option, cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
            for option in options]


def rewrite_checks(scratch):
    """Yield (label, problem or None): each rewrite passes the suite, in the project
    and in the lab, and demo.py prints what it prints with the contract as written."""
    with open(os.path.join(ROOT, "evaluate.py"), encoding="utf-8") as file:
        source = file.read()
    lab = demo.lab_files(exercise=False)["evaluate.py"]
    versions = [("own contract", own_contract)]
    if sys.version_info >= (3, 9):  # ast.unparse is new in 3.9
        versions.insert(0, ("rewrite in other words", rewritten))
    processes = []
    for what, rewrite in versions:
        for where in ("project", "lab"):
            folder = os.path.join(scratch, "%s-%s" % (what.replace(" ", "-"), where))
            os.mkdir(folder)
            if where == "lab":
                write_lab(folder, rewrite(lab))
            else:
                for name in FILES:
                    shutil.copy(os.path.join(ROOT, name), folder)
                with open(os.path.join(folder, "evaluate.py"), "w", encoding="utf-8") as file:
                    file.write(rewrite(source))
            processes.append((what, where, folder, run_suite(folder)))
    for what, where, folder, process in processes:
        output = process.communicate()[0]
        yield "%s passes the suite, in the %s" % (what, where), \
            None if process.returncode == 0 else output[-1500:]
        options = DEMO_OPTIONS if where == "project" else DEMO_OPTIONS[:1]
        same = demo_outputs(folder, options) == demo_outputs(ROOT, options)
        yield "%s prints what demo.py prints, in the %s" % (what, where), \
            None if same else "other output"


def main(arguments):
    """Run the checks."""
    if arguments:
        print(__doc__)
        return 0 if arguments in (["-h"], ["--help"]) else 2
    with tempfile.TemporaryDirectory() as scratch:
        return reported(list(walk(scratch)) + list(rewrite_checks(scratch)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
