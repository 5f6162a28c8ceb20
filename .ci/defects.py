"""Break the scorer on purpose, once per defect, and check what a student would read.

For each defect below, a copy of the project (or, with --lab, of the course lab
that `python demo.py --lab` writes) gets that defect in evaluate.py, and
`python -m unittest` runs there. It must fail and print at most 300 lines in
all, and its first FAIL/ERROR block must be the worked check of the rule the
defect breaks:
- a defect that returns a wrong value fails that check's assertion, and
  nothing raises anywhere;
- a defect that raises does so in that check, and the traceback ends in the
  evaluate.py function that raised.
The suite then proves it can fail, on evaluate.py's own text: if a defect's
text is not in evaluate.py exactly once, that defect fails here, so a change
to the scorer that moves a target must move the target too.

    python .ci/defects.py          in a copy of the project
    python .ci/defects.py --lab    in the course lab
Each prints one line per defect, then "N passed, N failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ("evaluate.py", "fixtures.py", "demo.py", "test_evaluate.py", "README.md")
MAX_LINES = 300

# defect: (text of evaluate.py, what replaces it, the worked check printed first,
#          the function it raises in, or None when it returns a wrong value)
DEFECTS = {
    # The three defects the suite must catch, whatever else changes.
    "precision over the documents returned, not k":
        ('"k": k,\n        "hits"', '"k": max(1, len(retrieved)),\n        "hits"',
         "test_short_list_keeps_the_cutoff_denominator", None),
    "any labelled citation supports the claim, not all":
        ("    for cited in citations:  # any labelled source will do, but each one\n"
         "        if cited not in labels[claim_id]:",
         "    if not any(cited in labels[claim_id] for cited in citations):\n"
         "        if True:",
         "test_one_bad_citation_makes_a_claim_unsupported", None),
    "a source outside the top k still supports":
        ("visible = set(retrieved[:k])", "visible = set(retrieved)",
         "test_source_outside_the_cutoff_supports_nothing", None),
    # The defects of the README's exercise, "Break the scorer on purpose".
    "recall over k, not the relevant documents":
        ('counts["hits"] / counts["relevant"]', 'counts["hits"] / counts["k"]',
         "test_recall_divides_by_the_relevant_documents", None),
    "reciprocal rank off by one":
        ("(1 / first_hit if first_hit", "(1 / (first_hit + 1) if first_hit",
         "test_reciprocal_rank_is_one_over_the_first_relevant_rank", None),
    "coverage over the generated claims, not the expected ones":
        ('counts["covered"] / counts["expected"]',
         'counts["covered"] / max(1, counts["generated"])',
         "test_coverage_divides_the_covered_claims_by_the_expected_ones", None),
    "coverage from the supported claims, not the covered ones":
        ('counts["covered"] / counts["expected"]', 'counts["supported"] / counts["expected"]',
         "test_coverage_divides_the_covered_claims_by_the_expected_ones", None),
    "support over the expected claims, not the generated ones":
        ('counts["supported"] / counts["generated"]',
         'counts["supported"] / max(1, counts["expected"] or 1)',
         "test_support_divides_by_the_generated_claims", None),
    "abstention inverted":
        ('not counts["generated"]', 'bool(counts["generated"])',
         "test_abstaining_is_correct_only_on_an_unanswerable_question", None),
    "ranks counted from 0":
        ("enumerate(retrieved[:k], start=1)", "enumerate(retrieved[:k])",
         "test_ranks_count_from_one", None),
    "a hit counted one slot past k":
        ("enumerate(retrieved[:k], start=1)", "enumerate(retrieved[:k + 1], start=1)",
         "test_the_top_k_holds_k_documents_no_more_no_fewer", None),
    "ranks that stop one short of k":
        ("enumerate(retrieved[:k], start=1)", "enumerate(retrieved[:k - 1], start=1)",
         "test_the_top_k_holds_k_documents_no_more_no_fewer", None),
    "claims sorted by ID":
        ("            for claim_id, citations in claims]",
         "            for claim_id, citations in sorted(claims)]",
         "test_each_claim_gets_its_reason_in_answer_order", None),
    "citations counted, not claims":
        ('"supported": None if supported is None else len(supported),',
         '"supported": None if supported is None else sum(len(cited) for claim, cited '
         'in claims if claim in supported),',
         "test_a_claim_citing_two_labelled_sources_is_one_supported_claim", None),
    "no hit gives the int 0":
        ("if first_hit else 0.0)", "if first_hit else 0)",
         "test_no_hit_in_the_top_k_gives_a_reciprocal_rank_of_zero_not_na", None),
    "a case changed by setdefault":
        ('restricted = case.get("restricted", ())\n    return {',
         'restricted = case.setdefault("restricted", ())\n    return {',
         "test_scoring_never_changes_an_input", None),
    "counting without validation":
        ("    relevant, support, retrieved, claims = validate(corpus, case, run, k)\n"
         "    ranks",
         '    relevant, support = case["relevant"], case["support"]\n'
         '    retrieved, claims = run["retrieved"], run["claims"]\n    ranks',
         "test_counting_starts_with_validation", None),
    "reciprocal rank taken from the last hit, not the first":
        ('"first_hit": ranks[0] if ranks else None', '"first_hit": ranks[-1] if ranks else None',
         "test_the_first_hit_is_the_best_ranked_relevant_document", None),
    "expected claims counted from the relevant documents":
        ('"expected": None if support is None else len(support),',
         '"expected": None if support is None else len(relevant or support),',
         "test_expected_claims_are_counted_from_the_labels", None),
    "the relevant count taken from the retrieved list":
        ('"relevant": None if ranks is None else len(relevant),',
         '"relevant": None if ranks is None else len(retrieved),',
         "test_relevant_documents_are_counted_whether_retrieved_or_not", None),
    "a restricted document cited but not retrieved is not disclosed":
        ("exposed.update(citations)", "pass",
         "test_a_restricted_document_in_the_top_k_or_cited_is_disclosed", None),
    "a judged claim counted only where claims are expected":
        ('if case["support"] is None and not any(key in case for key in _JUDGEMENTS):',
         'if case["support"] is None:',
         "test_a_claim_citing_its_labelled_source_in_the_top_k_is_supported", None),
    "the lenient reading drops the optional claims":
        ('        if optional or fields["support"] is None:  # still judged\n'
         '            reading["optional"] = optional\n', "",
         "test_the_lenient_reading_adds_each_disputed_source_and_expects_no_new_claim", None),
    # Defects that raise: the traceback must end where they do.
    "support of an empty answer divides by 0":
        ('counts["supported"] / counts["generated"]\n        if judged else None',
         'counts["supported"] / counts["generated"]\n'
         '        if counts["supported"] is not None else None',
         "test_an_answerable_question_with_nothing_back_scores_zero_not_na", "_values"),
    "recall of an unanswerable question divides by 0":
        ('counts["hits"] / counts["relevant"] if ranked else None',
         'counts["hits"] / counts["relevant"] if counts["relevant"] is not None else None',
         "test_an_unanswerable_question_has_no_retrieval_values_and_no_coverage", "_values"),
    "reciprocal rank with no hit divides by None":
        ("(1 / first_hit if first_hit else 0.0)", "(1 / first_hit)",
         "test_no_hit_in_the_top_k_gives_a_reciprocal_rank_of_zero_not_na", "_values"),
    "the no-label rule removed, so a claim nobody labelled raises":
        ('    if claim_id not in labels:\n        return "no label"',
         '    if False:\n        return "no label"',
         "test_a_claim_nobody_labelled_is_unsupported", "_unsupported_because"),
}


def project(folder, lab):
    """Copy the project, or write the course lab, into folder."""
    if lab:
        subprocess.run([sys.executable, os.path.join(ROOT, "demo.py"), "--lab", folder],
                       check=True, stdout=subprocess.DEVNULL)
        return
    for name in FILES:
        shutil.copy(os.path.join(ROOT, name), folder)


def broken_copy(folder, original, replacement, lab):
    """Put the project or the lab into folder, with one defect in evaluate.py; False if
    the defect's text is not in evaluate.py exactly once."""
    project(folder, lab)
    path = os.path.join(folder, "evaluate.py")
    with open(path, encoding="utf-8") as file:
        source = file.read()
    if source.count(original) != 1:
        return False
    with open(path, "w", encoding="utf-8") as file:
        file.write(source.replace(original, replacement))
    return True


def blocks(lines):
    """Return the failure and error blocks of unittest's output: (heading, lines)."""
    found = []
    for line in lines:
        if line.startswith(("FAIL: ", "ERROR: ")):
            found.append((line, []))
        elif found:
            found[-1][1].append(line)
    return found


def problems(output, check, function):
    """Return what is wrong with the suite's output for a defect; empty when all is well."""
    lines = output.splitlines()
    found = []
    if len(lines) > MAX_LINES:
        found.append("%d lines, more than %d" % (len(lines), MAX_LINES))
    printed = blocks(lines)
    if not printed:
        return found + ["nothing failed"]
    heading, block = printed[0]
    if heading.split()[1] != check:
        found.append("first block is %s, not %s" % (heading, check))
    errors = [heading for heading, _ in printed if heading.startswith("ERROR: ")]
    if function is None and errors:
        found.append("%d errors, the first: %s" % (len(errors), errors[0]))
    if function is not None:
        frames = re.findall(r'evaluate\.py", line \d+, in (\w+)$', "\n".join(block), re.M)
        if not heading.startswith("ERROR: ") or frames[-1:] != [function]:
            found.append("the first block does not raise in %s() of evaluate.py" % function)
    return found


def main(arguments):
    """Run the suite on every broken copy, two at a time; report each defect."""
    lab = arguments == ["--lab"]
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        runs = []
        for number, (name, (original, replacement, check, function)) in enumerate(
                DEFECTS.items()):
            folder = os.path.join(scratch, str(number))
            os.mkdir(folder)
            if not broken_copy(folder, original, replacement, lab):
                runs.append((name, None, check, function))
                continue
            process = subprocess.Popen([sys.executable, "-m", "unittest"], cwd=folder,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       universal_newlines=True)
            runs.append((name, process, check, function))
        for name, process, check, function in runs:
            if process is None:
                failed += 1
                print("%s: FAIL: its text is not in evaluate.py exactly once" % name)
                continue
            output = process.communicate()[0]
            found = problems(output, check, function)
            failed += bool(found)
            print("%s: %s (%d lines)" % (name, "; ".join(found) or "ok",
                                         len(output.splitlines())))
    print("%d passed, %d failed" % (len(DEFECTS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
