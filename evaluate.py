"""Score recorded RAG outputs, one question at a time, against frozen labels.

evaluate(corpus, case, run, k=2) returns six values for one question:

    precision    relevant IDs in the top k / k (fixed slots, even if fewer came back)
    recall       relevant IDs in the top k / relevant IDs
    rr           1 / rank of the first relevant ID in the top k; 0.0 if none
    support      supported claims / generated claims
    coverage     supported expected claims / expected claims
    abstention_correct   True when the answer has no claims, else False

A claim is supported only when it has a citation and *every* citation is a
labelled source of that claim within the top k (strict citations);
explain() names the rule each unsupported claim breaks.
A value that does not apply is None, shown as n/a and never counted as 0:
retrieval and coverage on an unanswerable question (no relevant documents),
support on an empty answer, abstention on an answerable question.

Every input is validated first. Any fault raises EvaluationError, a
ValueError whose message names the field and shows the value. Inputs are
never modified. Nothing here reads text, extracts claims or calls a model.

Then come the tools for many questions: tally_system() scores every case of
one system, and the comparison helpers give macro means (n/a skipped and
counted), pooled support and per-question changes.
"""

MAX_ID_LENGTH = 32
MAX_IDS = 100      # per tuple of IDs, corpus documents and claims in one run
MAX_K = 100
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
ID_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
ID_RULE = "IDs are 1 to 32 characters: a-z first, then a-z, 0-9 or '-'"
METRICS = ("precision", "recall", "rr", "support", "coverage", "abstention_correct")


class EvaluationError(ValueError):
    """An input breaks the contract; the message names the field and the value."""


# --- Validation -------------------------------------------------------------

def shown(value, limit=80):
    """Return repr(value), cut to `limit` characters ending in '...'."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not escape as another error
        text = "<%s with a broken repr>" % type(value).__name__
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text


def invalid(field, template, *values):
    """Return an EvaluationError 'field: template', each value shown by repr."""
    return EvaluationError(field + ": " + template % tuple(map(shown, values)))


def is_id(value):
    """True for a str of 1 to 32 characters: a-z first, then a-z, 0-9 or '-'."""
    # Exact types only: a str subclass is not a str here.
    return (type(value) is str and 0 < len(value) <= MAX_ID_LENGTH
            and value[0] in LETTERS and ID_CHARACTERS.issuperset(value))


def check_ids(value, field, known=()):
    """Check that value is a tuple of at most 100 distinct IDs (maybe empty).

    Keys of `known`, such as the corpus's, were checked before: each ID is
    checked once.
    """
    if type(value) is not tuple:
        raise invalid(field, "expected a tuple, got %s", value)
    if len(value) > MAX_IDS:
        raise invalid(field, "expected at most %s IDs, got %s: %s",
                      MAX_IDS, len(value), value)
    for item in value:
        if not ((type(item) is str and item in known) or is_id(item)):
            raise invalid(field, "invalid ID %s (" + ID_RULE + ")", item)
    if len(set(value)) < len(value):
        repeats = [item for index, item in enumerate(value) if item in value[:index]]
        raise invalid(field, "repeated ID %s", repeats[0])


def check_documents(ids, corpus, field):
    """Check that ids is a tuple of distinct IDs, each naming a corpus document."""
    check_ids(ids, field, corpus)
    for doc_id in ids:
        if doc_id not in corpus:
            raise invalid(field, "unknown document %s", doc_id)


def required(mapping, name, key):
    """Return mapping[key], or raise naming the field name["key"]."""
    if key not in mapping:
        raise invalid('%s["%s"]' % (name, key), "missing from %s", mapping)
    return mapping[key]


def check_corpus(corpus):
    """Check that corpus maps 1 to 100 IDs to texts that are not blank."""
    if type(corpus) is not dict:
        raise invalid("corpus", "expected a dict, got %s", corpus)
    if not corpus:
        raise invalid("corpus", "expected at least one document, got %s", corpus)
    check_ids(tuple(corpus), "corpus")
    for doc_id, text in corpus.items():
        # Text is checked for shape only: nothing here reads what it says.
        if type(text) is not str or not text.strip():
            raise invalid("corpus[%s]" % shown(doc_id),
                          "expected text with a non-whitespace character, got %s", text)


def checked_case(case, corpus):
    """Return (relevant, support) of a valid case; other keys are ignored."""
    if type(case) is not dict:
        raise invalid("case", "expected a dict, got %s", case)
    relevant = required(case, "case", "relevant")
    check_documents(relevant, corpus, 'case["relevant"]')
    support = required(case, "case", "support")
    if type(support) is not dict:
        raise invalid('case["support"]', "expected a dict, got %s", support)
    check_ids(tuple(support), 'case["support"]')
    permitted = set(relevant)
    for claim_id, sources in support.items():
        field = 'case["support"][%r]' % (claim_id,)  # a valid ID by now: short
        check_ids(sources, field, permitted)
        if not sources:
            raise invalid(field, "expected at least one source, got %s", sources)
        for source in sources:
            if source not in permitted:
                raise invalid(field, 'source %s is not in case["relevant"]', source)
    # Sources lie within `relevant`, so expected claims imply relevant
    # documents. The converse is checked here: relevant documents and no
    # expected claims. Both empty is an unanswerable question.
    if relevant and not support:
        raise invalid('case["support"]', 'expected claims for case["relevant"] %s, got %s',
                      relevant, support)
    return relevant, support


def check_claims(claims, corpus):
    """Check that claims is a tuple of at most 100 (claim ID, citations) pairs."""
    if type(claims) is not tuple:
        raise invalid('run["claims"]', "expected a tuple, got %s", claims)
    if len(claims) > MAX_IDS:
        raise invalid('run["claims"]', "expected at most %s claims, got %s: %s",
                      MAX_IDS, len(claims), claims)
    seen = set()
    for index, pair in enumerate(claims):
        if type(pair) is not tuple or len(pair) != 2:
            raise invalid('run["claims"][%d]' % index,
                          "expected a (claim ID, citations) pair, got %s", pair)
        claim_id, citations = pair
        if not is_id(claim_id):
            raise invalid('run["claims"][%d]' % index,
                          "invalid claim ID %s (" + ID_RULE + ")", claim_id)
        if claim_id in seen:
            raise invalid('run["claims"][%d]' % index, "repeated claim ID %s", claim_id)
        seen.add(claim_id)
        # Citations may be empty or name documents outside the corpus: such
        # a claim is scored as unsupported, not rejected.
        check_ids(citations, 'run["claims"][%d][1]' % index, corpus)


def checked_run(run, corpus):
    """Return (retrieved, claims) of a valid run; other keys are ignored."""
    if type(run) is not dict:
        raise invalid("run", "expected a dict, got %s", run)
    retrieved = required(run, "run", "retrieved")
    check_documents(retrieved, corpus, 'run["retrieved"]')
    claims = required(run, "run", "claims")
    check_claims(claims, corpus)
    return retrieved, claims


def check_k(k):
    """Check that the cutoff k is an int from 1 to 100."""
    # True is an int to Python, but it is not a cutoff.
    if type(k) is not int or not 1 <= k <= MAX_K:
        raise invalid("k", "expected an int from 1 to %s, got %s", MAX_K, k)


def validate(corpus, case, run, k):
    """Check every input rule; return (relevant, support, retrieved, claims)."""
    check_corpus(corpus)
    relevant, support = checked_case(case, corpus)
    retrieved, claims = checked_run(run, corpus)
    check_k(k)
    return relevant, support, retrieved, claims


# --- Scoring one question ---------------------------------------------------

def unsupported_because(claim_id, citations, support, visible, corpus):
    """Return the first rule a claim breaks, or None when it is supported."""
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
        if cited not in support[claim_id]:
            return "not a labelled source"  # a real document, but it does not back this claim
    for cited in citations:
        if cited not in visible:
            return "outside the top k"  # a labelled source the system did not show
    return None


def claim_reasons(corpus, support, retrieved, claims, k):
    """Return a list of (claim ID, reason) in answer order; reason None is supported."""
    visible = set(retrieved[:k])
    return [(claim_id, unsupported_because(claim_id, citations, support, visible, corpus))
            for claim_id, citations in claims]


TALLY_KEYS = ("relevant", "k", "hits", "first_hit", "generated", "supported", "expected")


def tally(corpus, case, run, *, k=2):
    """Return the counts behind every metric of one question, after validation.

    relevant    documents labelled relevant
    k           slots in the top k
    hits        relevant documents in the top k
    first_hit   rank of the first of them, or None
    generated   claims in the answer
    supported   generated claims that are supported
    expected    claims labelled for the question
    """
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    permitted = set(relevant)
    hit_ranks = [rank for rank, doc_id in enumerate(retrieved[:k], start=1)
                 if doc_id in permitted]
    reasons = claim_reasons(corpus, support, retrieved, claims, k)
    supported = [claim_id for claim_id, reason in reasons if reason is None]
    return {
        "relevant": len(relevant),
        "k": k,
        "hits": len(hit_ranks),
        "first_hit": hit_ranks[0] if hit_ranks else None,
        "generated": len(claims),
        "supported": len(supported),
        "expected": len(support),
    }


def reciprocal_rank(first_hit):
    """Return 1 / rank of the first hit, or 0.0 when the top k holds none."""
    if first_hit is None:
        return 0.0  # nothing relevant in view: the lowest score, not n/a
    return 1 / first_hit


def scores(counts):
    """Return the six metrics of one question from its tally; None is n/a."""
    # n/a is never 0: a metric with no denominator to speak of is None.
    answerable = counts["relevant"] > 0
    answered = counts["generated"] > 0
    return {
        # Fixed slots: the denominator is k even when fewer documents came back.
        "precision": counts["hits"] / counts["k"] if answerable else None,
        "recall": counts["hits"] / counts["relevant"] if answerable else None,
        "rr": reciprocal_rank(counts["first_hit"]) if answerable else None,
        "support": counts["supported"] / counts["generated"] if answered else None,
        # A supported claim always has a label and claim IDs are unique, so
        # the supported generated claims are exactly the expected ones covered.
        "coverage": counts["supported"] / counts["expected"] if answerable else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": None if answerable else not answered,
    }


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs and return its six metrics in order."""
    return scores(tally(corpus, case, run, k=k))


def explain(corpus, case, run, *, k=2):
    """Validate like evaluate(); return why each claim is unsupported, and what is uncovered.

    claims      (claim ID, reason) for every claim, in answer order. reason is
                None for a supported claim, else the first rule it breaks:
                "no citation", "no label" (the claim ID has no support label),
                "not in the corpus", "not a labelled source", "outside the top k".
    uncovered   expected claim IDs, in label order, that no supported claim covers.
    """
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    reasons = claim_reasons(corpus, support, retrieved, claims, k)
    supported = {claim_id for claim_id, reason in reasons if reason is None}
    uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)
    return {"claims": tuple(reasons), "uncovered": uncovered}


# --- Many questions ---------------------------------------------------------

def tally_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: tally} for one system, in the order of cases.

    runs maps each case name to its runs by system name. An error about a
    run starts with the case and the system it belongs to.
    """
    if type(cases) is not dict:
        raise invalid("cases", "expected a dict, got %s", cases)
    if type(runs) is not dict:
        raise invalid("runs", "expected a dict, got %s", runs)
    if type(system) is not str:
        raise invalid("system", "expected a str, got %s", system)
    for name in runs:
        if name not in cases:
            raise invalid("runs", "no case named %s", name)
    tallies = {}
    for name, case in cases.items():
        where = "case %s, system %s: " % (shown(name), shown(system))
        if name not in runs:
            raise EvaluationError(where + "missing from runs")
        if type(runs[name]) is not dict:
            raise invalid(where + "runs[%s]" % shown(name), "expected a dict, got %s", runs[name])
        if system not in runs[name]:
            raise EvaluationError(where + "missing from runs[%s]" % shown(name))
        try:
            tallies[name] = tally(corpus, case, runs[name][system], k=k)
        except EvaluationError as error:
            raise EvaluationError(where + str(error)) from None
    return tallies


# --- Comparing systems ------------------------------------------------------
# For any cases and systems, once tally() has validated and counted them:
# slices() takes tallies keyed by question name; the others take the values,
# tallies or scores of the questions to aggregate or compare.

VERDICTS = ("improved", "regressed", "mixed", "unchanged")


def cell(value):
    """Return a value as a report shows it: two decimals, None as n/a, yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def slices(tallies):
    """Return the question names of the answerable and the unanswerable slice."""
    # A question is answerable when it has labelled relevant documents.
    return {
        "answerable": [name for name, counts in tallies.items() if counts["relevant"]],
        "unanswerable": [name for name, counts in tallies.items() if not counts["relevant"]],
    }


def macro_mean(values):
    """Return (mean, averaged, total): each question weighs the same, n/a is skipped.

    n/a values are counted out of `total`, never averaged in as 0; with no
    value left the mean itself is None.
    """
    values = list(values)
    present = [value for value in values if value is not None]
    mean = sum(present) / len(present) if present else None
    return mean, len(present), len(values)


def pooled_support(tallies):
    """Return (supported, generated, ratio) summed over questions; ratio None without claims."""
    tallies = list(tallies)
    supported = sum(counts["supported"] for counts in tallies)
    generated = sum(counts["generated"] for counts in tallies)
    return supported, generated, supported / generated if generated else None


def correct_abstentions(tallies):
    """Return (correct, unanswerable): how many unanswerable questions got no claims."""
    unanswerable = [counts for counts in tallies if not counts["relevant"]]
    correct = [counts for counts in unanswerable if not counts["generated"]]
    return len(correct), len(unanswerable)


def change(before, after):
    """Return 'better', 'worse' or 'equal'; None (not judged) if either side is n/a."""
    if before is None or after is None:
        return None  # n/a is not comparable: shown, never judged
    # Higher is better; for abstention, yes (True) is above no (False).
    if after > before:
        return "better"
    if after < before:
        return "worse"
    return "equal"


def verdict(before, after):
    """Return one question's verdict from its scores before and after (A, then B)."""
    changes = [change(before[metric], after[metric]) for metric in METRICS]
    better, worse = "better" in changes, "worse" in changes
    if better and worse:
        return "mixed"
    if better:
        return "improved"
    if worse:
        return "regressed"
    return "unchanged"


def verdict_totals(verdicts):
    """Return how many questions got each verdict, in VERDICTS order."""
    verdicts = list(verdicts)
    return {name: verdicts.count(name) for name in VERDICTS}

