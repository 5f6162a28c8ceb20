"""A catalogue of wrong scorers a student could write, and one right one.

Each entry is a function of the exercise (demo.EXERCISE) as a student might write it, in a
style of their own, one rule wrong: a def, or -/+ lines that change the right rewrite. Put
into evaluate.py of the course lab (--project: of the project), it must make python -m
unittest fail in at most 300 lines, first at the worked check of its rule ("!": raising in
that function), each line in the lab within 79 columns. The right rewrite of every function
must pass. Each README "Break the scorer" row must be an entry.
    python .ci/defects.py [--project]: a line per check, then "N passed, N failed".
"""
import ast
import os
import re
import sys
import tempfile

from exercise import ROOT, blocks, demo, lab_or_project, reported, run_suite, wide, written

MAX_LINES = 300
CATALOGUE = r'''
### right | -
def _retrieval_counts(relevant, retrieved, k):
    if relevant is None:
        return dict(relevant=None, k=k, hits=None, first_hit=None)
    hits, first = 0, None
    for rank in range(1, min(k, len(retrieved)) + 1):
        if retrieved[rank - 1] in relevant:
            hits += 1
            first = first or rank
    return dict(relevant=len(relevant), k=k, hits=hits, first_hit=first)
def _labels(case):
    if case["support"] is None and not {"optional", "disputed",
                                        "rejected"} & set(case):
        return None
    merged = {}
    for part in (case["support"] or {}, case.get("optional", {})):
        merged.update((claim, set(docs)) for claim, docs in part.items())
    return merged
def _claim_counts(support, claims, reasons):
    def size(items):
        return None if items is None else len(items)
    good = None if reasons is None else {c for c, r in reasons if r is None}
    both = None if good is None or support is None else good & set(support)
    return {"generated": size(claims), "supported": size(good),
            "expected": size(support), "covered": size(both)}
def _values(counts):
    out = dict.fromkeys(["precision", "recall", "rr", "support", "coverage",
                         "abstention_correct"])
    if counts["relevant"]:
        out["precision"] = counts["hits"] / counts["k"]
        out["recall"] = counts["hits"] / counts["relevant"]
        out["rr"] = 1 / counts["first_hit"] if counts["first_hit"] else 0.0
    if counts["supported"] is not None and counts["generated"]:
        out["support"] = counts["supported"] / counts["generated"]
    if counts["covered"] is not None:
        if counts["expected"]:
            out["coverage"] = counts["covered"] / counts["expected"]
        else:
            out["abstention_correct"] = counts["generated"] == 0
    return out
def _unsupported_because(claim_id, citations, labels, visible, corpus):
    if len(citations) == 0:
        return "no citation"
    if claim_id not in labels:
        return "no label"
    for reason, place in [("not in the corpus", corpus), (
            "not a labelled source", labels[claim_id]),
            ("outside the top k", visible)]:
        if not all(doc in place for doc in citations):
            return reason
    return None
def _uncovered(support, supported):
    missing = []
    for claim in support:
        if claim not in supported:
            missing.append(claim)
    return tuple(missing)
def _disclosed(restricted, retrieved, claims, k):
    seen = set(retrieved[:k])
    for _, cited in claims:
        seen |= set(cited)
    return tuple(d for d in sorted(restricted, key=restricted.get)
                 if d in seen)
def _lenient_reading(case):
    new = dict(case)
    disputed = new.pop("disputed", None)
    if disputed is None:
        return new
    support = dict(case["support"] or {})
    optional = dict(case.get("optional", {}))
    for claim, extra in disputed.items():
        target = support if claim in support else optional
        target[claim] = target.get(claim, ()) + extra
    if case["support"] is not None:
        new["support"] = support
    if optional or case["support"] is None:
        new["optional"] = optional
    return new
def _reviewed(reasons, loose, rejected):
    out = []
    for index, (claim, strict) in enumerate(reasons):
        lenient = loose[index][1]
        if claim in rejected:
            strict = "judged unsupported"
        elif strict is not None and lenient is None:
            strict = "only a disputed label supports it"
        elif strict == "no label":
            strict = lenient
        out.append((claim, strict))
    return out
### rr not cut at k | the_first_hit_is_the_best_ranked_relevant_one_in_the_top_k
def _retrieval_counts(relevant, retrieved, k):
    if relevant is None:
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    first = next((rank for rank, doc in enumerate(retrieved, 1)
                  if doc in relevant), None)
    hits = sum(doc in relevant for doc in retrieved[:k])
    return {"relevant": len(relevant), "k": k, "hits": hits,
            "first_hit": first}
### k is what came back | a_short_list_keeps_k_slots
def _retrieval_counts(relevant, retrieved, k):
    if relevant is None:
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    top = retrieved[:k]
    ranks = [i + 1 for i, doc in enumerate(top) if doc in relevant]
    return {"relevant": len(relevant), "k": len(top), "hits": len(ranks),
            "first_hit": min(ranks, default=None)}
### ranks from 0 | ranks_count_from_one
-    for rank in range(1, min(k, len(retrieved)) + 1):
-        if retrieved[rank - 1] in relevant:
+    for rank in range(min(k, len(retrieved))):
+        if retrieved[rank] in relevant:
### the last hit's rank | the_first_hit_is_the_best_ranked_relevant_one_in_the_top_k
-            first = first or rank
+            first = rank
### every document retrieved a hit | the_top_k_holds_k_documents_no_more_no_fewer
def _retrieval_counts(relevant, retrieved, k):
    if relevant is None:
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    ranks = [r for r, doc in enumerate(retrieved, 1) if doc in relevant]
    return {"relevant": len(relevant), "k": k, "hits": len(ranks),
            "first_hit": ranks[0] if ranks and ranks[0] <= k else None}
### the relevant documents found | relevant_documents_count_whether_retrieved_or_not
def _retrieval_counts(relevant, retrieved, k):
    if relevant is None:
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    found = [doc for doc in retrieved if doc in relevant]
    ranks = [retrieved.index(doc) + 1 for doc in found]
    ranks = [rank for rank in ranks if rank <= k]
    return {"relevant": len(found), "k": k, "hits": len(ranks),
            "first_hit": ranks[0] if ranks else None}
### no relevance labels count as none | relevance_nobody_labelled_counts_no_hit
def _retrieval_counts(relevant, retrieved, k):
    relevant = relevant or set()
    ranks = [r for r, doc in enumerate(retrieved[:k], 1) if doc in relevant]
    return {"relevant": len(relevant), "k": k, "hits": len(ranks),
            "first_hit": ranks[0] if ranks else None}
### judged only with expected claims | an_answer_is_judged_when_some_label_judges_it
def _labels(case):
    if case["support"] is None:
        return None
    labels = {claim: set(docs) for claim, docs in case["support"].items()}
    for claim, docs in case.get("optional", {}).items():
        labels[claim] = set(docs)
    return labels
### optional claims left out | an_optional_claim_is_supported_but_covers_nothing
def _labels(case):
    keys = ("optional", "disputed", "rejected")
    if case["support"] is None and all(key not in case for key in keys):
        return None
    return {claim: set(docs) for claim, docs in
            (case["support"] or {}).items()}
### disputed labels agreed | a_claim_with_no_agreed_label_is_unsupported
def _labels(case):
    keys = ("optional", "disputed", "rejected")
    if case["support"] is None and all(key not in case for key in keys):
        return None
    labels = {}
    for key in ("support", "optional", "disputed"):
        for claim, docs in (case.get(key) or {}).items():
            labels.setdefault(claim, set()).update(docs)
    return labels
### no answer counted as an empty one | no_answer_or_no_labels_count_and_explain_no_claim
def _claim_counts(support, claims, reasons):
    good = [c for c, r in reasons or () if r is None]
    covered = [c for c in good if support and c in support]
    return {"generated": len(claims or ()),
            "supported": None if reasons is None else len(good),
            "expected": None if support is None else len(support),
            "covered": None if reasons is None or support is None
            else len(covered)}
### each claim made counted supported | a_claim_with_no_agreed_label_is_unsupported
def _claim_counts(support, claims, reasons):
    def count(items):
        return None if items is None else len(items)
    covered = None
    if reasons is not None and support is not None:
        covered = [claim for claim, reason in reasons if claim in support
                   and reason is None]
    return {"generated": count(claims), "supported": count(reasons),
            "expected": count(support), "covered": count(covered)}
### every supported claim covers | an_optional_claim_is_supported_but_covers_nothing
def _claim_counts(support, claims, reasons):
    good = None
    if reasons is not None:
        good = sum(1 for _, reason in reasons if reason is None)
    return {"generated": None if claims is None else len(claims),
            "supported": good,
            "expected": None if support is None else len(support),
            "covered": None if support is None else good}
### an expected claim made covers | the_supported_expected_claims_are_the_covered_ones
def _claim_counts(support, claims, reasons):
    good = None if reasons is None else [c for c, r in reasons if r is None]
    covered = None
    if good is not None and support is not None:
        covered = len([claim for claim, _ in reasons if claim in support])
    return {"generated": None if claims is None else len(claims),
            "supported": None if good is None else len(good),
            "expected": None if support is None else len(support),
            "covered": covered}
### precision over the relevant documents | precision_divides_the_hits_by_k
-        out["precision"] = counts["hits"] / counts["k"]
+        out["precision"] = counts["hits"] / max(counts["relevant"], 1)
### recall over k | recall_divides_by_the_relevant_documents
-        out["recall"] = counts["hits"] / counts["relevant"]
+        out["recall"] = counts["hits"] / counts["k"]
### rr from the hits | reciprocal_rank_is_one_over_the_first_hit_rank
-        out["rr"] = 1 / counts["first_hit"] if counts["first_hit"] else 0.0
+        out["rr"] = counts["hits"] / (counts["first_hit"] or 1) * bool(
+            counts["first_hit"])
### rr of no hit, 1 / None | no_hit_gives_a_reciprocal_rank_of_zero_not_na!
-        out["rr"] = 1 / counts["first_hit"] if counts["first_hit"] else 0.0
+        out["rr"] = 1 / counts["first_hit"]
### support over the expected claims | support_divides_by_the_generated_claims
-        out["support"] = counts["supported"] / counts["generated"]
+        out["support"] = counts["supported"] / (counts["expected"] or 1)
### coverage over the claims made | coverage_divides_the_covered_by_the_expected_claims
-            out["coverage"] = counts["covered"] / counts["expected"]
+            out["coverage"] = counts["covered"] / max(counts["generated"], 1)
### n/a ranks without relevance labels only | a_value_that_does_not_apply_is_none_never_zero
-    if counts["relevant"]:
+    if counts["relevant"] is not None:
### support of no claim made, 0 | a_value_that_does_not_apply_is_none_never_zero
-    if counts["supported"] is not None and counts["generated"]:
-        out["support"] = counts["supported"] / counts["generated"]
+    if counts["supported"] is not None:
+        out["support"] = counts["supported"] / max(counts["generated"], 1)
### coverage of no claim expected, 0 | a_value_that_does_not_apply_is_none_never_zero
-            out["abstention_correct"] = counts["generated"] == 0
+            out["abstention_correct"] = counts["generated"] == 0
+            out["coverage"] = 0.0
### abstention of any empty answer | abstaining_is_correct_only_on_an_unanswerable_question
-    if counts["covered"] is not None:
-        if counts["expected"]:
-            out["coverage"] = counts["covered"] / counts["expected"]
-        else:
-            out["abstention_correct"] = counts["generated"] == 0
+    if counts["covered"] is not None and counts["expected"]:
+        out["coverage"] = counts["covered"] / counts["expected"]
+    made, wanted = counts["generated"], counts["expected"]
+    if made is not None and wanted is not None:
+        out["abstention_correct"] = made == 0 or (None if wanted else False)
### abstention as 1 or 0 | every_ratio_is_a_float_and_abstention_a_bool
-            out["abstention_correct"] = counts["generated"] == 0
+            out["abstention_correct"] = int(counts["generated"] == 0)
### the values in another order | the_six_values_come_in_the_order_of_the_contract
-    out = dict.fromkeys(["precision", "recall", "rr", "support", "coverage",
-                         "abstention_correct"])
+    out = dict.fromkeys(["precision", "recall", "rr", "coverage", "support",
+                         "abstention_correct"])
### one good citation is enough | one_bad_citation_makes_a_claim_unsupported
-        if not all(doc in place for doc in citations):
+        if not any(doc in place for doc in citations):
### a typo before a label | a_claim_gets_the_first_rule_it_breaks
def _unsupported_because(claim_id, citations, labels, visible, corpus):
    if not citations:
        return "no citation"
    if any(doc not in corpus for doc in citations):
        return "not in the corpus"
    if claim_id not in labels:
        return "no label"
    if not set(citations) <= labels[claim_id]:
        return "not a labelled source"
    if not set(citations) <= visible:
        return "outside the top k"
    return None
### each citation's rules in turn | a_claim_gets_the_first_rule_it_breaks
def _unsupported_because(claim_id, citations, labels, visible, corpus):
    if not citations:
        return "no citation"
    if claim_id not in labels:
        return "no label"
    for doc in citations:
        if doc not in corpus:
            return "not in the corpus"
        if doc not in labels[claim_id]:
            return "not a labelled source"
        if doc not in visible:
            return "outside the top k"
    return None
### no citation, no fault | a_claim_gets_the_first_rule_it_breaks
-    if len(citations) == 0:
-        return "no citation"
### the top k not looked at | a_source_outside_the_top_k_supports_nothing
-            "not a labelled source", labels[claim_id]),
-            ("outside the top k", visible)]:
+            "not a labelled source", labels[claim_id])]:
### any claim's source will do | a_claim_gets_the_first_rule_it_breaks
-    for reason, place in [("not in the corpus", corpus), (
-            "not a labelled source", labels[claim_id]),
+    for reason, place in [("not in the corpus", corpus), (
+            "not a labelled source", set().union(*labels.values())),
### a claim nobody labelled, a crash | a_claim_with_no_agreed_label_is_unsupported!
-    if claim_id not in labels:
+    if not labels[claim_id]:
### the covered claims listed | uncovered_claims_come_in_label_order
-        if claim not in supported:
+        if claim in supported:
### uncovered claims sorted | uncovered_claims_come_in_label_order
-    return tuple(missing)
+    return tuple(sorted(missing))
### uncovered claims as a list | explain_gives_tuples_not_lists
-    return tuple(missing)
+    return missing
### only the top k disclosed | a_restricted_document_in_the_top_k_or_cited_is_disclosed
-        seen |= set(cited)
+        pass
### disclosures in the order seen | disclosures_come_in_the_order_of_restricted
def _disclosed(restricted, retrieved, claims, k):
    seen = list(retrieved[:k])
    for _, cited in claims:
        seen += [doc for doc in cited if doc not in seen]
    return tuple(doc for doc in seen if doc in restricted)
### an empty optional added to a case nobody judged | lenient_agrees_each_disputed_label_in_a_new_case
-    disputed = new.pop("disputed", None)
-    if disputed is None:
-        return new
+    disputed = new.pop("disputed", {})
### disputed sources first | lenient_agrees_each_disputed_label_in_a_new_case
-        target[claim] = target.get(claim, ()) + extra
+        target[claim] = extra + target.get(claim, ())
### the disputed key kept | lenient_agrees_each_disputed_label_in_a_new_case
-    disputed = new.pop("disputed", None)
+    disputed = new.get("disputed")
### every disputed claim expected | lenient_agrees_each_disputed_label_in_a_new_case
-        target = support if claim in support else optional
+        target = support if case["support"] is not None else optional
### the case's own labels changed | lenient_agrees_each_disputed_label_in_a_new_case
-    support = dict(case["support"] or {})
-    optional = dict(case.get("optional", {}))
+    support = case["support"] if case["support"] is not None else {}
+    optional = case.get("optional", {})
### a judged case left unjudged | lenient_agrees_each_disputed_label_in_a_new_case
-    if optional or case["support"] is None:
+    if optional:
### no citation before rejected | a_rejected_claim_is_told_from_one_nobody_reviewed
-        if claim in rejected:
+        if claim in rejected and strict != "no citation":
### no label before disputed only | a_claim_only_a_disputed_label_supports_says_so
def _reviewed(reasons, loose, rejected):
    told = []
    for (claim, strict), (_, relaxed) in zip(reasons, loose):
        if claim in rejected:
            told.append((claim, "judged unsupported"))
        elif strict == "no label":
            told.append((claim, relaxed or "only a disputed label supports it"))
        else:
            told.append((claim, strict))
    return told
### no agreed label, no label | a_claim_with_no_agreed_label_takes_the_lenient_reason
-        elif strict == "no label":
-            strict = lenient
+        elif strict == "no label" and lenient is not None:
+            strict = "no label"
### the rejected claims left out | a_rejected_claim_is_told_from_one_nobody_reviewed
-            strict = "judged unsupported"
+            continue
'''


def entries():
    """Return [(label, check, {function: its text})]: first the right
    rewrite's functions, then each entry's: a def, or -/+ lines that change
    the right rewrite (the function holding the - lines, once)."""
    parts = [part.split("\n", 1) for part in CATALOGUE.split("\n### ")[1:]]
    right = parts[0][1]
    found = [("right", None, functions(right))]
    for head, text in parts[1:]:
        label, check = head.split(" | ")
        if text.startswith("-"):
            old, new = ("\n".join(line[1:] for line in text.splitlines() if line[0] == sign)
                        for sign in "-+")
            changed = right.replace(old, new) if right.count(old) == 1 else ""
            text = {name: code for name, code in functions(changed).items()
                    if old in functions(right)[name]}
        found.append((label, check, functions(text) if type(text) is str else text))
    return found


def functions(source):
    """Return {name: text} of each function source defines."""
    lines = source.split("\n")
    return {node.name: "\n".join(lines[node.lineno - 1:node.end_lineno])
            for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def with_functions(source, replaced):
    """Return source with each function of replaced ({name: text}) put in."""
    lines = source.split("\n")
    nodes = [node for node in ast.parse(source).body
             if isinstance(node, ast.FunctionDef) and node.name in replaced]
    for node in sorted(nodes, key=lambda node: -node.lineno):
        start = node.lineno - 1 - len(node.decorator_list)
        lines[start:node.end_lineno] = replaced[node.name].split("\n")
    return "\n".join(lines)


def problems(output, check, function, lab):
    """Return what is wrong with the suite's output for an entry, or None."""
    printed, found = blocks(output), []
    if len(output.splitlines()) > MAX_LINES:
        found.append("%d lines, more than %d" % (len(output.splitlines()), MAX_LINES))
    if check is None:
        return "; ".join(found) or (None if printed == [] and "\nOK" in output
                                    else output[-1500:])
    if not printed:
        return "nothing failed"
    kind, name, block = printed[0]
    if name != "test_" + check.rstrip("!"):
        found.append("the first block is %s" % name)
    found += ["a line over 79 columns"] * (lab and wide(output))
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
    """Yield (label, problem or None) for each entry, then the README's rows."""
    files, catalogue = lab_or_project(lab), entries()
    with tempfile.TemporaryDirectory() as scratch:
        runs = []
        for number, (label, check, replaced) in enumerate(catalogue):
            folder = written(os.path.join(scratch, str(number)), dict(files, **{
                "evaluate.py": with_functions(files["evaluate.py"], replaced)}))
            runs.append((label, check, replaced, run_suite(folder)))
        for label, check, replaced, process in runs:
            output, names = process.communicate()[0], sorted(replaced)
            count = len(demo.EXERCISE) if check is None else 1
            yield "%s (%s): %s" % (label, names[0] if count == 1 else "all", check or "passes"), (
                "its functions are %s" % names if len(names) != count or not set(
                    names) <= set(demo.EXERCISE) else problems(output, check, names[0], lab))
    named = {(next(iter(replaced)), check.rstrip("!").replace("_", " "))
             for label, check, replaced in catalogue[1:]}
    yield "at least 40 wrong scorers", None if len(catalogue) > 40 else len(catalogue) - 1
    for function, words in readme_rows() if lab else ():
        words = " ".join(words.split())
        yield "README: %s breaks '%s'" % (function, words), None if (
            function, words) in named else "no such entry"


if __name__ == "__main__":
    sys.exit(reported(every_check(sys.argv[1:] != ["--project"])))
