"""Break the scorer on purpose, once per defect, and check what a student reads.

Each defect goes into evaluate.py of a copy of the project (with --lab, of the
course lab), whose text holds its target once, in the function named; then
`python -m unittest` there must fail in at most 300 lines, first at the check
of the rule broken: a wrong value fails it, nothing raising anywhere; a defect
marked "!" raises there, in that function. With --lab, each row of the README's
"Break the scorer on purpose" must be one of these, in a function the exercise
leaves to write.   python .ci/defects.py [--lab]: a line per check, then
"N passed, N failed".
"""
import ast
import os
import re
import sys
import tempfile

from exercise import ROOT, blocks, demo, lab_or_project, run_suite, written  # .ci's
from reporting import reported  # .ci's own module

MAX_LINES = 300
S = " " * 8  # the indent of a line inside a function's return
DEFECTS = {  # name: (function, its text, what replaces it, the check failing first)
    "k is what came back": ("_retrieval_counts", '"k": k,\n' + S + '"hits"',
                            '"k": len(retrieved),\n' + S + '"hits"', "a_short_list_keeps_k_slots"),
    "ranks from 0": ("_retrieval_counts", "(retrieved[:k], start=1)", "(retrieved[:k])",
                     "ranks_count_from_one"),
    "the last hit's rank": ("_retrieval_counts", "ranks[0] if", "ranks[-1] if",
                            "the_first_hit_is_the_best_ranked_relevant_document"),
    "a hit one past k": ("_retrieval_counts", "(retrieved[:k], start", "(retrieved[:k + 1], start",
                         "the_top_k_holds_k_documents_no_more_no_fewer"),
    "relevant from the run": ("_retrieval_counts", '"relevant": len(relevant)', '"relevant": len('
                              'retrieved)', "relevant_documents_count_whether_retrieved_or_not"),
    "recall over k": ("_values", '"hits"] / counts["relevant"]', '"hits"] / counts["k"]',
                      "recall_divides_by_the_relevant_documents"),
    "rr off by one": ("_values", "(1 / first_hit if", "(1 / (first_hit + 1) if",
                      "reciprocal_rank_is_one_over_the_first_hit_rank"),
    "rr of no hit, an int": ("_values", "if first_hit else 0.0)", "if first_hit else 0)",
                             "no_hit_gives_a_reciprocal_rank_of_zero_not_na"),
    "rr of no hit, 1 / None": ("_values", "(1 / first_hit if first_hit else 0.0)",
                               "(1 / first_hit)", "no_hit_gives_a_reciprocal_rank_of_zero_not_na!"),
    "support over expected": ("_values", '"supported"] / counts["generated"]',
                              '"supported"] / max(1, counts["expected"] or 1)',
                              "support_divides_by_the_generated_claims"),
    "coverage over claims made": ("_values", '"covered"] / counts["expected"]', '"covered"] / max('
                                  '1, counts["generated"])',
                                  "coverage_divides_the_covered_by_the_expected_claims"),
    "support 0/0 for no claim": ("_values", "\n" + S + "if judged else None",
                                 "\n" + S + 'if counts["supported"] is not None else None',
                                 "a_value_that_does_not_apply_is_none_never_zero"),
    "abstention inverted": ("_values", 'not counts["generated"]', 'bool(counts["generated"])',
                            "abstaining_is_correct_only_on_an_unanswerable_question"),
    "judged only with expected claims": ("_reasons", " and not any(\n" + S + "    key in "
                                         "case for key in _JUDGEMENTS)", "",
                                         "an_answer_is_judged_when_some_label_judges_it"),
    "every retrieved document seen": ("_reasons", "visible = set(retrieved[:k])", "visible = set("
                                      "retrieved)", "a_source_outside_the_top_k_supports_nothing"),
    "claims sorted by ID": ("_reasons", "citations in claims]", "citations in sorted(claims)]",
                            "each_claim_gets_its_reason_in_answer_order"),
    "optional claims left out": ("_reasons", '**case.get("optional", {})}', "}",
                                 "an_optional_claim_is_supported_but_covers_nothing"),
    "the covered claims listed": ("_uncovered", "if claim_id not in supported)", "if claim_id in "
                                  "supported)", "uncovered_claims_come_in_label_order"),
    "uncovered claims as a list": ("_uncovered", "return tuple(claim_id for claim_id in support\n",
                                   "return list(claim_id for claim_id in support\n",
                                   "explain_gives_tuples_not_lists"),
    "one good citation is enough": ("_unsupported_because", "for cited in citations:  # any "
                                    "labelled source will do, but each one\n" + S + "if cited "
                                    "not in labels[claim_id]:", "if not any(cited in labels["
                                    "claim_id] for cited in citations):\n" + S + "if True:",
                                    "one_bad_citation_makes_a_claim_unsupported"),
    "no 'no label' rule": ("_unsupported_because", "if claim_id not in labels:", "if False:",
                           "a_claim_nobody_labelled_is_unsupported!"),
    "only the top k disclosed": ("_disclosed", "exposed.update(citations)", "pass",
                                 "a_restricted_document_in_the_top_k_or_cited_is_disclosed"),
    "no citation before rejected": ("_reviewed", "if claim_id in rejected:",
                                    'if claim_id in rejected and reason != "no citation":',
                                    "a_rejected_claim_is_told_from_one_nobody_reviewed"),
    "no agreed label, no label": ("_reviewed", 'elif reason == "no label":', "elif False:",
                                  "a_claim_with_no_agreed_label_takes_the_lenient_reason"),
    "an empty optional added": ("_lenient_reading", 'if optional or case["support"] is None:',
                                "if True:", "lenient_agrees_each_disputed_label_in_a_new_case"),
    "lenient unchecked": ("lenient", '    _check_case_rules(_checked_fields(case, "case", '
                          '_CASE_KEYS, None))\n', "", "lenient_checks_the_case_as_validate_does"),
    "counting unvalidated": ("tally", "validate(corpus, case, run, k)\n    counts",
                             '(case["relevant"], case["support"], run["retrieved"], '
                             'run["claims"])\n    counts',
                             "counting_starts_with_validation"),
    "citations counted, not claims": ("tally", "else len(supported),",
                                      "else sum(len(c) for i, c in claims if i in supported),",
                                      "a_claim_may_cite_any_of_its_sources_and_counts_once"),
    "a case changed by setdefault": ("tally", 'case.get("restricted", ())\n    counts',
                                     'case.setdefault("restricted", ())\n    counts',
                                     "scoring_never_changes_an_input"),
}


def broken(folder, lab, original, replacement):
    """Write the project or the lab into folder with one defect in evaluate.py;
    return the function whose body holds the defect's text, or None unless that
    text is in evaluate.py exactly once."""
    files = lab_or_project(lab)
    source = files["evaluate.py"]
    written(folder, dict(files, **{"evaluate.py": source.replace(original, replacement)}))
    if source.count(original) != 1:
        return None
    line = source[:source.index(original)].count("\n") + 1
    return next((node.name for node in ast.parse(source).body if isinstance(
        node, ast.FunctionDef) and node.lineno <= line <= node.end_lineno), "?")


def problems(output, check, function):
    """Return what is wrong with the suite's output for a defect, or None."""
    printed, found = blocks(output), []
    if len(output.splitlines()) > MAX_LINES:
        found.append("%d lines, more than %d" % (len(output.splitlines()), MAX_LINES))
    if not printed:
        return "nothing failed"
    kind, name, block = printed[0]
    if name != "test_" + check.rstrip("!"):
        found.append("the first block is %s" % name)
    if check.endswith("!"):
        frames = re.findall(r'evaluate\.py", line \d+, in (\w+)$', "\n".join(block), re.M)
        if kind != "ERROR" or frames[-1:] != [function]:
            found.append("no error raised in %s()" % function)
    elif "ERROR" in [kind for kind, name, block in printed]:
        found.append("an error")
    return "; ".join(found) or None


def readme_rows():
    """Return [(function, rule words)] of the README's "Break the scorer" rows."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        text = file.read().split("**Break the scorer on purpose.**")[1].split("**Add a")[0]
    return re.findall(r"^- `(\w+)` [^*]*\*([^*]+)\*", text, re.M)


def every_check(lab):
    """Yield (label, problem or None) for each defect, then for the README's rows."""
    with tempfile.TemporaryDirectory() as scratch:
        runs = []
        for number, (label, (function, original, new, check)) in enumerate(DEFECTS.items()):
            where = broken(os.path.join(scratch, str(number)), lab, original, new)
            runs.append((label, function, where, check, where and run_suite(
                os.path.join(scratch, str(number)))))
        for label, function, where, check, process in runs:
            output = process.communicate()[0] if process else ""
            yield "%s (%s): %s" % (label, function, check), problems(
                output, check, function) if where == function else \
                "its text is in %s, not once in %s" % (where, function)
    named = {(function, check.rstrip("!").replace("_", " "))
             for function, _, _, check in DEFECTS.values()}
    for function, words in readme_rows() if lab else ():
        words = " ".join(words.split())
        yield "README: %s breaks '%s'" % (function, words), None if (
            function, words) in named and function in demo.EXERCISE else "no such defect"


if __name__ == "__main__":
    sys.exit(reported(every_check(sys.argv[1:] == ["--lab"])))
