# counted, scored and explained. Below END, only its public functions are used.
# ============================================================================

# How to read this part. A question is judged in three steps:
#   1. validation: the shapes (the tables above), then the rules that tie a
#      case's fields together (_case_conflicts);
#   2. judging: one pass over the run (_judge_question) that finds the hits in the top k,
#      a verdict for each claim, and what was disclosed;
#   3. reporting: tally() counts the judgement, evaluate() divides the counts,
#      explain() shows the verdicts.
# A verdict is None for a supported claim, else the reason it is unsupported.

_NO_CITATION = "no citation"
_NO_LABEL = "no label"
_NOT_IN_CORPUS = "not in the corpus"
_NOT_LABELLED = "not a labelled source"
_OUTSIDE_TOP_K = "outside the top k"
_REJECTED = "judged unsupported"
_DISPUTED_ONLY = "only a disputed label supports it"


# --- 1. Validation ---------------------------------------------------------------

def _case_conflicts(fields):
    """Yield (field, message template, values...) for each rule the fields of a case break
    together, in the order they are checked; the shape of each field is already checked."""
    relevant = fields["relevant"]
    support = fields["support"] or {}
    optional = fields.get("optional", {})
    disputed = fields.get("disputed", {})

    # Labels lie within "relevant": relevant documents without any expected claim would
    # make a question nobody could answer completely.
    if relevant and fields["support"] == {}:
        yield ('case["support"]', 'expected claims for case["relevant"] %s, got %s',
               relevant, fields["support"])

    # An optional claim is one that is *not* expected.
    for claim_id in optional:
        if claim_id in support:
            yield ('case["optional"]', 'claim %s is also in case["support"]', claim_id)

    # A disputed label is one the reviewers did not agree on, so it cannot also be an
    # agreed label; and an expected claim's sources, disputed or not, are relevant.
    for claim_id, sources in disputed.items():
        field = "case[\"disputed\"]['%s']" % claim_id
        agreed = support.get(claim_id, ()) + optional.get(claim_id, ())
        for source in sources:
            if source in agreed:
                yield (field, 'source %s is also in case["support"] or case["optional"]',
                       source)
            if claim_id in support and source not in relevant:
                yield (field, 'source %s is not in case["relevant"]', source)

    # A rejected claim was judged unsupported by every document: it has no label at all.
    for claim_id in fields.get("rejected", ()):
        if claim_id in support or claim_id in optional or claim_id in disputed:
            yield ('case["rejected"]', 'claim %s has sources in case["support"], '
                   'case["optional"] or case["disputed"]', claim_id)

    # What the asker may not see cannot be the evidence for their answer.
    for doc_id in fields.get("restricted", ()):
        if doc_id in relevant:
            yield ('case["restricted"]', 'document %s is in case["relevant"]', doc_id)


def _valid_case(case, corpus):
    """Return the checked fields of a case, or raise at its first fault. With corpus None,
    documents are checked as IDs only (as lenient() does, having no corpus)."""
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    for field, template, *values in _case_conflicts(fields):
        raise _invalid(field, template, *values)
    return fields


def validate(corpus, case, run, k, *, corpus_checked=False, case_checked=False):
    """Check every input rule, in the order corpus, case, run, k, and return the parts the
    scores are made of: (relevant, support, retrieved, claims), the very objects given.

    With corpus_checked=True the corpus is trusted and only looked up: a corpus shared by
    many questions is checked once, by whoever shares it. case_checked=True trusts the
    case in the same way: the runs of many systems share it."""
    if not corpus_checked:
        _check_corpus(corpus)
    fields = case if case_checked else _valid_case(case, corpus)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return fields["relevant"], fields["support"], answer["retrieved"], answer["claims"]


# --- The two readings of the labels ----------------------------------------------

def _with_disputed(support, optional, disputed):
    """Return new (support, optional) dicts with each disputed source added after the
    agreed ones: to "support" for an expected claim, to "optional" for any other claim."""
    support, optional = dict(support), dict(optional)
    for claim_id, sources in disputed.items():
        target = support if claim_id in support else optional
        target[claim_id] = target.get(claim_id, ()) + sources
    return support, optional


def lenient(case):
    """Return a new case that also holds every disputed label: the lenient reading. A
    disputed source of an expected claim joins its "support", one of any other claim
    its "optional": a disputed label never changes which claims are expected."""
    fields = _valid_case(case, None)
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" not in fields:
        return reading
    support, optional = _with_disputed(fields["support"] or {}, fields.get("optional", {}),
                                       fields["disputed"])
    if fields["support"] is not None:  # a case nobody labelled stays unlabelled
        reading["support"] = support
    if optional:
        reading["optional"] = optional
    return reading


def _labels(case, loose=False):
    """Return {claim ID: the sources that may back it} for every claim judged supported
    (expected or optional; with loose, disputed too), or None when nothing in the case
    judges an answer: "support" is None and no judgement key is given."""
    if case["support"] is None and not any(key in case for key in _JUDGEMENTS):
        return None
    support, optional = case["support"] or {}, case.get("optional", {})
    if loose:
        support, optional = _with_disputed(support, optional, case.get("disputed", {}))
    return {**support, **optional}


# --- 2. Judging ------------------------------------------------------------------

def _first_broken_rule(claim_id, citations, labels, corpus, top_k):
    """Return None when a claim is supported, else the first rule it breaks.

    Strict citations: a claim needs at least one citation, and *every* citation must be
    in the corpus, be a labelled source of this claim, and be in the top k. Each rule is
    checked for all the citations before the next rule is tried."""
    if not citations:
        return _NO_CITATION
    sources = labels.get(claim_id)
    if sources is None:
        return _NO_LABEL
    if not all(doc_id in corpus for doc_id in citations):
        return _NOT_IN_CORPUS        # usually a typo in the run
    if not all(doc_id in sources for doc_id in citations):
        return _NOT_LABELLED         # a real document that does not back this claim
    if not all(doc_id in top_k for doc_id in citations):
        return _OUTSIDE_TOP_K        # a good source, but not one the system showed
    return None


def _judge_question(corpus, case, run, k, checked):
    """Validate, then judge one question. Return a dict of

    relevant, support, claims   as validate() returns them
    ranks       the ranks (from 1) of the relevant documents in the top k
    verdicts    [(claim ID, verdict)] in answer order in the strict reading, or None
                when no answer is made or nothing judges it
    disclosed   the restricted documents in the top k or cited, in "restricted" order
    """
    relevant, support, retrieved, claims = validate(corpus, case, run, k, **checked)
    top_k = retrieved[:k]  # fewer than k when fewer came back; the slots stay k
    wanted = set(relevant)
    ranks = [rank for rank, doc_id in enumerate(top_k, start=1) if doc_id in wanted]

    labels = _labels(case)
    verdicts = None
    if labels is not None and claims is not None:
        shown = set(top_k)  # the context the answer stage was given
        verdicts = [(claim_id, _first_broken_rule(claim_id, citations, labels, corpus, shown))
                    for claim_id, citations in claims]

    # The asker has seen the whole top k, and every document an answer cites.
    seen = set(top_k).union(*(citations for _, citations in claims or ()))
    disclosed = tuple(doc_id for doc_id in case.get("restricted", ()) if doc_id in seen)

    return {"relevant": relevant, "support": support, "claims": claims, "ranks": ranks,
            "verdicts": verdicts, "disclosed": disclosed}


# --- 3. Counting, scoring and explaining ----------------------------------------

def tally(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate (see validate()); return the counts behind every metric of one question.

    relevant    documents labelled relevant
    k           slots in the top k
    hits        relevant documents in the top k
    first_hit   rank of the first of them, or None
    generated   claims in the answer; None when the run makes no answer
    supported   generated claims that are supported; None when no answer is made or
                nothing judges it
    expected    claims labelled in "support"; None when the case lists none
    covered     expected claims among the supported ones (None as supported or expected is)
    disclosed   restricted documents in the top k or cited (a fact, not a score)
    """
    judged = _judge_question(corpus, case, run, k, {"corpus_checked": corpus_checked,
                                                     "case_checked": case_checked})
    support, claims, verdicts = judged["support"], judged["claims"], judged["verdicts"]
    supported = covered = None
    if verdicts is not None:
        good = [claim_id for claim_id, verdict in verdicts if verdict is None]
        supported = len(good)
        if support is not None:
            # An optional claim is supported, but it covers nothing.
            covered = sum(1 for claim_id in good if claim_id in support)
    return {
        "relevant": len(judged["relevant"]),
        "k": k,
        "hits": len(judged["ranks"]),
        "first_hit": judged["ranks"][0] if judged["ranks"] else None,
        "generated": None if claims is None else len(claims),
        "supported": supported,
        "expected": None if support is None else len(support),
        "covered": covered,
        "disclosed": len(judged["disclosed"]),
    }


def evaluate(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate one question's inputs and return its six metrics in order:
    precision, recall, rr, support, coverage, abstention_correct (None is n/a).

    Retrieval values and coverage apply only when some document is relevant; there
    precision keeps k slots, and rr is 0.0 when nothing relevant is in the top k.
    Support applies to an answer that is judged and has a claim. Abstention applies
    only to a question with nothing relevant whose expected claims are listed (an
    empty answer is the correct one)."""
    count = tally(corpus, case, run, k=k, corpus_checked=corpus_checked,
                  case_checked=case_checked)
    answerable = count["relevant"] > 0
    has_expected = count["covered"] is not None  # judged, and the expected claims listed
    precision = recall = rr = coverage = abstained = support = None
    if answerable:
        precision = count["hits"] / count["k"]
        recall = count["hits"] / count["relevant"]
        rr = 1 / count["first_hit"] if count["first_hit"] else 0.0
        if has_expected:
            coverage = count["covered"] / count["expected"]
    elif has_expected:
        abstained = count["generated"] == 0
    if count["supported"] is not None and count["generated"]:
        support = count["supported"] / count["generated"]
    return {"precision": precision, "recall": recall, "rr": rr, "support": support,
            "coverage": coverage, "abstention_correct": abstained}


def explain(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate like evaluate(); return why each claim is unsupported, what is uncovered,
    and what was disclosed.

    claims      a tuple of (claim ID, reason), in answer order: None for a supported claim,
                else the first rule it breaks (see _first_broken_rule()), told apart by what
                the reviewers recorded: a rejected claim reads "judged unsupported";
                one only a disputed label supports, "only a disputed label supports
                it"; one with no label, the reason of the lenient reading.
                None when no answer is made or nothing judges it.
    uncovered   a tuple of the expected claim IDs, in label order, that no supported
                claim covers; None when no answer is made or no claim is expected
    disclosed   a tuple of the restricted documents in the top k or cited, in
                case["restricted"]'s order
    """
    judged = _judge_question(corpus, case, run, k, {"corpus_checked": corpus_checked,
                                                     "case_checked": case_checked})
    strict, support = judged["verdicts"], judged["support"]
    if strict is None:
        return {"claims": None, "uncovered": None, "disclosed": judged["disclosed"]}

    supported = {claim_id for claim_id, verdict in strict if verdict is None}
    uncovered = None
    if support is not None:
        uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)

    # Judge the answer again in the lenient reading, to say what the reviews changed.
    loose_labels = _labels(case, loose=True)
    shown = set(run["retrieved"][:k])
    rejected = case.get("rejected", ())
    reasons = []
    for (claim_id, verdict), (_, citations) in zip(strict, run["claims"]):
        loose = _first_broken_rule(claim_id, citations, loose_labels, corpus, shown)
        if claim_id in rejected:
            verdict = _REJECTED           # whatever else it breaks
        elif verdict is not None and loose is None:
            verdict = _DISPUTED_ONLY
        elif verdict == _NO_LABEL:
            verdict = loose              # a disputed claim, or one nobody reviewed
        reasons.append((claim_id, verdict))
    return {"claims": tuple(reasons), "uncovered": uncovered, "disclosed": judged["disclosed"]}


# ============================================================================
