"""Print the six values evaluate() gives each question and system:

    python demo.py

A row says "not run" where the fixture holds no run of that system.
"""
import sys
if __name__ == "__main__":  # Ctrl-C: no traceback, then Python ends by SIGINT
    sys.excepthook = lambda *error: KeyboardInterrupt in error or \
        sys.__excepthook__(*error)
from evaluate import evaluate  # noqa: E402 (after Ctrl-C is set)
from fixtures import CASES, CORPUS, RUNS  # noqa: E402

COLUMNS = ("P@%d", "R@%d", "RR@%d", "support", "coverage", "abstention")


def cell(value):
    """Return a value as the table shows it: 0.50, n/a, yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def table_lines(rows, k=2, labels=COLUMNS):
    """Return the per-question table: a header, then a line for each
    ('case system', its six values, or None for a run not made) of rows."""
    header = " ".join(label.replace("%d", str(k)) for label in labels)
    lines = ["case system | " + header]
    for where, values in rows:
        shown = "not run" if values is None else " ".join(map(cell, values))
        lines.append("%s | %s" % (where, shown))
    return lines


def fixture_rows(k=2):
    """Return ('case system', the six values, or None) for each case of the
    fixture and each system that ran any case, in the fixture's order."""
    systems = dict.fromkeys(system for runs in RUNS.values()
                            for system in runs)
    rows = []
    for name, case in CASES.items():
        for system in systems:
            run = RUNS.get(name, {}).get(system)
            values = run and evaluate(CORPUS, case, run, k=k).values()
            rows.append(("%s %s" % (name, system), values))
    return rows


# END OF THE LAB'S DEMO: a course lab's demo.py is the part above and LAB_MAIN.
# Below, the full module's options: report, compare, decide, read data files.

import os  # noqa: E402
from evaluate import MEASURES, EvaluationError, load_data, load_trec, p_text, report  # noqa: E402
from fixtures import POLICY, TAGS  # noqa: E402

USAGE = """\
usage: python demo.py [--summary] [--explain] [--json] [--gate] [--data FILE.json]
       python demo.py --qrels FILE --run FILE [--run FILE ...] [--k K]
                      [--policy FILE.json] [any option of the first line]
       python demo.py --lab FOLDER [--exercise]

  (no option)        the per-question table of the fixture
  --explain          and why each unsupported claim is unsupported
  --summary          verdicts, changes, slice means, paired tests, decisions
  --json             the report of the other options, as one line of JSON
  --gate             exit with status 3 unless every candidate is accepted,
                     saying why on standard error, a line per candidate
  --data FILE.json   any of these for your own data (see the README)
  --qrels FILE       or for TREC files: the qrels, and each --run FILE (the
  --run FILE         first the baseline) at the cutoff --k K (10 unless given),
                     with the policy of --policy FILE.json if any
  --lab FOLDER       write a course lab into a new or empty folder; with
                     --exercise, the rules of one question left to write

Exit status: 0 printed; 1 a fault in the data or the folder; 2 an option
not understood; 3 see --gate; 74 output not written; 130 interrupted; 141
the reader stopped first.
"""
OPTIONS = {  # option: whether a path (or K) follows it
    "--summary": False, "--explain": False, "--json": False, "--gate": False,
    "--data": True, "--lab": True, "--exercise": False, "--help": False,
    "-h": False, "--qrels": True, "--run": True, "--k": True, "--policy": True}
REPEATED = ("--run",)  # given once or more, in order: a tuple of paths
TREC = ("--run", "--k", "--policy")  # each needs --qrels, which needs --run
NOT_ACCEPTED = 3  # with --gate: some candidate is not accepted
WIDTH = 160  # the widest line of the summary
LISTED = 20  # the most changed questions listed for all candidates together


def fixture_data():
    """Return the fixture as a report's data: A, then B, k=2, cases tagged."""
    cases = {name: dict(case, tags=TAGS[name]) if name in TAGS else case
             for name, case in CASES.items()}
    return {"k": 2, "systems": ("A", "B"), "corpus": CORPUS, "cases": cases,
            "runs": RUNS, "policy": POLICY, "manifests": None}


def listed(names, width=100):
    """Return names joined by commas, cut near `width` characters."""
    shown = []
    for name in names:
        if shown and len(", ".join(shown + [name])) > width:
            return ", ".join(shown) + ", ... (%d in all)" % len(names)
        shown.append(name)
    return ", ".join(shown)


def each_run(result, part):
    """Return ('case system', part) of each run, repeated runs numbered '#1'
    ..., and ('case system', None) where the system did not run the case."""
    found = []
    for question in result["questions"]:
        for system, row in question["systems"].items():
            where = "%s %s" % (question["case"], system)
            if row is None or row["repeats"] == 1:
                found.append((where, row and row[part]))
                continue
            runs = row[part] if part == "explain" else [
                run["scores"] for run in row["runs"]]
            for number, value in enumerate(runs, start=1):
                found.append(("%s#%d" % (where, number), value))
    return found


def explain_lines(result):
    """Return each unsupported or uncovered claim and disclosure, then reviews."""
    lines = ["", "each unsupported claim with the first rule it breaks, each expected "
             "claim left uncovered, and each restricted document disclosed"]
    for where, found in each_run(result, "explain"):
        if found is None:
            continue  # not run
        for claim, reason in found["claims"] or ():
            if reason:
                lines.append("%s | claim %s unsupported: %s" % (where, claim, reason))
        for claim in found["uncovered"] or ():
            lines.append("%s | expected claim %s not covered" % (where, claim))
        for document in found["disclosed"]:
            lines.append("%s | restricted document %s disclosed" % (where, document))
    queue = []
    for system, name, claim, cited in result["review_queue"]:
        cited = ", ".join(cited) or "nothing"
        queue.append("%s | %s: claim %s citing %s" % (system, name, claim, cited))
    orphans = ["%s: claim %s" % pair for pair in result["orphan_labels"]]
    lines += ["", "claims nobody has labelled, rejected or disputed: the next "
              "round of reviewing"] + (queue or ["none"])
    lines += ["", "labels that no run uses, a typo perhaps (optional, disputed "
              "or rejected)"]
    return lines + (orphans or ["none"])


def summary_lines(result):
    """Return the summary: decisions, changes, slices, tests, reviews, policy."""
    summary, systems = result["summary"], result["systems"]
    comparisons, policy = summary["comparisons"], summary["policy"]
    label = {name: measure["label"].replace("%d", str(result["k"]))
             for name, measure in MEASURES.items()}
    lines = head_lines(result)
    for compared in comparisons:
        lines += manifest_lines(compared)
        lines += change_lines(compared, label, max(3, LISTED // len(comparisons)))
    for part, names in summary["slices"].items():
        lines += slice_lines(part, names, summary["means"][part], label, comparisons)
    if summary["lenient_means"] is not None:
        lines += slice_lines("answerable", summary["slices"]["answerable"],
                             summary["lenient_means"]["answerable"], label, comparisons,
                             ", lenient reading (disputed labels count as support)")
        lines.append("disputed labels: " + disputes(summary["disputed_labels"]))
    lines += ["", "n/a rule: a macro mean skips questions without a value and says how "
              "many it averaged; n/a never counts as 0."]
    lines += paired_lines(comparisons, summary["groups"], label)
    lines += review_lines(summary)
    if policy is None:
        return lines
    lines += ["", "acceptance policy, from %s" % policy["source"],
              "(python demo.py --explain shows why each unsupported claim is "
              "unsupported)"]
    lines += decision_lines(systems[0], policy["baseline_alone"], alone=True)
    for compared in comparisons:
        title = "%s against %s" % (compared["candidate"], systems[0])
        lines += decision_lines(title, compared["decision"])
    return lines


def head_lines(result):
    """Return each candidate's decision, what the data holds, who ran what."""
    summary, systems = result["summary"], result["systems"]
    lines = []
    for compared in summary["comparisons"]:
        title = "%s against %s: " % (compared["candidate"], systems[0])
        decided = compared["decision"]  # None without a policy
        if decided is not None:
            lines.append(title + verdict(decided))
        test = decided and decided["strict"]["significance"]  # the declared one
        if not compared["shared"]:
            lines.append(title + "no question was run by both: nothing compared")
        elif test and not test["questions"]:
            metric = summary["policy"]["rules"]["significance"]["metric"]
            lines.append(title + "no question has a value of %s from both: nothing "
                         "compared" % metric)
    groups = "" if summary["groups"] is None else " in %d groups" % summary["groups"]
    candidates = "candidate" + "s" * (len(systems) > 2) + " " + ", ".join(systems[1:])
    if len(systems) == 1:  # judged alone, by the rules that need no baseline
        candidates = "alone: nothing compared"
        lines += gated(result)[1] if summary["policy"] else []
    answerable = len(summary["slices"]["answerable"])
    lines.append("summary of %s: %d questions%s (%d answerable), k = %d, "
                 "baseline %s, %s" % (
                     result["source"], len(result["questions"]), groups, answerable,
                     result["k"], systems[0], candidates))
    for system, missing in summary["not_run"].items():
        more = missing["count"] - len(missing["cases"])  # past the cases named
        if missing["count"]:
            lines.append("not run by %s: %s (%s%s)" % (
                system, plural(missing["count"], "question"),
                ", ".join(missing["cases"]), ", and %d more" % more if more else ""))
    if any(missing["count"] for missing in summary["not_run"].values()):
        lines.append("so each mean is over the questions its system ran, and each "
                     "change and paired test over those both ran")
    return lines


def plural(count, noun):
    """Return '1 question' or '2 questions'."""
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def verdict(decided, alone=False):
    """Return a decision in a few words, with its first broken finding: the
    gravest. A baseline checked alone holds its rules, or does not."""
    if decided["accepted"] is None:
        return "none, as no rule of the policy could be checked"
    if decided["accepted"]:
        return "every rule holds" if alone else "accepted" + caveats(decided)
    broken = decided["findings"]
    rule, subject, detail, readings = broken[0]
    text = "%s, first: %s %s (%s)" % (
        "some rule does not hold" if alone else "not accepted", rule,
        subject, detail)
    if readings != "both" and decided["lenient"] is not None:
        text += " [%s reading]" % readings
    if len(broken) > 1:
        text += ", and %d more broken" % (len(broken) - 1)
    return text


def caveats(decided):
    """Return what an acceptance rests on: a plan the readings disagree
    on, or runs of unequal number; else ''."""
    text, loose = "", decided["lenient"]
    if loose is not None and decided["strict"]["accepted"] != loose["accepted"]:
        text += " under the plan %r, the readings disagreeing" % decided["plan"]
    test = decided["strict"]["significance"]
    if test and test["unmatched_runs"]:
        unmatched = plural(test["unmatched_runs"], "question")
        text += " (more runs on one side on %s)" % unmatched
    return text


def manifest_lines(compared):
    """Return what changed between the two systems' run manifests, if given."""
    changed = compared["manifest_changes"]
    if changed is None:
        return []
    lines = ["", "run manifests: what changed from %s to %s (corpus, questions, "
             "permissions and rubric are held constant)" % (
                 compared["baseline"], compared["candidate"])]
    for field, old, new in changed:
        old, new = ["(none)" if value is None else ascii(value)
                    for value in (old, new)]
        lines.append("%s: %s -> %s" % (field, old, new))
    if not changed:
        lines.append("nothing changed")
    if len(changed) > 1:
        lines.append("%d things changed at once: which of them made the difference is "
                     "unknown; change one at a time" % len(changed))
    return lines


def change_lines(compared, label, most):
    """Return the questions that moved, regressions first, then the totals."""
    if not compared["shared"]:
        return []  # nothing compared: the first lines say so
    lines = ["", "per-question change from %s to %s on the %d questions both ran (a "
             "pair with n/a on either side is shown, not judged)" % (
                 compared["baseline"], compared["candidate"], compared["shared"])]
    moved = [item for item in compared["changes"] if item["moved"]]
    worse = ("regressed", "mixed")
    moved.sort(key=lambda item: item["verdict"] not in worse)  # stable
    for item in moved[:most]:
        judged, unjudged = [], []
        for metric, old, new, weighed in item["moved"]:
            text = "%s %s -> %s" % (label[metric], cell(old), cell(new))
            (judged if weighed else unjudged).append(text)
        detail = ", ".join(judged)  # none when the verdict is "not judged"
        if unjudged:
            detail += ("; not judged: " if judged else "") + ", ".join(unjudged)
        lines.append("%s: %s (%s)" % (item["case"], item["verdict"], detail))
    totals = ", ".join("%d %s" % (count, name)
                       for name, count in compared["totals"].items())
    if len(moved) > most:
        totals += "; %d more moved (--json lists every question)" % (
            len(moved) - most)
    lines.append("totals: " + totals)
    if compared["lenient_changes"]:
        turned = ["%s %s -> %s" % change for change in compared["lenient_changes"]]
        lines.append("verdicts the lenient reading turns: " + listed(turned))
    return lines


def slice_lines(part, names, means, label, comparisons, reading=""):
    """Return a slice's means per system, then a tag's verdicts per candidate."""
    if not names:
        return ["", "no %s questions" % part]
    measured, unmeasured = [], []
    for metric in label:
        if metric in means:
            averaged = any(mean["averaged"] for mean in means[metric].values())
            (measured if averaged else unmeasured).append(metric)
    abstentions = means["correct_abstentions"] is not None and not reading
    header = [label[metric] for metric in measured] + ["support pooled"]
    header += ["abstention correct"] * abstentions
    lines = ["", "%s slice%s: %s" % (part, reading, listed(names, 60)),
             "macro mean (questions averaged, of %d) | %s" % (
                 len(names), " | ".join(header))]
    if unmeasured:
        lines[2] += " (no value to average: %s)" % ", ".join(
            label[metric] for metric in unmeasured)
    for system, pooled in means["pooled_support"].items():
        row = ["%s (%d)" % (cell(means[metric][system]["mean"]),
                            means[metric][system]["averaged"]) for metric in measured]
        row.append("%d/%d = %s" % (pooled["supported"], pooled["generated"],
                                   cell(pooled["ratio"])))
        if abstentions:
            row.append("%(correct)d/%(total)d" % means["correct_abstentions"][system])
        lines.append("%s | %s" % (system, " | ".join(row)))
    counts = []
    for compared in comparisons:
        totals = compared["slice_totals"].get(part)
        if totals is None:
            return lines  # answerable and unanswerable: their totals are above
        counted = "nothing compared"
        if sum(totals.values()):
            counted = "/".join(map(str, totals.values()))
        counts.append("%s %s" % (compared["candidate"], counted))
    if not counts:
        return lines  # a system alone: no verdict
    return lines + ["verdicts %s | %s" % ("/".join(comparisons[0]["totals"]),
                                          " | ".join(counts))]


def paired_lines(comparisons, groups, label):
    """Return each candidate's paired tests, and what so few questions can show."""
    unit = "question" if groups is None else "group"
    shared = [compared for compared in comparisons if compared["shared"]]
    if not shared:
        return []  # nothing compared: the first lines say so
    lines = ["", "paired sign-flip test from %s to %s on the answerable slice (each %s "
             "is one pair)" % (shared[0]["baseline"], ", ".join(
                 compared["candidate"] for compared in shared), unit)]
    unpaired = {}  # measure: the candidates it compares on no question
    for compared in shared:
        name = compared["candidate"] + " | " if len(shared) > 1 else ""
        for metric, test in compared["paired_tests"].items():
            if test["questions"]:
                lines.append(name + label[metric] + " | " + test_text(test, unit))
            else:
                unpaired.setdefault(label[metric], []).append(name[:-3])
    alike = {}  # the measures unpaired for the same candidates
    for metric, candidates in unpaired.items():
        alike.setdefault(tuple(candidates), []).append(metric)
    for candidates, metrics in alike.items():
        against = "" if len(candidates) == len(shared) else " (%s)" % (
            ", ".join(candidates))
        lines.append("%s%s | no question has a value from both: nothing "
                     "compared" % (", ".join(metrics), against))
    floor = shared[0]["floor"]
    if not floor["below_level"]:  # too few questions to tell anything apart
        units = "%d %ss" % (floor["units"], unit)
        lines.append("with %s, this sign-flip test's p is at least %s even if all of "
                     "them moved: it cannot reach p < %g" % (
                         units, p_text(floor["p"]), floor["level"]))
    return lines


def test_text(test, unit):
    """Return one paired test in words."""
    total = test["questions"] + test["left_out"]
    mean = "mean %+.2f (%d of %d)" % (test["mean"], test["questions"], total)
    if test["groups"] != test["questions"]:
        mean = "mean %+.2f over %d groups, %+.2f over %d of %d questions" % (
            test["mean"], test["groups"], test["question_mean"],
            test["questions"], total)
    moved = test["wins"] + test["losses"]
    text = "%s | wins %d, ties %d, losses %d | %s | the smallest p %s can give: " \
        "%s" % (mean, test["wins"], test["ties"], test["losses"], test["p_shown"],
                plural(moved, "moved " + unit), p_text(test["min_p"]))
    if test["one_sided"]:
        text += " | %d with a value on one side only" % test["one_sided"]
    if test["unmatched_runs"]:
        text += " | more runs on one side on %d of the questions (match " \
            "them)" % test["unmatched_runs"]
    return text


def review_lines(summary):
    """Return the disclosures, unsupported claims by reason, what is unreviewed."""
    disclosed = []
    for system, found in summary["disclosures"].items():
        if found:
            documents = ["%s: %s" % (name, ", ".join(cited))
                         for name, cited in found]
            disclosed.append("%s | %s" % (system, listed(documents)))
    lines = ["", "restricted documents disclosed (in the top k or cited); no score and "
             "no policy can excuse one" + ": none" * (not disclosed)] + disclosed
    lines += ["", "unsupported claims by the first rule they break (python demo.py "
              "--explain lists each)"]
    for system, reasons in summary["unsupported_reasons"].items():
        counted = ", ".join("%s %d" % pair for pair in reasons.items())
        lines.append("%s | %s" % (system, counted or "none"))
    unreviewed = "".join(" | %s %d" % pair
                         for pair in summary["unreviewed"].items())
    lines += ["", "claims nobody has labelled, rejected or disputed (--explain "
              "lists them)" + unreviewed]
    return lines + ["labels that no run uses: %d; questions judged without "
                    "expected claims: %d" % (summary["orphan_labels"],
                                             summary["judged_without_expected"])]


def decision_lines(title, decided, alone=False):
    """Return the findings broken, held and not checked, then the decision."""
    strict, loose = decided["strict"], decided["lenient"]
    lines, line_title = [], "baseline " + title if alone else title
    for rule, subject, detail, readings in decided["findings"]:
        marked = "" if loose is None else " [both readings]" \
            if readings == "both" else " [%s reading only]" % readings
        lines.append("%s | broken %s %s (%s)%s" % (
            line_title, rule, subject, detail, marked))
    held = [finding[0] for finding in strict["held"]]  # per rule, in order
    if held:
        lines.append("%s | held: %s" % (line_title, ", ".join(
            "%d %s" % (held.count(rule), rule) for rule in dict.fromkeys(held))))
    for finding in strict["held"]:
        if finding[0] == "significance":
            lines.append("%s | held %s %s (%s)" % ((line_title,) + finding))
    for rule, why in strict["unchecked"]:
        lines.append("%s | not checked: %s (%s)" % (line_title, rule, why))
    counts = "; ".join("%s%d broken, %d held" % (
        "" if loose is None else reading + ": ", len(judged["broken"]),
        len(judged["held"]))
        for reading, judged in (("strict", strict), ("lenient", loose)) if judged)
    ending = "" if loose is None else "; both readings agree"
    if loose is not None and strict["accepted"] != loose["accepted"]:
        ending = "; the readings disagree, so resolve these disputed labels " \
            "first: " + disputes(decided["depends_on"], 160)
    rules = dict.fromkeys(finding[0]
                          for finding in strict["broken"] + strict["held"])
    said = verdict(decided, alone).split(", first")[0]
    if alone:  # the baseline is checked, not accepted as a candidate
        return lines + ["baseline %s checked alone (%s), plan %r: %s (%s)%s" % (
            title, ", ".join(rules) or "no rule", decided["plan"], said, counts,
            ending)]
    return lines + ["decision for %s, plan %r: %s (%s)%s" % (
        title, decided["plan"], said, counts, ending)]


def disputes(labels, width=100):
    """Return disputed labels, each (case, claim, its sources), listed."""
    return listed(["%s: %s <- %s" % (name, claim, ", ".join(sources))
                   for name, claim, sources in labels], width)


def rendered(result, options):
    """Return the report as the options ask: text, or one line of JSON."""
    if "--json" in options:
        import json  # only this option writes JSON
        return json.dumps(result, default=float, allow_nan=False)
    lines = ["note: " + note for note in result["notes"] or ()]  # what TREC files left out
    if "--explain" in options or "--summary" not in options:
        labels = [MEASURES[name]["label"] for name in result["measures"]]
        rows = [(where, scores and scores.values())
                for where, scores in each_run(result, "scores")]
        lines += table_lines(rows, result["k"], labels)
    if "--explain" in options:
        lines += explain_lines(result)
    if "--summary" in options:
        lines += [""] * bool(lines) + summary_lines(result)
    text = []  # each line over WIDTH broken between words, then indented
    for line in lines:
        if len(line) <= WIDTH:
            text.append(line)
        else:
            from textwrap import wrap  # (a long line is rare: loaded then)
            text += wrap(line, WIDTH, subsequent_indent="    ",
                         break_on_hyphens=False)
    return "\n".join(text)


def gated(result):
    """Return NOT_ACCEPTED unless every candidate is accepted (a system
    alone: unless it breaks no rule), and a line on each."""
    systems, decisions = result["systems"], result["summary"]["decisions"]
    policy = result["summary"]["policy"]
    lines = []
    if len(systems) == 1:  # checked by the rules that need no baseline
        lines.append("baseline %s checked alone: %s" % (systems[0], verdict(
            policy["baseline_alone"], alone=True) if policy
            else "not checked, as the data has no policy"))
    for candidate in systems[1:]:
        why = verdict(decisions[candidate]) if decisions else \
            "not accepted, as the data has no policy"
        lines.append("%s against %s: %s" % (candidate, systems[0], why))
    return 0 if result["summary"]["accepted"] else NOT_ACCEPTED, lines


def parsed(arguments):
    """Return ({option: its path, or True}, None) of the arguments, or
    (None, why) at the first one not understood."""
    given, rest = {}, list(arguments)
    while rest:
        word = rest.pop(0)
        if word not in OPTIONS:
            return None, "%s is not an option" % ascii(word)
        if word in given and word not in REPEATED:
            return None, "%s is given twice" % ascii(word)
        if OPTIONS[word] and (not rest or rest[0].startswith("-")):
            return None, "%s needs a path" % ascii(word)  # never an option
        value = rest.pop(0) if OPTIONS[word] else True
        given[word] = given.get(word, ()) + (value,) if word in REPEATED else value
    if "--data" in given and "--qrels" in given:
        return None, "--data and --qrels exclude each other"
    if ("--qrels" in given) != ("--run" in given) or "--qrels" not in given \
            and set(TREC) & set(given):
        return None, "--qrels FILE goes with --run FILE, and --k and --policy with them"
    k = given.get("--k", "10")
    if not (k.isascii() and k.isdigit()):
        return None, "--k needs a whole number, not %s" % ascii(k)
    return given, None


def main(arguments=None):
    """Print what the options ask for (see USAGE); return the exit status."""
    given, why = parsed(sys.argv[1:] if arguments is None else arguments)
    if given is not None and ("-h" in given or "--help" in given):
        return write(USAGE)
    lab = given is not None and "--lab" in given
    if lab and set(given) <= {"--lab", "--exercise"}:
        return write_lab(given["--lab"], "--exercise" in given)
    if given is not None and not lab and "--exercise" not in given:
        return printed(given)
    why = why or "--exercise goes with --lab FOLDER, and --lab with no " \
        "other option"
    write("demo.py: %s; python demo.py --help lists the options\n" % why,
          "stderr")
    return 2


def printed(given):
    """Print the report the options ask for; return the exit status."""
    import gc
    if not given:  # the fixture's table: its rows alone, as in the lab
        try:
            return write("\n".join(table_lines(fixture_rows())) + "\n")
        except EvaluationError:
            pass  # a fault: the report below says where it is
    # A report makes millions of objects and no cycle among them: the
    # collector would only scan them, again and again, as they come.
    gc.disable()
    path = given.get("--data")
    source = "fixtures.py" if path is None else shown_path(path)
    if "--qrels" in given:
        source = "%s with %s" % (shown_path(given["--qrels"]), ", ".join(
            map(shown_path, given["--run"])))
    gate = "--gate" in given
    try:
        data = fixture_data() if path is None else load_data(path)
        if "--qrels" in given:
            data = trec_data(given)
        result = report(data, summary="--summary" in given or gate,
                        explain="--explain" in given, source=source)
    except EvaluationError as error:  # a fault in the data: one line
        write("%s: %s\n" % (source, error), "stderr")
        return 1
    del data  # the report holds what is printed: its memory goes first
    status, why = gated(result) if gate else (0, [])
    if "--summary" not in given:
        result["summary"] = None  # made for the gate alone
    written = write(rendered(result, given) + "\n")
    if not written:  # else its one line alone: the report is not there
        write("".join(line + "\n" for line in why), "stderr")
    return written or status


def shown_path(path):
    """Return a path as it is, or as ascii() shows it if it is not printable ASCII."""
    return path if path.isascii() and path.isprintable() else ascii(path)


def trec_data(given):
    """Return the data of the TREC files given, with the policy file's if any."""
    data = load_trec(given["--qrels"], given["--run"], k=int(given.get("--k", 10)))
    if "--policy" in given:
        try:
            data["policy"] = load_data(given["--policy"])
        except EvaluationError as error:  # named as its file
            raise EvaluationError("%s: %s" % (shown_path(given["--policy"]), error))
    return data


def write(text, stream="stdout"):
    """Write text to a standard stream in ASCII; return 0, 141 or 74 (see USAGE)."""
    output = getattr(sys, stream)
    try:
        if output is None:  # started with it closed
            raise OSError("it is closed")
        binary = getattr(output, "buffer", None)  # where each write's count is known
        for start in range(0, len(text), 2 ** 20):  # no copy of all of it
            chunk = text[start:start + 2 ** 20].encode("ascii", "backslashreplace")
            while binary and chunk:  # a pipe takes part of it as its reader goes
                chunk = chunk[binary.write(chunk):]  # the rest: an error then
            output.write(chunk.decode())  # (all of it to a stream of text alone)
        output.flush()
    except OSError as error:  # closed, full or stopped: at most one line
        try:  # onto the null device: what is left in its buffer says nothing at exit
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, output.fileno())
            os.close(null)
        except (AttributeError, OSError, ValueError):
            pass  # no file under it: nothing to say at exit either
        if isinstance(error, BrokenPipeError):
            return 141
        if stream == "stdout":
            write("demo.py: cannot write the report: %s\n" % (
                error.strerror or error), "stderr")
        return 74
    return 0


# --- The course lab --------------------------------------------------------
# python demo.py --lab FOLDER [--exercise] writes it: each file cut from this
# project's own at its marker line, written aside, then moved into place.

LAB_MAIN = """

def main():
    \"\"\"Print the per-question table of the fixture.\"\"\"
    print("\\n".join(table_lines(fixture_rows())))


if __name__ == "__main__":  # a reader that stops early: no traceback
    import signal
    signal.signal(getattr(signal, "SIGPIPE", signal.SIGINT), signal.SIG_DFL)
    sys.exit(main())
"""
LAB_CUTS = {  # file: the line that ends the lab's part, or None for all of it
    "evaluate.py": "# END OF THE CONTRACT OF ONE QUESTION",
    "test_evaluate.py": "# END OF THE LAB'S TESTS",
    "demo.py": "# END OF THE LAB'S DEMO",
    "README.md": "<!-- END OF THE LAB -->",
    "fixtures.py": "# END OF THE LAB'S FIXTURE", "LICENSE": None}
LAB_ENDINGS = {  # what the lab's file gets after its part
    "demo.py": LAB_MAIN,
    "test_evaluate.py": '\n\nif __name__ == "__main__":\n    unittest.main()\n'}
EXERCISE = ("_retrieval_counts", "_values", "_reasons", "_uncovered",
            "_unsupported_because", "_disclosed", "_reviewed",
            "_lenient_reading")  # the steps, in the order the tests ask


def lab_files(exercise):
    """Return {file name: text} of the course lab, EXERCISE stubbed if exercise."""
    here = os.path.dirname(os.path.abspath(__file__))
    files = {}
    for name, marker in LAB_CUTS.items():
        with open(os.path.join(here, name), encoding="utf-8") as file:
            text = file.read()
        if marker is not None:
            lines = text.split("\n")
            end = next(index for index, line in enumerate(lines)
                       if line.startswith(marker))
            if name == "evaluate.py":
                end += 2  # the END line and the rule below it
            text = "\n".join(lines[:end]).rstrip("\n") + "\n"
        files[name] = text + LAB_ENDINGS.get(name, "")
    if exercise:
        files["evaluate.py"] = stubbed(files["evaluate.py"], EXERCISE)
    return files


def stubbed(source, names):
    """Return source with each named function's body, past its docstring, a raise."""
    import ast
    lines = source.split("\n")
    nodes = [node for node in ast.parse(source).body
             if isinstance(node, ast.FunctionDef) and node.name in names]
    for node in sorted(nodes, key=lambda node: -node.lineno):  # bottom up
        indent = " " * node.body[0].col_offset
        lines[node.body[0].end_lineno:node.end_lineno] = [
            indent + "raise NotImplementedError"]
    return "\n".join(lines)


def placed(aside, target, moved):
    """Move the folder aside to target or, when target is an empty folder
    already (whoever sits in it stays there), its files into target, each
    noted in moved."""
    if not os.path.isdir(target):
        os.rename(aside, target)
        return
    for name in os.listdir(aside):
        os.rename(os.path.join(aside, name), os.path.join(target, name))
        moved.append(os.path.join(target, name))
    os.rmdir(aside)


def write_lab(folder, exercise):
    """Write the course lab into a new or empty folder, whole or not at all
    (written aside, then moved into place); return the exit status."""
    import shutil
    import signal
    import tempfile
    target = above = os.path.abspath(folder)
    made, moved = [], []  # what this call made: undone on any fault
    held = getattr(signal, "pthread_sigmask", lambda *signals: None)  # not on Windows
    held(signal.SIG_BLOCK, {signal.SIGINT})  # Ctrl-C waits: the lab whole or undone
    try:
        files = lab_files(exercise)  # all read before anything is written
        if os.path.lexists(target) and (not os.path.isdir(target)
                                        or os.listdir(target)):
            raise OSError("is not a new or empty folder")
        while not os.path.lexists(os.path.dirname(above)):  # folders to make
            above = os.path.dirname(above)
            made.insert(0, above)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        aside = tempfile.mkdtemp(".part", ".lab-", os.path.dirname(target))
        made.append(aside)
        umask = os.umask(0o22)  # read by setting it, then put back
        os.umask(umask)
        os.chmod(aside, 0o777 & ~umask)  # as a folder made new would be
        for name, text in files.items():
            with open(os.path.join(aside, name), "x", encoding="utf-8") as file:
                file.write(text)
        placed(aside, target, moved)
    except (OSError, StopIteration) as error:
        for path in moved:
            os.remove(path)
        for path in made[::-1]:
            shutil.rmtree(path, ignore_errors=True)
        reason = getattr(error, "strerror", None) or str(error) or "a marker is missing"
        write("demo.py --lab %s: %s\n" % (ascii(folder), reason), "stderr")
        return 1
    finally:
        held(signal.SIG_UNBLOCK, {signal.SIGINT})  # then it ends the run, if pressed
    steps = ("python -m unittest: each failure names the next rule to write "
             "(python demo.py works once they all pass)") if exercise else \
        "python demo.py and python -m unittest"
    return write("wrote the course lab%s into %s: cd there, then %s\n" % (
        " exercise" * exercise, ascii(folder), steps))


if __name__ == "__main__":
    if sys.argv[1:]:  # a report or a lab: Ctrl-C ends it at once, unwinding nothing
        import signal  # (not for the plain table: it starts faster without it)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
