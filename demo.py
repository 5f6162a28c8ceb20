"""Print the scores of systems A and B on the fixture, question by question.

    python demo.py              the per-question table
    python demo.py --summary    the table, then the comparison of A and B and the decision
    python demo.py --explain    the table, then why each unsupported claim is unsupported
    python demo.py --data FILE.json [--summary | --explain]
                                the same for your own data: a JSON file that mirrors
                                fixtures.py (see "Using your own data" in the README)
"""
import sys

from evaluate import (METRICS, EvaluationError, cell, change, check_policy, correct_abstentions,
                      explain_system, load_data, macro_mean, manifest_changes, p_text,
                      paired_test, pooled_support, scores, slices, tally_system, verdict,
                      verdict_totals)
from fixtures import CASES, CORPUS, POLICY, RUNS

USAGE = "usage: python demo.py [--summary | --explain] [--data FILE.json]"
OPTIONS = ("--summary", "--explain")


def fixture_data():
    """Return the fixture as the parts a report is made of: systems A, then B, at k=2."""
    return {"k": 2, "systems": ("A", "B"), "corpus": CORPUS, "cases": CASES, "runs": RUNS,
            "policy": POLICY, "manifests": None}


def labels(k):
    """Return the column label of each metric at cutoff k."""
    return dict(zip(METRICS, ("P@%d" % k, "R@%d" % k, "RR@%d" % k,
                              "support", "coverage", "abstention")))


RATIOS = METRICS[:-1]  # abstention is a yes or no, counted apart


def table_lines(data, scored):
    """Return the per-question table: a header, then a row per case and system."""
    lines = ["case system | " + " ".join(labels(data["k"]).values())]
    for name in data["cases"]:
        for system in data["systems"]:
            values = scored[system][name].values()
            lines.append("%s %s | %s" % (name, system, " ".join(map(cell, values))))
    return lines


def explanations(data):
    """Return explain_system() of each system."""
    return {system: explain_system(data["corpus"], data["cases"], data["runs"], system,
                                   k=data["k"]) for system in data["systems"]}


def explain_lines(data):
    """Return a line per unsupported claim, uncovered expected claim and disclosure."""
    lines = ["", "each unsupported claim with the first rule it breaks, "
                 "each expected claim left uncovered, and each restricted document disclosed"]
    why = explanations(data)
    for name in data["cases"]:
        for system in data["systems"]:
            found = why[system][name]
            lines += ["%s %s | claim %s unsupported: %s" % (name, system, claim, reason)
                      for claim, reason in found["claims"] if reason]
            lines += ["%s %s | expected claim %s not covered" % (name, system, claim)
                      for claim in found["uncovered"]]
            lines += ["%s %s | restricted document %s disclosed" % (name, system, doc_id)
                      for doc_id in found["disclosed"]]
    return lines


def side_by_side(title, systems, cells):
    """Return one figure line: its title, then each system's cell."""
    return title + "".join(" | %s %s" % pair for pair in zip(systems, cells))


def slice_lines(title, names, data, tallies, scored):
    """Return a slice's macro mean of each ratio, then its pooled support."""
    systems, label = data["systems"], labels(data["k"])
    listed = ", ".join(names[:10]) + (", ... (%d in all)" % len(names) if len(names) > 10 else "")
    lines = ["", "%s slice: %s" % (title, listed or "no questions")]
    for metric in RATIOS:
        means = [macro_mean([scored[system][name][metric] for name in names])
                 for system in systems]
        lines.append(side_by_side(label[metric] + " macro mean", systems,
                                  ["%s (%d of %d)" % (cell(m), n, total) for m, n, total in means]))
    pooled = [pooled_support([tallies[system][name] for name in names]) for system in systems]
    lines.append(side_by_side("support pooled", systems,
                              ["%d/%d = %s" % (s, g, cell(ratio)) for s, g, ratio in pooled]))
    return lines


def change_line(question, judgement, old, new, label):
    """Return one question's verdict from baseline to candidate, with each value that moved."""
    judged, unjudged = [], []
    for metric in METRICS:
        if old[metric] != new[metric]:
            text = "%s %s -> %s" % (label[metric], cell(old[metric]), cell(new[metric]))
            if change(old[metric], new[metric]) is None:
                unjudged.append(text)  # n/a on one side: shown, not judged
            else:
                judged.append(text)
    detail = ", ".join(judged) or "nothing judged moved"
    if unjudged:
        detail += "; not judged: " + ", ".join(unjudged)
    return "%s: %s (%s)" % (question, judgement, detail)


def change_lines(data, scored):
    """Return each question's verdict from baseline to candidate, then the totals."""
    (a, b), label = data["systems"], labels(data["k"])
    before, after = scored[a], scored[b]
    lines = ["", "per-question change from %s to %s "
                 "(a pair with n/a on either side is shown, not judged)" % (a, b)]
    verdicts = {question: verdict(before[question], after[question]) for question in before}
    lines += [change_line(question, verdicts[question], before[question], after[question], label)
              for question in before]
    totals = verdict_totals(verdicts.values())
    lines.append("totals: " + ", ".join("%d %s" % (n, name) for name, n in totals.items()))
    return lines


def p_line(label, test):
    """Return one metric's paired test: mean, wins, ties and losses, p and how it was found."""
    mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
    moved = test["wins"] + test["losses"]
    if test["method"] == "exact":
        how = "exact"
    else:  # the standard error of a share of `samples` draws
        error = (float(test["p"]) * (1 - float(test["p"])) / test["samples"]) ** 0.5
        how = "sampled, %d draws, standard error %.4f" % (test["samples"], error)
    return ("%s | mean %s (%d of %d) | wins %d, ties %d, losses %d | p = %s (%s), "
            "at least %s with %d moved" % (label, mean, test["questions"],
                                           test["questions"] + test["left_out"], test["wins"],
                                           test["ties"], test["losses"], p_text(test["p"]), how,
                                           p_text(test["min_p"]), moved))


def paired_lines(names, data, scored):
    """Return the paired test from baseline to candidate of each ratio over some questions."""
    from fractions import Fraction  # loaded by paired_test() already
    (a, b), label = data["systems"], labels(data["k"])
    lines = ["", "paired sign-flip test from %s to %s on the answerable slice "
                 "(each question is one pair)" % (a, b)]
    for metric in RATIOS:
        test = paired_test({name: scored[a][name][metric] for name in names},
                           {name: scored[b][name][metric] for name in names})
        lines.append(p_line(label[metric], test))
    # The floor of "at least ... with m moved" above, with every question moved.
    lowest = Fraction(2, 2 ** len(names)) if names else Fraction(1)
    reach = "no difference can reach" if lowest >= Fraction(1, 20) else "a difference can reach"
    lines.append("with %d questions, p is at least %s even if all of them moved, so %s p < 0.05"
                 % (len(names), p_text(lowest), reach))
    return lines


def permission_lines(data):
    """Return the restricted documents each system disclosed, question by question."""
    lines = ["", "restricted documents disclosed (in the top k or cited); "
                 "no score and no policy can excuse one"]
    for system, by_name in explanations(data).items():
        found = ["%s: %s" % (name, ", ".join(why["disclosed"]))
                 for name, why in by_name.items() if why["disclosed"]]
        lines.append("%s | %s" % (system, "; ".join(found) or "none"))
    return lines


def manifest_lines(data):
    """Return what changed between the two runs' manifests, if the data gives them."""
    if data["manifests"] is None:
        return []
    a, b = data["systems"]
    changed = manifest_changes(data["manifests"], data["systems"])
    lines = ["", "run manifests: what changed from %s to %s (corpus, questions, permissions "
                 "and rubric are held constant)" % (a, b)]
    lines += ["%s: %s -> %s" % (field, manifest_value(old), manifest_value(new))
              for field, old, new in changed] or ["nothing changed"]
    if len(changed) > 1:
        lines.append("%d things changed at once: which of them made the difference is "
                     "unknown; change one at a time" % len(changed))
    return lines


def manifest_value(value):
    """Return a manifest value as shown: quoted, or (none) when missing."""
    return "(none)" if value is None else repr(value)


def policy_lines(policy, title, candidate, baseline=None):
    """Return each policy rule broken or held by a candidate, then its decision."""
    judged = check_policy(policy, candidate, baseline)
    lines = ["%s | %s %s %s (%s)" % (title, outcome, rule, subject, detail)
             for outcome in ("broken", "held") for rule, subject, detail in judged[outcome]]
    if baseline is None:
        lines.append("%s | not checked: critical (no baseline to compare with)" % title)
    decision = "accepted" if judged["accepted"] else "not accepted"
    lines.append("decision for %s: %s (%d broken, %d held)"
                 % (title, decision, len(judged["broken"]), len(judged["held"])))
    return lines


def summary_lines(data, tallies, scored, source):
    """Return the comparison of the two systems, then the paired test and the decision."""
    a, b = data["systems"]
    parts = slices(tallies[a])
    lines = manifest_lines(data)
    lines += slice_lines("answerable", parts["answerable"], data, tallies, scored)
    lines += slice_lines("unanswerable", parts["unanswerable"], data, tallies, scored)
    abstentions = [correct_abstentions(tallies[system].values()) for system in data["systems"]]
    lines.append(side_by_side("abstention correct count", data["systems"],
                              ["%d/%d" % pair for pair in abstentions]))
    lines += ["", "n/a rule: a macro mean skips questions without a value and says how many "
                  "it averaged; n/a never counts as 0."]
    lines += change_lines(data, scored)
    lines += paired_lines(parts["answerable"], data, scored)
    lines += permission_lines(data)
    if data["policy"] is None:
        return lines
    lines += ["", "acceptance policy, declared in %s before any run was seen" % source,
              "(python demo.py --explain shows why each unsupported claim is unsupported)"]
    lines += policy_lines(data["policy"], "%s alone" % a, tallies[a])
    return lines + policy_lines(data["policy"], "%s against %s" % (b, a), tallies[b], tallies[a])


def report(data, option=None, source="fixtures.py"):
    """Return the lines to print: the table, then the part an option asks for."""
    tallies = {system: tally_system(data["corpus"], data["cases"], data["runs"], system,
                                    k=data["k"]) for system in data["systems"]}
    scored = {system: {name: scores(counts) for name, counts in by_name.items()}
              for system, by_name in tallies.items()}
    if data["policy"] is not None:  # a fault in the policy is the file's, whatever is printed
        check_policy(data["policy"], tallies[data["systems"][1]], tallies[data["systems"][0]])
    lines = table_lines(data, scored)
    if option == "--summary":
        lines += summary_lines(data, tallies, scored, source)
    if option == "--explain":
        lines += explain_lines(data)
    return lines


def parsed(arguments):
    """Return (option, data file) from the command line, or None when it is not understood."""
    option = path = None
    rest = list(arguments)
    while rest:
        word = rest.pop(0)
        if word in OPTIONS and option is None:
            option = word
        elif word == "--data" and path is None and rest:
            path = rest.pop(0)
        else:
            return None
    return option, path


def main(arguments=None):
    """Score every recorded run; print the table, and the part an option asks for."""
    arguments = sys.argv[1:] if arguments is None else arguments
    if arguments in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if parsed(arguments) is None:
        print(USAGE, file=sys.stderr)
        return 2
    option, path = parsed(arguments)
    source = "fixtures.py" if path is None else path
    try:
        data = fixture_data() if path is None else load_data(path)
        lines = report(data, option, source)
    except EvaluationError as error:  # a fault in the data: say where, without a traceback
        print("%s: %s" % (source, error), file=sys.stderr)
        return 1
    try:
        print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early, as `| head` does: nothing to report
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
