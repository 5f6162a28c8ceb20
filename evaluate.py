"""Score one question's recorded RAG output against labels people wrote:
evaluate(corpus, case, run, *, k=2) returns six values (see README.md).
Read the rules from the line "START OF THE CONTRACT"; above it, each
input is checked, and a fault raises EvaluationError naming its field."""

__all__ = ["EvaluationError", "validate", "tally", "scores", "evaluate",
           "lenient", "explain"]

_MAX_IDS = 10000  # IDs in one tuple, claims in one run
_MAX_K = 1000  # a cutoff: TREC runs are 1,000 deep
_ID_RULE = "IDs are strings of 1 to 200 printable characters, no whitespace"
_ESCAPES = {code: ascii(chr(code))[1:-1] for code in [*range(32), 127]}
_KNOWN_PAIRS = {}  # {known key: the set of its pairs of letters}


class EvaluationError(ValueError):
    """An input breaks the contract: the message names field and value."""


def _shown(value):
    """Return value in ASCII on one line of at most 80 characters."""
    import reprlib  # it reads no more of value than it shows
    brief = reprlib.Repr()  # 3 levels of 16 items, 80 characters a text
    brief.maxlevel, brief.maxstring = 3, 80
    brief.maxtuple = brief.maxlist = brief.maxset = brief.maxdict = 16
    brief.maxother = brief.maxlong = 80
    try:
        text = brief.repr(value)
    except Exception:  # an int too long for Python to print, say
        text = "<%s that cannot be shown>" % type(value).__name__
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    text = text.translate(_ESCAPES)  # as a __repr__ of its own may hold
    return text if len(text) <= 80 else text[:77] + "..."


def _invalid(field, template, *values):
    """Return an EvaluationError 'field: template', each value _shown()."""
    shown = tuple(map(_shown, values))
    return EvaluationError(field + ": " + template % shown)


def _within_two(word, target):
    """True when adding, dropping or changing at most two letters makes
    target of word: past their common start and end, one edit takes the
    first letters and one the last, and between them the two agree."""
    while word and target and word[0] == target[0]:
        word, target = word[1:], target[1:]
    while word and target and word[-1] == target[-1]:
        word, target = word[:-1], target[:-1]
    ends = ((1, 1), (1, 0), (0, 1))  # a change, a drop, an addition
    return len(word) < 2 and len(target) < 2 or any(
        word[first:len(word) - last] == target[start:len(target) - end]
        for first, start in ends for last, end in ends)


def _check_keys(mapping, field, known=()):
    """Check that each key of a dict is an exact str (a str subclass could
    equal another), and no typo of a key of `known`: the same but for case,
    or _within_two() letters."""
    for key in mapping:
        if type(key) is not str:
            raise _invalid(field, "expected keys that are str, got %s", key)
        if key in known or not (known and key.isascii() and key.isprintable()):
            continue  # known, or nobody's typo
        word = key.lower()
        letters, ours = set(word), set(zip(word, word[1:]))  # its pairs
        for target in known:
            if target not in _KNOWN_PAIRS:  # found once a known key
                _KNOWN_PAIRS[target] = set(zip(target, target[1:]))
            theirs = _KNOWN_PAIRS[target]
            # An edit breaks two letter pairs and adds a letter at most.
            if abs(len(word) - len(target)) <= 2 \
                    and len(ours & theirs) >= max(len(ours), len(theirs)) - 4 \
                    and len(letters.difference(target)) <= 2 \
                    and _within_two(word, target):
                raise _invalid('%s["%s"]' % (field, key),
                               "unknown key; did you mean %s?", target)


def _all_ids(items, corpus=None):
    """True when each item is an ID, an exact str (or a corpus document)."""
    if not items or set(map(type, items)) != {str}:
        return not items
    if corpus is not None:
        return all(map(corpus.__contains__, items))
    joined = "".join(items)  # printable, no space, 200 long: each one is
    return (joined.isprintable() and " " not in joined and "" not in items
            and (len(joined) <= 200 or max(map(len, items)) <= 200))


def _check_ids(value, field, corpus=None):
    """Check a tuple of at most 10,000 distinct IDs (of corpus, if given)."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    if len(value) > _MAX_IDS:
        raise _invalid(field, "expected at most %s IDs, got %s: %s",
                       _MAX_IDS, len(value), value)
    if not _all_ids(value, corpus):
        for item in value:  # the first at fault
            if not _all_ids((item,)):
                raise _invalid(field, "invalid ID %s (" + _ID_RULE + ")",
                               item)
            if corpus is not None and item not in corpus:
                raise _invalid(field, "unknown document %s", item)
    if len(set(value)) < len(value):
        seen = set()  # the first ID an earlier one equals, in one pass
        raise _invalid(field, "repeated ID %s", next(
            item for item in value if item in seen or seen.add(item)))


def _check_sources(value, field, corpus):
    """Check a dict from claim IDs to sources, one document at least."""
    if type(value) is not dict:
        raise _invalid(field, "expected a dict, got %s", value)
    _check_ids(tuple(value), field)
    for claim_id, sources in value.items():
        where = "%s[%s]" % (field, ascii(claim_id))  # an ID by now: short
        _check_ids(sources, where, corpus)
        if not sources:
            raise _invalid(where, "expected at least one source, got %s",
                           sources)


def _check_claims(value, field):
    """Check a tuple of (claim ID, citations) pairs; cited IDs may be any."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    for index, pair in enumerate(value):
        if type(pair) is not tuple or len(pair) != 2:
            raise _invalid("%s[%d]" % (field, index), "expected a (claim "
                           "ID, citations) pair, got %s", pair)
        _check_ids(pair[1], "%s[%d][1]" % (field, index))
    _check_ids(tuple(claim_id for claim_id, _ in value), field)


# Each key of a case and of a run: must it be there, may it be None, and
# what it holds: documents, claim IDs, {claim: documents} or an answer.
_CASE_KEYS = {
    "relevant":   (True, True, "documents"),  # None: nobody labelled them
    "support":    (True, True, "sources"),  # expected claim: its sources
    "optional":   (False, False, "sources"),  # supported, not expected
    "disputed":   (False, False, "sources"),  # one reviewer's labels
    "rejected":   (False, False, "claims"),  # unsupported, all say
    "restricted": (False, False, "documents"),  # not for the asker's eyes
}
_JUDGEMENTS = ("optional", "disputed", "rejected")  # beside "support"
_RUN_KEYS = {
    "retrieved": (True, False, "documents"),  # in rank order
    "claims":    (True, True, "answer"),  # None: no answer is made
}


def _check_fields(mapping, name, keys, corpus, known=None):
    """Check a dict that holds the keys `keys` says it must, as it says."""
    if type(mapping) is not dict:
        raise _invalid(name, "expected a dict, got %s", mapping)
    _check_keys(mapping, name, known or keys)  # a typo first: it hides one
    for key, (needed, none_allowed, holds) in keys.items():
        field, value = '%s["%s"]' % (name, key), mapping.get(key)
        if key not in mapping and needed:
            raise _invalid(field, "missing from %s", mapping)
        if key not in mapping or value is None and none_allowed:
            continue
        if holds == "sources":
            _check_sources(value, field, corpus)
        elif holds == "answer":
            _check_claims(value, field)
        else:
            _check_ids(value, field, corpus if holds == "documents" else None)


def _check_case(case, corpus, known=None):
    """Check a case's fields, then the rules that tie them together."""
    _check_fields(case, "case", _CASE_KEYS, corpus, known)
    relevant, support = case["relevant"], case["support"]
    # Relevant documents need an expected claim: both empty is unanswerable.
    if relevant and support == {}:
        raise _invalid('case["support"]', 'expected claims for '
                       'case["relevant"] %s, got %s', relevant, support)
    support, optional = support or {}, case.get("optional", {})
    disputed = case.get("disputed", {})
    wanted = set(relevant or ())  # sets: each check grows with the labels
    for key, labels in (("support", support), ("disputed", disputed)):
        for claim_id, sources in labels.items():
            # An expected claim's sources, agreed or disputed, are relevant.
            outside = [source for source in sources if claim_id in support
                       and relevant is not None and source not in wanted]
            if outside:
                raise _invalid('case["%s"][%s]' % (key, _shown(claim_id)),
                               'source %s is not in case["relevant"]',
                               outside[0])
    for claim_id, sources in disputed.items():
        agreed = {*support.get(claim_id, ()), *optional.get(claim_id, ())}
        for source in sources:  # agreed or disputed, never both
            if source in agreed:
                raise _invalid('case["disputed"][%s]' % _shown(claim_id),
                               'source %s is also in case["support"] or '
                               'case["optional"]', source)
    for claim_id in optional:
        if claim_id in support:
            raise _invalid('case["optional"]',
                           'claim %s is also in case["support"]', claim_id)
    labelled = {*support, *optional, *disputed}
    for claim_id in case.get("rejected", ()):
        # Judged unsupported by every document: it can have no source.
        if claim_id in labelled:
            raise _invalid('case["rejected"]', 'claim %s has sources in '
                           'case["support"], case["optional"] or '
                           'case["disputed"]', claim_id)
    for doc_id in case.get("restricted", ()):
        if doc_id in wanted:  # what the asker may not see cannot be
            raise _invalid('case["restricted"]',  # their evidence
                           'document %s is in case["relevant"]', doc_id)


def _check_corpus(corpus):
    """Check that corpus maps IDs (one at least) to None or to a text."""
    if type(corpus) is not dict or not corpus:
        raise _invalid("corpus", "expected a dict of documents, got %s",
                       corpus)
    if not _all_ids(tuple(corpus)):
        raise _invalid("corpus", "invalid ID %s (" + _ID_RULE + ")", next(
            doc_id for doc_id in corpus if not _all_ids((doc_id,))))
    for doc_id, text in corpus.items():
        # Text is checked for shape only: nothing here reads what it says.
        if text is not None and (type(text) is not str or not text.strip()):
            raise _invalid("corpus[%s]" % _shown(doc_id), "expected a "
                           "text that is not blank, or None, got %s", text)


_COUNTS = ("relevant", "k", "hits", "first_hit", "generated", "supported",
           "expected", "covered", "disclosed")  # tally()'s, in its order
# (part, whole): a part is never above its whole, nor there without it.
_PARTS = (("hits", "k"), ("hits", "relevant"), ("first_hit", "k"),
          ("supported", "generated"), ("covered", "expected"),
          ("covered", "supported"))


def _check_counts(counts):
    """Check counts as tally() gives them, in range and agreeing."""
    if type(counts) is dict:
        _check_keys(counts, "counts")  # exact str keys, before comparing
    if type(counts) is not dict or counts.keys() != set(_COUNTS):
        raise _invalid("counts", "expected a dict of the keys tally() "
                       "gives, got %s", counts)
    for key in _COUNTS:
        value, least = counts[key], int(key in ("k", "first_hit"))
        most = _MAX_K if key in ("k", "first_hit") else _MAX_IDS
        if not (type(value) is int and least <= value <= most) and (
                value is not None or key in ("k", "disclosed")):
            raise _invalid('counts["%s"]' % key, "expected an int from %s "
                           "to %s, got %s", least, most, value)
    for key, none, when in (
            ("hits", counts["relevant"] is None, '"relevant"] is None'),
            ("first_hit", not counts["hits"], '"hits"] is 0 or None'),
            ("covered", None in (counts["supported"], counts["expected"]),
             '"supported"] or counts["expected"] is None')):
        if (counts[key] is None) != none:
            raise _invalid('counts["%s"]' % key, "expected None exactly "
                           "when counts[" + when + ", got %s", counts[key])
    for part, whole in _PARTS:
        if counts[part] is not None and not 0 <= counts[part] <= (
                counts[whole] if counts[whole] is not None else -1):
            raise _invalid('counts["%s"]' % part, 'expected at most counts'
                           '["' + whole + '"], %s, got %s', counts[whole],
                           counts[part])


def _check_k(k):
    """Check that the cutoff k is an int from 1 to 1,000 (True is not)."""
    if type(k) is not int or not 1 <= k <= _MAX_K:
        raise _invalid("k", "expected an int from 1 to %s, got %s", _MAX_K, k)


# START OF THE CONTRACT OF ONE QUESTION: the rules, then public functions.
def validate(corpus, case, run, k):
    """Check every input rule, in the order corpus, case, run, k; return
    (relevant, support, retrieved, claims), the very objects checked."""
    _check_corpus(corpus)
    _check_case(case, corpus)
    _check_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return case["relevant"], case["support"], run["retrieved"], run["claims"]


def _retrieval_counts(relevant, retrieved, k):
    """Step 1. Return {"relevant": the size of the set relevant, "k": k,
    "hits": how many of the first k of retrieved (IDs in rank order) are
    relevant, "first_hit": the rank, from 1, of the first of those, None
    with none}. Only the top k count: a relevant document ranked k + 1 is
    no hit. Each count but k is None when relevant is None."""
    if relevant is None:  # nobody labelled relevance
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    ranks = [rank for rank, doc_id in enumerate(retrieved[:k], start=1)
             if doc_id in relevant]
    return {"relevant": len(relevant), "k": k, "hits": len(ranks),
            "first_hit": ranks[0] if ranks else None}


def _labels(case):
    """Step 2. Return {claim ID: the set of its sources} of each claim of
    case["support"] (None holds none) and of case.get("optional", {}): an
    optional claim is supported too. Return None instead when "support" is
    None and the case has no key of _JUDGEMENTS ("optional", "disputed",
    "rejected"), not even an empty one: nothing judges an answer."""
    if case["support"] is None and not any(
            key in case for key in _JUDGEMENTS):
        return None
    labels = {**(case["support"] or {}), **case.get("optional", {})}
    return {claim_id: set(sources) for claim_id, sources in labels.items()}


def _claim_counts(support, claims, reasons):
    """Step 3. Return {"generated": how many pairs claims holds,
    "supported": how many pairs of reasons ((claim ID, reason), a pair per
    claim) have the reason None, "expected": how many claims support holds,
    "covered": how many supported claims are keys of support}. None passes
    through: each is None when what it counts (claims, reasons, support) is
    None; "covered" is None when reasons or support is."""
    supported = None if reasons is None else [
        claim for claim, reason in reasons if reason is None]
    covered = None if supported is None or support is None else [
        claim for claim in supported if claim in support]
    return {"generated": None if claims is None else len(claims),
            "supported": None if supported is None else len(supported),
            "expected": None if support is None else len(support),
            "covered": None if covered is None else len(covered)}


def _values(counts):
    """Step 4. Return the six values of counts (tally()'s), in order:
    "precision" hits / k, "recall" hits / relevant, "rr" 1 / first_hit
    (0.0 when first_hit is None), each None when relevant is 0 or None;
    "support" supported / generated, None when supported is None or
    generated is 0; "coverage" covered / expected, None when covered is
    None or expected is 0; "abstention_correct", when covered is not None
    and expected is 0 (unanswerable), whether generated is 0, else None."""
    ranked = bool(counts["relevant"])  # n/a is None, never 0
    judged = counts["supported"] is not None and counts["generated"]
    listed = counts["covered"] is not None  # and the claims expected
    first_hit = counts["first_hit"]
    return {  # fixed slots: precision divides by k, however many came back
        "precision": counts["hits"] / counts["k"] if ranked else None,
        "recall": counts["hits"] / counts["relevant"] if ranked else None,
        "rr": (1 / first_hit if first_hit else 0.0) if ranked else None,
        "support": counts["supported"] / counts["generated"]
        if judged else None,
        "coverage": counts["covered"] / counts["expected"]
        if listed and counts["expected"] else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": not counts["generated"]
        if listed and not counts["expected"] else None,
    }


def _uncovered(support, supported):
    """Step 5. Return a tuple of the claim IDs of support (a dict), in its
    order, not in the set supported: the expected claims not covered."""
    return tuple(claim_id for claim_id in support
                 if claim_id not in supported)


def _unsupported_because(claim_id, citations, labels, visible, corpus):
    """Step 6. Return None for a supported claim, else the first rule it
    breaks, in this order, each rule tried on every citation before the
    next: "no citation" (citations, a tuple, is empty); "no label"
    (claim_id is no key of labels, from _labels()); "not in the corpus"
    (no key of corpus); "not a labelled source" (not in labels[claim_id]);
    "outside the top k" (not in visible, the set of the top k)."""
    if not citations:  # one good citation does not excuse a bad one
        return "no citation"
    if claim_id not in labels:
        return "no label"  # nobody judged this claim supported
    for reason, known in (("not in the corpus", corpus),  # a typo, often
                          ("not a labelled source", labels[claim_id]),
                          ("outside the top k", visible)):  # hidden
        if any(cited not in known for cited in citations):
            return reason
    return None


def _disclosed(restricted, retrieved, claims, k):
    """Step 7. Return a tuple of the keys of restricted ({ID: its place})
    among the first k of retrieved or cited by a claim of claims ((claim
    ID, citations) pairs), ordered by their places."""
    exposed = set(retrieved[:k])  # the answer stage's context
    for claim_id, citations in claims:
        exposed.update(citations)  # a citation quotes it
    found = [doc_id for doc_id in exposed if doc_id in restricted]
    return tuple(sorted(found, key=restricted.get))


def _lenient_reading(case):
    """Step 8. Return a new dict: case, each disputed label agreed. With
    no key "disputed", a copy. Else a copy without it, each disputed claim's
    sources after its agreed ones: in "support" for a claim there, else in
    "optional" (a new claim if need be); "support" is replaced unless None;
    "optional" is set when it holds a claim or "support" is None."""
    reading = {key: value for key, value in case.items() if key != "disputed"}
    if "disputed" in case:
        support = dict(case["support"] or {})
        optional = dict(case.get("optional", {}))
        for claim_id, sources in case["disputed"].items():
            labels = support if claim_id in support else optional
            labels[claim_id] = labels.get(claim_id, ()) + sources
        if case["support"] is not None:
            reading["support"] = support
        if optional or case["support"] is None:  # still judged
            reading["optional"] = optional
    return reading


def _reviewed(reasons, loose, rejected):
    """Step 9. Return [(claim ID, reason)], a pair per pair of reasons
    (the strict reading's), told apart by reviewers' records: loose holds
    the lenient reading's pairs in order; rejected is a set of claim IDs.
    The first that applies: a claim in rejected, "judged unsupported",
    whatever its reasons; a reason not None where loose's is None, "only a
    disputed label supports it"; "no label", loose's reason; else as is."""
    told = []
    for (claim_id, reason), (_, loose_reason) in zip(reasons, loose):
        if claim_id in rejected:
            reason = "judged unsupported"
        elif reason is not None and loose_reason is None:
            reason = "only a disputed label supports it"
        elif reason == "no label":  # disputed, or never reviewed
            reason = loose_reason
        told.append((claim_id, reason))
    return told


def _lookups(case):
    """Return what scoring reads of a checked case, as sets: its relevant
    documents (or None), "support", _labels(), {restricted ID: place}."""
    relevant, restricted = case["relevant"], case.get("restricted", ())
    return (None if relevant is None else set(relevant), case["support"],
            _labels(case), dict(zip(restricted, range(len(restricted)))))


def _judgement(lookups, retrieved, claims, k, corpus):
    """Return a run's counts as tally() gives them, its reasons (None, or
    [(claim ID, _unsupported_because())] in answer order) and the restricted
    documents it discloses (lookups: _lookups())."""
    relevant, support, labels, restricted = lookups
    counts = _retrieval_counts(relevant, retrieved, k)
    visible = set(retrieved[:k])  # the answer stage's context: all it saw
    reasons = None if claims is None or labels is None else [
        (claim_id, _unsupported_because(claim_id, citations, labels,
                                        visible, corpus))
        for claim_id, citations in claims]
    counts.update(_claim_counts(support, claims, reasons))
    disclosed = () if not restricted else _disclosed(  # none to disclose
        restricted, retrieved, claims or (), k)
    counts["disclosed"] = len(disclosed)  # a count, never a score
    return {key: counts[key] for key in _COUNTS}, reasons, disclosed


def tally(corpus, case, run, *, k=2):
    """Validate; return the counts behind the six values, as _COUNTS."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    return _judgement(_lookups(case), retrieved, claims, k, corpus)[0]


def lenient(case):
    """Check a case (IDs alone, no corpus); return its _lenient_reading()."""
    _check_case(case, None)
    return _lenient_reading(case)


def scores(counts):
    """Check counts as tally() gives them; return their six values."""
    _check_counts(counts)
    return _values(counts)


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs; return a dict of its six values."""
    return _values(tally(corpus, case, run, k=k))  # counts tally() checked


def explain(corpus, case, run, *, k=2):
    """Validate; return "claims", each claim's reason (_reviewed()), None
    with no answer or nothing to judge it; "uncovered" (_uncovered()), None
    also without "support"; and "disclosed" (_disclosed())."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    counts, reasons, disclosed = _judgement(_lookups(case), retrieved,
                                            claims, k, corpus)
    if reasons is None:
        return {"claims": None, "uncovered": None, "disclosed": disclosed}
    supported = {claim for claim, reason in reasons if reason is None}
    uncovered = None if support is None else _uncovered(support, supported)
    if "disputed" in case or "rejected" in case:  # what reviewers recorded
        loose = reasons if "disputed" not in case else _judgement(
            _lookups(_lenient_reading(case)), retrieved, claims, k, corpus)[1]
        reasons = _reviewed(reasons, loose, set(case.get("rejected", ())))
    return {"claims": tuple(reasons), "uncovered": uncovered,
            "disclosed": disclosed}


# END OF THE CONTRACT OF ONE QUESTION


__all__ += ["MEASURES", "ndcg", "paired_test", "p_text", "report",
            "report_text", "gate_text", "load_data", "load_trec"]

# Below END, each layer uses what is above it, the contract's private
# functions too: each input is checked once, where it comes in, into the
# records that the rest reads without checking them again.

import math  # noqa: E402  (math, os, stat and sys load at once)
import os  # noqa: E402
import stat  # noqa: E402
import sys  # noqa: E402

# --- Names, and the keys of a case only a report reads --------------------

_MAX_RUNS = 100  # repeated runs of one question by one system
_MAX_QUESTIONS = 100000  # of a data set: 4 to 8 KiB each, kept
_MAX_CELLS = 2 * 10 ** 6  # questions x systems: the table's cells, kept
_MAX_SCORED = 150000  # runs scored in all: about 2.5 KiB each, kept
_MAX_SYSTEMS = 100  # the baseline among them: each candidate is tested
_MAX_TAGS = 20  # of one question
_MAX_TAGS_IN_ALL = 100  # each a slice of the summary
_MAX_KEYS_READ = 100000  # of the cases, of the runs: each typo-checked
_NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"
_ALL_CASE_KEYS = (*_CASE_KEYS, "grades", "group", "tags")  # _check_extra()


def _check_dict_of(value, field, keys, template, *shown):
    """Check that value is a dict whose keys are exactly `keys`, each an
    exact str; else raise 'field: template', shown and value _shown()."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or value.keys() != set(keys):
        raise _invalid(field, template, *shown, value)


def _check_name(value, field):
    """Check a case, system, group or tag name: it heads rows, so it prints
    the same on any terminal and leaves a row's words unambiguous."""
    if not (type(value) is str and 0 < len(value) <= 64
            and value.isascii() and value.isprintable()
            and " " not in value):
        raise _invalid(field, "invalid name %s (" + _NAME_RULE + ")", value)


def _check_names(value, field, most):
    """Check a tuple of 1 to `most` distinct names."""
    if type(value) is not tuple or not 0 < len(value) <= most:
        raise _invalid(field, "expected a tuple of 1 to %s names, got %s",
                       most, value)
    for name in value:
        _check_name(name, field)
    if len(set(value)) < len(value):
        repeated = [name for name in value if value.count(name) > 1]
        raise _invalid(field, "repeated name %s", repeated[0])


def _check_extra(case, corpus, known=_ALL_CASE_KEYS):
    """Check a case as _check_case() does, typos of the keys only a report
    reads too, then those keys if given: "grades" (nDCG's gains), "group"
    (the conversation or topic it is in) and "tags" (each a slice)."""
    _check_case(case, corpus, known)
    if "grades" in case:
        _check_dict_of(case["grades"], 'case["grades"]', case["relevant"]
                       or (), 'expected a grade for each document of case'
                       '["relevant"] %s, got %s', case["relevant"])
        for doc_id, grade in case["grades"].items():
            if type(grade) is not int or not 1 <= grade <= 100:
                raise _invalid('case["grades"][%s]' % _shown(doc_id),
                               "expected an int from 1 to 100, got %s", grade)
    if "group" in case:
        _check_name(case["group"], 'case["group"]')
    if "tags" in case:
        _check_names(case["tags"], 'case["tags"]', _MAX_TAGS)


# --- The measures of one question -----------------------------------------

def _discounted(gains):
    """Return the sum of the gains, each over math.log2(its rank + 1),
    added in rank order as trec_eval adds them (not sum(): from 3.12 on, it
    compensates, and the last digit would differ between Pythons)."""
    total = 0.0
    for rank, gain in enumerate(gains, start=1):
        total += gain / math.log2(rank + 1)
    return total


def _gains(case, k):
    """Return ({relevant document: its gain}, the discounted gain of the
    best ranking's top k) of a checked case; None with nothing relevant."""
    if not case["relevant"]:
        return None
    gains = case.get("grades") or dict.fromkeys(case["relevant"], 1)
    return gains, _discounted(sorted(gains.values(), reverse=True)[:k])


def _ndcg(gains, run, k):
    """Return nDCG@k of a run, its case read by _gains()."""
    if gains is None:
        return None
    gain_of, best = gains
    found = [gain_of.get(doc_id, 0) for doc_id in run["retrieved"][:k]]
    return _discounted(found) / best


def ndcg(corpus, case, run, *, k=2):
    """Validate like evaluate(), the keys a report reads too; return nDCG@k
    as trec_eval's ndcg_cut gives it: the gain of the top k over the best
    ranking's, a document's gain its grade (1 without grades) over
    math.log2(rank + 1); 0.0 with no hit, None with nothing relevant."""
    _check_corpus(corpus)
    _check_extra(case, corpus)
    _check_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return _ndcg(_gains(case, k), run, k)


# A report's measures, in the order of its columns: each entry's label at
# cutoff k and when it is n/a; "yes_no": counted, never averaged; "answer":
# n/a without an answer (a candidate's silence counts as "lowest", 0.0
# unless given: see _sides()); "needs": the case key without which data
# leaves it out; "value": a function of (the case, or what "reads" of it
# and k gives once), the run and k, else evaluate()'s. To add a measure,
# add its entry.
MEASURES = {
    "precision": {"label": "P@%d", "n/a": "nothing is labelled relevant"},
    "recall": {"label": "R@%d", "n/a": "nothing is labelled relevant"},
    "rr": {"label": "RR@%d", "n/a": "nothing is labelled relevant"},
    "support": {"label": "support", "answer": True,
                "n/a": "the answer has no claim, or nothing judges it"},
    "coverage": {"label": "coverage", "answer": True,
                 "n/a": "no claim is expected"},
    "abstention_correct": {"label": "abstention", "yes_no": True,
                           "answer": True, "n/a": "a claim is expected"},
    "ndcg": {"label": "nDCG@%d", "reads": _gains, "value": _ndcg,
             "needs": "grades", "n/a": "nothing is labelled relevant"},
}


def _averaged(measures):
    """Return the named measures averaged and tested: all but yes_no."""
    return [name for name in measures if not MEASURES[name].get("yes_no")]


# --- Checked data ----------------------------------------------------------

_DATA_KEYS = ("k", "systems", "corpus", "cases", "runs", "policy",
              "manifests", "notes")
_SLICES = ("answerable", "unanswerable")


class _Record:
    """Named fields, set from the arguments in the order of __slots__
    (a namedtuple takes longer to import than the table takes to print)."""

    __slots__ = ()

    def __init__(self, *values):
        for name, value in zip(self.__slots__, values):
            setattr(self, name, value)


class _Question(_Record):
    """A checked case: its name, the case, {system: a tuple of its checked
    runs}, whether it is answerable, {reading: its _lookups()} (lenient
    too where it disputes a label) and the slices it is in."""

    __slots__ = ("name", "case", "runs", "answerable", "lookups", "slices")


class _Data(_Record):
    """A checked data set: k, the systems (the baseline first), the corpus
    (the IDs named where none is given), {name: _Question} in case order,
    the policy and manifests (or None), its measures, {slice: question
    names}, {name: group} (None when no case names one) and its notes."""

    __slots__ = ("k", "systems", "corpus", "questions", "policy",
                 "manifests", "measures", "slices", "groups", "notes")


def _data_parts(data):
    """Return a data set's parts as a dict of _DATA_KEYS, k 2 and the rest
    None when left out, once its keys, k, systems and notes are checked."""
    if type(data) is not dict:
        raise _invalid("data", "expected a dict with the keys %s, got %s",
                       _DATA_KEYS, data)
    for key in data:
        if key not in _DATA_KEYS:  # a misspelt "policy" must not pass unseen
            raise _invalid("data", "unknown key %s; the keys are %s", key,
                           _DATA_KEYS)
    for key in ("systems", "cases", "runs"):  # a corpus may be left out
        if key not in data:
            raise _invalid("data", "missing the key %s", key)
    parts = {**dict.fromkeys(_DATA_KEYS), "k": 2, **data}
    _check_k(parts["k"])
    _check_names(parts["systems"], "systems", _MAX_SYSTEMS)
    notes = parts["notes"]  # what load_trec() left out, say
    if notes is not None and not (
            type(notes) is tuple and len(notes) <= 10 and all(
                type(note) is str and len(note) <= 500 and note.isprintable()
                for note in notes)):
        raise _invalid("notes", "expected a tuple of at most 10 lines of "
                       "text, got %s", notes)
    return parts


def _check_manifests(manifests, systems):
    """Check that manifests gives each system a dict of strings, the same
    "corpus", "questions", "permissions" and "rubric" for all (left out:
    None): runs that differ in one of them compare nothing."""
    _check_dict_of(manifests, "manifests", systems, "expected a dict with "
                   "the keys %s, got %s", systems)
    first = manifests[systems[0]]  # the baseline's: checked first
    for system in systems:
        field = "manifests[%s]" % _shown(system)
        if type(manifests[system]) is not dict:
            raise _invalid(field, "expected a dict of strings, got %s",
                           manifests[system])
        for key, value in manifests[system].items():
            _check_name(key, field)  # printed as it is: a name's rule holds
            if type(value) is not str:
                raise _invalid("%s[%s]" % (field, _shown(key)),
                               "expected a string, got %s", value)
        for key in ("corpus", "questions", "permissions", "rubric"):
            if first.get(key) != manifests[system].get(key):
                raise _invalid("manifests", '"' + key + '" must be the '
                               "same for every system, got %s for %s and "
                               "%s for %s", first.get(key), systems[0],
                               manifests[system].get(key), system)


def _check_layout(cases, runs, systems):
    """Check that cases and runs are dicts by case name, each run of a
    case and a listed system, each case a dict some system ran, each system
    one that ran a case, _MAX_QUESTIONS (fewer past 20 systems) and
    _MAX_SCORED runs scored: twice where a case disputes a label."""
    for part, value in (("cases", cases), ("runs", runs)):
        if type(value) is not dict:
            raise _invalid(part, "expected a dict, got %s", value)
        _check_keys(value, part)
    most = min(_MAX_QUESTIONS, _MAX_CELLS // len(systems))
    if len(cases) > most:
        raise _invalid("cases", "expected at most %s questions for %s "
                       "systems, got %s", most, len(systems), len(cases))
    for name, by_system in runs.items():
        if name not in cases:
            raise _invalid("runs", "no case named %s", name)
        if type(by_system) is not dict:
            raise _invalid("runs[%s]" % _shown(name), "expected a dict of "
                           "runs by system, got %s", by_system)
        for system in by_system:
            if type(system) is not str or system not in systems:
                _check_keys(by_system, "runs[%s]" % _shown(name))  # not str?
                raise _invalid("runs[%s]" % _shown(name), "system %s is "
                               'not in "systems"', system)
    scored = 0
    for name, case in cases.items():
        _check_name(name, "cases")
        if type(case) is not dict:
            raise _invalid("case %s" % _shown(name), "expected a dict, got "
                           "%s", case)
        if not runs.get(name):
            raise _invalid("case %s" % _shown(name), "no system ran it: "
                           "missing from runs")
        readings = 1 + bool(case.get("disputed"))
        for given in runs[name].values():
            scored += readings * (len(given) if type(given) is tuple else 1)
    if scored > _MAX_SCORED:
        raise _invalid("runs", "expected at most %s runs scored in all (a "
                       "lenient reading scores a run again), got %s",
                       _MAX_SCORED, scored)
    ran = {system for by_system in runs.values() for system in by_system}
    for system in systems:
        if system not in ran:
            raise _invalid("systems", "%s ran no case: give its runs, or "
                           "leave it out", system)


def _keys_read(values, known, field):
    """Return known, then each other key of the dicts among values (a tuple
    of them too) that is no typo of known: each checked once, not once per
    dict. A typo is left out, for the dict that holds it to name it."""
    keys = set(known)
    for value in values:
        for mapping in value if type(value) is tuple else (value,):
            if type(mapping) is dict:
                keys.update(mapping)
    if len(keys) > _MAX_KEYS_READ:
        raise _invalid(field, "expected at most %s keys in all, got %s",
                       _MAX_KEYS_READ, len(keys))
    cleared = dict.fromkeys(known)  # first: a typo's search meets them
    for key in keys:
        try:
            _check_keys({key: None}, field, known)
            cleared[key] = None
        except EvaluationError:
            pass  # a typo, or not an exact str
    return cleared


def _question(name, case, by_system, corpus, known):
    """Return the _Question of a case and its runs by system (a run, or a
    tuple of repeated runs), each checked once against the corpus (None:
    IDs alone) and known, the keys of cases and of runs _keys_read(); a
    fault names the case, the system and the run."""
    runs, system, number = {}, None, 0
    try:
        _check_extra(case, corpus, known[0])
        for system, given in by_system.items():
            runs[system] = given if type(given) is tuple else (given,)
            if not 0 < len(runs[system]) <= _MAX_RUNS:
                raise _invalid("runs", "expected 1 to %s repeated runs, "
                               "got %s", _MAX_RUNS, given)
            for number, run in enumerate(runs[system], start=1):
                _check_fields(run, "run", _RUN_KEYS, corpus, known[1])
            number = 0
    except EvaluationError as fault:  # only now is its place written out
        where = "case " + _shown(name)
        if system is not None:
            where += ", system " + _shown(system)
        if number and type(given) is tuple:
            where += ", run %d" % number
        raise EvaluationError("%s: %s" % (where, fault)) from None
    lookups = {"strict": _lookups(case)}
    if case.get("disputed"):
        lookups["lenient"] = _lookups(_lenient_reading(case))
    # Unanswerable: nothing relevant or no claim expected: answer nothing.
    answerable = case["relevant"] != () and case["support"] != {}
    slices = (_SLICES[not answerable],  # each name held once
              *(sys.intern("tag:" + tag) for tag in case.get("tags", ())))
    return _Question(name, case, runs, answerable, lookups, slices)


def _checked(data):
    """Return a data set (a dict of _DATA_KEYS) checked once, as _Data: its
    keys, k, systems and notes, the manifests, the corpus, the layout of
    cases and runs, each case and run in full, the tags, then the policy."""
    parts = _data_parts(data)
    cases, systems, corpus = parts["cases"], parts["systems"], parts["corpus"]
    if parts["manifests"] is not None:
        _check_manifests(parts["manifests"], systems)
    if corpus is not None:
        _check_corpus(corpus)
    _check_layout(cases, parts["runs"], systems)
    runs = [given for by_system in parts["runs"].values()
            for given in by_system.values()]
    known = (_keys_read(cases.values(), _ALL_CASE_KEYS, "cases"),
             _keys_read(runs, _RUN_KEYS, "runs"))
    measures = [name for name, measure in MEASURES.items()
                if "needs" not in measure or any(
                    measure["needs"] in case for case in cases.values())]
    questions = {name: _question(name, case, parts["runs"][name], corpus,
                                 known)
                 for name, case in cases.items()}
    # The slices: the answerable, the unanswerable, then "tag:NAME" per tag
    # in the order tags are first used; each holds names in case order.
    slices, named = {part: [] for part in _SLICES}, set()
    for question in questions.values():
        for part in question.slices:
            slices.setdefault(part, []).append(question.name)
        if corpus is None:  # the IDs named, disputed sources too
            relevant, _, labels, restricted = question.lookups.get(
                "lenient", question.lookups["strict"])
            named.update(relevant or (), restricted, *(labels or {}).values(),
                         *(run["retrieved"] for runs in question.runs.values()
                           for run in runs))
    if len(slices) > len(_SLICES) + _MAX_TAGS_IN_ALL:
        raise _invalid("cases", "expected at most %s tags in all, got %s",
                       _MAX_TAGS_IN_ALL, len(slices) - len(_SLICES))
    groups = {name: case.get("group") for name, case in cases.items()}
    if not any(groups.values()):  # no case names one
        groups = None
    checked = _Data(parts["k"], systems, corpus or named,
                    questions, parts["policy"], parts["manifests"], measures,
                    slices, groups, parts["notes"])
    if checked.policy is not None:  # a fault of the data, whatever is asked
        _check_policy(checked)
    return checked


# --- The scored records ----------------------------------------------------
# Each checked run is scored once in each reading, at a cost of what it
# holds and k (_lookups() read the labels). Everything below reads these.

class _Scored(_Record):
    """One question run by one system, in one reading: {measure: the mean
    of its runs' values} (None: n/a), {count: the mean of its runs'}, each
    run's (values, counts), each run's explanation (explain()'s keys), and
    whether the question is answerable."""

    __slots__ = ("values", "counts", "runs", "explained", "answerable")


class _Records(_Record):
    """The scored data: {system: {question name: _Scored}} in the strict
    reading, and in the lenient one (None when no label is disputed; there
    a question that disputes none has its strict values)."""

    __slots__ = ("strict", "lenient")


def _mean(values, exact=False):
    """Return the mean of the values that are not None (n/a is skipped,
    never averaged in as 0), or None when every one is; exact (of counts),
    an int when whole, else a Fraction such as 3/2."""
    present = [value for value in values if value is not None]
    if not present:
        return None
    if not exact:
        return math.fsum(present) / len(present)
    from fractions import Fraction  # (slow to load: the table needs none)
    mean = Fraction(sum(present), len(present))
    return mean.numerator if mean.denominator == 1 else mean


def _scored_run(data, question, run, reads):
    """Return {reading: (values, counts)} of one checked run, values in the
    order of the data's measures, and its explanation, as explain() gives."""
    retrieved, claims, case = run["retrieved"], run["claims"], question.case
    judged = {reading: _judgement(lookups, retrieved, claims, data.k,
                                  data.corpus)
              for reading, lookups in question.lookups.items()}
    own = {name: MEASURES[name]["value"](reads.get(name, case), run, data.k)
           for name in data.measures if "value" in MEASURES[name]}
    scored = {}
    for reading, (counts, _, _) in judged.items():
        found = {**_values(counts), **own}  # own: alike in each reading
        scored[reading] = {name: found[name] for name in data.measures}, counts
    reasons, disclosed = judged["strict"][1:]
    if reasons is None:
        return scored, {"claims": None, "uncovered": None,
                        "disclosed": disclosed}
    supported = {claim for claim, reason in reasons if reason is None}
    uncovered = None if case["support"] is None else _uncovered(
        case["support"], supported)
    if "disputed" in case or "rejected" in case:  # what reviewers recorded
        loose = judged.get("lenient", judged["strict"])[1]
        reasons = _reviewed(reasons, loose, set(case.get("rejected", ())))
    return scored, {"claims": tuple(reasons), "uncovered": uncovered,
                    "disclosed": disclosed}


def _records(data):
    """Return the _Records of checked data: each question each system ran,
    scored and explained run by run."""
    disputed = any("lenient" in question.lookups
                   for question in data.questions.values())
    records = _Records({system: {} for system in data.systems},
                       {system: {} for system in data.systems}
                       if disputed else None)
    for question in data.questions.values():
        reads = {name: MEASURES[name]["reads"](question.case, data.k)
                 for name in data.measures if "reads" in MEASURES[name]}
        for system, runs in question.runs.items():
            found = [_scored_run(data, question, run, reads) for run in runs]
            scored, explained = zip(*found)  # each run's
            for reading in ("strict", "lenient")[:1 + disputed]:
                pairs = tuple(run.get(reading, run["strict"]) for run in scored)
                values, counts = pairs[0]
                if len(pairs) > 1:
                    values = {name: _mean([run[0][name] for run in pairs])
                              for name in values}
                    counts = {name: _mean([run[1][name] for run in pairs],
                                          True) for name in counts}
                getattr(records, reading)[system][question.name] = _Scored(
                    values, counts, pairs, explained, question.answerable)
    return records


# --- The paired test -------------------------------------------------------
# paired_test() compares values as the exact fractions they stand for; p is
# exact while a budget of steps allows, else sampled from a seed the data
# fixes, with p_upper, a 99.9% bound. A report's tests share one budget.

_MAX_DRAWS = 100000  # of one test: p_upper is within 0.0025 of p = 0.05
_MIN_DRAWS = 1000  # of a test that decides; a fifth for one that does not
_REPORT_STEPS = 30 * 10 ** 6  # exact steps of all a report's tests
_REPORT_DRAWS = 60 * 10 ** 6  # unit-draws of all a report's tests
_SEED = 20261202  # with the test's data: the same on every CPython


def _exact(number):
    """Return the fraction a number stands for: a float within 64 units in
    the last place of a fraction whose denominator is at most a million is
    that fraction (0.3 is 3/10, 1 - 2/3 is 1/3); any other, its value."""
    from fractions import Fraction  # slow to load: the table needs none
    value = Fraction(number)  # a float's value, exactly
    if value.denominator <= 10 ** 6:
        return value  # 0.5 or 3.0: small already
    near = value.limit_denominator(10 ** 6)
    # The float's value is n / 2**e (e at least 52, as it is no int): it is
    # within 64 units in its last place, 2**(exponent - 53), of near = a / b
    # when |n b - a 2**e| 2**(53 - exponent) <= 64 b 2**e, in whole numbers.
    n, power = value.numerator, value.denominator
    a, b = near.numerator, near.denominator
    shift = 53 - max(math.frexp(number)[1], -1021)
    gap = abs(n * b - a * power) << shift
    return near if gap <= 64 * b * power else value


def _scaled(fractions):
    """Return (their least common denominator, the fractions times it), or
    (None, the fractions) once it needs over 2,200 bits."""
    scale = 1
    for denominator in {fraction.denominator for fraction in fractions}:
        scale = scale * denominator // math.gcd(scale, denominator)
        if scale.bit_length() > 2200:
            return None, fractions
    return scale, [fraction.numerator * (scale // fraction.denominator)
                   for fraction in fractions]


def _float_mean(scale, numbers):
    """Return the mean of _scaled() numbers as a float, rounded once (from
    the floats' sum without a scale); infinite past the largest float."""
    try:
        if scale is None:
            return math.fsum(map(float, numbers)) / len(numbers)
        return sum(numbers) / (scale * len(numbers))
    except OverflowError:  # beyond the largest float on the way
        return math.inf if sum(numbers) > 0 else -math.inf


def _subset_sums(sizes):
    """Return the sums of the 2**len(sizes) subsets of sizes."""
    sums = [0]
    for size in sizes:
        sums += [total + size for total in sums]
    return sums


def _exact_p(sizes, observed, budget):
    """Return the exact p of moved units of whole sizes whose signed sum is
    observed from 0, paid from budget["steps"], or None if it cannot pay."""
    from bisect import bisect_right
    from fractions import Fraction
    from operator import add
    m = len(sizes)
    if not observed:
        return Fraction(1)  # every sum is as far from 0 as that
    # Signs split the sizes into a plus part and a minus part, and the sum
    # is as far from 0 as observed when the plus part is at most (total -
    # observed) / 2, or, swapping the parts, as often again.
    limit = (sum(sizes) - observed) // 2
    listing = 8 * 2 ** (m - m // 2 + 1)  # a listed sum: 8 table cells
    counting = m * (limit + 1) * -(-m // 1000)  # a cell of m bits: a step a 1,000
    if m <= 36 and listing <= budget["steps"]:  # 2 * 2**18 sums: 0.5 s
        budget["steps"] -= listing
        # Listed: each half's subset sums meet in the middle.
        low = sorted(_subset_sums(sizes[:m // 2]))
        count = sum(bisect_right(low, limit - total)
                    for total in _subset_sums(sizes[m // 2:]))
    elif counting <= min(budget["steps"], 22 * 10 ** 6):  # 2 s on 3.8
        budget["steps"] -= counting
        ways = [1] + [0] * limit  # ways[s]: subsets so far that add up to s
        for size in sizes:
            # A subset leaves this size out (ways[s]) or takes it (ways[s -
            # size]): the new ways[s] add the two, for every s from size up.
            ways[size:] = list(map(add, ways[size:], ways))
        count = sum(ways)
    else:
        return None
    return Fraction(2 * count, 2 ** m)


def _sampled_count(sizes, observed, count):
    """Return how many of `count` random sign assignments of the float
    sizes give a sum at least `observed` from 0, from a seed the sizes fix."""
    from collections import Counter
    from random import Random
    # Each size in whole units of 2**-52 of the total, so that every sum is
    # exact. Rounding moves a sum by under 2 units a size: a draw that close
    # counts as extreme, so rounding can only raise p.
    scale = 2 ** 52 / math.fsum(sizes)
    units = [float(round(size * scale)) for size in sizes]
    total = sum(units)
    limit = (total - round(observed * scale)) // 2 + 2 * len(units) + 2
    draws = Random(_SEED * 2 ** 64 + int(total) + len(units))
    # The sums of the plus parts: a size 32 units or more share counts once
    # a one bit of a draw of as many bits; of the other units, each byte of
    # a draw picks one of the 256 subset sums of 8 units, listed once.
    shared = Counter(units)
    rare = [unit for unit in units if shared[unit] < 32][::-1]
    tables = [_subset_sums(rare[start:start + 8])
              for start in range(0, len(rare), 8)]
    sums = [0.0] * count
    for draw in range(count if rare else 0):
        picks = draws.getrandbits(len(rare)).to_bytes(len(tables), "little")
        sums[draw] = sum(map(list.__getitem__, tables, picks))
    for size, many in sorted(shared.items()):
        if many >= 32:  # as costly as 32 units bit by bit
            sums = [part + size * bin(draws.getrandbits(many)).count("1")
                    for part in sums]
    return sum(part <= limit or part >= total - limit
               for part in sums)


def _upper_bound(hits, draws):
    """Return the bound the true p is below at 99.9% when `hits` of `draws`
    reached the observed sum: the p at which Chernoff's bound on so few
    hits, exp(-draws * divergence), falls to 1 - 0.999."""
    rate, reach = hits / draws, math.log(1 / (1 - 0.999)) / draws
    if hits == draws:
        return 1.0
    low, high = rate, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        # The Kullback-Leibler divergence of coin `middle` from coin `rate`.
        divergence = (1 - rate) * math.log((1 - rate) / (1 - middle))
        divergence += rate * math.log(rate / middle) if rate else 0.0
        low, high = (middle, high) if divergence < reach else (low, middle)
    return high


def p_text(p, method="exact"):
    """Return a p as the report's text shows it: an exact p as a short
    fraction (1/2), any other with two significant digits (0.091, 3.1e-05)."""
    from fractions import Fraction
    if type(p) not in (Fraction, int, float) or not 0 <= p <= 1:
        raise _invalid("p", "expected a number from 0 to 1, got %s", p)
    if type(method) is not str or method not in ("exact", "sampled"):
        raise _invalid("method", 'expected "exact" or "sampled", got %s',
                       method)
    if method == "exact" and Fraction(p).denominator <= 1000:
        return str(Fraction(p))
    return "%.2g" % p if p > 1e-300 else "below 1e-300"


def _lowest_p(moved):
    """Return 2**(1 - moved), the lowest p `moved` units give, or 1."""
    from fractions import Fraction
    return Fraction(2, 2 ** moved) if moved else Fraction(1)


def _sign_flip_p(numbers, scale, budget):
    """Return {p, p_upper, p_shown, min_p, method, samples, normal_p} of
    the two-sided sign-flip test of the units' _scaled() differences, in
    the order of the units' names, as the budget allows."""
    from fractions import Fraction
    moved = [number for number in numbers if number]
    sizes = [abs(number) for number in moved]
    largest = max(sizes, default=1)
    signed = [float(number / largest) for number in moved]
    # fsum: the same float on every CPython (3.12's sum() compensates).
    floats, observed = [abs(value) for value in signed], abs(math.fsum(signed))
    variance = math.fsum(value * value for value in floats) or 1.0  # 0: none moved
    p = None if scale is None else _exact_p(sizes, abs(sum(moved)), budget)
    found = dict(p=p, p_upper=p, p_shown=None, min_p=_lowest_p(len(moved)),
                 method="exact", samples=None,
                 normal_p=math.erfc(observed / math.sqrt(2 * variance)))
    if p is not None:
        return dict(found, p_shown="p = %s (exact)" % p_text(p))
    # The observed assignment counts as one draw, so p is never 0.
    draws = budget["draws"]
    extreme = _sampled_count(floats, observed, draws)
    # Hoeffding's bound on the exact p, known without sampling.
    hoeffding = min(1.0, 2 * math.exp(-observed ** 2 / (2 * variance)))
    upper = min(_upper_bound(extreme, draws), hoeffding)
    p = Fraction(1 + extreme, 1 + draws)
    shown = "p = %.2g (sampled, %d draws; p <= %.2g at 99.9%%)" % (
        p, draws, upper)
    return dict(found, p=p, p_upper=upper, p_shown=shown, method="sampled",
                samples=draws)


def _question_value(value, side, name, read):
    """Return the mean of a question's runs as a fraction (n/a runs
    skipped), None when n/a; read caches fractions. Faults name side[name]."""
    runs = value if type(value) is tuple else (value,)
    present = [run for run in runs if run is not None]
    # NaN fails every comparison; an int such as 10**400 is too large.
    if not 0 < len(runs) <= _MAX_RUNS or not all(
            type(run) in (int, float) and abs(run) <= sys.float_info.max
            for run in present):
        raise _invalid("%s[%s]" % (side, _shown(name)), "expected a number, "
                       "None or a tuple of 1 to %s of them, got %s",
                       _MAX_RUNS, value)
    for run in present:
        if run not in read:
            read[run] = _exact(run)
    if len(present) < 2:
        return read[present[0]] if present else None  # its own value
    return sum(map(read.get, present)) / len(present)


def _paired(before, after, groups, runs, budget):
    """Return paired_test() of two dicts of fractions or None by question
    name, groups or None; runs counts the questions of unequal runs."""
    units = {}
    for name, old in before.items():
        new = after[name]
        if old is None or new is None:
            continue
        group = None if groups is None else groups[name]
        unit = (1, name) if group is None else (0, group)
        units.setdefault(unit, []).append(new - old)
    # Groups first, then questions without one, by name: in any order.
    units = [units[unit] for unit in sorted(units)]
    differences = [unit[0] if len(unit) == 1 else sum(unit) / len(unit)
                   for unit in units]
    questions = [difference for unit in units for difference in unit]
    scale, numbers = _scaled(differences)
    mean = _float_mean(scale, numbers) if numbers else None
    return {
        "questions": len(questions),
        "left_out": len(before) - len(questions),  # n/a on a side: no pair
        "groups": len(differences),
        "mean": mean,
        "question_mean": mean if len(questions) == len(differences)
        else _float_mean(*_scaled(questions)),
        "wins": sum(number > 0 for number in numbers),
        "ties": numbers.count(0),
        "losses": sum(number < 0 for number in numbers),
        **_sign_flip_p(numbers, scale, budget),
        "unmatched_runs": runs,
    }


def _check_values(before, after, groups):
    """Check paired_test()'s inputs: dicts by before's question names, and
    in groups, a name or None each."""
    for field, value in (("before", before), ("after", after),
                         ("groups", before if groups is None else groups)):
        if type(value) is not dict:
            raise _invalid(field, "expected a dict by question name, got %s",
                           value)
        _check_keys(value, field)
        if value.keys() != before.keys():
            raise _invalid(field, "expected the questions of before %s, "
                           "got %s", tuple(before), tuple(value))
    for name, group in (groups or {}).items():
        if group is not None:
            _check_name(group, "groups[%s]" % _shown(name))


def paired_test(before, after, *, groups=None):
    """Compare two systems question by question with a paired sign-flip test.

    before and after map the same question names to a value, None (n/a:
    left out), or a tuple of up to 100 values of repeated runs, averaged
    within the question. groups, if given, maps each question to its group
    (the turns of a conversation), or to None: the unit is then the group,
    its difference the mean of its questions'.

        questions, left_out     questions compared and left out
        groups                  units: groups, or questions
        mean, question_mean     mean difference (after - before) of the
                                units, and of the questions
        wins, ties, losses      units above, equal to, below before
        p                       two-sided: of the 2**m sign assignments of
                                the m moved units, the share as far from 0
                                as observed or farther (exact, or sampled)
        p_upper, p_shown        a bound above p (p when exact); p in words
        min_p                   2**(1 - m), the lowest p m units give
        method, samples         "exact", or "sampled" and its draws
        normal_p                the normal law's p, for Holm's order
        unmatched_runs          questions whose sides hold unequal runs

    p, p_upper (when exact) and min_p are Fractions, 1 when no unit moved;
    mean is None with no unit. Data in any order gives the same result.
    """
    _check_values(before, after, groups)
    read = {}  # the fraction of each number seen so far: values repeat
    values = [{name: _question_value(value, side, name, read)
               for name, value in by_name.items()}
              for side, by_name in (("before", before), ("after", after))]
    unmatched = sum(len({len(value) if type(value) is tuple else 1
                         for value in (before[name], after[name])}) == 2
                    for name in before)  # the sides' counts of runs differ
    moved = sum(value is not None and value != values[1][name]
                for name, value in values[0].items())
    draws = max(_MIN_DRAWS, min(_MAX_DRAWS, _REPORT_DRAWS // max(moved, 1)))
    budget = {"steps": _REPORT_STEPS, "draws": draws}  # its own
    return _paired(values[0], values[1], groups, unmatched, budget)


# --- Comparing systems -----------------------------------------------------

_VERDICTS = ("improved", "regressed", "mixed", "unchanged", "not judged")
_MAX_TESTED = 10  # candidates past which only the declared measure is tested


def _change(before, after):
    """Return 'better' or 'worse', or None if equal or a side is n/a."""
    if before is None or after is None or after == before:
        return None  # no change; n/a is not comparable: shown, never judged
    # Higher is better; for abstention, yes (True) is above no (False).
    return "better" if after > before else "worse"


def _verdict(before, after):
    """Return one question's verdict from its values before and after: "not
    judged" when only a value with n/a on one side moved."""
    changes = {_change(before[name], after[name]) for name in before}
    if {"better", "worse"} <= changes:
        return "mixed"
    if changes & {"better", "worse"}:
        return "improved" if "better" in changes else "regressed"
    return "not judged" if before != after else "unchanged"


def _macro_mean(values, total):
    """Return {mean, averaged, total}: each question weighs the same; n/a
    (or a question not run) is counted, never averaged in as 0."""
    present = [value for value in values if value is not None]
    mean = math.fsum(present) / len(present) if present else None
    return {"mean": mean, "averaged": len(present), "total": total}


def _judged_claims(record):
    """Return (supported, generated): the claims of a record's judged runs."""
    judged = [counts for _, counts in record.runs
              if counts["supported"] is not None]
    return (sum(counts["supported"] for counts in judged),
            sum(counts["generated"] for counts in judged))


def _pooled_support(pairs):
    """Return {supported, generated, ratio} of _judged_claims() pooled."""
    supported, generated = map(sum, zip((0, 0), *pairs))
    ratio = supported / generated if generated else None
    return {"supported": supported, "generated": generated, "ratio": ratio}


def _means(data, by_system):
    """Return each slice's means: per averaged measure and system, then
    pooled support, then correct abstentions, {correct, total} of the
    judged answers to unanswerable questions (None without such)."""
    averaged = _averaged(data.measures)
    keys = [*averaged, "pooled_support", "correct_abstentions"]
    found = {part: {key: {} for key in keys} for part in data.slices}
    for system, scored in by_system.items():
        in_part = {part: [] for part in data.slices}
        for name, record in scored.items():  # each read once
            asked = not record.answerable and record.counts["covered"] is not None
            abstained = asked and record.counts["generated"] == 0
            entry = (*[record.values[each] for each in averaged],
                     *_judged_claims(record), int(abstained), int(asked))
            for part in data.questions[name].slices:
                in_part[part].append(entry)
        for part, entries in in_part.items():
            means, total = found[part], len(data.slices[part])
            columns = list(zip(*entries)) or [()] * (len(averaged) + 4)
            for measure, column in zip(averaged, columns):
                means[measure][system] = _macro_mean(column, total)
            supported, generated, correct, answered = map(sum, columns[-4:])
            means["pooled_support"][system] = _pooled_support(
                [(supported, generated)])
            means["correct_abstentions"][system] = {
                "correct": correct, "total": answered}
    for means in found.values():  # none judged where runs only retrieve
        per_system = means["correct_abstentions"].values()
        if not any(each["total"] for each in per_system):
            means["correct_abstentions"] = None
    return found


def _silenced(record, measure):
    """Return (a record's value, each run without an answer counted as the
    measure's lowest; how many ran so): silence never scores better. An
    empty answer to an answerable question is one without an answer."""
    if not MEASURES[measure].get("answer"):
        return record.values[measure], 0
    values, silent = [], 0
    for run_values, counts in record.runs:
        value, made = run_values[measure], counts["generated"]
        if value is None and (made is None or record.answerable and not made):
            value, silent = MEASURES[measure].get("lowest", 0.0), silent + 1
        values.append(value)
    return (_mean(values), silent) if silent else (record.values[measure], 0)


def _sides(before, after, names, measure, read, silence):
    """Return (the baseline's values, the candidate's, as exact fractions,
    the questions with unequal runs, (silent questions, runs), the pairs
    that differ) over those of names the baseline ran, and the candidate's
    alone (its slice mean reads them, no pair does); read caches
    fractions (None as None). Where only the baseline has a value, the
    candidate's lowest counts with silence "lowest" (_silenced()), n/a
    with "skipped"."""
    values, unmatched, silent, silent_runs = ({}, {}), 0, [], 0
    moved = 0
    for name in filter(before.__contains__, names):
        record, mine = before[name], after.get(name)
        old, runs = record.values[measure], 0
        new = None if mine is None else mine.values[measure]
        if old is not None and mine is None:  # silent, with no run
            counted, runs = MEASURES[measure].get("lowest", 0.0), 1
        elif old is not None and (new is None or len(mine.runs) > 1):
            counted, runs = _silenced(mine, measure)
            silent_runs += runs
        if runs:
            silent.append(name)
            new = counted if silence == "lowest" else new
        moved += old is not None and new != old
        for value in (old, new):
            if value not in read:  # read[None] is None
                read[value] = _exact(value)
        values[0][name], values[1][name] = read[old], read[new]
        if mine is not None and len(record.runs) != len(mine.runs):
            unmatched += 1  # unequal runs can favour either side
    alone = after.keys() - before.keys()  # the candidate's: in no pair
    for name in filter(alone.__contains__, names):
        new = after[name].values[measure]
        if new not in read:
            read[new] = _exact(new)
        values[1][name] = read[new]
    return values[0], values[1], unmatched, (silent, silent_runs), moved


def _tested(data, records):
    """Return {reading: {candidate: {measure: paired test}}} against the
    baseline on the answerable slice, in one budget: strictly of the
    measures _MAX_TESTED allows, leniently of the declared one."""
    policy, systems = data.policy or {}, data.systems
    declared = policy.get("significance", {}).get("metric")
    declared = [declared] if declared else []
    many = len(systems) - 1 > _MAX_TESTED
    measures = {"strict": declared if many else _averaged(data.measures),
                "lenient": declared}
    tests, read, wanted = {}, {None: None}, []  # read: each value's fraction
    for reading in measures:
        by_system = getattr(records, reading)
        if by_system is None:
            continue
        tests[reading] = {candidate: {} for candidate in systems[1:]}
        for candidate in systems[1:]:
            for measure in measures[reading]:
                wanted.append((tests[reading][candidate], measure, _sides(
                    by_system[systems[0]], by_system[candidate],
                    data.slices["answerable"], measure, read,
                    policy.get("silence", "lowest"))))
    # The most units the tests can move: the pairs of values that differ.
    moved = sum(sides[-1] for *key, sides in wanted)
    share = min(_MAX_DRAWS, _REPORT_DRAWS // max(moved, 1))
    budget = {"steps": _REPORT_STEPS}
    for tested, measure, (before, after, unmatched, silent, _) in wanted:
        least = _MIN_DRAWS if measure in declared else _MIN_DRAWS // 5
        budget["draws"] = max(least, share)
        test = _paired(before, after, data.groups, unmatched, budget)
        test["silent_questions"], test["silent_runs"] = silent
        test["slice_means"] = [_macro_mean(side.values(), len(side))
                               for side in (before, after)]
        tested[measure] = test
    return tests


def _comparison(data, records, candidate, tested, decided):
    """Return the comparison of a candidate with the baseline: each question
    both ran, its verdict and its moved values (measure, before, after,
    judged: neither n/a); its floor, the lowest p were every answerable unit
    both ran to move one way, against alpha of a declared test."""
    systems = (data.systems[0], candidate)
    before, after = records.strict[systems[0]], records.strict[candidate]
    changes, units = [], set()  # units: groups, or questions alone
    groups = data.groups or {}
    for name in filter(after.__contains__, before):
        old, new = before[name].values, after[name].values
        moved = [(measure, old[measure], new[measure],
                  None not in (old[measure], new[measure]))
                 for measure in old if old[measure] != new[measure]]
        changes.append({"case": name, "verdict": _verdict(old, new),
                        "moved": moved})
        if before[name].answerable:
            units.add(groups.get(name) or (name,))
    verdicts = [change["verdict"] for change in changes]
    manifest = None  # the fields of the run manifests that changed
    if data.manifests is not None:
        old, new = (data.manifests[system] for system in systems)
        manifest = [(field, old.get(field), new.get(field))
                    for field in {**old, **new}
                    if old.get(field) != new.get(field)]
    test = (data.policy or {}).get("significance", {})
    level = test.get("alpha", 0.05)  # a floor's, without a declared test
    floor = _lowest_p(len(units))
    return {
        "baseline": systems[0], "candidate": candidate,
        "manifest_changes": manifest,
        "shared": len(changes),
        "changes": changes,
        "totals": {verdict: verdicts.count(verdict) for verdict in _VERDICTS},
        "paired_tests": tested["strict"][candidate],
        "floor": {"p": floor, "units": len(units), "level": level,
                  "below_level": floor < level},
        "decision": decided and decided[candidate],
    }


# --- Deciding --------------------------------------------------------------
# A policy, written with the labels before any run is seen, accepts a
# system or not. To add a rule, write its findings and its _RULES entry.

_NO_BASELINE = "no baseline to compare with"
_NO_ANSWER = "no answer judged against labels"


class _Judging(_Record):
    """What a rule judges: the rule, the policy, the candidate's and the
    baseline's (or None) _Scored records by name, the declared test, and
    {value: _exact(value)} of the values read so far."""

    __slots__ = ("rule", "policy", "candidate", "baseline", "test", "read")


def _number(count):
    """Return a count as it is ('2'), or a mean over repeated runs ('1.50')."""
    return "%d" % count if count == int(count) else "%.2f" % count


def _plural(count, noun):
    """Return '1 claim', '2 claims', or '1.50 claims' for a mean of runs."""
    return "%s %s%s" % (_number(count), noun, "" if count == 1 else "s")


def _listed(names, width=100):
    """Return names joined by commas, cut near `width` characters."""
    shown = []
    for name in names:
        if shown and len(", ".join(shown + [name])) > width:
            return ", ".join(shown) + ", ... (%d in all)" % len(names)
        shown.append(name)
    return ", ".join(shown)


def _counted(judging, record, measure, judged):
    """Return (a record's value of a measure, its runs counted silent): as
    _silenced() gives them if judged and silence is "lowest"."""
    if judged and judging.policy.get("silence", "lowest") == "lowest":
        return _silenced(record, measure)
    return record.values[measure], 0


def _disclosure_findings(judging):
    """Whatever the policy says, a question on which a system disclosed a
    restricted document is broken: no accuracy excuses it."""
    disclosed = {name: record.counts["disclosed"]
                 for name, record in judging.candidate.items()}
    return [(False, (judging.rule, name, _plural(count, "restricted document")
                     + " in the top k or cited"))
            for name, count in disclosed.items() if count]


def _comparison_findings(judging):
    """A candidate that shares no question with the baseline is compared on
    nothing, and cannot be accepted."""
    baseline, candidate = judging.baseline, judging.candidate
    if baseline is None or any(name in baseline for name in candidate):
        return []
    return [(False, (judging.rule, "questions", "no question was run by "
                     "both: nothing compared"))]


def _critical(judging, name):
    """Return (held, detail) of a critical question both ran: no value, as
    _counted() gives it, fell by more than the tolerance, exactly."""
    tolerance = judging.policy.get("tolerance", 0)
    before, record = judging.baseline[name].values, judging.candidate[name]
    after, worse, held = {}, [], True
    for measure, old in before.items():
        new = _counted(judging, record, measure, old is not None)[0]
        after[measure] = new
        if _change(old, new) == "worse":
            for value in (old, new, tolerance):  # each read once
                if value not in judging.read:
                    judging.read[value] = _exact(float(value))
            fall = judging.read[old] - judging.read[new]
            held = held and fall <= judging.read[tolerance]
            worse.append("%s %.2f -> %.2f" % (measure, old, new))
    detail = _verdict(before, after)
    if worse:  # a 'regressed' or a 'mixed' verdict
        detail += ": " + ", ".join(worse)
    if worse and tolerance:
        detail += ", tolerance %g" % tolerance
    return held, detail


def _coverage(judging, name):
    """Return (held, detail) of a critical question that expects claims
    (else None): its coverage reaches policy["min_coverage"]."""
    minimum, record = judging.policy["min_coverage"], judging.candidate[name]
    covered, expected = record.counts["covered"], record.counts["expected"]
    coverage, silent = _counted(judging, record, "coverage", expected)
    if coverage is None:
        return None
    # As the fraction it is: 2/3 falls short of 0.67.
    detail = "coverage %s/%d" % (_number(covered or 0), expected)
    if silent:
        detail = "coverage %.2f, %s without an answer counted as 0" % (
            coverage, _plural(silent, "run"))
    return coverage >= minimum, detail + ", minimum %g" % minimum


def _abstention(judging, name):
    """Return (held, detail) of a question that must be abstained on, if
    answered (else None): no claims; silence is no abstention."""
    record = judging.candidate[name]
    claims = record.counts["generated"]
    silent = _counted(judging, record, "abstention_correct", True)[1]
    if silent:
        return False, _plural(silent, "run") + " without an answer"
    if claims is None:
        return None
    if claims:
        return False, "answered with " + _plural(claims, "claim")
    return True, "abstained"


def _question_findings(judging):
    """Return the findings of the questions a rule lists (one the candidate
    did not run: broken), or one unchecked finding if none is judged."""
    rule, baseline = judging.rule, judging.baseline
    if rule == "critical" and baseline is None:
        return [(None, (rule, "", _NO_BASELINE))]
    judge = {"critical": _critical, "min_coverage": _coverage,
             "must_abstain": _abstention}[rule]
    names = judging.policy["critical" if rule == "min_coverage" else rule]
    findings = []
    for name in names:
        found = False, "the candidate did not run it"
        if rule == "critical" and name not in baseline:
            found = None, "the baseline did not run it"
        elif name in judging.candidate:
            found = judge(judging, name)
        if found is not None:
            findings.append((found[0], (rule, name, found[1])))
    why = "lists no question" if not names else _NO_ANSWER
    return findings or [(None, (rule, "", why))]


def _budget_findings(judging):
    """Per slice: the unsupported claims of its judged answers stay within
    a count (unsupported_budget) or a share of claims (unsupported_rate)."""
    rule, findings = judging.rule, []
    for part in _SLICES:
        allowed = judging.policy[rule].get(part)
        judged = [record.counts for record in judging.candidate.values()
                  if record.answerable == (part == "answerable")
                  and record.counts["supported"] is not None]
        if allowed is None or not judged:
            continue
        generated = sum(counts["generated"] for counts in judged)
        unsupported = generated - sum(counts["supported"]
                                      for counts in judged)
        if rule == "unsupported_budget":
            held = unsupported <= allowed
            detail = "%s, budget %d" % (
                _plural(unsupported, "unsupported claim"), allowed)
        else:  # Compared exactly: unsupported / generated <= rate.
            held = unsupported <= _exact(allowed) * generated
            detail = "%s of %s unsupported, rate at most %g" % (
                _number(unsupported), _plural(generated, "claim"), allowed)
        findings.append((held, (rule, part, detail)))
    return findings or [(None, (rule, "", _NO_ANSWER))]


def _significance(measure, test, policy):
    """Return the detail of a significance finding: how the measure moved,
    on how much, how its p stands, and what silence counted."""
    level, mean = test["level"], test["mean"]
    moved = "rose" if mean > 0 else "fell" if mean < 0 else "did not move"
    over = "%d of %d questions" % (test["questions"],
                                   test["questions"] + test["left_out"])
    if test["groups"] != test["questions"]:  # groups: two means
        over = "%d groups; question mean %+.2f over %s" % (
            test["groups"], test["question_mean"], over)
    detail = "%s %s: mean %+.2f over %s, %s, level %g (alpha %g, Holm's " \
        "step %d of %d)" % (measure, moved, mean, over, test["p_shown"],
                            level, policy["significance"]["alpha"],
                            test["step"], test["steps"])
    if test["p"] <= level < test["p_upper"]:
        detail += ": too close to call with %d draws" % test["samples"]
    elif level < test["p_upper"] and level < test["min_p"] < 1:
        detail += ": its %s can give no p below %s" % (_plural(
            test["wins"] + test["losses"], "moved unit"),
            p_text(test["min_p"]))
    if not test["earlier_steps_held"] and test["p_upper"] <= level:
        detail += ": not reached, as an earlier p in Holm's order did not hold"
    silent = test["silent_questions"]
    treated = "count as its lowest value" if policy.get(
        "silence", "lowest") == "lowest" else "are left out, as the policy says"
    if silent:
        detail += ": %s the candidate did not run or answer in every run " \
            "(%s) %s" % (_plural(len(silent), "question"), _listed(silent, 60), treated)
    return detail


def _significance_findings(judging):
    """On the answerable slice: the declared measure rose over units and
    questions, with a p that holds at its Holm level, and neither its slice
    mean nor, for support, pooled support fell (the test cannot look there)."""
    rule, test = judging.rule, judging.test
    if judging.baseline is None:
        return [(None, (rule, "", _NO_BASELINE))]
    measure = judging.policy[rule]["metric"]
    if not test["questions"]:
        return [(False, (rule, "answerable", measure + ": no question has a "
                         "value from both: nothing compared"))]
    rose = test["mean"] > 0 and test["question_mean"] > 0
    fell, (before, after) = [], test["slice_means"]
    if rose and _change(before["mean"], after["mean"]) == "worse":
        fell.append("its slice mean fell, %.2f -> %.2f (over %d and %d "
                    "questions with a value)" % (
                        before["mean"], after["mean"], before["averaged"],
                        after["averaged"]))
    if rose and measure == "support":
        old, new = (_pooled_support([_judged_claims(record)
                                     for record in side.values()
                                     if record.answerable])
                    for side in (judging.baseline, judging.candidate))
        # Compared exactly: s1 / g1 < s0 / g0 (no claims on a side: 0 < 0).
        if new["supported"] * old["generated"] \
                < old["supported"] * new["generated"]:
            fell.append("pooled support fell, %(supported)d/%(generated)d"
                        % old + " -> %(supported)d/%(generated)d" % new)
    # p holds at the level by its bound p_upper: no draw's luck decides.
    held = test["earlier_steps_held"] and test["p_upper"] <= test["level"] \
        and rose and not fell
    detail = _significance(measure, test, judging.policy)
    if fell:
        detail += ": but " + " and ".join(fell)
    return [(held, (rule, "answerable", detail))]


def _check_number(value, field, high=1, above_low=False, whole=False):
    """Check a number (an int, if whole) from 0, or above it, to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in ((int,) if whole else (int, float)) and (
        0 < value if above_low else 0 <= value)
    if not (within and value <= high):
        raise _invalid(field, "expected " + ("an int" if whole else "a number")
                       + (" above" if above_low else " from")
                       + " 0 to %s, got %s", high, value)


def _check_setting(kind, value, field, data):
    """Check a rule or setting of a policy, as its kind says it is: one of
    the choices a tuple names, or a kind that _RULES names."""
    if type(kind) is tuple:
        if type(value) is not str or value not in kind:
            raise _invalid(field, "expected one of %s, got %s", kind, value)
    elif kind.endswith("questions"):  # distinct names, of that kind
        if type(value) is not tuple:
            raise _invalid(field, "expected a tuple of question names, got %s",
                           value)
        for name in value:
            if type(name) is not str:  # a topic 401 is named "401"
                raise _invalid(field, "expected question names, each a str, "
                               "got %s", name)
            if name not in data.questions:
                raise _invalid(field, "no question named %s", name)
            if data.questions[name].answerable != kind.startswith("answerable"):
                raise _invalid(field, "%s is not an " + kind[:-1], name)
        if len(set(value)) < len(value):
            raise _invalid(field, "expected distinct names, got %s", value)
    elif kind.endswith("by slice"):  # counts up to 10**9, or shares
        if type(value) is dict:
            _check_keys(value, field)
        if type(value) is not dict or not value \
                or not set(value) <= set(_SLICES):
            raise _invalid(field, "expected a dict with one or both of the "
                           "keys %s, got %s", _SLICES, value)
        counts = kind == "counts by slice"
        for part, allowed in value.items():
            _check_number(allowed, "%s['%s']" % (field, part),
                          high=10 ** 9 if counts else 1, whole=counts)
    elif kind == "a test":
        _check_dict_of(value, field, ("metric", "alpha"), 'expected a dict '
                       'with the keys "metric" and "alpha", got %s')
        _check_setting(tuple(_averaged(data.measures)), value["metric"],
                       field + '["metric"]', data)  # a measure it tests
        _check_number(value["alpha"], field + '["alpha"]', high=0.5,
                      above_low=True)
    else:  # a share
        _check_number(value, field)


# rule: (its setting's kind, None: always on; its findings, [(held, (rule,
# question or slice, detail))] of a _Judging, held None where nothing is
# judged), in the order a decision lists what they break, gravest first.
_RULES = {
    "disclosure":         (None, _disclosure_findings),
    "comparison":         (None, _comparison_findings),
    "critical":           ("answerable questions", _question_findings),
    "min_coverage":       ("a share", _question_findings),
    "must_abstain":       ("unanswerable questions", _question_findings),
    "unsupported_budget": ("counts by slice", _budget_findings),
    "unsupported_rate":   ("shares by slice", _budget_findings),
    "significance":       ("a test", _significance_findings),
}
_SETTINGS = {"tolerance": "a share",  # a fall critical values may take
             "unresolved": ("strict", "lenient", "both"),  # who decides
             "silence": ("lowest", "skipped")}  # see _sides()
_KINDS = {rule: kind for rule, (kind, _) in _RULES.items() if kind}


def _check_policy(data):
    """Check the policy of checked data, and each rule it sets."""
    policy, rules = data.policy, str(tuple(_KINDS))  # in full, never cut
    if type(policy) is not dict:
        raise _invalid("policy", "expected a dict, got %s", policy)
    _check_keys(policy, "policy", [*_KINDS, *_SETTINGS])
    for key, value in policy.items():
        kind = _KINDS.get(key, _SETTINGS.get(key))
        if kind is None:
            raise _invalid("policy", "unknown rule %s; the rules are " + rules
                           + ", the settings " + str(tuple(_SETTINGS)), key)
        if key in ("min_coverage", "tolerance") and "critical" not in policy:
            raise _invalid('policy["%s"]' % key, 'applies to the questions of '
                           'policy["critical"], and the policy has none: got '
                           "%s", policy)
        _check_setting(kind, value, 'policy["%s"]' % key, data)
    if not any(key in _RULES for key in policy):
        raise _invalid("policy", "expected at least one of the rules "
                       + rules + ", got %s", policy)


def _judged(policy, candidate, baseline, test):
    """Return {accepted, broken, held, unchecked, significance}: a
    candidate judged by a policy beside the baseline (or None)."""
    held, broken, unchecked, read = [], [], [], {}
    for rule, (kind, found) in _RULES.items():
        if kind is None or rule in policy:  # always on, or set
            judging = _Judging(rule, policy, candidate, baseline, test, read)
            for holds, finding in found(judging):
                if holds is None:
                    unchecked.append((rule, finding[2]))
                else:
                    (held if holds else broken).append(finding)
    if test and test["p_upper"] <= test["level"] and test["mean"] < 0:
        # A significant fall of the declared measure leads: the gravest.
        broken.sort(key=lambda finding: finding[0] != "significance")
    # Nothing judged, nothing accepted: a policy that judged no rule.
    accepted = None if not held and not broken else not broken
    return {"accepted": accepted, "broken": broken, "held": held,
            "unchecked": unchecked, "significance": test}


def _significance_tests(policy, tested):
    """Return {candidate: its declared test, with its Holm level}, or {}."""
    if "significance" not in policy:
        return {}
    declared = policy["significance"]  # {metric, alpha}
    tests = {candidate: by_measure[declared["metric"]]
             for candidate, by_measure in tested.items()}
    # Holm: the i-th smallest of m p values is held to alpha / (m - i + 1),
    # none after the first that fails; a sampled p is ordered by normal_p,
    # which no draw moves (any order keeps Holm's guarantee); ties keep order.
    held = True
    order = sorted(tests, key=lambda each: tests[each][
        "p" if tests[each]["method"] == "exact" else "normal_p"])
    for step, candidate in enumerate(order, start=1):
        level = declared["alpha"] / (len(tests) - step + 1)
        tests[candidate] = dict(tests[candidate], level=level, step=step,
                                steps=len(tests), earlier_steps_held=held)
        held = held and tests[candidate]["p_upper"] <= level
    return tests


def _by_readings(data, records, judged, systems):
    """Return one decision: the plan, the outcome, each reading's, the
    broken findings as (rule, subject, detail, "both", "strict" or
    "lenient": the readings that break it), and the disputed labels
    (question, claim ID, sources) the readings decide apart on."""
    strict = judged["strict"]
    loose = judged.get("lenient", strict)  # one reading: both alike
    strictly = {finding[:2] for finding in strict["broken"]}
    leniently = {finding[:2] for finding in loose["broken"]}
    findings = ([finding + ("both" if finding[:2] in leniently else "strict",)
                 for finding in strict["broken"]]
                + [finding + ("lenient",) for finding in loose["broken"]
                   if finding[:2] not in strictly])
    plan = data.policy.get("unresolved", "both")
    # The plan's readings decide where a label is disputed, else the strict
    # one; where one could judge nothing, there is nothing to accept.
    taken = {"strict": [strict], "lenient": [loose], "both": [strict, loose]}
    accepted = [each["accepted"] for each in taken[plan]]
    apart = strict["accepted"] != loose["accepted"]
    names = {subject for rule, subject in strictly ^ leniently if apart}
    for part in names.intersection(_SLICES):
        for system in systems:
            before, after = records.strict[system], records.lenient[system]
            names.update(name for name in data.slices[part] if name in before
                         and before[name].counts != after[name].counts)
    depends_on = []  # in case order; none where the readings agree
    for name in filter(names.__contains__, data.questions if names else ()):
        disputed = data.questions[name].case.get("disputed", {})
        depends_on += [(name, *label) for label in disputed.items()]
    return {"plan": plan,
            "accepted": None if None in accepted else all(accepted),
            "strict": strict, "lenient": judged.get("lenient"),
            "depends_on": depends_on, "findings": findings}


def _decisions(data, records, tested):
    """Return the decision on each system: the baseline judged alone, each
    candidate against it, with the paired tests of _tested()."""
    policy, baseline = data.policy, data.systems[0]
    judged = {system: {} for system in data.systems}
    for reading, tests in tested.items():
        by_system = getattr(records, reading)
        tests = _significance_tests(policy, tests)  # of candidates alone
        for system in data.systems:
            against = None if system == baseline else by_system[baseline]
            judged[system][reading] = _judged(
                policy, by_system[system], against, tests.get(system))
    return {system: _by_readings(data, records, judged[system],
                                 {baseline, system})
            for system in data.systems}


# --- One report ------------------------------------------------------------
# report() gathers as plain data every figure and finding demo.py prints;
# every key is always there, None where not asked for or not applying.

def _row(question, records, systems, explaining):
    """Return one question's figures per system, None where it was not run."""
    by_system = dict.fromkeys(systems)
    for system in question.runs:  # each system that ran it
        record = records.strict[system][question.name]
        many = len(record.runs) > 1
        explained = list(record.explained) if many else record.explained[0]
        loose = None
        if question.case.get("disputed"):
            loose = records.lenient[system][question.name]
            loose = {"scores": loose.values, "counts": loose.counts}
        by_system[system] = {
            "scores": record.values, "counts": record.counts,
            "repeats": len(record.runs),
            "runs": [{"scores": values, "counts": counts}
                     for values, counts in record.runs] if many else None,
            "lenient": loose,
            "explain": explained if explaining else None}
    return {"case": question.name, "answerable": question.answerable,
            "systems": by_system}


def _to_review(data, records):
    """Return (system, case, claim, citations) of each claim nobody labelled,
    and (case, claim) of each label that no run's claim uses."""
    queue = {}  # each claim queued once, at first sight
    orphans = dict.fromkeys(  # each label, until a run's claim uses it
        (name, claim_id) for name, question in data.questions.items()
        for key in _JUDGEMENTS for claim_id in question.case.get(key, ()))
    for system, scored in records.strict.items():
        for name, record in scored.items():
            question = data.questions[name]
            labelled = set(question.case["support"] or ()).union(*(
                question.case.get(key, ()) for key in _JUDGEMENTS))
            for run, (_, counts) in zip(question.runs[system], record.runs):
                judged = counts["supported"] is not None  # an answer, judged
                for claim_id, citations in run["claims"] or ():
                    orphans.pop((name, claim_id), None)
                    if judged and claim_id not in labelled:
                        queue[system, name, claim_id, citations] = None
    return list(queue), list(orphans)


def _summary(data, records):
    """Return the summary: slices, means, comparisons and decisions."""
    systems, policy = data.systems, data.policy
    tested = _tested(data, records)
    decided = None if policy is None else _decisions(data, records, tested)
    disputed = [(name, claim, sources)
                for name, question in data.questions.items()
                for claim, sources in
                question.case.get("disputed", {}).items()]
    from itertools import islice
    missing, disclosed = {}, {}  # of each system: not run, disclosed
    for system, scored in records.strict.items():
        names = (name for name in data.questions if name not in scored)
        missing[system] = {"count": len(data.questions) - len(scored),
                           "cases": list(islice(names, 10))}
        disclosed[system] = []  # (case, the restricted documents)
        for name, record in scored.items():
            if record.counts["disclosed"]:
                documents = dict.fromkeys(  # in the order they disclose
                    doc_id for explained in record.explained
                    for doc_id in explained["disclosed"])
                disclosed[system].append((name, tuple(documents)))
    return {
        "slices": data.slices,
        "not_run": missing,
        "means": _means(data, records.strict),
        "disputed_labels": disputed or None,
        "lenient_means": _means(data, records.lenient) if disputed else None,
        "trec_eval_means": _trec_eval_means(data, records.strict),
        "comparisons": [_comparison(data, records, candidate, tested, decided)
                        for candidate in systems[1:]],
        "disclosures": disclosed,
        "policy": None if policy is None else {
            "rules": policy, "baseline_alone": decided[systems[0]]},
        "groups": None if data.groups is None else len(  # units
            {group or (name,) for name, group in data.groups.items()}),
        "decisions": None if decided is None else {
            candidate: decided[candidate] for candidate in systems[1:]},
        # With one system alone, its own judgement: checked, not accepted.
        "accepted": decided is not None and all(
            decided[system]["accepted"] for system in systems[1:] or systems),
    }


def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of data (as load_data() gives it), the first system
    the baseline, as plain data; a fault of the data raises EvaluationError."""
    if type(source) is not str:
        raise _invalid("source", "expected a str, got %s", source)
    for name, value in (("summary", summary), ("explain", explain)):
        if type(value) is not bool:
            raise _invalid(name, "expected True or False, got %s", value)
    data = _checked(data)
    records = _records(data)
    queue, orphans = _to_review(data, records) if explain else (None, None)
    return {"source": source, "k": data.k, "systems": list(data.systems),
            "notes": list(data.notes) if data.notes else None,
            "measures": data.measures,
            "questions": [_row(question, records, data.systems, explain)
                          for question in data.questions.values()],
            "review_queue": queue, "orphan_labels": orphans,
            "summary": _summary(data, records) if summary else None}


# --- Data from a file ------------------------------------------------------
# load_data() reads a JSON file that mirrors fixtures.py; its arrays become
# the contract's tuples at this one boundary, and report() checks the rest.

_MAX_FILE_BYTES = 30 * 10 ** 6  # a data file: read no further
_MAX_DEPTH = 64  # arrays and objects within one another
_MAX_DIGITS = 100  # in one integer: Python refuses ints of over 4,300
_MAX_CONTAINERS = 3 * 10 ** 6  # arrays and objects: 90 to 240 bytes each
_MAX_KEYS = 10 ** 6  # of one object: each key of a policy is typo-checked


def _opened(path, where=""):
    """Return the regular file at path open in "rb" (a FIFO would wait)."""
    try:
        path = os.fspath(path)  # a str or bytes: open(1) reads a descriptor
        if stat.S_ISREG(os.stat(path).st_mode):
            return open(path, "rb")
    except TypeError:
        raise _invalid("path", "expected the path of a file, got %s",
                       path) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = getattr(error, "strerror", None) or error
        raise EvaluationError(where + "cannot be read: %s" % reason) from None
    raise EvaluationError(where + "is not a regular file (a directory, a "
                          "FIFO, a socket or a device)")


def _one_value_per_key(pairs):
    """Return an object's pairs as a dict, refusing a repeated key."""
    if len(pairs) > _MAX_KEYS:
        raise EvaluationError("holds an object of more than %d keys, the "
                              "most read" % _MAX_KEYS)
    result = dict(pairs)
    if len(result) < len(pairs):
        seen = set()  # the first key seen again
        raise EvaluationError("data: repeated key %s in one object" % _shown(
            next(key for key, _ in pairs if key in seen or seen.add(key))))
    return result


def _whole_number(text):
    """Return a JSON integer as an int, if it has at most 100 digits."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise EvaluationError("is not valid JSON: an integer of more than %d "
                              "digits, %s..." % (_MAX_DIGITS, text[:20]))
    return int(text)


def _as_tuples(value, depth=0):
    """Return value with every list in it a tuple, changed in place."""
    if type(value) not in (list, dict):
        return value
    if depth == _MAX_DEPTH:
        raise EvaluationError("is nested more than %d deep" % _MAX_DEPTH)
    items = enumerate(value) if type(value) is list else value.items()
    for key, item in items:
        if type(item) in (list, dict):  # a call for containers alone
            value[key] = _as_tuples(item, depth + 1)
    return tuple(value) if type(value) is list else value


def load_data(path):
    """Return the data of a JSON data file, its arrays as tuples."""
    import json  # only this path reads JSON
    import re  # json imports it too
    with _opened(path) as file:
        raw = file.read(_MAX_FILE_BYTES + 1)  # whatever size it reports
    if len(raw) > _MAX_FILE_BYTES:
        raise EvaluationError("holds more than %d bytes, the most read"
                              % _MAX_FILE_BYTES)
    containers = raw.count(b"[") + raw.count(b"{")  # arrays and objects
    if containers > _MAX_CONTAINERS:  # strings may hold some: count again
        # Each match: a string, as b"" (one shared object), or a bracket.
        found = re.findall(rb'"[^"\\]*(?:\\.[^"\\]*)*"|([\[{])', raw)
        containers = len(found) - found.count(b"")
    if containers > _MAX_CONTAINERS:  # each costs memory, read
        raise EvaluationError("holds more than %d arrays and objects, the "
                              "most read" % _MAX_CONTAINERS)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvaluationError("is not UTF-8 text: %s at byte %d"
                              % (error.reason, error.start)) from None
    try:
        data = json.loads(text, object_pairs_hook=_one_value_per_key,
                          parse_int=_whole_number,
                          parse_constant={}.__getitem__)  # NaN: KeyError
    except RecursionError:  # nested deeper than this CPython's parser goes
        raise EvaluationError("is nested more than %d deep"
                              % _MAX_DEPTH) from None
    except (json.JSONDecodeError, KeyError) as error:
        if type(error) is KeyError:  # the first NaN or infinity outside a string
            found = next(found for found in re.finditer(
                r'"[^"\\]*(?:\\.[^"\\]*)*"|-?Infinity|NaN', text)
                if found.group()[0] != '"')
            error = json.JSONDecodeError(found.group() + " is not a JSON "
                                         "number", text, found.start())
        raise EvaluationError("is not valid JSON: %s (line %d, column %d)" % (
            error.msg, error.lineno, error.colno)) from None
    return _as_tuples(data)


# --- TREC files ------------------------------------------------------------
# load_trec() reads qrels and runs as trec_eval 10 does, into the data a
# JSON file gives (see README.md); their lines come in any order.

_MAX_TREC_BYTES = 150 * 10 ** 6  # all TREC files together
_MAX_TOPICS = 10 ** 6  # of the qrels; of the run topics it lacks, the named
_MAX_RANKED = 5 * 10 ** 6  # documents in the runs' top k together
_MAX_JUDGED = 2 * 10 ** 6  # lines of the qrels: about 140 bytes each, kept
_MAX_TREC_RUNS = 75000  # runs of a topic: half _MAX_SCORED, read too
_MAX_LINE = 4096  # bytes of a line
_TREC_EVAL = ("precision", "recall", "rr", "ndcg")  # and ndcg_cut, P, ...


def _trec_fault(name, number, template, *values):
    """Return the EvaluationError of a line of a TREC file."""
    return _invalid("%s, line %d" % (name, number), template, *values)


def _trec_lines(name, file, size):
    """Yield (number, fields) of each line that is neither blank nor a
    comment in the file's first size bytes, read a megabyte at a time."""
    from operator import itemgetter
    number = 0
    while True:
        data = file.read(min(size, 2 ** 20))  # then to its last line's end
        data += file.readline(min(size - len(data), _MAX_LINE + 1))
        size -= len(data)
        if not data:
            return
        lengths = list(map(len, data.split(b"\n")))
        if max(lengths) > _MAX_LINE:
            long = [length > _MAX_LINE for length in lengths].index(True)
            raise _trec_fault(name, number + 1 + long, "expected a line of "
                              "at most %s bytes", _MAX_LINE)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _trec_fault(name, number + 1 + data.count(b"\n", 0, error.start),
                              "not UTF-8 text: %s", error.reason) from None
        lines = text.split("\n")  # the last one "" unless the file ends
        if "#" in text:  # a comment, its first field "#...", reads as blank
            lines = ["" if line.lstrip()[:1] == "#" else line for line in lines]
        yield from filter(itemgetter(1), enumerate(map(str.split, lines), number + 1))
        number += len(lines) - 1


def _qrels(name, file, size):
    """Return {topic: {document: grade}} of a qrels file."""
    judged = {}
    lines = _trec_lines(name, file, size)
    for count, (number, fields) in enumerate(lines, 1):
        if count > _MAX_JUDGED:  # each is kept
            raise _trec_fault(name, number, "expected at most %s "
                              "judgements, got more", _MAX_JUDGED)
        try:
            topic, _, doc_id, grade = fields
            grade = int(grade)
        except ValueError:  # not 4 fields, or a grade that is not whole
            raise _trec_fault(name, number, "expected 'topic iteration "
                              "document grade', the grade whole, got %s",
                              " ".join(fields)) from None
        grades = judged.setdefault(topic, {})
        if not grades:  # a topic first seen
            if len(judged) > _MAX_TOPICS:
                raise _trec_fault(name, number, "expected at most %s "
                                  "topics, got more", _MAX_TOPICS)
            _check_name(topic, "%s, line %d" % (name, number))  # a case's
        if doc_id in grades:  # as trec_eval refuses it
            raise _trec_fault(name, number, "document %s is judged "
                              "twice for topic %s", doc_id, topic)
        grades[doc_id] = grade
    return judged


def _ranked(name, file, size, k, judged, unjudged, room):
    """Return (the tag, {topic: a heap of its k best (score, document)},
    the room left) of a run file, as trec_eval ranks (by score, then
    document, highest first); a topic the qrels lack goes in unjudged."""
    from heapq import heappush, heappushpop
    tops, tag, topic, top = {}, None, None, None
    for number, fields in _trec_lines(name, file, size):
        try:
            line_topic, _, doc_id, _, score, run_tag = fields[:6]
            score = float(score)
        except ValueError:
            score = math.nan
        if score != score:  # too few fields, no score, or NaN: no rank
            raise _trec_fault(name, number, "expected 'topic Q0 document "
                              "rank score tag', the score a number, got "
                              "%s", " ".join(fields[:6]))
        if run_tag != tag and tag is not None:
            raise _trec_fault(name, number, "a second tag %s, after %s: "
                              "a run file is one system's", run_tag, tag)
        tag = run_tag
        if line_topic != topic:
            topic = line_topic
            top = tops.setdefault(topic, []) if topic in judged else None
            if top is None and len(unjudged) < _MAX_TOPICS:
                unjudged[topic] = None  # left out, as trec_eval leaves it
        if top is None:
            continue
        if len(top) == k:  # its worst line at top[0], replaced if worse
            heappushpop(top, (score, doc_id))
        elif room:
            heappush(top, (score, doc_id))
            room -= 1
        else:  # refused before it costs
            raise _trec_fault(name, number, "with the runs before it, "
                              "ranks more than %s documents in its top k, "
                              "the most kept", _MAX_RANKED)
    return tag, tops, room


def _trec_cases(judged, runs, k, systems, unjudged):
    """Return the data of _qrels() and runs {topic: {tag: run}}, with notes."""
    cases = {}  # in the order of the qrels, as trec_eval -q gives them
    for topic in filter(runs.__contains__, judged):
        relevant = {doc_id: grade for doc_id, grade in judged[topic].items()
                    if grade >= 1}
        cases[topic] = {"relevant": tuple(relevant), "support": None,
                        "grades": relevant}
    alone, notes = [topic for topic in judged if topic not in runs], []
    for why, topics, noun, what in (
            ("left out, as trec_eval leaves them", unjudged, "run topic",
             "the qrels do not have"),
            ("not scored, as by trec_eval without -c", alone, "qrels topic",
             "no run has")):
        named = ", ".join(map(_shown, topics[:5]))
        if len(topics) > 5:
            named += ", ..."
        count = _plural(len(topics), noun)
        if len(topics) == _MAX_TOPICS:  # none counted past it
            count = "at least " + count
        if topics:
            notes.append("%s: %s %s (%s)" % (why, count, what, named))
    return {"k": k, "systems": systems, "cases": cases, "runs": runs,
            "notes": tuple(notes)}


def _trec_data(files, k):
    """Return the data of open TREC files [(name, file, size)], qrels first."""
    judged = _qrels(*files[0])
    runs, tagged, unjudged, room, scored = {}, {}, {}, _MAX_RANKED, 0
    for name, file, size in files[1:]:
        tag, ranked, room = _ranked(name, file, size, k, judged,
                                    unjudged, room)
        scored += len(ranked)  # a run of each topic the qrels have
        if scored > _MAX_TREC_RUNS:  # refused before it costs
            raise EvaluationError("%s: with the runs before it, ranks more than %d "
                                  "topics of the qrels, the most scored" % (name, _MAX_TREC_RUNS))
        if tag is None:
            raise EvaluationError("%s: holds no line" % name)
        if not ranked:  # its system would run no case
            raise EvaluationError("%s: no topic of it is in the qrels" % name)
        if tag in tagged:
            raise EvaluationError("%s and %s both hold the run tag %s: one file "
                                  "given twice, or runs to tag apart" % (
                                      tagged[tag], name, _shown(tag)))
        _check_name(tag, name)  # it names the system
        tagged[tag] = name
        for topic in list(ranked):  # each freed as it is ranked
            best = sorted(ranked.pop(topic), reverse=True)
            documents = tuple(doc_id for _, doc_id in best)
            if len(set(documents)) < len(documents):  # one ranked twice:
                doc_id = max(documents, key=documents.count)  # or more
                file.seek(0)  # to find its second line
                ranks = (number for number, fields in _trec_lines(name, file, size)
                         if fields[:3:2] == [topic, doc_id])
                next(ranks)  # the first, where it is ranked once
                raise _trec_fault(name, next(ranks), "document %s is ranked "
                                  "twice for topic %s", doc_id, topic)
            runs.setdefault(topic, {})[tag] = {"retrieved": documents,
                                               "claims": None}
    return _trec_cases(judged, runs, k, tuple(tagged), list(unjudged))


def load_trec(qrels, runs, *, k=10):
    """Return the data, as load_data() gives it, of TREC qrels and runs:
    tags as systems, a case per topic both have, notes on the rest."""
    from contextlib import ExitStack
    _check_k(k)
    if type(runs) not in (list, tuple) or not runs:
        raise _invalid("runs", "expected a list of paths, got %s", runs)
    with ExitStack() as stack:
        files = []  # (name, file, the size it is read to)
        for path in (qrels, *runs):  # each checked before any is read
            try:  # as it is, or as ascii() shows it
                name = os.fsdecode(path)
            except TypeError:  # no path: _opened() says so
                name = "?"
            if not (name.isascii() and name.isprintable()):
                name = ascii(name)
            file = stack.enter_context(_opened(path, name + ": "))
            files.append((name, file, os.fstat(file.fileno()).st_size))
        if sum(size for _, _, size in files) > _MAX_TREC_BYTES:
            raise EvaluationError("TREC files: hold more than %d bytes "
                                  "together, the most read" % _MAX_TREC_BYTES)
        return _trec_data(files, k)


def _trec_eval_means(data, scored):
    """Return {measure: {system: {mean, topics}}} of trec_eval's means (0
    where nothing is relevant) that differ from the slices', or None."""
    if any(question.case["support"] is not None
           for question in data.questions.values()):
        return None
    means = {}
    for measure in [name for name in _TREC_EVAL if name in data.measures]:
        found = {}  # every system's, kept if one's differs
        for system, records in scored.items():
            values = [record.values[measure] for record in records.values()]
            mean = math.fsum(filter(None, values)) / len(values)  # every system runs a case
            found[system] = {"mean": mean, "topics": len(values)}
            if mean != _mean(values):
                means[measure] = found
    return means or None


def _trec_eval_lines(means, label):
    """Return the summary's lines of _trec_eval_means(), if any."""
    if means is None:
        return []
    lines = ["", "trec_eval's mean (a topic with nothing relevant counts "
             "as 0) | " + " | ".join(label[name] for name in means)]
    for system in next(iter(means.values())):
        lines.append(system + " | " + " | ".join(
            "%(mean).4f (%(topics)d)" % found[system]
            for found in means.values()))
    return lines


# --- The report as text ----------------------------------------------------
# report_text() and gate_text() give what demo.py prints of a report: each
# reads report()'s plain data alone, and decides nothing.

def _cell(value):
    """Return a value as the table shows it: 0.50, n/a, yes or no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def _each_run(result, part):
    """Yield ('case system', part, None if not run) of each run, '#1'... if repeated."""
    for question in result["questions"]:
        for system, row in question["systems"].items():
            where = "%s %s" % (question["case"], system)
            if row is None or row["repeats"] == 1:
                yield where, row and row[part]
                continue
            runs = row[part] if part == "explain" else [
                run["scores"] for run in row["runs"]]
            for number, value in enumerate(runs, start=1):
                yield "%s#%d" % (where, number), value


def _decided_words(decided):
    """Return a decision in a few words: accepted, or not and its first broken finding."""
    if decided is None:
        return "none, as the data has no policy"
    if decided["accepted"] is None:
        return "none, as no rule of the policy could be checked"
    test = decided["strict"]["significance"]
    if decided["accepted"] and test and test["unmatched_runs"]:
        return "accepted (more runs on one side on %s)" % _plural(
            test["unmatched_runs"], "question")
    if decided["accepted"]:
        return "accepted"
    broken = decided["findings"]  # the gravest first
    rule, subject, detail, readings = broken[0]
    text = "not accepted, first: %s %s (%s)" % (rule, subject, detail)
    if readings != "both":  # only where two readings are read
        text += " [%s reading]" % readings
    if len(broken) > 1:
        text += ", and %d more broken" % (len(broken) - 1)
    return text


def _compared_lines(compared, label, most):
    """Return what the run manifests changed, and the questions that moved."""
    changed, lines = compared["manifest_changes"], []
    if changed is not None:  # each value cut to 80 characters
        shown = ["%s: %s -> %s" % (field, _shown(old), _shown(new))
                 for field, old, new in changed] or ["nothing changed"]
        lines += ["", "run manifests: what changed from %(baseline)s "
                  "to %(candidate)s" % compared] + shown
    if changed and len(changed) > 1:  # the course: one at a time
        lines.append("%d things changed at once: which of them made the "
                     "difference is unknown; change one at a time"
                     % len(changed))
    lines += ["", "per-question change from %s to %s on the %s both ran" % (
        compared["baseline"], compared["candidate"],
        _plural(compared["shared"], "question"))]
    moved = [item for item in compared["changes"] if item["moved"]]
    moved.sort(key=lambda item: item["verdict"] not in ("regressed", "mixed"))
    for item in moved[:most]:
        detail = ", ".join(
            "%s %s -> %s" % (label[metric], _cell(old), _cell(new))
            for metric, old, new, _ in item["moved"])
        lines.append("%s: %s (%s)" % (item["case"], item["verdict"], detail))
    totals = ", ".join("%d %s" % (count, name)
                       for name, count in compared["totals"].items())
    if len(moved) > most:
        totals += "; %d more moved (--json lists every question)" % (
            len(moved) - most)
    return lines + ["totals: " + totals]


def _slice_lines(part, names, means, label, reading=""):
    """Return a slice's macro means and pooled support per system."""
    if not names:
        return ["", "no %s questions" % part]
    measured = [metric for metric in label if metric in means]
    unmeasured = [label[metric] for metric in measured if not any(
        mean["averaged"] for mean in means[metric].values())]
    measured = [metric for metric in measured if label[metric] not in unmeasured]
    abstentions = means["correct_abstentions"] is not None
    header = [label[metric] for metric in measured] + ["support pooled"]
    if abstentions:
        header.append("abstention correct")
    lines = ["", "%s slice%s: %s" % (part, reading, _listed(names, 60)),
             "macro mean (questions averaged, of %d) | %s" % (
                 len(names), " | ".join(header))]
    if unmeasured:  # a column of n/a (0) on every row is noise: named once
        lines[2] += " (no value to average: %s)" % ", ".join(unmeasured)
    for system, pooled in means["pooled_support"].items():
        row = ["%s (%d)" % (_cell(means[metric][system]["mean"]),
                            means[metric][system]["averaged"]) for metric in measured]
        row.append("%d/%d = %s" % (pooled["supported"], pooled["generated"],
                                   _cell(pooled["ratio"])))
        if abstentions:
            row.append("%(correct)d/%(total)d" % means["correct_abstentions"][system])
        lines.append("%s | %s" % (system, " | ".join(row)))
    return lines


def _paired_lines(comparisons, groups, label):
    """Return each candidate's paired tests, and what so few questions can show."""
    unit = "question" if groups is None else "group"
    shared = [compared for compared in comparisons if compared["shared"]]
    if not shared:
        return []  # nothing compared: the changes say so
    lines = ["", "paired sign-flip test against %s on the answerable "
             "slice (each %s is one pair)" % (shared[0]["baseline"], unit)]
    for compared in shared:
        for metric, test in compared["paired_tests"].items():
            name = "%s | %s | " % (compared["candidate"], label[metric])
            if not test["questions"]:
                lines.append(name + "no question has a value from both: nothing compared")
                continue
            total = test["questions"] + test["left_out"]
            text = "mean %+.2f (%d of %d)" % (test["mean"], test["questions"], total)
            if test["groups"] != test["questions"]:
                text = "mean %+.2f over %d groups, %+.2f over %d of %d questions" % (
                    test["mean"], test["groups"], test["question_mean"], test["questions"], total)
            text += " | wins %(wins)d, ties %(ties)d, losses %(losses)d | %(p_shown)s" % test
            if test["unmatched_runs"]:
                text += " | more runs on one side on %d of the questions (match them)" % (
                    test["unmatched_runs"])
            lines.append(name + text)
    floor = shared[0]["floor"]
    if not floor["below_level"]:  # too few questions to tell anything apart
        lines.append("with %s, this sign-flip test's p is at least %s even if "
                     "all of them moved: it cannot reach p < %g" % (
                         _plural(floor["units"], unit), p_text(floor["p"]), floor["level"]))
    return lines


def _disputes(labels, width=100):
    """Return disputed labels, each (case, claim, its sources), listed."""
    return _listed(["%s: %s <- %s" % (name, claim, ", ".join(sources))
                   for name, claim, sources in labels], width)


def _decisions_made(result):
    """Return (title, decision or None without a policy): the baseline alone, each candidate."""
    summary, baseline = result["summary"], result["systems"][0]
    alone = (summary["policy"] or {}).get("baseline_alone")
    return [("baseline %s checked alone" % baseline, alone)] + [
        ("%s against %s" % (compared["candidate"], baseline), compared["decision"])
        for compared in summary["comparisons"]]


def _policy_lines(result):
    """Return the findings and the decision of the baseline alone, then of each candidate."""
    lines = ["", "acceptance policy"]
    for title, decided in _decisions_made(result):
        for rule, subject, detail, readings in decided["findings"]:
            marked = "" if readings == "both" else " [%s reading only]" % readings
            lines.append("%s | broken %s %s (%s)%s" % (title, rule, subject, detail, marked))
        lines += ["%s | held %s %s (%s)" % ((title,) + finding)
                  for finding in decided["strict"]["held"] if finding[0] == "significance"]
        for rule, why in decided["strict"]["unchecked"]:
            lines.append("%s | not checked: %s (%s)" % (title, rule, why))
        if decided["depends_on"]:
            lines.append("%s | the readings disagree: resolve these disputed labels first: %s" % (
                title, _disputes(decided["depends_on"], 160)))
        lines.append(title + ": " + _decided_words(decided))
    return lines


def _summary_lines(result, label):
    """Return the summary: decisions, changes, slices, tests, disclosures, policy."""
    summary, systems = result["summary"], result["systems"]
    comparisons = summary["comparisons"]
    lines = gate_text(result).splitlines() if summary["policy"] else []
    groups = "" if summary["groups"] is None else " in %d groups" % summary["groups"]
    lines.append("summary of %s: %s%s (%d answerable), k = %d, baseline %s, candidates: %s" % (
        result["source"], _plural(len(result["questions"]), "question"), groups,
        len(summary["slices"]["answerable"]), result["k"], systems[0],
        ", ".join(systems[1:]) or "none"))
    for system, missing in summary["not_run"].items():
        named = ", ".join(missing["cases"])  # the first ten, then ... if more
        more = ", ..." if missing["count"] > len(missing["cases"]) else ""
        if missing["count"]:
            lines.append("not run by %s: %s (%s%s)" % (
                system, _plural(missing["count"], "question"), named, more))
    for compared in comparisons:  # at most 20 changed questions in all, 3 at least each
        lines += _compared_lines(compared, label, max(3, 20 // len(comparisons)))
    for part, names in summary["slices"].items():
        lines += _slice_lines(part, names, summary["means"][part], label)
    lines += _trec_eval_lines(summary["trec_eval_means"], label)
    if summary["lenient_means"] is not None:
        lines += _slice_lines("answerable", summary["slices"]["answerable"],
                              summary["lenient_means"]["answerable"], label,
                              ", lenient reading (disputed labels count as support)")
        lines.append("disputed labels: " + _disputes(summary["disputed_labels"]))
    lines += ["", "n/a rule: a macro mean skips questions without a value and"
              " says how many it averaged; n/a never counts as 0."]
    lines += _paired_lines(comparisons, summary["groups"], label)
    lines += ["", "restricted documents disclosed (in the top k or cited)"]
    disclosed = []
    for system, found in summary["disclosures"].items():
        named = ["%s: %s" % (name, ", ".join(documents)) for name, documents in found]
        if named:
            disclosed.append("%s | %s" % (system, _listed(named)))
    lines += disclosed or ["none"]
    return lines + (_policy_lines(result) if summary["policy"] else [])


def report_text(result):
    """Return a report (see report()) as text, lines over 160 characters wrapped."""
    label = {name: measure["label"].replace("%d", str(result["k"]))
             for name, measure in MEASURES.items()}
    lines = ["note: " + note for note in result["notes"] or ()]
    explaining = result["review_queue"] is not None
    if explaining or result["summary"] is None:  # the per-question table
        lines.append("case system | " + " ".join(label[name] for name in result["measures"]))
        for where, scores in _each_run(result, "scores"):
            shown = "not run" if scores is None else " ".join(
                map(_cell, scores.values()))
            lines.append("%s | %s" % (where, shown))
    if explaining:  # why claims fail, then what to review next
        lines += ["", "each unsupported claim with the first rule it breaks, each "
                  "expected claim left uncovered, and each restricted document disclosed"]
        for where, found in _each_run(result, "explain"):
            if found is not None:  # else not run
                lines += ["%s | claim %s unsupported: %s" % (where, claim, reason)
                          for claim, reason in found["claims"] or () if reason]
                lines += ["%s | expected claim %s not covered" % (where, claim)
                          for claim in found["uncovered"] or ()]
                lines += ["%s | restricted document %s disclosed" % (where, document)
                          for document in found["disclosed"]]
        queue = ["%s | %s: claim %s citing %s" % (system, name, claim,
                                                   ", ".join(cited) or "nothing")
                 for system, name, claim, cited in result["review_queue"]]
        orphans = ["%s: claim %s" % pair for pair in result["orphan_labels"]]
        lines += ["", "claims nobody has labelled, rejected or disputed: the next "
                  "round of reviewing"] + (queue or ["none"])
        lines += ["", "labels that no run uses, a typo perhaps (optional, disputed "
                  "or rejected)"] + (orphans or ["none"])
    if result["summary"] is not None:
        if lines:  # after the table and its explanations
            lines.append("")
        lines += _summary_lines(result, label)
    from textwrap import fill  # each line over 160 characters
    return "\n".join(fill(line, 160, subsequent_indent="    ", break_on_hyphens=False)
                     if len(line) > 160 else line for line in lines)


def gate_text(result):
    """Return a line per candidate, accepted or why not; or a system alone's rules."""
    found = _decisions_made(result)
    return "\n".join("%s: %s" % (title, _decided_words(decided))
                     for title, decided in found[1:] or found)
