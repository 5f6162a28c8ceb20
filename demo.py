"""Print the scores of systems A and B on the fixture, question by question.

    python demo.py                   the per-question table
    python demo.py --explain         and why each unsupported claim is unsupported
    python demo.py --summary         verdicts, changes, averages, paired tests, decisions
    python demo.py --json            the report of the other options, as JSON for programs
    python demo.py --gate            exit with status 3 unless every candidate is accepted,
                                     saying why on standard error, a line per candidate
    python demo.py --data FILE.json  any of these for your own data (see the README)

Options combine, in any order. Exit status: 0 printed; 1 a fault in the data; 2 an unknown
option; 3 see --gate; 74 output not written; 130 interrupted; 141 the reader stopped first.
"""
import sys

from evaluate import EvaluationError, cell, load_data, p_text, report
from fixtures import CASES, CORPUS, POLICY, RUNS

USAGE = "usage: python demo.py [--summary] [--explain] [--json] [--gate] [--data FILE.json]"
OPTIONS = ("--summary", "--explain", "--json", "--gate")
NOT_ACCEPTED = 3  # with --gate: some candidate is not accepted, or no policy decided


def fixture_data():
    """Return the fixture as the parts a report is made of: systems A, then B, at k=2."""
    return {"k": 2, "systems": ("A", "B"), "corpus": CORPUS, "cases": CASES, "runs": RUNS,
            "policy": POLICY, "manifests": None}


def labels(k):
    """Return the column label of each metric of the report at cutoff k, nDCG last."""
    return {"precision": "P@%d" % k, "recall": "R@%d" % k, "rr": "RR@%d" % k,
            "support": "support", "coverage": "coverage", "abstention_correct": "abstention",
            "ndcg": "nDCG@%d" % k}


def listed(names, width=100):
    """Return names joined by commas, cut to about `width` characters with a count of all."""
    shown = []
    for name in names:
        if shown and len(", ".join(shown + [name])) > width:
            return ", ".join(shown) + ", ... (%d in all)" % len(names)
        shown.append(name)
    return ", ".join(shown)


def each_run(result, part):
    """Yield ('case system', part) of each run, part "scores" or "explain"; a question's
    repeated runs are named 'case system#1', 'case system#2' ..."""
    for question in result["questions"]:
        for system, row in question["systems"].items():
            where = "%s %s" % (question["case"], system)
            if row["repeats"] == 1:
                yield where, row[part]
                continue
            found = [run["scores"] for run in row["runs"]] if part == "scores" else row[part]
            for index, value in enumerate(found, start=1):
                yield "%s#%d" % (where, index), value


def table_lines(result):
    """Return the per-question table: a header, then a row per case, system and run."""
    return ["case system | " + " ".join(list(labels(result["k"]).values())[:6])] + [
        "%s | %s" % (where, " ".join(map(cell, scores.values())))
        for where, scores in each_run(result, "scores")]


def explain_lines(result):
    """Return a line per unsupported claim, uncovered claim and disclosure, then the claims
    nobody has reviewed and the labels no run uses."""
    lines = ["", "each unsupported claim with the first rule it breaks, "
                 "each expected claim left uncovered, and each restricted document disclosed"]
    for where, found in each_run(result, "explain"):
        lines += ["%s | claim %s unsupported: %s" % (where, claim, reason)
                  for claim, reason in found["claims"] or () if reason]
        lines += ["%s | expected claim %s not covered" % (where, claim)
                  for claim in found["uncovered"] or ()]
        lines += ["%s | restricted document %s disclosed" % (where, document)
                  for document in found["disclosed"]]
    lines += ["", "claims nobody has labelled, rejected or disputed: the next round of reviewing"]
    lines += ["%s | %s: claim %s citing %s" % (system, name, claim, ", ".join(cited) or "nothing")
              for system, name, claim, cited in result["review_queue"]] or ["none"]
    lines += ["", "labels that no run uses, a typo perhaps (optional, disputed or rejected)"]
    return lines + (["%s: claim %s" % pair for pair in result["orphan_labels"]] or ["none"])


def summary_lines(result):
    """Return the summary: verdicts, changes, averages, paired tests, then what reviewers
    and the policy say."""
    summary, systems, label = result["summary"], result["systems"], labels(result["k"])
    parts, decisions = summary["slices"], summary["decisions"] or {}
    lines = ["%s against %s: %s" % (candidate, systems[0], verdict(decided))
             for candidate, decided in decisions.items()]
    groups = "" if summary["groups"] is None else " in %d groups" % summary["groups"]
    lines.append("summary of %s: %d questions%s (%d answerable), k = %d, baseline %s, %s %s"
                 % (result["source"], len(result["questions"]), groups, len(parts["answerable"]),
                    result["k"], systems[0], "candidates" if len(systems) > 2 else "candidate",
                    ", ".join(systems[1:])))
    for compared in summary["comparisons"]:
        lines += change_lines(compared, label)
    for part, names in parts.items():  # answerable, unanswerable, then each tag
        lines += slice_lines(part, names, summary["means"][part], label)
        lines += ["verdicts of %s against %s | %s" % (compared["candidate"], systems[0], ", ".join(
            "%d %s" % (n, kind) for kind, n in compared["slice_totals"][part].items()))
            for compared in summary["comparisons"] if part in compared["slice_totals"]]
    if summary["lenient_means"] is not None:
        lines += slice_lines("answerable", parts["answerable"],
                             summary["lenient_means"]["answerable"], label,
                             ", lenient reading (disputed labels count as support)")
        lines.append("disputed labels: " + listed(["%s: %s <- %s" % (name, claim, ", ".join(
            sources)) for name, claim, sources in summary["disputed_labels"]]))
    lines += ["", "n/a rule: a macro mean skips questions without a value and says how many "
                  "it averaged; n/a never counts as 0."]
    for compared in summary["comparisons"]:
        lines += paired_lines(compared, summary["groups"], label)
    lines += review_lines(summary)
    if summary["policy"] is not None:
        lines += ["", "acceptance policy, from %s" % summary["policy"]["source"],
                  "(python demo.py --explain shows why each unsupported claim is unsupported)"]
        lines += decision_lines("%s alone" % systems[0], summary["policy"]["baseline_alone"])
        lines += [line for compared in summary["comparisons"] for line in decision_lines(
            "%s against %s" % (compared["candidate"], systems[0]), compared["decision"])]
    return lines


def verdict(decided):
    """Return a decision in a few words, with the first broken finding."""
    if decided["accepted"] is None:
        return "none, as no rule of the policy could be checked"
    broken = decided["findings"]
    return "accepted" if decided["accepted"] else "not accepted, first: %s %s (%s)%s" % (
        broken[0][:3] + (", and %d more broken" % (len(broken) - 1) if broken[1:] else "",))


def change_lines(compared, label):
    """Return what changed between the runs' manifests, if the data gives them, then each
    question whose verdict is not 'unchanged', with what moved, then the totals."""
    changed, lines = compared["manifest_changes"], []
    if changed is not None:
        lines += ["", "run manifests: what changed from %s to %s (corpus, questions, "
                      "permissions and rubric are held constant)" % (compared["baseline"],
                                                                     compared["candidate"])]
        lines += ["%s: %s -> %s" % (field, "(none)" if old is None else ascii(old),
                                    "(none)" if new is None else ascii(new))
                  for field, old, new in changed] or ["nothing changed"]
        if len(changed) > 1:
            lines.append("%d things changed at once: which of them made the difference is "
                         "unknown; change one at a time" % len(changed))
    lines += ["", "per-question change from %s to %s (a pair with n/a on either side is "
                  "shown, not judged)" % (compared["baseline"], compared["candidate"])]
    for item in compared["changes"]:
        if item["verdict"] == "unchanged":
            continue  # counted in the totals; --json lists every question
        moves = [("%s %s -> %s" % (label[metric], cell(old), cell(new)), judged)
                 for metric, old, new, judged in item["moved"]]
        detail = ", ".join(text for text, judged in moves if judged) or "nothing judged moved"
        unjudged = ", ".join(text for text, judged in moves if not judged)
        lines.append("%s: %s (%s%s)" % (item["case"], item["verdict"], detail,
                                        unjudged and "; not judged: " + unjudged))
    totals = compared["totals"]
    lines.append("totals: " + ", ".join("%d %s" % (n, name) for name, n in totals.items())
                 + (" (not listed)" if totals["unchanged"] else ""))
    return lines + ["%s: %s, but %s in the lenient reading" % change
                    for change in compared["lenient_changes"] or ()]


def slice_lines(part, names, means, label, reading=""):
    """Return a slice's macro mean of each ratio (and nDCG), its pooled support and its
    correct abstentions; an empty slice in one line."""
    if not names:
        return ["", "no %s questions" % part]
    lines = ["", "%s slice%s: %s" % (part, reading, listed(names))]
    lines += [label[metric] + " macro mean" + "".join(
        " | %s %s (%d of %d)" % (system, cell(m["mean"]), m["averaged"], m["total"])
        for system, m in means[metric].items()) for metric in label if metric in means]
    lines.append("support pooled" + "".join(
        " | %s %d/%d = %s" % (system, s["supported"], s["generated"], cell(s["ratio"]))
        for system, s in means["pooled_support"].items()))
    if means["correct_abstentions"] is not None and not reading:
        lines.append("abstention correct count" + "".join(
            " | %s %d/%d" % (system, a["correct"], a["total"])
            for system, a in means["correct_abstentions"].items()))
    return lines


def paired_lines(compared, groups, label):
    """Return the paired test of each ratio from baseline to candidate, and what it can show."""
    lines = ["", "paired sign-flip test from %s to %s on the answerable slice (each %s is one "
                 "pair)" % (compared["baseline"], compared["candidate"],
                            "question" if groups is None else "group")]
    for metric, test in compared["paired_tests"].items():
        mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
        how = "exact" if test["method"] == "exact" else "sampled, %d draws, standard error " \
              "%.4f" % (test["samples"], test["standard_error"])
        counts = "wins %(wins)d, ties %(ties)d, losses %(losses)d" % test
        lines.append("%s | mean %s (%d of %d) | %s | p = %s (%s), at least %s with %d moved" % (
            label[metric], mean, test["questions"], test["questions"] + test["left_out"], counts,
            p_text(test["p"], test["method"]), how, p_text(test["min_p"]),
            test["wins"] + test["losses"]))
    floor = compared["p_floor"]
    lines.append("with %d %s, p is at least %s even if all of them moved, so %s p < 0.05" % (
        compared["units"], "questions" if groups is None else "groups", p_text(floor),
        "no difference can reach" if floor >= 0.05 else "a difference can reach"))
    return lines


def review_lines(summary):
    """Return the disclosures, the unsupported claims by reason and what reviewers left."""
    lines = ["", "restricted documents disclosed (in the top k or cited); "
                 "no score and no policy can excuse one"]
    lines += ["%s | %s" % (system, listed(["%s: %s" % (name, ", ".join(documents))
                                           for name, documents in found]) or "none")
              for system, found in summary["disclosures"].items()]
    lines += ["", "unsupported claims by the first rule they break (python demo.py --explain "
                  "lists each)"]
    lines += ["%s | %s" % (system, ", ".join("%s %d" % pair for pair in reasons.items()) or "none")
              for system, reasons in summary["unsupported_reasons"].items()]
    return lines + ["", "claims nobody has labelled, rejected or disputed (python demo.py "
                        "--explain lists them for review)" + "".join(
                            " | %s %d" % pair for pair in summary["unreviewed"].items()),
                    "labels that no run uses: %d; questions judged without expected claims: %d"
                    % (summary["orphan_labels"], summary["judged_without_expected"])]


def decision_lines(title, decided):
    """Return the broken findings, the held ones per rule, the unchecked rules and the decision."""
    strict, loose = decided["strict"], decided["lenient"]
    lines = ["%s | broken %s %s (%s)%s" % (title, rule, subject, detail, "" if loose is None else
                                           " [both readings]" if readings == "both" else
                                           " [%s reading only]" % readings)
             for rule, subject, detail, readings in decided["findings"]]
    held = [finding[0] for finding in strict["held"]]  # counted per rule, in rule order
    if held:
        lines.append("%s | held: %s" % (title, ", ".join("%d %s" % (held.count(rule), rule)
                                                         for rule in dict.fromkeys(held))))
    lines += ["%s | held %s %s (%s)" % ((title,) + finding) for finding in strict["held"]
              if finding[0] == "significance"]
    lines += ["%s | not checked: %s (%s)" % (title, rule, why) for rule, why in strict["unchecked"]]
    counts = "; ".join("%s%d broken, %d held" % ("" if loose is None else reading + " reading: ",
                                                 len(judged["broken"]), len(judged["held"]))
                       for reading, judged in (("strict", strict), ("lenient", loose)) if judged)
    ending = "" if loose is None else "; both readings agree"
    if loose is not None and strict["accepted"] != loose["accepted"]:
        ending = "; the readings disagree, so resolve these disputed labels first: " + listed(
            ["%s: %s <- %s" % (name, claim, ", ".join(sources))
             for name, claim, sources in decided["depends_on"]], 160)
    return lines + ["decision for %s under the plan %r: %s (%s)%s" % (
        title, decided["plan"], verdict(decided).split(", first")[0], counts, ending)]


def parsed(arguments):
    """Return (options, data file) from the command line, or None when it is not understood."""
    options, path, rest = [], None, list(arguments)
    while rest:
        word = rest.pop(0)
        if word in OPTIONS and word not in options:
            options.append(word)
        elif word == "--data" and path is None and rest:
            path = rest.pop(0)
        else:
            return None
    return options, path


def rendered(result, options):
    """Return the text of a report: the table, explanations, summary, as the options ask;
    with --json, all of it as one line of JSON, keys in the order of report(), p a number."""
    if "--json" in options:
        import json  # only this option writes JSON
        return json.dumps(result, default=float, allow_nan=False)
    lines = table_lines(result) if "--explain" in options or "--summary" not in options else []
    if "--explain" in options:
        lines += explain_lines(result)
    if "--summary" in options:
        lines += ([""] if lines else []) + summary_lines(result)
    return "\n".join(lines)


def gated(result):
    """Return NOT_ACCEPTED unless the policy accepts every candidate, else 0, and a line
    per candidate: accepted or not, with the first broken finding."""
    systems, decisions = result["systems"], result["summary"]["decisions"] or {}
    accepted = decisions and all(decided["accepted"] for decided in decisions.values())
    return 0 if accepted else NOT_ACCEPTED, ["%s against %s: %s" % (
        candidate, systems[0], verdict(decisions[candidate]) if decisions else
        "not accepted, as the data has no policy") for candidate in systems[1:]]


def main(arguments=None):
    """Score every recorded run; print the report the options ask for; return the exit status."""
    import _signal as signal  # the C module under signal.py: the same calls, without enum

    def interrupted(signum, frame):  # the first Ctrl-C stops the run; any more are ignored
        signal.signal(signal.SIGINT, lambda *ignored: None)
        raise KeyboardInterrupt
    try:
        if arguments is None:  # as a program: a caller in Python keeps its own Ctrl-C
            signal.signal(signal.SIGINT, interrupted)
        arguments = sys.argv[1:] if arguments is None else arguments
        if arguments in (["-h"], ["--help"]):
            return write(USAGE + "\n")
        if parsed(arguments) is None:
            return write(USAGE + "\n", "stderr") or 2
        options, path = parsed(arguments)
        source = "fixtures.py" if path is None else path if (  # no look-alike, no escape
            path.isascii() and path.isprintable()) else ascii(path)
        try:
            data = fixture_data() if path is None else load_data(path)
            result = report(data, summary="--summary" in options or "--gate" in options,
                            explain="--explain" in options, source=source)
        except EvaluationError as error:  # a fault in the data: say where, without a traceback
            return write("%s: %s\n" % (source, error), "stderr") or 1
        gate, why = gated(result) if "--gate" in options else (0, [])
        if "--summary" not in options:
            result["summary"] = None  # computed for the gate alone
        return (write(rendered(result, options)) or write("\n")  # the report is not copied
                or write("".join(line + "\n" for line in why), "stderr") or gate)
    except KeyboardInterrupt:
        return write("demo.py: interrupted\n", "stderr") or 130


def write(text, stream="stdout"):
    """Write text to standard output (or "stderr"); return the exit status."""
    import select
    output = getattr(sys, stream)
    try:
        if output is None:  # started with it closed
            raise OSError("standard output is closed")
        if not hasattr(output, "buffer"):  # a stream made in Python, as a test's
            output.write(text)
        else:  # in ASCII, whatever the terminal: a path may hold any character
            output.flush()
            raw = getattr(output.buffer, "raw", output.buffer)  # each write says what it took
            for start in range(0, len(text), 2 ** 20):  # a megabyte at a time, not a copy of all
                data = memoryview(text[start:start + 2 ** 20].encode("ascii", "backslashreplace"))
                while data:
                    taken = raw.write(data)
                    if taken is None:  # non-blocking and full for now: wait until it takes more
                        select.select([], [raw], [])
                    data = data[taken or 0:]
    except OSError as error:  # closed, full or stopped: at most one line says so
        if stream == "stdout" and not isinstance(error, BrokenPipeError):
            write("demo.py: cannot write the report: %s\n" % (error.strerror or error), "stderr")
        return 141 if isinstance(error, BrokenPipeError) else 74
    return 0


if __name__ == "__main__":
    sys.exit(main())
