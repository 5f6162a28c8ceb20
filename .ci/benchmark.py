"""Time the parts a user waits for, and the peak memory of the paired test.

    python .ci/benchmark.py

Run it with the Python you use; CPython 3.8 is the slowest. It prints, for
each input, the seconds one call took (the best of three) and the peak
memory that call allocated, as tracemalloc counts it:

- paired_test() on 100, 1,000 and 5,000 questions of realistic values
  (ratios of small counts, reciprocal ranks, floats such as 1 - k/d, means
  of repeated runs, arbitrary floats), and on the worst cases of its exact
  ways: 36 moved questions with no small common unit, and a table of sums
  at the step limit;
- python demo.py --data FILE --summary on 1,000 questions that share a
  corpus of 10,000 documents, as a whole process.

It is a measurement, not a test: nothing here passes or fails. Measured on
CPython 3.8.18 on a 2-core machine, 2026-12-02:

- 100 questions: 0.03-0.19 s a call (exact by counting for support over
  1-10 claims and for means of repeated runs; sampled otherwise);
- 1,000 questions: 0.09-0.30 s; 5,000 questions: 0.91-1.46 s, sampled;
- 36 moved questions of arbitrary floats, listed: 0.28 s, peak 26 MB;
- 37 moved questions near the step limit, counted: 0.83 s, peak 35 MB;
- python demo.py --data FILE --summary on 1,000 questions and 10,000
  documents: 1.28 s as a whole process.
"""
import json
import os
import random
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
    return rng.random()  # arbitrary floats, such as a similarity score


KINDS = ("recall, 1-20 relevant", "support, 1-10 claims", "reciprocal rank",
         "1 - k/d in floats", "mean of 3 runs", "arbitrary floats")


def measured(function, *arguments):
    """Return (best seconds of three calls, peak MB of one traced call, result)."""
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        result = function(*arguments)
        seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    function(*arguments)
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    return min(seconds), peak, result


def paired_inputs():
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
    units = {"q%d" % index: rng.choice((-1, 1)) * rng.randint(1, 64000) / 64007
             for index in range(37)}
    yield "37 moved, near the step limit (counted)", dict.fromkeys(units, 0), units


def data_file(path, questions=1000, documents=10000):
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
    with open(path, "w") as file:
        json.dump({"k": 5, "systems": ["A", "B"], "corpus": corpus, "cases": cases,
                   "runs": runs}, file)


def main():
    """Print one line per measurement."""
    print("CPython %s" % sys.version.split()[0])
    for label, before, after in paired_inputs():
        seconds, peak, result = measured(evaluate.paired_test, before, after)
        print("paired_test, %s: %.2f s, peak %.1f MB, %s, %d moved" % (
            label, seconds, peak, result["method"], result["wins"] + result["losses"]))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "runs.json")
        data_file(path)
        command = [sys.executable, os.path.join(ROOT, "demo.py"), "--data", path, "--summary"]
        times = []
        for _ in range(3):
            start = time.perf_counter()
            process = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            times.append(time.perf_counter() - start)
        print("python demo.py --data FILE --summary, 1,000 questions, 10,000 documents: "
              "%.2f s (best of 3), exit %d, %d lines" % (
                  min(times), process.returncode, len(process.stdout.splitlines())))


if __name__ == "__main__":
    main()
