# (.ci/exercise.py puts these lines between START and END in evaluate.py.)
# The contract as another hand writes it, on the input checks above START:
# one pass over a run (_judgement) finds the hits, a verdict for each claim
# and what was disclosed; tally() counts it, explain() shows the verdicts.


def validate(corpus, case, run, k):
    """Check the corpus, the case, the run and k, in this order; return
    (relevant, support, retrieved, claims), the very objects given."""
    _check_corpus(corpus)
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    _check_case_rules(fields)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return fields["relevant"], fields["support"], answer["retrieved"], answer["claims"]


def lenient(case):
    """Return a new case holding every disputed label, with no "disputed"
    key: the lenient reading. Expected claims never change."""
    fields = _checked_fields(case, "case", _CASE_KEYS, None)
    _check_case_rules(fields)
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" not in fields:
        return reading
    support, optional = dict(fields["support"] or {}), dict(fields.get("optional", {}))
    for claim_id, sources in fields["disputed"].items():  # after the agreed sources
        target = support if claim_id in support else optional
        target[claim_id] = target.get(claim_id, ()) + sources
    if fields["support"] is not None:
        reading["support"] = support
    if optional or fields["support"] is None:
        reading["optional"] = optional
    return reading


def _sources_by_claim(case):
    """Return {claim ID: the sources that may back it} of every claim judged
    supported, or None when nothing judges one."""
    if case["support"] is None and not any(key in case for key in _JUDGEMENTS):
        return None
    return {**(case["support"] or {}), **case.get("optional", {})}


def _verdict_of(claim_id, citations, sources_by_claim, corpus, shown):
    """Return None for a supported claim, else the first rule it breaks."""
    sources = sources_by_claim.get(claim_id)
    for broken, reason in ((not citations, "no citation"), (sources is None, "no label"),
                           (not set(citations) <= set(corpus), "not in the corpus"),
                           (not set(citations) <= set(sources or ()), "not a labelled source"),
                           (not set(citations) <= shown, "outside the top k")):
        if broken:
            return reason
    return None


def _judgement(corpus, case, run, k):
    """Validate, then judge one question in one pass."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    top_k = retrieved[:k]
    ranks = None if relevant is None else [
        rank for rank, doc_id in enumerate(top_k, start=1) if doc_id in set(relevant)]
    labels, verdicts = _sources_by_claim(case), None
    if labels is not None and claims is not None:
        shown = set(top_k)
        verdicts = [(claim_id, _verdict_of(claim_id, citations, labels, corpus, shown))
                    for claim_id, citations in claims]
    seen = set(top_k).union(*(citations for _, citations in claims or ()))
    disclosed = tuple(doc_id for doc_id in case.get("restricted", ()) if doc_id in seen)
    return {"relevant": relevant, "support": support, "claims": claims, "ranks": ranks,
            "verdicts": verdicts, "disclosed": disclosed}


def tally(corpus, case, run, *, k=2):
    """Validate; return the nine counts behind the six values."""
    judged = _judgement(corpus, case, run, k)
    support, claims, verdicts, ranks = (judged["support"], judged["claims"],
                                        judged["verdicts"], judged["ranks"])
    good = None if verdicts is None else [claim for claim, verdict in verdicts if verdict is None]
    supported = None if good is None else len(good)
    covered = None if good is None or support is None else len(set(good) & set(support))
    return {"relevant": None if ranks is None else len(judged["relevant"]), "k": k,
            "hits": None if ranks is None else len(ranks), "first_hit": ranks[0] if ranks else None,
            "generated": None if claims is None else len(claims), "supported": supported,
            "expected": None if support is None else len(support), "covered": covered,
            "disclosed": len(judged["disclosed"])}


def scores(counts):
    """Return the six values of a tally, in order; None is n/a."""
    _check_counts(counts)
    values = dict.fromkeys("precision recall rr support coverage abstention_correct".split())
    if counts["relevant"]:
        values["precision"] = counts["hits"] / counts["k"]
        values["recall"] = counts["hits"] / counts["relevant"]
        values["rr"] = 1 / counts["first_hit"] if counts["first_hit"] else 0.0
    if counts["supported"] is not None and counts["generated"]:
        values["support"] = counts["supported"] / counts["generated"]
    if counts["covered"] is not None:
        if counts["expected"]:
            values["coverage"] = counts["covered"] / counts["expected"]
        else:
            values["abstention_correct"] = counts["generated"] == 0
    return values


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs and return its six values in order."""
    return scores(tally(corpus, case, run, k=k))


def explain(corpus, case, run, *, k=2):
    """Validate; return the reason of each claim, the uncovered expected
    claims and the disclosed documents."""
    judged = _judgement(corpus, case, run, k)
    strict, support = judged["verdicts"], judged["support"]
    if strict is None:
        return {"claims": None, "uncovered": None, "disclosed": judged["disclosed"]}
    supported = {claim_id for claim_id, verdict in strict if verdict is None}
    uncovered = None
    if support is not None:
        uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)
    loose_labels = _sources_by_claim(lenient(case) if "disputed" in case else case)
    shown = set(run["retrieved"][:k])
    reasons = []
    for (claim_id, verdict), (_, citations) in zip(strict, run["claims"]):
        loose = _verdict_of(claim_id, citations, loose_labels, corpus, shown)
        if claim_id in case.get("rejected", ()):
            verdict = "judged unsupported"
        elif verdict is not None and loose is None:
            verdict = "only a disputed label supports it"
        elif verdict == "no label":
            verdict = loose
        reasons.append((claim_id, verdict))
    return {"claims": tuple(reasons), "uncovered": uncovered,
            "disclosed": judged["disclosed"]}
