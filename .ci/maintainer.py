"""Add a measure and a policy rule as a maintainer would, each in one place.

In a copy of the project, this script makes two changes to evaluate.py and
no other change to evaluate.py or demo.py:

1. average precision at k, as one entry of MEASURES and its function;
2. a rule "min_support", the least support a candidate's answers may have
   over the answerable slice, as one entry of _RULES, its checker (an
   existing one) and its findings function.

Then it checks that the measure reaches every part of a report (the table of
scores, the slice means, the paired tests, the summary's columns, the JSON,
the policy's metric), that the rule decides, and that the suite still
passes but for the tests that pin the measures of the fixture's report.

    python .ci/maintainer.py        one line per check, then "N passed, N failed"
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from reporting import reported  # .ci's own module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py", "README.md", "LICENSE")

AP_FUNCTION = '''
def _average_precision(case, run, k):
    """Return AP@k: the precision at the rank of each relevant document in
    the top k, added up, over the relevant documents (at most k)."""
    if not case["relevant"]:
        return None
    hits, total = 0, 0.0
    for rank, doc_id in enumerate(run["retrieved"][:k], start=1):
        if doc_id in case["relevant"]:
            hits += 1
            total += hits / rank
    return total / min(len(case["relevant"]), k)


'''
AP_ENTRY = ('    "ap": {"label": "AP@%d", "value": _average_precision,\n'
            '           "n/a": "nothing is labelled relevant"},\n')

RULE_FUNCTION = '''
def _support_findings(rule, policy, candidate, baseline, test):
    """Over the answerable slice: the candidate's mean support reaches the
    minimum."""
    values = [entry["scores"]["support"] for entry in candidate.values()
              if entry["answerable"] and entry["scores"]["support"] is not None]
    if not values:
        return [(None, (rule, "", _NO_ANSWER))]
    mean = sum(values) / len(values)
    detail = "support %.2f, minimum %g" % (mean, policy[rule])
    return [(mean >= policy[rule], (rule, "answerable", detail))]


'''
RULE_ENTRY = '    "min_support":        (_check_number, _support_findings),\n'


def changed(source):
    """Return evaluate.py's source with the measure and the rule added."""
    measures = source.index("# The measures of one question that a report gives")
    source = source[:measures] + AP_FUNCTION.lstrip("\n") + source[measures:]
    table = source.index("MEASURES = {")
    closing = source.index("\n}\n", table) + 1
    source = source[:closing] + AP_ENTRY + source[closing:]
    rules = source.index("_RULES = {")
    source = source[:rules] + RULE_FUNCTION.lstrip("\n") + source[rules:]
    closing = source.index("\n}\n", rules + len(RULE_FUNCTION)) + 1
    return source[:closing] + RULE_ENTRY + source[closing:]


def run(folder, *arguments):
    """Run python with arguments in folder; return (status, stdout, stderr)."""
    done = subprocess.run([sys.executable] + list(arguments), cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    return done.returncode, done.stdout, done.stderr


REPORTED = '''
import json, sys
from evaluate import report
from fixtures import CORPUS, CASES, RUNS
policy = {"min_support": 0.9, "significance": {"metric": "ap", "alpha": 0.5}}
data = {"k": 2, "systems": ("A", "B"), "corpus": CORPUS, "cases": CASES, "runs": RUNS,
        "policy": policy, "manifests": None}
result = report(data, summary=True)
print(json.dumps(result, default=float))
'''


def checks(folder):
    """Yield (label, problem or None) of the changed copy in folder."""
    path = os.path.join(folder, "evaluate.py")
    with open(path, encoding="utf-8") as file:
        before = file.read()
    after = changed(before)
    with open(path, "w", encoding="utf-8") as file:
        file.write(after)
    added = len(after.splitlines()) - len(before.splitlines())
    yield "the measure and the rule take %d lines of evaluate.py, in two places" % added, None
    status, out, err = run(folder, "-c", REPORTED)
    if status:
        yield "a report with the measure and the rule", err[-600:]
        return
    result = json.loads(out)
    summary = result["summary"]
    launch = result["questions"][0]["systems"]["A"]["scores"]
    yield "each run's scores give AP@k", None if "ap" in launch else sorted(launch)
    means = summary["means"]["answerable"]
    yield "the slice means average it", None if "ap" in means else sorted(means)
    tests = summary["comparisons"][0]["paired_tests"]
    yield "the paired tests test it", None if "ap" in tests else sorted(tests)
    judged = summary["decisions"]["B"]["strict"]
    rules = [finding[0] for finding in judged["held"] + judged["broken"]]
    yield "the new rule decides", None if "min_support" in rules else rules
    significance = judged["significance"] or {}
    yield "the policy may declare it as its metric", None if significance.get(
        "questions") else significance
    status, out, err = run(folder, "demo.py", "--summary")
    yield "demo.py's summary shows its column", None if "AP@2" in out else (err or out)[-600:]
    status, out, err = run(folder, "-c", "import os, unittest\nos.environ['EVERY_FAILURE'] = '1'"
                           "\nunittest.main(module=None, argv=['unittest'])")
    named = re.findall(r"^(?:FAIL|ERROR): (\S+)", err, re.M)
    failed = {os.path.basename(name) for name in named}
    others = sorted(failed - PINNED)
    yield "the suite fails only where a test or the README pins the fixture's measures", \
        None if not others and "Ran " in err else "%s\n%s" % (others, err[-800:])


# The tests that list the measures of the fixture's report, and the README's
# list of MEASURES: a maintainer adds the new measure's values there.
PINNED = {"test_a_report_averages_repeated_runs_within_their_question",
          "test_a_slice_names_the_questions_that_fit_and_an_empty_one_is_one_line",
          "test_change_and_verdict_weigh_better_against_worse_and_leave_na_unjudged",
          "test_each_rule_is_held_or_broken_by_its_numbers",
          "test_the_four_original_questions_print_their_table_summary_and_explanations",
          "test_the_summary_lists_only_the_changed_questions_and_shows_a_mean_of_none_as_na",
          "test_the_keys_come_in_the_documented_order",
          "test_answers_judged_without_relevance_labels_have_no_retrieval_values",
          "README.md"}


def main(arguments):
    """Run the checks."""
    if arguments:
        print(__doc__)
        return 0 if arguments in (["-h"], ["--help"]) else 2
    with tempfile.TemporaryDirectory() as folder:
        for name in FILES:
            shutil.copy(os.path.join(ROOT, name), folder)
        return reported(checks(folder))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
