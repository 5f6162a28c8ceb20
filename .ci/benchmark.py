"""Time the parts a user waits for, with the peak memory of each.

    python .ci/benchmark.py            everything (several minutes on CPython 3.8)
    python .ci/benchmark.py --quick    without the 100,000-question test
    python .ci/benchmark.py --limits   only the data files at the caps (about 20 minutes)
    python .ci/benchmark.py --trec     only TREC files at the caps (about 5 minutes)
    python .ci/benchmark.py --data FILE QUESTIONS DOCUMENTS
                                       only write the data file it times, of this size

Run it with the Python you use; CPython 3.8 is the slowest. It prints:

- evaluate() on the fixture against evaluate.py of the project's first
  commit, the seed, in paired rounds: the median ratio of the two;
- python demo.py --data FILE with --summary, --json --summary and --gate on
  data made like real logs (answers judged claim by claim against cited
  evidence, no relevance labels): 479 questions each answered by one of six
  systems, 100 questions of six systems, 2,500 questions of six systems
  (15,000 runs, the cap): CPU seconds and peak resident MiB of each whole
  process, the lines of the summary and its widest line;
- --summary and the plain table on 7,500 questions of two systems sharing
  a corpus of 200,000 documents;
- paired_test() on 100, 1,000 and 5,000 questions of realistic values and
  of ratios a/b with b up to 5,000 or 10**6, 36 moved floats, and (not
  with --quick) 100,000 questions: seconds of one call, and the peak
  memory tracemalloc counts;
- with --limits, demo.py --data on the largest and most hostile files the
  caps allow (30,000,000 bytes, 100 systems, 15,000 runs in all, 1,500,000
  label IDs read, 100 tags in all), and small files whose paired tests
  each move 22 questions, each with the table, --summary, --explain, --json and all
  three; with --trec, demo.py --qrels --run on TREC files at the caps
  (150,000,000 bytes): CPU seconds and peak resident MiB of each whole
  process, from os.wait4(). Each file is written by a process of its own.

It is a measurement, not a test: nothing here passes or fails. Measured on
CPython 3.8.18 on a 2-core machine shared with other work, 2026-12-06:

- evaluate() on the fixture: 67.3 us a call against the seed's 47.6 us,
  1.40 times as long (median of paired rounds; 1.23 on a quieter machine);
- real logs, --summary / --json --summary / --gate: 479 questions, 0.3 s,
  17 MiB; 100 x 6: 3.0 s, 20 MiB; 2,500 x 6: 7.5 / 7.8 / 7.6 s, 84 / 97 /
  84 MiB, 155 lines, the widest 159;
- 7,500 questions of 200,000 documents: --summary 6.5 s, 128 MiB; the
  table 4.2 s, 116 MiB;
- paired_test(): 100 questions, at most 0.37 s; 1,000, at most 0.29 s;
  5,000, at most 1.9 s, peaks under 10 MB; 36 moved floats, exact, 0.47 s
  (up to 114.5 MB for floats from 5e-324 to 1.8e308). Measured earlier:
  100,000 arbitrary floats 22.6 s, 91 MiB;
- --limits, CPU seconds and peak MiB, the slowest option of each (all
  within 30 s and 2**30 bytes): 22 questions, a baseline and 10 candidates
  moving every measure, 0.3 s (with disputed labels 0.4 s; with 60
  repeated runs, 14,520 runs, 5.8 s, 95 MiB); 7,500 questions of 2
  systems 4.5 s, 79 MiB; 150 questions of 100 systems 3.4 s; with 20 of
  100 tags a question 4.8 s, 105 MiB; 100 systems whose reciprocal ranks
  differ, rr declared, 6.9 s; 4 candidates with 3 graded runs each, 1,000
  questions, 11.0 s; 7,500 graded questions of 2 systems, a disputed claim
  each, nDCG declared, 18.5 s, 170 MiB; graded, 150 questions of 100
  systems, 10.9 s; answerable questions to the caps 5.9 s; fat runs (100
  retrieved, 100 claims of 5 citations) 13.5 s, 255 MiB; 50 agreed and 50
  disputed labels a case 19.9 s, 261 MiB, the slowest; 7,500 questions
  and the bytes of {"a": "bc"} 12.9 s, 742 MiB; the byte cap of [] 9.5 s,
  778 MiB, of {} 17.4 s, 854 MiB, the most memory;
- --trec, the slowest option of each: 10,000 topics x 6 runs x 1,000 deep
  (2.3 GB) refused at once, 0.1 s; 6 runs 1,000 deep of 500 topics (116
  MB) 10.8 s, 59 MiB; 250 topics of 1,000 relevant, 6 runs 1,000 deep
  (1,500,000 label IDs read) 9.2 s, 86 MiB; 100 runs 200 deep of 150
  topics (15,000 runs) 21.2 s, 218 MiB; qrels of 1,500,000 lines and a run
  10 deep 15.6 s, 318 MiB;
- refused in one line at once: 20 tags of its own on each of 7,500
  questions 0.7 s; 100,000,000 bytes 0.1 s; NaN after 30 MB 0.3 s, named
  by its place; a key repeated at the end of a 1,000,000-document corpus
  1.6 s, 308 MiB; 20,001 systems 0.1 s.
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


def data_file(path, questions=7500, documents=200000):
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
    ("2,500 questions answered by 6 systems: 15,000 runs", (2500, 6, False, 3, (1, 3))),
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
        ("22 questions, a baseline and 10 candidates moving every measure, nDCG declared",
         lambda: moving(22, 11, disputed=False)),
        ("the same with a disputed label a question", lambda: moving(22, 11)),
        ("the same, 60 repeated runs of each question by each system: 14,520 runs",
         lambda: moving(22, 11, disputed=False, repeats=60)),
        ("many questions: %d of 2 systems" % (rows // 2), lambda: many(rows // 2, 2)),
        ("many systems: %d questions of %d" % (rows // systems, systems),
         lambda: many(rows // systems, systems)),
        ("20 tags of its own on each of %d questions: refused, 100 tags in all at most"
         % (rows // 2), lambda: tagged(rows // 2, 2, own=True)),
        ("100 tags in all, 20 a question: %d questions of %d systems" % (
            rows // systems, systems), lambda: tagged(rows // systems, systems)),
        ("%d systems whose reciprocal ranks differ, rr declared: %d paired tests" % (
            systems, systems - 1), lambda: ranked(rows // systems, systems)),
        ("10 repeated runs a question: %d questions of 2 systems" % (rows // 20),
         lambda: many(rows // 20, 2, repeats=10)),
        ("4 candidates and a baseline, 3 runs a question, graded: %d questions" % (rows // 15),
         lambda: graded(rows // 15, 5, repeats=3)),
        ("graded, a claim and a disputed one a run, nDCG declared: %d questions of 2"
         % (rows // 2), lambda: moving(rows // 2, 2)),
        ("graded, 8 claims a case: %d questions of %d systems" % (rows // systems, systems),
         lambda: moving(rows // systems, systems, disputed=False)),
        ("many answerable questions, most of them moved: as many as the caps allow",
         lambda: filled(answered, rows // 2, size)),
        ("fat runs: 100 retrieved, 100 claims of 5 citations, to the labels read",
         lambda: filled(fat, evaluate._MAX_READ // 1400, size)),  # 2 runs of 700 labels
        ("many disputed labels: 50 agreed, 50 disputed per case, to the labels read",
         lambda: filled(disputed, evaluate._MAX_READ // 1400, size)),
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


def moving(questions, systems, disputed=True, repeats=1):
    """Return graded questions whose runs move every measure: each run retrieves 10 of 40
    documents at random and cites 1 to 8 claims (and the disputed one), each one of 8
    documents, 4 of them relevant; with
    repeats, that many runs of each question by each system."""
    rng, corpus = random.Random(1), ["d%d" % index for index in range(40)]

    def run(relevant):
        return {"retrieved": rng.sample(corpus, 10),
                "claims": [["c%d" % index, [rng.choice(relevant[:4] + corpus[:4])]]
                           for index in range(rng.randint(1, 8))]
                + [["z", [relevant[0]]]] * disputed}
    names = ["s%d" % index for index in range(systems)]
    data = {"k": 10, "systems": names, "cases": {}, "runs": {},
            "policy": {"significance": {"metric": "ndcg", "alpha": 0.05}}}
    for number in range(questions):
        relevant = rng.sample(corpus, 8)
        data["cases"]["q%d" % number] = dict({
            "relevant": relevant, "grades": {doc: rng.randint(1, 5) for doc in relevant},
            "support": {"c%d" % index: [doc] for index, doc in enumerate(relevant)}},
            **({"disputed": {"z": [relevant[0]]}} if disputed else {}))
        data["runs"]["q%d" % number] = {
            name: run(relevant) if repeats == 1 else [run(relevant) for _ in range(repeats)]
            for name in names}
    return data


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


def trec_lines(path, topics, depth, rng, tag=None):
    """Write `depth` lines a topic, of documents drawn from 3,200,000: a run named tag,
    its scores falling, or without a tag qrels of grades 1 to 3."""
    with open(path, "w") as file:
        for topic in topics:
            picked = rng.sample(range(3200000), depth)
            if tag is None:
                file.writelines("%s 0 MARCO_D%d %d\n" % (topic, doc, rng.randint(1, 3))
                                for doc in picked)
            else:
                file.writelines("%s Q0 MARCO_D%d %d %.2f %s\n" % (
                    topic, doc, rank, 30 - rank / 100, tag) for rank, doc in enumerate(
                        picked, start=1))


# (what, runs, topics, run depth, relevant documents a topic, the runs one file linked)
TREC_SHAPES = [
    ("10,000 topics x 6 runs x 1,000 deep, 2.3 GB: refused at once", 6, 10000, 1000, 50, 1),
    ("6 runs 1,000 deep, 500 topics, 50 relevant each", 6, 500, 1000, 50, 0),
    ("6 runs 1,000 deep, 250 topics of 1,000 relevant: 1,500,000 label IDs read",
     6, 250, 1000, 1000, 0),
    ("100 runs 200 deep, 150 topics of 100 relevant: 15,000 runs in all", 100, 150, 200, 100, 0),
    ("qrels of 1,500,000 lines (10,000 topics of 150) and a run 10 deep", 1, 10000, 10, 150, 0),
]


def trec_files(folder, runs, topics, depth, relevant, linked):
    """Write the qrels and runs of a TREC shape; return the demo.py arguments, k 100."""
    rng, names = random.Random(7), [str(1000000 + 37 * index) for index in range(topics)]
    arguments = ["--k", "100", "--qrels", os.path.join(folder, "qrels.txt")]
    trec_lines(arguments[-1], names, relevant, rng)
    for index in range(runs):
        arguments += ["--run", os.path.join(folder, "run%d.txt" % index)]
        if linked and index:  # the same bytes again: read as other runs would be
            os.symlink(arguments[-3], arguments[-1])
        else:
            trec_lines(arguments[-1], names, depth, rng, "s%d" % index)
    return arguments


def trec_limits(folder):
    """Print the cost of each TREC shape: the table, --summary, and all three options."""
    for what, *shape in TREC_SHAPES:
        with tempfile.TemporaryDirectory(dir=folder) as inside:
            arguments = trec_files(inside, *shape)
            size = sum(os.path.getsize(path) for path in arguments[3::2])
            print("TREC: %s (%.1f MB):" % (what, size / 10 ** 6), flush=True)
            for option in ([], ["--summary"], ["--json", "--summary", "--explain"]):
                seconds, peak, status, line = child(
                    [sys.executable, os.path.join(ROOT, "demo.py")] + arguments + option)
                print("    %-28s %5.1f s CPU, peak %4.0f MiB, exit %d %s" % (
                    " ".join(option) or "(the table)", seconds, peak, status, line[-90:]),
                    flush=True)
                if status:
                    break


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
    if arguments in (["--limits"], ["--trec"]):
        with tempfile.TemporaryDirectory() as folder:
            (limits if arguments == ["--limits"] else trec_limits)(folder)
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
            print("python demo.py --data FILE %s(%.0f MB, 7,500 questions, 200,000 "
                  "documents): %.1f s CPU, peak %.0f MiB, exit %d" % (
                      " ".join(option) + " " if option else "", size, seconds, peak, status))
    for label, before, after in paired_inputs("--quick" in arguments):
        seconds, peak, result = measured(evaluate.paired_test, before, after)
        print("paired_test, %s: %.2f s, peak %.1f MB, %s, %d moved" % (
            label, seconds, peak, result["method"], result["wins"] + result["losses"]))


if __name__ == "__main__":
    main(sys.argv[1:])
