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
and coverage on an unanswerable question (no relevant documents), support
on an empty answer, abstention_correct on an answerable question.

Every input is validated first. Any fault raises EvaluationError, a
ValueError whose message names the field and shows the value. Inputs are
never modified. Nothing here reads text, extracts claims or calls a model.

The file reads from top to bottom: the shape of the inputs, the scoring of
one question, then its validation, down to the line "END OF THE CONTRACT OF
ONE QUESTION". After it come many questions, comparing systems, the
acceptance policy, the paired test, the report and data files. The public
names are in __all__; every other name is a helper.
"""

__all__ = ["EvaluationError", "evaluate", "tally", "explain", "validate", "lenient",
           "tally_system", "explain_system", "check_policy", "paired_test", "report",
           "load_data"]

_MAX_IDS = 100            # IDs in one tuple, claims in one run, documents in one question's corpus
_MAX_DOCUMENTS = 10 ** 6  # documents in a corpus that many questions share
_MAX_K = 100
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_ID_CHARACTERS = _LETTERS | frozenset("0123456789-")
_ID_RULE = "IDs are 1 to 32 characters: a-z first, then a-z, 0-9 or '-'"
_METRICS = ("precision", "recall", "rr", "support", "coverage", "abstention_correct")

# The keys of a case and of a run: whether each must be there, and the shape
# of its value. Other keys, such as a case's "question", are ignored.
#   ids        a tuple of at most 100 distinct IDs, maybe empty
#   documents  ids, each the ID of a corpus document
#   labels     a dict from at most 100 claim IDs to sources: non-empty ids of
#              documents in the case's "relevant"
#   claims     a tuple of at most 100 (claim ID, citations) pairs, claim IDs
#              distinct; citations are ids, and may name documents outside
#              the corpus (such a claim is valid input, scored as unsupported)
_CASE_KEYS = {
    "relevant":   (True, "documents"),   # the documents that answer the question
    "support":    (True, "labels"),      # expected claim -> the documents that back it
    "disputed":   (False, "labels"),     # claim -> sources one reviewer accepted, another not
    "rejected":   (False, "ids"),        # claims reviewers found unsupported by every document
    "restricted": (False, "documents"),  # documents whoever asks may not see
}
_RUN_KEYS = {
    "retrieved": (True, "documents"),    # in rank order
    "claims":    (True, "claims"),       # in answer order
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


# A tally holds the counts behind the six values of one question, and its
# disclosures; tally() says what each count is.
_TALLY_KEYS = ("relevant", "k", "hits", "first_hit", "generated", "supported", "expected",
               "disclosed")


def _scores(counts):
    """Return the six metrics of one question from its tally; None is n/a.

    Coverage is supported / expected: a supported claim always has a label
    and claim IDs are unique, so the supported claims are exactly the
    expected claims that the answer covers.
    """
    # n/a is never 0: a metric that does not apply to this question is None.
    answerable = counts["relevant"] > 0
    answered = counts["generated"] > 0
    return {
        # Fixed slots: the denominator is k even when fewer documents came back.
        "precision": counts["hits"] / counts["k"] if answerable else None,
        "recall": counts["hits"] / counts["relevant"] if answerable else None,
        "rr": _reciprocal_rank(counts["first_hit"]) if answerable else None,
        "support": counts["supported"] / counts["generated"] if answered else None,
        "coverage": counts["supported"] / counts["expected"] if answerable else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": None if answerable else not answered,
    }


def _unsupported_because(claim_id, citations, support, visible, corpus):
    """Return the first rule a claim breaks, or None when it is supported.

    The rules come in this order, each checked against every citation before
    the next: "no citation", "no label" (support has no label for the
    claim), "not in the corpus", "not a labelled source", "outside the top
    k" (not in visible). Any labelled source of the claim may be cited.
    """
    # Strict citations: each rule must hold for every citation, so one good
    # citation does not excuse a bad one.
    if not citations:
        return "no citation"
    if claim_id not in support:
        return "no label"  # nobody labelled this claim, so nothing can support it
    for cited in citations:
        if cited not in corpus:
            return "not in the corpus"  # often a typo in the run
    for cited in citations:
        # Any labelled source of this claim will do, but every citation must be one.
        if cited not in support[claim_id]:
            return "not a labelled source"  # a real document, but it does not back this claim
    for cited in citations:
        if cited not in visible:
            return "outside the top k"  # a labelled source the system did not show
    return None


def _claim_reasons(corpus, support, retrieved, claims, k):
    """Return a list of (claim ID, reason) in answer order; reason None is supported."""
    visible = set(retrieved[:k])  # the context the answer stage was given
    return [(claim_id, _unsupported_because(claim_id, citations, support, visible, corpus))
            for claim_id, citations in claims]


def _disclosed(restricted, retrieved, claims, k):
    """Return a tuple of the restricted documents in the top k or cited, in the order of
    restricted. The top k stands for the context the answer stage was given: score
    with the k your pipeline passes on, or a smaller k hides what was shown."""
    if not restricted:
        return ()  # the common case: nothing is off limits
    # The top k is the context handed to the answer stage, and a citation
    # quotes a document: either way the asker has been shown it.
    exposed = set(retrieved[:k])
    for claim_id, citations in claims:
        exposed.update(citations)
    return tuple(doc_id for doc_id in restricted if doc_id in exposed)


def _counted(corpus, case, run, k):
    """Return the tally of one question whose inputs are valid."""
    relevant, support = case["relevant"], case["support"]
    retrieved, claims = run["retrieved"], run["claims"]
    ranks = _hit_ranks(relevant, retrieved, k)
    reasons = _claim_reasons(corpus, support, retrieved, claims, k)
    return {
        "relevant": len(relevant),
        "k": k,
        "hits": len(ranks),
        "first_hit": ranks[0] if ranks else None,
        "generated": len(claims),
        "supported": len([claim_id for claim_id, reason in reasons if reason is None]),
        "expected": len(support),
        "disclosed": len(_disclosed(case.get("restricted", ()), retrieved, claims, k)),
    }


def tally(corpus, case, run, *, k=2):
    """Return the counts behind every metric of one question, after validation.

    relevant    documents labelled relevant
    k           slots in the top k
    hits        relevant documents in the top k
    first_hit   rank of the first of them, or None
    generated   claims in the answer
    supported   generated claims that are supported
    expected    claims labelled in "support" for the question
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

    claims      (claim ID, reason) for every claim, in answer order: None for a
                supported claim, else the first rule it breaks (see
                _unsupported_because()), told apart by what reviewers
                recorded (see _reviewed())
    uncovered   expected claim IDs, in label order, that no supported claim covers
    disclosed   restricted documents in the top k or cited, in the order of
                case["restricted"]
    """
    validate(corpus, case, run, k)
    return _explained(corpus, case, run, k)


def _explained(corpus, case, run, k):
    """Return explain()'s result for one question whose inputs are valid."""
    support, retrieved, claims = case["support"], run["retrieved"], run["claims"]
    reasons = _claim_reasons(corpus, support, retrieved, claims, k)
    supported = {claim_id for claim_id, reason in reasons if reason is None}
    uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)
    return {"claims": _reviewed(reasons, corpus, case, run, k), "uncovered": uncovered,
            "disclosed": _disclosed(case.get("restricted", ()), retrieved, claims, k)}


def _reviewed(reasons, corpus, case, run, k):
    """Return the strict reasons as a tuple, each told apart by what reviewers recorded: a
    claim that only the lenient reading supports reads "only a disputed label supports
    it"; one with no agreed label reads "judged unsupported" when it is rejected, else
    the lenient reading's reason."""
    if "disputed" not in case and "rejected" not in case:
        return tuple(reasons)  # no record of a review: the strict reasons say it all
    loose = _claim_reasons(corpus, lenient(case)["support"], run["retrieved"], run["claims"], k)
    told = []
    for (claim_id, reason), (_, loose_reason) in zip(reasons, loose):
        if reason is not None and loose_reason is None:
            reason = "only a disputed label supports it"
        elif reason == "no label":  # reviewers rejected the claim, disputed it, or never saw it
            reason = "judged unsupported" if claim_id in case.get("rejected", ()) else loose_reason
        told.append((claim_id, reason))
    return tuple(told)


def lenient(case):
    """Return a new case whose support also holds every disputed label: the lenient reading.

    A claim labelled only in "disputed" becomes an expected claim. The case's
    labels are checked here; scoring the new case checks the rest. The input
    is never modified.
    """
    fields = _checked_case(case, None)
    support = dict(fields["support"])
    for claim_id, sources in fields.get("disputed", {}).items():
        support[claim_id] = support.get(claim_id, ()) + sources
    reading = {key: value for key, value in case.items() if key != "disputed"}
    reading["support"] = support
    return reading


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
    """Check the shape "ids" (with documents, "documents"): IDs in `known`, the corpus's
    keys, were checked before, so each ID is checked once."""
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
    fields = {}
    for key, (needed, shape) in keys.items():
        field = '%s["%s"]' % (name, key)
        if key not in mapping:
            if needed:
                raise _invalid(field, "missing from %s", mapping)
            continue
        value = fields[key] = mapping[key]
        if shape == "labels":
            _check_labels(value, field, set(fields["relevant"]))
        elif shape == "claims":
            _check_claims(value, field, corpus)
        else:
            _check_ids(value, field, corpus or (), shape == "documents" and corpus is not None)
    return fields


def _check_labels(labels, field, relevant):
    """Check the shape "labels": claim IDs to sources, all of them relevant documents."""
    if type(labels) is not dict:
        raise _invalid(field, "expected a dict, got %s", labels)
    _check_ids(tuple(labels), field)
    for claim_id, sources in labels.items():
        where = "%s[%r]" % (field, claim_id)  # a valid ID by now: short
        _check_ids(sources, where, relevant)
        if not sources:
            raise _invalid(where, "expected at least one source, got %s", sources)
        for source in sources:
            if source not in relevant:
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
    # Sources lie within relevant, so expected claims imply relevant documents.
    # The converse: relevant documents need an expected claim. Both empty is
    # an unanswerable question.
    if relevant and not support:
        raise _invalid('case["support"]', 'expected claims for case["relevant"] %s, got %s',
                       relevant, support)
    disputed = fields.get("disputed", {})
    for claim_id, sources in disputed.items():
        for source in sources:
            if source in support.get(claim_id, ()):  # a label is agreed or disputed, not both
                raise _invalid('case["disputed"][%r]' % (claim_id,),
                               'source %s is also in case["support"]', source)
    labelled = set(support) | set(disputed)
    if len(labelled) > _MAX_IDS:  # the lenient reading's expected claims
        raise _invalid('case["disputed"]', "expected at most %s claims in support and disputed "
                       "together, got %s", _MAX_IDS, len(labelled))
    for claim_id in fields.get("rejected", ()):
        if claim_id in labelled:  # found unsupported by every document: it has no source
            raise _invalid('case["rejected"]', 'claim %s has sources in case["support"] or '
                           'case["disputed"]', claim_id)
    for doc_id in fields.get("restricted", ()):
        if doc_id in relevant:  # what the asker may not see cannot be their evidence
            raise _invalid('case["restricted"]', 'document %s is in case["relevant"]', doc_id)
    return fields


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
# END OF THE CONTRACT OF ONE QUESTION. Every scoring rule is above this line.
# What follows applies the same rules to many questions and compares systems.
# ============================================================================

# --- Many questions ---------------------------------------------------------

_NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"


def _check_name(value, field):
    """Check a case or system name: it heads rows, so it prints the same on any terminal
    and leaves a row's words unambiguous."""
    if not (type(value) is str and 0 < len(value) <= 64 and value.isascii()
            and value.isprintable() and " " not in value):
        raise _invalid(field, "invalid name %s (" + _NAME_RULE + ")", value)


def _checked_systems(corpus, cases, runs, systems, k):
    """Validate every case, and its run by each system; return {system: [(name, case, run)]}.

    The corpus is checked once, and may hold up to a million documents; each
    case is checked once, however many systems share it. A fault names the
    corpus, the case, or the case and the system.
    """
    _check_corpus(corpus, _MAX_DOCUMENTS)
    _check_k(k)
    for part, value in (("cases", cases), ("runs", runs)):
        if type(value) is not dict:
            raise _invalid(part, "expected a dict, got %s", value)
    for name in runs:
        if name not in cases:
            raise _invalid("runs", "no case named %s", name)
    questions = {system: [] for system in systems}
    for name, case in cases.items():
        _check_name(name, "cases")
        where = "case %s: " % _shown(name)
        try:
            _checked_case(case, corpus)
            for system in systems:
                where = "case %s, system %s: " % (_shown(name), _shown(system))
                if name not in runs:
                    raise EvaluationError("missing from runs")
                if type(runs[name]) is not dict:
                    raise _invalid("runs[%s]" % _shown(name), "expected a dict, got %s",
                                   runs[name])
                if system not in runs[name]:
                    raise EvaluationError("missing from runs[%s]" % _shown(name))
                _checked_fields(runs[name][system], "run", _RUN_KEYS, corpus)
                questions[system].append((name, case, runs[name][system]))
        except EvaluationError as error:
            raise EvaluationError(where + str(error)) from None
    return questions


def tally_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: tally} for one system, in the order of cases.

    runs maps each case name to its runs by system name. Each tally equals
    tally() of that question with the corpus cut down to the documents it
    names. A fault names the corpus, the case, or the case and the system.
    """
    _check_name(system, "system")
    return {name: _counted(corpus, case, run, k) for name, case, run
            in _checked_systems(corpus, cases, runs, (system,), k)[system]}


def explain_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: explain() result} for one system, in the order of cases."""
    _check_name(system, "system")
    return {name: _explained(corpus, case, run, k) for name, case, run
            in _checked_systems(corpus, cases, runs, (system,), k)[system]}


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


# --- Deciding ---------------------------------------------------------------
# A policy is written with the labels, before any run is seen, and a system
# is accepted by it, not by whichever average looks best afterwards. Each rule
# is one entry of _RULES: the kind of value it takes, which _check_rule()
# knows, and the function that makes its findings. A findings function takes
# the policy, the candidate's and the baseline's tallies (baseline None when
# there is none) and the declared paired test; it returns a list of
# (held, (rule, question or slice, detail)), or None when the rule needs a
# baseline and has none. To add a rule, write its findings and add its entry.

_PLANS = ("strict", "lenient", "both")  # policy["unresolved"]: the readings a decision takes


def _plural(count, noun):
    """Return '1 claim', '2 claims', '0 claims'."""
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def _critical_findings(policy, candidate, baseline, test):
    """Per critical question: nothing judged got worse than in the baseline."""
    if baseline is None:
        return None
    findings = []
    for name in policy["critical"]:
        before, after = _scores(baseline[name]), _scores(candidate[name])
        worse = ["%s %s -> %s" % (metric, _cell(before[metric]), _cell(after[metric]))
                 for metric in _METRICS if _change(before[metric], after[metric]) == "worse"]
        detail = _verdict(before, after)
        if worse:  # a 'regressed' or a 'mixed' verdict: the rule is broken
            detail += ": " + ", ".join(worse)
        findings.append((not worse, ("critical", name, detail)))
    return findings


def _coverage_findings(policy, candidate, baseline, test):
    """Per critical question: its coverage reaches the minimum."""
    findings = []
    for name in policy["critical"]:
        counts, minimum = candidate[name], policy["min_coverage"]
        # Shown as the fraction it is: 2/3 falls short of 0.67, though both round to 0.67.
        detail = "coverage %d/%d, minimum %g" % (counts["supported"], counts["expected"], minimum)
        findings.append((_scores(counts)["coverage"] >= minimum, ("min_coverage", name, detail)))
    return findings


def _budget_findings(policy, candidate, baseline, test):
    """Per slice the budget names: its unsupported claims stay within the budget."""
    findings, budget, parts = [], policy["unsupported_budget"], _slices(candidate)
    for part in _SLICES:
        if part in budget:  # a slice the policy left out is not checked
            unsupported = sum(candidate[name]["generated"] - candidate[name]["supported"]
                              for name in parts[part])
            detail = "%s, budget %d" % (_plural(unsupported, "unsupported claim"), budget[part])
            findings.append((unsupported <= budget[part], ("unsupported_budget", part, detail)))
    return findings


def _abstention_findings(policy, candidate, baseline, test):
    """Per question that must be abstained on: no claims."""
    findings = []
    for name in policy["must_abstain"]:
        claims = candidate[name]["generated"]
        detail = "answered with " + _plural(claims, "claim") if claims else "abstained"
        findings.append((claims == 0, ("must_abstain", name, detail)))
    return findings


def _significance_findings(policy, candidate, baseline, test):
    """On the answerable slice: the declared metric's paired test went the candidate's way,
    with p below alpha."""
    if baseline is None:
        return None
    alpha = policy["significance"]["alpha"]
    # Better on average, and by more than these questions' own noise: both. p is
    # two-sided, so a false acceptance is at most alpha / 2 likely.
    held = test["mean"] is not None and test["mean"] > 0 and test["p"] < alpha
    mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
    detail = "%s mean %s (%d of %d), p = %s (%s), alpha %s" % (
        policy["significance"]["metric"], mean, test["questions"],
        test["questions"] + test["left_out"], _p_text(test["p"], test["method"] == "exact"),
        test["method"], alpha)
    return [(held, ("significance", "answerable", detail))]


_RULES = {  # rule: (the kind of its value, its findings), in the order findings are listed
    "critical":           ("answerable questions", _critical_findings),
    "min_coverage":       ("a number from 0 to 1", _coverage_findings),
    "unsupported_budget": ("a count per slice", _budget_findings),
    "must_abstain":       ("unanswerable questions", _abstention_findings),
    "significance":       ("a metric and an alpha", _significance_findings),
}


def _check_policy_rules(policy, answerable):
    """Check a policy and each rule it has; answerable maps each question name to True
    when the question is answerable."""
    rules = str(tuple(_RULES))  # named in full in messages, never cut
    if type(policy) is not dict:
        raise _invalid("policy", "expected a dict, got %s", policy)
    for key in policy:
        if key not in _RULES and key != "unresolved":
            raise _invalid("policy", "unknown rule %s; the rules are " + rules, key)
    if not any(rule in policy for rule in _RULES):
        raise _invalid("policy", "expected at least one of the rules " + rules + ", got %s",
                       policy)
    for rule in _RULES:
        if rule in policy:
            _check_rule(rule, policy, answerable)
    if "unresolved" in policy and policy["unresolved"] not in _PLANS:
        raise _invalid('policy["unresolved"]', "expected one of %s, got %s", _PLANS,
                       policy["unresolved"])


def _check_rule(rule, policy, answerable):
    """Check the value a policy gives one rule, by the kind of value _RULES names."""
    kind, value, field = _RULES[rule][0], policy[rule], 'policy["%s"]' % rule
    if kind.endswith("questions"):
        if type(value) is not tuple or not value:  # a rule of no question holds for nothing
            raise _invalid(field, "expected a tuple of question names, got %s", value)
        seen = set()
        for name in value:
            if type(name) is not str or name not in answerable:
                raise _invalid(field, "no question named %s", name)
            if name in seen:
                raise _invalid(field, "repeated question %s", name)
            seen.add(name)
            # Nothing can be covered on an unanswerable question: must_abstain is its rule.
            if answerable[name] != (kind == "answerable questions"):
                raise _invalid(field, "%s is unanswerable; list it in policy[\"must_abstain\"]"
                               if answerable[name] is False else "%s is answerable; only an "
                               "unanswerable question must be abstained on", name)
    elif kind == "a number from 0 to 1":
        if "critical" not in policy:  # a minimum with no question to check holds for nothing
            raise _invalid(field, 'applies to the questions of policy["critical"], and the '
                           'policy has none: got %s', policy)
        _check_number(value, field, 0, 1)
    elif kind == "a count per slice":
        if type(value) is not dict or not value or not set(value) <= set(_SLICES):
            raise _invalid(field, "expected a dict with one or both of the keys %s, got %s",
                           _SLICES, value)
        for part, allowed in value.items():
            if type(allowed) is not int or allowed < 0:
                raise _invalid("%s[%r]" % (field, part), "expected an int of at least 0, got %s",
                               allowed)
    else:  # a metric and an alpha
        if type(value) is not dict or set(value) != {"metric", "alpha"}:
            raise _invalid(field, 'expected a dict with the keys "metric" and "alpha", got %s',
                           value)
        if value["metric"] not in _COMPARED:
            raise _invalid(field + '["metric"]', "expected one of %s, got %s", _COMPARED,
                           value["metric"])
        _check_number(value["alpha"], field + '["alpha"]', 0, 0.5, above_low=True)


def _check_number(value, field, low, high, above_low=False):
    """Check that value is an int or a float from low (or above it) to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in (int, float) and (low < value if above_low else low <= value)
    if not (within and value <= high):
        raise _invalid(field, "expected a number " + ("above" if above_low else "from")
                       + " %s to %s, got %s", low, high, value)


def check_policy(policy, candidate, baseline=None):
    """Judge a candidate system by a policy declared before any run was seen.

    candidate and baseline map question names to tally() results. The policy
    is a dict of rules (see the README), each optional, one at least:
    critical, min_coverage, unsupported_budget, must_abstain and
    significance; and "unresolved", the plan for disputed labels, which
    judges nothing. critical and significance compare with a baseline:
    without one they are listed in "unchecked".

    Whatever the policy says, a question on which the candidate disclosed a
    restricted document is a broken "disclosure" finding: no accuracy and
    no rule can excuse showing a document to someone who may not see it.

    Returns {"accepted", "broken", "held", "unchecked", "significance"}:
    each finding is (rule, question or slice, detail); accepted is True when
    findings were judged and none is broken, False when any is broken, and
    None when no finding could be judged. significance is the paired test of
    the declared metric, or None.
    """
    for field, tallies in (("candidate", candidate), ("baseline", baseline)):
        if tallies is not None:
            _check_by_question(tallies, field)
            for name, counts in tallies.items():
                _check_tally(counts, "%s[%s]" % (field, _shown(name)))
    if baseline is not None:
        _check_same_questions(candidate, "candidate", baseline, "baseline")
    _check_policy_rules(policy, {name: counts["relevant"] > 0
                                 for name, counts in candidate.items()})
    return _judged(policy, candidate, baseline)


def _check_tally(counts, field):
    """Check that counts could have come from tally(): its keys, each count within bounds."""
    def check(key, low, high):
        if type(counts[key]) is not int or not low <= counts[key] <= high:
            raise _invalid('%s["%s"]' % (field, key), "expected an int from %s to %s, got %s",
                           low, high, counts[key])
    if type(counts) is not dict or tuple(counts) != _TALLY_KEYS:
        raise _invalid(field, "expected a tally, got %s", counts)
    check("k", 1, _MAX_K)
    for key in ("relevant", "generated", "disclosed"):
        check(key, 0, _MAX_IDS)
    answerable = counts["relevant"] > 0  # then claims are expected; else none are
    check("expected", int(answerable), _MAX_IDS if answerable else 0)
    check("hits", 0, min(counts["k"], counts["relevant"]))
    check("supported", 0, min(counts["generated"], counts["expected"]))
    if counts["hits"]:  # the first of `hits` ranks within the top k
        check("first_hit", 1, counts["k"] - counts["hits"] + 1)
    elif counts["first_hit"] is not None:
        raise _invalid('%s["first_hit"]' % field, "expected None with no hits, got %s",
                       counts["first_hit"])


def _judged(policy, candidate, baseline):
    """Return check_policy()'s result for a checked policy and tallies made by tally()."""
    # Not a rule of the policy: a disclosure is always broken.
    findings = [(False, ("disclosure", name, _plural(counts["disclosed"], "restricted document")
                         + " in the top k or cited"))
                for name, counts in candidate.items() if counts["disclosed"]]
    unchecked, test = [], None
    if "significance" in policy and baseline is not None:
        metric, names = policy["significance"]["metric"], _slices(candidate)["answerable"]
        test = _paired({name: _exact_scores(baseline[name])[metric] for name in names},
                       {name: _exact_scores(candidate[name])[metric] for name in names})
    for rule, (kind, found) in _RULES.items():
        if rule in policy:
            made = found(policy, candidate, baseline, test)
            unchecked += [rule] if made is None else []
            findings += made or []
    broken = [finding for held, finding in findings if not held]
    # Nothing judged, nothing accepted: a policy that checked no rule decides nothing.
    return {"accepted": None if not findings else not broken, "broken": broken,
            "held": [finding for held, finding in findings if held], "unchecked": unchecked,
            "significance": test}


def _decision(plan, strict, loose):
    """Return whether a candidate is accepted under a plan for disputed labels: None when
    nothing could be judged. strict and loose are _judged() under each reading; loose
    is None when no label is disputed, and then the strict reading decides."""
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


def paired_test(before, after):
    """Compare two systems question by question with a paired sign-flip test.

    before and after map the same question names to a value, None (n/a), or
    a tuple of up to 100 values from repeated runs of that question. Repeated
    runs are averaged within their question first: the question is the unit,
    so four questions run three times are four pairs. A question with n/a on
    either side is left out and counted. Values are compared as the exact
    fractions they stand for (see _exact()).

        questions, left_out    questions compared, and left out for n/a
        mean                   mean of after - before; None with no question
        wins, ties, losses     questions where after is above, equal, below
        p                      two-sided p: the share of the 2**m sign
                               assignments of the m non-zero differences whose
                               sum is at least as far from 0 as the observed one
        min_p                  2**(1 - m), the lowest p m moved questions can give
        method                 "exact" or "sampled", as below
        samples                assignments drawn when sampled, else None
        standard_error         of a sampled p, sqrt(p (1 - p) / samples); 0.0
                               for an exact one

    p is found the first of three ways that fits (see _sign_flip_p()):

        listed    exact     at most 36 questions moved, whatever their values
        counted   exact     the differences share a small unit, and counting the
                            sums takes at most 22 million steps, a step weighing
                            one more per thousand moved questions
        sampled   sampled   12,000 random assignments from a fixed seed:
                            p = (1 + c) / (1 + 12000), c of them as extreme as
                            the observed one, the same on every run

    p and min_p are Fractions, and 1 when no difference is non-zero.
    """
    read = {}  # the fraction of each number seen so far: values repeat
    values = {}
    for side, by_name in (("before", before), ("after", after)):
        _check_by_question(by_name, side)
        values[side] = {name: _question_value(value, side, name, read)
                        for name, value in by_name.items()}
    _check_same_questions(before, "before", after, "after")
    return _paired(values["before"], values["after"])


def _check_by_question(value, field):
    """Check that value is a dict keyed by question name."""
    if type(value) is not dict:
        raise _invalid(field, "expected a dict by question name, got %s", value)


def _check_same_questions(first, first_field, second, second_field):
    """Check that two dicts by question name have the same questions."""
    if first.keys() != second.keys():
        raise _invalid(second_field, "expected the questions of " + first_field + " %s, got %s",
                       tuple(first), tuple(second))


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
    """Return the fraction a number stands for: 0.5 is 1/2, 0.3 is 3/10, 1 - 2/3 is 1/3.

    A ratio of small counts, put through a few float operations, lands within
    a few units in the last place of the fraction it stands for: 1 - 2/3 is
    0.33333333333333337, not 1/3's float, yet it means 1/3. So a float within
    64 units in the last place of a fraction whose denominator is at most a
    million is read as the nearest such fraction; any other, as it is.
    """
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


def _exact_scores(counts):
    """Return the compared ratios of a tally as exact fractions, n/a as None: the rules of
    _scores(), on counts that are Fractions."""
    from fractions import Fraction
    values = _scores({key: value if value is None else Fraction(value)
                      for key, value in counts.items()})
    return {metric: None if values[metric] is None else Fraction(values[metric])
            for metric in _COMPARED}


def _paired(before, after):
    """Return paired_test() of two dicts of exact values (fractions or None) by question."""
    from fractions import Fraction
    from math import fsum
    differences = [after[name] - before[name] for name in before
                   if before[name] is not None and after[name] is not None]
    nonzero = [difference for difference in differences if difference != 0]
    m = len(nonzero)
    p, method, units = _sign_flip_p(nonzero)
    if not differences:
        mean = None
    elif units is None:  # a unit too fine to sum in: the floats' mean, a few units off
        mean = fsum(float(difference) for difference in nonzero) / len(differences)
    else:  # exact, rounded once; beyond the largest float, an infinity
        exact_mean = Fraction(sum(units[0]), units[1]) / len(differences)
        mean = float(exact_mean) if abs(exact_mean) <= _LARGEST_FLOAT else (
            float("inf") if exact_mean > 0 else float("-inf"))
    sampled = method == "sampled"
    return {
        "questions": len(differences),
        "left_out": len(before) - len(differences),  # n/a on either side: no pair, never a 0
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
    """Return the lowest p that `moved` questions can give, 2**(1 - moved): all moved one way."""
    from fractions import Fraction
    return Fraction(2, 2 ** moved) if moved else Fraction(1)


def _sign_flip_p(differences):
    """Return (p, method, units) of the two-sided sign-flip test of non-zero differences.

    units is (each difference as a whole number of a common unit, 1 / the
    unit), or None when that unit would need over 2,200 bits and more than
    36 questions moved. Signs split the sizes |unit| into a plus part and a
    minus part, and the sum is plus - (total - plus): it is at least as far
    from 0 as the observed one when plus is at most (total - observed) / 2,
    or, swapping the parts, as many assignments again.
    """
    from fractions import Fraction
    from math import fsum, gcd
    m, scale = len(differences), 1
    for denominator in set(difference.denominator for difference in differences):
        scale = scale * denominator // gcd(scale, denominator)
        if m > _MAX_LISTED and scale.bit_length() > _MAX_UNIT_BITS:
            scale = None  # so fine a unit would make every sum slow: sample on floats
            break
    units = None if scale is None else (
        [difference.numerator * (scale // difference.denominator) for difference in differences],
        scale)
    if units is not None:
        sizes = [abs(unit) for unit in units[0]]
        observed, total = abs(sum(units[0])), sum(sizes)
        limit = (total - observed) // 2
        if observed == 0:
            return Fraction(1), "exact", units  # every sum is at least 0 away from 0
        if m <= _MAX_LISTED:  # few questions moved: list their signs, whatever the values
            return Fraction(2 * _listed_count(sizes, limit), 2 ** m), "exact", units
        # Many moved, in small units: count. A step adds counts of up to m bits, so
        # each thousand questions moved, begun or whole, weighs one step more.
        if m * (limit + 1) * -(-m // 1000) <= _MAX_COUNTING_STEPS:
            return Fraction(2 * _counted_subsets(sizes, limit), 2 ** m), "exact", units
        floats, observed = [size / max(sizes) for size in sizes], observed / max(sizes)
    else:
        floats = [abs(float(difference)) for difference in differences]
        observed = abs(fsum(float(difference) for difference in differences))
    # Neither fits in about a second: sample. The observed assignment counts
    # as one draw, so p is never 0.
    return Fraction(1 + _sampled_count(floats, observed), 1 + _SAMPLES), "sampled", units


def _listed_count(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, listing them in two halves.

    Meet in the middle: every subset is a subset of the first half joined to
    one of the second. For each first-half sum, the sorted second-half sums
    tell how many partners keep the whole within the limit. Only the second
    half's sums are kept: the first half's are made from two quarters as
    they are needed.
    """
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
    at least `observed` from 0, drawn the same way on every run and every CPython.

    The draws add whole numbers: each size in units of 2**-52 of the total,
    so that every sum is exact. Rounding the sizes to units moves a sum by
    less than 2 units a question: a draw that close to the observed sum
    counts as extreme, so that rounding can only raise p, never lower it.
    """
    from itertools import compress
    from math import fsum
    from random import Random
    scale = 2 ** 52 / fsum(sizes)
    # Whole numbers whose total is below 2**53 are floats exactly, and so is
    # every partial sum: summing floats is then exact, and faster than ints.
    units = [float(round(size * scale)) for size in sizes]
    total = sum(units)
    # A plus part at most `limit` is extreme, and so is one at least total - limit.
    limit = (total - round(observed * scale)) // 2 + 2 * len(units) + 2
    draws, bits = Random(_SEED), "0%db" % len(units)
    zero_one = bytes.maketrans(b"01", b"\0\1")
    count = 0
    for _ in range(_SAMPLES):
        # A random bit per question, written out as bytes 0 and 1: the questions
        # whose bit is 1 form the plus part.
        plus = sum(compress(units, format(draws.getrandbits(len(units)), bits).encode()
                            .translate(zero_one)))
        count += plus <= limit or plus >= total - limit
    return count


# --- One report -------------------------------------------------------------
# report() gathers, as plain data, every figure and finding demo.py prints,
# so that `demo.py --json` writes exactly what the text says. Every key is
# always there: a part that was not asked for, or does not apply, is None.

def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of a data set as plain data, in the order the README gives.

    data is what load_data() returns, or a dict of the same shape, such as
    demo.py's fixture_data(). The first system is the baseline; each other
    one is a candidate, compared with it. Every question carries each
    system's scores and counts, and those of the lenient reading when its
    labels are disputed; explain adds explain() of each and the claims
    nobody has reviewed; summary adds the slices, the comparisons and the
    decisions.
    """
    data = _checked_data(data)
    corpus, cases, k, systems = data["corpus"], data["cases"], data["k"], data["systems"]
    checked = _checked_systems(corpus, cases, data["runs"], systems, k)
    if data["policy"] is not None:  # a fault in the policy is the data's, whatever is asked
        _check_policy_rules(data["policy"], {name: bool(case["relevant"])
                                             for name, case in cases.items()})
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
                "explain": _explained(corpus, case, run, k) if explain else None}
    return {"source": source, "k": k, "systems": list(systems), "questions": rows,
            "review_queue": _review_queue(checked) if explain else None,
            "summary": _summary(data, checked, tallies, source) if summary else None}


def _review_queue(checked):
    """Return the claims that nobody has labelled, rejected or disputed: the next round
    of reviewing, as (system, case, claim, the documents it cites)."""
    return [(system, name, claim_id, citations)
            for system, questions in checked.items() for name, case, run in questions
            for claim_id, citations in run["claims"] if claim_id not in case["support"]
            and claim_id not in case.get("disputed", ()) and claim_id not in case.get(
                "rejected", ())]


def _summary(data, checked, tallies, source):
    """Return the summary: slices and their means, each comparison, disclosures, decisions."""
    systems, cases, policy = data["systems"], data["cases"], data["policy"]
    parts = _slices(tallies["strict"][systems[0]])
    disputed = [(name, claim_id, sources) for name, case in cases.items()
                for claim_id, sources in case.get("disputed", {}).items()]
    queue = _review_queue(checked)
    return {
        "slices": parts,
        "means": _slice_means(parts, tallies["strict"]),
        "disputed_labels": disputed or None,
        "lenient_means": _slice_means(parts, tallies["lenient"]) if disputed else None,
        "comparisons": [_comparison(data, tallies, candidate) for candidate in systems[1:]],
        # A count says how many were disclosed; _disclosed() says which: only where some were.
        "disclosures": {system: [(name, _disclosed(case.get("restricted", ()), run["retrieved"],
                                                   run["claims"], data["k"]))
                                 for name, case, run in checked[system]
                                 if tallies["strict"][system][name]["disclosed"]]
                        for system in systems},
        "unreviewed": {system: len([item for item in queue if item[0] == system])
                       for system in systems},
        "policy": None if policy is None else {
            "source": source if source == "fixtures.py" else 'the "policy" of ' + source,
            "rules": policy, "baseline_alone": _by_readings(policy, tallies, None, systems[0],
                                                            cases)},
    }


def _slice_means(parts, tallies):
    """Return, per slice, metric and system, the macro mean of each ratio, then pooled
    support (claims summed over the slice), and on the unanswerable slice the correct
    abstentions (questions answered with no claim)."""
    means = {}
    for part, names in parts.items():
        means[part] = {}
        for metric in _COMPARED:
            means[part][metric] = {system: _macro_mean([_scores(by_name[name])[metric]
                                                        for name in names])
                                   for system, by_name in tallies.items()}
        means[part]["pooled_support"] = {}
        for system, by_name in tallies.items():
            supported = sum(by_name[name]["supported"] for name in names)
            generated = sum(by_name[name]["generated"] for name in names)
            means[part]["pooled_support"][system] = {
                "supported": supported, "generated": generated,
                "ratio": supported / generated if generated else None}
        means[part]["correct_abstentions"] = None if part == "answerable" else {
            system: {"correct": len([name for name in names if not by_name[name]["generated"]]),
                     "total": len(names)} for system, by_name in tallies.items()}
    return means


def _macro_mean(values):
    """Return {mean, averaged, total} of a list of values: each question weighs the same,
    and n/a is skipped and counted, never averaged in as 0."""
    from math import fsum  # rounded once, so the same on every CPython
    present = [value for value in values if value is not None]
    return {"mean": fsum(present) / len(present) if present else None,
            "averaged": len(present), "total": len(values)}


def _comparison(data, tallies, candidate):
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
    answerable = _slices(strict[baseline])["answerable"]
    exact = [{name: _exact_scores(strict[system][name]) for name in answerable}
             for system in (baseline, candidate)]
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
        "paired_tests": {metric: _paired({name: exact[0][name][metric] for name in answerable},
                                         {name: exact[1][name][metric] for name in answerable})
                         for metric in _COMPARED},
        "p_floor": _lowest_p(len(answerable)),  # were every answerable question to move
        "decision": None if data["policy"] is None else
        _by_readings(data["policy"], tallies, baseline, candidate, data["cases"]),
    }


def _by_readings(policy, tallies, baseline, candidate, cases):
    """Return the decision on a candidate (alone when baseline is None) under each reading,
    and, where the readings decide differently, the disputed labels it depends on."""
    judged = {reading: _judged(policy, by_system[candidate],
                               None if baseline is None else by_system[baseline])
              for reading, by_system in tallies.items()}
    strict, loose = judged["strict"], judged.get("lenient")
    depends_on = []
    if loose is not None and strict["accepted"] != loose["accepted"]:
        names = _deciding_questions(strict, loose, tallies, [baseline, candidate])
        depends_on = [(name, claim_id, sources) for name in names
                      for claim_id, sources in cases[name].get("disputed", {}).items()]
    plan = policy.get("unresolved", "both")
    return {"plan": plan, "accepted": _decision(plan, strict, loose), "strict": strict,
            "lenient": loose, "depends_on": depends_on}


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
    return [name for name in parts["answerable"] + parts["unanswerable"] if name in names]


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
    if not isinstance(path, (str, bytes, os.PathLike)):  # open(1) would take over standard output
        raise _invalid("path", "expected the path of a file, got %s", path)
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
    except OSError as error:
        raise EvaluationError("cannot be read: %s" % (error.strerror or error)) from None
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
    if type(manifests) is not dict or set(manifests) != set(systems):
        raise _invalid("manifests", "expected an object with the keys %s, got %s",
                       systems, manifests)
    for system in systems:
        field = "manifests[%s]" % _shown(system)
        if type(manifests[system]) is not dict:
            raise _invalid(field, "expected an object of strings, got %s", manifests[system])
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


# --- Showing a value in a message -------------------------------------------

_BRACKETS = {tuple: ("(", ")"), list: ("[", "]"), dict: ("{", "}"), set: ("{", "}"),
             frozenset: ("frozenset({", "})")}


def _shown(value, limit=80):
    """Return repr(value), cut to `limit` characters ending in '...'."""
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
        return repr(value[:room])  # the start of the repr, up to a closing quote
    if kind is int and value.bit_length() > 10000:  # repr would take long, or refuse
        return "<int of %d bits>" % value.bit_length()
    if kind not in _BRACKETS or not value:
        try:
            return repr(value)
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
