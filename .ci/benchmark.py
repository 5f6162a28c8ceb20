"""Time the parts a user waits for, with the peak memory of each.

    python .ci/benchmark.py            everything (several minutes on CPython 3.8)
    python .ci/benchmark.py --quick    without the 100,000-question test
    python .ci/benchmark.py --data FILE QUESTIONS DOCUMENTS
                                       only write the data file it times, of this size

Run it with the Python you use; CPython 3.8 is the slowest. It prints, for
each input, the seconds one call took and the peak memory that call
allocated, as tracemalloc counts it (whole processes: their peak resident
memory):

- paired_test() on 100, 1,000 and 5,000 questions of realistic values
  (ratios of small counts, reciprocal ranks, floats such as 1 - k/d, means
  of repeated runs, arbitrary floats) and of ratios a/b with b up to 5,000
  or 10**6, whose common denominator runs to thousands of bits;
- its worst exact cases: 36 moved questions with no small common unit, and
  36 moved floats spread from 5e-324 to 1.8e308;
- 100,000 questions of arbitrary floats, and of ratios with b up to 10**6;
- python demo.py --data FILE --summary on 20,000 questions that share a
  corpus of 200,000 documents, as a whole process, and the plain table.

It is a measurement, not a test: nothing here passes or fails. Measured on
CPython 3.8.18 on a 2-core machine, 2026-12-03 (seconds; peak MB):

- 100 questions: 0.00-0.18 s; 1,000: 0.07-0.23 s; 5,000: 0.14-1.34 s;
  peaks under 5 MB;
- 5,000 ratios with b up to 5,000: 1.0 s; up to 10**6: 1.3 s;
- 36 moved with no small unit, listed: 0.4 s, 7 MB; 36 moved extreme
  floats, listed: 0.2 s, 40 MB;
- 100,000 arbitrary floats: 21.6 s, 57 MB; 100,000 ratios with b up to
  10**6: 20.9 s, 55 MB, about twenty times the cost of 5,000: it grows
  linearly;
- demo.py --summary on 20,000 questions and 200,000 documents: 4.7 s and
  216 MB as a whole process (a median of 4.2 s over 7 runs; the machine is
  noisy, runs of one input differ by a fifth); the plain table 2.6 s.
"""
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import evaluate  # noqa: E402  (after the path is set)


def realistic(kind, rng):
    """Return one question's value of a realistic kind."""
    if kind == "recall, 1-20 relevant":
        relevant = rng.randint(1, 20)
        return rng.randint(0, relevant) / relevant
    if kind == "support, 1-10 claims":
        claims = rng.randint(1, 10)
        return rng.randint(0, claims) / claims
    if kind == "reciprocal rank":
        return rng.choice([0.0] + [1 / rank for rank in range(1, 21)])
    if kind == "1 - k/d in floats":
        d = rng.randint(1, 30)
        return 1 - rng.randint(0, d) / d
    if kind == "mean of 3 runs":
        return tuple(rng.randint(0, 4) / 4 for _ in range(3))
    if kind == "a/b, b up to 5,000":
        b = rng.randint(1, 5000)
        return rng.randint(0, b) / b
    if kind == "a/b, b up to 10**6":
        b = rng.randint(1, 10 ** 6)
        return rng.randint(0, b) / b
    return rng.random()  # arbitrary floats, such as a similarity score


KINDS = ("recall, 1-20 relevant", "support, 1-10 claims", "reciprocal rank",
         "1 - k/d in floats", "mean of 3 runs", "a/b, b up to 5,000", "a/b, b up to 10**6",
         "arbitrary floats")


def measured(function, *arguments):
    """Return (seconds of one call, peak MB of one traced call, result)."""
    start = time.perf_counter()
    result = function(*arguments)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    function(*arguments)
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    return seconds, peak, result


def paired_inputs(quick):
    """Yield (label, before, after) for the paired test."""
    rng = random.Random(2026)
    for questions in (100, 1000, 5000):
        for kind in KINDS:
            names = ["q%d" % index for index in range(questions)]
            before = {name: realistic(kind, rng) for name in names}
            after = {name: realistic(kind, rng) for name in names}
            yield "%d questions, %s" % (questions, kind), before, after
    # Worst cases of the exact ways.
    moved = {"q%d" % index: rng.choice((-1, 1)) * rng.random() for index in range(36)}
    yield "36 moved, arbitrary floats (listed)", dict.fromkeys(moved, 0.0), moved
    extreme = {"q%d" % index: rng.choice((-1, 1)) * 10.0 ** rng.uniform(-323, 308)
               for index in range(36)}
    extreme["q0"], extreme["q1"] = 5e-324, -1.7976931348623157e308
    yield "36 moved, floats from 5e-324 to 1.8e308 (listed)", dict.fromkeys(extreme, 0.0), extreme
    if quick:
        return
    for kind in ("arbitrary floats", "a/b, b up to 10**6"):
        names = ["q%d" % index for index in range(100000)]
        before = {name: realistic(kind, rng) for name in names}
        after = {name: realistic(kind, rng) for name in names}
        yield "100,000 questions, %s" % kind, before, after


def data_file(path, questions=20000, documents=200000):
    """Write a data file of many questions that share one corpus."""
    rng = random.Random(7)
    corpus = {"d%d" % index: "Document %d." % index for index in range(documents)}
    ids = list(corpus)
    cases, runs = {}, {}
    for index in range(questions):
        name = "q%d" % index
        relevant = rng.sample(ids, rng.randint(0, 5))
        support = {"c%d" % claim: [rng.choice(relevant)] for claim in range(len(relevant))}
        cases[name] = {"relevant": relevant, "support": support,
                       "restricted": [doc for doc in rng.sample(ids, 2) if doc not in relevant]}
        runs[name] = {}
        for system in ("A", "B"):
            pool = sorted(set(relevant + rng.sample(ids, 8)))
            retrieved = rng.sample(pool, rng.randint(0, 8))
            claims = [["c%d" % claim, rng.sample(retrieved, min(len(retrieved), 1))]
                      for claim in range(rng.randint(0, 4))]
            runs[name][system] = {"retrieved": retrieved, "claims": claims}
    unanswerable = [name for name, case in cases.items() if not case["relevant"]]
    answerable = [name for name, case in cases.items() if case["relevant"]]
    policy = {"critical": answerable[:200], "must_abstain": unanswerable[:50],
              "unsupported_budget": {"answerable": 100}}
    with open(path, "w") as file:
        json.dump({"k": 5, "systems": ["A", "B"], "corpus": corpus, "cases": cases,
                   "runs": runs, "policy": policy}, file)


def process(command):
    """Return (seconds, peak resident MB, exit status, lines printed) of one whole process."""
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak, done.returncode, len(done.stdout.splitlines())


def main(arguments):
    """Print one line per measurement, or write a data file."""
    if arguments[:1] == ["--data"] and len(arguments) == 4:
        data_file(arguments[1], int(arguments[2]), int(arguments[3]))
        return
    print("CPython %s" % sys.version.split()[0])
    for label, before, after in paired_inputs("--quick" in arguments):
        seconds, peak, result = measured(evaluate.paired_test, before, after)
        print("paired_test, %s: %.2f s, peak %.1f MB, %s, %d moved" % (
            label, seconds, peak, result["method"], result["wins"] + result["losses"]))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "runs.json")
        data_file(path)
        size = os.path.getsize(path) / 10 ** 6
        for option in (["--summary"], []):
            seconds, peak, status, lines = process(
                [sys.executable, os.path.join(ROOT, "demo.py"), "--data", path] + option)
            print("python demo.py --data FILE %s(%.0f MB, 20,000 questions, 200,000 "
                  "documents): %.2f s, peak %.0f MB resident so far, exit %d, %d lines" % (
                      " ".join(option) + " " if option else "", size, seconds, peak, status,
                      lines))


if __name__ == "__main__":
    main(sys.argv[1:])
