"""Time the parts a user waits for, with the peak memory of each.

    python .ci/benchmark.py            everything (several minutes on CPython 3.8)
    python .ci/benchmark.py --quick    without the 100,000-question test
    python .ci/benchmark.py --limits   only the data files at the caps (about 15 minutes)
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
  corpus of 200,000 documents, as a whole process, and the plain table;
- with --limits, demo.py --data on the largest and most hostile files that
  the caps of a data file allow (evaluate.py: 30,000,000 bytes, 1,000
  systems, 150,000 runs in all, each repeated run counted), each with the
  table, --summary, --explain, --json and all three at once: CPU seconds
  and peak resident MB of each whole process, from os.wait4(). Each file is
  written by a process of its own, as a child started from a large process
  counts that one's memory as its own peak.

It is a measurement, not a test: nothing here passes or fails. Measured on
CPython 3.8.18 on a 2-core machine, 2026-12-04, while other work shared it
(seconds; peak MB):

- 100 questions: 0.00-0.16 s; 1,000: 0.07-0.25 s; 5,000: 0.15-3.6 s (the
  most for 5,000 arbitrary floats, drawn question by question); peaks under
  6 MB;
- 36 moved with no small unit, listed: 1.1 s, 7 MB; 36 moved extreme
  floats, listed: 0.2 s, 40 MB;
- 100,000 arbitrary floats: 23.7 s, 99 MB; 100,000 ratios with b up to
  10**6: 23.5 s, 96 MB, with nothing else running (30.2 and 31.9 s while
  other work shared the machine): it grows linearly, about 0.24 ms a moved
  question, and a sampled test's cost grows so with the questions that
  moved, for each metric and each candidate of a report;
- demo.py --summary on 20,000 questions and 200,000 documents: 5.6 s and
  248 MB as a whole process; the plain table 2.9 s. Each run of a report is
  scored by the contract's public functions, the counts and the six values
  by a call each: the corpus and each case are checked once, each run at
  each call.

--limits, CPU seconds and peak MB for the table / --summary / --explain /
--json / all three (each within 30 s and 1 GB):

- 75,000 questions of 2 systems (17 MB): 8.7 / 17.3 / 11.9 / 9.2 / 19.7 s,
  453 / 550 / 596 / 547 / 678 MB;
- 150 questions of 1,000 systems (11 MB): 5.5 / 12.4 / 8.0 / 6.1 / 14.1 s,
  344 / 452 / 487 / 435 / 611 MB;
- 7,500 questions of 2 systems, 10 repeated runs each (11 MB): 6.3 / 9.1 /
  8.7 / 6.9 / 11.1 s, 357 / 401 / 494 / 434 / 525 MB;
- 10,000 questions of a baseline and 4 candidates, 3 runs each, graded (15
  MB): 11.0 / 27.4 / 13.9 / 11.6 / 29.2 s, 485 / 557 / 653 / 595 / 736 MB,
  the slowest: values of every size make 24 sampled paired tests, drawn
  question by question;
- 75,000 answerable questions of 2 systems, most moved (23 MB): 9.8 /
  21.2 / 13.3 / 10.5 / 23.6 s, 534 / 676 / 729 / 633 / 809 MB;
- fat runs, 100 retrieved and 100 claims of 5 citations (30 MB): 3.7-5.6 s,
  395-494 MB; 50 agreed and 50 disputed labels a case: 6.5-9.8 s, 395-471
  MB;
- 75,000 questions, the rest of the 30 MB an ignored key of {"a": "bc"}:
  9.8-20.5 s, 751-975 MB, the most memory measured; the byte cap filled
  with [] or with {}: 5-6 s, 765 and 841 MB (no count of values caps these
  any more: the byte cap bounds them);
- refused at once: 100,000,000 bytes: 0.0 s, 14 MB; NaN after a 30 MB
  string: 0.1 s, 68 MB; 20,001 systems: 0.0 s; a key repeated at the end of
  a 1,000,000-document corpus: 1.0 s, 307 MB.
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
    yield "36 moved, arbitrary floats", dict.fromkeys(moved, 0.0), moved
    extreme = {"q%d" % index: rng.choice((-1, 1)) * 10.0 ** rng.uniform(-323, 308)
               for index in range(36)}
    extreme["q0"], extreme["q1"] = 5e-324, -1.7976931348623157e308
    yield "36 moved, floats from 5e-324 to 1.8e308", dict.fromkeys(extreme, 0.0), extreme
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


def seed_cost(rounds=31):
    """Return (seconds of evaluate() a call on the fixture, the seed's, the median ratio of
    the two over paired rounds): the seed is evaluate.py of the project's first commit."""
    import importlib.util
    import statistics
    import timeit
    from fixtures import CASES, CORPUS, RUNS
    first = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=ROOT,
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "seed.py")
        with open(path, "w") as file:
            file.write(subprocess.run(["git", "show", first[-1] + ":evaluate.py"], cwd=ROOT,
                                      stdout=subprocess.PIPE, universal_newlines=True).stdout)
        spec = importlib.util.spec_from_file_location("seed", path)
        seed = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(seed)
    pairs = [(CASES[name], run) for name in CASES for run in RUNS[name].values()]
    times = {evaluate.evaluate: [], seed.evaluate: []}
    for _ in range(rounds):
        for function in times:
            calls = lambda: [function(CORPUS, case, run) for case, run in pairs]
            times[function].append(timeit.timeit(calls, number=200) / 200 / len(pairs))
    ratios = [now / then for now, then in zip(times[evaluate.evaluate], times[seed.evaluate])]
    return min(times[evaluate.evaluate]), min(times[seed.evaluate]), statistics.median(ratios)


def real_logs(questions, systems, one_each=False, seed=1, claims=(2, 9)):
    """Return data made like real logs: claims judged against their cited evidence with no
    relevance labels (optional, rejected and disputed claims), a tag of three per question,
    and, with one_each, each question answered by one system alone."""
    rng = random.Random(seed)
    names = ["sys-%s" % name for name in ("second", "gpt", "llama", "mistral", "claude",
                                          "base")][:systems]
    names = [names[-1]] + names[:-1]
    data = {"k": 5, "systems": names, "corpus": {}, "cases": {}, "runs": {},
            "policy": {"unsupported_rate": {"answerable": 0.3},
                       "significance": {"metric": "support", "alpha": 0.05}}}
    for index in range(questions):
        name = "q%05d" % index
        evidence = ["e%05d-%d" % (index, part) for part in range(rng.randint(2, 6))]
        data["corpus"].update(dict.fromkeys(evidence, "An evidence passage."))
        labels = {"optional": {}, "rejected": [], "disputed": {}}
        data["runs"][name] = {}
        for system in [rng.choice(names)] if one_each else names:
            made = []
            for number in range(rng.randint(*claims)):
                claim, cited = "%s-c%d" % (system[4:], number), rng.sample(evidence,
                                                                            rng.randint(0, 2))
                made.append([claim, cited])
                draw = rng.random()
                if draw < 0.6 and cited:
                    labels["optional"][claim] = cited
                elif draw < 0.75 and cited and not one_each:
                    labels["disputed"][claim] = cited
                else:
                    labels["rejected"].append(claim)
            data["runs"][name][system] = {"retrieved": evidence[:5], "claims": made}
        data["cases"][name] = dict({"relevant": None, "support": None,
                                    "tags": [rng.choice(["qa", "summary", "data2text"])]},
                                   **{key: value for key, value in labels.items() if value})
    return data


REAL_LOGS = [  # label, real_logs()'s arguments
    ("479 questions, each answered by one of 6 systems", (479, 6, True)),
    ("100 questions answered by 6 systems", (100, 6, False, 2)),
    ("10,000 questions answered by 6 systems", (10000, 6, False, 3, (1, 3))),
]


def real_log_costs(folder):
    """Print, for each of REAL_LOGS, the CPU seconds, peak MB, lines and widest line of the
    summary, and the CPU seconds and peak MB of the JSON report and of --gate."""
    path = os.path.join(folder, "real.json")
    for index, (label, arguments) in enumerate(REAL_LOGS):
        subprocess.run([sys.executable, __file__, "--real", str(index), path], check=True)
        for option in (["--summary"], ["--json", "--summary"], ["--gate"]):
            command = [sys.executable, os.path.join(ROOT, "demo.py"), "--data", path] + option
            seconds, peak, status, line = child(command)
            lines = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   universal_newlines=True).stdout.splitlines()
            print("    %-18s %5.1f s CPU, peak %4.0f MiB, exit %d, %d lines, the widest %d" % (
                " ".join(option), seconds, peak, status, len(lines), max(map(len, lines))))


def at_the_caps():
    """Return [(label, a function that returns the data or text)] of the largest and most
    hostile files the caps allow."""
    rows, systems, size = evaluate._MAX_ROWS, evaluate._MAX_SYSTEMS, evaluate._MAX_FILE_BYTES
    return [
        ("many questions: %d of 2 systems" % (rows // 2), lambda: many(rows // 2, 2)),
        ("many systems: %d questions of %d" % (rows // systems, systems),
         lambda: many(rows // systems, systems)),
        ("20 tags of its own on each of 10,000 questions: refused, 100 tags in all at most",
         lambda: tagged(10000, 2, own=True)),
        ("100 tags in all, 20 a question: %d questions of %d systems" % (
            rows // systems, systems), lambda: tagged(rows // systems, systems)),
        ("%d systems whose reciprocal ranks differ, rr declared: %d paired tests" % (
            systems, systems - 1), lambda: ranked(rows // systems, systems)),
        ("10 repeated runs a question: %d questions of 2 systems" % (rows // 20),
         lambda: many(rows // 20, 2, repeats=10)),
        ("4 candidates and a baseline, 3 runs a question, graded: %d questions" % (rows // 15),
         lambda: graded(rows // 15, 5, repeats=3)),
        ("many answerable questions, most of them moved: as many as the caps allow",
         lambda: filled(answered, rows // 2, size)),
        ("fat runs: 100 retrieved, 100 claims of 5 citations", lambda: filled(fat, rows // 2,
                                                                              size)),
        ("many disputed labels: 50 agreed, 50 disputed per case",
         lambda: filled(disputed, rows // 2, size)),
        ('many questions, the rest of the bytes an ignored key of {"a": "bc"}',
         lambda: with_ignored(many(rows // 2, 2), size)),
        ("an ignored key of [] filling the byte cap", lambda: of_size(size, "[]")),
        ("an ignored key of {} filling the byte cap", lambda: of_size(size, "{}")),
        ("an ignored key of 33 million {}, 100,000,000 bytes", lambda: of_size(10 ** 8, "{}")),
        ("NaN after a string up to the byte cap", lambda: '{"k": 2, "x": "%s", "y": NaN}' % (
            "a" * (size - 30))),
        ("NaN after a 99 MB string", lambda: '{"k": 2, "x": "%s", "y": NaN}' % (
            "a" * 99 * 10 ** 6)),
        ("a repeated key in a 1,000,000-document corpus", lambda: (
            '{"systems": ["A", "B"], "corpus": {%s, "d7": "t"}, "cases": {}, "runs": {}}'
            % ",".join('"d%d": "t"' % index for index in range(10 ** 6)))),
        ("%d systems, the last a repeat" % systems, lambda: {
            "systems": ["s%d" % index for index in range(systems - 1)] + ["s7"],
            "corpus": {"d": "t"}, "cases": {}, "runs": {}}),
        ("20,001 systems with a repeat", lambda: {
            "systems": ["s%d" % index for index in range(20000)] + ["s7"],
            "corpus": {"d": "t"}, "cases": {}, "runs": {}}),
    ]


def many(questions, systems, repeats=1):
    """Return the data of many small questions, of 0 to 3 relevant documents each, with
    `repeats` runs of each question by each system."""
    rng = random.Random(questions)
    corpus = {"d%d" % index: "t" for index in range(1000)}
    data = {"k": 5, "systems": ["s%d" % index for index in range(systems)], "corpus": corpus,
            "cases": {}, "runs": {}}

    def run(relevant):
        return {"retrieved": rng.sample(list(corpus), rng.choice((0, 1, 2, 3, 5))),
                "claims": [["c%d" % claim, [rng.choice(relevant or ["d0"])]]
                           for claim in range(rng.randint(0, 2))]}
    for index in range(questions):
        relevant = rng.sample(list(corpus), rng.randint(0, 3))
        data["cases"]["q%d" % index] = {"relevant": relevant, "support": {
            "c%d" % claim: [doc] for claim, doc in enumerate(relevant)}}
        data["runs"]["q%d" % index] = {
            system: run(relevant) if repeats == 1 else [run(relevant) for _ in range(repeats)]
            for system in data["systems"]}
    return data


def tagged(questions, systems, own=False):
    """Return many() with 20 tags a question: its own, or 20 of 100 shared tags."""
    rng = random.Random(5)
    data = many(questions, systems)
    shared = ["t%d" % index for index in range(100)]
    for index, case in enumerate(data["cases"].values()):
        case["tags"] = ["q%d-%d" % (index, tag) for tag in range(20)] if own else rng.sample(
            shared, 20)
    return data


def ranked(questions, systems):
    """Return data of questions with one relevant document of 100, of which each system ranks
    20 at random: reciprocal ranks of many sizes, and a policy that tests them."""
    rng = random.Random(6)
    corpus = ["d%d" % index for index in range(100)]
    data = {"k": 20, "systems": ["s%d" % index for index in range(systems)],
            "corpus": dict.fromkeys(corpus, "t"), "cases": {}, "runs": {},
            "policy": {"significance": {"metric": "rr", "alpha": 0.05}}}
    for index in range(questions):
        relevant = rng.choice(corpus)
        data["cases"]["q%d" % index] = {"relevant": [relevant], "support": {"c": [relevant]}}
        data["runs"]["q%d" % index] = {system: {"retrieved": rng.sample(corpus, 20),
                                                "claims": None} for system in data["systems"]}
    return data


def graded(questions, systems, repeats):
    """Return the data of questions with graded relevance whose runs often find and cite what
    is relevant, each run of each system repeated: values of every size, as real logs have."""
    rng = random.Random(questions)
    corpus = ["d%d" % index for index in range(1000)]
    data = {"k": 5, "systems": ["s%d" % index for index in range(systems)],
            "corpus": dict.fromkeys(corpus, "t"), "cases": {}, "runs": {}}
    for index in range(questions):
        relevant = rng.sample(corpus, rng.randint(1, 4))
        data["cases"]["q%d" % index] = {
            "relevant": relevant, "grades": {doc: rng.randint(1, 3) for doc in relevant},
            "support": {"c%d" % claim: [doc] for claim, doc in enumerate(relevant)}}
        data["runs"]["q%d" % index] = {system: [{
            "retrieved": rng.sample(sorted(set(relevant + rng.sample(corpus, 6))), 5),
            "claims": [["c%d" % claim, [rng.choice(relevant + corpus[:3])]]
                       for claim in range(rng.randint(0, len(relevant)))]}
            for _ in range(repeats)] for system in data["systems"]}
    return data


def answered(rng, corpus, systems):
    """Return (case, runs) of 3 relevant documents and runs of 3 retrieved and 2 claims."""
    relevant = rng.sample(corpus, 3)
    others = [doc for doc in corpus[:50] if doc not in relevant]
    case = {"relevant": relevant, "support": {"c%d" % claim: [doc]
                                              for claim, doc in enumerate(relevant)}}
    runs = {system: {"retrieved": rng.sample(relevant + rng.sample(others, 3), 3), "claims": [
        ["c%d" % claim, [rng.choice(relevant)]] for claim in range(2)]} for system in systems}
    return case, runs


def fat(rng, corpus, systems, agreed=100):
    """Return (case, runs) of 100 relevant documents, and runs of 100 retrieved and 100
    claims of 5 citations; the claims past `agreed` are disputed."""
    relevant = rng.sample(corpus, 100)
    claims = {"c%d" % claim: rng.sample(relevant, 5) for claim in range(100)}
    case = {"relevant": relevant, "support": dict(list(claims.items())[:agreed])}
    if agreed < 100:
        case["disputed"] = dict(list(claims.items())[agreed:])
    runs = {system: {"retrieved": rng.sample(corpus, 100), "claims": [
        [claim, rng.sample(relevant, 5)] for claim in claims]} for system in systems}
    return case, runs


def disputed(rng, corpus, systems):
    """Return fat() of 50 agreed and 50 disputed claims."""
    return fat(rng, corpus, systems, agreed=50)


def filled(question, most, size):
    """Return data of as many questions made by question() as fit in `size` bytes, and at
    most `most` of them."""
    rng = random.Random(1)
    corpus = ["d%d" % index for index in range(1000)]
    data = {"k": 5, "systems": ["A", "B"], "corpus": dict.fromkeys(corpus, "t"),
            "cases": {}, "runs": {}}
    case, runs = question(rng, corpus, data["systems"])
    each = len(json.dumps({"q0": case, "q1": runs})) + 8
    for index in range(min(most, (size - len(json.dumps(data)) - 1000) // each)):
        data["cases"]["q%d" % index], data["runs"]["q%d" % index] = question(
            rng, corpus, data["systems"])
    return data


def with_ignored(data, size, item='{"a": "bc"}'):
    """Return data whose first case carries an ignored key of items, up to `size` bytes."""
    text = json.dumps(data)
    count = (size - len(text) - 20) // (len(item) + 2)
    head, tail = text.split('"relevant"', 1)
    return head + '"note": [' + ", ".join([item] * count) + '], "relevant"' + tail


def of_size(size, item):
    """Return a file of exactly `size` bytes: one question whose case carries an ignored key
    of items."""
    head, tail = json.dumps(many(1, 2)).split('"relevant"', 1)
    head, tail = head + '"note": [', item + '], "relevant"' + tail
    count = (size - len(head) - len(tail)) // (len(item) + 1)
    return (head + (item + ",") * count + " " * (size - len(head) - len(tail)
                                                 - (len(item) + 1) * count) + tail)


def child(command):
    """Return (CPU seconds, peak resident MB, exit status, first line of standard error)."""
    with tempfile.TemporaryFile() as errors:
        started = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        status, usage = os.wait4(started.pid, 0)[1:]
        started.returncode = 0  # waited for here, not by subprocess
        errors.seek(0)
        line = errors.readline().decode("ascii", "replace").rstrip()
    status = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, status, line


def limits(folder):
    """Print the cost of each file at the caps, for each kind of report.

    Each file is written by a process of its own: a child started from a
    large process would count that one's memory as its own peak.
    """
    path = os.path.join(folder, "limit.json")
    for index in range(len(at_the_caps())):
        subprocess.run([sys.executable, __file__, "--limit", str(index), path], check=True)
        for option in ([], ["--summary"], ["--explain"], ["--json"],
                       ["--json", "--summary", "--explain"]):
            seconds, peak, status, line = child(
                [sys.executable, os.path.join(ROOT, "demo.py"), "--data", path] + option)
            print("    %-28s %5.1f s CPU, peak %4.0f MiB, exit %d%s" % (
                " ".join(option) or "(the table)", seconds, peak, status, line[len(path):][:90]))
            if status:
                break  # refused: the other options are refused the same way


def write_limit(index, path, real=False):
    """Write the file of at_the_caps()[index] (or of REAL_LOGS[index]); print its label and
    size."""
    if real:
        label, arguments = REAL_LOGS[index]
        data = real_logs(*arguments)
    else:
        label, make = at_the_caps()[index]
        data = make()
    text = data if isinstance(data, str) else json.dumps(data)
    with open(path, "w") as file:
        file.write(text)
    print("%s (%.1f MB):" % (label, len(text) / 10 ** 6), flush=True)


def main(arguments):
    """Print one line per measurement, or write a data file."""
    if arguments[:1] == ["--data"] and len(arguments) == 4:
        data_file(arguments[1], int(arguments[2]), int(arguments[3]))
        return
    if arguments[:1] in (["--limit"], ["--real"]) and len(arguments) == 3:
        write_limit(int(arguments[1]), arguments[2], arguments[0] == "--real")
        return
    print("CPython %s" % sys.version.split()[0])
    if arguments == ["--limits"]:
        with tempfile.TemporaryDirectory() as folder:
            limits(folder)
        return
    now, then, ratio = seed_cost()
    print("evaluate() on the fixture: %.2f us a call, the seed's %.2f us: %.2f times as long"
          " (the median of paired rounds)" % (now * 1e6, then * 1e6, ratio))
    with tempfile.TemporaryDirectory() as folder:
        print("real logs:")
        real_log_costs(folder)
        path = os.path.join(folder, "runs.json")
        data_file(path)
        size = os.path.getsize(path) / 10 ** 6
        for option in (["--summary"], []):
            seconds, peak, status, line = child(
                [sys.executable, os.path.join(ROOT, "demo.py"), "--data", path] + option)
            print("python demo.py --data FILE %s(%.0f MB, 20,000 questions, 200,000 "
                  "documents): %.1f s CPU, peak %.0f MiB, exit %d" % (
                      " ".join(option) + " " if option else "", size, seconds, peak, status))
    for label, before, after in paired_inputs("--quick" in arguments):
        seconds, peak, result = measured(evaluate.paired_test, before, after)
        print("paired_test, %s: %.2f s, peak %.1f MB, %s, %d moved" % (
            label, seconds, peak, result["method"], result["wins"] + result["losses"]))


if __name__ == "__main__":
    main(sys.argv[1:])
