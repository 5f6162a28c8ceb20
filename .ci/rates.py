"""Rerun the rates that README.md's "What the paired test assumes" states.

    python .ci/rates.py [--quick] [--check] [RATE ...]

Each rate draws trials with no true difference from its setting and
decides each as the significance rule does: alpha 0.05, the mean rose over
the units and the questions, p_upper within the level Holm's method gives
(evaluate's own _significance_tests()). By default it runs the README's
trials from the README's seeds, so it prints the README's figures exactly
(about 25 minutes of CPU on CPython 3.11); --quick, a tenth of the trials
from other seeds: a fresh measurement in about 2.5 minutes. --check exits 1
when a rate is over 3 standard errors (of both measurements combined) from
the README's figure, or the README no longer states it. Not run by .ci/run:
too slow for every push.
"""
import math
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import evaluate  # noqa: E402  (after the path is set)

NAMES = ["q%02d" % number for number in range(50)]
SKEWED = (0.1,) * 38 + (-1.0,) * 2 + (-0.05,) * 36  # chances in 76ths


def accepted(baseline, candidates, groups=None):
    """Whether the rule accepts any candidate: Holm's levels and order as
    the report gives them, then rose and p_upper within the level."""
    tested = {index: {"m": evaluate.paired_test(baseline, after,
                                                groups=groups)}
              for index, after in enumerate(candidates)}
    tests = evaluate._significance_tests(
        {"significance": {"metric": "m", "alpha": 0.05}}, tested)
    return any(test["earlier_steps_held"] and test["mean"] > 0
               and test["question_mean"] > 0
               and evaluate._p_holds(test, test["level"])
               for test in tests.values())


def one(before, after, groups=None):
    """One candidate: a trial whose question mean fell cannot be accepted,
    so it is not tested (a speed-up only: the rule needs it to rise)."""
    def mean(value):
        return math.fsum(value) / len(value) if type(value) is tuple else value
    change = math.fsum(mean(after[name]) - mean(before[name])
                       for name in after)
    return change > -1e-9 and accepted(before, [after], groups)


def coverage(draw):
    return {name: draw.randrange(4) / 3 for name in NAMES[:30]}


def uniform(draw, questions):
    return {name: draw.random() for name in NAMES[:questions]}


def unequal(draw, chance, runs):
    """30 questions; the candidate has `runs` runs (1 or 5), the baseline
    6 - runs; each run covers Binomial(3, chance) of 3 claims."""
    def side(count):
        values = [sum(draw.random() < chance for _ in range(3)) / 3
                  for _ in range(count)]
        return tuple(values) if count > 1 else values[0]
    before = {name: side(6 - runs) for name in NAMES[:30]}
    return one(before, {name: side(runs) for name in NAMES[:30]})


def conversations(draw, declared):
    """10 conversations of 5 turns, differences normal (0, 1) correlated
    0.5 within one; groups declared or left out."""
    after, groups = {}, {}
    for number, name in enumerate(NAMES):
        if number % 5 == 0:
            shared = draw.gauss(0, 1)
        after[name] = (shared + draw.gauss(0, 1)) * 0.5 ** 0.5
        groups[name] = "c%d" % (number // 5)
    return one(dict.fromkeys(after, 0.0), after, groups if declared else None)


def skewed(draw):
    after = {name: SKEWED[draw.randrange(76)] for name in NAMES[:30]}
    return one(dict.fromkeys(after, 0.0), after)


# Each rate: its name (its seed), the README's percent and trials, the
# setting drawn with no true difference, and a trial: accepted or not.
RATES = [
    ("coverage_30", 1.88, 40000, "30 questions, coverage uniform on {0, 1/3,"
     " 2/3, 1} on both sides", lambda d: one(coverage(d), coverage(d))),
    ("continuous_30", 2.38, 10000, "30 questions, a score uniform on [0, 1)"
     " on both sides (p exact)",
     lambda d: one(uniform(d, 30), uniform(d, 30))),
    ("continuous_40", 2.40, 6000, "40 questions, the same score (p sampled)",
     lambda d: one(uniform(d, 40), uniform(d, 40))),
    ("holm_3", 1.77, 10000, "any of 3 candidates, as coverage_30, Holm",
     lambda d: accepted(coverage(d), [coverage(d) for _ in range(3)])),
    ("holm_5", 1.60, 10000, "any of 5 candidates, as coverage_30, Holm",
     lambda d: accepted(coverage(d), [coverage(d) for _ in range(5)])),
    ("skewed", 15.82, 20000, "30 differences +0.10 (chance 1/2), -0.05 "
     "(18/38), -1 (1/38): mean 0", skewed),
    ("groups_left_out", 12.26, 8000, "10 conversations of 5 turns, groups "
     "left out: 50 units (p sampled)", lambda d: conversations(d, False)),
    ("groups_declared", 2.42, 20000, "the same, groups declared: 10 units",
     lambda d: conversations(d, True)),
    ("one_run_high", 4.12, 20000, "1 run against 5, each covering Binomial("
     "3, 0.9) of 3 claims: the 1-run side", lambda d: unequal(d, 0.9, 1)),
    ("five_runs_high", 1.06, 20000, "the same, the 5-run side",
     lambda d: unequal(d, 0.9, 5)),
    ("one_run_low", 0.98, 20000, "Binomial(3, 0.1): the 1-run side",
     lambda d: unequal(d, 0.1, 1)),
    ("five_runs_low", 4.03, 20000, "Binomial(3, 0.1): the 5-run side",
     lambda d: unequal(d, 0.1, 5)),
]


def variance(share, trials):
    return share * (1 - share) / trials


def main(options):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        section = file.read().split("## What the paired test assumes")[1]
    # One space between words, as a figure may wrap in a list's indent.
    section, failed = " ".join(section.split("\n## ")[0].split()), 0
    quick = "--quick" in options
    named = [option for option in options if option[:2] != "--"]
    for name, percent, full, setting, trial in RATES:
        if named and name not in named:
            continue
        trials = full // 10 if quick else full
        draw, started = random.Random(name + " quick" * quick), \
            time.process_time()
        share = sum(bool(trial(draw)) for _ in range(trials)) / trials
        error = variance(share, trials) ** 0.5
        print("%s: %.2f%% +- %.2f%% of %d trials, %.0f s of CPU (README: "
              "%.2f%% of %d)\n    %s" % (
                  name, 100 * share, 100 * error, trials,
                  time.process_time() - started, percent, full, setting))
        # The README states each figure as "P% ± E%", its trials as 40,000.
        stated = percent is not None and "%.2f%% ± %.2f%%" % (
            percent, 100 * variance(percent / 100, full) ** 0.5) in section \
            and "{:,}".format(full) in section
        if "--check" in options and (not stated or abs(
                share - percent / 100) > 3 * (
                error ** 2 + variance(percent / 100, full)) ** 0.5):
            failed += 1
            print("    FAIL: " + ("over 3 standard errors from the README"
                                  if stated else "the README does not state "
                                  "its figure, ± and trials"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
