"""Measure what a user waits for: CPU seconds and peak memory of the worst shapes.

    python .ci/benchmark.py [NAME ...]          every shape below (15 minutes), or those named
    python .ci/benchmark.py --data FILE Q D     only write a data file of Q questions, D documents
    python .ci/benchmark.py --graded FILE       only write graded data of repeated runs

Each shape's files are written by one process, then demo.py --summary reads them in another:
its CPU seconds and peak resident MiB, from os.wait4(). README.md's Limits table gives them on
CPython 3.8.18; 1,000,001 qrels topics and a line of 50,000,000 columns are refused.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def child(command):
    """Return (CPU seconds, peak resident MiB, exit status, standard error's first line)."""
    with tempfile.TemporaryFile() as errors:
        started = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        status, usage = os.wait4(started.pid, 0)[1:]
        started.returncode = 0  # reaped here, not by subprocess
        errors.seek(0)
        line = errors.readline().decode("ascii", "replace").rstrip()
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, status >> 8, line[:90]


def real_logs(questions, systems, documents=None):
    """Return data like real logs: 2 to 9 claims a run judged by cited evidence, no qrels; the
    evidence of each question its own, or drawn from as many documents."""
    rng, names = random.Random(3), ["sys-%d" % number for number in range(systems)]
    data = {"k": 5, "systems": names, "corpus": {}, "cases": {}, "runs": {},
            "policy": {"unsupported_rate": {"answerable": 0.3},
                       "significance": {"metric": "support", "alpha": 0.05}}}
    for index in range(questions):
        name, labels = "q%05d" % index, {"optional": {}, "rejected": [], "disputed": {}}
        evidence = ["e%05d-%d" % (index, part) for part in range(rng.randint(2, 6))]
        if documents:
            evidence = ["e%d" % doc for doc in rng.sample(range(documents), len(evidence))]
        data["corpus"].update(dict.fromkeys(evidence, "An evidence passage."))
        data["runs"][name] = {}
        for system in names:
            made = [[system + "-c%d" % number, rng.sample(evidence, rng.randint(0, 2))]
                    for number in range(rng.randint(2, 9))]
            for claim, cited in made:
                draw = rng.random()
                if cited and draw < 0.75:
                    labels["optional" if draw < 0.6 else "disputed"][claim] = cited
                else:
                    labels["rejected"].append(claim)
            data["runs"][name][system] = {"retrieved": evidence[:5], "claims": made}
        data["cases"][name] = dict({"relevant": None, "support": None, "tags": [
            rng.choice(["qa", "summary", "data2text"])]}, **{k: v for k, v in labels.items() if v})
    return data


def graded(questions, systems, relevant, depth, runs=1, claims=0):
    """Return graded questions, runs `depth` deep of 4 times as many documents as relevant."""
    rng, names = random.Random(5), ["s%d" % number for number in range(systems)]
    data = {"k": depth, "systems": names, "cases": {}, "runs": {}}
    if claims:
        data["policy"] = {"significance": {"metric": "support", "alpha": 0.05}}
    for index in range(questions):
        pool = ["d%d-%d" % (index, number) for number in range(4 * relevant)]
        chosen = pool[:relevant]
        data["cases"]["q%d" % index] = {
            "relevant": chosen, "grades": {doc: rng.randint(1, 3) for doc in chosen},
            "support": {"c%d" % n: [chosen[n % relevant]] for n in range(claims)} or None}

        def run():
            retrieved = rng.sample(pool, depth)
            return {"retrieved": retrieved, "claims": [["c%d" % n, [rng.choice(retrieved)]]
                                                       for n in range(claims)] or None}
        data["runs"]["q%d" % index] = {name: run() if runs == 1 else [run() for _ in range(runs)]
                                       for name in names}
    return data


def ignored_keys(count, cases, each):
    """Return `cases` questions, each case `each` of `count` keys of "restricd" letters, none a
    typo: every distinct key of the cases is checked once for a typo."""
    import evaluate
    rng, keys = random.Random(1), set()
    while len(keys) < count:
        key = "".join(rng.choice("restricd") for _ in range(rng.randint(6, 10)))
        try:
            evaluate._check_keys({key: 0}, "case", evaluate._ALL_CASE_KEYS)
            keys.add(key)
        except evaluate.EvaluationError:  # a typo: it would be refused
            pass
    keys, names = sorted(keys), ["q%d" % number for number in range(cases)]
    run = {"retrieved": ["d"], "claims": [["c", ["d"]]]}
    return json.dumps({"systems": ["A"], "corpus": {"d": "t"}, "runs": {
        name: {"A": run} for name in names}, "cases": {name: dict(dict.fromkeys(
            rng.sample(keys, each), 0), relevant=["d"], support={"c": ["d"]}) for name in names}},
                      separators=(",", ":"))


def labelled(questions, systems):
    """Return the JSON of questions of every label, 20 of 100 tags, even ones disputed too."""
    rng, tags = random.Random(1), ["t%d" % number for number in range(100)]
    d, e, f, g, h, r = "中文字母表示"
    case = {"relevant": [d, e, f, g, h], "support": {"c": [d, e]}, "optional": {"e": [f]},
            "rejected": ["f"], "restricted": [r], "grades": dict.fromkeys([d, e, f, g, h], 2)}
    run = {"retrieved": [d, e, f, g, h, r], "claims": [["c", [d]], ["e", [f]], ["f", [r]],
                                                      ["g", [e]]]}
    names = ["s%d" % number for number in range(systems)]
    data = {"k": 5, "systems": names, "cases": {}, "runs": {}}
    for number in range(questions):
        data["cases"]["q%d" % number] = dict(case, tags=rng.sample(tags, 20), **(
            {"disputed": {"c": [g, h]}} if number % 2 == 0 else {}))
        data["runs"]["q%d" % number] = {names[number % systems]: run}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def empty_objects(count):
    """Return one question whose case holds `count` empty objects in a key nobody reads."""
    data = graded(1, 1, 1, 1)
    data["cases"]["q0"]["extra"] = [{}] * count
    return data


def trec(folder, qrels, run, k=10):
    """Write qrels, then a run: a line, or the lines a function of n = 0, 1, ... gives until it
    gives none or 150 MB in all; return demo.py's options."""
    arguments = ["--qrels", os.path.join(folder, "qrels"), "--run", os.path.join(folder, "run"),
                 "--k", str(k)]
    left = 150 * 10 ** 6 - 100  # room for a run's first line
    for path, line in zip(arguments[1:4:2], (qrels, run)):
        if type(line) is str:
            line = lambda n, text=line: "" if n else text  # noqa: E731  (the first alone)
        with open(path, "w") as file:
            for start in range(0, 10 ** 9, 10 ** 5):
                lines = "".join(map(line, range(start, start + 10 ** 5)))
                if not lines or len(lines) > left:
                    break
                file.write(lines)
                left -= len(lines)
    return arguments


SHAPES = {  # name: (what, its data, or a function of a folder that writes TREC files)
    "real_10k": ("10,000 questions x 6 systems, real logs", lambda: real_logs(10000, 6)),
    "real_20k": ("20,000 questions x 2 systems, real logs", lambda: real_logs(20000, 2)),
    "graded_75k": ("75,000 graded questions x 2 systems", lambda: graded(75000, 2, 2, 2)),
    "deep_40k": ("40,000 questions x 2 systems, 5 deep, 4 claims",
                 lambda: graded(40000, 2, 4, 5, claims=4)),
    "claims_10k": ("10,000 questions x 10 systems, significance on support",
                   lambda: graded(10000, 10, 3, 5, claims=5)),
    "relevant_4000": ("100 questions x 4,000 relevant x 20 systems x 5 repeated runs",
                      lambda: graded(100, 20, 4000, 150, runs=5)),
    "ignored_keys": ("99,990 ignored case keys of 6 to 10 letters, 100,000 cases of 14",
                     lambda: ignored_keys(99990, 100000, 14)),
    "labels_62k": ("62,000 questions of every label, 20 of 100 tags, half disputed, x 20 "
                   "systems, each question run by one", lambda: labelled(62000, 20)),
    "empty_objects": ("2,999,000 empty objects in an ignored key, nearly the most read",
                      lambda: empty_objects(2999000)),
    "trec_topics": ("TREC run of one-line topics the qrels lack",
                    lambda folder: trec(folder, "1 0 D 1\n", "%d 0 D 1 1 r\n".__mod__)),
    "trec_qrels": ("TREC qrels of one-document topics",
                   lambda folder: trec(folder, "%d 0 D 1\n".__mod__, "1 0 D 1 1 r\n")),
    "trec_wide": ("TREC run of one line of 50,000,000 columns", lambda folder: trec(
        folder, "1 0 D 1\n", "1 0 D 1 1 r" + " x" * 50000000 + "\n")),
    "trec_deep": ("TREC run of one topic, every line a document",
                  lambda folder: trec(folder, "1 0 D1 1\n", "1 0 D%d 1 1 r\n".__mod__)),
    "trec_kept": ("TREC run of 4,999 topics x 1,000 of 1-character IDs at k = 1000, all kept",
                  lambda folder: trec(folder, lambda n: "%d 0 D 1\n" % n if n < 4999 else "",
                                      lambda n: "%d 0 %s 1 %d r\n" % (n // 1000, chr(
                                          0x4E00 + n % 1000), n) if n < 4999000 else "", 1000)),
}


def write_shape(name, folder):
    """Write a shape's files into folder, and demo.py's arguments; print its size."""
    what, make = SHAPES[name]
    arguments = ["--data", os.path.join(folder, "data.json")]
    if name.startswith("trec"):
        arguments = make(folder)
    else:
        made = make()  # data, or its JSON text
        with open(arguments[1], "w", encoding="utf-8") as file:
            file.write(made if type(made) is str else json.dumps(made))
    size = sum(os.path.getsize(path) for path in arguments[1:4:2])
    print("%s (%.1f MB):" % (what, size / 10 ** 6), end=" ", flush=True)
    with open(os.path.join(folder, "arguments"), "w") as file:
        json.dump(arguments + ["--summary"], file)


def fixture_cost(rounds=21):
    """Return evaluate() on the fixture: (us a call, the seed's, the median ratio of rounds)."""
    import importlib.util
    import statistics
    from fixtures import CASES, CORPUS, RUNS
    seed = subprocess.check_output(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=ROOT)
    with tempfile.NamedTemporaryFile(suffix=".py") as file:
        file.write(subprocess.check_output(["git", "show", seed.split()[-1].decode()
                                            + ":evaluate.py"], cwd=ROOT))
        file.flush()
        modules = [importlib.util.module_from_spec(importlib.util.spec_from_file_location(
            name, path)) for name, path in (("now", os.path.join(ROOT, "evaluate.py")),
                                           ("seed", file.name))]
        for module in modules:
            module.__spec__.loader.exec_module(module)
    pairs = [(CASES[name], run) for name in CASES for run in RUNS[name].values()]
    now, then = [], []
    for _ in range(rounds):  # in turn, so that the machine's drift is paired
        for module, spent in zip(modules, (now, then)):
            spent.append(timeit.timeit(lambda: [module.evaluate(CORPUS, case, run) for case, run
                                                in pairs], number=200) / 200 / len(pairs) * 1e6)
    return min(now), min(then), statistics.median(a / b for a, b in zip(now, then))


def floats_cost(count=100000):
    """Print paired_test() of `count` arbitrary floats: CPU seconds, peak memory."""
    import resource
    import evaluate
    rng = random.Random(2026)
    before, after = ({"q%d" % n: rng.random() for n in range(count)} for _ in range(2))
    started, tested = resource.getrusage(resource.RUSAGE_SELF), evaluate.paired_test(before, after)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print("paired_test() of %d arbitrary floats: %.1f s CPU, peak %.0f MiB, %s, %s draws" % (
        count, usage.ru_utime - started.ru_utime, usage.ru_maxrss / 1024, tested["method"],
        tested["samples"]))


def main(arguments):
    if arguments[:1] == ["--data"]:  # .ci/run's: 3 systems of real logs
        with open(arguments[1], "w") as file:
            return json.dump(real_logs(int(arguments[2]), 3, int(arguments[3])), file)
    if arguments[:1] == ["--graded"]:  # .ci/run's: grades, 3 runs a question, claims
        with open(arguments[1], "w") as file:
            return json.dump(graded(150, 3, 3, 5, runs=3, claims=3), file)
    if arguments[:1] == ["--write"]:
        return write_shape(*arguments[1:])
    if arguments == ["--floats"]:
        return floats_cost()
    print("CPython %s" % sys.version.split()[0], flush=True)
    if not arguments or "fixture" in arguments:
        print("evaluate() on the fixture: %.1f us a call, the seed's %.1f us: %.2f times "
              "(the median of paired rounds)" % fixture_cost(), flush=True)
    if not arguments or "floats" in arguments:
        subprocess.run([sys.executable, __file__, "--floats"], check=True)
    for name in [name for name in SHAPES if not arguments or name in arguments]:
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, __file__, "--write", name, folder], check=True)
            with open(os.path.join(folder, "arguments")) as file:
                command = [sys.executable, os.path.join(ROOT, "demo.py")] + json.load(file)
            print("%.1f s CPU, peak %.0f MiB, exit %d %s" % child(command), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
