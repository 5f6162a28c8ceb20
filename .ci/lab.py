"""Build the course labs as a course author would, and check what they hand out.

`python demo.py --lab FOLDER` cuts the lab from the project's own files at
their marker lines; `--exercise` leaves the rules of one question to write.
This script checks, on the Python that runs it:

1. the cut: each file of the lab within its size (evaluate.py 520 lines,
   test_evaluate.py 800, demo.py 60, README.md 200), and no name defined in
   evaluate.py both above its END line and below it (else the full module
   would run another function than the lab of the same name);
2. both labs written into new folders; in the lab, `python demo.py` prints
   the expected bytes and `python -m unittest` passes, from the lab folder
   and from another one; in the exercise lab, the suite fails at its first
   rule, and nothing else than the bodies of the functions to write differs;
3. a lab folder that is not new or empty, a path that is a file, or one that
   cannot be written: status 1, one line on standard error, nothing written.

    python .ci/lab.py        one line per check, then "N passed, N failed"
"""
import ast
import os
import subprocess
import sys
import tempfile

from reporting import reported  # .ci's own module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECTED = os.path.join(ROOT, ".ci", "expected_demo_output.txt")
SIZES = {"evaluate.py": 520, "test_evaluate.py": 800, "demo.py": 60, "README.md": 200}


def demo(*arguments, cwd=ROOT):
    """Run demo.py of the project; return (status, stdout, stderr)."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "demo.py")] + list(arguments),
                          cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    return done.returncode, done.stdout, done.stderr


def defined_twice():
    """Return the names that evaluate.py defines both above its END line and below."""
    with open(os.path.join(ROOT, "evaluate.py"), encoding="utf-8") as file:
        source = file.read()
    end = next(number for number, line in enumerate(source.split("\n"), start=1)
               if line.startswith("# END OF THE CONTRACT OF ONE QUESTION"))
    above, below = set(), set()
    for node in ast.parse(source).body:
        names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else [
            target.id for target in getattr(node, "targets", []) if isinstance(target, ast.Name)]
        (above if node.lineno < end else below).update(names)
    return sorted((above & below) - {"__all__"})  # __all__ grows below END, by design


def cut_checks(folder):
    """Yield (label, problem or None) for the files of a lab in folder."""
    for name, most in SIZES.items():
        with open(os.path.join(folder, name), encoding="utf-8") as file:
            lines = len(file.read().splitlines())
        yield "the lab's %s: %d lines, at most %d" % (name, lines, most), \
            None if lines <= most else "too long"
    twice = defined_twice()
    yield "no name of evaluate.py defined above END and below it", \
        None if not twice else ", ".join(twice)


def suite(folder, cwd=None):
    """Run the suite of folder (from cwd); return (status, output)."""
    arguments = ["-m", "unittest"] if cwd is None else ["-m", "unittest", "discover", "-s",
                                                        folder]
    done = subprocess.run([sys.executable] + arguments, cwd=cwd or folder,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return done.returncode, done.stdout


def lab_checks(scratch):
    """Yield (label, problem or None) for both labs, written into new folders."""
    with open(EXPECTED, encoding="utf-8") as file:
        expected = file.read()
    lab, exercise = os.path.join(scratch, "lab"), os.path.join(scratch, "new", "exercise")
    for folder, options in ((lab, []), (exercise, ["--exercise"])):
        status, out, err = demo("--lab", folder, *options)
        yield "demo.py --lab %s writes the lab" % " ".join(options), \
            None if status == 0 and not err else err
    yield from cut_checks(lab)
    for cwd in (lab, scratch):
        done = subprocess.run([sys.executable, os.path.join(lab, "demo.py")], cwd=cwd,
                              stdout=subprocess.PIPE, universal_newlines=True)
        where = "its folder" if cwd == lab else "another folder"
        yield "the lab's demo.py prints the table, from %s" % where, \
            None if done.stdout == expected else done.stdout[-500:]
        status, output = suite(lab, None if cwd == lab else cwd)
        yield "the lab's suite passes, from %s" % where, \
            None if status == 0 and "OK" in output else output[-800:]
    status, output = suite(exercise)
    yield "the exercise lab's suite fails at its first rule", \
        None if status != 0 and "NotImplementedError" in output else output[-800:]


def refusal_checks(scratch):
    """Yield (label, problem or None): a folder that is not new or empty, a file, or a
    folder that cannot be written is refused in one line, and nothing is written."""
    full = os.path.join(scratch, "full")
    os.mkdir(full)
    with open(os.path.join(full, "notes.txt"), "w") as file:
        file.write("mine")
    a_file = os.path.join(full, "notes.txt")
    locked = os.path.join(scratch, "locked")
    os.mkdir(locked, 0o500)
    places = (("a folder that is not empty", full), ("a path that is a file", a_file),
              ("a folder that cannot be written", os.path.join(locked, "lab")))
    for label, path in places:
        before = sorted(os.listdir(full)), os.listdir(locked)
        status, out, err = demo("--lab", path)
        after = sorted(os.listdir(full)), os.listdir(locked)
        writable = os.access(locked, os.W_OK)  # as root, every folder can be written
        if writable and label.endswith("written"):
            continue
        ok = status == 1 and out == "" and err.count("\n") == 1 and before == after
        yield "demo.py --lab on %s: status 1, one line, nothing written" % label, \
            None if ok else "status %s, %r, %r" % (status, out, err)
    os.chmod(locked, 0o700)


def main(arguments):
    """Run the checks."""
    if arguments:
        print(__doc__)
        return 0 if arguments in (["-h"], ["--help"]) else 2
    with tempfile.TemporaryDirectory() as scratch:
        return reported(list(lab_checks(scratch)) + list(refusal_checks(scratch)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
