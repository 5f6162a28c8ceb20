"""Call every public function with mutated inputs: only EvaluationError may escape.

Each round replaces a few parts of the fixture's data, a case, a run, counts and a paired
test's values with odd values (wrong types, subclasses, huge ints, NaN, control characters,
objects whose repr or eq raises), calls each public function with them, and checks that no
call changed its inputs.   python .ci/fuzz.py [ROUNDS [SEED]]: one line per kind of
escape, then "N passed, N failed".
"""
import os
import random
import sys
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import evaluate  # noqa: E402  (after the path is set)
import fixtures  # noqa: E402


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


class BrokenEq(str):
    def __eq__(self, other):
        raise RuntimeError("no eq")

    __hash__ = str.__hash__


ODD = [None, True, 0, -1, 10 ** 400, 1.5, float("nan"), float("inf"), "", "a", "A b",
       "\x0b\x1c", b"x", (), [], {}, ("a",), ("a", "a"), type("Sub", (dict,), {})(),
       type("Sub", (tuple,), {})(), BrokenRepr(), BrokenEq("a"), BrokenEq("k"), object(),
       Fraction(1, 3), {1: 2}, {"a": None}, (("a", ()),), 1e308, "x" * 100]
COUNTS = {"relevant": 1, "k": 2, "hits": 1, "first_hit": 1, "generated": 1, "supported": 1,
          "expected": 1, "covered": 1, "disclosed": 0}


def mutated(value, rng, depth=0):
    """Return value with one part, at some depth, replaced, taken out or added."""
    if rng.random() < 0.15 or depth > 5:
        return rng.choice(ODD)
    if type(value) is dict and value:
        changed, key = dict(value), rng.choice(list(value))
        if rng.random() < 0.2:
            del changed[key]
        elif rng.random() < 0.1 and type(rng.choice(ODD)) in (str, int):
            changed[rng.choice(("extra", "k", 7))] = rng.choice(ODD)
        else:
            changed[key] = mutated(value[key], rng, depth + 1)
        return changed
    if type(value) is tuple and value:
        index = rng.randrange(len(value))
        return value[:index] + (mutated(value[index], rng, depth + 1),) + value[index + 1:]
    return value


def calls(rng):
    """Yield (name, function, arguments, keywords) of one round."""
    data = {"k": 2, "systems": ("A", "B"), "corpus": fixtures.CORPUS,
            "cases": fixtures.CASES, "runs": fixtures.RUNS, "policy": fixtures.POLICY}
    data = mutated(data, rng)
    yield "report", evaluate.report, (data,), {"summary": rng.random() < 0.5,
                                                "explain": rng.random() < 0.5}
    corpus = mutated(fixtures.CORPUS, rng) if rng.random() < 0.3 else fixtures.CORPUS
    case = mutated(fixtures.CASES["rollback"], rng)
    run = mutated(fixtures.RUNS["rollback"]["B"], rng)
    k = rng.choice((2, 2, rng.choice(ODD)))
    for name in ("tally", "evaluate", "explain", "ndcg"):
        yield name, getattr(evaluate, name), (corpus, case, run), {"k": k}
    yield "validate", evaluate.validate, (corpus, case, run, k), {}
    yield "lenient", evaluate.lenient, (case,), {}
    yield "scores", evaluate.scores, (mutated(COUNTS, rng),), {}
    before = {"q%d" % index: rng.choice((0.5, 1.0, None, (0.5, 1.0))) for index in range(4)}
    groups = rng.choice((None, {name: rng.choice(ODD) for name in before}))
    yield "paired_test", evaluate.paired_test, (mutated(before, rng), mutated(before, rng)), {
        "groups": groups}
    yield "p_text", evaluate.p_text, (rng.choice(ODD + [0.5]), rng.choice(
        ("exact", "sampled", rng.choice(ODD)))), {}


def fingerprint(value):
    """Return what a call could change of value: the items of every dict,
    list and tuple within it, down to the identity of each other object."""
    if isinstance(value, dict):
        return tuple((fingerprint(key), fingerprint(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return (type(value),) + tuple(fingerprint(item) for item in value)
    return id(value)


def escape(function, arguments, keywords):
    """Return None, or what went wrong calling function: an escape or a change."""
    before = fingerprint((arguments, keywords))
    try:
        function(*arguments, **keywords)
    except evaluate.EvaluationError:
        pass
    except Exception as error:
        return "%s: %s" % (type(error).__name__, str(error)[:100])
    return "changed its input" if fingerprint((arguments, keywords)) != before else None


def main(arguments):
    """Run the rounds; print each kind of escape once."""
    rounds = int(arguments[0]) if arguments else 400
    rng = random.Random(int(arguments[1]) if len(arguments) > 1 else 1)
    found, calls_made = {}, 0
    for _ in range(rounds):
        for name, function, positional, keywords in calls(rng):
            calls_made += 1
            problem = escape(function, positional, keywords)
            if problem is not None:
                found.setdefault((name, problem), 0)
                found[name, problem] += 1
    for (name, problem), count in sorted(found.items()):
        print("%s(): %s (%d times)" % (name, problem, count))
    print("%d calls in %d rounds: only EvaluationError, no input changed" % (calls_made, rounds)
          if not found else "%d kinds of escape" % len(found))
    print("%d passed, %d failed" % (0 if found else 1, 1 if found else 0))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
