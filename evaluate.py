"""Score recorded RAG outputs, one question at a time, against frozen labels.

evaluate(corpus, case, run, *, k=2) returns six values for one question:

    precision    relevant IDs in the top k / k (fixed slots, even if fewer came back)
    recall       relevant IDs in the top k / relevant IDs
    rr           1 / rank of the first relevant ID in the top k; 0.0 if none
    support      supported claims / generated claims
    coverage     supported expected claims / expected claims
    abstention_correct   True when the answer has no claims, False when it has some

A claim is supported only when it has a citation and *every* citation is a
labelled source of that claim within the top k (strict citations). A value
that does not apply is None, shown as n/a and never counted as 0: retrieval
and coverage with no relevant document, support with no claim, every value
of an answer that is not made or not labelled, abstention_correct on an
answerable question. ndcg() gives nDCG@k from graded relevance.

Every input is validated first. Any fault raises EvaluationError, a
ValueError whose message names the field and shows the value. Inputs are
never modified. Nothing here reads text, extracts claims or calls a model.

The file reads from top to bottom: the shape of the inputs, the scoring and
validation of one question, down to "END OF THE CONTRACT OF ONE QUESTION",
then many questions, comparisons, the policy, the paired test, the report
and data files. The public names are in __all__; the others are helpers.
"""

__all__ = ["EvaluationError", "evaluate", "tally", "explain", "ndcg", "validate", "lenient",
           "tally_system", "explain_system", "paired_test", "report",
           "load_data"]

_MAX_IDS = 100            # IDs in one tuple, claims in one run, documents in one question's corpus
_MAX_DOCUMENTS = 10 ** 6  # documents in a corpus that many questions share
_MAX_K = 100
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_ID_CHARACTERS = _LETTERS | frozenset("0123456789-")
_ID_RULE = "IDs are 1 to 32 characters: a-z first, then a-z, 0-9 or '-'"
_METRICS = ("precision", "recall", "rr", "support", "coverage", "abstention_correct")

# The keys of a case and of a run: whether each must be there, whether it may
# be None, and the shape of its value. Other keys, such as a case's
# "question", are ignored, but one a letter or two from a known key is a typo.
#   ids        a tuple of at most 100 distinct IDs, maybe empty
#   documents  ids, each the ID of a corpus document
#   labels     a dict from at most 100 claim IDs to sources: non-empty ids of
#              documents in the case's "relevant"
#   sources    the same, with sources of any corpus document
#   claims     a tuple of at most 100 (claim ID, citations) pairs, distinct claim IDs;
#              citations are ids, maybe outside the corpus (scored as unsupported)
#   grades     a dict from each relevant document to an int from 1 to 100
#   name       1 to 64 printable ASCII characters, no spaces
_CASE_KEYS = {
    "relevant":   (True, False, "documents"),  # the documents that answer the question
    "support":    (True, True, "labels"),      # expected claim -> its sources; None: unlabelled
    "optional":   (False, False, "sources"),   # claim judged supported, not expected
    "disputed":   (False, False, "sources"),   # sources one reviewer accepted, another not
    "rejected":   (False, False, "ids"),       # claims found unsupported by every document
    "restricted": (False, False, "documents"), # documents whoever asks may not see
    "grades":     (False, False, "grades"),    # graded relevance, for nDCG
    "group":      (False, False, "name"),      # a conversation or topic it belongs to
}
_RUN_KEYS = {
    "retrieved": (True, False, "documents"),   # in rank order
    "claims":    (True, True, "claims"),       # in answer order; None when it makes no answer
}


# --- Scoring one question ---------------------------------------------------
# In the order of the contract: retrieval, the six values, claims,
# disclosures, then the whole question.

def _hit_ranks(relevant, retrieved, k):
    """Return a list of the ranks of the relevant documents in the top k, counting from 1."""
    permitted = set(relevant)
    # Only the top k count: a relevant document ranked k + 1 is no hit.
    return [rank for rank, doc_id in enumerate(retrieved[:k], start=1) if doc_id in permitted]


def _reciprocal_rank(first_hit):
    """Return 1 / rank of the first hit, or 0.0 when the top k holds none."""
    if first_hit is None:
        return 0.0  # nothing relevant in view: the lowest score, not n/a
    return 1 / first_hit


def _scores(counts):
    """Return the six metrics of one question from its tally; None is n/a."""
    # n/a is never 0: a metric that does not apply to this question is None.
    answerable = counts["relevant"] > 0
    judged = counts["covered"] is not None  # an answer was made, and labels judge it
    return {
        # Fixed slots: the denominator is k even when fewer documents came back.
        "precision": counts["hits"] / counts["k"] if answerable else None,
        "recall": counts["hits"] / counts["relevant"] if answerable else None,
        "rr": _reciprocal_rank(counts["first_hit"]) if answerable else None,
        "support": counts["supported"] / counts["generated"]
        if judged and counts["generated"] else None,
        "coverage": counts["covered"] / counts["expected"] if judged and answerable else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": not counts["generated"] if judged and not answerable else None,
    }


def _unsupported_because(claim_id, citations, labels, visible, corpus):
    """Return the first rule a claim breaks, or None when it is supported.

    The rules come in this order, each checked against every citation before
    the next: "no citation", "no label" (labels has none for the claim), "not
    in the corpus", "not a labelled source", "outside the top k" (not in
    visible). Any labelled source of the claim may be cited.
    """
    # Strict citations: each rule must hold for every citation, so one good
    # citation does not excuse a bad one.
    if not citations:
        return "no citation"
    if claim_id not in labels:
        return "no label"  # nobody labelled this claim, so nothing can support it
    for cited in citations:
        if cited not in corpus:
            return "not in the corpus"  # often a typo in the run
    for cited in citations:
        # Any labelled source of this claim will do, but every citation must be one.
        if cited not in labels[claim_id]:
            return "not a labelled source"  # a real document, but it does not back this claim
    for cited in citations:
        if cited not in visible:
            return "outside the top k"  # a labelled source the system did not show
    return None


def _claim_reasons(corpus, labels, retrieved, claims, k):
    """Return a list of (claim ID, reason) in answer order; reason None is supported."""
    visible = set(retrieved[:k])  # the context the answer stage was given
    return [(claim_id, _unsupported_because(claim_id, citations, labels, visible, corpus))
            for claim_id, citations in claims]


def _disclosed(restricted, retrieved, claims, k):
    """Return the restricted documents in the top k or cited, in the order of restricted."""
    if not restricted:
        return ()  # the common case: nothing is off limits
    # The top k is the context handed to the answer stage (score with the k your
    # pipeline passes on); a citation quotes a document: the asker has seen both.
    exposed = set(retrieved[:k])
    for claim_id, citations in claims:
        exposed.update(citations)
    return tuple(doc_id for doc_id in restricted if doc_id in exposed)


def _counted(corpus, case, run, k):
    """Return the tally of one question whose inputs are valid."""
    relevant, support = case["relevant"], case["support"]
    retrieved, claims = run["retrieved"], run["claims"]
    ranks = _hit_ranks(relevant, retrieved, k)
    judged = support is not None and claims is not None  # an answer, and labels to judge it
    reasons = []
    if judged:
        # An optional claim (judged supported, not expected) counts, but covers nothing.
        labels = {**support, **case["optional"]} if "optional" in case else support
        reasons = _claim_reasons(corpus, labels, retrieved, claims, k)
    supported = [claim_id for claim_id, reason in reasons if reason is None]
    return {
        "relevant": len(relevant),
        "k": k,
        "hits": len(ranks),
        "first_hit": ranks[0] if ranks else None,
        "generated": None if claims is None else len(claims),
        "supported": len(supported) if judged else None,
        "expected": None if support is None else len(support),
        "covered": len([claim_id for claim_id in supported if claim_id in support])
        if judged else None,
        "disclosed": len(_disclosed(case.get("restricted", ()), retrieved, claims or (), k)),
    }


def tally(corpus, case, run, *, k=2):
    """Return the counts behind every metric of one question, after validation.

    relevant    documents labelled relevant
    k           slots in the top k
    hits        relevant documents in the top k
    first_hit   rank of the first of them, or None
    generated   claims in the answer; None when the run makes no answer
    supported   generated claims that are supported (None if generated or expected is)
    expected    claims labelled in "support"; None when the case labels no answer
    covered     expected claims among the supported ones (None likewise)
    disclosed   restricted documents in the top k or cited (a fact, not a score)
    """
    validate(corpus, case, run, k)
    return _counted(corpus, case, run, k)


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs and return its six metrics in order."""
    return _scores(tally(corpus, case, run, k=k))


def explain(corpus, case, run, *, k=2):
    """Validate like evaluate(); return why each claim is unsupported, what is uncovered,
    and what was disclosed.

    claims      (claim ID, reason) in answer order: reason None for a supported
                claim, else the first rule it breaks (_unsupported_because()),
                told apart by what reviewers recorded (_reviewed())
    uncovered   expected claim IDs, in label order, that no supported claim covers
    disclosed   restricted documents in the top k or cited, in case["restricted"]'s order

    claims and uncovered are None when no answer is made or none is labelled.
    """
    validate(corpus, case, run, k)
    return _explained(corpus, case, run, k)


def _explained(corpus, case, run, k):
    """Return explain()'s result for one question whose inputs are valid."""
    support, retrieved, claims = case["support"], run["retrieved"], run["claims"]
    disclosed = _disclosed(case.get("restricted", ()), retrieved, claims or (), k)
    if support is None or claims is None:
        return {"claims": None, "uncovered": None, "disclosed": disclosed}
    labels = {**support, **case.get("optional", {})}
    reasons = _claim_reasons(corpus, labels, retrieved, claims, k)
    supported = {claim_id for claim_id, reason in reasons if reason is None}
    uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)
    return {"claims": _reviewed(reasons, corpus, case, run, k), "uncovered": uncovered,
            "disclosed": disclosed}


# --- Validating one question ------------------------------------------------

class EvaluationError(ValueError):
    """An input breaks the contract; the message names the field and shows the value."""


def _invalid(field, template, *values):
    """Return an EvaluationError 'field: template', each value shown by _shown()."""
    return EvaluationError(field + ": " + template % tuple(map(_shown, values)))


def validate(corpus, case, run, k):
    """Check every input rule; return (relevant, support, retrieved, claims)."""
    _check_corpus(corpus, _MAX_IDS)
    fields = _checked_case(case, corpus)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return fields["relevant"], fields["support"], answer["retrieved"], answer["claims"]


def _is_id(value):
    """True for a str of 1 to 32 characters: a-z first, then a-z, 0-9 or '-'."""
    # Exact types only: a str subclass is not a str here.
    return (type(value) is str and 0 < len(value) <= 32 and value[0] in _LETTERS
            and _ID_CHARACTERS.issuperset(value))


def _check_ids(value, field, known=(), documents=False):
    """Check the shape "ids" (with documents, "documents": each one in `known`). IDs in
    `known`, the corpus's keys or the relevant documents, were checked before, once."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    if len(value) > _MAX_IDS:
        raise _invalid(field, "expected at most %s IDs, got %s: %s", _MAX_IDS, len(value), value)
    for item in value:
        if not ((type(item) is str and item in known) or _is_id(item)):
            raise _invalid(field, "invalid ID %s (" + _ID_RULE + ")", item)
        if documents and item not in known:
            raise _invalid(field, "unknown document %s", item)
    if len(set(value)) < len(value):
        raise _invalid(field, "repeated ID %s", next(
            item for index, item in enumerate(value) if item in value[:index]))


def _checked_fields(mapping, name, keys, corpus):
    """Return {key: value} of the keys a dict has, each checked against the table `keys`
    in its order. A corpus of None checks documents as IDs alone."""
    if type(mapping) is not dict:
        raise _invalid(name, "expected a dict, got %s", mapping)
    _check_keys(mapping, name)
    fields = {}
    for key, (needed, none_allowed, shape) in keys.items():
        if key not in mapping:
            if needed:  # a typo in a key is named first, before the key it misses
                _check_near_misses(mapping, name, keys)
                raise _invalid('%s["%s"]' % (name, key), "missing from %s", mapping)
            continue
        value = fields[key] = mapping[key]
        if value is None and none_allowed:
            continue
        field = '%s["%s"]' % (name, key)
        if shape == "documents":
            _check_ids(value, field, corpus or (), documents=corpus is not None)
        elif shape == "claims":
            _check_claims(value, field, corpus)
        elif shape in ("labels", "sources"):
            _check_labels(value, field, corpus, set(fields["relevant"]) if shape == "labels"
                          else None)
        elif shape == "ids":
            _check_ids(value, field)
        elif shape == "grades":
            _check_grades(value, field, fields["relevant"])
        else:  # a name
            _check_name(value, field)
    if len(mapping) > len(fields):  # keys the table does not know: free keys, or typos
        _check_near_misses(mapping, name, keys)
    return fields


def _check_labels(labels, field, corpus, relevant):
    """Check the shape "labels" (sources in the set `relevant`) or, with relevant None,
    "sources" (corpus documents; without a corpus, any IDs)."""
    if type(labels) is not dict:
        raise _invalid(field, "expected a dict, got %s", labels)
    _check_ids(tuple(labels), field)
    for claim_id, sources in labels.items():
        where = "%s['%s']" % (field, claim_id)  # a valid ID by now: short
        if relevant is None:
            _check_ids(sources, where, corpus or (), documents=corpus is not None)
        else:
            _check_ids(sources, where, relevant)
        if not sources:
            raise _invalid(where, "expected at least one source, got %s", sources)
        for source in sources:
            if relevant is not None and source not in relevant:
                raise _invalid(where, 'source %s is not in case["relevant"]', source)


def _check_claims(claims, field, corpus):
    """Check the shape "claims": (claim ID, citations) pairs, claim IDs distinct."""
    if type(claims) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", claims)
    if len(claims) > _MAX_IDS:
        raise _invalid(field, "expected at most %s claims, got %s: %s", _MAX_IDS, len(claims),
                       claims)
    seen = set()
    for index, pair in enumerate(claims):
        where = "%s[%d]" % (field, index)
        if type(pair) is not tuple or len(pair) != 2:
            raise _invalid(where, "expected a (claim ID, citations) pair, got %s", pair)
        if not _is_id(pair[0]):
            raise _invalid(where, "invalid claim ID %s (" + _ID_RULE + ")", pair[0])
        if pair[0] in seen:
            raise _invalid(where, "repeated claim ID %s", pair[0])
        seen.add(pair[0])
        _check_ids(pair[1], where + "[1]", corpus or ())


def _checked_case(case, corpus):
    """Return the fields of a case once its shape and the rules tying its fields are checked."""
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    relevant, support = fields["relevant"], fields["support"]
    if support is None:  # no answer is labelled: nothing may label one
        for key in ("optional", "disputed", "rejected"):
            if key in fields:
                raise _invalid('case["%s"]' % key, 'labels claims, but case["support"] is None: '
                               "got %s", fields[key])
        return fields
    # Sources lie within relevant, so expected claims imply relevant documents.
    # The converse: relevant documents need an expected claim. Both empty is
    # an unanswerable question.
    if relevant and not support:
        raise _invalid('case["support"]', 'expected claims for case["relevant"] %s, got %s',
                       relevant, support)
    if "optional" in fields or "disputed" in fields or "rejected" in fields:
        _check_disagreement(fields, support, fields.get("optional", {}),
                            fields.get("disputed", {}))
    for doc_id in fields.get("restricted", ()):
        if doc_id in relevant:  # what the asker may not see cannot be their evidence
            raise _invalid('case["restricted"]', 'document %s is in case["relevant"]', doc_id)
    return fields


def _check_disagreement(fields, support, optional, disputed):
    """Check that a claim is expected or optional, not both; that a disputed source is not
    agreed, and is relevant if its claim is expected; that a rejected claim has no source."""
    for claim_id in optional:
        if claim_id in support:
            raise _invalid('case["optional"]', 'claim %s is also in case["support"]', claim_id)
    for claim_id, sources in disputed.items():
        agreed = support.get(claim_id) or optional.get(claim_id, ())
        where = 'case["disputed"][\'%s\']' % claim_id
        for source in sources:
            if source in agreed:  # a label is agreed or disputed, not both
                raise _invalid(where, 'source %s is also in case["support"] or case["optional"]',
                               source)
            if claim_id in support and source not in fields["relevant"]:
                raise _invalid(where, 'source %s is not in case["relevant"]', source)
    for claim_id in fields.get("rejected", ()):
        # Found unsupported by every document, a rejected claim can have no source.
        if claim_id in support or claim_id in optional or claim_id in disputed:
            raise _invalid('case["rejected"]', 'claim %s has sources in case["support"], '
                           'case["optional"] or case["disputed"]', claim_id)


def _check_corpus(corpus, limit):
    """Check that corpus maps 1 to `limit` IDs to texts that are not blank."""
    if type(corpus) is not dict:
        raise _invalid("corpus", "expected a dict, got %s", corpus)
    if not corpus:
        raise _invalid("corpus", "expected at least one document, got %s", corpus)
    if len(corpus) > limit:
        raise _invalid("corpus", "expected at most %s IDs, got %s: %s", limit, len(corpus),
                       tuple(corpus))
    for doc_id, text in corpus.items():
        if not _is_id(doc_id):
            raise _invalid("corpus", "invalid ID %s (" + _ID_RULE + ")", doc_id)
        # Text is checked for shape only: nothing here reads what it says.
        if type(text) is not str or not text.strip():
            raise _invalid("corpus[%s]" % _shown(doc_id),
                           "expected text with a non-whitespace character, got %s", text)


def _check_k(k):
    """Check that the cutoff k is an int from 1 to 100."""
    # True is an int to Python, but it is not a cutoff.
    if type(k) is not int or not 1 <= k <= _MAX_K:
        raise _invalid("k", "expected an int from 1 to %s, got %s", _MAX_K, k)


# ============================================================================
# END OF THE CONTRACT OF ONE QUESTION. Every rule of the six values is above this
# line; below, many questions, both readings of labels, grades, comparisons.
# ============================================================================

# --- Many questions ---------------------------------------------------------

_NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"


def _check_name(value, field):
    """Check a case, system or group name: it heads rows, so it prints the same on any
    terminal and leaves a row's words unambiguous."""
    if not (type(value) is str and 0 < len(value) <= 64 and value.isascii()
            and value.isprintable() and " " not in value):
        raise _invalid(field, "invalid name %s (" + _NAME_RULE + ")", value)


def _checked_systems(corpus, cases, runs, systems, k):
    """Validate every case, and its run by each system; return {system: [(name, case, run)]}.
    The corpus, of up to a million documents, and each case are checked once; a fault
    names the corpus, the case, or the case and the system."""
    _check_corpus(corpus, _MAX_DOCUMENTS)
    _check_k(k)
    for part, value in (("cases", cases), ("runs", runs)):
        if type(value) is not dict:
            raise _invalid(part, "expected a dict, got %s", value)
        _check_keys(value, part)
    for name in runs:
        if name not in cases:
            raise _invalid("runs", "no case named %s", name)
    questions = {system: [] for system in systems}
    for name, case in cases.items():
        _check_name(name, "cases")
        where = "case %s: " % _shown(name)
        try:
            _checked_case(case, corpus)
            where = "case %s, system %s: " % (_shown(name), _shown(systems[0]))
            if name not in runs:  # the runs of a case are checked once, not once per system
                raise EvaluationError("missing from runs")
            if type(runs[name]) is not dict:
                raise _invalid("runs[%s]" % _shown(name), "expected a dict, got %s", runs[name])
            _check_keys(runs[name], "runs[%s]" % _shown(name))
            for system in systems:
                where = "case %s, system %s: " % (_shown(name), _shown(system))
                if system not in runs[name]:
                    raise EvaluationError("missing from runs[%s]" % _shown(name))
                _checked_fields(runs[name][system], "run", _RUN_KEYS, corpus)
                questions[system].append((name, case, runs[name][system]))
        except EvaluationError as error:
            raise EvaluationError(where + str(error)) from None
    return questions


def tally_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: tally} for one system, in the order of cases: runs maps each case
    name to its runs by system name, and the corpus serves every case."""
    _check_name(system, "system")
    return {name: _counted(corpus, case, run, k) for name, case, run
            in _checked_systems(corpus, cases, runs, (system,), k)[system]}


def explain_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: explain() result} for one system, in the order of cases."""
    _check_name(system, "system")
    return {name: _explained(corpus, case, run, k) for name, case, run
            in _checked_systems(corpus, cases, runs, (system,), k)[system]}


# --- Two readings of disputed labels ----------------------------------------
# The six values read the agreed labels alone: the strict reading. lenient()
# makes the lenient reading, scored by the same rules.

def lenient(case):
    """Return a new case that also holds every disputed label: the lenient reading. A
    disputed source of an expected claim joins its "support", one of any other claim
    its "optional": a disputed label never changes which claims are expected."""
    fields = _checked_case(case, None)
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" in fields:
        support, optional = dict(fields["support"]), dict(fields.get("optional", {}))
        for claim_id, sources in fields["disputed"].items():
            labels = support if claim_id in support else optional
            labels[claim_id] = labels.get(claim_id, ()) + sources
        reading["support"] = support
        if optional:
            reading["optional"] = optional
    return reading


def _reviewed(reasons, corpus, case, run, k):
    """Return the strict reasons as a tuple, each told apart by what reviewers recorded: a
    claim reviewers rejected reads "judged unsupported", whatever else it breaks; one
    that only the lenient reading supports, "only a disputed label supports it"; one
    with no label, the lenient reading's reason."""
    if "disputed" not in case and "rejected" not in case:
        return tuple(reasons)  # no record of a review: the strict reasons say it all
    loose = lenient(case)
    loose = _claim_reasons(corpus, {**loose["support"], **loose.get("optional", {})},
                           run["retrieved"], run["claims"], k)
    told = []
    for (claim_id, reason), (_, loose_reason) in zip(reasons, loose):
        if claim_id in case.get("rejected", ()):
            reason = "judged unsupported"
        elif reason is not None and loose_reason is None:
            reason = "only a disputed label supports it"
        elif reason == "no label":  # reviewers disputed the claim, or never saw it
            reason = loose_reason
        told.append((claim_id, reason))
    return tuple(told)


# --- Graded relevance -------------------------------------------------------

def ndcg(corpus, case, run, *, k=2):
    """Validate like evaluate(); return nDCG@k of one question (see _ndcg())."""
    validate(corpus, case, run, k)
    return _ndcg(case, run["retrieved"], k)


def _ndcg(case, retrieved, k):
    """Return nDCG@k as trec_eval's ndcg_cut gives it: the gain of the top k over that of
    the best ranking, where a document's gain is its grade (1 without grades),
    divided by log2(rank + 1). 0.0 when nothing relevant is in the top k; None when no
    document is relevant."""
    from math import log2
    if not case["relevant"]:
        return None
    gains = case.get("grades") or dict.fromkeys(case["relevant"], 1)
    gained = sum(gains.get(doc_id, 0) / log2(rank + 1)
                 for rank, doc_id in enumerate(retrieved[:k], start=1))
    best = sum(gain / log2(rank + 1)
               for rank, gain in enumerate(sorted(gains.values(), reverse=True)[:k], start=1))
    return gained / best


def _check_grades(grades, field, relevant):
    """Check the shape "grades": each relevant document, and only those, to an int from
    1 to 100."""
    if type(grades) is dict:
        _check_keys(grades, field)
    if type(grades) is not dict or set(grades) != set(relevant):
        raise _invalid(field, 'expected a grade for each document of case["relevant"] %s, '
                       "got %s", relevant, grades)
    for doc_id, grade in grades.items():
        if type(grade) is not int or not 1 <= grade <= 100:
            raise _invalid("%s['%s']" % (field, doc_id), "expected an int from 1 to 100, got %s",
                           grade)


# --- Comparing systems ------------------------------------------------------

_VERDICTS = ("improved", "regressed", "mixed", "unchanged")
_COMPARED = _METRICS[:-1]  # the ratios compared between systems; abstention is counted apart
_SLICES = ("answerable", "unanswerable")


def _slices(tallies):
    """Return the question names of the answerable and the unanswerable slice."""
    # A question is answerable when it has labelled relevant documents.
    return {"answerable": [name for name, counts in tallies.items() if counts["relevant"]],
            "unanswerable": [name for name, counts in tallies.items() if not counts["relevant"]]}


def _change(before, after):
    """Return 'better', 'worse' or 'equal'; None (not judged) if either side is n/a."""
    if before is None or after is None:
        return None  # n/a is not comparable: shown, never judged
    # Higher is better; for abstention, yes (True) is above no (False).
    if after > before:
        return "better"
    return "worse" if after < before else "equal"


def _verdict(before, after):
    """Return one question's verdict from its scores before and after (A, then B)."""
    changes = [_change(before[metric], after[metric]) for metric in _METRICS]
    better, worse = "better" in changes, "worse" in changes
    if better and worse:
        return "mixed"
    if better:
        return "improved"
    return "regressed" if worse else "unchanged"


def _macro_mean(values):
    """Return {mean, averaged, total} of a list of values: each question weighs the same,
    and n/a is skipped and counted, never averaged in as 0."""
    from math import fsum  # rounded once, so the same on every CPython
    present = [value for value in values if value is not None]
    return {"mean": fsum(present) / len(present) if present else None,
            "averaged": len(present), "total": len(values)}


def _cell(value):
    """Return a value as a report shows it: two decimals, None as n/a, yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def _p_text(p, exact=True):
    """Return an exact p as a short fraction (1/2), else, and any sampled p, with two
    significant digits (0.091, 3.1e-05)."""
    if exact and p.denominator <= 1000:
        return str(p)
    return "%.2g" % float(p) if p > 1e-300 else "below 1e-300"


def _plural(count, noun):
    """Return '1 claim', '2 claims', '0 claims'."""
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


# --- Deciding ---------------------------------------------------------------
# A policy is written with the labels, before any run is seen, and a system
# is accepted by it, not by whichever average looks best afterwards. Each
# rule is one entry of _RULES: the kind of value it takes (see _check_rule())
# and a function that judges it, from the rule's name, the policy, the
# candidate's and the baseline's tallies (baseline None when there is none)
# and the declared paired test. It returns [(held, (rule, question or slice,
# detail))], or the reason it could judge nothing. To add a rule, write that
# function and add its entry.

_PLANS = ("strict", "lenient", "both")  # policy["unresolved"]: the readings a decision takes
_NO_ANSWER = "no answer judged against labels"  # a run with no answer, or a case with no labels


def _critical_findings(rule, policy, candidate, baseline, test):
    """Per critical question: no judged value fell below the baseline's by more than
    policy["tolerance"] (0 without it), compared as the fractions they stand for."""
    if baseline is None:
        return "no baseline to compare with"
    findings, tolerance = [], policy.get("tolerance", 0)
    for name in policy[rule]:
        before, after = _scores(baseline[name]), _scores(candidate[name])
        worse, held = [], True
        for metric in _METRICS:
            if _change(before[metric], after[metric]) == "worse":
                fall = _exact(float(before[metric])) - _exact(float(after[metric]))
                held = held and fall <= _exact(tolerance)
                worse.append("%s %s -> %s" % (metric, _cell(before[metric]), _cell(after[metric])))
                if tolerance:  # how far it fell, against how far it may
                    worse[-1] += (", within %g" % tolerance if fall <= _exact(tolerance)
                                  else ", down %.2f, more than %g" % (fall, tolerance))
        detail = _verdict(before, after)
        if worse:  # a 'regressed' or a 'mixed' verdict
            detail += ": " + ", ".join(worse)
        findings.append((held, (rule, name, detail)))
    return findings or "lists no question"


def _coverage_findings(rule, policy, candidate, baseline, test):
    """Per critical question with a judged answer: its coverage reaches the minimum."""
    findings = []
    for name in policy["critical"]:
        counts = candidate[name]
        if counts["covered"] is not None:
            # Shown as the fraction it is: 2/3 falls short of 0.67, though both round to 0.67.
            detail = "coverage %d/%d, minimum %g" % (counts["covered"], counts["expected"],
                                                    policy[rule])
            findings.append((_scores(counts)["coverage"] >= policy[rule], (rule, name, detail)))
    return findings or ("lists no question" if not policy["critical"] else _NO_ANSWER)


def _budget_findings(rule, policy, candidate, baseline, test):
    """Per slice the rule names: the unsupported claims of its judged answers stay within
    a count (unsupported_budget) or a share of their claims (unsupported_rate)."""
    findings, parts = [], _slices(candidate)
    for part in _SLICES:
        judged = [candidate[name] for name in parts[part]
                  if candidate[name]["supported"] is not None]
        if part in policy[rule] and judged:  # a slice the rule names, with answers to judge
            allowed = policy[rule][part]
            generated = sum(counts["generated"] for counts in judged)
            unsupported = generated - sum(counts["supported"] for counts in judged)
            if rule == "unsupported_budget":
                held = unsupported <= allowed
                detail = "%s, budget %d" % (_plural(unsupported, "unsupported claim"), allowed)
            else:  # compared exactly: unsupported / generated <= rate
                held = unsupported <= _exact(allowed) * generated
                detail = "%d of %s unsupported, rate at most %g" % (
                    unsupported, _plural(generated, "claim"), allowed)
            findings.append((held, (rule, part, detail)))
    return findings or _NO_ANSWER


def _abstention_findings(rule, policy, candidate, baseline, test):
    """Per question that must be abstained on, whose run makes an answer: no claims."""
    findings = []
    for name in policy[rule]:
        claims = candidate[name]["generated"]
        if claims is not None:
            detail = "answered with " + _plural(claims, "claim") if claims else "abstained"
            findings.append((claims == 0, (rule, name, detail)))
    return findings or ("lists no question" if not policy[rule] else _NO_ANSWER)


def _significance_findings(rule, policy, candidate, baseline, test):
    """On the answerable slice: the declared metric rose, with a two-sided p below alpha."""
    if baseline is None:
        return "no baseline to compare with"
    alpha = policy[rule]["alpha"]
    mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
    # p is two-sided and the mean must rise too: a false acceptance is at most alpha / 2.
    detail = "%s mean %s (%d of %d), p = %s (%s), alpha %s, two-sided: a one-sided test at %g" % (
        policy[rule]["metric"], mean, test["questions"], test["questions"] + test["left_out"],
        _p_text(test["p"], test["method"] == "exact"), test["method"], alpha, alpha / 2)
    held = test["mean"] is not None and test["mean"] > 0 and test["p"] < alpha
    return [(held, (rule, "answerable", detail))]


_RULES = {  # rule: (the kind of its value, its findings), in the order findings are listed
    "critical":           ("answerable questions", _critical_findings),
    "min_coverage":       ("a number from 0 to 1", _coverage_findings),
    "unsupported_budget": ("a count per slice", _budget_findings),
    "unsupported_rate":   ("a number per slice", _budget_findings),
    "must_abstain":       ("unanswerable questions", _abstention_findings),
    "significance":       ("a metric and an alpha", _significance_findings),
}
_SETTINGS = {"tolerance": "a number from 0 to 1", "unresolved": "a plan"}  # judge nothing


def _check_policy_rules(policy, answerable, graded=True):
    """Check a policy and each rule it has; answerable maps each question name to True
    when the question is answerable, and graded says whether some case has grades."""
    rules = str(tuple(_RULES))  # named in full in messages, never cut
    if type(policy) is not dict:
        raise _invalid("policy", "expected a dict, got %s", policy)
    _check_keys(policy, "policy")
    for key in policy:
        if key not in _RULES and key not in _SETTINGS:
            _check_typo(key, tuple(_RULES) + tuple(_SETTINGS), "policy")
            raise _invalid("policy", "unknown rule %s; the rules are " + rules
                           + ", the settings " + str(tuple(_SETTINGS)), key)
    if not any(rule in policy for rule in _RULES):
        raise _invalid("policy", "expected at least one of the rules " + rules + ", got %s",
                       policy)
    for key, value in policy.items():
        if key in ("min_coverage", "tolerance") and "critical" not in policy:
            raise _invalid('policy["%s"]' % key, 'applies to the questions of policy['
                           '"critical"], and the policy has none: got %s', policy)
        kind = _RULES[key][0] if key in _RULES else _SETTINGS[key]
        _check_rule(kind, value, 'policy["%s"]' % key, answerable)
    if not graded and policy.get("significance", {}).get("metric") == "ndcg":
        raise _invalid('policy["significance"]["metric"]', "expected a metric the data "
                       "measures, got %s: no case has grades", "ndcg")


def _check_rule(kind, value, field, answerable):
    """Check the value a policy gives a rule or a setting, by its kind."""
    if kind.endswith("questions"):  # a rule of no question holds for no question
        if type(value) is not tuple:
            raise _invalid(field, "expected a tuple of question names, got %s", value)
        seen = set()
        for name in value:
            if type(name) is not str or name not in answerable:
                raise _invalid(field, "no question named %s", name)
            if name in seen:
                raise _invalid(field, "repeated question %s", name)
            seen.add(name)
            if answerable[name] != (kind == "answerable questions"):
                raise _invalid(field, "%s is unanswerable; list it in policy[\"must_abstain\"]"
                               if answerable[name] is False else "%s is answerable; only an "
                               "unanswerable question must be abstained on", name)
    elif kind.endswith("per slice"):
        if type(value) is dict:
            _check_keys(value, field)
        if type(value) is not dict or not value or not set(value) <= set(_SLICES):
            raise _invalid(field, "expected a dict with one or both of the keys %s, got %s",
                           _SLICES, value)
        for part, allowed in value.items():
            if kind == "a number per slice":
                _check_number(allowed, "%s['%s']" % (field, part), 0, 1)
            elif type(allowed) is not int or not 0 <= allowed <= 10 ** 9:
                raise _invalid("%s['%s']" % (field, part), "expected an int from 0 to "
                               "1000000000, got %s", allowed)
    elif kind == "a metric and an alpha":
        if type(value) is dict:
            _check_keys(value, field)
        if type(value) is not dict or set(value) != {"metric", "alpha"}:
            raise _invalid(field, 'expected a dict with the keys "metric" and "alpha", got %s',
                           value)
        if type(value["metric"]) is not str or value["metric"] not in _COMPARED + ("ndcg",):
            raise _invalid(field + '["metric"]', "expected one of %s, got %s",
                           _COMPARED + ("ndcg",), value["metric"])
        _check_number(value["alpha"], field + '["alpha"]', 0, 0.5, above_low=True)
    elif kind == "a plan" and (type(value) is not str or value not in _PLANS):
        raise _invalid(field, "expected one of %s, got %s", _PLANS, value)
    elif kind == "a number from 0 to 1":
        _check_number(value, field, 0, 1)


def _check_number(value, field, low, high, above_low=False):
    """Check that value is an int or a float from low (or above it) to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in (int, float) and (low < value if above_low else low <= value)
    if not (within and value <= high):
        raise _invalid(field, "expected a number " + ("above" if above_low else "from")
                       + " %s to %s, got %s", low, high, value)


def _judged(policy, candidate, baseline, test=None):
    """Return {accepted, broken, held, unchecked, significance}: a candidate's tallies judged
    by a checked policy, beside the baseline's (or None), with the declared paired test.
    accepted is None when nothing could be judged."""
    # Whatever the policy says, a question on which the candidate disclosed a
    # restricted document is a broken finding: no accuracy and no rule can
    # excuse showing a document to someone who may not see it.
    findings = [(False, ("disclosure", name, _plural(counts["disclosed"], "restricted document")
                         + " in the top k or cited"))
                for name, counts in candidate.items() if counts["disclosed"]]
    unchecked = []
    for rule, (kind, found) in _RULES.items():
        made = found(rule, policy, candidate, baseline, test) if rule in policy else []
        if type(made) is str:
            unchecked.append((rule, made))
        else:
            findings += made
    broken = [finding for held, finding in findings if not held]
    # Nothing judged, nothing accepted: a policy that checked no rule decides nothing.
    return {"accepted": None if not findings else not broken, "broken": broken,
            "held": [finding for held, finding in findings if held], "unchecked": unchecked,
            "significance": test}


def _decision(plan, strict, loose):
    """Return whether a candidate is accepted under a plan, by _judged() under each reading;
    loose is None when no label is disputed, and then the strict reading decides."""
    taken = [strict] if loose is None else {"strict": [strict], "lenient": [loose],
                                            "both": [strict, loose]}[plan]
    if any(judged["accepted"] is None for judged in taken):
        return None  # nothing could be judged: nothing to accept
    return all(judged["accepted"] for judged in taken)


# --- The paired test --------------------------------------------------------
# paired_test() says how much a few questions can show at all. Values are
# compared as the exact fractions they stand for.

_LARGEST_FLOAT = 1.7976931348623157e308
_MAX_RUNS = 100                     # repeated runs of one question
_MAX_DENOMINATOR = 10 ** 6          # 0.3 is read as 3/10, a third as 1/3 ...
_CLOSE_ULPS = 64                    # ... and so is 1 - 2/3, a few units in the last place away
_MAX_LISTED = 36                    # moved questions whose 2**m signs are listed
_MAX_UNIT_BITS = 2200               # whole units finer than this are not counted in
_MAX_COUNTING_STEPS = 22 * 10 ** 6  # about a second of exact counting on CPython 3.8
_SAMPLES = 12000                    # sign flips drawn when neither fits: standard error
                                    # at p = 0.05 is (0.05 * 0.95 / 12000) ** 0.5 < 0.002
_SEED = 20261202                    # the same draws on every run and every CPython


def paired_test(before, after, *, groups=None):
    """Compare two systems question by question with a paired sign-flip test.

    before and after map the same question names to a value, None (n/a), or a tuple of
    up to 100 values of repeated runs, averaged within the question, the unit. groups,
    if given, names each question's group (the turns of a conversation): the group is
    then the unit, its difference the mean of its questions'. A question with n/a on
    either side is left out and counted. Values are read as the fractions they stand for.

        questions, left_out, groups   questions compared and left out; units compared
        mean                          mean of the units' differences (after - before)
        wins, ties, losses            units where after is above, equal, below before
        p                             two-sided p: the share of the 2**m sign assignments
                                      of the m non-zero differences whose sum is at least
                                      as far from 0 as the observed one
        min_p                         2**(1 - m), the lowest p m moved units can give
        method, samples               "exact", or "sampled" with the samples drawn
        standard_error                of a sampled p, sqrt(p (1 - p) / samples); 0.0

    p is found the first of three ways that fits (mean is None with no unit; p and
    min_p are Fractions, 1 when no difference is non-zero):

        listed    exact     at most 36 units moved, whatever their values
        counted   exact     the differences share a small unit and counting the sums
                            takes at most 22 million steps, a step weighing one more
                            per thousand moved units
        sampled   sampled   12,000 assignments from a fixed seed, drawn by size when
                            ten units or more share a size: p = (1 + c) / 12001, c of
                            them as extreme as the observed one, on every run
    """
    for field, value in (("before", before), ("after", after), ("groups", groups)):
        if field == "groups" and value is None:
            continue  # each question is a group of its own
        if type(value) is not dict:
            raise _invalid(field, "expected a dict by question name, got %s", value)
        _check_keys(value, field)
        if value.keys() != before.keys():
            raise _invalid(field, "expected the questions of before %s, got %s", tuple(before),
                           tuple(value))
    for name, group in (groups or {}).items():
        _check_name(group, "groups[%s]" % _shown(name))
    read = {}  # the fraction of each number seen so far: values repeat
    values = [{name: _question_value(value, side, name, read) for name, value in by_name.items()}
              for side, by_name in (("before", before), ("after", after))]
    return _paired(values[0], values[1], groups)


def _question_value(value, side, name, read):
    """Return one question's value as a fraction, or None when it is n/a: the mean of its
    runs, n/a runs skipped. A fault names side[name]."""
    runs = value if type(value) is tuple else (value,)
    if not runs or len(runs) > _MAX_RUNS:
        raise _invalid("%s[%s]" % (side, _shown(name)), "expected 1 to %s runs, got %s: %s",
                       _MAX_RUNS, len(runs), value)
    present = []
    for run in runs:
        if run is None:
            continue  # an n/a run is skipped, never averaged in as 0
        # An int or a float that a float can hold: NaN fails every comparison,
        # and an int such as 10**400 is beyond the largest float.
        if type(run) not in (int, float) or not -_LARGEST_FLOAT <= run <= _LARGEST_FLOAT:
            raise _invalid("%s[%s]" % (side, _shown(name)),
                           "expected a number, None or a tuple of them, got %s", value)
        if run not in read:
            read[run] = _exact(run)
        present.append(read[run])
    if len(present) == 1:
        return present[0]  # one run: its own value
    return sum(present) / len(present) if present else None


def _exact(number):
    """Return the fraction a number stands for: 0.5 is 1/2, 0.3 is 3/10, 1 - 2/3 is 1/3: a
    float within 64 units in the last place of a fraction whose denominator is at most a
    million is read as the nearest one; any other, as it is."""
    # Imported here, not at the top: loading fractions takes longer than
    # printing the table, and only the paired test needs it.
    from fractions import Fraction
    from math import frexp
    value = Fraction(number)  # a float's value, exactly
    if value.denominator <= _MAX_DENOMINATOR:
        return value  # 0.5 or 3.0: small already
    near = value.limit_denominator(_MAX_DENOMINATOR)
    last_place = Fraction(2) ** max(frexp(number)[1] - 53, -1074)
    return near if abs(value - near) <= _CLOSE_ULPS * last_place else value


def _paired(before, after, groups=None):
    """Return paired_test() of two dicts of exact values (fractions or None) by question,
    with groups by question name, or None."""
    from fractions import Fraction
    from math import fsum
    by_unit = {}  # the differences of each group; without groups, each question is one
    for name in before:
        if before[name] is not None and after[name] is not None:
            unit = name if groups is None else groups[name]
            by_unit.setdefault(unit, []).append(after[name] - before[name])
    differences = [sum(moved) / len(moved) for moved in by_unit.values()]
    nonzero = [difference for difference in differences if difference != 0]
    m = len(nonzero)
    p, method, units = _sign_flip_p(nonzero)
    if not differences:
        mean = None
    elif units is None:  # a unit too fine to sum in: the floats' mean, a few units off
        try:
            mean = fsum(float(difference) for difference in nonzero) / len(differences)
        except OverflowError:  # beyond the largest float: an infinity
            mean = float("inf") if sum(nonzero) > 0 else float("-inf")
    else:  # exact, rounded once; beyond the largest float, an infinity
        exact_mean = Fraction(sum(units[0]), units[1]) / len(differences)
        mean = float(exact_mean) if abs(exact_mean) <= _LARGEST_FLOAT else (
            float("inf") if exact_mean > 0 else float("-inf"))
    compared, sampled = sum(len(moved) for moved in by_unit.values()), method == "sampled"
    return {
        "questions": compared,
        "left_out": len(before) - compared,  # n/a on either side: no pair, never a 0
        "groups": len(differences),
        "mean": mean,
        "wins": len([difference for difference in nonzero if difference > 0]),
        "ties": len(differences) - m,
        "losses": len([difference for difference in nonzero if difference < 0]),
        "p": p,
        "min_p": _lowest_p(m),
        "method": method,
        "samples": _SAMPLES if sampled else None,
        "standard_error": (float(p) * (1 - float(p)) / _SAMPLES) ** 0.5 if sampled else 0.0,
    }


def _lowest_p(moved):
    """Return the lowest p that `moved` units can give, 2**(1 - moved): all moved one way."""
    from fractions import Fraction
    return Fraction(2, 2 ** moved) if moved else Fraction(1)


def _sign_flip_p(differences):
    """Return (p, method, units) of the two-sided sign-flip test of non-zero differences;
    units are (each difference in whole units, 1 / the unit), or None when more than 36
    moved and the unit would need over 2,200 bits."""
    from fractions import Fraction
    from math import fsum, gcd
    m, scale = len(differences), 1
    for denominator in set(difference.denominator for difference in differences):
        scale = scale * denominator // gcd(scale, denominator)
        if m > _MAX_LISTED and scale.bit_length() > _MAX_UNIT_BITS:
            scale = None  # so fine a unit would make every sum slow: sample on floats
            break
    # Signs split the sizes into a plus part and a minus part, and the sum is
    # plus - (total - plus): as far from 0 as the observed one when plus is at most
    # (total - observed) / 2, or, swapping the parts, as often again.
    units = None if scale is None else (
        [difference.numerator * (scale // difference.denominator) for difference in differences],
        scale)
    if units is not None:
        sizes = [abs(unit) for unit in units[0]]
        observed, total = abs(sum(units[0])), sum(sizes)
        limit = (total - observed) // 2
        if observed == 0:
            return Fraction(1), "exact", units  # every sum is at least 0 away from 0
        if m <= _MAX_LISTED:  # few moved: list their signs, whatever the values
            return Fraction(2 * _listed_count(sizes, limit), 2 ** m), "exact", units
        # Many moved, in small units: count. A step adds counts of up to m bits, so
        # each thousand moved, begun or whole, weighs one step more.
        if m * (limit + 1) * -(-m // 1000) <= _MAX_COUNTING_STEPS:
            return Fraction(2 * _counted_subsets(sizes, limit), 2 ** m), "exact", units
        largest = max(sizes)
        floats, observed = [size / largest for size in sizes], observed / largest
    else:  # each over the largest: no float overflows, however large the values
        largest = max(abs(difference) for difference in differences)
        signed = [float(difference / largest) for difference in differences]
        floats, observed = [abs(value) for value in signed], abs(fsum(signed))
    # Neither fits in about a second: sample. The observed assignment counts
    # as one draw, so p is never 0.
    return Fraction(1 + _sampled_count(floats, observed), 1 + _SAMPLES), "sampled", units


def _listed_count(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, listing them in two halves:
    for each sum of the first half, the sorted sums of the second tell how many partners
    keep the whole within the limit. The first half's sums are made from two quarters as
    they are needed, so only the second's are kept."""
    from bisect import bisect_right

    def subset_sums(part):  # the sum of each of the 2**len(part) subsets
        sums = [0]
        for size in part:
            sums += [total + size for total in sums]  # each subset without, then with, size
        return sums
    half = len(sizes) // 2 + 1
    second = sorted(subset_sums(sizes[half:]))
    quarters = subset_sums(sizes[:half // 2]), subset_sums(sizes[half // 2:half])
    return sum(bisect_right(second, limit - a - b) for a in quarters[0] for b in quarters[1]
               if a + b <= limit)


def _counted_subsets(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, by a table of sums."""
    from operator import add
    ways = [1] + [0] * limit  # ways[s]: subsets of the sizes so far that add up to s
    for size in sizes:
        # A subset leaves this size out (ways[s]) or takes it (ways[s - size]): the
        # new ways[s] add the two, for every s from size up (the old values are read
        # before any is replaced).
        ways[size:] = list(map(add, ways[size:], ways))
    return sum(ways)


def _sampled_count(sizes, observed):
    """Return how many of _SAMPLES random sign assignments of the float sizes give a sum
    at least `observed` from 0, drawn the same way on every run and every CPython."""
    from math import fsum
    from random import Random
    # Each size in whole units of 2**-52 of the total, so that every sum is exact.
    # Rounding moves a sum by under 2 units a question: a draw that close counts as
    # extreme, so rounding can only raise p.
    scale = 2 ** 52 / fsum(sizes)
    units = [round(size * scale) for size in sizes]
    total = sum(units)
    # A plus part at most `limit` is extreme, and so is one at least total - limit.
    limit = (total - round(observed * scale)) // 2 + 2 * len(units) + 2
    # Ten questions or more to a size, as ratios of small counts give: draw how many
    # of each size fall in the plus part. Else draw a sign for each question.
    by_size = len(set(units)) * 10 <= len(units)
    plus_parts = (_plus_parts_by_size if by_size else _plus_parts_by_question)(units, Random(_SEED))
    return len([plus for plus in plus_parts if plus <= limit or plus >= total - limit])


def _plus_parts_by_question(units, draws):
    """Yield the plus part of _SAMPLES assignments: one random bit per question, written out
    as bytes 0 and 1, picks the questions of the plus part."""
    from itertools import compress
    units = [float(unit) for unit in units]  # whole numbers below 2**53: floats add them exactly
    bits, zero_one = "0%db" % len(units), bytes.maketrans(b"01", b"\0\1")
    for _ in range(_SAMPLES):
        yield sum(compress(units, format(draws.getrandbits(len(units)), bits).encode()
                           .translate(zero_one)))


def _plus_parts_by_size(units, draws):
    """Yield the plus part of _SAMPLES assignments: questions of one size are alike, so a
    draw needs only how many of them fall in the plus part, a binomial count read off the
    table of its cumulative chances with one uniform number."""
    from bisect import bisect_right
    from collections import Counter
    tables = []
    for size, count in sorted(Counter(units).items()):
        ways, below, table = 1, 0, []  # below: the assignments with at most `heads` heads
        assignments = 2 ** count
        for heads in range(count):
            below += ways
            table.append(below / assignments)
            ways = ways * (count - heads) // (heads + 1)
        tables.append((size, table))
    for _ in range(_SAMPLES):
        yield sum(size * bisect_right(table, draws.random()) for size, table in tables)


# --- One report -------------------------------------------------------------
# report() gathers, as plain data, every figure and finding demo.py prints, so
# that `demo.py --json` writes exactly what the text says. Every key is always
# there: a part not asked for, or that does not apply, is None. Each step reads
# each question of each system a few times: the cost grows as questions times systems.

def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of a data set (what load_data() returns, or a dict of its shape)
    as plain data, keys in the order the README gives: per question, each system's
    scores, counts, nDCG and lenient reading; with explain, explain() of each and the
    claims nobody has reviewed; with summary, slices, comparisons and decisions. The
    first system is the baseline; each other one is a candidate."""
    _check_options(source, summary=summary, explain=explain)
    data = _checked_data(data)
    corpus, cases, k, systems = data["corpus"], data["cases"], data["k"], data["systems"]
    checked = _checked_systems(corpus, cases, data["runs"], systems, k)
    graded = any("grades" in case for case in cases.values())
    if data["policy"] is not None:  # a fault in the policy is the data's, whatever is asked
        _check_policy_rules(data["policy"], {name: bool(case["relevant"])
                                             for name, case in cases.items()}, graded)
    # The lenient reading differs only where labels are disputed: elsewhere its
    # tallies are the strict ones, and nothing is said of it.
    loose = {name: lenient(case) for name, case in cases.items() if case.get("disputed")}
    tallies = {"strict": {system: {name: _counted(corpus, case, run, k)
                                   for name, case, run in checked[system]} for system in systems}}
    if loose:
        tallies["lenient"] = {system: {name: _counted(corpus, loose[name], run, k) if name in loose
                                       else tallies["strict"][system][name]
                                       for name, case, run in checked[system]}
                              for system in systems}
    ndcgs = {system: {name: _ndcg(case, run["retrieved"], k) if graded else None
                      for name, case, run in checked[system]} for system in systems}
    rows = [{"case": name, "answerable": bool(case["relevant"]), "systems": {}}
            for name, case in cases.items()]
    for system in systems:
        for row, (name, case, run) in zip(rows, checked[system]):
            row["systems"][system] = {
                "scores": _scores(tallies["strict"][system][name]),
                "counts": tallies["strict"][system][name],
                "lenient": None if name not in loose else {
                    "scores": _scores(tallies["lenient"][system][name]),
                    "counts": tallies["lenient"][system][name]},
                "explain": _explained(corpus, case, run, k) if explain else None,
                "ndcg": ndcgs[system][name]}
    return {"source": source, "k": k, "systems": list(systems), "questions": rows,
            "review_queue": _review_queue(checked) if explain else None,
            "summary": _summary(data, checked, tallies, ndcgs if graded else None, source)
            if summary else None}


def _check_options(source, **flags):
    """Check the options of report(): source a str, each flag True or False."""
    if type(source) is not str:
        raise _invalid("source", "expected a str, got %s", source)
    for name, value in flags.items():
        if type(value) is not bool:
            raise _invalid(name, "expected True or False, got %s", value)


def _review_queue(checked):
    """Return the claims that nobody has labelled, rejected or disputed: the next round
    of reviewing, as (system, case, claim, the documents it cites)."""
    return [(system, name, claim_id, citations)
            for system, questions in checked.items() for name, case, run in questions
            if case["support"] is not None for claim_id, citations in run["claims"] or ()
            if not any(claim_id in case.get(key, ()) for key in
                       ("support", "optional", "disputed", "rejected"))]


def _summary(data, checked, tallies, ndcgs, source):
    """Return the summary: slices and their means, each comparison, disclosures, and the
    decisions."""
    systems, cases, policy = data["systems"], data["cases"], data["policy"]
    parts = _slices(tallies["strict"][systems[0]])
    disputed = [(name, claim_id, sources) for name, case in cases.items()
                for claim_id, sources in case.get("disputed", {}).items()]
    groups = _groups(cases)
    unreviewed = dict.fromkeys(systems, 0)
    for system, name, claim_id, citations in _review_queue(checked):
        unreviewed[system] += 1
    decided = None if policy is None else _decisions(data, tallies, ndcgs, groups)
    return {
        "slices": parts,
        "means": _slice_means(parts, tallies["strict"], ndcgs),
        "disputed_labels": disputed or None,
        "lenient_means": _slice_means(parts, tallies["lenient"], ndcgs) if disputed else None,
        "comparisons": [_comparison(data, tallies, ndcgs, candidate, groups,
                                    None if decided is None else decided[candidate])
                        for candidate in systems[1:]],
        # A count says how many were disclosed; _disclosed() says which: only where some were.
        "disclosures": {system: [(name, _disclosed(case.get("restricted", ()), run["retrieved"],
                                                   run["claims"] or (), data["k"]))
                                 for name, case, run in checked[system]
                                 if tallies["strict"][system][name]["disclosed"]]
                        for system in systems},
        "unreviewed": unreviewed,
        "policy": None if policy is None else {
            "source": source if source == "fixtures.py" else 'the "policy" of ' + source,
            "rules": policy, "baseline_alone": decided[systems[0]]},
        "groups": None if groups is None else len(set(groups.values())),
        "decisions": None if decided is None else {candidate: decided[candidate]
                                                   for candidate in systems[1:]},
    }


def _groups(cases):
    """Return each question's group for the paired test, None when no case names one; a
    question that names none is a group of its own (a tuple, never a group's name)."""
    if not any("group" in case for case in cases.values()):
        return None
    return {name: case.get("group", (name,)) for name, case in cases.items()}


def _slice_means(parts, tallies, ndcgs):
    """Return, per slice, metric and system, the macro mean of each ratio (and of nDCG,
    with grades), then pooled support (claims summed over the slice's judged answers),
    and on the unanswerable slice the correct abstentions (answers with no claim)."""
    means = {}
    for part, names in parts.items():
        means[part] = {metric: {system: _macro_mean([_scores(by_name[name])[metric]
                                                     for name in names])
                                for system, by_name in tallies.items()}
                       for metric in _COMPARED}
        if ndcgs is not None:
            means[part]["ndcg"] = {system: _macro_mean([by_name[name] for name in names])
                                   for system, by_name in ndcgs.items()}
        means[part]["pooled_support"], means[part]["correct_abstentions"] = {}, None
        for system, by_name in tallies.items():
            judged = [by_name[name] for name in names if by_name[name]["supported"] is not None]
            supported = sum(counts["supported"] for counts in judged)
            generated = sum(counts["generated"] for counts in judged)
            means[part]["pooled_support"][system] = {
                "supported": supported, "generated": generated,
                "ratio": supported / generated if generated else None}
        if part == "unanswerable":  # of the answers judged
            means[part]["correct_abstentions"] = {system: {
                "correct": len([name for name in names if by_name[name]["generated"] == 0
                                and by_name[name]["covered"] is not None]),
                "total": len([name for name in names if by_name[name]["covered"] is not None])}
                for system, by_name in tallies.items()}
    return means


def _exact_values(tallies, ndcgs, names, read):
    """Return {metric: {name: exact value}} of one system over some questions: the compared
    ratios, and nDCG with grades, read as the fractions they stand for (see _exact())."""
    values = {metric: {} for metric in _COMPARED + (() if ndcgs is None else ("ndcg",))}
    for name in names:
        scored = dict(_scores(tallies[name]), ndcg=None if ndcgs is None else ndcgs[name])
        for metric in values:
            value = scored[metric]
            if value is not None and value not in read:
                read[value] = _exact(value)
            values[metric][name] = None if value is None else read[value]
    return values


def _comparison(data, tallies, ndcgs, candidate, groups, decision):
    """Return the comparison of one candidate with the baseline."""
    baseline, strict = data["systems"][0], tallies["strict"]
    before = {name: _scores(counts) for name, counts in strict[baseline].items()}
    after = {name: _scores(counts) for name, counts in strict[candidate].items()}
    changes = [{"case": name, "verdict": _verdict(before[name], after[name]),
                "moved": [(metric, before[name][metric], after[name][metric],
                           _change(before[name][metric], after[name][metric]) is not None)
                          for metric in _METRICS if before[name][metric] != after[name][metric]]}
               for name in before]
    lenient_changes = None
    if "lenient" in tallies:  # the verdicts that a disputed label turns
        lenient_changes = [(item["case"], item["verdict"], turned) for item, turned in zip(
            changes, [_verdict(_scores(tallies["lenient"][baseline][name]),
                               _scores(tallies["lenient"][candidate][name])) for name in before])
                           if turned != item["verdict"]]
    answerable, read = _slices(strict[baseline])["answerable"], {}
    units = len(answerable if groups is None else {groups[name] for name in answerable})
    exact = [_exact_values(strict[system], None if ndcgs is None else ndcgs[system], answerable,
                           read) for system in (baseline, candidate)]
    manifests = data["manifests"]
    return {
        "baseline": baseline, "candidate": candidate,
        "manifest_changes": None if manifests is None else [
            (field, manifests[baseline].get(field), manifests[candidate].get(field))
            for field in list(manifests[baseline]) + [field for field in manifests[candidate]
                                                      if field not in manifests[baseline]]
            if field not in _HELD_CONSTANT
            and manifests[baseline].get(field) != manifests[candidate].get(field)],
        "changes": changes,
        "totals": {verdict: [item["verdict"] for item in changes].count(verdict)
                   for verdict in _VERDICTS},
        "lenient_changes": lenient_changes,
        "paired_tests": {metric: _paired(exact[0][metric], exact[1][metric], groups)
                         for metric in exact[0]},
        "p_floor": _lowest_p(units),  # were every answerable question, or group, to move
        "decision": decision,
        "units": units,
    }


def _decisions(data, tallies, ndcgs, groups):
    """Return the decision on each system, the baseline judged alone first, then each
    candidate against it."""
    policy, systems = data["policy"], data["systems"]
    decided = {}
    for system in systems:
        baseline = None if system == systems[0] else systems[0]  # the baseline is judged alone
        judged = {}
        for reading, by_system in tallies.items():
            test = None
            if "significance" in policy and baseline is not None:
                names, read = _slices(by_system[baseline])["answerable"], {}
                values = [_exact_values(by_system[each], None if ndcgs is None else ndcgs[each],
                                        names, read)[policy["significance"]["metric"]]
                          for each in (baseline, system)]
                test = _paired(values[0], values[1], groups)
            judged[reading] = _judged(policy, by_system[system], None if baseline is None
                                      else by_system[baseline], test)
        decided[system] = _by_readings(policy, judged, tallies, [baseline, system],
                                       data["cases"])
    return decided


def _by_readings(policy, judged, tallies, systems, cases):
    """Return one decision: the plan, the outcome, each reading's findings, each broken
    finding marked with the readings that break it, and, where the readings decide
    differently, the disputed labels of the questions the differing findings name."""
    strict, loose = judged["strict"], judged.get("lenient")
    plan = policy.get("unresolved", "both")
    marks = {}  # (rule, subject): [detail, broken strictly, broken leniently]
    for index, reading in enumerate((strict, loose), start=1):
        for finding in reading["broken"] if reading else ():
            marks.setdefault(finding[:2], [finding[2], False, False])[index] = True
    findings = [subject + (detail, "both" if loose is None or strict_broken and loose_broken
                           else "strict" if strict_broken else "lenient")
                for subject, (detail, strict_broken, loose_broken) in marks.items()]
    depends_on = []
    if loose is not None and strict["accepted"] != loose["accepted"]:
        depends_on = [(name, claim_id, sources)
                      for name in _deciding_questions(strict, loose, tallies, systems)
                      for claim_id, sources in cases[name].get("disputed", {}).items()]
    return {"plan": plan, "accepted": _decision(plan, strict, loose), "strict": strict,
            "lenient": loose, "depends_on": depends_on, "findings": findings}


def _deciding_questions(strict, loose, tallies, systems):
    """Return, in the order of the cases, the questions whose findings the two readings
    judge differently: each one a finding names, and, for a slice's finding, each
    question of that slice whose counts differ between the readings."""
    differ = ({finding[:2] for finding in strict["broken"]}
              ^ {finding[:2] for finding in loose["broken"]})
    names = {subject for rule, subject in differ if subject not in _SLICES}
    parts = _slices(tallies["strict"][systems[-1]])
    for part in _SLICES:
        if any(subject == part for rule, subject in differ):
            names.update(name for name in parts[part] if any(
                tallies["strict"][system][name] != tallies["lenient"][system][name]
                for system in systems if system is not None))
    return [name for name in tallies["strict"][systems[-1]] if name in names]


# --- Data from a file -------------------------------------------------------
# load_data() reads a JSON file that mirrors fixtures.py, for demo.py --data
# or your own code. JSON has arrays where the contract has tuples; they are
# read as tuples at that one boundary, and everything else is checked
# exactly as above. The caps keep any file within 30 s and 1 GB on CPython 3.8.

_DATA_KEYS = ("k", "systems", "corpus", "cases", "runs", "policy", "manifests")
_HELD_CONSTANT = ("corpus", "questions", "permissions", "rubric")
_MAX_FILE_BYTES = 30 * 10 ** 6  # read no further: memory stays bounded, whatever the file
_MAX_VALUES = 3 * 10 ** 6       # [, { and , outside strings: about the values JSON makes
_MAX_SYSTEMS = 1000             # and the baseline among them
_MAX_ROWS = 150000              # questions times systems: 75,000 questions of two systems
_MAX_DEPTH = 64                 # arrays and objects within one another, on every CPython
_MAX_DIGITS = 100               # in one integer: Python refuses to read ints of over 4,300


def load_data(path):
    """Return the checked parts of a JSON data file, its arrays read as tuples.

    Every fault raises EvaluationError: a path that is no path (a str, bytes
    or os.PathLike), a file that is not regular, cannot be read, changes as
    it is read or holds more than the caps above, text that is not UTF-8 or
    not JSON, NaN or Infinity, an integer of over 100 digits, nesting over
    64 deep, a key repeated in one object (each with its line and column),
    and any rule of the contract.
    """
    import os
    try:
        path = os.fspath(path)  # a str or bytes: open(1) would take over standard output
    except Exception:  # not a path, or a PathLike whose __fspath__ fails
        raise _invalid("path", "expected the path of a file, got %s", path) from None
    raw = _read(path)
    if _values(raw) > _MAX_VALUES:  # before JSON makes a Python object of each
        raise EvaluationError("holds more than %d JSON values ([, { and , outside strings), "
                              "the most a data file may hold" % _MAX_VALUES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvaluationError("is not UTF-8 text: %s at %s"
                              % (error.reason, _place(raw, error.start))) from None
    del raw  # the text alone is read from here on
    return _checked_data(_parsed(text))


def _read(path):
    """Return the bytes of the regular file at path, if they did not change as they were read."""
    import os
    import stat
    import time
    at_once = getattr(os, "O_NONBLOCK", 0)  # opened for reading, a FIFO would wait for a writer
    try:
        before = os.stat(path)
        if stat.S_ISREG(before.st_mode):  # then the file opened, which may be another one
            with open(path, "rb", opener=lambda name, mode: os.open(name, mode | at_once)) as file:
                before = os.fstat(file.fileno())
                # A write changes st_mtime_ns as it begins: one begun before this has ended
                # within 2 ns a byte (500 MB/s); one begun after it shows in `after`.
                span = 2 * before.st_size  # ns
                time.sleep(max(0, min(span, before.st_mtime_ns + span - time.time_ns())) / 1e9)
                raw = b""  # nothing is read of a file too large, or not regular after all
                if before.st_size <= _MAX_FILE_BYTES and stat.S_ISREG(before.st_mode):
                    raw = file.read(_MAX_FILE_BYTES + 1)
                after = os.fstat(file.fileno())
    except (OSError, ValueError) as error:  # ValueError: a NUL or a lone surrogate in the path
        reason = getattr(error, "strerror", None) or error
        raise EvaluationError("cannot be read: %s" % reason) from None
    if not stat.S_ISREG(before.st_mode):
        raise EvaluationError("is not a regular file (a FIFO, a socket or a device)")
    if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
        raise EvaluationError("changed while it was read; write it elsewhere, then rename it")
    if max(before.st_size, len(raw)) > _MAX_FILE_BYTES:
        raise EvaluationError("holds more than %d bytes, the most a data file may hold"
                              % _MAX_FILE_BYTES)
    return raw


def _values(raw):
    """Return about how many values JSON would make of raw: its [, { and , outside strings."""
    import re
    marks = raw.replace(b"\\\\", b"").replace(b'\\"', b"")  # each " left opens or closes a string
    marks = marks.translate(None, bytes(set(range(256)) - set(b'"[{,')))  # keep " [ { , alone
    marks = marks.replace(b'""', b"")  # two quotes side by side enclose no mark: drop them
    inside = sum(match.end() - match.start() - 2 for match in re.finditer(rb'"[^"]*"', marks))
    return len(marks) - marks.count(b'"') - inside


def _parsed(text):
    """Return the JSON value of text, with every array a tuple."""
    import gc
    import json  # only this path reads JSON
    # A large file makes a million objects and no cycle among them: the
    # garbage collector would only scan them, again and again, as they come.
    gc.disable()
    try:
        return _as_tuples(json.loads(text, object_pairs_hook=_one_value_per_key,
                                     parse_int=_whole_number, parse_constant=_no_constant))
    except RecursionError:  # nested deeper than this CPython's parser goes
        raise EvaluationError("is nested more than %d deep" % _MAX_DEPTH) from None
    except json.JSONDecodeError as error:
        raise EvaluationError("is not valid JSON: %s (line %d, column %d)"
                              % (error.msg, error.lineno, error.colno)) from None
    except _NotJSON as error:
        message, pattern = error.args
        raise EvaluationError("is not valid JSON: %s (%s)" % (
            message, _place(text, _first_outside_strings(text, pattern)))) from None
    except _RepeatedKey:
        key, index = _repeated_key(text)
        raise EvaluationError("data: repeated key %s in one object (%s)"
                              % (_shown(key), _place(text, index))) from None
    finally:
        gc.enable()


class _NotJSON(Exception):
    """A number a data file may not hold: (message, a pattern that finds it in the text)."""


class _RepeatedKey(Exception):
    """A key repeated in one object, which JSON would drop silently: found again in the text."""


def _one_value_per_key(pairs):
    """Return an object's pairs as a dict; a repeated key is a fault."""
    result = dict(pairs)
    if len(result) < len(pairs):
        raise _RepeatedKey
    return result


def _whole_number(text):
    """Return a JSON integer as an int, if it has at most 100 digits."""
    if len(text.lstrip("-")) > _MAX_DIGITS:  # the pattern starts at a number's first digit
        raise _NotJSON("an integer of more than %d digits" % _MAX_DIGITS,
                       r"(?<![\w.+-])-?[0-9]{%d,}" % (_MAX_DIGITS + 1))
    return int(text)


def _no_constant(name):
    """Refuse NaN, Infinity and -Infinity, which Python reads but JSON does not have."""
    raise _NotJSON("%s is not a JSON number" % name, "-?" + name.lstrip("-"))


def _strings_and(text, pattern):
    """Return an iterator of the strings in text (group 1 is the ':' after a key) and of the
    matches of pattern outside them."""
    import re
    plain = text.replace("\\\\", "__").replace('\\"', "__")  # each " left opens or closes a string
    return re.finditer(r'"[^"]*"(\s*:)?|' + pattern, plain)


def _first_outside_strings(text, pattern):
    """Return where the first match of pattern outside a JSON string starts, or 0."""
    for match in _strings_and(text, pattern):
        if not match.group().startswith('"'):
            return match.start()
    return 0


def _repeated_key(text):
    """Return the first key of text repeated in one object, and where it starts; or (None, 0)."""
    import json
    objects = []  # the keys of each object open at this point
    for match in _strings_and(text, "[{}]"):
        if match.group() == "{":
            objects.append(set())
        elif match.group() == "}":
            objects.pop()
        elif match.group(1):  # a key, read as JSON reads it
            key = text[match.start() + 1:match.start(1) - 1]
            key = json.loads('"%s"' % key) if "\\" in key else key
            if key in objects[-1]:
                return key, match.start()
            objects[-1].add(key)
    return None, 0


def _place(text, index):
    """Return 'line L, column C' of the character (or byte) at index."""
    newline = "\n" if type(text) is str else b"\n"
    line = text.count(newline, 0, index) + 1
    return "line %d, column %d" % (line, index - text.rfind(newline, 0, index))


def _as_tuples(value, depth=0):
    """Return value with every list, at any depth, turned into a tuple. The lists and dicts
    are the parser's, fresh: each is changed in place, so that no file is held twice."""
    if type(value) not in (list, dict):
        return value
    if depth == _MAX_DEPTH:
        raise EvaluationError("is nested more than %d deep" % _MAX_DEPTH)
    for key, item in enumerate(value) if type(value) is list else value.items():
        if type(item) is not str:  # (a str, the commonest item, is left as it is at once)
            value[key] = _as_tuples(item, depth + 1)
    return tuple(value) if type(value) is list else value


def _checked_data(data):
    """Return a data file's parts as a dict of _DATA_KEYS, after checking its shape.

    k defaults to 2; policy and manifests to None. The corpus, cases, runs
    and policy are checked when they are scored, like any other input.
    """
    if type(data) is not dict:
        raise _invalid("data", "expected an object with the keys %s, got %s", _DATA_KEYS, data)
    _check_keys(data, "data")
    for key in data:
        if key not in _DATA_KEYS:  # a misspelt "policy" must not pass unseen
            raise _invalid("data", "unknown key %s; the keys are %s", key, _DATA_KEYS)
    for key in ("systems", "corpus", "cases", "runs"):
        if key not in data:
            raise _invalid("data", "missing the key %s", key)
    systems = data["systems"]
    if type(systems) is not tuple or len(systems) < 2:
        raise _invalid("systems", "expected a tuple of two or more names, the baseline first, "
                       "got %s", systems)
    if len(systems) > _MAX_SYSTEMS:
        raise _invalid("systems", "expected at most %s names, got %s", _MAX_SYSTEMS, len(systems))
    if type(data["cases"]) is dict and len(data["cases"]) * len(systems) > _MAX_ROWS:
        raise _invalid("cases", "expected at most %s questions of %s systems (%s rows), got %s",
                       _MAX_ROWS // len(systems), len(systems), _MAX_ROWS, len(data["cases"]))
    for system in systems:
        _check_name(system, "systems")
    if len(set(systems)) < len(systems):
        raise _invalid("systems", "repeated name %s", next(
            system for index, system in enumerate(systems) if system in systems[:index]))
    parts = dict(dict.fromkeys(_DATA_KEYS), k=2)  # policy and manifests are None when left out
    parts.update(data)
    _check_k(parts["k"])
    if parts["manifests"] is not None:
        _check_manifests(parts["manifests"], systems)
    return parts


def _check_manifests(manifests, systems):
    """Check that manifests gives each system an object of strings, and that the fields
    in _HELD_CONSTANT are the same for all (a field left out is None): runs on another
    corpus, other questions, permissions or rubric are no comparison of the systems."""
    if type(manifests) is dict:
        _check_keys(manifests, "manifests")
    if type(manifests) is not dict or set(manifests) != set(systems):
        raise _invalid("manifests", "expected an object with the keys %s, got %s",
                       systems, manifests)
    for system in systems:
        field = "manifests[%s]" % _shown(system)
        if type(manifests[system]) is not dict:
            raise _invalid(field, "expected an object of strings, got %s", manifests[system])
        _check_keys(manifests[system], field)
        for key, value in manifests[system].items():
            _check_name(key, field)  # printed as it is, so it follows the rule of names
            if type(value) is not str:
                raise _invalid("%s[%s]" % (field, _shown(key)), "expected a string, got %s",
                               value)
    for system in systems[1:]:
        for field in _HELD_CONSTANT:
            if manifests[systems[0]].get(field) != manifests[system].get(field):
                raise _invalid("manifests", '"' + field + '" must be the same for every '
                               "system, got %s for %s and %s for %s",
                               manifests[systems[0]].get(field), systems[0],
                               manifests[system].get(field), system)


# --- Helpers for messages: a typo in a key, a value shown ----------------

def _check_keys(mapping, field):
    """Check that every key of a dict is an exact str, before any key is looked up in it: a
    str subclass could compare equal to another key, or raise when compared."""
    for key in mapping:
        if type(key) is not str:
            raise _invalid(field, "expected keys that are str, got %s", key)


def _check_near_misses(mapping, name, keys):
    """Check that no key of the dict `name` that its table does not know is a typo of one
    it knows."""
    for key in mapping:
        if key in keys or key in _FREE_KEYS[name]:
            continue
        _check_typo(key, keys, name)
        if len(_FREE_KEYS[name]) < 1000:  # a bound, whatever the keys of a file
            _FREE_KEYS[name].add(key)


_FREE_KEYS = {"case": set(), "run": set()}  # keys found to be no typo, so checked once


def _check_typo(key, keys, name):
    """Check that a key of the dict `name` is no typo of one of keys: the same but for case,
    or one or two letters added, left out or changed."""
    if key.isascii() and key.isprintable():
        typo_of = next((known for known in keys if _edits(key.lower(), known) <= 2), None)
        if typo_of:
            raise _invalid('%s["%s"]' % (name, key), 'unknown key; did you mean "%s"?' % typo_of)


def _edits(word, target):
    """Return how many letters to add, leave out or change to turn word into target, or 3
    when it takes more than two."""
    if abs(len(word) - len(target)) > 2:
        return 3
    row = list(range(len(target) + 1))  # edits from the start of word to each of target's
    for i, letter in enumerate(word, start=1):
        previous, row[0] = row[0], i
        for j, wanted in enumerate(target, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (letter != wanted))
    return min(row[-1], 3)


_BRACKETS = {tuple: ("(", ")"), list: ("[", "]"), dict: ("{", "}"), set: ("{", "}"),
             frozenset: ("frozenset({", "})")}


def _shown(value, limit=80):
    """Return repr(value), cut to `limit` characters ending in '...', with each character
    beyond ASCII escaped: a look-alike letter or an escape sequence cannot pass as another."""
    text = _repr_start(value, limit + 1)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _repr_start(value, room):
    """Return repr(value), or its first `room` characters or more.

    Only as much of a value is read as can be shown, so that a fault in a
    huge input costs no more to report than one in a small input.
    """
    kind = type(value)
    if room <= 0:
        return "..."
    if kind in (str, bytes):
        return ascii(value[:room])  # the start of the repr, up to a closing quote
    if kind is int and value.bit_length() > 10000:  # repr would take long, or refuse
        return "<int of %d bits>" % value.bit_length()
    if kind not in _BRACKETS or not value:
        try:  # any newline of a repr escaped too: a message stays one line
            return ascii(value).replace("\n", "\\n").replace("\r", "\\r")
        except Exception:  # a broken __repr__ must not escape as another error
            return "<%s with a broken repr>" % kind.__name__
    opening, closing = _BRACKETS[kind]
    parts, length = [], len(opening)
    for item in value:
        part = _repr_start(item, room - 1) if kind is not dict else "%s: %s" % (
            _repr_start(item, room - 1), _repr_start(value[item], room - 1))
        parts.append(part)
        length += len(part) + 2
        if length > room:  # enough to fill the room: the rest is never read
            break
    return opening + ", ".join(parts) + ("," if kind is tuple and len(value) == 1 else "") + closing
