"""Score recorded RAG outputs, one question at a time, against frozen labels.

evaluate(corpus, case, run, *, k=2) returns a dict of six values for one question:

    precision    relevant IDs in the top k / k (fixed slots, even if fewer came back)
    recall       relevant IDs in the top k / relevant IDs
    rr           1 / rank of the first relevant ID in the top k; 0.0 if none
    support      supported claims / generated claims
    coverage     supported expected claims / expected claims
    abstention_correct   True when the answer has no claims, False when it has some

A claim is supported only when it has a citation and *every* citation is a
labelled source of that claim within the top k (strict citations). A value
that does not apply is None, shown as n/a and never counted as 0: retrieval
and coverage with no relevant document, support with no claim, abstention on
an answerable question, every answer value when no answer is made or nothing
judges it, coverage and abstention when case["support"] is None (none expected).

Every input is validated first. A fault raises EvaluationError, a ValueError
whose message starts with the field at fault and shows the value. Inputs are
never modified. Nothing here reads text, extracts claims or calls a model.

Each section below uses only itself and what is above it: faults, shapes, the
contract of one question (START to END), many questions, graded relevance, the
scored table, the paired test, comparing, deciding, one report, data from a file.
"""

__all__ = ["EvaluationError", "validate", "lenient", "tally", "evaluate", "explain",
           "ndcg", "tally_system", "explain_system", "paired_test", "cell", "p_text",
           "report", "load_data"]

_MAX_IDS = 100            # IDs in one tuple, claims in one run, documents in one question's corpus
_MAX_DOCUMENTS = 10 ** 6  # documents in a corpus that many questions share
_MAX_K = 100
_MAX_TAGS = 20
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_ID_CHARACTERS = _LETTERS | frozenset("0123456789-")
_ID_RULE = "IDs are 1 to 32 characters: a-z first, then a-z, 0-9 or '-'"
_NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"


class EvaluationError(ValueError):
    """An input breaks the contract; the message names the field and shows the value."""


# --- Helpers for faults: a value shown, a typo named ----------------------------

def _invalid(field, template, *values):
    """Return an EvaluationError 'field: template', each value shown by _shown()."""
    return EvaluationError(field + ": " + template % tuple(map(_shown, values)))


def _shown(value):
    """Return ascii(value), cut to 80 characters ending in '...': a look-alike letter or a
    newline cannot pass for another, and a message stays one line."""
    if type(value) is int and value.bit_length() > 10000:  # too long to print at all
        return "<int of %d bits>" % value.bit_length()
    try:
        text = ascii(value)
    except Exception:  # a broken __repr__ must not escape as another error
        return "<%s with a broken repr>" % type(value).__name__
    text = text.replace("\n", "\\n").replace("\r", "\\r")  # as a repr of our own may hold
    return text if len(text) <= 80 else text[:77] + "..."


def _check_keys(mapping, field, known=()):
    """Check that every key of a dict is an exact str, before any key is looked up in it (a
    str subclass could compare equal to another key, or raise when compared), and that
    none that `known` lacks is a typo of one it has: the same but for case, or one or two
    letters added, left out or changed."""
    for key in mapping:
        if type(key) is not str:
            raise _invalid(field, "expected keys that are str, got %s", key)
        if known and key not in known and key.isascii() and key.isprintable():
            word = key.lower()
            letters = set(word)  # a typo adds or drops at most four letters of the set it uses
            typo_of = next((target for target in known if abs(len(target) - len(word)) <= 2
                            and len(letters ^ set(target)) <= 4 and _edits(word, target) <= 2),
                           None)
            if typo_of:
                raise _invalid('%s["%s"]' % (field, key), "unknown key; did you mean %s?",
                               typo_of)


def _edits(word, target):
    """Return how many letters to add, leave out or change to turn word into target."""
    row = list(range(len(target) + 1))  # edits from the start of word to each of target's
    for i, letter in enumerate(word, start=1):
        previous, row[0] = row[0], i
        for j, wanted in enumerate(target, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (letter != wanted))
    return row[-1]


# --- The shapes of the inputs ---------------------------------------------------
# Each checker takes (value, field, the fields of the dict checked so far, corpus)
# and raises at the first fault. A corpus of None checks documents as IDs alone.

def _is_id(value):
    """True for a str of 1 to 32 characters: a-z first, then a-z, 0-9 or '-'."""
    # Exact types only: a str subclass is not a str here.
    return (type(value) is str and 0 < len(value) <= 32 and value[0] in _LETTERS
            and _ID_CHARACTERS.issuperset(value))


def _check_ids(value, field, fields=None, corpus=None, known=()):
    """Check "ids": a tuple of at most 100 distinct IDs, maybe empty. IDs in `known` were
    checked before, once."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    if len(value) > _MAX_IDS:
        raise _invalid(field, "expected at most %s IDs, got %s: %s", _MAX_IDS, len(value), value)
    for item in value:
        if not ((type(item) is str and item in known) or _is_id(item)):
            raise _invalid(field, "invalid ID %s (" + _ID_RULE + ")", item)
    if len(set(value)) < len(value):
        raise _invalid(field, "repeated ID %s", next(
            item for index, item in enumerate(value) if item in value[:index]))


def _check_documents(value, field, fields, corpus):
    """Check "documents": ids, each the ID of a corpus document."""
    _check_ids(value, field, known=corpus or ())
    for doc_id in value if corpus is not None else ():
        if doc_id not in corpus:
            raise _invalid(field, "unknown document %s", doc_id)


def _check_sources(value, field, fields, corpus, relevant=None):
    """Check "sources": a dict from at most 100 claim IDs to non-empty documents (with
    relevant given, each of them in it)."""
    if type(value) is not dict:
        raise _invalid(field, "expected a dict, got %s", value)
    _check_ids(tuple(value), field)
    for claim_id, sources in value.items():
        where = "%s['%s']" % (field, claim_id)  # a valid ID by now: short
        _check_ids(sources, where, known=relevant or corpus or ())
        if not sources:
            raise _invalid(where, "expected at least one source, got %s", sources)
        for source in sources:
            if relevant is not None and source not in relevant:
                raise _invalid(where, 'source %s is not in case["relevant"]', source)
            if relevant is None and corpus is not None and source not in corpus:
                raise _invalid(where, "unknown document %s", source)


def _check_labels(value, field, fields, corpus):
    """Check "labels": sources, each a document of case["relevant"]."""
    _check_sources(value, field, fields, corpus, relevant=frozenset(fields["relevant"]))


def _check_claims(value, field, fields, corpus):
    """Check "claims": a tuple of at most 100 (claim ID, citations) pairs, claim IDs distinct;
    citations are ids, maybe outside the corpus (scored as unsupported)."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    if len(value) > _MAX_IDS:
        raise _invalid(field, "expected at most %s claims, got %s: %s", _MAX_IDS, len(value),
                       value)
    seen = set()
    for index, pair in enumerate(value):
        where = "%s[%d]" % (field, index)
        if type(pair) is not tuple or len(pair) != 2:
            raise _invalid(where, "expected a (claim ID, citations) pair, got %s", pair)
        if not _is_id(pair[0]):
            raise _invalid(where, "invalid claim ID %s (" + _ID_RULE + ")", pair[0])
        if pair[0] in seen:
            raise _invalid(where, "repeated claim ID %s", pair[0])
        seen.add(pair[0])
        _check_ids(pair[1], where + "[1]", known=corpus or ())


def _check_grades(value, field, fields, corpus):
    """Check "grades": each relevant document, and only those, to an int from 1 to 100."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or set(value) != set(fields["relevant"]):
        raise _invalid(field, 'expected a grade for each document of case["relevant"] %s, '
                       "got %s", fields["relevant"], value)
    for doc_id, grade in value.items():
        if type(grade) is not int or not 1 <= grade <= 100:
            raise _invalid("%s['%s']" % (field, doc_id), "expected an int from 1 to 100, got %s",
                           grade)


def _check_name(value, field, fields=None, corpus=None):
    """Check "name": a case, system, group or tag name heads rows, so it prints the same on
    any terminal and leaves a row's words unambiguous."""
    if not (type(value) is str and 0 < len(value) <= 64 and value.isascii()
            and value.isprintable() and " " not in value):
        raise _invalid(field, "invalid name %s (" + _NAME_RULE + ")", value)


def _check_tags(value, field, fields, corpus):
    """Check "tags": a tuple of 1 to 20 distinct names."""
    if type(value) is not tuple or not 0 < len(value) <= _MAX_TAGS:
        raise _invalid(field, "expected a tuple of 1 to %s names, got %s", _MAX_TAGS, value)
    for tag in value:
        _check_name(tag, field)
    if len(set(value)) < len(value):
        raise _invalid(field, "repeated name %s", next(
            tag for index, tag in enumerate(value) if tag in value[:index]))


# The keys of a case and of a run: whether each must be there, whether it may
# be None, and the checker of its value. Other keys, such as a case's
# "question", are ignored, but one a letter or two from a known key is a typo.
_CASE_KEYS = {
    "relevant":   (True, False, _check_documents),  # the documents that answer the question
    "support":    (True, True, _check_labels),      # expected claim -> sources; None: none given
    "optional":   (False, False, _check_sources),   # claims judged supported, not expected
    "disputed":   (False, False, _check_sources),   # sources one reviewer accepted, another not
    "rejected":   (False, False, _check_ids),       # claims judged unsupported by every document
    "restricted": (False, False, _check_documents), # documents whoever asks may not see
    "grades":     (False, False, _check_grades),    # graded relevance, for nDCG
    "group":      (False, False, _check_name),      # a conversation or topic it belongs to
    "tags":       (False, False, _check_tags),      # question types: each a slice of the summary
}
_JUDGEMENTS = ("optional", "disputed", "rejected")  # what reviewers recorded beside "support"
_RUN_KEYS = {
    "retrieved": (True, False, _check_documents),   # in rank order
    "claims":    (True, True, _check_claims),       # in answer order; None when no answer is made
}


def _checked_fields(mapping, name, keys, corpus):
    """Return {key: value} of the keys of the table `keys` that a dict has, each checked in
    the table's order."""
    if type(mapping) is not dict:
        raise _invalid(name, "expected a dict, got %s", mapping)
    _check_keys(mapping, name, keys)  # a typo is named first, before the key it misses
    fields = {}
    for key, (needed, none_allowed, check) in keys.items():
        if key in mapping:
            fields[key] = mapping[key]
            if not (mapping[key] is None and none_allowed):
                check(mapping[key], '%s["%s"]' % (name, key), fields, corpus)
        elif needed:
            raise _invalid('%s["%s"]' % (name, key), "missing from %s", mapping)
    return fields


def _check_corpus(corpus, most=_MAX_IDS):
    """Check that corpus maps 1 to `most` IDs to texts that are not blank."""
    if type(corpus) is not dict:
        raise _invalid("corpus", "expected a dict, got %s", corpus)
    if not corpus or len(corpus) > most:
        raise _invalid("corpus", "expected 1 to %s documents, got %s: %s", most, len(corpus),
                       corpus)
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
# START OF THE CONTRACT OF ONE QUESTION: how a case and a run are validated,
# counted, scored and explained. Below END, only its public functions are used.
# ============================================================================

def validate(corpus, case, run, k, *, corpus_checked=False, case_checked=False):
    """Check every input rule; return (relevant, support, retrieved, claims), the very
    objects checked. With corpus_checked=True, the corpus is only looked up, not checked
    again: a corpus that many questions share is checked once; with case_checked=True,
    so is the case, checked once with this corpus for the runs of many systems."""
    if not corpus_checked:
        _check_corpus(corpus)
    fields = case if case_checked else _checked_case(case, corpus)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return fields["relevant"], fields["support"], answer["retrieved"], answer["claims"]


def _checked_case(case, corpus):
    """Return the fields of a case once its shape and the rules tying its fields are checked."""
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    relevant, support = fields["relevant"], fields["support"]
    # Sources lie within relevant, so expected claims imply relevant documents, and
    # relevant documents need an expected claim: both empty is an unanswerable question.
    if relevant and support == {}:
        raise _invalid('case["support"]', 'expected claims for case["relevant"] %s, got %s',
                       relevant, support)
    support, optional = support or {}, fields.get("optional", {})
    for claim_id in optional:
        if claim_id in support:
            raise _invalid('case["optional"]', 'claim %s is also in case["support"]', claim_id)
    for claim_id, sources in fields.get("disputed", {}).items():
        where, agreed = 'case["disputed"][\'%s\']' % claim_id, support.get(claim_id, ())
        for source in sources:  # a label is agreed or disputed, not both
            if source in agreed or source in optional.get(claim_id, ()):
                raise _invalid(where, 'source %s is also in case["support"] or '
                               'case["optional"]', source)
            if claim_id in support and source not in relevant:
                raise _invalid(where, 'source %s is not in case["relevant"]', source)
    for claim_id in fields.get("rejected", ()):
        # Judged unsupported by every document, a rejected claim can have no source.
        if claim_id in support or claim_id in optional or claim_id in fields.get("disputed", {}):
            raise _invalid('case["rejected"]', 'claim %s has sources in case["support"], '
                           'case["optional"] or case["disputed"]', claim_id)
    for doc_id in fields.get("restricted", ()):
        if doc_id in relevant:  # what the asker may not see cannot be their evidence
            raise _invalid('case["restricted"]', 'document %s is in case["relevant"]', doc_id)
    return fields


def lenient(case):
    """Return a new case (a new dict, always) that also holds every disputed label: the
    lenient reading. A disputed source of an expected claim joins its "support", one of
    any other claim its "optional": a disputed label never changes which claims are
    expected. The case is checked as validate() checks it, its documents as IDs alone."""
    fields = _checked_case(case, None)
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" in fields:
        support, optional = dict(fields["support"] or {}), dict(fields.get("optional", {}))
        for claim_id, sources in fields["disputed"].items():
            labels = support if claim_id in support else optional
            labels[claim_id] = labels.get(claim_id, ()) + sources
        if fields["support"] is not None:
            reading["support"] = support
        if optional or fields["support"] is None:  # what judges an answer stays
            reading["optional"] = optional
    return reading


def _hit_ranks(relevant, retrieved, k):
    """Return a list of the ranks of the relevant documents in the top k, counting from 1."""
    relevant_set = set(relevant)
    # Only the top k count: a relevant document ranked k + 1 is no hit.
    return [rank for rank, doc_id in enumerate(retrieved[:k], start=1) if doc_id in relevant_set]


def _scores(counts):
    """Return the six metrics of one question from its tally; None is n/a."""
    # n/a is never 0: a metric that does not apply to this question is None.
    answerable, first_hit = counts["relevant"] > 0, counts["first_hit"]
    judged = counts["supported"] is not None  # an answer was made, and labels judge it
    listed = counts["covered"] is not None  # ... and case["support"] lists what it should say
    return {
        # Fixed slots: the denominator is k even when fewer documents came back.
        "precision": counts["hits"] / counts["k"] if answerable else None,
        "recall": counts["hits"] / counts["relevant"] if answerable else None,
        # No relevant document in the top k: rr is 0.0, the lowest score, not n/a.
        "rr": (1 / first_hit if first_hit else 0.0) if answerable else None,
        "support": counts["supported"] / counts["generated"]
        if judged and counts["generated"] else None,
        "coverage": counts["covered"] / counts["expected"] if listed and answerable else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": not counts["generated"] if listed and not answerable else None,
    }


def _labels(case):
    """Return {claim ID: sources} of each claim judged supported; None if nothing judges one."""
    if case["support"] is None and not any(key in case for key in _JUDGEMENTS):
        return None
    # An optional claim (judged supported, not expected) counts, but covers nothing.
    return {**(case["support"] or {}), **case.get("optional", {})}


def _unsupported_because(claim_id, citations, labels, visible, corpus):
    """Return the first rule a claim breaks (the first five reasons explain() lists, each
    checked against every citation before the next), or None when it is supported."""
    # Strict citations: each rule must hold for every citation, so one good
    # citation does not excuse a bad one.
    if not citations:
        return "no citation"
    if claim_id not in labels:
        return "no label"  # nobody judged this claim supported, so nothing can support it
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


def tally(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate (see validate()); return the counts behind every metric of one question.

    relevant    documents labelled relevant
    k           slots in the top k
    hits        relevant documents in the top k
    first_hit   rank of the first of them, or None
    generated   claims in the answer; None when the run makes no answer
    supported   generated claims that are supported; None when no answer is made or
                nothing judges it
    expected    claims labelled in "support"; None when case["support"] is None
    covered     expected claims among the supported ones (None as supported or expected is)
    disclosed   restricted documents in the top k or cited (a fact, not a score)
    """
    relevant, support, retrieved, claims = validate(
        corpus, case, run, k, corpus_checked=corpus_checked, case_checked=case_checked)
    ranks = _hit_ranks(relevant, retrieved, k)
    labels = _labels(case)
    judged = labels is not None and claims is not None  # an answer, and labels to judge it
    reasons = _claim_reasons(corpus, labels, retrieved, claims, k) if judged else []
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
        if judged and support is not None else None,
        "disclosed": len(_disclosed(case.get("restricted", ()), retrieved, claims or (), k)),
    }


def evaluate(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate one question's inputs and return a dict of its six metrics, in order."""
    return _scores(tally(corpus, case, run, k=k, corpus_checked=corpus_checked,
                         case_checked=case_checked))


def explain(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate like evaluate(); return why each claim is unsupported, what is uncovered,
    and what was disclosed, each a tuple:

    claims      (claim ID, reason) in answer order: reason None for a supported claim,
                else the first rule it breaks: "no citation", "no label" (nothing judges
                the claim supported), "not in the corpus", "not a labelled source",
                "outside the top k"; but "judged unsupported" for a rejected claim, and
                "only a disputed label supports it" where the lenient reading supports
                it. None when no answer is made or nothing judges it
    uncovered   expected claim IDs, in label order, that no supported claim covers;
                None when no answer is made or case["support"] is None
    disclosed   restricted documents in the top k or cited, in case["restricted"]'s order
    """
    relevant, support, retrieved, claims = validate(
        corpus, case, run, k, corpus_checked=corpus_checked, case_checked=case_checked)
    disclosed = _disclosed(case.get("restricted", ()), retrieved, claims or (), k)
    labels = _labels(case)
    if labels is None or claims is None:
        return {"claims": None, "uncovered": None, "disclosed": disclosed}
    reasons = _claim_reasons(corpus, labels, retrieved, claims, k)
    supported = {claim_id for claim_id, reason in reasons if reason is None}
    uncovered = None if support is None else tuple(
        claim_id for claim_id in support if claim_id not in supported)
    return {"claims": _reviewed(reasons, corpus, case, run, k), "uncovered": uncovered,
            "disclosed": disclosed}


def _reviewed(reasons, corpus, case, run, k):
    """Return the strict reasons as a tuple, told apart by what reviewers recorded (see
    explain()); a claim with no label takes the lenient reading's reason."""
    if "disputed" not in case and "rejected" not in case:
        return tuple(reasons)  # no record of a review: the strict reasons say it all
    loose = _claim_reasons(corpus, _labels(lenient(case)), run["retrieved"], run["claims"], k)
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


# ============================================================================
# END OF THE CONTRACT OF ONE QUESTION: below, many questions and what they make.
# ============================================================================

_ABOVE = dict(globals())  # what the contract and the preamble define: see the file's end

# --- Many questions -------------------------------------------------------------
# Each question is scored by the contract's public functions. The corpus that
# the questions share is checked once and then only looked up, so the cost grows
# with the questions, not with questions times documents.

_MAX_RUNS = 100  # repeated runs of one question by one system
_NO_RUN = {"retrieved": (), "claims": ()}  # valid beside any case: checks a case alone


def _per_system(corpus, cases, runs, systems, k, score):
    """Return {system: {case name: score(case, run)}} in the order of cases, with a tuple of
    results where runs[name][system] is a tuple of 1 to 100 repeated runs. The corpus (of
    up to a million documents) and k are checked once; a fault names the corpus, the
    case, or the case, the system and the run."""
    _check_corpus(corpus, _MAX_DOCUMENTS)
    _check_k(k)
    for part, value in (("cases", cases), ("runs", runs)):
        if type(value) is not dict:
            raise _invalid(part, "expected a dict, got %s", value)
        _check_keys(value, part)
    for name in runs:
        if name not in cases:
            raise _invalid("runs", "no case named %s", name)
    results = {system: {} for system in systems}
    for name, case in cases.items():
        _check_name(name, "cases")
        try:  # each case is checked once, then only its runs are, with case_checked=True
            validate(corpus, case, _NO_RUN, k, corpus_checked=True)
        except EvaluationError as fault:
            raise EvaluationError("case %s: %s" % (_shown(name), fault)) from None
        _check_runs_of(runs, name, systems[0])  # once, not once for each system
        for system in systems:
            results[system][name] = _system_runs(runs[name], name, system,
                                                 lambda run: score(case, run))
    return results


def _check_runs_of(runs, name, system):
    """Check that runs[name] is a dict of runs by system name; a fault names the case and
    the first system, whose run is missing first."""
    field = "runs[%s]" % _shown(name)
    try:
        if name not in runs:
            raise EvaluationError("missing from runs")
        if type(runs[name]) is not dict:
            raise _invalid(field, "expected a dict, got %s", runs[name])
        _check_keys(runs[name], field)
    except EvaluationError as error:
        raise EvaluationError("case %s, system %s: %s" % (_shown(name), _shown(system), error)
                              ) from None


def _system_runs(by_system, name, system, scored):
    """Return scored(run) of one system's run on one case, or a tuple of them of its
    repeated runs; a fault names the case, the system and the run."""
    number = None  # the repeated run at hand
    try:
        if system not in by_system:
            raise EvaluationError("missing from runs[%s]" % _shown(name))
        given = by_system[system]
        if type(given) is not tuple:
            return scored(given)
        if not 0 < len(given) <= _MAX_RUNS:
            raise _invalid("runs[%s][%s]" % (_shown(name), _shown(system)),
                           "expected 1 to %s repeated runs, got %s", _MAX_RUNS, given)
        found = []
        for number, run in enumerate(given, start=1):
            found.append(scored(run))
        return tuple(found)
    except EvaluationError as error:
        where = "case %s, system %s" % (_shown(name), _shown(system))
        if number is not None:
            where += ", run %d" % number
        raise EvaluationError(where + ": " + str(error)) from None


def tally_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: tally()} of one system, in the order of cases (a tuple of tallies
    where the case has repeated runs): runs maps each case name to its runs by system
    name, and the corpus serves every case."""
    _check_name(system, "system")
    return _per_system(corpus, cases, runs, (system,), k, lambda case, run: tally(
        corpus, case, run, k=k, corpus_checked=True, case_checked=True))[system]


def explain_system(corpus, cases, runs, system, *, k=2):
    """Return {case name: explain()} of one system, as tally_system() does."""
    _check_name(system, "system")
    return _per_system(corpus, cases, runs, (system,), k, lambda case, run: explain(
        corpus, case, run, k=k, corpus_checked=True, case_checked=True))[system]


# --- Graded relevance -------------------------------------------------------------

def ndcg(corpus, case, run, *, k=2, corpus_checked=False, case_checked=False):
    """Validate like evaluate(); return nDCG@k as trec_eval's ndcg_cut gives it: the gain
    of the top k over that of the best ranking, where a document's gain is its grade (1
    without grades), divided by log2(rank + 1). 0.0 when nothing relevant is in the top
    k; None when no document is relevant."""
    validate(corpus, case, run, k, corpus_checked=corpus_checked, case_checked=case_checked)
    return _ndcg(case, run["retrieved"], k)


def _ndcg(case, retrieved, k):
    """Return ndcg() of one question whose inputs are valid."""
    from math import log2
    if not case["relevant"]:
        return None
    gains = case.get("grades") or dict.fromkeys(case["relevant"], 1)
    gained = sum(gains.get(doc_id, 0) / log2(rank + 1)
                 for rank, doc_id in enumerate(retrieved[:k], start=1))
    best = sum(gain / log2(rank + 1)
               for rank, gain in enumerate(sorted(gains.values(), reverse=True)[:k], start=1))
    return gained / best


# --- The scored table -------------------------------------------------------------
# Every (system, question) is scored once, each of its runs in both readings of
# disputed labels; the report, the comparisons and the policy all read this table.

_METRICS = ("precision", "recall", "rr", "support", "coverage", "abstention_correct")


def _scored(corpus, cases, runs, systems, k, explaining, summing):
    """Return {system: {case name: entry}}: each entry holds the scores, counts and nDCG of
    its question (the means of its runs where it has repeated runs, n/a skipped) and its
    lenient reading where a label is disputed; with repeated runs, "each" holds those of
    every run (see _runs_in()). explain() is asked of each run when explaining, or of
    those a summary counts (summing): the runs with an unsupported claim or a disclosure."""
    graded = any("grades" in case for case in cases.values())

    checked = {"k": k, "corpus_checked": True, "case_checked": True}  # see _per_system()

    def score(case, run):  # one run: a strict cell with a lenient one beside it, or None
        counts = tally(corpus, case, run, **checked)
        cell = {"scores": evaluate(corpus, case, run, **checked), "counts": counts,
                "ndcg": _ndcg(case, run["retrieved"], k) if graded else None,  # valid: tallied
                "explain": None, "lenient": None}
        if explaining or summing and (counts["supported"] != counts["generated"]
                                      or counts["disclosed"]):
            cell["explain"] = explain(corpus, case, run, **checked)
        if case.get("disputed"):  # elsewhere the lenient reading is the strict one
            loose = lenient(case)  # (its sources are the case's: checked with the corpus)
            cell["lenient"] = {"scores": evaluate(corpus, loose, run, **checked),
                               "counts": tally(corpus, loose, run, **checked)}
        return cell
    return {system: {name: _entry(found if type(found) is tuple else (found,))
                     for name, found in by_name.items()}
            for system, by_name in _per_system(corpus, cases, runs, systems, k, score).items()}


def _entry(cells):
    """Return the entry of one question from the cells of its runs: one run's own values,
    or, of repeated runs, each score the mean of the runs' scores and each count the mean
    of their counts, n/a skipped."""
    if len(cells) == 1:
        return cells[0]  # (no copy: the many questions of a large file weigh enough)
    loose = [cell["lenient"] or cell for cell in cells]
    return {"scores": _means([cell["scores"] for cell in cells]),
            "counts": _means([cell["counts"] for cell in cells], exact=True),
            "ndcg": _mean([cell["ndcg"] for cell in cells]),
            "lenient": None if cells[0]["lenient"] is None else {
                "scores": _means([cell["scores"] for cell in loose]),
                "counts": _means([cell["counts"] for cell in loose], exact=True)},
            "each": cells}


def _mean(values, exact=False):
    """Return the mean of the values that are not None (n/a is skipped, never averaged in
    as 0), or None when every one is: a float rounded once, or an exact fraction."""
    from math import fsum
    present = [value for value in values if value is not None]
    if not present:
        return None
    if exact:  # counts: ints, so a mean is an int or a fraction such as 3/2
        from fractions import Fraction
        total, count = sum(present), len(present)
        return total // count if total % count == 0 else Fraction(total, count)
    return fsum(present) / len(present)


def _means(dicts, exact=False):
    """Return {key: _mean() of that key's values} over dicts with the same keys."""
    return {key: _mean([each[key] for each in dicts], exact) for key in dicts[0]}


def _runs_in(entry):
    """Return the cells of the runs of an entry: those of its repeated runs, or itself."""
    return entry.get("each") or (entry,)


def _lenient_reading(table):
    """Return the table as the lenient reading has it: the lenient scores and counts of
    each entry and each of its repeated runs where it has some, else its strict ones."""
    def loose(cell):
        return dict(cell, **cell["lenient"]) if cell["lenient"] else cell
    return {system: {name: dict(loose(entry), each=[loose(run) for run in entry["each"]])
                     if "each" in entry else loose(entry) for name, entry in by_name.items()}
            for system, by_name in table.items()}


def _answers(runs, name, system):
    """Return the runs of one system on one case as a tuple: its run, or its repeated runs."""
    given = runs[name][system]
    return given if type(given) is tuple else (given,)


# --- The paired test ----------------------------------------------------------------
# paired_test() says how much a few questions can show at all. Values are
# compared as the exact fractions they stand for.

_LARGEST_FLOAT = 1.7976931348623157e308
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

    before and after map the same question names to a value, None (n/a: left out), or a
    tuple of up to 100 values of repeated runs, averaged within the question, the unit.
    groups, if given, maps each question to its group (the turns of a conversation), or
    to None: the unit is then the group, its difference the mean of its questions'.

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
        if group is not None:
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
            unit = (name,) if groups is None or groups[name] is None else groups[name]
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



# --- Comparing systems ------------------------------------------------------------
# Slices of questions, their means, and each question's change from the
# baseline to a candidate.

_VERDICTS = ("improved", "regressed", "mixed", "unchanged")
_COMPARED = _METRICS[:-1]  # the ratios compared between systems; abstention is counted apart
_SLICES = ("answerable", "unanswerable")
_HELD_CONSTANT = ("corpus", "questions", "permissions", "rubric")  # the same in every manifest


def _slices(cases):
    """Return {slice: question names, in case order}: the answerable questions, the
    unanswerable ones, then a slice "tag:NAME" per tag, in the order tags are first used."""
    parts = {part: [] for part in _SLICES}
    for name, case in cases.items():
        # A question is answerable when it has labelled relevant documents.
        parts["answerable" if case["relevant"] else "unanswerable"].append(name)
    for name, case in cases.items():
        for tag in case.get("tags", ()):
            parts.setdefault("tag:" + tag, []).append(name)
    return parts


def _value(entry, metric):
    """Return one metric of an entry of the scored table: a score, or nDCG."""
    return entry["ndcg"] if metric == "ndcg" else entry["scores"][metric]


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


def _totals(verdicts):
    """Return how many of the verdicts are each verdict, in a fixed order."""
    return {verdict: verdicts.count(verdict) for verdict in _VERDICTS}


def cell(value):
    """Return a value as the report's text shows it: two decimals, None as n/a, a bool as
    yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def p_text(p, method="exact"):
    """Return a p as the report's text shows it: an exact p as a short fraction (1/2),
    else, and any sampled p, with two significant digits (0.091, 3.1e-05)."""
    if method == "exact" and p.denominator <= 1000:
        return str(p)
    return "%.2g" % float(p) if p > 1e-300 else "below 1e-300"


def _slice_means(parts, table, graded):
    """Return, per slice, metric and system: the macro mean of each ratio (and of nDCG,
    with grades), then pooled support (claims summed over the judged answers of every
    run), and the correct abstentions (answers with no claim) of its unanswerable
    questions, None when it has none."""
    means, unanswerable = {}, set(parts["unanswerable"])
    for part, names in parts.items():
        means[part] = {metric: {system: _macro_mean([_value(by_name[name], metric)
                                                     for name in names])
                                for system, by_name in table.items()}
                       for metric in _COMPARED + (("ndcg",) if graded else ())}
        means[part]["pooled_support"], means[part]["correct_abstentions"] = {}, None
        for system, by_name in table.items():
            judged = [run["counts"] for name in names for run in _runs_in(by_name[name])
                      if run["counts"]["supported"] is not None]
            supported = sum(counts["supported"] for counts in judged)
            generated = sum(counts["generated"] for counts in judged)
            means[part]["pooled_support"][system] = {
                "supported": supported, "generated": generated,
                "ratio": supported / generated if generated else None}
        answers = [name for name in names if name in unanswerable]
        if answers:  # of the answers judged
            means[part]["correct_abstentions"] = {system: {
                "correct": len([name for name in answers if by_name[name]["counts"]["generated"]
                                == 0 and by_name[name]["counts"]["covered"] is not None]),
                "total": len([name for name in answers
                              if by_name[name]["counts"]["covered"] is not None])}
                for system, by_name in table.items()}
    return means


def _macro_mean(values):
    """Return {mean, averaged, total} of a list of values: each question weighs the same,
    and n/a is skipped and counted, never averaged in as 0."""
    return {"mean": _mean(values), "averaged": len([value for value in values
                                                    if value is not None]),
            "total": len(values)}


def _groups(cases):
    """Return each question's group for the paired test (None: a group of its own), or
    None when no case names one."""
    if not any("group" in case for case in cases.values()):
        return None
    return {name: case.get("group") for name, case in cases.items()}


def _paired_on(table, baseline, candidate, names, metric, groups, read):
    """Return paired_test() of one metric from baseline to candidate over some questions:
    values that a report made, read as fractions once (read holds those seen so far)."""
    values = ({}, {})
    for system, by_name in zip((baseline, candidate), values):
        for name in names:
            value = _value(table[system][name], metric)
            if value is not None and value not in read:
                read[value] = _exact(value)
            by_name[name] = None if value is None else read[value]
    return _paired(values[0], values[1], groups)


def _comparison(data, readings, parts, candidate, groups, decision, read):
    """Return the comparison of one candidate with the baseline; read holds the fraction
    of each value read so far (see _paired_on())."""
    baseline, strict, manifests = data["systems"][0], readings["strict"], data["manifests"]
    changes = []
    for name, entry in strict[baseline].items():
        old, new = entry["scores"], strict[candidate][name]["scores"]
        changes.append({"case": name, "verdict": _verdict(old, new), "moved": [
            (metric, old[metric], new[metric], _change(old[metric], new[metric]) is not None)
            for metric in _METRICS if old[metric] != new[metric]]})
    lenient_changes = None
    if "lenient" in readings:  # the verdicts that a disputed label turns
        loose, lenient_changes = readings["lenient"], []
        for item in changes:
            turned = _verdict(loose[baseline][item["case"]]["scores"],
                              loose[candidate][item["case"]]["scores"])
            if turned != item["verdict"]:
                lenient_changes.append((item["case"], item["verdict"], turned))
    verdicts, answerable = {item["case"]: item["verdict"] for item in changes}, parts["answerable"]
    units = len(answerable if groups is None else {groups[name] or (name,) for name in answerable})
    graded = any("grades" in case for case in data["cases"].values())
    metrics = _COMPARED + (("ndcg",) if graded else ())
    return {
        "baseline": baseline, "candidate": candidate,
        "manifest_changes": None if manifests is None else [
            (field, manifests[baseline].get(field), manifests[candidate].get(field))
            for field in list(manifests[baseline]) + [field for field in manifests[candidate]
                                                      if field not in manifests[baseline]]
            if field not in _HELD_CONSTANT
            and manifests[baseline].get(field) != manifests[candidate].get(field)],
        "changes": changes,
        "totals": _totals(list(verdicts.values())),
        "slice_totals": {part: _totals([verdicts[name] for name in names])
                         for part, names in parts.items() if part not in _SLICES},
        "lenient_changes": lenient_changes,
        "paired_tests": {metric: _paired_on(strict, baseline, candidate, answerable, metric,
                                            groups, read) for metric in metrics},
        "p_floor": _lowest_p(units),  # were every answerable question, or group, to move
        "decision": decision,
        "units": units,
    }


# --- Deciding ---------------------------------------------------------------------
# A policy is written with the labels, before any run is seen, and a system
# is accepted by it, not by whichever average looks best afterwards. Each
# rule is one entry of _RULES: the function that checks its value, from the
# value, its field and which questions are answerable; and the function that
# judges it, from the rule's name, the policy, the candidate's and the
# baseline's entries of the scored table (baseline None when there is none)
# and the declared paired test. That one returns [(held, (rule, question or
# slice, detail))], or the reason it could judge nothing. To add a rule, write
# the two functions and add its entry.

_PLANS = ("strict", "lenient", "both")  # policy["unresolved"]: the readings a decision takes
_NO_ANSWER = "no answer judged against labels"  # a run with no answer, or a case with no labels


def _number(count):
    """Return a count as it is ('2'), or a mean of counts over repeated runs ('1.50')."""
    return "%d" % count if count == int(count) else "%.2f" % count


def _plural(count, noun):
    """Return '1 claim', '2 claims', or '1.50 claims' for a mean over repeated runs."""
    return "%s %s%s" % (_number(count), noun, "" if count == 1 else "s")


def _critical_findings(rule, policy, candidate, baseline, test):
    """Per critical question: no judged value fell below the baseline's by more than
    policy["tolerance"] (0 without it), compared as the fractions they stand for."""
    if baseline is None:
        return "no baseline to compare with"
    findings, tolerance = [], _exact(policy.get("tolerance", 0))
    for name in policy[rule]:
        before, after = baseline[name]["scores"], candidate[name]["scores"]
        worse, held = [], True
        for metric in _METRICS:
            if _change(before[metric], after[metric]) == "worse":
                fall = _exact(float(before[metric])) - _exact(float(after[metric]))
                held = held and fall <= tolerance
                worse.append("%s %s -> %s" % (metric, cell(before[metric]), cell(after[metric])))
                if tolerance:  # how far it fell, against how far it may
                    worse[-1] += (", within %g" % tolerance if fall <= tolerance
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
        counts = candidate[name]["counts"]
        if counts["covered"] is not None:
            # Shown as the fraction it is: 2/3 falls short of 0.67, though both round to 0.67.
            detail = "coverage %s/%d, minimum %g" % (_number(counts["covered"]),
                                                    counts["expected"], policy[rule])
            findings.append((candidate[name]["scores"]["coverage"] >= policy[rule],
                             (rule, name, detail)))
    return findings or ("lists no question" if not policy["critical"] else _NO_ANSWER)


def _budget_findings(rule, policy, candidate, baseline, test):
    """Per slice the rule names: the unsupported claims of its judged answers stay within
    a count (unsupported_budget) or a share of their claims (unsupported_rate)."""
    findings = []
    for part in _SLICES:
        judged = [entry["counts"] for entry in candidate.values()
                  if (entry["counts"]["relevant"] > 0) == (part == "answerable")
                  and entry["counts"]["supported"] is not None]
        if part in policy[rule] and judged:  # a slice the rule names, with answers to judge
            allowed = policy[rule][part]
            generated = sum(counts["generated"] for counts in judged)
            unsupported = generated - sum(counts["supported"] for counts in judged)
            if rule == "unsupported_budget":
                held = unsupported <= allowed
                detail = "%s, budget %d" % (_plural(unsupported, "unsupported claim"), allowed)
            else:  # compared exactly: unsupported / generated <= rate
                held = unsupported <= _exact(allowed) * generated
                detail = "%s of %s unsupported, rate at most %g" % (
                    _number(unsupported), _plural(generated, "claim"), allowed)
            findings.append((held, (rule, part, detail)))
    return findings or _NO_ANSWER


def _abstention_findings(rule, policy, candidate, baseline, test):
    """Per question that must be abstained on, whose run makes an answer: no claims."""
    findings = []
    for name in policy[rule]:
        claims = candidate[name]["counts"]["generated"]
        if claims is not None:
            detail = "answered with " + _plural(claims, "claim") if claims else "abstained"
            findings.append((claims == 0, (rule, name, detail)))
    return findings or ("lists no question" if not policy[rule] else _NO_ANSWER)


def _significance_findings(rule, policy, candidate, baseline, test):
    """On the answerable slice: the declared metric rose, with a two-sided p below the
    level Holm's method gives it; a sampled p must be below it by twice its standard error."""
    if baseline is None:
        return "no baseline to compare with"
    level, mean = test["level"], "n/a" if test["mean"] is None else "%+.2f" % test["mean"]
    # p is two-sided and the mean must rise too: a false acceptance is at most level / 2.
    detail = ("%s mean %s (%d of %d), p = %s (%s), level %g (alpha %g, Holm's step %d of %d), "
              "two-sided: a one-sided test at %g" % (
                  policy[rule]["metric"], mean, test["questions"],
                  test["questions"] + test["left_out"], p_text(test["p"], test["method"]),
                  test["method"], level, policy[rule]["alpha"], test["step"], test["steps"],
                  level / 2))
    if test["method"] == "sampled" and abs(test["p"] - level) <= 2 * test["standard_error"]:
        detail += ": too close to call with %d samples" % test["samples"]
    if not test["reached"] and _p_holds(test, level):  # it would hold, but Holm stopped first
        detail += ": not reached, as an earlier p in Holm's order did not hold"
    held = test["reached"] and _p_holds(test, level) and test["mean"] is not None and (
        test["mean"] > 0)
    return [(held, (rule, "answerable", detail))]


def _p_holds(test, level):
    """True when the p of a paired test is below a level: a sampled p by at least twice
    its standard error, so that no coin toss of the sampler decides."""
    if test["method"] == "sampled":
        return test["p"] + 2 * test["standard_error"] < level
    return test["p"] < level  # exactly: the fraction p against the float level


def _check_questions(value, field, answerable, unanswerable=False):
    """Check a tuple of distinct question names, each answerable (or each unanswerable)."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple of question names, got %s", value)
    seen = set()
    for name in value:
        if type(name) is not str or name not in answerable:
            raise _invalid(field, "no question named %s", name)
        if name in seen:
            raise _invalid(field, "repeated question %s", name)
        seen.add(name)
        if answerable[name] == unanswerable:
            raise _invalid(field, "%s is unanswerable; list it in policy[\"must_abstain\"]"
                           if not unanswerable else "%s is answerable; only an unanswerable "
                           "question must be abstained on", name)


def _check_unanswerable(value, field, answerable):
    """Check a tuple of distinct names of unanswerable questions."""
    _check_questions(value, field, answerable, unanswerable=True)


def _check_budgets(value, field, answerable, rates=False):
    """Check a dict from one or both slices to a count from 0 to 10**9 (or a rate)."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or not value or not set(value) <= set(_SLICES):
        raise _invalid(field, "expected a dict with one or both of the keys %s, got %s",
                       _SLICES, value)
    for part, allowed in value.items():
        if rates:
            _check_number(allowed, "%s['%s']" % (field, part))
        elif type(allowed) is not int or not 0 <= allowed <= 10 ** 9:
            raise _invalid("%s['%s']" % (field, part), "expected an int from 0 to "
                           "1000000000, got %s", allowed)


def _check_rates(value, field, answerable):
    """Check a dict from one or both slices to a number from 0 to 1."""
    _check_budgets(value, field, answerable, rates=True)


def _check_significance(value, field, answerable):
    """Check a dict of a metric to test and alpha, a number above 0 to 0.5."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or set(value) != {"metric", "alpha"}:
        raise _invalid(field, 'expected a dict with the keys "metric" and "alpha", got %s',
                       value)
    if type(value["metric"]) is not str or value["metric"] not in _COMPARED + ("ndcg",):
        raise _invalid(field + '["metric"]', "expected one of %s, got %s",
                       _COMPARED + ("ndcg",), value["metric"])
    _check_number(value["alpha"], field + '["alpha"]', high=0.5, above_low=True)


def _check_plan(value, field, answerable):
    """Check one of the plans: "strict", "lenient" or "both"."""
    if type(value) is not str or value not in _PLANS:
        raise _invalid(field, "expected one of %s, got %s", _PLANS, value)


def _check_number(value, field, answerable=None, low=0, high=1, above_low=False):
    """Check that value is an int or a float from low (or above it) to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in (int, float) and (low < value if above_low else low <= value)
    if not (within and value <= high):
        raise _invalid(field, "expected a number " + ("above" if above_low else "from")
                       + " %s to %s, got %s", low, high, value)


_RULES = {  # rule: (its checker, its findings), in the order findings are listed
    "critical":           (_check_questions, _critical_findings),
    "min_coverage":       (_check_number, _coverage_findings),
    "unsupported_budget": (_check_budgets, _budget_findings),
    "unsupported_rate":   (_check_rates, _budget_findings),
    "must_abstain":       (_check_unanswerable, _abstention_findings),
    "significance":       (_check_significance, _significance_findings),
}
_SETTINGS = {"tolerance": _check_number, "unresolved": _check_plan}  # they judge nothing


def _check_policy(policy, answerable, graded):
    """Check a policy and each rule it has; answerable maps each question name to True
    when the question is answerable, and graded says whether some case has grades."""
    rules = str(tuple(_RULES))  # named in full in messages, never cut
    if type(policy) is not dict:
        raise _invalid("policy", "expected a dict, got %s", policy)
    _check_keys(policy, "policy", tuple(_RULES) + tuple(_SETTINGS))
    for key in policy:
        if key not in _RULES and key not in _SETTINGS:
            raise _invalid("policy", "unknown rule %s; the rules are " + rules
                           + ", the settings " + str(tuple(_SETTINGS)), key)
    if not any(rule in policy for rule in _RULES):
        raise _invalid("policy", "expected at least one of the rules " + rules + ", got %s",
                       policy)
    for key, value in policy.items():
        if key in ("min_coverage", "tolerance") and "critical" not in policy:
            raise _invalid('policy["%s"]' % key, 'applies to the questions of policy['
                           '"critical"], and the policy has none: got %s', policy)
        check = _RULES[key][0] if key in _RULES else _SETTINGS[key]
        check(value, 'policy["%s"]' % key, answerable)
    if not graded and policy.get("significance", {}).get("metric") == "ndcg":
        raise _invalid('policy["significance"]["metric"]', "expected a metric the data "
                       "measures, got %s: no case has grades", "ndcg")


def _judged(policy, candidate, baseline, test=None):
    """Return {accepted, broken, held, unchecked, significance}: a candidate's entries judged
    by a checked policy, beside the baseline's (or None), with the declared paired test.
    accepted is None when nothing could be judged."""
    # Whatever the policy says, a question on which the candidate disclosed a
    # restricted document is a broken finding: no accuracy and no rule can
    # excuse showing a document to someone who may not see it.
    findings = [(False, ("disclosure", name, _plural(entry["counts"]["disclosed"],
                                                     "restricted document")
                         + " in the top k or cited"))
                for name, entry in candidate.items() if entry["counts"]["disclosed"]]
    unchecked = []
    for rule, (check, found) in _RULES.items():
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


def _significance_tests(policy, table, systems, parts, groups, read):
    """Return {candidate: its declared paired test from the baseline on the answerable
    slice, with the level Holm's method compares its p with}; {} without the rule."""
    if "significance" not in policy:
        return {}
    metric, alpha = policy["significance"]["metric"], policy["significance"]["alpha"]
    tests = {candidate: _paired_on(table, systems[0], candidate, parts["answerable"], metric,
                                   groups, read) for candidate in systems[1:]}
    # Holm's step-down method: the i-th smallest of m p values is compared with
    # alpha / (m - i + 1); from the first that does not hold, none after it holds.
    reached = True
    for step, candidate in enumerate(sorted(tests, key=lambda each: tests[each]["p"]),
                                     start=1):
        level = alpha / (len(tests) - step + 1)
        tests[candidate] = dict(tests[candidate], level=level, step=step, steps=len(tests),
                                reached=reached)
        reached = reached and _p_holds(tests[candidate], level)
    return tests


def _decisions(data, readings, parts, groups, read):
    """Return the decision on each system, the baseline judged alone first, then each
    candidate against it."""
    policy, systems = data["policy"], data["systems"]
    judged = {system: {} for system in systems}
    for reading, table in readings.items():
        tests = _significance_tests(policy, table, systems, parts, groups, read)
        judged[systems[0]][reading] = _judged(policy, table[systems[0]], None)
        for candidate in systems[1:]:
            judged[candidate][reading] = _judged(policy, table[candidate], table[systems[0]],
                                                 tests.get(candidate))
    return {system: _by_readings(policy, judged[system], readings, parts,
                                 [None if system == systems[0] else systems[0], system],
                                 data["cases"]) for system in systems}


def _by_readings(policy, judged, readings, parts, systems, cases):
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
                      for name in _deciding_questions(strict, loose, readings, parts, systems)
                      for claim_id, sources in cases[name].get("disputed", {}).items()]
    return {"plan": plan, "accepted": _decision(plan, strict, loose), "strict": strict,
            "lenient": loose, "depends_on": depends_on, "findings": findings}


def _deciding_questions(strict, loose, readings, parts, systems):
    """Return, in the order of the cases, the questions whose findings the two readings
    judge differently: each one a finding names, and, for a slice's finding, each
    question of that slice whose counts differ between the readings."""
    differ = ({finding[:2] for finding in strict["broken"]}
              ^ {finding[:2] for finding in loose["broken"]})
    names = {subject for rule, subject in differ if subject not in _SLICES}
    for part in _SLICES:
        if any(subject == part for rule, subject in differ):
            names.update(name for name in parts[part] if any(
                readings["strict"][system][name]["counts"]
                != readings["lenient"][system][name]["counts"]
                for system in systems if system is not None))
    return [name for name in readings["strict"][systems[-1]] if name in names]


# --- One report -------------------------------------------------------------------
# report() gathers, as plain data, every figure and finding demo.py prints, so
# that `demo.py --json` writes exactly what the text says. Every key is always
# there: a part not asked for, or that does not apply, is None. Each part reads
# the scored table: the cost grows as the runs of all questions and systems.

def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of a data set (what load_data() returns, or a dict of its shape)
    as plain data, keys in the order the README gives: per question, each system's
    scores, counts, runs, lenient reading and nDCG; with explain, explain() of each run,
    the claims nobody has reviewed and the labels no run uses; with summary, slices,
    comparisons and decisions. The first system is the baseline; each other one is a
    candidate."""
    _check_options(source, summary=summary, explain=explain)
    data = _checked_data(data)
    cases, systems, runs = data["cases"], data["systems"], data["runs"]
    table = _scored(data["corpus"], cases, runs, systems, data["k"], explain, summary)
    if data["policy"] is not None:  # a fault in the policy is the data's, whatever is asked
        _check_policy(data["policy"], {name: bool(case["relevant"])
                                       for name, case in cases.items()},
                      any("grades" in case for case in cases.values()))
    rows = [{"case": name, "answerable": bool(case["relevant"]),
             "systems": {system: _row(table[system][name], explain) for system in systems}}
            for name, case in cases.items()]
    queue = _review_queue(cases, runs, table) if explain or summary else None
    return {"source": source, "k": data["k"], "systems": list(systems), "questions": rows,
            "review_queue": queue if explain else None,
            "orphan_labels": _orphan_labels(cases, runs, systems) if explain else None,
            "summary": _summary(data, table, queue, source) if summary else None}


def _check_options(source, **flags):
    """Check the options of report(): source a str, each flag True or False."""
    if type(source) is not str:
        raise _invalid("source", "expected a str, got %s", source)
    for name, value in flags.items():
        if type(value) is not bool:
            raise _invalid(name, "expected True or False, got %s", value)


def _row(entry, explaining):
    """Return what the report gives of one question and system: its scores and counts (the
    means of its runs), how many runs it has, the scores and counts of each where it has
    more than one, its lenient reading, explain() of its run (or of each) and nDCG."""
    each = _runs_in(entry)
    return {"scores": entry["scores"], "counts": entry["counts"], "repeats": len(each),
            "runs": None if len(each) == 1 else [{"scores": cell["scores"],
                                                  "counts": cell["counts"]} for cell in each],
            "lenient": entry["lenient"],
            "explain": None if not explaining else each[0]["explain"] if len(each) == 1
            else [cell["explain"] for cell in each],
            "ndcg": entry["ndcg"]}


def _review_queue(cases, runs, table):
    """Return the claims of judged answers that nobody has labelled, rejected or disputed,
    each once: the next round of reviewing, as (system, case, claim, the documents it
    cites)."""
    queue = {}  # in order of first sight: repeated runs make the same claims again
    for system, by_name in table.items():
        for name, entry in by_name.items():
            labels = [cases[name].get(key) or () for key in ("support",) + _JUDGEMENTS]
            for run, cell in zip(_answers(runs, name, system), _runs_in(entry)):
                if cell["counts"]["supported"] is None:
                    continue  # no answer is made, or nothing judges it
                for claim_id, citations in run["claims"]:
                    if not any(claim_id in labelled for labelled in labels):
                        queue[system, name, claim_id, citations] = None
    return list(queue)


def _orphan_labels(cases, runs, systems):
    """Return (case, claim) of each claim that a case's "optional", "disputed" or "rejected"
    names and that no run of any system makes: a label nobody uses, often a typo. An
    expected claim that no run makes is no orphan: it is uncovered."""
    orphans = {}
    for name, case in cases.items():
        made = {claim_id for system in systems for run in _answers(runs, name, system)
                for claim_id, citations in run["claims"] or ()}
        for key in _JUDGEMENTS:
            orphans.update(((name, claim_id), None) for claim_id in case.get(key, ())
                           if claim_id not in made)
    return list(orphans)


def _summary(data, table, queue, source):
    """Return the summary: slices and their means, each comparison, disclosures, what
    reviewers have left to do, and the decisions."""
    systems, cases, policy = data["systems"], data["cases"], data["policy"]
    parts, groups = _slices(cases), _groups(cases)
    graded = any("grades" in case for case in cases.values())
    disputed = [(name, claim_id, sources) for name, case in cases.items()
                for claim_id, sources in case.get("disputed", {}).items()]
    readings = {"strict": table}
    if disputed:  # elsewhere the lenient reading is the strict one, and nothing is said of it
        readings["lenient"] = _lenient_reading(table)
    unreviewed = dict.fromkeys(systems, 0)
    for system, name, claim_id, citations in queue:
        unreviewed[system] += 1
    read = {}  # the fraction each value stands for, read once for every paired test
    decided = None if policy is None else _decisions(data, readings, parts, groups, read)
    return {
        "slices": parts,
        "means": _slice_means(parts, table, graded),
        "disputed_labels": disputed or None,
        "lenient_means": _slice_means(parts, readings["lenient"], graded) if disputed else None,
        "comparisons": [_comparison(data, readings, parts, candidate, groups,
                                    None if decided is None else decided[candidate], read)
                        for candidate in systems[1:]],
        "disclosures": {system: [(name, tuple(dict.fromkeys(
            doc_id for cell in _runs_in(entry) if cell["counts"]["disclosed"]
            for doc_id in cell["explain"]["disclosed"])))
            for name, entry in by_name.items() if entry["counts"]["disclosed"]]
            for system, by_name in table.items()},
        "unreviewed": unreviewed,
        "unsupported_reasons": _unsupported_reasons(table),
        "orphan_labels": len(_orphan_labels(cases, data["runs"], systems)),
        "judged_without_expected": len([name for name, case in cases.items() if case["support"]
                                        is None and any(key in case for key in _JUDGEMENTS)]),
        "policy": None if policy is None else {
            "source": source if source == "fixtures.py" else 'the "policy" of ' + source,
            "rules": policy, "baseline_alone": decided[systems[0]]},
        "groups": None if groups is None else len({group or (name,)
                                                   for name, group in groups.items()}),
        "decisions": None if decided is None else {candidate: decided[candidate]
                                                   for candidate in systems[1:]},
    }


def _unsupported_reasons(table):
    """Return {system: {reason: how many claims explain() finds unsupported for it}}, over
    every run, reasons in the order they are first met."""
    counted = {}
    for system, by_name in table.items():
        counted[system] = {}
        for entry in by_name.values():
            for cell in _runs_in(entry):  # explained where a claim is unsupported
                for claim_id, reason in cell["explain"] and cell["explain"]["claims"] or ():
                    if reason is not None:
                        counted[system][reason] = counted[system].get(reason, 0) + 1
    return counted


# --- Data from a file -------------------------------------------------------------
# load_data() reads a JSON file that mirrors fixtures.py, for demo.py --data
# or your own code. JSON has arrays where the contract has tuples; they are
# read as tuples at that one boundary, and everything else is checked
# exactly as above. The caps keep any file within 30 s and 1 GB on CPython 3.8.

_DATA_KEYS = ("k", "systems", "corpus", "cases", "runs", "policy", "manifests")
_MAX_FILE_BYTES = 30 * 10 ** 6  # read no further: memory stays bounded, whatever the file
_MAX_SYSTEMS = 1000             # and the baseline among them
_MAX_ROWS = 150000              # runs in all: 75,000 questions of two systems, each run once
_MAX_DEPTH = 64                 # arrays and objects within one another, on every CPython
_MAX_DIGITS = 100               # in one integer: Python refuses to read ints of over 4,300


def load_data(path):
    """Return the checked parts of a JSON data file, its arrays read as tuples.

    Every fault raises EvaluationError: a path that is no path (a str, bytes
    or os.PathLike), a file that is not regular, cannot be read or holds more
    than 30,000,000 bytes, text that is not UTF-8 or not JSON (with the line
    and column JSON gives), NaN or Infinity, an integer of over 100 digits,
    nesting over 64 deep, a key repeated in one object, and the top-level
    shape. Its cases and runs are checked when report() scores them.
    """
    import os
    try:
        path = os.fspath(path)  # a str or bytes: open(1) would take over standard output
    except Exception:  # not a path, or a PathLike whose __fspath__ fails
        raise _invalid("path", "expected the path of a file, got %s", path) from None
    raw = _read(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvaluationError("is not UTF-8 text: %s at byte %d"
                              % (error.reason, error.start)) from None
    del raw  # the text alone is read from here on
    return _checked_data(_parsed(text))


def _read(path):
    """Return the bytes of the regular file at path, unless it holds more than the cap."""
    import os
    import stat
    at_once = getattr(os, "O_NONBLOCK", 0)  # opened for reading, a FIFO would wait for a writer
    try:
        status = os.stat(path)
        if stat.S_ISREG(status.st_mode):  # then the file opened, which may be another one
            with open(path, "rb", opener=lambda name, mode: os.open(name, mode | at_once)) as file:
                status, raw = os.fstat(file.fileno()), b""
                if stat.S_ISREG(status.st_mode) and status.st_size <= _MAX_FILE_BYTES:
                    raw = file.read(_MAX_FILE_BYTES + 1)  # a file too large is left unread
    except (OSError, ValueError) as error:  # ValueError: a NUL or a lone surrogate in the path
        reason = getattr(error, "strerror", None) or error
        raise EvaluationError("cannot be read: %s" % reason) from None
    if not stat.S_ISREG(status.st_mode):
        raise EvaluationError("is not a regular file (a directory, a FIFO, a socket or a "
                              "device)")
    if max(status.st_size, len(raw)) > _MAX_FILE_BYTES:
        raise EvaluationError("holds more than %d bytes, the most a data file may hold"
                              % _MAX_FILE_BYTES)
    return raw


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
    finally:
        gc.enable()


def _one_value_per_key(pairs):
    """Return an object's pairs as a dict; a repeated key, which JSON would drop silently,
    is a fault."""
    result = dict(pairs) if pairs else {}  # (dict([]) would take 232 bytes, {} takes 64)
    if len(result) < len(pairs):
        seen = set()
        for key, value in pairs:  # the first key seen again, in one pass
            if key in seen:
                raise EvaluationError("data: repeated key %s in one object" % _shown(key))
            seen.add(key)
    return result


def _whole_number(text):
    """Return a JSON integer as an int, if it has at most 100 digits."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise EvaluationError("is not valid JSON: an integer of more than %d digits, %s..."
                              % (_MAX_DIGITS, text[:20]))
    return int(text)


def _no_constant(name):
    """Refuse NaN, Infinity and -Infinity, which Python reads but JSON does not have."""
    raise EvaluationError("is not valid JSON: %s is not a JSON number" % name)


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
    _check_keys(data, "data", _DATA_KEYS)
    for key in data:
        if key not in _DATA_KEYS:  # a misspelt "policy" must not pass unseen
            raise _invalid("data", "unknown key %s; the keys are %s", key, _DATA_KEYS)
    for key in ("systems", "corpus", "cases", "runs"):
        if key not in data:
            raise _invalid("data", "missing the key %s", key)
    systems = data["systems"]
    if type(systems) is not tuple or not 2 <= len(systems) <= _MAX_SYSTEMS:
        raise _invalid("systems", "expected a tuple of 2 to %s names, the baseline first, "
                       "got %s", _MAX_SYSTEMS, systems)
    for system in systems:
        _check_name(system, "systems")
    if len(set(systems)) < len(systems):
        raise _invalid("systems", "repeated name %s", next(
            system for index, system in enumerate(systems) if system in systems[:index]))
    rows = sum(len(given) if type(given) is tuple else 1 for by_system in (
        data["runs"].values() if type(data["runs"]) is dict else ())
        if type(by_system) is dict for given in by_system.values())
    if rows > _MAX_ROWS:
        raise _invalid("runs", "expected at most %s runs in all (each repeated run counts), "
                       "got %s", _MAX_ROWS, rows)
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


# A name defined above the END line and again below it would make the contract call the
# later definition: a helper of a student's contract that shares a name with one here.
_REDEFINED = [name for name, value in _ABOVE.items() if globals()[name] is not value]
if _REDEFINED:
    raise ImportError("evaluate.py: %s is defined in the contract of one question and again "
                      "below its END line; rename one of them" % ", ".join(_REDEFINED))
