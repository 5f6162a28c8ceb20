"""Score one question's recorded RAG output against labels people wrote.

evaluate(corpus, case, run, *, k=2) returns six values (see README.md);
a fault in an input raises EvaluationError naming the field and value.
What to read: the rules, from the comment line "START OF THE CONTRACT";
the checks of the inputs' shapes above it you may skip.
"""

__all__ = ["EvaluationError", "validate", "tally", "scores", "evaluate",
           "lenient", "explain"]

_MAX_IDS = 10000  # IDs in one tuple, claims in one run
_MAX_K = 100
_ID_RULE = "IDs are strings of 1 to 200 printable characters, no whitespace"

# A control character as a message shows it: one line, on any terminal.
_ESCAPES = {code: "\\x%02x" % code for code in list(range(32)) + [127]}
_ESCAPES.update({9: "\\t", 10: "\\n", 13: "\\r"})


class EvaluationError(ValueError):
    """An input breaks the contract: the message names field and value."""


_BRACKETS = {list: "[]", tuple: "()", dict: "{}", set: "{}",  # as ascii()
             frozenset: ("frozenset({", "})")}  # shows them, item by item


def _start(value, room=80, within=()):
    """Return ascii(value) escaped or, if longer than room, a text whose
    first room + 1 characters are its (within: the containers value is in)."""
    kind = type(value)
    if kind is int and value.bit_length() > 10000:
        return "<int of %d bits>" % value.bit_length()  # too long to print
    if kind in (str, bytes) and len(value) > room:  # its quotes as ascii()
        quotes = ("'", '"') if kind is str else (b"'", b'"')  # picks them
        value = value[:room] + kind().join(q for q in quotes if q in value)
    if kind not in _BRACKETS or not value:
        return ascii(value).translate(_ESCAPES)  # as a __repr__ may hold
    start, end = _BRACKETS[kind]
    if id(value) in within:  # inside itself, as ascii() shows it
        return start[-1] + "..." + end[0]
    text, within = start, within + (id(value),)
    for pair in value.items() if kind is dict else zip(value):  # (item,)
        for part, after in zip(pair, (": ", ", ")[-len(pair):]):
            if len(text) > room:  # enough to cut: the rest goes unread
                return text
            text += _start(part, room - len(text), within) + after
    return text[:-2] + "," * (kind is tuple and len(value) == 1) + end


def _shown(value):
    """Return ascii(value) on one line, cut to 80 characters by '...':
    _start() reads no more of value, so a message costs what it shows."""
    try:
        text = _start(value)
    except Exception:  # a broken __repr__ must not escape as another error
        return "<%s with a broken repr>" % type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _invalid(field, template, *values):
    """Return an EvaluationError 'field: template', each value _shown()."""
    shown = tuple(map(_shown, values))
    return EvaluationError(field + ": " + template % shown)


def _edits(word, target):
    """Return the letters to add, drop or change to make target of word."""
    row = list(range(len(target) + 1))
    for i, letter in enumerate(word, start=1):
        previous, row[0] = row[0], i
        for j, wanted in enumerate(target, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (letter != wanted))
    return row[-1]


_TYPOS = {}  # (key, id(table)): (table, the key it is a typo of, or "")


def _typo_of(key, known):
    """Return the key of the table `known` that `key` is a typo of (the
    same but for case, or 1 or 2 letters off), else "": worked out once."""
    table, found = _TYPOS.get((key, id(known)), ((), ""))
    if table is not known:  # not worked out yet
        plain = key.isascii() and key.isprintable()  # else nobody's typo
        found = next((target for target in known if plain
                      and abs(len(key) - len(target)) <= 2  # no cost
                      and _edits(key.lower(), target) <= 2), "")
        if len(_TYPOS) < 10000:  # memory stays bounded
            _TYPOS[key, id(known)] = known, found
    return found


def _check_keys(mapping, field, known=()):
    """Check that each key of a dict is an exact str (a subclass could equal
    another key), and that none `known` lacks is a typo of one it has."""
    for key in mapping:
        if type(key) is not str:
            raise _invalid(field, "expected keys that are str, got %s", key)
        typo_of = known and key not in known and _typo_of(key, known)
        if typo_of:
            raise _invalid('%s["%s"]' % (field, key),
                           "unknown key; did you mean %s?", typo_of)


# --- The shapes of the inputs ---------------------------------------------
# A checker takes (value, field, the fields checked so far, corpus) and
# raises at its first fault; with corpus None, documents are IDs alone.

def _is_id(value):
    """True for an exact str (no subclass) that is an ID (_ID_RULE)."""
    return (type(value) is str and 0 < len(value) <= 200
            and value.isprintable() and " " not in value)  # no whitespace


def _check_ids(value, field, fields=None, corpus=None):
    """Check "ids": a tuple of at most 10,000 distinct IDs, maybe empty;
    given a corpus, each the ID of one of its documents."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    if len(value) > _MAX_IDS:
        raise _invalid(field, "expected at most %s IDs, got %s: %s",
                       _MAX_IDS, len(value), value)
    for item in value:
        if corpus is not None and type(item) is str and item in corpus:
            continue  # a document of the checked corpus: a valid ID
        if not _is_id(item):
            raise _invalid(field, "invalid ID %s (" + _ID_RULE + ")", item)
        if corpus is not None:
            raise _invalid(field, "unknown document %s", item)
    if len(value) > 1 and len(set(value)) < len(value):
        seen = set()  # the first ID an earlier one equals, in one pass
        raise _invalid(field, "repeated ID %s", next(
            item for item in value if item in seen or seen.add(item)))


def _check_sources(value, field, fields, corpus):
    """Check "sources": a dict from claim IDs to non-empty documents."""
    if type(value) is not dict:
        raise _invalid(field, "expected a dict, got %s", value)
    _check_ids(tuple(value), field)
    for claim_id, sources in value.items():
        where = "%s[%s]" % (field, ascii(claim_id))  # an ID by now: short
        _check_ids(sources, where, fields, corpus)
        if not sources:
            raise _invalid(where, "expected at least one source, got %s",
                           sources)


def _check_claims(value, field, fields, corpus):
    """Check "claims": a tuple of (claim ID, citations) pairs, the claim
    IDs an ID tuple; citations are ids, outside the corpus too."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple, got %s", value)
    for index, pair in enumerate(value):
        if type(pair) is not tuple or len(pair) != 2:
            raise _invalid("%s[%d]" % (field, index), "expected a (claim "
                           "ID, citations) pair, got %s", pair)
    _check_ids(tuple(claim_id for claim_id, _ in value), field)
    for index, (_, citations) in enumerate(value):
        _check_ids(citations, "%s[%d][1]" % (field, index))


# Each key of a case and of a run: must it be there, may it be None, and
# its checker. Other keys are ignored, but a typo of a known key is a fault.
_CASE_KEYS = {
    "relevant":   (True, True, _check_ids),  # None: nobody labelled them
    "support":    (True, True, _check_sources),  # expected claim: sources
    "optional":   (False, False, _check_sources),  # supported, not expected
    "disputed":   (False, False, _check_sources),  # one reviewer's labels
    "rejected":   (False, False,  # unsupported, all say; claim IDs alone
                   lambda value, field, *_: _check_ids(value, field)),
    "restricted": (False, False, _check_ids),  # not for the asker's eyes
}
_JUDGEMENTS = ("optional", "disputed", "rejected")  # beside "support"
_RUN_KEYS = {
    "retrieved": (True, False, _check_ids),  # in rank order
    "claims":    (True, True, _check_claims),  # None: no answer is made
}


def _checked_fields(mapping, name, keys, corpus):
    """Return {key: value} of the keys of `keys` a dict has, checked."""
    if type(mapping) is not dict:
        raise _invalid(name, "expected a dict, got %s", mapping)
    _check_keys(mapping, name, keys)  # a typo first: it hides a key
    fields = {}
    for key, (needed, none_allowed, check) in keys.items():
        if key in mapping:
            value = fields[key] = mapping[key]
            if not (value is None and none_allowed):
                check(value, '%s["%s"]' % (name, key), fields, corpus)
        elif needed:
            raise _invalid('%s["%s"]' % (name, key), "missing from %s",
                           mapping)
    return fields


def _check_case_rules(fields):
    """Check the rules that tie the checked fields of a case together."""
    relevant, support = fields["relevant"], fields["support"]
    # Relevant documents need an expected claim: both empty is unanswerable.
    if relevant and support == {}:
        raise _invalid('case["support"]', 'expected claims for '
                       'case["relevant"] %s, got %s', relevant, support)
    support, optional = support or {}, fields.get("optional", {})
    disputed = fields.get("disputed", {})
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
    for claim_id in fields.get("rejected", ()):
        # Judged unsupported by every document: it can have no source.
        if claim_id in labelled:
            raise _invalid('case["rejected"]', 'claim %s has sources in '
                           'case["support"], case["optional"] or '
                           'case["disputed"]', claim_id)
    for doc_id in fields.get("restricted", ()):
        if doc_id in wanted:  # what the asker may not see cannot be
            raise _invalid('case["restricted"]',  # their evidence
                           'document %s is in case["relevant"]', doc_id)


def _check_corpus(corpus):
    """Check that corpus maps one ID or more to None or a non-blank text."""
    if type(corpus) is not dict or not corpus:
        raise _invalid("corpus", "expected a dict of documents, got %s",
                       corpus)
    # Every ID at once, as _is_id() checks one: it runs on every call.
    joined = "".join(corpus) if {*map(type, corpus)} == {str} else "\n"
    if not (joined.isprintable() and " " not in joined
            and 0 < min(map(len, corpus)) <= max(map(len, corpus)) <= 200):
        raise _invalid("corpus", "invalid ID %s (" + _ID_RULE + ")", next(
            doc_id for doc_id in corpus if not _is_id(doc_id)))
    for doc_id, text in corpus.items():
        # Text is checked for shape only: nothing here reads what it says.
        if text is not None and (type(text) is not str or not text.strip()):
            raise _invalid("corpus[%s]" % _shown(doc_id), "expected a "
                           "text that is not blank, or None, got %s", text)


_COUNTS = ("relevant", "k", "hits", "first_hit", "generated", "supported",
           "expected", "covered", "disclosed")  # tally()'s, in its order


def _check_counts(counts):
    """Check counts as tally() gives them: ints within the caps, or None."""
    if type(counts) is dict:
        _check_keys(counts, "counts")  # exact str keys, before comparing
    if type(counts) is not dict or set(counts) != set(_COUNTS):
        raise _invalid("counts", "expected a dict of the keys tally() "
                       "gives, got %s", counts)
    for key in _COUNTS:
        value, least = counts[key], int(key == "k")
        most = _MAX_K if key == "k" else _MAX_IDS
        counted = type(value) is int and least <= value <= most
        if not counted and (value is not None or key in ("k", "disclosed")):
            raise _invalid('counts["%s"]' % key, "expected an int from %s "
                           "to %s, got %s", least, most, value)
    if (counts["relevant"] is None) != (counts["hits"] is None):
        raise _invalid('counts["hits"]', 'expected None exactly when '
                       'counts["relevant"] is None, got %s', counts["hits"])


def _check_k(k):
    """Check that the cutoff k is an int from 1 to 100 (True is not)."""
    if type(k) is not int or not 1 <= k <= _MAX_K:
        raise _invalid("k", "expected an int from 1 to %s, got %s", _MAX_K, k)


# ==========================================================================
# START OF THE CONTRACT OF ONE QUESTION: the rules, then public functions.
def validate(corpus, case, run, k):
    """Check every input rule, in the order corpus, case, run, k; return
    (relevant, support, retrieved, claims), the very objects checked."""
    _check_corpus(corpus)
    fields = _checked_fields(case, "case", _CASE_KEYS, corpus)
    _check_case_rules(fields)
    answer = _checked_fields(run, "run", _RUN_KEYS, corpus)
    _check_k(k)
    return (fields["relevant"], fields["support"], answer["retrieved"],
            answer["claims"])


def _retrieval_counts(relevant, retrieved, k):
    """Return the counts "relevant", "k" (fixed slots), "hits" (in the top
    k), "first_hit" (best rank or None): None but k if relevant is None."""
    if relevant is None:
        return {"relevant": None, "k": k, "hits": None, "first_hit": None}
    wanted = set(relevant)
    # Only the top k count: a relevant document ranked k + 1 is no hit.
    ranks = [rank for rank, doc_id in enumerate(retrieved[:k], start=1)
             if doc_id in wanted]
    return {
        "relevant": len(relevant),
        "k": k,
        "hits": len(ranks),
        "first_hit": ranks[0] if ranks else None,
    }


def _values(counts):
    """Return the six values of counts tally() gives, in order."""
    # n/a is never 0: a value that does not apply here is None.
    ranked = bool(counts["relevant"])  # some document is labelled relevant
    judged = counts["supported"] is not None and counts["generated"]
    listed = counts["covered"] is not None  # and the claims expected
    first_hit = counts["first_hit"]
    return {
        # Fixed slots: the denominator is k even when fewer came back.
        "precision": counts["hits"] / counts["k"] if ranked else None,
        "recall": counts["hits"] / counts["relevant"] if ranked else None,
        # No relevant document in the top k: 0.0, the lowest score.
        "rr": (1 / first_hit if first_hit else 0.0) if ranked else None,
        "support": counts["supported"] / counts["generated"]
        if judged else None,
        "coverage": counts["covered"] / counts["expected"]
        if listed and counts["expected"] else None,
        # An empty answer models abstention, whatever a refusal would say.
        "abstention_correct": not counts["generated"]
        if listed and not counts["expected"] else None,
    }


def _unsupported_because(claim_id, citations, labels, visible, corpus):
    """Return None for a supported claim, else the first rule it breaks,
    each on every citation before the next: "no citation", "no label"
    (labels: {claim ID: its sources}), "not in the corpus", "not a
    labelled source", "outside the top k" (visible: the top k, a set)."""
    # Strict citations: one good citation does not excuse a bad one.
    if not citations:
        return "no citation"
    if claim_id not in labels:
        return "no label"  # nobody judged this claim supported
    for cited in citations:
        if cited not in corpus:
            return "not in the corpus"  # often a typo in the run
    for cited in citations:  # any labelled source will do, but each one
        if cited not in labels[claim_id]:
            return "not a labelled source"  # real, but not backing it
    for cited in citations:
        if cited not in visible:
            return "outside the top k"  # a labelled source the system hid
    return None


def _reasons(corpus, case, retrieved, claims, k):
    """Return [(claim ID, reason)] in answer order, reason None for a
    supported claim (_unsupported_because()); None when nothing judges the
    answer: case["support"] is None and no key of _JUDGEMENTS is given."""
    if case["support"] is None and not any(
            key in case for key in _JUDGEMENTS):
        return None
    # An optional claim counts as supported, though it covers nothing.
    labels = {**(case["support"] or {}), **case.get("optional", {})}
    labels = {claim_id: set(sources) for claim_id, sources in labels.items()}
    # The top k was the answer stage's context: all it could back a claim.
    visible = set(retrieved[:k])
    return [(claim_id, _unsupported_because(claim_id, citations, labels,
                                            visible, corpus))
            for claim_id, citations in claims]


def _uncovered(support, supported):
    """Return a tuple, in the order of support, of the expected claims
    that no supported claim states."""
    return tuple(claim_id for claim_id in support
                 if claim_id not in supported)


def _disclosed(restricted, retrieved, claims, k):
    """Return a tuple, in the order of restricted, of the restricted
    documents in the top k or cited."""
    # The top k is the answer stage's context; a citation quotes it.
    exposed = set(retrieved[:k])
    for claim_id, citations in claims:
        exposed.update(citations)
    return tuple(doc_id for doc_id in restricted if doc_id in exposed)


def _reviewed(reasons, loose, rejected):
    """Return the strict reasons as reviewers' records tell them apart:
    a claim in rejected is "judged unsupported", whatever else it breaks;
    one only the lenient reading (loose) supports, "only a disputed label
    supports it"; one with "no label" takes loose's reason."""
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


def _lenient_reading(case):
    """Return a new case, every disputed label agreed and no "disputed"
    key. A disputed source follows its claim's agreed ones: in "support"
    when the claim is expected, else in "optional", which is added only
    when it gets a claim or "support" is None (the case stays judged)."""
    reading = {key: value for key, value in case.items()
               if key != "disputed"}
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


def tally(corpus, case, run, *, k=2):
    """Validate; return the counts behind the six values: _retrieval_counts(),
    the claims "generated", "supported", "expected" and "covered" (None
    without their part) and "disclosed" documents (a count, never a score)."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    counts = _retrieval_counts(relevant, retrieved, k)
    reasons = None if claims is None else _reasons(
        corpus, case, retrieved, claims, k)
    supported = None if reasons is None else {
        claim_id for claim_id, reason in reasons if reason is None}
    uncovered = None if supported is None or support is None \
        else _uncovered(support, supported)
    restricted = case.get("restricted", ())
    counts.update(
        generated=None if claims is None else len(claims),
        supported=None if supported is None else len(supported),
        expected=None if support is None else len(support),
        covered=None if uncovered is None else len(support) - len(uncovered),
        disclosed=len(_disclosed(restricted, retrieved, claims or (), k))
        if restricted else 0)
    return {key: counts[key] for key in _COUNTS}  # in the contract's order


def lenient(case):
    """Check a case (IDs alone, no corpus); return its _lenient_reading()."""
    _check_case_rules(_checked_fields(case, "case", _CASE_KEYS, None))
    return _lenient_reading(case)


def scores(counts):
    """Check counts as tally() gives them; return their six values."""
    _check_counts(counts)
    return _values(counts)


def evaluate(corpus, case, run, *, k=2):
    """Validate one question's inputs; return a dict of its six values."""
    return _values(tally(corpus, case, run, k=k))  # counts tally() checked


def explain(corpus, case, run, *, k=2):
    """Validate like evaluate(); return "claims", the reason of each claim
    (_reviewed()), None with no answer or nothing to judge; "uncovered"
    (_uncovered()), None also without "support"; and "disclosed"."""
    relevant, support, retrieved, claims = validate(corpus, case, run, k)
    reasons = None if claims is None else _reasons(
        corpus, case, retrieved, claims, k)
    restricted = case.get("restricted", ())
    disclosed = restricted and _disclosed(restricted, retrieved,
                                          claims or (), k)
    if reasons is None:
        return {"claims": None, "uncovered": None, "disclosed": disclosed}
    supported = {claim for claim, reason in reasons if reason is None}
    uncovered = None if support is None else _uncovered(support, supported)
    if "disputed" in case or "rejected" in case:  # what reviewers recorded
        loose = reasons if "disputed" not in case else _reasons(
            corpus, lenient(case), retrieved, claims, k)
        reasons = _reviewed(reasons, loose, set(case.get("rejected", ())))
    return {"claims": tuple(reasons), "uncovered": uncovered,
            "disclosed": disclosed}


# END OF THE CONTRACT OF ONE QUESTION
# ==========================================================================


__all__ += ["MEASURES", "ndcg", "paired_test", "p_text", "report",
            "load_data", "load_trec"]

# Below END, each layer uses what is above it, and of the contract only its
# public functions: a scorer written in other words runs the whole report.

# --- Names, and the keys of a case only a report reads --------------------

_MAX_RUNS = 100  # repeated runs of one question by one system
_MAX_TAGS = 20  # of one question
_NAME_RULE = "names are 1 to 64 printable ASCII characters, no spaces"


def _check_name(value, field, case=None):
    """Check a case, system, group or tag name: it heads rows, so it prints
    the same on any terminal and leaves a row's words unambiguous."""
    if not (type(value) is str and 0 < len(value) <= 64
            and value.isascii() and value.isprintable()
            and " " not in value):
        raise _invalid(field, "invalid name %s (" + _NAME_RULE + ")", value)


def _check_tags(value, field, case):
    """Check "tags": a tuple of 1 to 20 distinct names."""
    if type(value) is not tuple or not 0 < len(value) <= _MAX_TAGS:
        raise _invalid(field, "expected a tuple of 1 to %s names, got %s",
                       _MAX_TAGS, value)
    for tag in value:
        _check_name(tag, field)
    if len(set(value)) < len(value):
        raise _invalid(field, "repeated name %s", next(
            tag for index, tag in enumerate(value) if tag in value[:index]))


def _check_grades(value, field, case):
    """Check "grades": an int from 1 to 100 for each relevant document."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or set(value) != set(case["relevant"] or ()):
        raise _invalid(field, "expected a grade for each document of "
                       'case["relevant"] %s, got %s', case["relevant"],
                       value)
    for doc_id, grade in value.items():
        if type(grade) is not int or not 1 <= grade <= 100:
            raise _invalid("%s['%s']" % (field, doc_id),
                           "expected an int from 1 to 100, got %s", grade)


# The keys of a case that the contract ignores and a report reads, each
# with its checker; a key a letter or two from one of these is a typo too.
_REPORT_KEYS = {
    "grades": _check_grades,  # graded relevance, for nDCG
    "group":  _check_name,    # the conversation or topic it belongs to
    "tags":   _check_tags,    # question types: each a slice of the summary
}
_ALL_CASE_KEYS = tuple(_CASE_KEYS) + tuple(_REPORT_KEYS)


def _check_report_keys(case):
    """Check the keys that only a report reads of a case validate() took."""
    _check_keys(case, "case", _ALL_CASE_KEYS)
    for key, check in _REPORT_KEYS.items():
        if key in case:
            check(case[key], 'case["%s"]' % key, case)


# --- The measures of one question -----------------------------------------

def _ndcg(case, run, k):
    """Return nDCG@k of a checked case and run (see ndcg())."""
    from math import log2
    if not case["relevant"]:
        return None
    gains = case.get("grades") or dict.fromkeys(case["relevant"], 1)
    gained = 0.0
    for rank, doc_id in enumerate(run["retrieved"][:k], start=1):
        gained += gains.get(doc_id, 0) / log2(rank + 1)
    best = 0.0
    ideal = sorted(gains.values(), reverse=True)[:k]
    for rank, gain in enumerate(ideal, start=1):
        best += gain / log2(rank + 1)
    return gained / best


def ndcg(corpus, case, run, *, k=2):
    """Validate like evaluate(); return nDCG@k as trec_eval's ndcg_cut gives
    it: the gain of the top k over that of the best ranking, a document's
    gain its grade (1 without grades) divided by log2(rank + 1). 0.0 when
    nothing relevant is in the top k; None when no document is relevant."""
    validate(corpus, case, run, k)
    _check_report_keys(case)
    return _ndcg(case, run, k)


# The measures of one question that a report gives, in the order of its
# columns. An entry holds the measure's label at cutoff k, how a run's value
# is found ("value": a function of the checked case, run and k; left out,
# evaluate() gives it), when it is n/a, whether it is a yes or no (counted,
# never averaged), and the case key it needs (a data set without it leaves
# the measure out). To add a measure, add its entry and its function.
MEASURES = {
    "precision": {"label": "P@%d", "n/a": "nothing is labelled relevant"},
    "recall": {"label": "R@%d", "n/a": "nothing is labelled relevant"},
    "rr": {"label": "RR@%d", "n/a": "nothing is labelled relevant"},
    "support": {"label": "support",
                "n/a": "the answer has no claim, or nothing judges it"},
    "coverage": {"label": "coverage", "n/a": "no claim is expected"},
    "abstention_correct": {"label": "abstention", "yes_no": True,
                           "n/a": "a claim is expected"},
    "ndcg": {"label": "nDCG@%d", "value": _ndcg, "needs": "grades",
             "n/a": "nothing is labelled relevant"},
}


def _averaged(measures):
    """Return the measures named that are averaged and tested: all but a
    yes or no."""
    return [name for name in measures if not MEASURES[name].get("yes_no")]


# --- Checked data: one parse -----------------------------------------------
# A data set is a dict of _DATA_KEYS (the fixture, a JSON file or TREC
# files read into one). _checked() checks it once, at this boundary, into
# records: what lies below reads them and checks nothing again. Each run
# is left to the contract's tally(), which checks it as it scores it.

_DATA_KEYS = ("k", "systems", "corpus", "cases", "runs", "policy",
              "manifests", "notes")
_MAX_SYSTEMS = 100  # the baseline among them: each candidate is tested
_MAX_ROWS = 15000  # runs in all: 7,500 questions of two systems
_MAX_READ = 15 * 10 ** 5  # label IDs the runs read in all: _labels_read()
_MAX_TAGS_IN_ALL = 100  # each a slice of the summary
_SLICES = ("answerable", "unanswerable")
# What a run manifest must hold the same for every system: runs on another
# corpus, other questions, permissions or rubric compare nothing.
_HELD_CONSTANT = ("corpus", "questions", "permissions", "rubric")
_NO_RUN = {"retrieved": (), "claims": ()}  # valid beside any case


class _Record:
    """Named fields, set from the arguments in the order of __slots__.
    (collections.namedtuple would do, but importing it costs more than
    printing the fixture's table.)"""

    __slots__ = ()

    def __init__(self, *values):
        for name, value in zip(self.__slots__, values):
            setattr(self, name, value)


class _Question(_Record):
    """A checked case: its name, the case, its runs as {system: a tuple of
    one run or of repeated ones}, whether each was given as a tuple,
    whether it is answerable, its group (None: a group of its own), the
    documents of the corpus it names (see _named()), and its lenient
    reading where it disputes a label (else None)."""

    __slots__ = ("name", "case", "runs", "repeated", "answerable", "group",
                 "documents", "loose")


class _Data(_Record):
    """A checked data set: k, the systems (the baseline first), the corpus,
    {name: _Question} in case order, the policy and manifests (or None),
    the measures it has, its slices ({slice: question names}), its groups
    ({name: group}, or None when no case names one) and its notes."""

    __slots__ = ("k", "systems", "corpus", "questions", "policy",
                 "manifests", "measures", "slices", "groups", "notes")


def _answerable(case):
    """True unless a checked case has nothing relevant or no claim expected:
    an unanswerable question, whose right answer is an empty one."""
    return case["relevant"] != () and case["support"] != {}


def _strings(value, depth):
    """Return every str in a tuple or a dict (its keys and values), and in
    those within it, down to `depth` levels."""
    found = []
    items = value if type(value) is tuple else (*value, *value.values())
    for item in items:
        if type(item) is str:
            found.append(item)
        elif depth > 1 and type(item) in (tuple, dict):
            found += _strings(item, depth - 1)
    return found


def _named(corpus, case):
    """Return the documents of a checked corpus that a case names, as {ID:
    text}: in the keys a report reads, as a key it ignores names none."""
    named, read = {}, ()
    if type(case) is dict:
        read = tuple(case[key] for key in _ALL_CASE_KEYS if key in case)
    for doc_id in _strings(read, 3):
        if doc_id in corpus:
            named[doc_id] = corpus[doc_id]
    return named


def _said(run):
    """Return (the strs of a run of any shape where documents go: retrieved
    or cited, the set of its claim IDs)."""
    documents, claim_ids = [], set()
    retrieved = run.get("retrieved") if type(run) is dict else None
    claims = run.get("claims") if type(run) is dict else None
    if type(retrieved) is tuple:
        documents += retrieved
    for pair in claims if type(claims) is tuple else ():
        if type(pair) is tuple and len(pair) == 2 and type(pair[1]) is tuple:
            documents += pair[1]
        if type(pair) is tuple and pair and type(pair[0]) is str:
            claim_ids.add(pair[0])
    return [doc_id for doc_id in documents if type(doc_id) is str], claim_ids


def _cut(corpus, named, documents):
    """Return the documents named (a case's, see _named()) and those of
    the corpus among documents, one at least: the contract checks a run
    against them in time that grows with the run and its labels, not with
    the corpus."""
    cut = dict(named)
    for doc_id in documents:
        if doc_id in corpus:
            cut[doc_id] = corpus[doc_id]
    return cut or dict([next(iter(corpus.items()))])


def _named_corpus(cases, runs):
    """Return the corpus of a data set that gives none: each ID that the
    cases' "relevant", "restricted" and sources and the runs' "retrieved"
    name, with no text (None). A citation of any other document is then
    "not in the corpus"."""
    parts = []
    for case in cases.values() if type(cases) is dict else ():
        for key in ("relevant", "restricted", "support", "optional",
                    "disputed"):
            value = case.get(key) if type(case) is dict else None
            parts.append(tuple(value.values()) if type(value) is dict
                         else value)  # a dict's sources, or IDs
    for by_system in runs.values() if type(runs) is dict else ():
        for given in by_system.values() if type(by_system) is dict else ():
            for run in given if type(given) is tuple else (given,):
                parts.append(run.get("retrieved") if type(run) is dict
                             else None)
    named = _strings(tuple(part for part in parts if type(part) is tuple), 3)
    documents = dict.fromkeys(doc_id for doc_id in named if _is_id(doc_id))
    # None valid: a document nobody names, so a fault names its ID, not the
    # corpus that was left out.
    return documents or {"none-named": None}


def _runs_of(runs, name, system):
    """Return a system's runs of a case as a tuple: (), when it did not
    run the case."""
    if system not in runs[name]:
        return ()
    given = runs[name][system]
    if type(given) is not tuple:
        return (given,)
    if not given or len(given) > _MAX_RUNS:
        where = "case %s, system %s: runs[%s][%s]" % (
            _shown(name), _shown(system), _shown(name), _shown(system))
        raise _invalid(where, "expected 1 to %s repeated runs, got %s",
                       _MAX_RUNS, given)
    return given


def _check_questions(corpus, cases, runs, k):
    """Check the shared corpus once, k, and that cases and runs are dicts
    by case name, runs holding a dict of runs by system name."""
    _check_corpus(corpus)
    _check_k(k)
    for part, value in (("cases", cases), ("runs", runs)):
        if type(value) is not dict:
            raise _invalid(part, "expected a dict, got %s", value)
        _check_keys(value, part)
    for name in cases:
        _check_name(name, "cases")
    for name, by_system in runs.items():
        if name not in cases:
            raise _invalid("runs", "no case named %s", name)
        if type(by_system) is not dict:
            raise _invalid("runs[%s]" % _shown(name),
                           "expected a dict of runs by system, got %s",
                           by_system)
        _check_keys(by_system, "runs[%s]" % _shown(name))


def _check_systems(systems):
    """Check a tuple of 1 to 100 distinct names, the baseline first: one
    alone is judged by the rules that need no baseline."""
    if type(systems) is not tuple or not 1 <= len(systems) <= _MAX_SYSTEMS:
        raise _invalid("systems", "expected a tuple of 1 to %s names, the "
                       "baseline first, got %s", _MAX_SYSTEMS, systems)
    for system in systems:
        _check_name(system, "systems")
    if len(set(systems)) < len(systems):
        raise _invalid("systems", "repeated name %s", next(
            system for index, system in enumerate(systems)
            if system in systems[:index]))


def _check_manifests(manifests, systems):
    """Check that manifests gives each system an object of strings, and
    that the fields of _HELD_CONSTANT are the same for all (a field left
    out is None)."""
    if type(manifests) is dict:
        _check_keys(manifests, "manifests")
    if type(manifests) is not dict or set(manifests) != set(systems):
        raise _invalid("manifests", "expected an object with the keys %s, "
                       "got %s", systems, manifests)
    for system in systems:
        field = "manifests[%s]" % _shown(system)
        if type(manifests[system]) is not dict:
            raise _invalid(field, "expected an object of strings, got %s",
                           manifests[system])
        _check_keys(manifests[system], field)
        for key, value in manifests[system].items():
            _check_name(key, field)  # printed as it is: a name's rule holds
            if type(value) is not str:
                raise _invalid("%s[%s]" % (field, _shown(key)),
                               "expected a string, got %s", value)
    first = manifests[systems[0]]
    for system in systems[1:]:
        for field in _HELD_CONSTANT:
            if first.get(field) != manifests[system].get(field):
                raise _invalid("manifests", '"' + field + '" must be the '
                               "same for every system, got %s for %s and "
                               "%s for %s", first.get(field), systems[0],
                               manifests[system].get(field), system)


def _data_parts(data):
    """Return a data set's parts as a dict of _DATA_KEYS, k 2 and policy and
    manifests None when left out, once its keys, k, systems and manifests
    are checked."""
    if type(data) is not dict:
        raise _invalid("data", "expected an object with the keys %s, got %s",
                       _DATA_KEYS, data)
    _check_keys(data, "data", _DATA_KEYS)
    for key in data:
        if key not in _DATA_KEYS:  # a misspelt "policy" must not pass unseen
            raise _invalid("data", "unknown key %s; the keys are %s", key,
                           _DATA_KEYS)
    for key in ("systems", "cases", "runs"):  # a corpus may be left out
        if key not in data:
            raise _invalid("data", "missing the key %s", key)
    parts = dict(dict.fromkeys(_DATA_KEYS), k=2)
    parts.update(data)
    _check_k(parts["k"])
    _check_systems(parts["systems"])
    if parts["manifests"] is not None:
        _check_manifests(parts["manifests"], parts["systems"])
    notes = parts["notes"]  # what load_trec() left out, say
    if notes is not None and not (type(notes) is tuple and len(notes) <= 10
                                  and all(type(note) is str and len(note) <=
                                          300 and note.isprintable()
                                          for note in notes)):
        raise _invalid("notes", "expected a tuple of at most 10 lines of "
                       "text, got %s", notes)
    return parts


def _check_runs(cases, runs, systems):
    """Check that every case is a dict that some listed system ran, that
    every system named in runs is listed, and that there are at most
    15,000 runs in all (each repeated run counted) and 100 tags."""
    listed, rows, tags = set(systems), 0, set()
    for name, case in cases.items():
        if type(case) is not dict:
            raise _invalid("case %s" % _shown(name), "expected a dict, got %s",
                           case)
        if type(case.get("tags")) is tuple:  # checked as its case is
            tags.update(tag for tag in case["tags"] if type(tag) is str)
        if not runs.get(name):
            raise _invalid("case %s" % _shown(name), "no system ran it: "
                           "missing from runs")
        for system, given in runs[name].items():
            if system not in listed:
                raise _invalid("runs[%s]" % _shown(name), "system %s is not "
                               'in "systems"', system)
            rows += len(given) if type(given) is tuple else 1
    if rows > _MAX_ROWS:
        raise _invalid("runs", "expected at most %s runs in all (each "
                       "repeated run counts), got %s", _MAX_ROWS, rows)
    if len(tags) > _MAX_TAGS_IN_ALL:
        raise _invalid("cases", "expected at most %s tags in all, got %s",
                       _MAX_TAGS_IN_ALL, len(tags))


def _question(name, case, runs, corpus, k):
    """Return the _Question of a case whose shape is checked: its labels
    checked in full, once, by validate() (each run then sees its own)."""
    documents = _named(corpus, case)
    try:
        validate(_cut(corpus, documents, ()), case, _NO_RUN, k)
        _check_report_keys(case)
    except EvaluationError as fault:
        raise EvaluationError("case %s: %s" % (_shown(name), fault)) from None
    given = {system: _runs_of(runs, name, system) for system in runs[name]}
    repeated = {system: type(runs[name][system]) is tuple
                for system in given}
    loose = lenient(case) if case.get("disputed") else None
    return _Question(name, case, given, repeated, _answerable(case),
                     case.get("group"), documents, loose)


def _slices(questions):
    """Return {slice: question names, in case order}: the answerable, the
    unanswerable, then "tag:NAME" per tag, in the order tags are first
    used."""
    parts = {part: [] for part in _SLICES}
    for question in questions.values():
        parts[_SLICES[not question.answerable]].append(question.name)
    for question in questions.values():
        for tag in question.case.get("tags", ()):
            parts.setdefault("tag:" + tag, []).append(question.name)
    return parts


def _labels_read(questions):
    """Return the IDs of labels the runs read in all: a question's labels
    (its documents, claims and sources) are read again by each of its runs
    (see _trimmed()), so their cost grows as their product."""
    read = 0
    for question in questions.values():
        labels = tuple(question.case.get(key) for key in _CASE_KEYS)
        runs = sum(map(len, question.runs.values()))  # repeated ones too
        read += len(_strings(labels, 3)) * runs
    return read


def _measures_of(cases):
    """Return the names of the measures a data set has: each that needs no
    case key, or whose key some case gives."""
    given = {measure.get("needs") for measure in MEASURES.values()}
    given = {key for key in given if key and any(
        key in case for case in cases.values())}
    return [name for name, measure in MEASURES.items()
            if measure.get("needs") in given | {None}]


def _checked(data):
    """Return a data set (a dict of _DATA_KEYS) checked, as _Data: its
    keys, k, systems and manifests, the shared corpus once, the shapes of
    cases and runs, then each case in full. The policy is checked by
    _check_policy(), which reads the rules below."""
    parts = _data_parts(data)
    cases, runs = parts["cases"], parts["runs"]
    corpus = parts["corpus"]
    if corpus is None:  # left out: the documents named, without text
        corpus = _named_corpus(cases, runs)
    _check_questions(corpus, cases, runs, parts["k"])
    _check_runs(cases, runs, parts["systems"])
    questions = {}
    for name, case in cases.items():
        questions[name] = _question(name, case, runs, corpus, parts["k"])
    read = _labels_read(questions)
    if read > _MAX_READ:
        raise _invalid("runs", "expected at most %s label IDs read in all "
                       "(each run reads every label of its question), got "
                       "%s", _MAX_READ, read)
    groups = None
    if any(question.group is not None for question in questions.values()):
        groups = {name: question.group
                  for name, question in questions.items()}
    return _Data(parts["k"], parts["systems"], corpus, questions,
                 parts["policy"], parts["manifests"], _measures_of(cases),
                 _slices(questions), groups, parts["notes"])


# --- The scored table ------------------------------------------------------
# Each run is scored by the contract's public functions, in each reading:
# the strict one, and the lenient one where its case disputes a label; with
# the corpus cut down to the documents its question and it name, so each
# run costs what its question holds, not what the corpus does. Everything
# below reads this table: the _Scored record of each question a system
# ran, in each reading.

def _trimmed(case, named):
    """Return a checked case with only what a run that names these claims
    can reach: the keys a report reads; in "optional", "disputed" and
    "rejected", the claims named; in "support", the first source of each
    claim not named. The rest cannot change its values, so each run is
    checked against its own labels, not every run's."""
    trimmed = {key: case[key] for key in _ALL_CASE_KEYS if key in case}
    if case["support"]:
        trimmed["support"] = {claim_id: sources if claim_id in named
                              else sources[:1] for claim_id, sources
                              in case["support"].items()}
    for key in ("optional", "disputed"):
        if key in case:
            trimmed[key] = {claim_id: sources for claim_id, sources in
                            case[key].items() if claim_id in named}
    if "rejected" in case:
        trimmed["rejected"] = tuple(claim_id for claim_id in case["rejected"]
                                    if claim_id in named)
    return trimmed


def _faulted(fault, name, system, number):
    """Return a fault of a run, the case named first, then the system and
    the run (numbered when runs repeat) where the run is at fault."""
    where = "case %s" % _shown(name)
    if not str(fault).startswith("case"):  # the run's, not the case's
        where += ", system %s" % _shown(system)
        if number:
            where += ", run %d" % number
    return EvaluationError("%s: %s" % (where, fault))


class _Scored(_Record):
    """One question run by one system, in one reading: {measure: the mean
    of its runs' values} (None: n/a), {count: the mean of its runs'}, each
    run's (values, counts), explain() of each run (None where not asked),
    and whether the question is answerable."""

    __slots__ = ("values", "counts", "runs", "explained", "answerable")


class _Table(_Record):
    """The scored data: {system: {question name: _Scored}} in the strict
    reading, and in the lenient one (None when no label is disputed; there
    a question that disputes none has its strict record)."""

    __slots__ = ("strict", "lenient")


def _mean(values):
    """Return the mean of the values that are not None (n/a is skipped,
    never averaged in as 0), or None when every one is."""
    from math import fsum
    present = [value for value in values if value is not None]
    return fsum(present) / len(present) if present else None


def _exact_mean(counts):
    """Return the mean of counts that are not None as an int when whole,
    else as a Fraction such as 3/2; None when every one is None."""
    from fractions import Fraction
    present = [count for count in counts if count is not None]
    if not present:
        return None
    total = Fraction(sum(present), len(present))
    return total.numerator if total.denominator == 1 else total


def _values_of(case, run, counts, data):
    """Return {measure: value} of one run of a case, in the order of the
    data's measures."""
    six = scores(counts)
    values = {}
    for name in data.measures:
        found = MEASURES[name].get("value")  # a function of its own
        values[name] = found(case, run, data.k) if found else six[name]
    return values


def _scored_run(data, question, run, explaining):
    """Return ({reading: (values, counts)} of one run, explain() of it or
    None): the run sees the labels it names alone (the lenient reading only
    where it names a disputed claim), and the documents its case and it
    name."""
    documents, claim_ids = _said(run)
    readings = {"strict": question.case}
    if question.case["support"] or any(key in question.case
                                       for key in _JUDGEMENTS):
        readings = {"strict": _trimmed(question.case, claim_ids)}
        if readings["strict"].get("disputed"):
            readings["lenient"] = _trimmed(question.loose, claim_ids)
    case = readings["strict"]
    cut = _cut(data.corpus, question.documents, documents)
    scored = {}
    for reading, labels in readings.items():
        counts = tally(cut, labels, run, k=data.k)
        scored[reading] = _values_of(labels, run, counts, data), counts
    counts = scored["strict"][1]
    # The summary counts each unsupported claim and each disclosure.
    flawed = counts["supported"] != counts["generated"] \
        or counts["disclosed"]
    if explaining == "every" or explaining and flawed:
        return scored, explain(cut, case, run, k=data.k)
    return scored, None


def _scored(runs, explained, answerable):
    """Return the _Scored record of a question's runs, each a (values,
    counts) pair: a repeated run's values and counts are their means."""
    values, counts = runs[0]
    if len(runs) > 1:
        values = {name: _mean([run[0][name] for run in runs])
                  for name in values}
        counts = {name: _exact_mean([run[1][name] for run in runs])
                  for name in counts}
    return _Scored(values, counts, tuple(runs), tuple(explained),
                   answerable)


def _runs_scored(data, question, system, explaining):
    """Return [_scored_run()] of each run of a question by a system; a
    fault names the case, then the system and the run."""
    found = []
    for number, run in enumerate(question.runs[system], start=1):
        try:
            found.append(_scored_run(data, question, run, explaining))
        except EvaluationError as fault:
            many = question.repeated[system]
            raise _faulted(fault, question.name, system,
                           many and number) from None
    return found


def _table(data, explaining):
    """Return the _Table of checked data: each question each system ran,
    scored run by run, with explain() of "every" run, of each "flawed" one
    (an unsupported claim or a disclosure: the summary counts them), or of
    none (None)."""
    disputed = any(question.case.get("disputed")
                   for question in data.questions.values())
    table = _Table({system: {} for system in data.systems},
                   {system: {} for system in data.systems} if disputed
                   else None)
    for question in data.questions.values():
        for system in question.runs:
            found = _runs_scored(data, question, system, explaining)
            explained = [explanation for scored, explanation in found]
            strict = _scored([scored["strict"] for scored, _ in found],
                             explained, question.answerable)
            table.strict[system][question.name] = strict
            if disputed:
                loose = strict if not question.case.get("disputed") else \
                    _scored([scored.get("lenient", scored["strict"])
                             for scored, _ in found],
                            explained, question.answerable)
                table.lenient[system][question.name] = loose
    return table


# --- The paired test -------------------------------------------------------
# paired_test() says how much a few questions can show at all. Values are
# compared as the exact fractions they stand for. p is found the first of
# three textbook ways its budget allows:
#
#   listed    exact     every one of the 2**m sign assignments of the m
#                       moved units, while m is at most 36: the sums of
#                       each half's subsets, one half sorted (meet in the
#                       middle)
#   counted   exact     the differences share a small unit: a table of how
#                       many sign assignments give each sum
#   sampled   sampled   up to 12,000 assignments drawn from a fixed seed, a
#                       random sign for each unit, units in name order
#
# The paired tests of one report share one budget: 30 million steps of
# exact work in all (a step is a table cell; a listed sum weighs 8), and
# 250 million unit-draws of sampling in all, so each sampled test draws
# 12,000 times, or fewer when the report's tests move more than about
# 20,000 units together. About 10 s on CPython 3.8, whatever the file.


_LARGEST_FLOAT = 1.7976931348623157e308
_MAX_DENOMINATOR = 10 ** 6  # 0.3 is read as 3/10, a third as 1/3 ...
_CLOSE_ULPS = 64  # ... and so is 1 - 2/3, a few units in the last place away
_MAX_UNIT_BITS = 2200  # a common denominator past this is not summed in
_MAX_LISTED = 36  # moved units listed: 2 * 2**18 sums, under half a second
_LISTED_WEIGHT = 8  # steps a listed sum costs, in table cells
_MAX_COUNTING_STEPS = 22 * 10 ** 6  # steps of one test: about 2 s on 3.8
_REPORT_STEPS = 30 * 10 ** 6  # exact steps of all a report's tests
_SAMPLES = 12000  # draws of a test at most: standard error at p = 0.05
#                   is then below 0.002
_REPORT_DRAWS = 250 * 10 ** 6  # unit-draws of all a report's tests
_SEED = 20261202  # the same draws on every run and every CPython


class _Budget(_Record):
    """What the paired tests of one report may still do: steps of exact
    work, and the draws each sampled test makes."""

    __slots__ = ("steps", "draws")


def _exact(number):
    """Return the fraction a number stands for: 0.5 is 1/2, 0.3 is 3/10 and
    1 - 2/3 is 1/3: a float within 64 units in the last place of a fraction
    whose denominator is at most a million is read as that fraction; any
    other, as it is."""
    # Imported here: loading fractions takes longer than printing the table.
    from fractions import Fraction
    from math import frexp
    value = Fraction(number)  # a float's value, exactly
    if value.denominator <= _MAX_DENOMINATOR:
        return value  # 0.5 or 3.0: small already
    near = value.limit_denominator(_MAX_DENOMINATOR)
    # The float's value is n / 2**e (e at least 52, as it is no int): it is
    # within 64 units in its last place, 2**(exponent - 53), of near = a / b
    # when |n b - a 2**e| 2**(53 - exponent) <= 64 b 2**e, in whole numbers.
    n, power = value.numerator, value.denominator
    a, b = near.numerator, near.denominator
    shift = 53 - max(frexp(number)[1], -1021)
    gap = abs(n * b - a * power) << shift
    return near if gap <= _CLOSE_ULPS * b * power else value


def _common_denominator(fractions):
    """Return the least common multiple of the fractions' denominators, or
    None once it needs over 2,200 bits."""
    from math import gcd
    scale = 1
    for denominator in {fraction.denominator for fraction in fractions}:
        scale = scale * denominator // gcd(scale, denominator)
        if scale.bit_length() > _MAX_UNIT_BITS:
            return None
    return scale


def _float_mean(fractions):
    """Return the mean of exact values as a float: exact and rounded once
    while their common denominator is small, else from the floats' sum, a
    few units in the last place off; an infinity beyond the largest float."""
    from fractions import Fraction
    from math import fsum, inf
    scale = _common_denominator(fractions)
    if scale is None:
        try:
            return fsum(float(value) for value in fractions) / len(fractions)
        except OverflowError:  # beyond the largest float on the way
            return inf if sum(fractions) > 0 else -inf
    whole = sum(value.numerator * (scale // value.denominator)
                for value in fractions)
    mean = Fraction(whole, scale * len(fractions))
    if abs(mean) > _LARGEST_FLOAT:
        return inf if mean > 0 else -inf
    return float(mean)


def _subset_sums(sizes):
    """Return the sums of the 2**len(sizes) subsets of sizes."""
    sums = [0]
    for size in sizes:
        sums += [total + size for total in sums]
    return sums


def _listed_count(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, listing
    them all: each sum of a subset of one half meets, in the sorted sums
    of the other half's subsets, those it can join within the limit."""
    from bisect import bisect_right
    half = len(sizes) // 2
    low = sorted(_subset_sums(sizes[:half]))
    count = 0
    for total in _subset_sums(sizes[half:]):
        count += bisect_right(low, limit - total)
    return count


def _counted_count(sizes, limit):
    """Return how many subsets of sizes add up to at most limit, by a table
    of how many subsets give each sum."""
    from operator import add
    ways = [1] + [0] * limit  # ways[s]: subsets so far that add up to s
    for size in sizes:
        # A subset leaves this size out (ways[s]) or takes it (ways[s -
        # size]): the new ways[s] add the two, for every s from size up.
        ways[size:] = list(map(add, ways[size:], ways))
    return sum(ways)


def _binomial_table(count):
    """Return the chance that at most 0, 1, ... count - 1 of `count` fair
    coins come up heads, in a list: a uniform number below the j-th entry
    and above the one before draws j heads."""
    table, ways, below = [], 1, 0  # ways: of j heads; below: of fewer
    for heads in range(count):
        below += ways
        table.append(below / 2 ** count)
        ways = ways * (count - heads) // (heads + 1)
    return table


def _plus_parts_by_size(units, count, draws):
    """Return `count` sums of the plus part of random sign assignments of
    the units: for each size in turn, `count` binomial counts of how many
    of its units are plus, drawn from draws."""
    from bisect import bisect_right
    from collections import Counter
    from operator import add
    sums = [0.0] * count
    for size, many in sorted(Counter(units).items()):
        table = _binomial_table(many)
        plus = [size * bisect_right(table, draws.random())
                for _ in range(count)]
        sums = list(map(add, sums, plus))
    return sums


def _plus_parts_by_bits(units, count, draws):
    """Return `count` sums of the plus part of random sign assignments of
    the units: bit i of a draw picks the i-th unit from the end. The sums
    of each 8 units' 256 subsets are listed once, so a draw adds one sum a
    byte: the same sums (each exact) as adding unit by unit, 5 times
    sooner."""
    backwards, tables = units[::-1], []
    for start in range(0, len(units), 8):
        sums = [0.0]  # sums[i]: the subset whose units are i's bits
        for unit in backwards[start:start + 8]:
            sums += [total + unit for total in sums]
        tables.append(sums)
    width, sums = (len(units) + 7) // 8, []
    for _ in range(count):
        picks = draws.getrandbits(len(units)).to_bytes(width, "little")
        sums.append(sum(map(list.__getitem__, tables, picks)))
    return sums


def _sampled_count(sizes, observed, count):
    """Return how many of `count` random sign assignments of the float
    sizes give a sum at least `observed` from 0, from a fixed seed: the
    same on every run and every CPython. Where ten units or more share a
    size, the draws are binomial counts by size: the same draw, sooner."""
    from math import fsum
    from random import Random
    # Each size in whole units of 2**-52 of the total, so that every sum is
    # exact. Rounding moves a sum by under 2 units a size: a draw that close
    # counts as extreme, so rounding can only raise p.
    scale = 2 ** 52 / fsum(sizes)
    units = [float(round(size * scale)) for size in sizes]
    total = sum(units)
    limit = (total - round(observed * scale)) // 2 + 2 * len(units) + 2
    by_size = len(set(units)) * 10 <= len(units)  # ten units or more a size
    sample = _plus_parts_by_size if by_size else _plus_parts_by_bits
    extreme = 0
    for plus in sample(units, count, Random(_SEED)):
        extreme += plus <= limit or plus >= total - limit
    return extreme


def _exact_p(moved, budget):
    """Return the exact p of the moved differences, listed or counted, or
    None when the budget cannot pay for it (it pays what it costs)."""
    from fractions import Fraction
    scale, m = _common_denominator(moved), len(moved)
    if scale is None:
        return None
    units = [d.numerator * (scale // d.denominator) for d in moved]
    sizes, observed = [abs(unit) for unit in units], abs(sum(units))
    if not observed:
        return Fraction(1)  # every sum is as far from 0 as that
    # Signs split the sizes into a plus part and a minus part, and the sum
    # is as far from 0 as observed when the plus part is at most (total -
    # observed) / 2, or, swapping the parts, as often again.
    limit = (sum(sizes) - observed) // 2
    listing = _LISTED_WEIGHT * 2 ** (m - m // 2 + 1)
    # (a cell holds a count of up to m bits: each thousand weighs)
    counting = m * (limit + 1) * -(-m // 1000)
    if m <= _MAX_LISTED and listing <= budget.steps:
        budget.steps -= listing
        return Fraction(2 * _listed_count(sizes, limit), 2 ** m)
    if counting <= min(budget.steps, _MAX_COUNTING_STEPS):
        budget.steps -= counting
        return Fraction(2 * _counted_count(sizes, limit), 2 ** m)
    return None


def _tails(floats, observed):
    """Return (the normal law's two-sided tail at the observed sum, with
    the sum's variance; Hoeffding's bound on the exact p): both known
    without sampling, the second never below the exact p."""
    from math import erfc, exp, fsum, sqrt
    variance = fsum(value * value for value in floats)
    normal = erfc(observed / sqrt(2 * variance))
    return normal, min(1.0, 2 * exp(-observed ** 2 / (2 * variance)))


def _sign_flip_p(differences, budget):
    """Return {p, method, samples, standard_error, p_upper, normal_p} of
    the two-sided sign-flip test of the units' differences, in the order
    of the units' names, as the budget allows (see _Budget)."""
    from fractions import Fraction
    from math import fsum
    moved = [difference for difference in differences if difference]
    found = dict(p=Fraction(1), method="exact", samples=None,
                 standard_error=0.0, p_upper=Fraction(1), normal_p=1.0)
    if not moved:
        return found  # every sum is 0, as far as observed
    largest = max(abs(difference) for difference in moved)
    signed = [float(difference / largest) for difference in moved]
    # fsum: the same float on every CPython (3.12's sum() compensates).
    floats, observed = [abs(value) for value in signed], abs(fsum(signed))
    found["normal_p"], hoeffding = _tails(floats, observed)
    p = _exact_p(moved, budget)
    if p is not None:
        return dict(found, p=p, p_upper=p)
    # The observed assignment counts as one draw, so p is never 0.
    extreme = _sampled_count(floats, observed, budget.draws)
    p = Fraction(1 + extreme, 1 + budget.draws)
    error = (float(p) * (1 - float(p)) / budget.draws) ** 0.5
    # Within two standard errors, at 95% even when no draw reached it.
    upper = min(float(p) + 2 * error, hoeffding)
    return dict(found, p=p, method="sampled", samples=budget.draws,
                standard_error=error, p_upper=upper)


def _question_value(value, side, name, read):
    """Return one question's value as a fraction, or None when it is n/a:
    the mean of its runs, n/a runs skipped. read holds the fraction of each
    number seen so far. A fault names side[name]."""
    runs = value if type(value) is tuple else (value,)
    if not runs or len(runs) > _MAX_RUNS:
        raise _invalid("%s[%s]" % (side, _shown(name)),
                       "expected 1 to %s runs, got %s: %s", _MAX_RUNS,
                       len(runs), value)
    present = []
    for run in runs:
        # An int or a float that a float can hold: NaN fails every
        # comparison, and an int such as 10**400 is beyond the largest float.
        number = type(run) in (int, float)
        if run is not None and not (
                number and -_LARGEST_FLOAT <= run <= _LARGEST_FLOAT):
            raise _invalid("%s[%s]" % (side, _shown(name)), "expected a "
                           "number, None or a tuple of them, got %s", value)
        if run is not None:
            if run not in read:
                read[run] = _exact(run)
            present.append(read[run])
    if len(present) < 2:
        return present[0] if present else None  # one run: its own value
    return sum(present) / len(present)


def _p_shown(found):
    """Return how a test's p reads, as what it is: an exact p, a sampled
    estimate with its standard error, or a bound that holds."""
    p, upper, draws = found["p"], found["p_upper"], found["samples"]
    if found["method"] == "exact":
        return "p = %s (exact)" % p_text(p)
    if upper < float(p) + 2 * found["standard_error"]:
        return "p <= %.2g (Hoeffding's inequality)" % upper
    if p * (1 + draws) == 1:  # no draw reached the observed sum
        return "p <= %.2g (95%% bound: none of %d draws reached it)" % (
            upper, draws)
    return "p = %.2g (sampled, %d draws, standard error %.2g)" % (
        p, draws, found["standard_error"])


def _paired(before, after, groups, runs, budget):
    """Return paired_test() of two dicts of exact values (fractions or None)
    by question name, groups by question name or None; runs counts the
    questions whose sides hold different numbers of runs."""
    by_unit = {}  # the differences of each unit: a group, or a question
    for name in before:
        if before[name] is not None and after[name] is not None:
            group = None if groups is None else groups[name]
            unit = (1, name) if group is None else (0, group)
            by_unit.setdefault(unit, []).append(after[name] - before[name])
    units = [by_unit[unit] for unit in sorted(by_unit)]  # same in any order
    differences = [unit[0] if len(unit) == 1 else sum(unit) / len(unit)
                   for unit in units]
    questions = [difference for unit in units for difference in unit]
    signs = [difference.numerator > 0 for difference in differences if
             difference]  # (a Fraction's sign is its numerator's)
    wins, losses = signs.count(True), signs.count(False)
    found = _sign_flip_p(differences, budget)
    mean = _float_mean(differences) if differences else None
    one_sided = [name for name in before
                 if (before[name] is None) != (after[name] is None)]
    return {
        "questions": len(questions),
        "left_out": len(before) - len(questions),  # n/a on a side: no pair
        "one_sided": len(one_sided),  # of them, n/a on one side only
        "groups": len(differences),
        "mean": mean,
        "question_mean": mean if len(questions) == len(differences)
        else _float_mean(questions),
        "wins": wins,
        "ties": len(differences) - wins - losses,
        "losses": losses,
        "p": found["p"],
        "p_upper": found["p_upper"],
        "p_shown": _p_shown(found),
        "min_p": _lowest_p(wins + losses),
        "method": found["method"],
        "samples": found["samples"],
        "standard_error": found["standard_error"],
        "normal_p": found["normal_p"],
        "unmatched_runs": runs,
    }


def _lowest_p(moved):
    """Return the lowest p that `moved` units can give, 2**(1 - moved): all
    moved one way."""
    from fractions import Fraction
    return Fraction(2, 2 ** moved) if moved else Fraction(1)


def _check_values(before, after, groups):
    """Check the inputs of paired_test(): dicts by the same question names,
    and groups a name or None by question."""
    for field, value in (("before", before), ("after", after),
                         ("groups", groups)):
        if field == "groups" and value is None:
            continue  # each question is a group of its own
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

        questions, left_out           questions compared and left out
        one_sided                     of those left out, n/a on one side only
        groups                        units: groups, or questions
        mean, question_mean           mean difference (after - before) of the
                                      units, and of the questions
        wins, ties, losses            units above, equal to, below before
        p                             two-sided: the share of the 2**m sign
                                      assignments of the m non-zero unit
                                      differences whose sum is at least as
                                      far from 0 as the observed one (or a
                                      sampled estimate of it)
        p_upper, p_shown              a bound above p (p itself when exact),
                                      and the p in words (see _p_shown())
        min_p                         2**(1 - m), the lowest p m units give
        method, samples               "exact", or "sampled" and its draws
        standard_error                of a sampled p; 0.0 for an exact one
        normal_p                      the normal law's p of the same sum: it
                                      orders sampled p's in Holm's method
        unmatched_runs                questions whose two sides hold
                                      different numbers of runs

    p, p_upper (when exact) and min_p are Fractions, 1 when no unit moved;
    mean is None with no unit. The same data in any order gives the same
    result.
    """
    _check_values(before, after, groups)
    read = {}  # the fraction of each number seen so far: values repeat
    values = [{name: _question_value(value, side, name, read)
               for name, value in by_name.items()}
              for side, by_name in (("before", before), ("after", after))]
    unmatched = 0
    for name in before:
        if _run_count(before[name]) != _run_count(after[name]):
            unmatched += 1
    budget = _Budget(_MAX_COUNTING_STEPS, _SAMPLES)  # one test's own
    return _paired(values[0], values[1], groups, unmatched, budget)


def _run_count(value):
    """Return how many runs a question's value holds."""
    return len(value) if type(value) is tuple else 1


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


# --- Comparing systems -----------------------------------------------------
# Slices of questions, their means, and each question's change from the
# baseline to a candidate, on the questions both ran.

_VERDICTS = ("improved", "regressed", "mixed", "unchanged", "not judged")
_FLOOR_LEVEL = 0.05  # the level a floor is held against without a policy


def _change(before, after):
    """Return 'better', 'worse' or 'equal'; None (not judged) if either side
    is n/a."""
    if before is None or after is None:
        return None  # n/a is not comparable: shown, never judged
    # Higher is better; for abstention, yes (True) is above no (False).
    if after > before:
        return "better"
    return "worse" if after < before else "equal"


def _verdict(before, after):
    """Return one question's verdict from its values before and after: "not
    judged" when only a value with n/a on one side moved."""
    changes = [_change(before[name], after[name]) for name in before]
    better, worse = "better" in changes, "worse" in changes
    if better and worse:
        return "mixed"
    if better:
        return "improved"
    if worse:
        return "regressed"
    return "not judged" if before != after else "unchanged"


def _totals(verdicts):
    """Return how many of the verdicts are each verdict, in a fixed order."""
    return {verdict: verdicts.count(verdict) for verdict in _VERDICTS}


def _macro_mean(values, total):
    """Return {mean, averaged, total}: each question weighs the same, and
    n/a (or a question not run) is skipped and counted, never averaged in
    as 0."""
    present = [value for value in values if value is not None]
    return {"mean": _mean(present), "averaged": len(present), "total": total}


def _pooled_support(scored):
    """Return {supported, generated, ratio}: the claims of every judged run
    of the _Scored records, added up."""
    supported = generated = 0
    for record in scored:
        for values, counts in record.runs:
            if counts["supported"] is not None:
                supported += counts["supported"]
                generated += counts["generated"]
    ratio = supported / generated if generated else None
    return {"supported": supported, "generated": generated, "ratio": ratio}


def _abstentions(scored):
    """Return {correct, total}: the judged answers among the _Scored records
    of unanswerable questions, and those of them with no claim."""
    judged = [record.counts for record in scored
              if record.counts["covered"] is not None]
    correct = [counts for counts in judged if counts["generated"] == 0]
    return {"correct": len(correct), "total": len(judged)}


def _slice_means(names, by_system, measures):
    """Return a slice's means: per averaged measure and system the macro
    mean, then pooled support, then correct abstentions over its
    unanswerable questions (None when it has none)."""
    ran = {system: [scored[name] for name in names if name in scored]
           for system, scored in by_system.items()}
    means = {}
    for measure in _averaged(measures):
        means[measure] = {}
        for system, records in ran.items():
            values = [record.values[measure] for record in records]
            means[measure][system] = _macro_mean(values, len(names))
    means["pooled_support"] = {system: _pooled_support(records)
                               for system, records in ran.items()}
    unanswerable = {system: [record for record in records
                             if not record.answerable]
                    for system, records in ran.items()}
    means["correct_abstentions"] = None
    if any(unanswerable.values()):
        means["correct_abstentions"] = {
            system: _abstentions(records)
            for system, records in unanswerable.items()}
    return means


def _means(data, by_system):
    """Return _slice_means() of every slice of the data."""
    return {part: _slice_means(names, by_system, data.measures)
            for part, names in data.slices.items()}


def _units(names, groups):
    """Return how many units the paired test counts over these questions:
    their groups, each question without one a group of its own."""
    if groups is None:
        return len(names)
    return len({groups[name] or (name,) for name in names})


def _sides(before, after, names, measure, read):
    """Return (the baseline's values, the candidate's, how many questions
    have unequal runs) of one measure, as exact fractions (None: n/a), on
    the questions among names that both _Scored records ({name: record})
    hold; read holds the fraction of each value read so far."""
    values, unmatched = ({}, {}), 0
    for name in names:
        if name not in before or name not in after:
            continue
        for record, side in ((before[name], values[0]),
                             (after[name], values[1])):
            value = record.values[measure]
            if value is not None and value not in read:
                read[value] = _exact(value)
            side[name] = None if value is None else read[value]
        if len(before[name].runs) != len(after[name].runs):
            unmatched += 1  # unequal runs can favour either side
    return values[0], values[1], unmatched


def _moved_at_most(sides):
    """Return how many units the paired tests of sides can move at most:
    the questions whose two values differ."""
    moved = 0
    for before, after, unmatched in sides:
        for name, value in before.items():
            moved += value is not None and value != after[name]
    return moved


def _moved(before, after):
    """Return [(measure, before, after, judged)] of each value that changed
    from one record to another; judged is False where a side is n/a."""
    moved = []
    for measure in before.values:
        old, new = before.values[measure], after.values[measure]
        if old != new:
            judged = _change(old, new) is not None
            moved.append((measure, old, new, judged))
    return moved


def _changes(before, after):
    """Return {case, verdict, moved} of each question both systems ran, in
    case order."""
    changes = []
    for name, record in before.items():
        if name in after:
            verdict = _verdict(record.values, after[name].values)
            changes.append({"case": name, "verdict": verdict,
                            "moved": _moved(record, after[name])})
    return changes


def _turned(changes, loose, systems):
    """Return (case, strict verdict, lenient verdict) of each change whose
    verdict a disputed label turns."""
    before, after = loose[systems[0]], loose[systems[1]]
    turned = []
    for change in changes:
        name = change["case"]
        verdict = _verdict(before[name].values, after[name].values)
        if verdict != change["verdict"]:
            turned.append((name, change["verdict"], verdict))
    return turned


def _manifest_changes(manifests, systems):
    """Return [(field, before, after)] of each field of the run manifests
    that changed from the first system to the second, or None."""
    if manifests is None:
        return None
    before, after = manifests[systems[0]], manifests[systems[1]]
    fields = list(before) + [field for field in after if field not in before]
    return [(field, before.get(field), after.get(field)) for field in fields
            if field not in _HELD_CONSTANT
            and before.get(field) != after.get(field)]


_MAX_TESTED = 10  # candidates past which only the declared measure is tested


def _declared(data):
    """Return the measure the policy's significance rule declares, or None."""
    return (data.policy or {}).get("significance", {}).get("metric")


def _tested(data, table):
    """Return {reading: {candidate: {measure: paired test}}}, each from the
    baseline on the answerable slice: in the strict reading, of each
    averaged measure (past 10 candidates, the declared one alone), and in
    the lenient one, of the measure the policy declares, if any. The
    tests share one budget (see _Budget)."""
    systems, declared = data.systems, _declared(data)
    measures = _averaged(data.measures)
    if len(systems) - 1 > _MAX_TESTED:
        measures = [declared] if declared else []
    read, wanted = {}, []  # read: each value's fraction, as values repeat
    for reading in ("strict", "lenient"):
        by_system = getattr(table, reading)
        for candidate in systems[1:] if by_system is not None else ():
            for measure in measures if reading == "strict" else \
                    [declared] * bool(declared):
                wanted.append((reading, candidate, measure, _sides(
                    by_system[systems[0]], by_system[candidate],
                    data.slices["answerable"], measure, read)))
    moved = _moved_at_most([sides for *key, sides in wanted])
    budget = _Budget(_REPORT_STEPS,
                     min(_SAMPLES, _REPORT_DRAWS // max(moved, 1)))
    tests = {reading: {candidate: {} for candidate in systems[1:]}
             for reading in ("strict", "lenient")
             if getattr(table, reading) is not None}
    for reading, candidate, measure, sides in wanted:
        before, after, unmatched = sides
        tests[reading][candidate][measure] = _paired(
            before, after, data.groups, unmatched, budget)
    return tests


def _floor(data, answerable):
    """Return {p, units, level, below_level}: the lowest p the paired test can
    give were every answerable unit both ran to move one way, and whether
    it is below the level (alpha of a declared test, else 0.05)."""
    units = _units(answerable, data.groups)
    level = (data.policy or {}).get("significance", {}).get(
        "alpha", _FLOOR_LEVEL)
    floor = _lowest_p(units)
    return {"p": floor, "units": units, "level": level,
            "below_level": floor < level}


def _comparison(data, table, candidate, tests, decided):
    """Return the comparison of one candidate with the baseline on the
    questions both ran, with its paired tests."""
    systems = (data.systems[0], candidate)
    changes = _changes(table.strict[systems[0]], table.strict[candidate])
    verdicts = {change["case"]: change["verdict"] for change in changes}
    answerable = [name for name in data.slices["answerable"]
                  if name in verdicts]
    tags = [part for part in data.slices if part not in _SLICES]
    return {
        "baseline": systems[0], "candidate": candidate,
        "manifest_changes": _manifest_changes(data.manifests, systems),
        "shared": len(changes),
        "changes": changes,
        "totals": _totals(list(verdicts.values())),
        "slice_totals": {part: _totals([verdicts[name]
                                        for name in data.slices[part]
                                        if name in verdicts])
                         for part in tags},
        "lenient_changes": None if table.lenient is None
        else _turned(changes, table.lenient, systems),
        "paired_tests": tests,
        "floor": _floor(data, answerable),
        "decision": decided,
    }


# --- Deciding --------------------------------------------------------------
# A policy is written with the labels, before any run is seen, and a system
# is accepted by it, not by whichever average looks best afterwards. Each
# rule is one entry of _RULES: the function that checks its setting (None:
# the rule is always on, and no policy names it) and the function that
# judges it. A judging function takes the rule's name, the policy, the
# candidate's and the baseline's _Scored records of one reading by case
# name (the baseline None when the candidate is judged alone) and the declared paired
# test; it returns [(held, (rule, question or slice, detail))], held True,
# False, or None where it could judge nothing. To add a rule, write its two
# functions and add its entry.

_PLANS = ("strict", "lenient", "both")  # policy["unresolved"]
_NO_BASELINE = "no baseline to compare with"


def _number(count):
    """Return a count as it is ('2'), or a mean over repeated runs ('1.50')."""
    return "%d" % count if count == int(count) else "%.2f" % count


def _plural(count, noun):
    """Return '1 claim', '2 claims', or '1.50 claims' for a mean of runs."""
    return "%s %s%s" % (_number(count), noun, "" if count == 1 else "s")


def _disclosure_findings(rule, policy, candidate, baseline, test):
    """Whatever the policy says, a question on which a system disclosed a
    restricted document is broken: no accuracy and no rule can excuse
    showing a document to someone who may not see it."""
    findings = []
    for name, record in candidate.items():
        disclosed = record.counts["disclosed"]
        if disclosed:
            detail = _plural(disclosed, "restricted document")
            findings.append((False, (rule, name, detail + " in the top k or "
                                     "cited")))
    return findings


def _comparison_findings(rule, policy, candidate, baseline, test):
    """A candidate that shares no question with the baseline is compared on
    nothing, and cannot be accepted."""
    if baseline is None or any(name in baseline for name in candidate):
        return []
    return [(False, (rule, "questions", "no question was run by both: "
                     "nothing compared"))]


def _critical_findings(rule, policy, candidate, baseline, test):
    """Per critical question: no judged value fell below the baseline's by
    more than policy["tolerance"] (0 without it), compared as the fractions
    they stand for."""
    if baseline is None:
        return [(None, (rule, "", _NO_BASELINE))]
    findings, tolerance = [], _exact(policy.get("tolerance", 0))
    for name in policy[rule]:
        if name not in baseline or name not in candidate:
            held = None if name not in baseline else False
            ran = "the baseline" if name not in baseline else "the candidate"
            findings.append((held, (rule, name, ran + " did not run it")))
            continue
        findings.append(_critical(rule, name, baseline[name].values,
                                  candidate[name].values, tolerance))
    return findings or [(None, (rule, "", "lists no question"))]


def _critical(rule, name, before, after, tolerance):
    """Return the finding of one critical question."""
    worse, held = [], True
    for measure in before:
        if _change(before[measure], after[measure]) == "worse":
            fall = (_exact(float(before[measure]))
                    - _exact(float(after[measure])))
            held = held and fall <= tolerance
            text = "%s %.2f -> %.2f" % (measure, before[measure],
                                        after[measure])
            if tolerance:  # how far it fell, against how far it may
                text += (", within %g" % tolerance if fall <= tolerance
                         else ", down %.2f, more than %g" % (fall, tolerance))
            worse.append(text)
    detail = _verdict(before, after)
    if worse:  # a 'regressed' or a 'mixed' verdict
        detail += ": " + ", ".join(worse)
    return held, (rule, name, detail)


def _coverage_findings(rule, policy, candidate, baseline, test):
    """Per critical question with a judged answer: its coverage reaches the
    minimum."""
    findings = []
    for name in policy["critical"]:
        if name not in candidate:
            findings.append((False, (rule, name, "the candidate did not run "
                                     "it")))
            continue
        counts = candidate[name].counts
        if counts["covered"] is not None:
            # As the fraction it is: 2/3 falls short of 0.67.
            detail = "coverage %s/%d, minimum %g" % (
                _number(counts["covered"]), counts["expected"], policy[rule])
            held = candidate[name].values["coverage"] >= policy[rule]
            findings.append((held, (rule, name, detail)))
    why = "lists no question" if not policy["critical"] else _NO_ANSWER
    return findings or [(None, (rule, "", why))]


_NO_ANSWER = "no answer judged against labels"


def _budget_findings(rule, policy, candidate, baseline, test):
    """Per slice the rule names: the unsupported claims of its judged
    answers stay within a count (unsupported_budget) or a share of their
    claims (unsupported_rate)."""
    findings = []
    for part in _SLICES:
        judged = [record.counts for record in candidate.values()
                  if record.answerable == (part == "answerable")
                  and record.counts["supported"] is not None]
        if part in policy[rule] and judged:
            findings.append(_budget(rule, part, policy[rule][part], judged))
    return findings or [(None, (rule, "", _NO_ANSWER))]


def _budget(rule, part, allowed, judged):
    """Return the finding of one slice's budget over its judged counts."""
    generated = sum(counts["generated"] for counts in judged)
    unsupported = generated - sum(counts["supported"] for counts in judged)
    if rule == "unsupported_budget":
        detail = "%s, budget %d" % (_plural(unsupported, "unsupported claim"),
                                    allowed)
        return unsupported <= allowed, (rule, part, detail)
    # Compared exactly: unsupported / generated <= rate.
    detail = "%s of %s unsupported, rate at most %g" % (
        _number(unsupported), _plural(generated, "claim"), allowed)
    return unsupported <= _exact(allowed) * generated, (rule, part, detail)


def _abstention_findings(rule, policy, candidate, baseline, test):
    """Per question that must be abstained on, whose run makes an answer:
    no claims."""
    findings = []
    for name in policy[rule]:
        if name not in candidate:
            findings.append((False, (rule, name, "the system did not run it")))
            continue
        claims = candidate[name].counts["generated"]
        if claims is not None:
            detail = "answered with " + _plural(claims, "claim") if claims \
                else "abstained"
            findings.append((claims == 0, (rule, name, detail)))
    why = "lists no question" if not policy[rule] else _NO_ANSWER
    return findings or [(None, (rule, "", why))]


def _significance_findings(rule, policy, candidate, baseline, test):
    """On the answerable slice: the declared measure rose, over the units
    and over the questions, with a p that holds at the level Holm's method
    gives it (see _p_holds()); and it did not fall where the paired test
    cannot look: on the slice mean over the questions each system has a
    value for, nor, for support, on pooled support."""
    if baseline is None:
        return [(None, (rule, "", _NO_BASELINE))]
    measure = policy[rule]["metric"]
    if not test["questions"]:
        return [(False, (rule, "answerable", measure + ": no question has a "
                         "value from both: nothing compared"))]
    rose = test["mean"] > 0 and test["question_mean"] > 0
    fell = _fell_on_the_slice(measure, candidate, baseline) if rose else []
    held = test["earlier_steps_held"] and _p_holds(test, test["level"]) \
        and rose and not fell
    detail = _significance(measure, test, policy[rule]["alpha"])
    if fell:
        detail += ": but " + " and ".join(fell)
    if test["one_sided"]:
        detail += (": %d questions have a value on one side only, weighed "
                   "in the slice means" % test["one_sided"])
    return [(held, (rule, "answerable", detail))]


def _fell_on_the_slice(measure, candidate, baseline):
    """Return how the measure fell on the answerable slice from baseline to
    candidate ({name: _Scored}), beyond the pairs: its slice mean over the
    questions each has a value for, and pooled support; [] if neither."""
    fell, sides = [], []
    for scored in (baseline, candidate):
        sides.append([record for record in scored.values()
                      if record.answerable])
    means = [_macro_mean([record.values[measure] for record in side], 0)
             for side in sides]
    if None not in (means[0]["mean"], means[1]["mean"]) \
            and means[1]["mean"] < means[0]["mean"]:
        fell.append("its slice mean fell, %.2f -> %.2f (over %d and %d "
                    "questions with a value)" % (
                        means[0]["mean"], means[1]["mean"],
                        means[0]["averaged"], means[1]["averaged"]))
    pooled = [_pooled_support(side) for side in sides]
    # Compared exactly: s1 / g1 < s0 / g0.
    if measure == "support" and pooled[0]["generated"] \
            and pooled[1]["generated"] and pooled[1]["supported"] \
            * pooled[0]["generated"] < pooled[0]["supported"] \
            * pooled[1]["generated"]:
        fell.append("pooled support fell, %(supported)d/%(generated)d" %
                    pooled[0] + " -> %(supported)d/%(generated)d" % pooled[1])
    return fell


def _significance(measure, test, alpha):
    """Return the detail of a significance finding: which way the measure
    went, by how much, on how much, and how its p stands."""
    level, mean = test["level"], test["mean"]
    moved = "rose" if mean > 0 else "fell" if mean < 0 else "did not move"
    over = "%d of %d questions" % (test["questions"],
                                   test["questions"] + test["left_out"])
    if test["groups"] != test["questions"]:  # groups: two means
        over = "%d groups; question mean %+.2f over %s" % (
            test["groups"], test["question_mean"], over)
    detail = ("%s %s: mean %+.2f over %s, %s, level %g (alpha %g, Holm's "
              "step %d of %d; one-sided %g)" % (
                  measure, moved, mean, over, test["p_shown"], level, alpha,
                  test["step"], test["steps"], level / 2))
    if test["p"] <= level < test["p_upper"]:
        detail += ": too close to call with %d draws" % test["samples"]
    if not test["earlier_steps_held"] and _p_holds(test, level):
        detail += ": not reached, as an earlier p in Holm's order did not hold"
    if test["unmatched_runs"]:
        detail += (": more runs on one side than the other on %d of the "
                   "questions (unequal runs can favour either side)"
                   % test["unmatched_runs"])
    return detail


def _p_holds(test, level):
    """True when the p of a paired test is at most a level, as is usual
    (p <= alpha): an exact p as the fraction it is, a sampled one by its
    upper bound (p_upper), so that no coin toss of the sampler decides."""
    return test["p_upper"] <= level


def _check_questions_named(value, field, answerable, unanswerable=False):
    """Check a tuple of distinct question names, each answerable (or each
    unanswerable, with unanswerable True)."""
    if type(value) is not tuple:
        raise _invalid(field, "expected a tuple of question names, got %s",
                       value)
    seen = set()
    for name in value:
        if type(name) is not str or name not in answerable:
            raise _invalid(field, "no question named %s", name)
        if name in seen:
            raise _invalid(field, "repeated question %s", name)
        seen.add(name)
        if answerable[name] == unanswerable:
            raise _invalid(field, "%s is unanswerable; list it in policy["
                           '"must_abstain"]' if not unanswerable else "%s is "
                           "answerable; only an unanswerable question must "
                           "be abstained on", name)


def _check_unanswerable(value, field, answerable):
    """Check a tuple of distinct names of unanswerable questions."""
    _check_questions_named(value, field, answerable, unanswerable=True)


def _check_budgets(value, field, answerable, rates=False):
    """Check a dict from one or both slices to a count from 0 to 10**9 (or
    a rate, with rates True)."""
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or not value or not set(value) <= set(_SLICES):
        raise _invalid(field, "expected a dict with one or both of the keys "
                       "%s, got %s", _SLICES, value)
    for part, allowed in value.items():
        where = "%s['%s']" % (field, part)
        if rates:
            _check_number(allowed, where)
        elif type(allowed) is not int or not 0 <= allowed <= 10 ** 9:
            raise _invalid(where, "expected an int from 0 to 1000000000, "
                           "got %s", allowed)


def _check_rates(value, field, answerable):
    """Check a dict from one or both slices to a number from 0 to 1."""
    _check_budgets(value, field, answerable, rates=True)


def _check_significance(value, field, answerable):
    """Check a dict of a measure to test and alpha, a number above 0 to
    0.5."""
    tested = tuple(_averaged(MEASURES))
    if type(value) is dict:
        _check_keys(value, field)
    if type(value) is not dict or set(value) != {"metric", "alpha"}:
        raise _invalid(field, 'expected a dict with the keys "metric" and '
                       '"alpha", got %s', value)
    if type(value["metric"]) is not str or value["metric"] not in tested:
        raise _invalid(field + '["metric"]', "expected one of %s, got %s",
                       tested, value["metric"])
    _check_number(value["alpha"], field + '["alpha"]', high=0.5,
                  above_low=True)


def _check_plan(value, field, answerable):
    """Check one of the plans: "strict", "lenient" or "both"."""
    if type(value) is not str or value not in _PLANS:
        raise _invalid(field, "expected one of %s, got %s", _PLANS, value)


def _check_number(value, field, answerable=None, high=1, above_low=False):
    """Check that value is an int or a float from 0 (or above it) to high."""
    # NaN fails every comparison, and True is not a number here.
    within = type(value) in (int, float) and (
        0 < value if above_low else 0 <= value)
    if not (within and value <= high):
        raise _invalid(field, "expected a number " + (
            "above" if above_low else "from") + " 0 to %s, got %s", high,
                       value)


# rule: (its checker, its findings), in the order a decision lists what
# they break, the gravest first: a significant fall of the declared measure
# comes before them all (see _judged()).
_RULES = {
    "disclosure":         (None, _disclosure_findings),
    "comparison":         (None, _comparison_findings),
    "critical":           (_check_questions_named, _critical_findings),
    "min_coverage":       (_check_number, _coverage_findings),
    "must_abstain":       (_check_unanswerable, _abstention_findings),
    "unsupported_budget": (_check_budgets, _budget_findings),
    "unsupported_rate":   (_check_rates, _budget_findings),
    "significance":       (_check_significance, _significance_findings),
}
_SETTINGS = {"tolerance": _check_number, "unresolved": _check_plan}
_POLICY_KEYS = tuple(rule for rule, (check, found) in _RULES.items()
                     if check) + tuple(_SETTINGS)


def _check_policy(data):
    """Check the policy of checked data, and each rule it sets."""
    policy = data.policy
    rules = str(_POLICY_KEYS[:-len(_SETTINGS)])  # named in full, never cut
    if type(policy) is not dict:
        raise _invalid("policy", "expected a dict, got %s", policy)
    _check_keys(policy, "policy", _POLICY_KEYS)
    for key in policy:
        if key not in _POLICY_KEYS:
            raise _invalid("policy", "unknown rule %s; the rules are " + rules
                           + ", the settings " + str(tuple(_SETTINGS)), key)
    if not any(key in _RULES for key in policy):
        raise _invalid("policy", "expected at least one of the rules "
                       + rules + ", got %s", policy)
    answerable = {name: question.answerable
                  for name, question in data.questions.items()}
    for key, value in policy.items():
        if key in ("min_coverage", "tolerance") and "critical" not in policy:
            raise _invalid('policy["%s"]' % key, 'applies to the questions of '
                           'policy["critical"], and the policy has none: got '
                           "%s", policy)
        check = _RULES[key][0] if key in _RULES else _SETTINGS[key]
        check(value, 'policy["%s"]' % key, answerable)
    metric = policy.get("significance", {}).get("metric")
    if metric is not None and metric not in data.measures:
        raise _invalid('policy["significance"]["metric"]', "expected a "
                       "metric the data measures, got %s: no case has "
                       + MEASURES[metric]["needs"], metric)


def _judged(policy, candidate, baseline, test=None):
    """Return {accepted, broken, held, unchecked, significance}: a
    candidate's entries judged by a checked policy, beside the baseline's
    (or None), with the declared paired test. accepted is None when
    nothing could be judged."""
    held, broken, unchecked = [], [], []
    for rule, (check, found) in _RULES.items():
        if check is None or rule in policy:  # always on, or set
            for holds, finding in found(rule, policy, candidate, baseline,
                                        test):
                if holds is None:
                    unchecked.append((rule, finding[2]))
                else:
                    (held if holds else broken).append(finding)
    if test and test["questions"] and test["mean"] < 0 \
            and _p_holds(test, test["level"]):
        # A significant fall of the declared measure leads: the gravest.
        broken.sort(key=lambda finding: finding[0] != "significance")
    # Nothing judged, nothing accepted: a policy that checked no rule
    # decides nothing.
    accepted = None if not held and not broken else not broken
    return {"accepted": accepted, "broken": broken, "held": held,
            "unchecked": unchecked, "significance": test}


def _decision(plan, strict, loose):
    """Return whether a candidate is accepted under a plan, by _judged()
    under each reading; loose is None when no label is disputed, and then
    the strict reading decides."""
    taken = [strict]
    if loose is not None:
        taken = {"strict": [strict], "lenient": [loose],
                 "both": [strict, loose]}[plan]
    if any(judged["accepted"] is None for judged in taken):
        return None  # nothing could be judged: nothing to accept
    return all(judged["accepted"] for judged in taken)


def _significance_tests(policy, tested):
    """Return {candidate: its declared paired test (see _tested()), with the
    level Holm's method compares its p with}; {} without the rule."""
    if "significance" not in policy:
        return {}
    measure = policy["significance"]["metric"]
    alpha = policy["significance"]["alpha"]
    tests = {candidate: by_measure[measure]
             for candidate, by_measure in tested.items()}
    # Holm's step-down method: the i-th smallest of m p values is compared
    # with alpha / (m - i + 1); from the first that does not hold, none
    # after it holds. A sampled p is ordered by the normal law's p of the
    # same sum, which no draw moves (any order keeps Holm's guarantee; the
    # order by p gives it its power); ties keep the candidates' order.
    held = True
    order = sorted(tests, key=lambda each: tests[each]["p"]
                   if tests[each]["method"] == "exact"
                   else tests[each]["normal_p"])
    for step, candidate in enumerate(order, start=1):
        level = alpha / (len(tests) - step + 1)
        tests[candidate] = dict(tests[candidate], level=level, step=step,
                                steps=len(tests), earlier_steps_held=held)
        held = held and _p_holds(tests[candidate], level)
    return tests


def _marked(strict, loose):
    """Return each broken finding as (rule, subject, detail, readings):
    readings "both", "strict" or "lenient", those that break it; loose is
    None when no label is disputed."""
    if loose is None:
        return [finding + ("both",) for finding in strict["broken"]]
    strictly = {finding[:2] for finding in strict["broken"]}
    leniently = {finding[:2] for finding in loose["broken"]}
    marked = []
    for finding in strict["broken"]:
        both = finding[:2] in leniently
        marked.append(finding + ("both" if both else "strict",))
    for finding in loose["broken"]:
        if finding[:2] not in strictly:
            marked.append(finding + ("lenient",))
    return marked


def _deciding_questions(strict, loose, data, table, systems):
    """Return the set of questions whose findings the readings judge
    differently: each one such a finding names, and for a slice's
    finding, each question of the slice whose counts differ between the
    readings."""
    differ = ({finding[:2] for finding in strict["broken"]}
              ^ {finding[:2] for finding in loose["broken"]})
    names = {subject for rule, subject in differ}
    for part in _SLICES:
        if part not in names:
            continue
        for system in systems:
            before, after = table.strict[system], table.lenient[system]
            names.update(name for name in data.slices[part] if name in before
                         and before[name].counts != after[name].counts)
    return names


def _by_readings(data, table, judged, systems):
    """Return one decision: the plan, the outcome, each reading's judgement,
    the broken findings marked with the readings that break them, and,
    where the readings decide differently, the disputed labels of the
    questions the differing findings name."""
    strict, loose = judged["strict"], judged.get("lenient")
    plan = data.policy.get("unresolved", "both")
    depends_on = []
    if loose is not None and strict["accepted"] != loose["accepted"]:
        deciding = _deciding_questions(strict, loose, data, table, systems)
        for name, question in data.questions.items():
            disputed = question.case.get("disputed", {})
            for claim_id, sources in disputed.items():
                if name in deciding:
                    depends_on.append((name, claim_id, sources))
    return {"plan": plan, "accepted": _decision(plan, strict, loose),
            "strict": strict, "lenient": loose, "depends_on": depends_on,
            "findings": _marked(strict, loose)}


def _decisions(data, table, tested):
    """Return the decision on each system: the baseline judged alone first,
    then each candidate against it, with the paired tests of _tested()."""
    policy, systems = data.policy, data.systems
    judged = {system: {} for system in systems}
    for reading in tested:
        by_system = getattr(table, reading)
        tests = _significance_tests(policy, tested[reading])
        baseline = by_system[systems[0]]
        judged[systems[0]][reading] = _judged(policy, baseline, None)
        for candidate in systems[1:]:
            judged[candidate][reading] = _judged(
                policy, by_system[candidate], baseline, tests.get(candidate))
    decided = {}
    for system in systems:
        pair = [systems[0], system] if system != systems[0] else [system]
        decided[system] = _by_readings(data, table, judged[system], pair)
    return decided


# --- One report ------------------------------------------------------------
# report() gathers, as plain data, every figure and finding demo.py prints,
# so that `demo.py --json` writes exactly what the text says. Every key is
# always there: a part not asked for, or that does not apply, is None. Each
# part reads the scored table: the cost grows as the runs of all questions
# and systems.

def _check_options(source, **flags):
    """Check the options of report(): source a str, each flag a bool."""
    if type(source) is not str:
        raise _invalid("source", "expected a str, got %s", source)
    for name, value in flags.items():
        if type(value) is not bool:
            raise _invalid(name, "expected True or False, got %s", value)


def _row(question, table, systems, explaining):
    """Return what the report gives of one question: per system its values
    and counts (means of its runs), how many runs, each run's values and
    counts where it has more than one, its lenient reading, and explain()
    of its run (or of each); None for a system that did not run it."""
    by_system = {}
    for system in systems:
        record = table.strict[system].get(question.name)
        if record is None:
            by_system[system] = None
            continue
        many = len(record.runs) > 1
        explained = list(record.explained) if many else record.explained[0]
        loose = None
        if question.case.get("disputed"):
            loose = table.lenient[system][question.name]
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


def _labelled(case):
    """Return the set of claims a case labels: expected, optional,
    disputed or rejected."""
    labelled = set(case["support"] or ())
    for key in _JUDGEMENTS:
        labelled.update(case.get(key, ()))
    return labelled


def _review_queue(data, table):
    """Return the claims of judged answers that nobody has labelled,
    rejected or disputed, each once: the next round of reviewing, as
    (system, case, claim, the documents it cites)."""
    queue = {}  # in order of first sight: repeated runs make the same claims
    for system, scored in table.strict.items():
        for name, record in scored.items():
            question = data.questions[name]
            labelled = _labelled(question.case)
            for run, (values, counts) in zip(question.runs[system],
                                             record.runs):
                if counts["supported"] is None:
                    continue  # no answer is made, or nothing judges it
                for claim_id, citations in run["claims"]:
                    if claim_id not in labelled:
                        queue[system, name, claim_id, citations] = None
    return list(queue)


def _orphan_labels(data):
    """Return (case, claim) of each claim that a case's "optional",
    "disputed" or "rejected" names and no run of any system makes: a label
    nobody uses, often a typo. An expected claim that no run makes is no
    orphan: it is uncovered."""
    orphans = {}
    for name, question in data.questions.items():
        made = set()
        for runs in question.runs.values():
            for run in runs:
                made.update(claim_id for claim_id, cited
                            in run["claims"] or ())
        for key in _JUDGEMENTS:
            for claim_id in question.case.get(key, ()):
                if claim_id not in made:
                    orphans[name, claim_id] = None
    return list(orphans)


def _disputed_labels(data):
    """Return (case, claim, sources) of every disputed label."""
    labels = []
    for name, question in data.questions.items():
        for claim_id, sources in question.case.get("disputed", {}).items():
            labels.append((name, claim_id, sources))
    return labels


def _not_run(data, by_system):
    """Return {system: {count, cases}}: how many questions each system did
    not run, and the first ten of them."""
    missing = {}
    for system, scored in by_system.items():
        names = [name for name in data.questions if name not in scored]
        missing[system] = {"count": len(names), "cases": names[:10]}
    return missing


def _disclosures(by_system):
    """Return {system: [(case, the restricted documents disclosed)]}: each
    question on which some run disclosed one."""
    found = {}
    for system, scored in by_system.items():
        found[system] = []
        for name, record in scored.items():
            if record.counts["disclosed"]:
                documents = {}
                for explained in record.explained:  # as it discloses
                    documents.update(dict.fromkeys(explained["disclosed"]
                                                   if explained else ()))
                found[system].append((name, tuple(documents)))
    return found


def _unreviewed(queue, systems):
    """Return {system: how many claims of the review queue it made}."""
    counted = dict.fromkeys(systems, 0)
    for system, name, claim_id, citations in queue:
        counted[system] += 1
    return counted


def _unsupported_reasons(by_system):
    """Return {system: {reason: how many claims explain() finds unsupported
    for it}}, over every run, reasons in the order first met."""
    counted = {}
    for system, scored in by_system.items():
        counted[system] = {}
        for record in scored.values():
            for explained in record.explained:  # where one is unsupported
                for claim_id, reason in (explained or {}).get("claims") or ():
                    if reason is not None:
                        counted[system][reason] = (
                            counted[system].get(reason, 0) + 1)
    return counted


def _judged_without_expected(data):
    """Return how many cases judge claims without listing expected ones."""
    return len([question for question in data.questions.values()
                if question.case["support"] is None
                and any(key in question.case for key in _JUDGEMENTS)])


def _summary(data, table, queue, source):
    """Return the summary: slices and their means, what was not run, each
    comparison, disclosures, what reviewers have left to do, and the
    decisions."""
    systems, policy = data.systems, data.policy
    tested = _tested(data, table)
    decided = None if policy is None else _decisions(data, table, tested)
    disputed = _disputed_labels(data)
    comparisons = [_comparison(data, table, candidate,
                               tested["strict"][candidate],
                               decided and decided[candidate])
                   for candidate in systems[1:]]
    return {
        "slices": data.slices,
        "not_run": _not_run(data, table.strict),
        "means": _means(data, table.strict),
        "disputed_labels": disputed or None,
        "lenient_means": _means(data, table.lenient) if disputed else None,
        "comparisons": comparisons,
        "disclosures": _disclosures(table.strict),
        "unreviewed": _unreviewed(queue, systems),
        "unsupported_reasons": _unsupported_reasons(table.strict),
        "orphan_labels": len(_orphan_labels(data)),
        "judged_without_expected": _judged_without_expected(data),
        "policy": None if policy is None else {
            "source": source if source == "fixtures.py"
            else 'the "policy" of ' + source,
            "rules": policy, "baseline_alone": decided[systems[0]]},
        "groups": None if data.groups is None
        else _units(list(data.questions), data.groups),
        "decisions": None if decided is None else {
            candidate: decided[candidate] for candidate in systems[1:]},
        # With one system alone, its own judgement: checked, not accepted.
        "accepted": decided is not None and all(
            decided[system]["accepted"] for system in systems[1:] or systems),
    }


def report(data, *, summary=False, explain=False, source="fixtures.py"):
    """Return the report of a data set (a dict of the shape load_data()
    returns) as plain data, keys in the order the README gives: the
    measures it has; per question, each system's values, counts, runs and
    lenient reading (None for a system that did not run it); with explain,
    explain() of each run, the claims nobody has reviewed and the labels
    no run uses; with summary, slices, comparisons and decisions. The
    first system is the baseline; each other one is a candidate. The data
    is checked once, first, as a whole: a fault raises EvaluationError."""
    _check_options(source, summary=summary, explain=explain)
    data = _checked(data)
    if data.policy is not None:  # a fault of the data, whatever is asked
        _check_policy(data)
    table = _table(data, "every" if explain else "flawed" if summary
                   else None)
    rows = [_row(question, table, data.systems, explain)
            for question in data.questions.values()]
    queue = None
    if explain or summary:
        queue = _review_queue(data, table)
    return {"source": source, "k": data.k,
            "systems": list(data.systems), "notes": data.notes and list(
                data.notes) or None, "measures": data.measures,
            "questions": rows,
            "review_queue": queue if explain else None,
            "orphan_labels": _orphan_labels(data) if explain else None,
            "summary": _summary(data, table, queue, source) if summary
            else None}


# --- Data from a file ------------------------------------------------------
# load_data() reads a JSON file that mirrors fixtures.py, for demo.py --data
# or your own code. JSON has arrays where the contract has tuples: they are
# read as tuples at this one boundary; report() checks the rest once.

_MAX_FILE_BYTES = 30 * 10 ** 6  # read no further: memory stays bounded
_MAX_DEPTH = 64  # arrays and objects within one another
_MAX_DIGITS = 100  # in one integer: Python refuses ints of over 4,300


def load_data(path):
    """Return the data of a JSON data file, its arrays as tuples, for
    report() to check and score.

    Every fault of the file raises EvaluationError: a path that is no path
    (a str, bytes or os.PathLike), a file that is not regular, cannot be
    read or holds more than 30,000,000 bytes, text that is not UTF-8 or
    not JSON (with the line and column JSON gives), NaN or Infinity, an
    integer of over 100 digits, nesting over 64 deep, a key repeated in
    one object.
    """
    import os
    try:
        path = os.fspath(path)  # a str or bytes: open(1) reads a descriptor
    except Exception:  # not a path, or a PathLike whose __fspath__ fails
        raise _invalid("path", "expected the path of a file, got %s",
                       path) from None
    try:
        text = _read(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvaluationError("is not UTF-8 text: %s at byte %d"
                              % (error.reason, error.start)) from None
    return _parsed(text)


def _read(path):
    """Return the bytes of the regular file at path, unless it holds more
    than the byte cap."""
    import os
    import stat
    try:
        status = os.stat(path)  # a FIFO or a device would wait, or never end
        regular = stat.S_ISREG(status.st_mode)
        raw = b""  # a file that is not regular, or too large, is left unread
        if regular and status.st_size <= _MAX_FILE_BYTES:
            with open(path, "rb") as file:
                raw = file.read(_MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = getattr(error, "strerror", None) or error
        raise EvaluationError("cannot be read: %s" % reason) from None
    if not regular:
        raise EvaluationError("is not a regular file (a directory, a FIFO, a "
                              "socket or a device)")
    if max(status.st_size, len(raw)) > _MAX_FILE_BYTES:
        raise EvaluationError("holds more than %d bytes, the most a data "
                              "file may hold" % _MAX_FILE_BYTES)
    return raw


def _parsed(text):
    """Return the JSON value of text, with every array a tuple."""
    import json  # only this path reads JSON
    try:
        value = json.loads(text, object_pairs_hook=_one_value_per_key,
                           parse_int=_whole_number,
                           parse_constant=_Constant)
    except RecursionError:  # nested deeper than this CPython's parser goes
        raise EvaluationError("is nested more than %d deep"
                              % _MAX_DEPTH) from None
    except json.JSONDecodeError as error:
        raise EvaluationError("is not valid JSON: %s (line %d, column %d)" % (
            error.msg, error.lineno, error.colno)) from None
    if "NaN" in text or "Infinity" in text:  # then find where, to name it
        _check_no_constant(value)
    return _as_tuples(value)


def _one_value_per_key(pairs):
    """Return an object's pairs as a dict; a repeated key, which JSON would
    drop silently, is a fault."""
    result = {key: value for key, value in pairs}  # as small as {} when empty
    if len(result) < len(pairs):
        seen = set()
        for key, value in pairs:  # the first key seen again, in one pass
            if key in seen:
                raise EvaluationError("data: repeated key %s in one object"
                                      % _shown(key))
            seen.add(key)
    return result


def _whole_number(text):
    """Return a JSON integer as an int, if it has at most 100 digits."""
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise EvaluationError("is not valid JSON: an integer of more than %d "
                              "digits, %s..." % (_MAX_DIGITS, text[:20]))
    return int(text)


class _Constant:
    """NaN, Infinity or -Infinity, which JSON does not have, where the
    parser met it: a fault, named once its place is found."""

    def __init__(self, name):
        self.name = name


def _check_no_constant(value):
    """Check that parsed JSON holds no _Constant; a fault names its place,
    as data[...][...]."""
    stack = [("data", value)]  # in the order of the text, depth first
    while stack:
        where, item = stack.pop()
        if type(item) is _Constant:
            raise EvaluationError("%s: %s is not a JSON number"
                                  % (where, item.name))
        inner = enumerate(item) if type(item) is list else (
            item.items() if type(item) is dict else ())
        for key, part in reversed(list(inner)):
            stack.append(("%s[%s]" % (where, _shown(key)), part))


def _as_tuples(value, depth=0):
    """Return value with every list, at any depth, a tuple. The lists and
    dicts are the parser's own: each is changed in place."""
    if type(value) not in (list, dict):
        return value
    if depth == _MAX_DEPTH:
        raise EvaluationError("is nested more than %d deep" % _MAX_DEPTH)
    items = enumerate(value) if type(value) is list else value.items()
    for key, item in items:
        empty = type(item) in (list, dict) and not item
        if empty and depth + 1 < _MAX_DEPTH:  # [] or {}: no call's cost
            if type(item) is list:
                value[key] = ()  # {} stays as it is
        elif type(item) in (list, dict):
            value[key] = _as_tuples(item, depth + 1)
    return tuple(value) if type(value) is list else value


# --- TREC files ------------------------------------------------------------
# load_trec() reads a qrels file and run files as trec_eval does, into the
# data a JSON file gives: a case per topic that the qrels and some run have
# (its documents of grade 1 or more relevant, each grade the gain), and per
# run, named by its tag, each topic's top k. Each line is read once, and a
# topic's top k alone is kept: memory stays that of k lines a topic.

_MAX_TREC_BYTES = 150 * 10 ** 6  # all TREC files together: about 20 s


def _file_name(path):
    """Return a path as a message shows it: as it is, or as ascii() does."""
    import os
    name = os.fsdecode(path)
    return name if name.isascii() and name.isprintable() else ascii(name)


def _trec_fault(path, number, template, *values):
    """Return the EvaluationError of a line of a TREC file."""
    return _invalid("%s, line %d" % (_file_name(path), number), template,
                    *values)


def _undecoded(path):
    """Return the number of the first line of a file not in UTF-8."""
    with open(path, "rb") as file:
        for number, line in enumerate(file, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 1  # (the file changed while it was read)


def _trec_lines(path):
    """Yield (line number, fields) of each line of a TREC file, its fields
    split on any whitespace."""
    try:
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, start=1):
                yield number, line.split()
    except UnicodeDecodeError as error:  # its decoder reads ahead of lines
        raise _trec_fault(path, _undecoded(path), "not UTF-8 text: %s",
                          error.reason) from None
    except OSError as error:
        raise EvaluationError("%s: cannot be read: %s" % (
            _file_name(path), error.strerror or error)) from None


def _qrels(path):
    """Return {topic: {document: grade}} of a qrels file."""
    judged = {}
    for number, fields in _trec_lines(path):
        try:
            topic, _, doc_id, grade = fields
            grade = int(grade)
        except ValueError:  # not 4 fields, or a grade that is not whole
            raise _trec_fault(path, number, "expected 'topic iteration "
                              "document grade', the grade whole, got %s",
                              " ".join(fields)) from None
        grades = judged.setdefault(topic, {})
        if doc_id in grades:
            raise _trec_fault(path, number, "document %s is judged twice "
                              "for topic %s", doc_id, topic)
        grades[doc_id] = grade
    return judged


def _top(rows, k):
    """Return the documents of the k highest (score, document) rows, by
    score then document, highest first, as trec_eval ranks them."""
    from heapq import nlargest
    return tuple(doc_id for score, doc_id in nlargest(k, rows))


def _ranked(path, k):
    """Return (tag, {topic: its top k documents, _top()}) of a run file:
    one tag, a topic's lines together, no document twice in a topic."""
    tops, rows, seen, topic, tag = {}, [], set(), None, None
    for number, fields in _trec_lines(path):
        if len(fields) < 6:
            if fields:  # a blank line is skipped, as trec_eval skips it
                raise _trec_fault(path, number, "expected 'topic Q0 "
                                  "document rank score tag', got %s",
                                  " ".join(fields))
            continue
        if fields[0] != topic:
            if fields[0] in tops:
                raise _trec_fault(path, number, "topic %s again, after "
                                  "others: its lines must come together",
                                  fields[0])
            if topic is not None:
                tops[topic] = _top(rows, k)
            topic, rows, seen = fields[0], [], set()
        if fields[5] != tag:
            if tag is not None:
                raise _trec_fault(path, number, "a second tag %s, after %s:"
                                  " a run file is one system's", fields[5],
                                  tag)
            tag = fields[5]
        if fields[2] in seen:
            raise _trec_fault(path, number, "document %s is ranked twice "
                              "for topic %s", fields[2], topic)
        seen.add(fields[2])
        try:
            score = float(fields[4])
        except ValueError:
            score = None
        if score is None or score != score:  # none, or NaN: no rank
            raise _trec_fault(path, number, "expected a score, got %s",
                              fields[4])
        rows.append((score, fields[2]))
    if topic is None:
        raise EvaluationError("%s: holds no line" % _file_name(path))
    tops[topic] = _top(rows, k)
    return tag, tops


def _trec_paths(qrels, runs):
    """Return the paths of the qrels and of each run, once each is checked
    to be a regular file, and all of them within the byte cap."""
    import os
    import stat
    if type(runs) not in (list, tuple) or not runs:
        raise _invalid("runs", "expected a list of paths, got %s", runs)
    paths, size = [], 0
    for path in (qrels, *runs):
        try:
            paths.append(os.fspath(path))
        except TypeError:
            raise _invalid("path", "expected the path of a file, got %s",
                           path) from None
        try:
            status = os.stat(path)
        except (OSError, ValueError) as error:  # ValueError: a NUL in it
            raise EvaluationError("%s: cannot be read: %s" % (_file_name(
                path), getattr(error, "strerror", None) or error)) from None
        if not stat.S_ISREG(status.st_mode):
            raise EvaluationError("%s: is not a regular file" % _file_name(
                path))
        size += status.st_size
    if size > _MAX_TREC_BYTES:
        raise EvaluationError("TREC files: hold %d bytes together, more "
                              "than %d, the most read" % (size,
                                                          _MAX_TREC_BYTES))
    return paths


def _left_out(why, topics, what):
    """Return a note of the topics left out, the first five named."""
    names = ", ".join(map(_shown, topics[:5])) + ", ..." * (len(topics) > 5)
    return "%s: %s %s (%s)" % (why, _plural(len(topics), what[0]), what[1],
                               names)


def load_trec(qrels, runs, *, k=10):
    """Return the data of a TREC qrels file and run files (see README.md),
    as load_data() returns a JSON file's, for report() to check and score:
    k, the runs' tags as the systems (the first the baseline), a case per
    topic the qrels and some run have, each run's top k of it, and notes
    on the topics left out. A fault raises EvaluationError naming the file
    and the line."""
    _check_k(k)
    paths = _trec_paths(qrels, runs)
    judged, tops, notes = _qrels(paths[0]), {}, []
    for path in paths[1:]:
        tag, ranked = _ranked(path, k)
        name = _run_name(tag, path, tops)
        if name != tag:
            notes.append("run %s named by its file: its tag %s is %s" % (
                _file_name(path), _shown(tag), "another run's" if tag in
                tops else "no name (" + _NAME_RULE + ")"))
        tops[name] = ranked
    return _trec_data(judged, tops, k, notes)


def _run_name(tag, path, taken):
    """Return the name of a run: its tag, or where that is taken or no
    name (_check_name()), the file's own name."""
    import os
    for name in (tag, os.path.basename(path)):
        try:
            _check_name(name, "run")
        except EvaluationError:
            continue
        if name not in taken:
            return name
    raise EvaluationError("%s: its tag %s and its file's name are taken or "
                          "no names (%s)" % (_file_name(path), _shown(tag),
                                             _NAME_RULE))


def _trec_data(judged, tops, k, notes):
    """Return the data of qrels read by _qrels() and runs by _ranked(),
    with notes on how runs were named."""
    runs, unjudged = {}, {}
    for tag, ranked in tops.items():
        for topic, retrieved in ranked.items():
            if topic not in judged:
                unjudged[topic] = None  # left out, as trec_eval leaves it
                continue
            runs.setdefault(topic, {})[tag] = {"retrieved": retrieved,
                                               "claims": None}
    cases = {}
    for topic, grades in judged.items():
        relevant = {doc_id: grade for doc_id, grade in grades.items()
                    if grade >= 1}
        if topic in runs:
            cases[topic] = {"relevant": tuple(relevant), "support": None,
                            "grades": relevant}
    if not cases:
        raise EvaluationError("no topic of the runs is in the qrels")
    notes += [_left_out("left out, as trec_eval leaves them", list(
        unjudged), ("run topic", "the qrels do not have"))] * bool(unjudged)
    alone = [topic for topic in judged if topic not in runs]
    notes += [_left_out("not scored, as by trec_eval without -c", alone, (
        "qrels topic", "no run has"))] * bool(alone)
    return {"k": k, "systems": tuple(tops), "cases": cases,
            "runs": {topic: runs[topic] for topic in cases},
            "notes": tuple(notes)}
