"""Score recorded RAG outputs, one question at a time, against frozen labels.

evaluate(corpus, case, run, *, k=2) returns six values for one question:

    precision    relevant IDs in the top k / k (fixed slots, even if fewer came back)
    recall       relevant IDs in the top k / relevant IDs
    rr           1 / rank of the first relevant ID in the top k; 0.0 if none
    support      supported claims / generated claims
    coverage     supported expected claims / expected claims
    abstention_correct   True when the answer has no claims, False when it has some

A claim is supported only when it has a citation and *every* citation is a
labelled source of that claim within the top k (strict citations); a claim
labelled with several sources may cite any of them. explain() names the
first rule each unsupported claim breaks.
A value that does not apply is None, shown as n/a and never counted as 0:
retrieval and coverage on an unanswerable question (no relevant documents),
support on an empty answer, abstention_correct on an answerable question.

Labels may record where reviewers disagreed. A case's "disputed" labels are
sources that one reviewer accepted and another did not; its "rejected"
claims were examined and found unsupported by every document. The six values
read "support" alone (the strict reading). lenient(case) returns a new case
with its disputed labels counted as support (the lenient reading), to be
scored the same way; explain() says where a claim's reason depends on them.

A case may list "restricted" documents that its asker may not see. A run
discloses one when it is in the top k or cited. tally() counts disclosures
and explain() names them; they never change the six values, and no
acceptance policy can excuse them.

Every input is validated first. Any fault raises EvaluationError, a
ValueError whose message names the field and shows the value. Inputs are
never modified. Nothing here reads text, extracts claims or calls a model.
counted(), explained() and judged() take inputs already checked, and so
spare checking them twice; their public twins tally(), explain() and
check_policy() check them first.

The contract of one question ends at the line "END OF THE CONTRACT OF ONE
QUESTION": a reader who stops there knows every scoring rule. After it
come the tools for many questions: tally_system() and explain_system()
score every case of one system, the comparison helpers give macro means
(n/a skipped and counted), pooled support and per-question changes,
check_policy() decides by rules declared in advance, paired_test() says how
much a few questions can show, and report() gathers it all for demo.py.
"""

MAX_ID_LENGTH = 32
MAX_IDS = 100      # per tuple of IDs, corpus documents and claims in one run
MAX_DOCUMENTS = 10 ** 6  # corpus documents when many questions share one corpus
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
    text = repr_start(value, limit + 1)
    return text if len(text) <= limit else text[:limit - 3] + "..."


BRACKETS = {tuple: ("(", ")"), list: ("[", "]"), dict: ("{", "}"), set: ("{", "}"),
            frozenset: ("frozenset({", "})")}


def repr_start(value, room):
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
    if kind in BRACKETS and value:
        opening, closing = BRACKETS[kind]
        if kind is dict:
            items = ("%s: %s" % (repr_start(key, room - 1), repr_start(item, room - 1))
                     for key, item in value.items())
        else:
            items = (repr_start(item, room - 1) for item in value)
        parts, length = [], len(opening)
        for part in items:
            parts.append(part)
            length += len(part) + 2
            if length > room:  # enough to fill the room: the rest is never read
                break
        comma = "," if kind is tuple and len(value) == 1 else ""
        return opening + ", ".join(parts) + comma + closing
    try:
        return repr(value)
    except Exception:  # a broken __repr__ must not escape as another error
        return "<%s with a broken repr>" % kind.__name__


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


def check_corpus(corpus, limit=MAX_IDS):
    """Check that corpus maps 1 to `limit` IDs to texts that are not blank."""
    if type(corpus) is not dict:
        raise invalid("corpus", "expected a dict, got %s", corpus)
    if not corpus:
        raise invalid("corpus", "expected at least one document, got %s", corpus)
    if len(corpus) > limit:
        raise invalid("corpus", "expected at most %s IDs, got %s: %s",
                      limit, len(corpus), tuple(corpus))
    for doc_id, text in corpus.items():
        if not is_id(doc_id):
            raise invalid("corpus", "invalid ID %s (" + ID_RULE + ")", doc_id)
        # Text is checked for shape only: nothing here reads what it says.
        if type(text) is not str or not text.strip():
            raise invalid("corpus[%s]" % shown(doc_id),
                          "expected text with a non-whitespace character, got %s", text)


def checked_case(case, corpus):
    """Return (relevant, support) of a valid case; keys the contract does not name are ignored."""
    if type(case) is not dict:
        raise invalid("case", "expected a dict, got %s", case)
    relevant = required(case, "case", "relevant")
    check_documents(relevant, corpus, 'case["relevant"]')
    support = checked_labels(case, relevant)
    check_restricted(case.get("restricted", ()), relevant, corpus)
    return relevant, support


def checked_labels(case, relevant):
    """Return a case's support labels, once they and its disputed labels are checked
    against its relevant documents, and its rejected claims against both."""
    permitted = set(relevant)
    support = required(case, "case", "support")
    check_sources(support, 'case["support"]', permitted)
    # Sources lie within `relevant`, so expected claims imply relevant
    # documents. The converse is checked here: relevant documents and no
    # expected claims. Both empty is an unanswerable question.
    if relevant and not support:
        raise invalid('case["support"]', 'expected claims for case["relevant"] %s, got %s',
                      relevant, support)
    if "disputed" in case or "rejected" in case:  # most cases: every label agreed
        check_disagreement(case, support, permitted)
    return support


def check_disagreement(case, support, relevant):
    """Check a case's disputed labels against its relevant documents and its support,
    and its rejected claims against both."""
    disputed = case.get("disputed", {})
    check_sources(disputed, 'case["disputed"]', relevant)
    for claim_id, sources in disputed.items():
        for source in sources:
            if source in support.get(claim_id, ()):  # a label is agreed or disputed, not both
                raise invalid('case["disputed"][%r]' % (claim_id,),
                              'source %s is also in case["support"]', source)
    labelled = set(support) | set(disputed)
    if len(labelled) > MAX_IDS:  # the lenient reading's expected claims
        raise invalid('case["disputed"]', "expected at most %s claims in support and disputed "
                      "together, got %s", MAX_IDS, len(labelled))
    rejected = case.get("rejected", ())
    check_ids(rejected, 'case["rejected"]')
    for claim_id in rejected:
        if claim_id in labelled:  # found unsupported by every document: it has no source
            raise invalid('case["rejected"]', 'claim %s has sources in case["support"] or '
                          'case["disputed"]', claim_id)


def check_sources(labels, field, relevant):
    """Check that labels maps at most 100 claim IDs to non-empty tuples of relevant documents."""
    if type(labels) is not dict:
        raise invalid(field, "expected a dict, got %s", labels)
    check_ids(tuple(labels), field)
    for claim_id, sources in labels.items():
        where = '%s[%r]' % (field, claim_id)  # a valid ID by now: short
        check_ids(sources, where, relevant)
        if not sources:
            raise invalid(where, "expected at least one source, got %s", sources)
        for source in sources:
            if source not in relevant:
                raise invalid(where, 'source %s is not in case["relevant"]', source)


def check_restricted(restricted, relevant, corpus):
    """Check that restricted is a tuple of distinct corpus documents, none of them relevant."""
    check_documents(restricted, corpus, 'case["restricted"]')
    for doc_id in restricted:
        # A document the asker may not see cannot be evidence for them.
        if doc_id in relevant:
            raise invalid('case["restricted"]', 'document %s is in case["relevant"]', doc_id)


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
        # a claim is valid input, scored as unsupported.
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


def lenient(case):
    """Return a new case whose support also holds every disputed label: the lenient reading.

    A claim labelled only in "disputed" becomes an expected claim. The labels
    are checked here against the case's relevant documents; scoring the new
    case checks the rest. The input is never modified.
    """
    if type(case) is not dict:
        raise invalid("case", "expected a dict, got %s", case)
    relevant = required(case, "case", "relevant")
    check_ids(relevant, 'case["relevant"]')
    support = dict(checked_labels(case, relevant))
    for claim_id, sources in case.get("disputed", {}).items():
        support[claim_id] = support.get(claim_id, ()) + sources
    reading = {key: value for key, value in case.items() if key != "disputed"}
    reading["support"] = support
    return reading


# --- Scoring one question ---------------------------------------------------
# In the order of the contract: retrieval, the ratios, claims, disclosures,
# then the whole question.

def hit_ranks(relevant, retrieved, k):
    """Return a list of the ranks of the relevant documents in the top k, counting from 1."""
    permitted = set(relevant)
    # Only the top k count: a relevant document ranked k + 1 is no hit.
    return [rank for rank, doc_id in enumerate(retrieved[:k], start=1) if doc_id in permitted]


def reciprocal_rank(first_hit):
    """Return 1 / rank of the first hit, or 0.0 when the top k holds none."""
    if first_hit is None:
        return 0.0  # nothing relevant in view: the lowest score, not n/a
    return 1 / first_hit


# A tally holds the counts behind the six values of one question, and its
# disclosures; tally() says what each count is.
TALLY_KEYS = ("relevant", "k", "hits", "first_hit", "generated", "supported", "expected",
              "disclosed")


def scores(counts):
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
        "rr": reciprocal_rank(counts["first_hit"]) if answerable else None,
        "support": counts["supported"] / counts["generated"] if answered else None,
        "coverage": counts["supported"] / counts["expected"] if answerable else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": None if answerable else not answered,
    }


def unsupported_because(claim_id, citations, support, visible, corpus):
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


def claim_reasons(corpus, support, retrieved, claims, k):
    """Return a list of (claim ID, reason) in answer order; reason None is supported."""
    visible = set(retrieved[:k])  # the context the answer stage was given
    return [(claim_id, unsupported_because(claim_id, citations, support, visible, corpus))
            for claim_id, citations in claims]


def disclosed(restricted, retrieved, claims, k):
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
    return counted(corpus, case, run, k)


def counted(corpus, case, run, k):
    """Return the tally of one question whose inputs are valid."""
    relevant, support = case["relevant"], case["support"]
    retrieved, claims = run["retrieved"], run["claims"]
    ranks = hit_ranks(relevant, retrieved, k)
    reasons = claim_reasons(corpus, support, retrieved, claims, k)
    return {
        "relevant": len(relevant),
        "k": k,
        "hits": len(ranks),
        "first_hit": ranks[0] if ranks else None,
        "generated": len(claims),
        "supported": len([claim_id for claim_id, reason in reasons if reason is None]),
        "expected": len(support),
        "disclosed": len(disclosed(case.get("restricted", ()), retrieved, claims, k)),
    }


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs and return its six metrics in order."""
    return scores(tally(corpus, case, run, k=k))


def explain(corpus, case, run, *, k=2):
    """Validate like evaluate(); return why each claim is unsupported, what is uncovered,
    and what was disclosed.

    claims      a tuple of (claim ID, reason) for every claim, in answer order.
                reason is None for a supported claim, else the first rule it
                breaks (see unsupported_because()): "no citation", "no label"
                (nobody labelled the claim ID), "not in the corpus", "not a
                labelled source", "outside the top k". Where reviewers left a
                record, reviewed() tells it apart: a claim the lenient reading
                supports reads "only a disputed label supports it"; a claim
                with no label reads "judged unsupported" when it is in
                case["rejected"], and the lenient reading's reason when only
                a disputed label names it.
    uncovered   expected claim IDs, in label order, that no supported claim covers.
    disclosed   restricted documents in the top k or cited, in the order of
                case["restricted"].
    """
    validate(corpus, case, run, k)
    return explained(corpus, case, run, k)


def explained(corpus, case, run, k):
    """Return explain()'s result for one question whose inputs are valid, its reasons
    passed through reviewed()."""
    support, retrieved, claims = case["support"], run["retrieved"], run["claims"]
    reasons = claim_reasons(corpus, support, retrieved, claims, k)
    supported = {claim_id for claim_id, reason in reasons if reason is None}
    uncovered = tuple(claim_id for claim_id in support if claim_id not in supported)
    return {"claims": tuple(reviewed(reasons, corpus, case, run, k)), "uncovered": uncovered,
            "disclosed": disclosed(case.get("restricted", ()), retrieved, claims, k)}


def reviewed(reasons, corpus, case, run, k):
    """Return the strict reasons, each told apart by what reviewers recorded."""
    if "disputed" not in case and "rejected" not in case:
        return reasons  # no record of a review: the strict reasons say it all
    loose = claim_reasons(corpus, lenient(case)["support"], run["retrieved"], run["claims"], k)
    return [(claim_id, told_apart(claim_id, strict, lenient_reason, case.get("rejected", ())))
            for (claim_id, strict), (_, lenient_reason) in zip(reasons, loose)]


def told_apart(claim_id, strict, loose, rejected):
    """Return the reason explain() gives a claim, from its reasons in the two readings."""
    if strict is not None and loose is None:
        return "only a disputed label supports it"
    if strict == "no label":
        # No agreed label: reviewers rejected the claim, disputed it, or never saw it.
        return "judged unsupported" if claim_id in rejected else loose
    return strict


# ============================================================================
# END OF THE CONTRACT OF ONE QUESTION. Every scoring rule is above this line.
# What follows applies the same rules to many questions and compares systems.
# ============================================================================

# --- Many questions ---------------------------------------------------------

MAX_NAME_LENGTH = 64
NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"


def check_name(value, field):
    """Check that a case or system name is 1 to 64 printable ASCII characters, no spaces.

    Names head the rows of every report, so they must print the same on any
    terminal and leave a row's words unambiguous.
    """
    if not (type(value) is str and 0 < len(value) <= MAX_NAME_LENGTH and value.isascii()
            and value.isprintable() and " " not in value):
        raise invalid(field, "invalid name %s (" + NAME_RULE + ")", value)


def checked_questions(corpus, cases, runs, system, k):
    """Validate every case and its run of one system; return [(name, case, run)].

    The corpus is checked once, and may hold up to a million documents. A
    fault is reported where it is: in the corpus, in a case (named), or in
    the run of a case by a system (both named).
    """
    return checked_systems(corpus, cases, runs, (system,), k)[system]


def checked_systems(corpus, cases, runs, systems, k):
    """Validate every case, and its run by each system; return {system: [(name, case, run)]}.

    Each part is checked once, however many systems share it.
    """
    check_corpus(corpus, MAX_DOCUMENTS)
    check_k(k)
    if type(cases) is not dict:
        raise invalid("cases", "expected a dict, got %s", cases)
    if type(runs) is not dict:
        raise invalid("runs", "expected a dict, got %s", runs)
    for system in systems:
        check_name(system, "system")
    for name in runs:
        if name not in cases:
            raise invalid("runs", "no case named %s", name)
    questions = {system: [] for system in systems}
    for name, case in cases.items():
        check_name(name, "cases")
        try:
            checked_case(case, corpus)
        except EvaluationError as error:
            raise EvaluationError("case %s: %s" % (shown(name), error)) from None
        for system in systems:
            try:
                questions[system].append((name, case, checked_run_of(runs, name, system,
                                                                     corpus)))
            except EvaluationError as error:
                where = "case %s, system %s: " % (shown(name), shown(system))
                raise EvaluationError(where + str(error)) from None
    return questions


def checked_run_of(runs, name, system, corpus):
    """Return runs[name][system] once it is checked."""
    if name not in runs:
        raise EvaluationError("missing from runs")
    if type(runs[name]) is not dict:
        raise invalid("runs[%s]" % shown(name), "expected a dict, got %s", runs[name])
    if system not in runs[name]:
        raise EvaluationError("missing from runs[%s]" % shown(name))
    checked_run(runs[name][system], corpus)
    return runs[name][system]


def tally_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: tally} for one system, in the order of cases.

    runs maps each case name to its runs by system name. Each tally equals
    tally() of that question with the corpus cut down to the documents it
    names; faults are reported as checked_questions() says.
    """
    return {name: counted(corpus, case, run, k)
            for name, case, run in checked_questions(corpus, cases, runs, system, k)}


def explain_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: explain() result} for one system, in the order of cases."""
    return {name: explained(corpus, case, run, k)
            for name, case, run in checked_questions(corpus, cases, runs, system, k)}


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


def p_text(p, exact=True):
    """Return an exact p as a short fraction (1/2), else, and any sampled p, with two
    significant digits (0.091, 3.1e-05)."""
    if exact and p.denominator <= 1000:
        return str(p)
    return "%.2g" % float(p) if p > 1e-300 else "below 1e-300"


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
    from math import fsum  # rounded once, so the same on every CPython
    values = list(values)
    present = [value for value in values if value is not None]
    mean = fsum(present) / len(present) if present else None
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


# --- Deciding ---------------------------------------------------------------
# A policy is written with the labels, before any run is seen, and a system
# is accepted by it, not by whichever average looks best afterwards.
# paired_test() says how much a few questions can show at all.

POLICY_RULES = ("critical", "min_coverage", "unsupported_budget", "must_abstain", "significance")
PLANS = ("strict", "lenient", "both")  # policy["unresolved"]: the readings a decision takes
COMPARED = METRICS[:-1]  # the ratios compared between systems; abstention is counted apart
RULE_LIST = str(POLICY_RULES)  # named in full in messages, never cut
SLICES = ("answerable", "unanswerable")


def check_by_question(value, field):
    """Check that value is a dict keyed by question name."""
    if type(value) is not dict:
        raise invalid(field, "expected a dict by question name, got %s", value)


def check_tallies(tallies, field):
    """Check that tallies maps question names to results of tally()."""
    check_by_question(tallies, field)
    for name, counts in tallies.items():
        check_tally(counts, "%s[%s]" % (field, shown(name)))


def check_count(counts, field, key, low, high):
    """Check that counts[key] is an int from low to high."""
    value = counts[key]
    if type(value) is not int or not low <= value <= high:
        raise invalid('%s["%s"]' % (field, key), "expected an int from %s to %s, got %s",
                      low, high, value)


def check_tally(counts, field):
    """Check that counts could have come from tally(): its keys, each count within bounds."""
    if type(counts) is not dict or tuple(counts) != TALLY_KEYS:
        raise invalid(field, "expected a tally, got %s", counts)
    check_count(counts, field, "k", 1, MAX_K)
    for key in ("relevant", "generated", "disclosed"):
        check_count(counts, field, key, 0, MAX_IDS)
    answerable = counts["relevant"] > 0  # then claims are expected; else none are
    check_count(counts, field, "expected", int(answerable), MAX_IDS if answerable else 0)
    check_count(counts, field, "hits", 0, min(counts["k"], counts["relevant"]))
    check_count(counts, field, "supported", 0, min(counts["generated"], counts["expected"]))
    if counts["hits"] == 0:
        if counts["first_hit"] is not None:
            raise invalid('%s["first_hit"]' % field, "expected None with no hits, got %s",
                          counts["first_hit"])
    else:  # the first of `hits` ranks within the top k
        check_count(counts, field, "first_hit", 1, counts["k"] - counts["hits"] + 1)


def check_same_questions(first, first_field, second, second_field):
    """Check that two dicts by question name have the same questions."""
    if first.keys() != second.keys():
        raise invalid(second_field, "expected the questions of " + first_field + " %s, got %s",
                      tuple(first), tuple(second))


def check_questions(names, field, answerable):
    """Check that names is a tuple of distinct question names of `answerable`."""
    if type(names) is not tuple or not names:  # a rule of no question would hold for nothing
        raise invalid(field, "expected a tuple of question names, got %s", names)
    seen = set()
    for name in names:
        if type(name) is not str or name not in answerable:
            raise invalid(field, "no question named %s", name)
        if name in seen:
            raise invalid(field, "repeated question %s", name)
        seen.add(name)


def check_policy_rules(policy, answerable):
    """Check each rule a policy has against its questions.

    answerable maps each question name to True when the question has
    relevant documents. Every rule is optional, but a policy has one at least.
    """
    if type(policy) is not dict:
        raise invalid("policy", "expected a dict, got %s", policy)
    for key in policy:
        if key not in POLICY_RULES + ("unresolved",):
            raise invalid("policy", "unknown rule %s; the rules are " + RULE_LIST, key)
    if not any(rule in policy for rule in POLICY_RULES):
        raise invalid("policy", "expected at least one of the rules " + RULE_LIST + ", got %s",
                      policy)
    if "critical" in policy:
        check_questions(policy["critical"], 'policy["critical"]', answerable)
        for name in policy["critical"]:
            # Nothing can be covered on an unanswerable question: must_abstain is its rule.
            if not answerable[name]:
                raise invalid('policy["critical"]',
                              '%s is unanswerable; list it in policy["must_abstain"]', name)
    if "min_coverage" in policy:
        if "critical" not in policy:  # a rule with no question to check would hold for nothing
            raise invalid('policy["min_coverage"]', 'applies to the questions of '
                          'policy["critical"], and the policy has none: got %s', policy)
        check_number(policy["min_coverage"], 'policy["min_coverage"]', 0, 1)
    if "unsupported_budget" in policy:
        check_budget(policy["unsupported_budget"])
    if "must_abstain" in policy:
        check_questions(policy["must_abstain"], 'policy["must_abstain"]', answerable)
        for name in policy["must_abstain"]:
            if answerable[name]:
                raise invalid('policy["must_abstain"]', "%s is answerable; only an "
                              "unanswerable question must be abstained on", name)
    if "significance" in policy:
        check_significance(policy["significance"])
    if "unresolved" in policy and policy["unresolved"] not in PLANS:
        raise invalid('policy["unresolved"]', "expected one of %s, got %s", PLANS,
                      policy["unresolved"])


def check_number(value, field, low, high, above_low=False):
    """Check that value is an int or a float from low (or above it) to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in (int, float) and (low < value if above_low else low <= value)
    if not (within and value <= high):
        raise invalid(field, "expected a number " + ("above" if above_low else "from")
                      + " %s to %s, got %s", low, high, value)


def check_budget(budget):
    """Check that an unsupported budget gives an int of at least 0 to one slice or both."""
    if type(budget) is not dict or not budget or not set(budget) <= set(SLICES):
        raise invalid('policy["unsupported_budget"]',
                      "expected a dict with one or both of the keys %s, got %s", SLICES, budget)
    for part, allowed in budget.items():
        if type(allowed) is not int or allowed < 0:
            raise invalid('policy["unsupported_budget"][%r]' % part,
                          "expected an int of at least 0, got %s", allowed)


def check_significance(significance):
    """Check that a significance rule names one compared metric and an alpha."""
    if type(significance) is not dict or set(significance) != {"metric", "alpha"}:
        raise invalid('policy["significance"]', 'expected a dict with the keys "metric" and '
                      '"alpha", got %s', significance)
    if significance["metric"] not in COMPARED:
        raise invalid('policy["significance"]["metric"]', "expected one of %s, got %s",
                      COMPARED, significance["metric"])
    check_number(significance["alpha"], 'policy["significance"]["alpha"]', 0, 0.5,
                 above_low=True)


def plural(count, noun):
    """Return '1 claim', '2 claims', '0 claims'."""
    return "%d %s%s" % (count, noun, "" if count == 1 else "s")


def critical_findings(names, candidate, baseline):
    """Return (held, finding) per critical question: nothing judged got worse."""
    findings = []
    for name in names:
        before, after = scores(baseline[name]), scores(candidate[name])
        worse = ["%s %s -> %s" % (metric, cell(before[metric]), cell(after[metric]))
                 for metric in METRICS if change(before[metric], after[metric]) == "worse"]
        detail = verdict(before, after)
        if worse:  # a 'regressed' or a 'mixed' verdict: the rule is broken
            detail += ": " + ", ".join(worse)
        findings.append((not worse, ("critical", name, detail)))
    return findings


def coverage_findings(names, minimum, candidate):
    """Return (held, finding) per critical question: its coverage reaches the minimum."""
    findings = []
    for name in names:
        counts = candidate[name]
        # Shown as the fraction it is: 2/3 falls short of 0.67, though both round to 0.67.
        detail = "coverage %d/%d, minimum %g" % (counts["supported"], counts["expected"], minimum)
        findings.append((scores(counts)["coverage"] >= minimum, ("min_coverage", name, detail)))
    return findings


def budget_findings(budget, candidate):
    """Return (held, finding) per slice of the budget: its unsupported claims stay within it."""
    findings = []
    parts = slices(candidate)
    for part in SLICES:
        if part not in budget:
            continue  # a slice the policy left out is not checked
        unsupported = sum(candidate[name]["generated"] - candidate[name]["supported"]
                          for name in parts[part])
        detail = "%s, budget %d" % (plural(unsupported, "unsupported claim"), budget[part])
        findings.append((unsupported <= budget[part], ("unsupported_budget", part, detail)))
    return findings


def abstention_findings(names, candidate):
    """Return (held, finding) per question that must be abstained on: no claims."""
    findings = []
    for name in names:
        claims = candidate[name]["generated"]
        detail = "answered with " + plural(claims, "claim") if claims else "abstained"
        findings.append((claims == 0, ("must_abstain", name, detail)))
    return findings


def significance_test(significance, candidate, baseline):
    """Return paired_test() of the declared metric from baseline to candidate, on the
    answerable slice."""
    metric, names = significance["metric"], slices(candidate)["answerable"]
    return paired_test({name: scores(baseline[name])[metric] for name in names},
                       {name: scores(candidate[name])[metric] for name in names})


def significance_findings(significance, test):
    """Return (held, finding) for the answerable slice: the declared metric's paired test
    went the candidate's way, with p below alpha."""
    # Better on average, and by more than these questions' own noise: both. p is
    # two-sided, so a false acceptance is at most alpha / 2 likely.
    held = test["mean"] is not None and test["mean"] > 0 and test["p"] < significance["alpha"]
    mean = "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
    detail = "%s mean %s (%d of %d), p = %s (%s), alpha %s" % (
        significance["metric"], mean, test["questions"], test["questions"] + test["left_out"],
        p_text(test["p"], test["method"] == "exact"), test["method"], significance["alpha"])
    return [(held, ("significance", "answerable", detail))]


def disclosure_findings(candidate):
    """Return (held, finding) per question on which the candidate disclosed anything."""
    findings = []
    for name, counts in candidate.items():
        if counts["disclosed"]:
            detail = plural(counts["disclosed"], "restricted document") + " in the top k or cited"
            findings.append((False, ("disclosure", name, detail)))
    return findings


def check_policy(policy, candidate, baseline=None):
    """Judge a candidate system by a policy declared before any run was seen.

    candidate and baseline map question names to tally() results. The policy
    is a dict of rules, each optional, one at least:

        critical            questions that must not get worse than the baseline:
                            any judged metric worse ('regressed' or 'mixed')
                            breaks it
        min_coverage        the coverage every critical question must reach
        unsupported_budget  per slice ("answerable", "unanswerable", or both),
                            the most unsupported claims (generated - supported)
                            over its questions
        must_abstain        unanswerable questions that must get no claims
        significance        {"metric": one of COMPARED, "alpha": a number above
                            0 and at most 0.5}: on the answerable slice, the
                            mean difference of that metric (candidate minus
                            baseline) must be above 0 and paired_test()'s
                            two-sided p below alpha

    critical and significance compare with a baseline: without one they are
    not checked, and are listed in "unchecked". A policy may also hold
    "unresolved" (see decision()), which judges no finding.

    Whatever the policy says, a question on which the candidate disclosed a
    restricted document is a broken "disclosure" finding: no accuracy and
    no rule can excuse showing a document to someone who may not see it.

    Returns {"accepted", "broken", "held", "unchecked", "significance"}:
    each finding is (rule, question or slice, detail); accepted is True when
    findings were judged and none is broken, False when any is broken, and
    None when no finding could be judged. significance is the paired test of
    the declared metric, or None.
    """
    check_tallies(candidate, "candidate")
    if baseline is not None:
        check_tallies(baseline, "baseline")
        check_same_questions(candidate, "candidate", baseline, "baseline")
    check_policy_rules(policy, {name: counts["relevant"] > 0 for name, counts in candidate.items()})
    return judged(policy, candidate, baseline)


def judged(policy, candidate, baseline):
    """Return check_policy()'s result for a checked policy and tallies made by tally()."""
    findings = disclosure_findings(candidate)  # not a rule of the policy: always broken
    unchecked, test = [], None
    if "critical" in policy:
        if baseline is None:
            unchecked.append("critical")
        else:
            findings += critical_findings(policy["critical"], candidate, baseline)
    if "min_coverage" in policy:
        findings += coverage_findings(policy["critical"], policy["min_coverage"], candidate)
    if "unsupported_budget" in policy:
        findings += budget_findings(policy["unsupported_budget"], candidate)
    if "must_abstain" in policy:
        findings += abstention_findings(policy["must_abstain"], candidate)
    if "significance" in policy:
        if baseline is None:
            unchecked.append("significance")
        else:
            test = significance_test(policy["significance"], candidate, baseline)
            findings += significance_findings(policy["significance"], test)
    broken = [finding for held, finding in findings if not held]
    # Nothing judged, nothing accepted: a policy that checked no rule decides nothing.
    accepted = None if not findings else not broken
    return {"accepted": accepted, "broken": broken,
            "held": [finding for held, finding in findings if held], "unchecked": unchecked,
            "significance": test}


def decision(policy, under_strict, under_lenient=None):
    """Return whether a candidate is accepted, under the policy's plan for disputed labels.

    under_strict and under_lenient are check_policy()'s results with the
    tallies of each reading; under_lenient is None when no label is
    disputed, and then the strict reading decides. policy["unresolved"]
    names the readings that must accept: "strict", "lenient", or "both"
    (the default), which accepts only what both readings accept. None when
    no rule could be judged.
    """
    plan = policy.get("unresolved", "both")
    if plan not in PLANS:
        raise invalid('policy["unresolved"]', "expected one of %s, got %s", PLANS, plan)
    if under_lenient is None:
        return under_strict["accepted"]
    taken = {"strict": [under_strict], "lenient": [under_lenient],
             "both": [under_strict, under_lenient]}[plan]
    if any(judged["accepted"] is None for judged in taken):
        return None  # nothing could be judged: nothing to accept
    return all(judged["accepted"] for judged in taken)


def disputed_labels(cases, names):
    """Return [(case, claim, sources)] of the disputed labels of the named cases, in order."""
    return [(name, claim_id, sources) for name in names
            for claim_id, sources in cases[name].get("disputed", {}).items()]


INFINITY = float("inf")
LARGEST_FLOAT = 1.7976931348623157e308
MAX_RUNS = 100                     # repeated runs of one question
MAX_DENOMINATOR = 10 ** 6          # 0.3 is read as 3/10, a third as 1/3 ...
CLOSE_ULPS = 64                    # ... and so is 1 - 2/3, a few units in the last place away
MAX_LISTED = 36                    # moved questions whose 2**m signs are listed: 2**17 sums kept
MAX_UNIT_BITS = 2200               # whole units finer than this are not counted in
MAX_COUNTING_STEPS = 22 * 10 ** 6  # about a second of exact counting on CPython 3.8
SAMPLES = 12000                    # sign flips drawn when neither fits: standard error
                                   # at p = 0.05 is (0.05 * 0.95 / 12000) ** 0.5 < 0.002
SEED = 20261202                    # the same draws on every run and every CPython


def exact(number):
    """Return the fraction a number stands for: 0.5 is 1/2, 0.3 is 3/10, 1 - 2/3 is 1/3."""
    # Imported here, not at the top: loading fractions takes longer than
    # printing the table, and only the paired test needs it.
    from fractions import Fraction
    from math import frexp
    if type(number) is int:
        return Fraction(number)
    numerator, denominator = number.as_integer_ratio()  # the float's value, exactly
    if denominator <= MAX_DENOMINATOR:
        return Fraction(numerator, denominator)  # 0.5 or 3.0: small already
    p, q = nearest_small_fraction(numerator, denominator)
    # A ratio of small counts, put through a few float operations, lands
    # within a few units in the last place of the fraction it stands for:
    # 1 - 2/3 is 0.33333333333333337, not 1/3's float, yet it means 1/3.
    # Close means |n/d - p/q| <= CLOSE_ULPS * 2**place, where 2**place is the
    # float's last place: below 1, as d is above a million. Multiplied by
    # d * q * 2**-place, both sides are whole numbers.
    place = max(frexp(number)[1] - 53, -1074)
    if abs(numerator * q - p * denominator) * 2 ** -place <= CLOSE_ULPS * denominator * q:
        return Fraction(p, q)
    return Fraction(numerator, denominator)  # no small fraction is that close: as it is


def nearest_small_fraction(n, d):
    """Return (p, q): the fraction nearest n/d whose denominator q is at most MAX_DENOMINATOR.

    d must be above MAX_DENOMINATOR. As Fraction.limit_denominator() does, in
    whole numbers and faster: follow the continued fraction of n/d until the
    next denominator would be too large; the answer is the last convergent
    p1/q1 or the semiconvergent p2/q2 past it, whichever is nearer (p1/q1 on
    a tie).
    """
    p0, q0, p1, q1 = 0, 1, 1, 0
    top, bottom = n, d
    while True:
        term = top // bottom
        if q0 + term * q1 > MAX_DENOMINATOR:
            break
        p0, q0, p1, q1 = p1, q1, p0 + term * p1, q0 + term * q1
        top, bottom = bottom, top - term * bottom
    k = (MAX_DENOMINATOR - q0) // q1
    p2, q2 = p0 + k * p1, q0 + k * q1
    # |n/d - p/q| is |n q - p d| / (d q): compare the two, both sides times d q1 q2.
    if abs(n * q1 - p1 * d) * q2 <= abs(n * q2 - p2 * d) * q1:
        return p1, q1
    return p2, q2


def question_value(value, side, name, read):
    """Return one question's value as a fraction, or None when it is n/a.

    A tuple holds up to 100 repeated runs of the same question: its value is
    their mean, n/a runs skipped, and n/a when every run is n/a. A fault names
    side[name]. read keeps the fraction of each number seen so far: values repeat.
    """
    runs = value if type(value) is tuple else (value,)
    if not runs or len(runs) > MAX_RUNS:
        raise invalid("%s[%s]" % (side, shown(name)), "expected 1 to %s runs, got %s: %s",
                      MAX_RUNS, len(runs), value)
    present = []
    for run in runs:
        if run is None:
            continue  # an n/a run is skipped, never averaged in as 0
        # An int or a float that a float can hold: NaN fails every comparison,
        # and an int such as 10**400 is beyond the largest float.
        if type(run) not in (int, float) or not -LARGEST_FLOAT <= run <= LARGEST_FLOAT:
            raise invalid("%s[%s]" % (side, shown(name)),
                          "expected a number, None or a tuple of them, got %s", value)
        if run not in read:
            read[run] = exact(run)
        present.append(read[run])
    if len(present) == 1:
        return present[0]  # one run: its own value
    return sum(present) / len(present) if present else None


def whole_units(differences, max_bits=None):
    """Return (units, denominator): each difference as a whole number of 1 / their common
    denominator; None when that denominator needs more than max_bits bits."""
    from math import gcd  # loaded by fractions already
    scale = 1
    for denominator in set(difference.denominator for difference in differences):
        scale = scale * denominator // gcd(scale, denominator)
        if max_bits is not None and scale.bit_length() > max_bits:
            return None  # so fine a unit would make every sum slow: sample on floats
    return [difference.numerator * (scale // difference.denominator)
            for difference in differences], scale


def subset_sums(sizes):
    """Return the sum of each of the 2**len(sizes) subsets of sizes."""
    sums = [0]
    for size in sizes:
        sums += [total + size for total in sums]  # each subset without, then with, size
    return sums


def listed_count(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, listing them in two halves."""
    from bisect import bisect_right
    # Meet in the middle: every subset is a subset of the first half joined
    # to one of the second. For each first-half sum, the sorted second-half
    # sums tell how many partners keep the whole within the limit. Only the
    # second half's sums are kept: the first half's are made from two
    # quarters as they are needed, so it may be the larger half.
    half = len(sizes) // 2 + 1
    second = sorted(subset_sums(sizes[half:]))
    quarters = subset_sums(sizes[:half // 2]), subset_sums(sizes[half // 2:half])
    return sum(bisect_right(second, limit - a - b) for a in quarters[0] for b in quarters[1]
               if a + b <= limit)


def counted_subsets(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, by a table of sums."""
    from operator import add
    ways = [1] + [0] * limit  # ways[s]: subsets of the sizes so far that add up to s
    for size in sizes:
        # A subset leaves this size out (ways[s]) or takes it (ways[s - size]): the
        # new ways[s] add the two, for every s from size up (the old values are read
        # before any is replaced).
        ways[size:] = list(map(add, ways[size:], ways))
    return sum(ways)


def plus_sums_by_size(sizes, draws):
    """Yield the plus part of SAMPLES random sign assignments, for sizes that repeat.

    Questions of one size are interchangeable: a draw needs only how many of
    them fall in the plus part, which is a binomial count. It is read off a
    table of the binomial's cumulative probabilities with one uniform
    number, for each size.
    """
    from bisect import bisect_right
    from collections import Counter
    tables = [(size, binomial_table(count)) for size, count in sorted(Counter(sizes).items())]
    for _ in range(SAMPLES):
        yield sum(size * bisect_right(table, draws.random()) for size, table in tables)


def binomial_table(n):
    """Return [P(K <= j) for j from 0 to n - 1], K the number of heads in n fair coin flips."""
    ways, below, outcomes, table = 1, 0, 2 ** n, []
    for heads in range(n):
        below += ways  # the outcomes with at most `heads` heads
        table.append(below / outcomes)
        ways = ways * (n - heads) // (heads + 1)  # the outcomes with one head more
    return table


def plus_sums_by_question(sizes, draws):
    """Yield the plus part of SAMPLES random sign assignments, a random bit per question."""
    from itertools import compress
    # Whole numbers whose total is below 2**53 are floats exactly, and so is
    # every partial sum: summing floats is then exact, and faster than ints.
    sizes = [float(size) for size in sizes]
    bits_of = "0%db" % len(sizes)
    zero_one = bytes.maketrans(b"01", b"\0\1")
    for _ in range(SAMPLES):
        # One random bit per question, written out as bytes 0 and 1: the
        # questions whose bit is 1 form the plus part.
        bits = format(draws.getrandbits(len(sizes)), bits_of).encode().translate(zero_one)
        yield sum(compress(sizes, bits))


def sampled_count(sizes, observed):
    """Return how many of SAMPLES random sign assignments of the float sizes give a sum at
    least `observed` from 0, drawn the same way on every run and every CPython.

    The draws add whole numbers: each size in units of 2**-52 of the total,
    so that every sum is exact, and the same on every CPython. Reading the
    sizes as floats and rounding them to units moves a sum by less than 2
    units a question: a draw that close to the observed sum counts as
    extreme, so that rounding can only raise p, never lower it.
    """
    from math import fsum
    from random import Random
    scale = 2 ** 52 / fsum(sizes)
    units = [round(size * scale) for size in sizes]
    total = sum(units)
    # A plus part at most `limit` is extreme, and so is one at least total - limit.
    limit = (total - round(observed * scale)) // 2 + 2 * len(units) + 2
    draws = Random(SEED)
    repeat = len(set(units)) * 10 <= len(units)  # ten questions or more to a size, on average
    sums = (plus_sums_by_size if repeat else plus_sums_by_question)(units, draws)
    return len([plus for plus in sums if plus <= limit or plus >= total - limit])


def sign_flip_p(differences, units):
    """Return (p, method) of the two-sided sign-flip test of non-zero differences.

    units are whole_units() of the differences, or None when their unit is too
    fine. p is exact when it fits: the share of the 2**m sign assignments
    whose sum is at least as far from 0 as the observed one. Otherwise it is
    sampled.
    """
    from fractions import Fraction
    m = len(differences)
    if units is not None:
        sizes = [abs(unit) for unit in units[0]]
        observed, total = abs(sum(units[0])), sum(sizes)
        if observed == 0:
            return Fraction(1), "exact"  # every sum is at least 0 away from 0
        # Signs split the sizes into a plus part and a minus part, and the sum
        # is plus - (total - plus). It is at least `observed` from 0 when plus
        # is at most (total - observed) / 2, or, swapping the parts, at least
        # (total + observed) / 2: as many assignments again.
        limit = (total - observed) // 2
        if m <= MAX_LISTED:  # few questions moved: list their signs, whatever the values
            return Fraction(2 * listed_count(sizes, limit), 2 ** m), "exact"
        # Many moved, in small units: count. A step adds counts of up to m bits, so
        # each thousand questions moved, begun or whole, weighs one step more.
        if m * (limit + 1) * -(-m // 1000) <= MAX_COUNTING_STEPS:
            return Fraction(2 * counted_subsets(sizes, limit), 2 ** m), "exact"
        largest = max(sizes)
        floats = [size / largest for size in sizes]  # each rounded once, none beyond 1
        observed = observed / largest
    else:
        from math import fsum
        floats = [abs(float(difference)) for difference in differences]
        observed = abs(fsum(float(difference) for difference in differences))
    # Neither fits in about a second: sample. The observed assignment counts
    # as one draw, so p is never 0.
    return Fraction(1 + sampled_count(floats, observed), 1 + SAMPLES), "sampled"


def lowest_p(moved):
    """Return the lowest p that `moved` questions can give, 2**(1 - moved): all moved one way."""
    from fractions import Fraction
    return Fraction(2, 2 ** moved) if moved else Fraction(1)


def nearest_float(fraction):
    """Return the float nearest a fraction; an infinity when it is beyond every float."""
    try:
        return float(fraction)
    except OverflowError:
        return INFINITY if fraction > 0 else -INFINITY


def mean_difference(differences, nonzero, units):
    """Return the mean of the differences as a float, None when there are none.

    Exact, rounded once, from whole units; when the unit is too fine for
    that, the mean of the differences' floats (within a few units in the
    last place).
    """
    from fractions import Fraction
    from math import fsum
    if not differences:
        return None
    if units is None:
        return fsum(float(difference) for difference in nonzero) / len(differences)
    return nearest_float(Fraction(sum(units[0]), units[1]) / len(differences))


def paired_test(before, after):
    """Compare two systems question by question with a paired sign-flip test.

    before and after map the same question names to a value, None (n/a), or
    a tuple of up to 100 values from repeated runs of that question. Repeated
    runs are averaged within their question first: the question is the unit,
    so four questions run three times are four pairs. A question with n/a on
    either side is left out and counted. Values are compared as the exact
    fractions they stand for (see exact()).

        questions, left_out    questions compared, and left out for n/a
        mean                   mean of after - before; None with no question
        wins, ties, losses     questions where after is above, equal, below
        p                      two-sided p: the share of the 2**m sign
                               assignments of the m non-zero differences whose
                               sum is at least as far from 0 as the observed one
        min_p                  the lowest p that m moved questions can give,
                               2**(1 - m): when all of them moved one way
        method                 "exact" when every assignment was counted, or
                               "sampled" when that would take too long
        samples                assignments drawn when sampled, else None
        standard_error         of a sampled p, sqrt(p (1 - p) / samples); 0.0
                               for an exact one

    p is exact when at most 36 questions moved, or when counting the sums
    of all of them takes at most 22 million steps, weighed by the thousands
    of questions moved (values in small units,
    such as ratios of small counts). Otherwise it is (1 + c) / (1 + 12000)
    from 12,000 random assignments, c of them as extreme as the observed
    one, drawn from a fixed seed: the same p on every run. p and min_p are
    Fractions, and 1 when no difference is non-zero.
    """
    from fractions import Fraction  # see exact() for why it is imported here
    check_by_question(before, "before")
    check_by_question(after, "after")
    check_same_questions(before, "before", after, "after")
    differences, left_out, read = [], 0, {}
    for name in before:
        old = question_value(before[name], "before", name, read)
        new = question_value(after[name], "after", name, read)
        if old is None or new is None:
            left_out += 1  # n/a on either side: no pair, and never a 0
        else:
            differences.append(new - old)
    nonzero = [difference for difference in differences if difference != 0]
    m = len(nonzero)
    units = whole_units(nonzero, None if m <= MAX_LISTED else MAX_UNIT_BITS)
    p, method = sign_flip_p(nonzero, units)
    sampled = method == "sampled"
    return {
        "questions": len(differences),
        "left_out": left_out,
        "mean": mean_difference(differences, nonzero, units),
        "wins": len([difference for difference in nonzero if difference > 0]),
        "ties": len(differences) - m,
        "losses": len([difference for difference in nonzero if difference < 0]),
        "p": p,
        "min_p": lowest_p(m),
        "method": method,
        "samples": SAMPLES if sampled else None,
        "standard_error": (float(p) * (1 - float(p)) / SAMPLES) ** 0.5 if sampled else 0.0,
    }


# --- One report -------------------------------------------------------------
# report() gathers, as plain data, every figure and finding demo.py prints,
# so that `demo.py --json` writes exactly what the text says. Every key is
# always there: a part that was not asked for, or does not apply, is None.

def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of a data set as plain data, in the order the README gives.

    data is what load_data() returns, or a dict of the same shape, such as
    fixtures.py's. The first system is the baseline; each other one is a
    candidate, compared with it. Every question carries each system's
    scores and counts (and those of the lenient reading, when its labels
    are disputed); explain adds explain() of each and the claims nobody has
    reviewed; summary adds the slices, the comparisons and the decisions.
    """
    data = checked_data(data)
    corpus, cases, runs, k, systems = (data[key] for key in ("corpus", "cases", "runs", "k",
                                                              "systems"))
    checked = checked_systems(corpus, cases, runs, systems, k)  # each part checked once
    tallies = {"strict": {system: {name: counted(corpus, case, run, k)
                                   for name, case, run in questions}
                          for system, questions in checked.items()}}
    disputed = [name for name, case in cases.items() if case.get("disputed")]
    if disputed:  # else the lenient reading is the strict one, and nothing is said of it
        loose = {name: lenient(cases[name]) for name in disputed}
        tallies["lenient"] = {system: {name: counted(corpus, loose[name], run, k)
                                       if name in loose else tallies["strict"][system][name]
                                       for name, case, run in questions}
                              for system, questions in checked.items()}
    scored = {reading: {system: {name: scores(counts) for name, counts in by_name.items()}
                        for system, by_name in by_system.items()}
              for reading, by_system in tallies.items()}
    if data["policy"] is not None:  # a fault in the policy is the data's, whatever is asked
        check_policy_rules(data["policy"], {name: bool(case["relevant"])
                                            for name, case in cases.items()})
    why = None
    if explain:
        why = {system: {name: explained(corpus, case, run, k) for name, case, run in questions}
               for system, questions in checked.items()}
    return {"source": source, "k": k, "systems": list(systems),
            "questions": [question_entry(name, case, systems, tallies, scored, why)
                          for name, case in cases.items()],
            "review_queue": review_queue(checked) if explain else None,
            "summary": summary_entry(data, tallies, scored, disputed, checked, source)
            if summary else None}


def question_entry(name, case, systems, tallies, scored, why):
    """Return one question's entry: each system's scores and counts, and more if asked."""
    entry = {"case": name, "answerable": bool(case["relevant"]), "systems": {}}
    for system in systems:
        loose = None
        if case.get("disputed"):
            loose = {"scores": scored["lenient"][system][name],
                     "counts": tallies["lenient"][system][name]}
        entry["systems"][system] = {"scores": scored["strict"][system][name],
                                    "counts": tallies["strict"][system][name], "lenient": loose,
                                    "explain": None if why is None else why[system][name]}
    return entry


def review_queue(checked):
    """Return the claims that nobody has labelled, rejected or disputed: the next round
    of reviewing, as (system, case, claim, the documents it cites)."""
    queue = []
    for system, questions in checked.items():
        for name, case, run in questions:
            queue += [(system, name, claim_id, citations) for claim_id, citations in run["claims"]
                      if claim_id not in case["support"] and claim_id not in case.get(
                          "disputed", ()) and claim_id not in case.get("rejected", ())]
    return queue


def summary_entry(data, tallies, scored, disputed, checked, source):
    """Return the summary: slices and their means, each comparison, disclosures, decisions."""
    systems, cases, policy = data["systems"], data["cases"], data["policy"]
    parts = slices(tallies["strict"][systems[0]])
    queue = review_queue(checked)
    return {
        "slices": parts,
        "means": slice_means(parts, tallies["strict"], scored["strict"]),
        "disputed_labels": disputed_labels(cases, disputed) if disputed else None,
        "lenient_means": slice_means(parts, tallies["lenient"], scored["lenient"])
        if disputed else None,
        "comparisons": [comparison(data, tallies, scored, candidate)
                        for candidate in systems[1:]],
        # A count says how many were disclosed; disclosed() says which: only where some were.
        "disclosures": {system: [(name, disclosed(case.get("restricted", ()), run["retrieved"],
                                                  run["claims"], data["k"]))
                                 for name, case, run in checked[system]
                                 if tallies["strict"][system][name]["disclosed"]]
                        for system in systems},
        "unreviewed": {system: len([item for item in queue if item[0] == system])
                       for system in systems},
        "policy": None if policy is None else {
            "source": source if source == "fixtures.py" else 'the "policy" of ' + source,
            "rules": policy,
            "baseline_alone": judged_by_readings(policy, tallies, systems[0], None, cases)},
    }


def slice_means(parts, tallies, scored):
    """Return, per slice and system, each ratio's macro mean, then pooled support, and for
    the unanswerable slice the correct abstentions."""
    means = {}
    for part, names in parts.items():
        values = {metric: {system: dict(zip(("mean", "averaged", "total"), macro_mean(
            by_name[name][metric] for name in names))) for system, by_name in scored.items()}
            for metric in COMPARED}
        values["pooled_support"] = {system: dict(zip(("supported", "generated", "ratio"),
                                                      pooled_support(by_name[name]
                                                                     for name in names)))
                                    for system, by_name in tallies.items()}
        values["correct_abstentions"] = None
        if part == "unanswerable":
            values["correct_abstentions"] = {system: dict(zip(("correct", "total"),
                                                              correct_abstentions(
                                                                  by_name.values())))
                                             for system, by_name in tallies.items()}
        means[part] = values
    return means


def comparison(data, tallies, scored, candidate):
    """Return the comparison of one candidate with the baseline."""
    baseline = data["systems"][0]
    before, after = scored["strict"][baseline], scored["strict"][candidate]
    changes = [change_entry(name, before[name], after[name]) for name in before]
    answerable = slices(tallies["strict"][baseline])["answerable"]
    lenient_changes = None
    if "lenient" in scored:  # the verdicts that a disputed label turns
        loose = {name: verdict(scored["lenient"][baseline][name],
                               scored["lenient"][candidate][name]) for name in before}
        lenient_changes = [(item["case"], item["verdict"], loose[item["case"]])
                           for item in changes if loose[item["case"]] != item["verdict"]]
    return {
        "baseline": baseline, "candidate": candidate,
        "manifest_changes": None if data["manifests"] is None else
        manifest_changes(data["manifests"], baseline, candidate),
        "changes": changes,
        "totals": verdict_totals(item["verdict"] for item in changes),
        "lenient_changes": lenient_changes,
        "paired_tests": {metric: paired_test({name: before[name][metric] for name in answerable},
                                             {name: after[name][metric] for name in answerable})
                         for metric in COMPARED},
        "p_floor": lowest_p(len(answerable)),  # were every answerable question to move one way
        "decision": None if data["policy"] is None else
        judged_by_readings(data["policy"], tallies, candidate, baseline, data["cases"]),
    }


def change_entry(name, before, after):
    """Return one question's verdict, with each metric whose value moved and whether that
    move was judged (n/a on either side is shown, not judged)."""
    moved = [(metric, before[metric], after[metric],
              change(before[metric], after[metric]) is not None)
             for metric in METRICS if before[metric] != after[metric]]
    return {"case": name, "verdict": verdict(before, after), "moved": moved}


def judged_by_readings(policy, tallies, candidate, baseline, cases):
    """Return the decision on a candidate (alone when baseline is None) under each reading,
    and, where the readings decide differently, the disputed labels it depends on."""
    readings = {reading: judged(policy, by_system[candidate],
                                None if baseline is None else by_system[baseline])
                for reading, by_system in tallies.items()}  # checked by report()
    strict, loose = readings["strict"], readings.get("lenient")
    depends_on = []
    if loose is not None and strict["accepted"] != loose["accepted"]:
        depends_on = disputed_labels(cases, deciding_questions(strict, loose, tallies,
                                                               [baseline, candidate]))
    return {"plan": policy.get("unresolved", "both"), "accepted": decision(policy, strict, loose),
            "strict": strict, "lenient": loose, "depends_on": depends_on}


def deciding_questions(strict, loose, tallies, systems):
    """Return, in the order of the cases, the questions whose findings the two readings
    judge differently: each one a finding names, and, for a slice's finding, each
    question of that slice whose counts differ between the readings."""
    def broken(judged):
        return {(rule, subject) for rule, subject, detail in judged["broken"]}
    differ = broken(strict) ^ broken(loose)
    names = [subject for rule, subject in differ if subject not in SLICES]
    parts = slices(tallies["strict"][systems[-1]])
    for part in SLICES:
        if any(subject == part for rule, subject in differ):
            names += [name for name in parts[part] if name not in names and any(
                tallies["strict"][system][name] != tallies["lenient"][system][name]
                for system in systems if system is not None)]
    order = list(parts["answerable"]) + list(parts["unanswerable"])
    return sorted(set(names), key=order.index)


# --- Data from a file -------------------------------------------------------
# load_data() reads a JSON file that mirrors fixtures.py, for demo.py --data
# or your own code. JSON has arrays where the contract has tuples; they are
# read as tuples at that one boundary, and everything else is checked
# exactly as above.

DATA_KEYS = ("k", "systems", "corpus", "cases", "runs", "policy", "manifests")
HELD_CONSTANT = ("corpus", "questions", "permissions", "rubric")
MAX_FILE_BYTES = 100 * 10 ** 6  # read no further: memory stays bounded, whatever the file
MAX_DEPTH = 64                  # arrays and objects within one another, on every CPython
MAX_DIGITS = 100                # in one integer: Python refuses to read ints of over 4,300


def load_data(path):
    """Return the checked parts of a JSON data file, its arrays read as tuples.

    Every fault raises EvaluationError: a path that is no path (a str,
    bytes or os.PathLike), a file that cannot be read or holds more than
    100 MB, text that is not UTF-8 or not JSON (with its line and column), a
    number JSON does not have (NaN, Infinity) or of more than 100 digits,
    nesting more than 64 deep, a key repeated in one object, and any rule of
    the contract.
    """
    import gc
    import json  # only this path reads JSON
    import os
    if not isinstance(path, (str, bytes, os.PathLike)):  # open(1) would take over standard output
        raise invalid("path", "expected the path of a file, got %s", path)
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise EvaluationError("cannot be read: %s" % (error.strerror or error)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise EvaluationError("holds more than %d bytes, the most a data file may hold"
                              % MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvaluationError("is not UTF-8 text: %s at %s"
                              % (error.reason, place(raw, error.start))) from None
    # A large file makes a million objects and no cycle among them: the
    # garbage collector would only scan them, again and again, as they come.
    gc.disable()
    try:
        data = as_tuples(json.loads(text, object_pairs_hook=one_value_per_key,
                                    parse_int=whole_number, parse_constant=no_constant))
    except RecursionError:  # nested deeper than this CPython's parser goes
        raise EvaluationError("is nested more than %d deep" % MAX_DEPTH) from None
    except json.JSONDecodeError as error:
        raise EvaluationError("is not valid JSON: %s (line %d, column %d)"
                              % (error.msg, error.lineno, error.colno)) from None
    except NotJSON as error:
        raise EvaluationError("is not valid JSON: %s (%s)"
                              % (error, place(text, first_outside_strings(text, error.pattern))))
    finally:
        gc.enable()
    return checked_data(data)


class NotJSON(Exception):
    """A number that JSON's grammar lets through but a data file may not hold."""

    def __init__(self, message, pattern):
        super().__init__(message)
        self.pattern = pattern  # how to find it again in the text


def one_value_per_key(pairs):
    """Return an object's pairs as a dict; a repeated key is a fault."""
    result = dict(pairs)
    if len(result) < len(pairs):  # JSON would keep the last one silently
        keys = [key for key, value in pairs]
        raise invalid("data", "repeated key %s in one object",
                      next(key for index, key in enumerate(keys) if key in keys[:index]))
    return result


def whole_number(text):
    """Return a JSON integer as an int, if it has at most 100 digits."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise NotJSON("an integer of more than %d digits" % MAX_DIGITS, r"-?\d{%d,}" % (MAX_DIGITS + 1))
    return int(text)


def no_constant(name):
    """Refuse NaN, Infinity and -Infinity, which Python reads but JSON does not have."""
    raise NotJSON("%s is not a JSON number" % name, "-?" + name.lstrip("-"))


def first_outside_strings(text, pattern):
    """Return where the first match of pattern outside a JSON string starts, or 0."""
    import re
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|' + pattern, text):
        if not match.group().startswith('"'):
            return match.start()
    return 0


def place(text, index):
    """Return 'line L, column C' of the character (or byte) at index."""
    newline = "\n" if type(text) is str else b"\n"
    line = text.count(newline, 0, index) + 1
    return "line %d, column %d" % (line, index - text.rfind(newline, 0, index))


def as_tuples(value, depth=0):
    """Return value with every list, at any depth, turned into a tuple."""
    if type(value) in (list, dict):
        depth += 1
        if depth > MAX_DEPTH:
            raise EvaluationError("is nested more than %d deep" % MAX_DEPTH)
    if type(value) is list:  # (a str, the commonest item, is left as it is at once)
        return tuple([item if type(item) is str else as_tuples(item, depth) for item in value])
    if type(value) is dict:
        return {key: item if type(item) is str else as_tuples(item, depth)
                for key, item in value.items()}
    return value


def checked_data(data):
    """Return a data file's parts as a dict of DATA_KEYS, after checking its shape.

    k defaults to 2; policy and manifests to None. The corpus, cases, runs
    and policy are checked when they are scored, like any other input.
    """
    if type(data) is not dict:
        raise invalid("data", "expected an object with the keys %s, got %s", DATA_KEYS, data)
    for key in data:
        if key not in DATA_KEYS:  # a misspelt "policy" must not pass unseen
            raise invalid("data", "unknown key %s; the keys are %s", key, DATA_KEYS)
    for key in ("systems", "corpus", "cases", "runs"):
        if key not in data:
            raise invalid("data", "missing the key %s", key)
    check_systems(data["systems"])
    parts = dict.fromkeys(DATA_KEYS)  # policy and manifests are None when left out
    parts["k"] = 2
    parts.update(data)
    check_k(parts["k"])
    if parts["manifests"] is not None:
        check_manifests(parts["manifests"], parts["systems"])
    return parts


def check_systems(systems):
    """Check that systems is a tuple of two or more distinct names, the baseline first."""
    if type(systems) is not tuple or len(systems) < 2:
        raise invalid("systems", "expected a tuple of two or more names, the baseline first, "
                      "got %s", systems)
    for system in systems:
        check_name(system, "systems")
    if len(set(systems)) < len(systems):
        repeats = [system for index, system in enumerate(systems) if system in systems[:index]]
        raise invalid("systems", "repeated name %s", repeats[0])


def check_manifests(manifests, systems):
    """Check that manifests gives each system an object of strings, and that the fields
    in HELD_CONSTANT are the same for all (a field left out is None).

    A comparison between runs on another corpus, other questions, other
    permissions or another rubric is not a comparison of the systems.
    """
    if type(manifests) is not dict or set(manifests) != set(systems):
        raise invalid("manifests", "expected an object with the keys %s, got %s",
                      systems, manifests)
    for system in systems:
        field = "manifests[%s]" % shown(system)
        if type(manifests[system]) is not dict:
            raise invalid(field, "expected an object of strings, got %s", manifests[system])
        for key, value in manifests[system].items():
            check_name(key, field)  # printed as it is, so it follows the rule of names
            if type(value) is not str:
                raise invalid("%s[%s]" % (field, shown(key)), "expected a string, got %s", value)
    baseline = systems[0]
    for system in systems[1:]:
        for field in HELD_CONSTANT:
            if manifests[baseline].get(field) != manifests[system].get(field):
                raise invalid("manifests", '"' + field + '" must be the same for every system, '
                              "got %s for %s and %s for %s", manifests[baseline].get(field),
                              baseline, manifests[system].get(field), system)


def manifest_changes(manifests, baseline, candidate):
    """Return [(field, before, after)] of what changed from the baseline's checked manifest
    to the candidate's; a field one of them leaves out is None."""
    before, after = manifests[baseline], manifests[candidate]
    fields = list(before) + [field for field in after if field not in before]
    return [(field, before.get(field), after.get(field)) for field in fields
            if field not in HELD_CONSTANT and before.get(field) != after.get(field)]
