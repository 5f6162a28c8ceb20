# counted, scored and explained. Below END, only its public functions serve.

# The contract of one question as another hand writes it: the same public
# functions, helpers of other names and another plan. A question is judged in
# three steps:
#   1. checking: the shapes (the tables above), then the rules that tie a
#      case's fields together (_conflicts);
#   2. judging: one pass over the run (_judgement) that finds the hits in the
#      top k, a verdict for each claim, and what was disclosed;
#   3. reporting: tally() counts the judgement, scores() divides the counts,
#      explain() shows the verdicts.

_NO_CITATION = "no citation"
_NO_LABEL = "no label"
_NOT_IN_CORPUS = "not in the corpus"
_NOT_LABELLED = "not a labelled source"
_OUTSIDE_TOP_K = "outside the top k"
_REJECTED = "judged unsupported"
_DISPUTED_ONLY = "only a disputed label supports it"


def _conflicts(fields):
    """Yield (field, message template, value) for each rule the fields of a
    case break together, in the order they are checked."""
    relevant, listed = fields["relevant"], fields["support"]
    support = listed or {}
    optional = fields.get("optional", {})
    disputed = fields.get("disputed", {})
    if relevant and listed == {}:
        yield ('case["support"]', 'expected claims for case["relevant"], got %s',
               listed)
    for key, labels in (("support", support), ("disputed", disputed)):
        for claim_id, sources in labels.items():
            field = "case[\"%s\"]['%s']" % (key, claim_id)
            agreed = support.get(claim_id, ()) + optional.get(claim_id, ())
            for source in sources:
                if key == "disputed" and source in agreed:
                    yield (field, 'source %s is also in case["support"] or '
                           'case["optional"]', source)
                if claim_id in support and relevant is not None \
                        and source not in relevant:
                    yield (field, 'source %s is not in case["relevant"]', source)
    for claim_id in optional:
        if claim_id in support:
            yield ('case["optional"]', 'claim %s is also expected', claim_id)
    for claim_id in fields.get("rejected", ()):
        if claim_id in support or claim_id in optional or claim_id in disputed:
            yield ('case["rejected"]', 'claim %s has a label', claim_id)
    for doc_id in fields.get("restricted", ()):
        if relevant and doc_id in relevant:
            yield ('case["restricted"]', 'document %s is relevant', doc_id)


def _case_fields(case, corpus):
    """Return the checked fields of a case, or raise at its first fault."""
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    for field, template, value in _conflicts(fields):
        raise _invalid(field, template, value)
    return fields


def validate(corpus, case, run, k):
    """Check the corpus, the case, the run and k, in this order; return
    (relevant, support, retrieved, claims), the very objects given."""
    _check_corpus(corpus)
    fields = _case_fields(case, corpus)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return fields["relevant"], fields["support"], answer["retrieved"], answer["claims"]


def _merged(support, optional, disputed):
    """Return new (support, optional) dicts with each disputed source added
    after the agreed ones: to support for an expected claim, else to optional."""
    support, optional = dict(support), dict(optional)
    for claim_id, sources in disputed.items():
        target = support if claim_id in support else optional
        target[claim_id] = target.get(claim_id, ()) + sources
    return support, optional


def lenient(case):
    """Return a new case holding every disputed label, with no "disputed"
    key: the lenient reading. Expected claims never change."""
    fields = _case_fields(case, None)
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" not in fields:
        return reading
    support, optional = _merged(fields["support"] or {}, fields.get("optional", {}),
                                fields["disputed"])
    if fields["support"] is not None:
        reading["support"] = support
    if optional or fields["support"] is None:
        reading["optional"] = optional
    return reading


def _sources_by_claim(case, loose=False):
    """Return {claim ID: the sources that may back it} of every claim judged
    supported (with loose, disputed too), or None when nothing judges one."""
    if case["support"] is None and not any(key in case for key in _JUDGEMENTS):
        return None
    support, optional = case["support"] or {}, case.get("optional", {})
    if loose:
        support, optional = _merged(support, optional, case.get("disputed", {}))
    return {**support, **optional}


def _verdict_of(claim_id, citations, sources_by_claim, corpus, shown):
    """Return None for a supported claim, else the first rule it breaks."""
    if not citations:
        return _NO_CITATION
    sources = sources_by_claim.get(claim_id)
    if sources is None:
        return _NO_LABEL
    if not all(doc_id in corpus for doc_id in citations):
        return _NOT_IN_CORPUS
    if not all(doc_id in sources for doc_id in citations):
        return _NOT_LABELLED
    if not all(doc_id in shown for doc_id in citations):
        return _OUTSIDE_TOP_K
    return None


def _judgement(corpus, case, run, k):
    """Validate, then judge one question in one pass."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    top_k = retrieved[:k]
    ranks = None
    if relevant is not None:
        wanted = set(relevant)
        ranks = [rank for rank, doc_id in enumerate(top_k, start=1) if doc_id in wanted]
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
    supported = covered = None
    if verdicts is not None:
        good = [claim_id for claim_id, verdict in verdicts if verdict is None]
        supported = len(good)
        if support is not None:
            covered = sum(1 for claim_id in good if claim_id in support)
    return {
        "relevant": None if ranks is None else len(judged["relevant"]),
        "k": k,
        "hits": None if ranks is None else len(ranks),
        "first_hit": ranks[0] if ranks else None,
        "generated": None if claims is None else len(claims),
        "supported": supported,
        "expected": None if support is None else len(support),
        "covered": covered,
        "disclosed": len(judged["disclosed"]),
    }


def scores(counts):
    """Return the six values of a tally, in order; None is n/a."""
    _check_counts(counts)
    values = dict.fromkeys(("precision", "recall", "rr", "support", "coverage",
                            "abstention_correct"))
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
            verdict = _REJECTED
        elif verdict is not None and loose is None:
            verdict = _DISPUTED_ONLY
        elif verdict == _NO_LABEL:
            verdict = loose
        reasons.append((claim_id, verdict))
    return {"claims": tuple(reasons), "uncovered": uncovered,
            "disclosed": judged["disclosed"]}


# ============================================================================
