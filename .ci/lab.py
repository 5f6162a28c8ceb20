"""Build the course labs as a course author would, and check what they hand out.

1. Both labs, as `python demo.py --lab FOLDER [--exercise]` writes them: each
   file within its size and 79 columns; nothing of the full module but the
   README's last section; what to read said; `signal`, not `_signal`; no name
   of evaluate.py defined above its END line and below it.
2. The lab's demo bytes and suite, from its folder and another.
3. A folder that cannot be written is refused in one line, nothing written (the
   suite tries the others); a write failing half way leaves nothing, and a
   rerun works; a folder's name shown by ascii().
"""
import ast
import contextlib
import io
import os
import pathlib
import subprocess
import sys
import tempfile

from exercise import ROOT, demo, reported  # .ci's own module

EXPECTED = os.path.join(ROOT, ".ci", "expected_demo_output.txt")
SIZES = {"evaluate.py": 520, "test_evaluate.py": 840, "demo.py": 70, "README.md": 200}


def run_demo(*arguments, cwd=ROOT, script=os.path.join(ROOT, "demo.py")):
    """Run a demo.py; return (status, stdout, stderr)."""
    done = subprocess.run([sys.executable, script] + list(arguments), cwd=cwd,
                          capture_output=True, universal_newlines=True)
    return done.returncode, done.stdout, done.stderr


def defined_twice():
    """Return the names evaluate.py defines both above its END line and below."""
    source = pathlib.Path(ROOT, "evaluate.py").read_text(encoding="utf-8")
    end = source[:source.index("# END OF THE CONTRACT OF ONE QUESTION")].count("\n")
    named = [(node.lineno < end, name) for node in ast.parse(source).body for name in (
        [getattr(node, "name", None)] + [target.id for target in getattr(node, "targets", [])
                                         if isinstance(target, ast.Name)]) if name]
    return sorted({name for above, name in named if above} & {name for above, name in named
                                                              if not above} - {"__all__"})


def cut_checks(folder, which):
    """Yield (label, problem or None) for the files of a lab in folder."""
    texts = {name: pathlib.Path(folder, name).read_text(encoding="utf-8") for name in demo.LAB_CUTS}
    for name, text in texts.items():
        lines = text.splitlines()
        wide = [number for number, line in enumerate(lines, start=1) if len(line) > 79]
        yield "%s %s: %d lines, none over 79 characters" % (which, name, len(lines)), \
            "too long" if len(lines) > SIZES.get(name, len(lines)) else wide or None
    beyond = texts["README.md"].split("## Beyond the lab")
    full = [name for name, text in dict(texts, **{"README.md": beyond[0]}).items()
            if "full module" in text.lower()] + ["fixtures.py"] * (
                "tags" in texts["fixtures.py"] or "POLICY" in texts["fixtures.py"])
    yield which + ": nothing of the full module but the README's last section", full or None
    said = [name for name in ("evaluate.py", "test_evaluate.py", "README.md") if not any(
        words in texts[name][:2000].lower() for words in ("what to read", "read the rules"))]
    said += ["demo.py"] * ("import signal" not in texts["demo.py"] or "_signal" in texts["demo.py"])
    yield which + ": what to read said in 3 files, signal not _signal", said or None


def lab_checks(scratch):
    """Yield (label, problem or None) for both labs, written into new folders."""
    expected = pathlib.Path(EXPECTED).read_text(encoding="utf-8")
    lab, exercise = os.path.join(scratch, "lab"), os.path.join(scratch, "new", "exercise")
    for folder, options in ((lab, []), (exercise, ["--exercise"])):
        status, out, err = run_demo("--lab", folder, *options)
        yield "demo.py --lab %s writes the lab, saying so in one line" % " ".join(options), \
            None if status == 0 and not err and out.count("\n") == 1 else err
        yield from cut_checks(folder, "the lab" + " exercise" * bool(options))
    twice = defined_twice()
    yield "no name of evaluate.py defined above END and below it", twice or None
    for cwd, where in ((lab, "its folder"), (scratch, "another folder")):
        out = run_demo(cwd=cwd, script=os.path.join(lab, "demo.py"))[1]
        yield "the lab's demo.py prints the table, from " + where, \
            None if out == expected else out[-500:]
        arguments = ["-m", "unittest"] + ["discover", "-s", lab] * (cwd != lab)
        done = subprocess.run([sys.executable] + arguments, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        yield "the lab's suite passes, from " + where, \
            None if done.returncode == 0 else done.stdout[-800:]


def failing_open(path, mode="r", **keywords):
    """Open as open() does, but fail at the third file written into a folder."""
    if "x" in mode and len(os.listdir(os.path.dirname(path))) >= 2:
        raise OSError(28, "No space left on device")
    return open(path, mode, **keywords)


def all_or_nothing(scratch):
    """Yield (label, problem or None): a write that fails half way, into a new
    folder (its parents new too) or an empty one, leaves nothing; a rerun works."""
    empty = os.path.join(scratch, "empty")
    os.mkdir(empty)
    for target in (os.path.join(scratch, "a", "b", "lab"), empty):
        before = list(os.walk(scratch))
        demo.open = failing_open  # found by write_lab() before the built-in
        try:
            with contextlib.redirect_stderr(io.StringIO()) as said:
                status = demo.write_lab(target, True)
        finally:
            del demo.open
        left = list(os.walk(scratch)) == before
        with contextlib.redirect_stdout(io.StringIO()):
            again = demo.write_lab(target, True)
        whole = sorted(os.listdir(target)) == sorted(demo.LAB_CUTS)
        yield "a write failing half way into %s leaves nothing; a rerun works" % (
            "an empty folder" if target == empty else "new folders"), None if (
            status, said.getvalue().count("\n"), left, again, whole) == (
            1, 1, True, 0, True) else (status, said.getvalue(), left, again, whole)


def refusal_checks(scratch):
    """Yield (label, problem or None) for each refusal, and an odd folder's name."""
    locked = os.path.join(scratch, "locked")
    os.mkdir(locked, 0o500)
    if not os.access(locked, os.W_OK):  # as root, every folder can be written
        status, out, err = run_demo("--lab", os.path.join(locked, "l"), cwd=scratch)
        yield "demo.py --lab into a folder that cannot be written: status 1, one line", None if (
            status, out, err.count("\n"), os.listdir(locked)) == (1, "", 1, []) else err
    os.chmod(locked, 0o700)
    odd = os.path.join(scratch, "odd\nname\x1b[1m")
    status, out, err = run_demo("--lab", odd)
    yield "a folder's name shown by ascii(), on one line", None if (
        status, out.count("\n"), ascii(odd) in out) == (0, 1, True) else (out, err)
    yield from all_or_nothing(scratch)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        sys.exit(reported(list(lab_checks(scratch)) + list(refusal_checks(scratch))))
