"""python .ci/rates.py [--quick] [--check] [RATE ...]: README.md's rates of "What the paired
test assumes", each trial decided by paired_test() as the significance rule does: the README's
trials and seeds (25 minutes of CPU), --quick a tenth; --check exits 1 past 3 standard errors."""
import os
import random
import sys
import time
from math import fsum, hypot

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evaluate import paired_test  # noqa: E402  (after the path is set)

NAMES = ["q%02d" % number for number in range(50)]
RANDOM, THIRDS = random.Random.random, (0.0, 1 / 3, 2 / 3, 1.0)  # a score; coverage of 3
SKEWED = (0.1,) * 38 + (-1.0,) * 2 + (-0.05,) * 36  # chances in 76ths


def accepted(before, candidates, groups=None):  # by Holm's steps at alpha 0.05
    tests = [paired_test(before, after, groups=groups) for after in candidates]
    tests.sort(key=lambda test: test["p"] if test["method"] == "exact" else test["normal_p"])
    for step, test in enumerate(tests):
        if test["p_upper"] > 0.05 / (len(tests) - step):
            return False  # this step fails, and every one after it
        if test["mean"] > 0 and test["question_mean"] > 0:
            return True
    return False


def one(before, after, groups=None):  # a fall of the question mean: not tested
    def mean(value):
        return fsum(value) / len(value) if type(value) is tuple else value
    change = fsum(mean(after[name]) - mean(before[name]) for name in after)
    return change > -1e-9 and accepted(before, [after], groups)


def drawn(draw, value, questions=30, runs=1):  # value: a function of draw, or its choices
    pick = value if callable(value) else lambda draw: draw.choice(value)
    return {name: pick(draw) if runs == 1 else tuple(pick(draw) for _ in range(runs))
            for name in NAMES[:questions]}


def conversations(draw, declared):  # 10 of 5 turns, correlated 0.5 within one
    after, groups = {}, {}
    for number, name in enumerate(NAMES):
        shared = draw.gauss(0, 1) if number % 5 == 0 else shared
        after[name], groups[name] = (shared + draw.gauss(0, 1)) * 0.5 ** 0.5, "c%d" % (number // 5)
    return one(dict.fromkeys(after, 0.0), after, groups if declared else None)


def unequal(chance, runs):  # `runs` runs against 6 - runs, each covering Binomial(3, chance)
    def run(draw):
        return sum(draw.random() < chance for _ in range(3)) / 3
    return lambda d: one(drawn(d, run, runs=6 - runs), drawn(d, run, runs=runs))


RATES = [  # name (its seed), the README's percent and trials, a trial: accepted or not
    ("coverage_30", 1.88, 40000, lambda d: one(drawn(d, THIRDS), drawn(d, THIRDS))),
    ("continuous_30", 2.38, 10000, lambda d: one(drawn(d, RANDOM), drawn(d, RANDOM))),
    ("continuous_40", 2.40, 6000, lambda d: one(drawn(d, RANDOM, 40), drawn(d, RANDOM, 40))),
    ("holm_3", 1.77, 10000, lambda d: accepted(drawn(d, THIRDS), [
        drawn(d, THIRDS) for _ in range(3)])),
    ("holm_5", 1.60, 10000, lambda d: accepted(drawn(d, THIRDS), [
        drawn(d, THIRDS) for _ in range(5)])),
    ("skewed", 15.82, 20000, lambda d: one(dict.fromkeys(NAMES[:30], 0.0), drawn(d, SKEWED))),
    ("groups_left_out", 12.26, 8000, lambda d: conversations(d, False)),
    ("groups_declared", 2.42, 20000, lambda d: conversations(d, True)),
    ("one_run_high", 4.12, 20000, unequal(0.9, 1)), ("five_runs_low", 4.03, 20000, unequal(0.1, 5)),
    ("five_runs_high", 1.06, 20000, unequal(0.9, 5)), ("one_run_low", 0.98, 20000, unequal(0.1, 1))]


def main(options):
    failed, quick = 0, "--quick" in options
    named = [option for option in options if option[:2] != "--"]
    for name, percent, full, trial in [rate for rate in RATES if rate[0] in named or not named]:
        trials, draw = full // (10 if quick else 1), random.Random(name + " quick" * quick)
        started = time.process_time()
        share = sum(bool(trial(draw)) for _ in range(trials)) / trials
        error, stated = (share * (1 - share) / trials) ** 0.5, (
            percent / 100 * (1 - percent / 100) / full) ** 0.5
        print("%s: %.2f%% +- %.2f%% of %d trials, %.0f s of CPU (README: %.2f%% ± %.2f%% of %s)"
              % (name, 100 * share, 100 * error, trials, time.process_time() - started, percent,
                 100 * stated, "{:,}".format(full)))
        if "--check" in options and abs(share - percent / 100) > 3 * hypot(error, stated):
            failed += 1
            print("    FAIL: over 3 standard errors from the README")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
