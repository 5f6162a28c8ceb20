"""Print the scores of systems A and B on the fixture, question by question.

    python demo.py              the per-question table
    python demo.py --summary    the table, then the comparison of A and B and the decision
    python demo.py --explain    the table, then why each unsupported claim is unsupported
"""
import sys

from evaluate import (METRICS, EvaluationError, cell, change, check_policy, correct_abstentions,
                      explain, macro_mean, paired_test, pooled_support, scores, slices,
                      tally_system, verdict, verdict_totals)
from fixtures import CASES, CORPUS, POLICY, RUNS

K = 2
SYSTEMS = ("A", "B")  # compared in this order: from A to B
LABELS = dict(zip(METRICS, ("P@%d" % K, "R@%d" % K, "RR@%d" % K,
                            "support", "coverage", "abstention")))
RATIOS = METRICS[:-1]  # abstention is a yes or no, counted apart
USAGE = "usage: python demo.py [--summary | --explain]"


def table_lines(scored):
    """Return the per-question table: a header, then a row per case and system."""
    lines = ["case system | " + " ".join(LABELS.values())]
    for name in CASES:
        for system in SYSTEMS:
            values = scored[system][name].values()
            lines.append("%s %s | %s" % (name, system, " ".join(map(cell, values))))
    return lines


def explain_lines():
    """Return a line per unsupported claim, with its reason, and per uncovered expected claim."""
    lines = ["", "each unsupported claim with the first rule it breaks, "
                 "and each expected claim left uncovered"]
    for name in CASES:
        for system in SYSTEMS:
            why = explain(CORPUS, CASES[name], RUNS[name][system], k=K)
            lines += ["%s %s | claim %s unsupported: %s" % (name, system, claim, reason)
                      for claim, reason in why["claims"] if reason]
            lines += ["%s %s | expected claim %s not covered" % (name, system, claim)
                      for claim in why["uncovered"]]
    return lines


def side_by_side(title, cells):
    """Return one figure line: its title, then each system's cell."""
    return title + "".join(" | %s %s" % pair for pair in zip(SYSTEMS, cells))


def slice_lines(title, names, tallies, scored):
    """Return a slice's macro mean of each ratio, then its pooled support."""
    lines = ["", "%s slice: %s" % (title, ", ".join(names) or "no questions")]
    for metric in RATIOS:
        means = [macro_mean([scored[system][name][metric] for name in names])
                 for system in SYSTEMS]
        lines.append(side_by_side(LABELS[metric] + " macro mean",
                                  ["%s (%d of %d)" % (cell(m), n, total) for m, n, total in means]))
    pooled = [pooled_support([tallies[system][name] for name in names]) for system in SYSTEMS]
    lines.append(side_by_side("support pooled",
                              ["%d/%d = %s" % (s, g, cell(ratio)) for s, g, ratio in pooled]))
    return lines


def change_line(question, judgement, old, new):
    """Return one question's verdict from A to B, with each value that moved."""
    judged, unjudged = [], []
    for metric in METRICS:
        if old[metric] != new[metric]:
            text = "%s %s -> %s" % (LABELS[metric], cell(old[metric]), cell(new[metric]))
            if change(old[metric], new[metric]) is None:
                unjudged.append(text)  # n/a on one side: shown, not judged
            else:
                judged.append(text)
    detail = ", ".join(judged) or "nothing judged moved"
    if unjudged:
        detail += "; not judged: " + ", ".join(unjudged)
    return "%s: %s (%s)" % (question, judgement, detail)


def change_lines(before, after):
    """Return each question's verdict from A to B, then the totals."""
    lines = ["", "per-question change from A to B "
                 "(a pair with n/a on either side is shown, not judged)"]
    verdicts = {question: verdict(before[question], after[question]) for question in before}
    lines += [change_line(question, verdicts[question], before[question], after[question])
              for question in before]
    totals = verdict_totals(verdicts.values())
    lines.append("totals: " + ", ".join("%d %s" % (n, name) for name, n in totals.items()))
    return lines


def paired_lines(names, scored):
    """Return the exact paired test from A to B of each ratio over some questions."""
    lines = ["", "paired sign-flip test from A to B on the answerable slice "
                 "(each question is one pair)"]
    for metric in RATIOS:
        test = paired_test({name: scored["A"][name][metric] for name in names},
                           {name: scored["B"][name][metric] for name in names})
        mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
        lines.append("%s | mean %s (%d of %d) | wins %d, ties %d, losses %d "
                     "| p = %s, smallest possible %s"
                     % (LABELS[metric], mean, test["questions"],
                        test["questions"] + test["left_out"], test["wins"], test["ties"],
                        test["losses"], test["p"], test["min_p"]))
    smallest = min(1.0, 2.0 ** (1 - len(names)))  # every question moved the same way
    reach = "no difference can reach" if smallest >= 0.05 else "a difference can reach"
    lines.append("with %d questions the smallest possible two-sided p is %.2f, so %s p < 0.05"
                 % (len(names), smallest, reach))
    return lines


def policy_lines(title, candidate, baseline=None):
    """Return each policy rule broken or held by a candidate, then its decision."""
    judged = check_policy(POLICY, candidate, baseline)
    lines = ["%s | %s %s %s (%s)" % (title, outcome, rule, subject, detail)
             for outcome in ("broken", "held") for rule, subject, detail in judged[outcome]]
    if baseline is None:
        lines.append("%s | not checked: critical (no baseline to compare with)" % title)
    decision = "accepted" if judged["accepted"] else "not accepted"
    lines.append("decision for %s: %s (%d broken, %d held)"
                 % (title, decision, len(judged["broken"]), len(judged["held"])))
    return lines


def summary_lines(tallies, scored):
    """Return the comparison of A and B, then the paired test and the decision."""
    parts = slices(tallies["A"])
    lines = slice_lines("answerable", parts["answerable"], tallies, scored)
    lines += slice_lines("unanswerable", parts["unanswerable"], tallies, scored)
    abstentions = [correct_abstentions(tallies[system].values()) for system in SYSTEMS]
    lines.append(side_by_side("abstention correct count",
                              ["%d/%d" % pair for pair in abstentions]))
    lines += ["", "n/a rule: a macro mean skips questions without a value and says how many "
                  "it averaged; n/a never counts as 0."]
    lines += change_lines(scored["A"], scored["B"])
    lines += paired_lines(parts["answerable"], scored)
    lines += ["", "acceptance policy, declared in fixtures.py before any run was seen",
              "(python demo.py --explain shows why each unsupported claim is unsupported)"]
    lines += policy_lines("A alone", tallies["A"])
    return lines + policy_lines("B against A", tallies["B"], tallies["A"])


def main(arguments=None):
    """Score every recorded run; print the table, and the part an option asks for."""
    arguments = sys.argv[1:] if arguments is None else arguments
    if arguments in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if arguments not in ([], ["--summary"], ["--explain"]):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        tallies = {system: tally_system(CORPUS, CASES, RUNS, system, k=K) for system in SYSTEMS}
        scored = {system: {name: scores(counts) for name, counts in by_name.items()}
                  for system, by_name in tallies.items()}
        lines = table_lines(scored)
        if arguments == ["--summary"]:
            lines += summary_lines(tallies, scored)
        if arguments == ["--explain"]:
            lines += explain_lines()
    except EvaluationError as error:  # a fault in fixtures.py: say where, without a traceback
        print("fixtures.py: %s" % error, file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
