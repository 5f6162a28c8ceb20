"""Lock down evaluate.py: one worked check per rule, then the fixture.

Run from this folder:  python -m unittest   (from any folder: python
path/to/test_evaluate.py). What to read: from "--- 2. Worked checks"
down; the lines above it are machinery (test order, failure messages).
The tests call evaluate.py's public functions alone: a scorer with
helpers of any names passes if it keeps the rules. The worked checks run
in the order of README.md's steps; while one fails, the tests after it
step aside (skipped): the first failure names the rule broken and the
function to write. A question added to fixtures.py, or a run deleted,
changes the rows of EXPECTED_SCORES and EXPECTED_EXPLANATIONS, worked out
by hand: until they match, the first of them fails, naming the rows."""
import atexit
import copy
import doctest
import os
import sys
import unittest

import evaluate
from evaluate import EvaluationError
from fixtures import CASES, CORPUS, RUNS

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "README.md")


def load_tests(loader, tests, pattern):
    """Run the tests in the order written, then README.md's examples."""
    groups = [value for value in globals().values()
              if isinstance(value, type)
              and issubclass(value, unittest.TestCase) and in_order(value)]
    suite = unittest.TestSuite(group(name) for group in groups
                               for name in in_order(group))
    if os.path.exists(README):  # a long result may wrap in the README
        suite.addTests(doctest.DocFileSuite(
            README, module_relative=False, setUp=lambda test: step_aside(),
            optionflags=doctest.NORMALIZE_WHITESPACE))
    else:
        suite.addTest(unittest.FunctionTestCase(readme_examples))
    return suite


def readme_examples():
    """README.md's examples, which need README.md beside this file."""
    raise unittest.SkipTest("README.md is not beside test_evaluate.py, so "
                            "its examples did not run")


# --- Stepping aside ---------------------------------------------------------

WAITING_FOR = {}  # what fails first, found once by first_failure()
EVERY_FAILURE = os.environ.get("EVERY_FAILURE") == "1"  # none steps aside


def in_order(group):
    return [name for name in vars(group) if name.startswith("test_")]


def first_failure():
    """Return (group, name) of the first of GATES that fails, or None."""
    if "found" not in WAITING_FOR:
        WAITING_FOR.update(found=None, quiet=True)
        try:
            for group, name in GATES:
                result = unittest.TestResult()
                group(name).run(result)
                if not result.wasSuccessful():
                    WAITING_FOR["found"] = (group, name)
                    break
        finally:
            WAITING_FOR["quiet"] = False
    return WAITING_FOR["found"]


def step_aside(test=None):
    """Skip `test` while a check before it fails: read that failure."""
    if WAITING_FOR.get("quiet") or EVERY_FAILURE:
        return  # first_failure() is finding out, or every failure is asked
    found = first_failure()
    here = (type(test), getattr(test, "_testMethodName", None))
    if found is None or here == found or (
            here in GATES and GATES.index(here) < GATES.index(found)):
        return
    if not WAITING_FOR.get("said"):  # said once, and again at the end
        WAITING_FOR["said"] = True
        sys.stderr.write("\n%s fails,\nso the tests after it step aside "
                         "(skipped) until it is mended: read the\nfailure "
                         "below.\n" % found[1])
        atexit.register(sys.stderr.write, "Only the first failure is "
                        "shown. To see every failure:\nEVERY_FAILURE=1 "
                        "python -m unittest\n")
    raise unittest.SkipTest("waiting for %s.%s" % (found[0].__name__,
                                                   found[1]))


# --- Helpers ----------------------------------------------------------------

def restore(part, written):
    """Put back in place what a scorer changed in a dict of fixtures.py."""
    for key in [key for key in part if key not in written]:
        del part[key]
    for key, value in written.items():
        if type(value) is dict and type(part.get(key)) is dict:
            restore(part[key], value)
        elif key not in part or part[key] != value:
            part[key] = copy.deepcopy(value)


def cut(text, limit=300):
    return text if len(text) <= limit else text[:limit - 3] + "..."


def shown(value):
    """Return a value as the README promises a message shows it: as the
    standard library's reprlib abbreviates it (3 levels, 16 items a level,
    80 characters a string), in ASCII, cut to 80 characters."""
    import reprlib
    brief = reprlib.Repr()
    brief.maxlevel, brief.maxstring = 3, 80
    brief.maxtuple = brief.maxlist = brief.maxset = brief.maxdict = 16
    brief.maxother = brief.maxlong = 80
    text = brief.repr(value).encode("ascii", "backslashreplace").decode()
    return cut(text, 80)


def within_79(text):
    """Return text with each line over 79 columns broken at its spaces."""
    import textwrap
    return "\n".join(part for line in text.split("\n") for part in (
        textwrap.wrap(line, 79, subsequent_indent="    ") or [""]))


class TestCase(unittest.TestCase):
    """Checks that fail once however many rows are wrong."""

    def __str__(self):  # a check of the lab: its name alone, in 79 columns
        name = self._testMethodName
        return name if (type(self), name) in GATES else super().__str__()

    def fail(self, msg=None):  # (what every assert method calls)
        super().fail(msg if msg is None else within_79(str(msg)))

    def setUp(self):
        for part, written in zip((CORPUS, CASES, RUNS, RUN), PRISTINE):
            restore(part, written)  # whatever a scorer under test changed
        step_aside(self)

    def assertEqual(self, first, second, msg=None):
        """As unittest's, noting a list where a tuple was expected."""
        note = kinds_differ(second, first).strip()
        if note:
            msg = note if msg is None else "%s %s" % (note, msg)
        super().assertEqual(first, second, msg)

    def assertRows(self, function, rows):
        """Check function(*inputs) == expected: fail at the first row."""
        rows = list(rows)
        wrong = []
        for inputs, expected in rows:
            try:
                got = function(*inputs)
            except NotImplementedError:
                raise  # a function still to write: the failure names it
            except Exception as error:  # a crash is a wrong row too
                if type(error) is KeyError and \
                        error.args[:1] in (("A",), ("B",)):
                    raise  # a run gone from fixtures.py: the check skips
                got = error
            if isinstance(got, Exception) or got != expected:
                wrong.append((inputs, expected, got))
        if wrong:
            inputs, expected, got = wrong[0]
            shown_got = "raised %r" % got if isinstance(got, Exception) \
                else repr(got)
            self.fail("%d of %d rows wrong; the first:\n  inputs:   %s\n"
                      "  expected: %s\n  got:      %s%s" % (
                          len(wrong), len(rows), cut(repr(inputs)),
                          cut(repr(expected)), cut(shown_got),
                          kinds_differ(expected, got)))

    def assertRowTable(self, got, expected, name, shape):
        """Check got == expected, a row per (case, system), naming any
        row missing, and any of a run the fixture no longer has."""
        missing = [key for key in got if key not in expected]
        gone = [key for key in expected if key not in got]
        if missing or gone:
            self.fail("%s: rows to add, each worked out by hand as\n%s:\n"
                      "%s\nrows to delete (runs fixtures.py no longer has)"
                      ": %s\nA row that differs from the scorer then fails "
                      "with what the scorer gives." % (
                          name, shape, ", ".join(map(repr, missing)) or
                          "none", ", ".join(map(repr, gone)) or "none"))
        self.assertSnapshot(got, expected, name)

    def assertSnapshot(self, got, expected, name):
        """Check got == expected, a dict or a text compared line by line,
        worked out by hand: a failure shows the first entry that differs."""
        if isinstance(expected, str):
            got = dict(enumerate(got.splitlines(), start=1))
            expected = dict(enumerate(expected.splitlines(), start=1))
        keys = list(expected) + [key for key in got if key not in expected]
        nothing = "(nothing)"
        wrong = [key for key in keys
                 if got.get(key, nothing) != expected.get(key, nothing)]
        if wrong:
            key = wrong[0]
            self.fail(
                "%d of %d entries of %s differ; the first, %r:\n  expected:"
                " %s\n  got:      %s%s\n%s holds values worked out by "
                "hand. If you changed those questions in fixtures.py on "
                "purpose, check the new values by hand, then update %s in "
                "test_evaluate.py. If you did not, the scorer is wrong." % (
                    len(wrong), len(keys), name, key,
                    cut(repr(expected.get(key, nothing))),
                    cut(repr(got.get(key, nothing))),
                    kinds_differ(expected.get(key), got.get(key)), name,
                    name))


def plain(value):
    """Return value with every list, at any depth, a tuple."""
    if type(value) in (list, tuple):
        return tuple(map(plain, value))
    if type(value) is dict:
        return {key: plain(item) for key, item in value.items()}
    return value


def kinds_differ(expected, got):
    """Return a note when expected and got differ only as lists do."""
    if expected == got or plain(expected) != plain(got):
        return ""
    return ("\n  (the same values, but a list where a tuple is expected, or "
            "the other way round)")


def message_of(function, arguments):
    try:
        function(**arguments)
    except EvaluationError as error:
        return str(error)
    return None


def fault_of(function, arguments, field, *values):
    """Return 'ok' when function(**arguments) raises EvaluationError whose
    message starts with `field: ` and shows each value; else why not."""
    message = message_of(function, arguments)
    if message is None:
        return "accepted, with no EvaluationError"
    if not message.startswith(field + ": "):
        return "names another field: " + message
    missing = [shown(value) for value in values if shown(value) not in message]
    return "does not show %s: %s" % (missing[0], message) if missing else "ok"


CASE = CASES["rollback"]     # answerable, two expected claims
RUN = {"retrieved": ("rollback", "checklist"),  # rollback B, as written:
       "claims": (("switch", ("rollback",)), ("smoke", ("checklist",)))}
PRISTINE = copy.deepcopy((CORPUS, CASES, RUNS, RUN))  # as written
METRICS = ["precision", "recall", "rr", "support", "coverage",
           "abstention_correct"]
FOUR = ("launch", "rollback", "owner", "region")  # pinned by name
NOTHING = {"retrieved": (), "claims": ()}  # finds nothing, says nothing


def inputs(**changes):
    """Return evaluate()'s arguments for rollback/B, some replaced."""
    return dict({"corpus": CORPUS, "case": CASE, "run": RUN, "k": 2},
                **changes)


def case_with(**fields):
    return dict(CASE, **fields)


def run_with(**fields):
    return dict(RUN, **fields)


def case_input(**fields):
    return inputs(case=case_with(**fields))


def run_input(**fields):
    return inputs(run=run_with(**fields))


# --- 1. The fixture is valid input ------------------------------------------

class FixtureIsValid(TestCase):
    """fixtures.py is valid input, checked by validate() alone."""

    def test_every_run_is_of_a_case(self):
        self.assertEqual([name for name in RUNS if name not in CASES], [],
                         "fixtures.py: RUNS names cases that CASES lacks")

    def test_each_run_is_valid_input(self):
        corpus, cases, runs = copy.deepcopy(PRISTINE[:3])
        for name in cases:
            for system in runs.get(name, ()):
                message = message_of(evaluate.validate, dict(
                    corpus=corpus, case=cases[name], run=runs[name][system],
                    k=2))
                if message:
                    self.fail("fixtures.py: case %r, system %r: %s" % (
                        name, system, message))


# --- 2. Worked checks: one per rule, in the order of the steps --------------

# Tallies of fixture runs, worked out by hand: the counts behind the values.
LAUNCH_A = {"relevant": 1, "k": 2, "hits": 1, "first_hit": 1,
            "generated": 1, "supported": 1, "expected": 1, "covered": 1,
            "disclosed": 0}
LAUNCH_B = dict(LAUNCH_A, generated=2)  # and a claim with no agreed label
ROLLBACK_A = dict(LAUNCH_A, relevant=2, expected=2)  # one note, two slots
OWNER_A = dict(LAUNCH_A, first_hit=2, supported=0, covered=0, disclosed=1)
REGION_A = dict(LAUNCH_A, relevant=0, hits=0, first_hit=None,  # answered,
                supported=0, expected=0, covered=0)  # though unanswerable
REGION_B = dict(REGION_A, generated=0)  # abstained
UNLABELLED = dict(LAUNCH_A, relevant=None, hits=None, first_hit=None)
NO_ANSWER = dict(LAUNCH_A, generated=None, supported=None, covered=None)
OWNER = {"relevant": ("owners",), "support": {"aurora": ("owners",)}}


def retrieval(name, system, k=2):
    """Return tally() of a fixture run's retrieval alone."""
    case = {"relevant": CASES[name]["relevant"], "support": None}
    return evaluate.tally(CORPUS, case, dict(RUNS[name][system],
                                             claims=None), k=k)


def owner_answer(*citations, retrieved=("owners", "archive"), k=2):
    """Return tally() of the owner question answered citing citations."""
    run = {"retrieved": retrieved, "claims": (("aurora", citations),)}
    return evaluate.tally(CORPUS, OWNER, run, k=k)


def reviewed(name):
    """Return a fixture case without the disputed labels of its review."""
    return {key: value for key, value in CASES[name].items()
            if key != "disputed"}


class WorkedChecks(TestCase):
    """One check per rule, in the order of the steps: a failure starts
    with the rule broken, and a function still to write is named."""

    def rule(self, message):
        """Return a failure's message, the rule of its check first, once."""
        words = self.id().split(".")[-1][5:].replace("_", " ")
        rule = "\nthe rule broken: %s\n" % words
        return message if str(message).startswith(rule) \
            else rule + str(message)

    def fail(self, msg=None):  # (what assertRows() and some others call)
        super().fail(self.rule(msg))

    def _formatMessage(self, msg, standard):  # (what the others call)
        return self.rule(super()._formatMessage(msg, standard))

    def _callTestMethod(self, method):  # (a stub fails: no traceback)
        try:
            return method()
        except KeyError as missing:  # a run of A or B gone from fixtures.py
            if missing.args[:1] not in (("A",), ("B",)):
                raise
            self.skipTest("reads a run fixtures.py no longer has")
        except NotImplementedError:  # the first step still a stub
            steps = [(len(text), text, name, value.__code__.co_firstlineno)
                     for name, value in vars(evaluate).items() for text in
                     getattr(getattr(value, "__code__", None), "co_consts",
                             ()) if str(text).startswith("not written yet")]
            if not steps:  # raised by code of the student's own
                raise
        unittest.TestCase.fail(self, "\n%s, `%s()` in evaluate.py, line %d"
                               % min(steps)[1:])

    # Validation: validate() checks every input before anything is counted.

    def test_the_faults_named_in_the_contract_are_rejected(self):
        faults = [  # what is wrong, inputs, the field named, value shown
            ("a repeated ID", run_input(retrieved=("rollback",) * 2),
             'run["retrieved"]', "rollback"),
            ("a repeated claim", run_input(claims=(("switch", ()),) * 2),
             'run["claims"]', "switch"),
            ("a source outside relevant", case_input(support={
                "switch": ("owners",)}), "case[\"support\"]['switch']",
             "owners"),
            ("relevant documents and no expected claim",
             case_input(support={}), 'case["support"]', {}),
            ("an optional claim also expected", case_input(optional={
                "smoke": ("launch",)}), 'case["optional"]', "smoke"),
            ("a relevant document outside the corpus", case_input(
                relevant=("rollback", "zeta")), 'case["relevant"]', "zeta")]
        faults += [("k", inputs(k=k), "k", k) for k in (0, True, 1.5, 1001)]
        self.assertRows(lambda what, arguments, field, value: fault_of(
            evaluate.validate, arguments, field, value),
            [(row, "ok") for row in faults])

    def test_validation_never_changes_an_input(self):
        given = {"corpus": CORPUS, "case": CASE, "run": RUN, "k": 1}
        copies = copy.deepcopy(given)
        evaluate.validate(**copies)
        changed = [name for name in given if copies[name] != given[name]]
        self.assertEqual(changed, [], "validate() changed these inputs")

    def test_scores_refuses_counts_that_contradict_each_other(self):
        self.assertEqual(fault_of(evaluate.scores, {"counts": dict(
            OWNER_A, hits=0)}, 'counts["first_hit"]', 2), "ok")

    def test_counting_starts_with_validation(self):
        self.assertEqual(fault_of(evaluate.tally, run_input(
            retrieved=("rollback", "zeta")), 'run["retrieved"]', "zeta"),
            "ok")

    # Steps 1 to 3 are what tally() counts: it calls the three, so each
    # check of theirs waits until all three are written.
    # Step 1, retrieval: the hits in the top k.

    def test_the_top_k_holds_k_documents_no_more_no_fewer(self):
        self.assertEqual(retrieval("rollback", "B", k=1)["hits"], 1)
        self.assertEqual(retrieval("rollback", "B", k=2)["hits"], 2)
        # A relevant document ranked k + 1 is no hit: owners is second.
        self.assertEqual(retrieval("owner", "A", k=1)["hits"], 0)

    def test_ranks_count_from_one(self):
        self.assertEqual(retrieval("owner", "A")["first_hit"], 2)

    def test_the_first_hit_is_the_best_ranked_relevant_one_in_the_top_k(self):
        self.assertEqual(retrieval("rollback", "B")["first_hit"], 1)
        self.assertIsNone(retrieval("owner", "A", k=1)["first_hit"])

    def test_a_short_list_keeps_k_slots(self):
        self.assertEqual(retrieval("rollback", "A")["k"], 2)  # 1 note, 2 slots

    def test_relevant_documents_count_whether_retrieved_or_not(self):
        self.assertEqual(retrieval("rollback", "A")["relevant"], 2)
        nothing = dict(NOTHING, claims=None)
        counts = evaluate.tally(CORPUS, dict(CASE, support=None), nothing)
        self.assertEqual(counts["relevant"], 2)

    def test_relevance_nobody_labelled_counts_no_hit(self):
        unlabelled = {"relevant": None, "support": None}
        counts = evaluate.tally(CORPUS, unlabelled, dict(RUN, claims=None))
        self.assertEqual([counts[key] for key in ("relevant", "k", "hits",
                                                  "first_hit")],
                         [None, 2, None, None])

    # Step 2, the labels: a label of claims, even none, judges an answer.

    def test_an_answer_is_judged_when_some_label_judges_it(self):
        def supported(**judgements):  # an empty answer
            case = dict({"relevant": ("launch",), "support": None},
                        **judgements)
            return evaluate.tally(CORPUS, case, NOTHING)["supported"]
        rows = [((), None), ((("optional", {}),), 0),
                ((("disputed", {}),), 0), ((("rejected", ()),), 0)]
        self.assertRows(lambda *pairs: supported(**dict(pairs)), rows)

    # Step 3, the counts of claims: None passes through. (The supported
    # claims are counted once step 6 judges them.)

    def test_no_answer_or_no_labels_count_and_explain_no_claim(self):
        no_answer = {"retrieved": ("launch",), "claims": None}
        self.assertEqual(evaluate.tally(CORPUS, reviewed("launch"),
                                        no_answer), NO_ANSWER)
        found = evaluate.explain(CORPUS, CASES["launch"], no_answer)
        self.assertEqual(found, {"claims": None, "uncovered": None,
                                 "disclosed": ()})
        unlabelled = {"relevant": ("launch",), "support": None}
        counts = evaluate.tally(CORPUS, unlabelled, RUNS["launch"]["B"])
        self.assertEqual(counts, dict(LAUNCH_B, supported=None,
                                      expected=None, covered=None))

    def test_expected_claims_are_counted_from_the_labels(self):
        case = case_with(support={"steps": ("rollback", "checklist")})
        self.assertEqual(evaluate.tally(CORPUS, case, NOTHING)["expected"],
                         1)
        self.assertEqual(evaluate.tally(CORPUS, CASE, NOTHING)["expected"],
                         2)

    # Step 4, the six values: scores() divides the counts.

    def test_precision_divides_the_hits_by_k(self):
        self.assertEqual(evaluate.scores(ROLLBACK_A)["precision"], 0.5)
        precision = evaluate.scores(dict(LAUNCH_A, k=4))["precision"]
        self.assertEqual(precision, 0.25)

    def test_recall_divides_by_the_relevant_documents(self):
        self.assertEqual(evaluate.scores(LAUNCH_A)["recall"], 1.0)
        self.assertEqual(evaluate.scores(ROLLBACK_A)["recall"], 0.5)

    def test_reciprocal_rank_is_one_over_the_first_hit_rank(self):
        self.assertEqual(evaluate.scores(OWNER_A)["rr"], 0.5)
        counts = dict(OWNER_A, k=4, first_hit=4)
        self.assertEqual(evaluate.scores(counts)["rr"], 0.25)
        counts = dict(ROLLBACK_A, hits=2, first_hit=1)  # whatever the hits
        self.assertEqual(evaluate.scores(counts)["rr"], 1.0)

    def test_no_hit_gives_a_reciprocal_rank_of_zero_not_na(self):
        counts = dict(OWNER_A, hits=0, first_hit=None)
        rr = evaluate.scores(counts)["rr"]
        self.assertEqual((rr, type(rr)), (0.0, float))  # a float as 1/rank

    def test_support_divides_by_the_generated_claims(self):
        self.assertEqual(evaluate.scores(LAUNCH_B)["support"], 0.5)

    def test_coverage_divides_the_covered_by_the_expected_claims(self):
        self.assertEqual(evaluate.scores(ROLLBACK_A)["coverage"], 0.5)
        # One more claim, supported and not expected: still 1 of 2.
        extra = dict(ROLLBACK_A, generated=2, supported=2)
        self.assertEqual(evaluate.scores(extra)["coverage"], 0.5)

    def test_a_value_that_does_not_apply_is_none_never_zero(self):
        nothing_back = dict(ROLLBACK_A, hits=0, first_hit=None, generated=0,
                            supported=0, covered=0)
        rows = [  # counts; precision, recall, rr, support, coverage
            (nothing_back, (0.0, 0.0, 0.0, None, 0.0)),  # answerable: 0
            (REGION_A, (None, None, None, 0.0, None)),  # unanswerable
            (REGION_B, (None, None, None, None, None)),  # and no claim
            (NO_ANSWER, (0.5, 1.0, 1.0, None, None)),
            (dict(LAUNCH_B, supported=None, expected=None, covered=None),
             (0.5, 1.0, 1.0, None, None)),  # no label of claims
            (dict(LAUNCH_B, expected=None, covered=None),
             (0.5, 1.0, 1.0, 0.5, None)),  # claims judged, none expected
            (UNLABELLED, (None, None, None, 1.0, 1.0))]  # no relevance
        self.assertRows(lambda counts: tuple(map(evaluate.scores(
            counts).get, METRICS[:5])),
                        [((counts,), values) for counts, values in rows])

    def test_abstaining_is_correct_only_on_an_unanswerable_question(self):
        rows = [((REGION_A,), False), ((REGION_B,), True),
                ((LAUNCH_A,), None), ((NO_ANSWER,), None),
                ((dict(REGION_A, generated=None, supported=None,
                       covered=None),), None),  # no answer made
                ((dict(ROLLBACK_A, generated=0, supported=0, covered=0),),
                 None),  # an empty answer where claims are expected
                ((dict(REGION_B, expected=None, covered=None),), None),
                ((dict(REGION_B, supported=None, covered=None),), None)]
        self.assertRows(lambda counts: evaluate.scores(counts)
                        ["abstention_correct"], rows)

    def test_the_six_values_come_in_the_order_of_the_contract(self):
        self.assertEqual(list(evaluate.scores(LAUNCH_A)), METRICS)

    def test_every_ratio_is_a_float_and_abstention_a_bool(self):
        perfect = dict(LAUNCH_A, hits=2, relevant=2)  # 1.0, not 1
        for counts in (perfect, LAUNCH_B, OWNER_A, REGION_A, REGION_B):
            for metric, value in evaluate.scores(counts).items():
                kind = bool if metric == "abstention_correct" else float
                self.assertIn(type(value), (kind, type(None)), metric)

    # Step 5, coverage: an expected claim no supported claim states is
    # uncovered. Empty answers: every expected claim is.

    def test_uncovered_claims_come_in_label_order(self):
        def uncovered(support):
            case = case_with(support=support)
            return tuple(evaluate.explain(CORPUS, case, NOTHING)
                         ["uncovered"])  # (a list would do here)
        switch, smoke = ("rollback",), ("checklist",)
        rows = [(({"switch": switch, "smoke": smoke},), ("switch", "smoke")),
                (({"smoke": smoke, "switch": switch},), ("smoke", "switch"))]
        self.assertRows(uncovered, rows)

    def test_an_unanswerable_question_leaves_nothing_uncovered(self):
        unanswerable = {"relevant": (), "support": {}}
        self.assertEqual(tuple(evaluate.explain(
            CORPUS, unanswerable, NOTHING)["uncovered"]), ())
        nothing_listed = {"relevant": (), "support": None, "optional": {}}
        self.assertIsNone(evaluate.explain(CORPUS, nothing_listed, NOTHING)
                          ["uncovered"])

    # Step 6, strict citations: a claim is supported when every citation
    # is a labelled source of it in the top k.

    def test_a_claim_citing_its_labelled_source_is_supported(self):
        self.assertEqual(owner_answer("owners")["supported"], 1)

    def test_a_claim_with_no_agreed_label_is_unsupported(self):
        # launch B's second claim: only a disputed label says which note
        # could back it.
        counts = evaluate.tally(CORPUS, CASES["launch"], RUNS["launch"]["B"])
        self.assertEqual(counts["supported"], 1)

    def test_one_bad_citation_makes_a_claim_unsupported(self):
        rows = [("unknown",), ("archive",), ("owners", "unknown"),
                ("owners", "archive"), ("archive", "owners")]
        self.assertRows(lambda *cited: owner_answer(*cited)["supported"],
                        [(citations, 0) for citations in rows])

    def test_a_claim_may_cite_any_of_its_sources_and_counts_once(self):
        case = case_with(support={"steps": ("rollback", "checklist")})
        for citations in (("rollback",), ("checklist",),
                          ("checklist", "rollback")):
            run = run_with(claims=(("steps", citations),))
            counts = evaluate.tally(CORPUS, case, run)
            self.assertEqual(counts["supported"], 1, citations)

    def test_a_source_outside_the_top_k_supports_nothing(self):
        # rollback B at k=1: checklist is ranked second, so smoke is not.
        counts = evaluate.tally(CORPUS, CASE, RUN, k=1)
        self.assertEqual(counts["supported"], 1)
        hidden = owner_answer("owners", retrieved=("archive", "owners"), k=1)
        self.assertEqual(hidden["supported"], 0)

    def test_each_claim_gets_its_reason_in_answer_order(self):
        run = {"retrieved": ("rollback", "archive"),  # not in ID order
               "claims": (("switch", ("rollback",)), ("smoke", ("archive",)))}
        found = evaluate.explain(CORPUS, CASE, run)["claims"]
        self.assertEqual(found, (("switch", None),
                                 ("smoke", "not a labelled source")))

    def test_a_claim_gets_the_first_rule_it_breaks(self):
        def reason(citations, claim="switch", k=2):  # checklist third
            run = {"retrieved": ("rollback", "archive", "checklist"),
                   "claims": ((claim, citations),)}
            return evaluate.explain(CORPUS, CASE, run, k=k)["claims"][0][1]
        rows = [
            ((("rollback",),), None),                      # supported
            (((),), "no citation"),
            ((("rollback",), "swtich"), "no label"),       # a typo in the ID
            ((("nowhere",), "swtich"), "no label"),        # checked first
            (((), "swtich"), "no citation"),               # checked first
            ((("rollbak",),), "not in the corpus"),        # a typo
            ((("rollback", "rollbak"),), "not in the corpus"),
            ((("archive",),), "not a labelled source"),
            ((("checklist",),), "not a labelled source"),  # smoke's source
            ((("archive", "rollbak"),), "not in the corpus"),  # first
            ((("checklist",), "smoke"), "outside the top k"),  # third
            ((("checklist",), "smoke", 3), None),
            ((("checklist", "archive"), "smoke"), "not a labelled source")]
        self.assertRows(reason, rows)

    def test_an_optional_claim_is_supported_but_covers_nothing(self):
        case = dict(reviewed("launch"), optional={"bonus": ("launch",)})
        counts = evaluate.tally(CORPUS, case, RUNS["launch"]["B"])
        self.assertEqual((counts["supported"], counts["expected"],
                          counts["covered"]), (2, 1, 1))

    def test_the_supported_expected_claims_are_the_covered_ones(self):
        counts = evaluate.tally(CORPUS, CASE, RUNS["rollback"]["A"])
        self.assertEqual(counts["covered"], 1)  # switch, not smoke
        unseen = evaluate.tally(CORPUS, CASE, RUN, k=1)  # checklist unseen
        self.assertEqual(unseen["covered"], 1)
        uncovered = evaluate.explain(CORPUS, CASE, RUNS["rollback"]["A"])
        self.assertEqual(tuple(uncovered["uncovered"]), ("smoke",))

    # Step 7, disclosure: a restricted document in the top k or cited.

    def test_a_restricted_document_in_the_top_k_or_cited_is_disclosed(self):
        def disclosed(run, k=2):
            counts = evaluate.tally(CORPUS, CASES["owner"], run, k=k)
            return counts["disclosed"]
        owner_b = RUNS["owner"]["B"]  # owners, then archive
        self.assertEqual((disclosed(owner_b), disclosed(owner_b, k=1)),
                         (1, 0))
        cited = {"retrieved": ("owners",),
                 "claims": (("aurora", ("archive",)),)}
        self.assertEqual(disclosed(cited, k=1), 1)

    def test_disclosures_come_in_the_order_of_restricted(self):
        case = case_with(restricted=("launch", "archive"))
        run = {"retrieved": ("archive", "launch"), "claims": ()}
        found = evaluate.explain(CORPUS, case, run)["disclosed"]
        self.assertEqual(tuple(found), ("launch", "archive"))

    def test_explain_gives_tuples_not_lists(self):
        found = evaluate.explain(CORPUS, CASES["owner"], RUNS["owner"]["A"])
        kinds = {key: type(value).__name__ for key, value in found.items()}
        self.assertEqual(kinds, dict.fromkeys(found, "tuple"))

    # Every rule of steps 1 to 7 together, on the contract's own examples.

    def test_the_worked_examples_of_the_contract(self):
        def values(name, system, k=2):
            return tuple(evaluate.evaluate(CORPUS, CASES[name],
                                           RUNS[name][system], k=k).values())
        rows = [(("rollback", "A"), (0.5, 0.5, 1.0, 1.0, 0.5, None)),
                (("owner", "A"), (0.5, 1.0, 0.5, 0.0, 0.0, None)),
                (("launch", "B"), (0.5, 1.0, 1.0, 0.5, 1.0, None)),
                (("rollback", "B", 1), (1.0, 0.5, 1.0, 0.5, 0.5, None)),
                (("region", "A"), (None, None, None, 0.0, None, False)),
                (("region", "B"), (None, None, None, None, None, True))]
        self.assertRows(values, rows)

    # Step 8, homework: the lenient reading counts disputed labels too.

    def test_lenient_agrees_each_disputed_label_in_a_new_case(self):
        both = {"switch": ("rollback", "checklist"), "smoke": ("checklist",)}
        rows = [
            ((CASES["launch"],), dict(reviewed("launch"),
                                      optional={"bonus": ("launch",)})),
            ((case_with(optional={"x": ("owners",)}, disputed={
                "switch": ("checklist",), "x": ("launch",)}),),
             case_with(support=both, optional={"x": ("owners", "launch")})),
            # No claim to add to "optional": no "optional" key is added.
            ((case_with(disputed={"switch": ("checklist",)}),),
             case_with(support=both)),
            ((CASES["region"],), CASES["region"]),  # rejected claims stay
            (({"relevant": (), "support": None},),  # nobody judged: as is
             {"relevant": (), "support": None}),
            (({"relevant": (), "support": None, "disputed": {}},),  # judged
             {"relevant": (), "support": None, "optional": {}}),
            ((case_with(optional={"x": ("owners",)}, disputed={
                "switch": ("checklist",)}),),  # "optional" is kept
             case_with(support=both, optional={"x": ("owners",)}))]
        self.assertRows(evaluate.lenient, rows)
        self.assertIsNot(evaluate.lenient(CASE), CASE)  # a new case

    def test_lenient_checks_the_case_as_validate_does(self):
        def field(disputed):  # documents as IDs alone: no corpus is given
            case = dict(CASES["launch"], disputed=disputed)
            return message_of(evaluate.lenient, {"case": case}) or ":"
        rows = [(({"bonus": ("a note",)},), "case[\"disputed\"]['bonus']"),
                (({"monday": ("launch",)},), "case[\"disputed\"]['monday']"),
                (({"bonus": ("nowhere",)},), "")]  # an ID: no fault
        self.assertRows(lambda disputed: field(disputed).split(":")[0], rows)

    # Step 9, homework: the reviewers' records tell the reasons apart.

    def test_a_rejected_claim_is_told_from_one_nobody_reviewed(self):
        bare = {"retrieved": (), "claims": (("region", ()),)}  # no citation
        rows = [((CASES["region"], RUNS["region"]["A"]),
                 (("region", "judged unsupported"),)),
                (({"relevant": (), "support": {}}, RUNS["region"]["A"]),
                 (("region", "no label"),)),
                # Rejected comes first, even before "no citation".
                ((CASES["region"], bare), (("region", "judged unsupported"),))]
        self.assertRows(lambda case, run: evaluate.explain(CORPUS, case, run)
                        ["claims"], rows)

    def test_a_claim_only_a_disputed_label_supports_says_so(self):
        found = evaluate.explain(CORPUS, CASES["launch"], RUNS["launch"]["B"])
        self.assertEqual(found["claims"], (
            ("monday", None), ("bonus", "only a disputed label supports it")))
        case = case_with(disputed={"switch": ("checklist",)})  # expected
        run = run_with(claims=(("switch", ("checklist",)),))
        self.assertEqual(evaluate.explain(CORPUS, case, run)["claims"], (
            ("switch", "only a disputed label supports it"),))

    def test_a_claim_with_no_agreed_label_takes_the_lenient_reason(self):
        # bonus has only a disputed label, and cites what none names.
        run = {"retrieved": ("launch", "archive"),
               "claims": (("bonus", ("archive",)),)}
        self.assertEqual(evaluate.explain(CORPUS, CASES["launch"], run)
                         ["claims"], (("bonus", "not a labelled source"),))

    # Whatever the step: nothing a scorer is given changes.

    def test_scoring_never_changes_an_input(self):
        def changed(function, *arguments):
            """Return the inputs function() changed, as it left them."""
            copies = copy.deepcopy(arguments)  # fresh, whatever checks did
            function(*copies)
            return cut(repr([mine for mine, given in zip(copies, arguments)
                             if mine != given]))
        corpus, cases, runs = PRISTINE[:3]
        questions = [(cases[name], runs[name][system]) for name in FOUR
                     for system in "AB"] + [
            (dict(cases["launch"], optional={"extra": ("launch",)}), RUN),
            (dict(cases["rollback"], disputed={"switch": ("checklist",)}),
             RUN), (dict(cases["owner"], support=None), NOTHING)]
        for case, run in questions:
            for function in (evaluate.evaluate, evaluate.tally,
                             evaluate.explain):
                self.assertEqual(changed(function, corpus, case, run), "[]",
                                 function.__name__)
            self.assertEqual(changed(evaluate.validate, corpus, case, run,
                                     1), "[]", "validate")
            self.assertEqual(changed(evaluate.lenient, case), "[]")
        self.assertEqual(changed(evaluate.scores, OWNER_A), "[]")


# --- 3. The fixture: row tables worked out by hand ---------------------------

# (case, system): precision, recall, rr, support, coverage,
# abstention_correct
EXPECTED_SCORES = {
    ("launch", "A"):   (0.5, 1.0, 1.0, 1.0, 1.0, None),
    ("launch", "B"):   (0.5, 1.0, 1.0, 0.5, 1.0, None),
    ("rollback", "A"): (0.5, 0.5, 1.0, 1.0, 0.5, None),
    ("rollback", "B"): (1.0, 1.0, 1.0, 1.0, 1.0, None),
    ("owner", "A"):    (0.5, 1.0, 0.5, 0.0, 0.0, None),
    ("owner", "B"):    (0.5, 1.0, 1.0, 1.0, 1.0, None),
    ("region", "A"):   (None, None, None, 0.0, None, False),
    ("region", "B"):   (None, None, None, None, None, True),
}

# (case, system): explain()'s verdict on each claim, the uncovered
# expected claims, and the restricted documents disclosed
EXPECTED_EXPLANATIONS = {
    ("launch", "A"):   ((("monday", None),), (), ()),
    ("launch", "B"):   ((("monday", None),
                         ("bonus", "only a disputed label supports it")),
                        (), ()),
    ("rollback", "A"): ((("switch", None),), ("smoke",), ()),
    ("rollback", "B"): ((("switch", None), ("smoke", None)), (), ()),
    ("owner", "A"):    ((("aurora", "not a labelled source"),), ("aurora",),
                        ("archive",)),
    ("owner", "B"):    ((("aurora", None),), (), ("archive",)),
    ("region", "A"):   ((("region", "judged unsupported"),), (), ()),
    ("region", "B"):   ((), (), ()),
}
SCORES_SHAPE = "(precision, recall, rr, support, coverage, abstention_correct)"
EXPLANATIONS_SHAPE = ("((claim, reason) for each claim, uncovered claims, "
                      "disclosed documents)")


class Fixture(TestCase):
    """fixtures.py scores as written down in the row tables."""

    def test_every_fixture_run_scores_exactly(self):
        scored = {(name, system): tuple(evaluate.evaluate(
            CORPUS, case, run).values()) for name, case in CASES.items()
            for system, run in RUNS.get(name, {}).items()}
        self.assertRowTable(scored, EXPECTED_SCORES, "EXPECTED_SCORES",
                            SCORES_SHAPE)

    def test_every_fixture_run_is_explained_exactly(self):
        explained = {(name, system): tuple(evaluate.explain(
            CORPUS, case, run).values()) for name, case in CASES.items()
            for system, run in RUNS.get(name, {}).items()}
        self.assertRowTable(explained, EXPECTED_EXPLANATIONS,
                            "EXPECTED_EXPLANATIONS", EXPLANATIONS_SHAPE)


# The checks that run first, in order: while one fails, the rest wait.
GATES = [(group, name) for group in (FixtureIsValid, WorkedChecks, Fixture)
         for name in in_order(group)]


# END OF THE LAB'S TESTS: a course lab's test_evaluate.py is the part above.
# Below, the tests of the full module: every input rule, oracles written
# apart, many questions, comparing, deciding, the paired test, the report.

import collections
import io
import itertools
import json
import math
import random
import re
import signal
import subprocess
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction

import demo  # noqa: E402 (the full module's demo.py; a lab has its own)
from fixtures import POLICY  # noqa: E402

ANSWERABLE = ("launch", "rollback", "owner")
# Claims judged (monday supported, bonus not), and no list of the claims expected.
JUDGED = {"relevant": ("launch",), "support": None, "optional": {"monday": ("launch",)},
          "rejected": ("bonus",)}
COUNTS = ["relevant", "k", "hits", "first_hit", "generated", "supported",
          "expected", "covered", "disclosed"]
IDS_CAP = tuple("MARCO_D%d" % i for i in range(10000))  # the most a tuple holds
IDS_OVER = IDS_CAP + ("MARCO_D10000",)
CORPUS_CAP = dict.fromkeys(IDS_CAP, None)  # no text given
ID_200 = "clueweb22-en0000-00-00000#" + "x" * 174
NAME_RULE = " (names are 1 to 64 printable ASCII characters, no spaces)"
# Subclasses, which the contract does not accept as a dict, a tuple or a str.
Dict = type("Dict", (dict,), {})
Tuple = type("Tuple", (tuple,), {})
Str = type("Str", (str,), {})
Pair = collections.namedtuple("Pair", "claim citations")


class BrokenRepr:
    """A value whose repr raises, as a hostile input might."""

    def __repr__(self):
        raise RuntimeError("no repr")


def fixture_scores(system):
    return {name: evaluate.evaluate(CORPUS, CASES[name], RUNS[name][system])
            for name in CASES}


SWEEP_CORPUS = {"a": "Note a.", "b": "Note b.", "c": "Note c.", "d": "A distractor."}


def without_reviews(case):
    return {key: value for key, value in case.items() if key not in ("disputed", "rejected")}


def runs_with(name, **systems):
    return dict(RUNS, **{name: systems})


def cases_with(name, **fields):
    return dict(CASES, **{name: dict(CASES[name], **fields)})


def four_questions(**changes):
    """Return the demo's fixture data cut down to the four original questions."""
    fixture = demo.fixture_data()  # the cases with their tags
    four = dict(fixture, cases={name: fixture["cases"][name] for name in FOUR},
                runs={name: RUNS[name] for name in FOUR})
    return dict(four, **changes)


def unwrapped(text):
    """Return a text with each line the summary broke at its width (continued
    on lines that start with four spaces) joined again."""
    return text.replace("\n    ", " ")


def summary_of(**changes):
    return evaluate.report(four_questions(**changes), summary=True)["summary"]


def decision_of(data):
    return evaluate.report(data, summary=True)["summary"]["comparisons"][0]["decision"]


def abstaining_baseline(questions, answered):
    """Return data where baseline A answers the first `answered` questions with a supported
    and an unsupported claim and abstains on the rest, and B answers the first with the
    supported claim alone and the rest with the unsupported one; support declared."""
    cases = {"q%02d" % index: {"relevant": ("d",), "support": {"c": ("d",)}}
             for index in range(questions)}
    good, bad = (("c", ("d",)),), (("x", ("d",)),)
    runs = {name: {"A": {"retrieved": ("d",), "claims": good + bad if index < answered else ()},
                   "B": {"retrieved": ("d",), "claims": good if index < answered else bad}}
            for index, name in enumerate(cases)}
    return {"k": 1, "systems": ("A", "B"), "corpus": {"d": "A note."}, "cases": cases,
            "runs": runs, "policy": {"significance": {"metric": "support", "alpha": 0.05}}}


def undisclosing(**changes):
    """Return the four original cases, owner's archive not restricted, some cases replaced."""
    return dict(four_questions()["cases"], owner=dict(CASES["owner"], restricted=()), **changes)


def unreviewed():
    return {name: without_reviews(CASES[name]) for name in FOUR}


def text_of(data, *options):
    result = evaluate.report(data, summary="--summary" in options, explain="--explain" in options)
    return demo.rendered(result, options) + "\n"


def demo_output(*arguments, runs=RUNS):
    """Run demo.main() here, on other runs if given; return (status, stdout, stderr)."""
    saved, demo.RUNS = demo.RUNS, runs
    try:
        with redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            status = demo.main(list(arguments))
    finally:
        demo.RUNS = saved
    return status, out.getvalue(), err.getvalue()


def demo_process(*arguments, prelude=""):
    """Return the process of `python demo.py arguments`, run from another folder after the
    code of prelude, if any."""
    code = ("import runpy, sys\n%ssys.argv = %r\nsys.path.insert(0, %r)\n"
            "runpy.run_path(%r, run_name='__main__')" % (
                prelude, ["demo.py"] + list(arguments), HERE, os.path.join(HERE, "demo.py")))
    return subprocess.Popen([sys.executable, "-S", "-c", code], cwd=os.path.dirname(HERE),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class Metrics(TestCase):
    """Definitions of the metrics beyond the worked checks."""

    def test_rr_follows_the_first_relevant_rank_and_precision_keeps_k_slots_at_every_cutoff(self):
        def retrieval(case, retrieved, k):  # precision, recall and rr
            run = {"retrieved": retrieved, "claims": ()}
            return tuple(evaluate.evaluate(CORPUS, case, run, k=k).values())[:3]
        owner = CASES["owner"]
        rows = [
            ((owner, ("owners",), 1), (1.0, 1.0, 1.0)),
            ((owner, ("archive", "owners"), 2), (0.5, 1.0, 0.5)),
            ((owner, ("archive", "launch", "owners"), 3), (1 / 3, 1.0, 1 / 3)),
            ((owner, ("archive", "launch", "rollback", "owners"), 4), (0.25, 1.0, 0.25)),
            ((owner, ("archive", "launch", "owners"), 2), (0.0, 0.0, 0.0)),  # beyond the cutoff
        ] + [((CASE, ("rollback",), k), (1 / k, 0.5, 1.0)) for k in (1, 2, 4, 100)]
        self.assertRows(retrieval, rows)

    def test_each_ratio_divides_two_counts_of_the_tally(self):
        corpus = {"d%d" % index: "A note." for index in range(10)}
        case = {"relevant": ("d0", "d1", "d2", "d3"), "optional": {"x": ("d4",)},
                "support": {"e%d" % index: ("d%d" % index,) for index in range(4)}}
        run = {"retrieved": ("d4", "d5", "d6", "d0", "d7", "d1", "d8", "d9"),
               "claims": (("e0", ("d0",)), ("e1", ("d1",)), ("x", ("d4",)))
               + tuple(("u%d" % index, ()) for index in range(5))}
        counts = {"relevant": 4, "k": 8, "hits": 2, "first_hit": 4, "generated": 8,
                  "supported": 3, "expected": 4, "covered": 2, "disclosed": 0}
        self.assertEqual(evaluate.tally(corpus, case, run, k=8), counts)
        self.assertEqual(evaluate.evaluate(corpus, case, run, k=8), {
            "precision": 2 / 8, "recall": 2 / 4, "rr": 1 / 4, "support": 3 / 8,
            "coverage": 2 / 4, "abstention_correct": None})


class Disclosure(TestCase):
    """A restricted document in the top k or cited is disclosed: a fact beside the scores."""

    def test_disclosure_agrees_with_an_oracle_written_apart(self):
        rng = random.Random(13)
        documents = sorted(SWEEP_CORPUS)

        def oracle_disclosed(restricted, retrieved, claims, k):
            found = []
            for doc_id in restricted:
                cited = [claim for claim in claims if doc_id in claim[1]]
                if doc_id in retrieved[:k] or cited:
                    found.append(doc_id)
            return tuple(found)

        def random_inputs():
            relevant = tuple(rng.sample(documents, rng.randint(0, 2)))
            others = [doc_id for doc_id in documents if doc_id not in relevant]
            restricted = tuple(rng.sample(others, rng.randint(0, len(others))))
            support = {"p": relevant} if relevant else {}
            retrieved = tuple(rng.sample(documents, rng.randint(0, 4)))
            claims = tuple(("c%d" % index, tuple(rng.sample(documents + ["zeta"],
                                                            rng.randint(0, 2))))
                           for index in range(rng.randint(0, 3)))
            case = {"relevant": relevant, "support": support, "restricted": restricted}
            return case, {"retrieved": retrieved, "claims": claims}, rng.randint(1, 4)

        def found(case, run, k):  # the documents explain() names, and the count tally() gives
            return (evaluate.explain(SWEEP_CORPUS, case, run, k=k)["disclosed"],
                    evaluate.tally(SWEEP_CORPUS, case, run, k=k)["disclosed"])
        rows = []
        for trial in range(1000):
            case, run, k = random_inputs()
            disclosed = oracle_disclosed(case["restricted"], run["retrieved"], run["claims"], k)
            rows.append(((case, run, k), (disclosed, len(disclosed))))
        self.assertRows(found, rows)
        disclosing = len([row for row in rows if row[1][0]])
        self.assertTrue(300 < disclosing < 700, disclosing)  # both outcomes are common

    def test_the_summary_names_a_document_disclosed_by_a_citation_alone(self):
        cited = {"retrieved": ("owners",), "claims": (("aurora", ("owners", "archive")),)}
        runs = dict(four_questions()["runs"], owner=dict(RUNS["owner"], B=cited))
        self.assertEqual(summary_of(runs=runs)["disclosures"]["B"], [("owner", ("archive",))])


# --- Two readings of the labels ------------------------------------------------------

def merged_apart(case):
    """Return the lenient reading's (support, optional), apart from evaluate.py: a disputed
    source joins its claim's expected labels if it has some, else its optional ones."""
    support, optional = dict(case["support"] or {}), dict(case.get("optional", {}))
    for claim_id, sources in case.get("disputed", {}).items():
        labels = support if claim_id in support else optional
        labels[claim_id] = labels.get(claim_id, ()) + sources
    return support, optional


def random_reviewed_question(rng):
    """Return (case, run, k): random labels, some optional, disputed or rejected; a random run."""
    documents = sorted(SWEEP_CORPUS)
    relevant = tuple(rng.sample(documents, rng.randint(0, 3)))
    support, optional, disputed = {}, {}, {}
    for claim_id in rng.sample("pqrs", rng.randint(1, 3) if relevant else 0):
        sources = rng.sample(relevant, rng.randint(1, len(relevant)))
        cut_at = rng.randint(1, len(sources))  # one source agreed at least, the rest disputed
        support[claim_id] = tuple(sources[:cut_at])
        if sources[cut_at:]:
            disputed[claim_id] = tuple(sources[cut_at:])
    for claim_id in rng.sample("vw", rng.randint(0, 2)):  # judged supported, never expected
        sources = rng.sample(documents, rng.randint(1, 3))
        cut_at = rng.randint(0, len(sources))
        if sources[:cut_at]:
            optional[claim_id] = tuple(sources[:cut_at])
        if sources[cut_at:]:
            disputed[claim_id] = tuple(sources[cut_at:])
    rejected = tuple(claim for claim in "tu" if rng.random() < 0.4)
    case = {"relevant": relevant, "support": support, "optional": optional, "disputed": disputed,
            "rejected": rejected}

    def citations(claim_id):  # mostly the claim's own sources, agreed or disputed
        own = support.get(claim_id, ()) + optional.get(claim_id, ()) + disputed.get(claim_id, ())
        if own and rng.random() < 0.7:
            return tuple(rng.sample(own, rng.randint(1, len(own))))
        return tuple(rng.sample(documents + ["zeta"], rng.randint(0, 2)))
    claims = tuple((claim_id, citations(claim_id))
                   for claim_id in rng.sample("pqrstuvw", rng.randint(0, 5)))
    others = [document for document in documents if document not in relevant]
    retrieved = tuple(rng.sample(relevant, len(relevant))
                      + rng.sample(others, rng.randint(0, min(2, len(others)))))
    return case, {"retrieved": retrieved, "claims": claims}, rng.randint(1, 4)


class Readings(TestCase):
    """Disputed labels and rejected claims: the strict reading, the lenient one, one scorer."""

    def test_both_readings_agree_with_an_oracle_written_apart(self):
        rng = random.Random(17)

        def readings(trial, case, run, k):  # the trial's number, to find it again
            strict = evaluate.evaluate(SWEEP_CORPUS, case, run, k=k)
            loose = evaluate.evaluate(SWEEP_CORPUS, evaluate.lenient(case), run, k=k)
            why = evaluate.explain(SWEEP_CORPUS, case, run, k=k)["claims"]
            return strict, loose, [reason if reason in TOLD_APART else "any other reason"
                                   for claim, reason in why]

        def expected(case, run, k):
            support, optional = merged_apart(case)
            args = (run["retrieved"], run["claims"], k)
            strict_flags = oracle_supported(dict(case["support"], **case["optional"]), *args)
            loose_flags = oracle_supported(dict(support, **optional), *args)
            told = []
            for (claim_id, citations), strict, loose in zip(run["claims"], strict_flags,
                                                             loose_flags):
                if claim_id in case["rejected"]:
                    told.append("judged unsupported")
                elif strict:
                    told.append(None)
                elif loose:
                    told.append("only a disputed label supports it")
                elif citations and claim_id not in support and claim_id not in optional:
                    told.append("no label")
                else:
                    told.append("any other reason")
            # The lenient reading never adds an expected claim: coverage keeps its denominator.
            return (oracle(case["relevant"], case["support"], *args, optional=case["optional"]),
                    oracle(case["relevant"], support, *args, optional=optional), told)
        rows = []
        for trial in range(READINGS_TRIALS):
            case, run, k = random_reviewed_question(rng)
            rows.append(((trial, case, run, k), expected(case, run, k)))
        self.assertRows(readings, rows)
        told = collections.Counter(reason for _, (_, _, why) in rows for reason in why)
        self.assertTrue(all(told[reason] > 30 for reason in TOLD_APART), told)  # all common

    def test_each_fault_in_the_review_keys_is_named_by_lenient_too(self):
        rows = [((what, arguments["case"], field) + tuple(values), "ok")
                for what, arguments, field, *values in REJECTED
                if field.startswith(('case["disputed"]', 'case["rejected"]', 'case["optional"]'))
                and "outside the corpus" not in what]  # lenient() has no corpus to know
        self.assertEqual(len(rows), 18)
        rows += [(("a case that is no dict", (), "case", ()), "ok"),
                 (("no relevant documents", {"support": {}}, 'case["relevant"]', {"support": {}}),
                  "ok"),
                 (("relevant as a list", case_with(relevant=["rollback"]), 'case["relevant"]',
                   ["rollback"]), "ok")]
        self.assertRows(lambda what, case, field, *values: fault_of(
            evaluate.lenient, {"case": case}, field, *values), rows)

    def test_claims_judged_without_expected_ones_read_leniently_and_queue_for_review(self):
        case = dict(JUDGED, disputed={"bonus2": ("archive",)})
        self.assertEqual(evaluate.lenient(case), dict(JUDGED, optional={
            "monday": ("launch",), "bonus2": ("archive",)}))
        runs = dict(four_questions()["runs"], launch={"A": RUNS["launch"]["A"], "B": {
            "retrieved": ("launch", "archive"), "claims": RUNS["launch"]["B"]["claims"]
            + (("bonus2", ("archive",)), ("spare", ("launch",)))}})
        data = four_questions(cases=dict(undisclosing(), launch=case), runs=runs)
        result = evaluate.report(data, summary=True, explain=True)
        self.assertEqual(result["review_queue"], [("B", "launch", "spare", ("launch",))])
        row = result["questions"][0]["systems"]["B"]  # leniently, monday and bonus2 of four
        self.assertEqual((row["lenient"]["scores"]["support"], row["scores"]["support"]),
                         (0.5, 0.25))

    def test_where_the_readings_disagree_the_summary_names_the_labels_to_resolve(self):
        def decided(plan):
            policy = dict(POLICY, unresolved=plan)
            found = decision_of(four_questions(cases=undisclosing(), policy=policy))
            return found["plan"], found["accepted"], found["depends_on"], found["findings"]
        bonus = [("launch", "bonus", ("launch",))]
        # Under every plan, each broken finding says which readings break it.
        findings = [("critical", "launch", "regressed: support 1.00 -> 0.50", "strict"),
                    ("unsupported_budget", "answerable", "1 unsupported claim, budget 0", "strict")]
        self.assertRows(decided, [(("strict",), ("strict", False, bonus, findings)),
                                  (("lenient",), ("lenient", True, bonus, findings)),
                                  (("both",), ("both", False, bonus, findings))])
        unplanned = {rule: value for rule, value in POLICY.items() if rule != "unresolved"}
        self.assertEqual(decision_of(four_questions(policy=unplanned))["plan"], "both")
        self.assertEqual(decision_of(four_questions())["depends_on"], [])  # readings agree
        text = text_of(four_questions(cases=undisclosing()), "--summary")
        self.assertEqual(unwrapped(text).splitlines()[-2], "B against A | the readings "
                         "disagree: resolve these disputed labels first: launch: bonus <- "
                         "launch")

    def test_a_finding_one_reading_breaks_says_which_and_names_the_labels_it_rests_on(self):
        rollback = dict(CASES["rollback"], disputed={"switch": ("checklist",)})
        cited = {"A": "checklist", "B": "launch"}  # only a disputed label supports A's switch
        runs = dict(four_questions()["runs"], launch=dict(RUNS["launch"], B=RUNS["launch"]["A"]),
                    rollback={system: {"retrieved": ("rollback", "checklist"),
                                       "claims": (("switch", (document,)),)}
                              for system, document in cited.items()})
        summary = summary_of(cases=undisclosing(rollback=rollback), runs=runs, policy={
            "critical": ("rollback",), "unsupported_budget": {"answerable": 1}})
        labels = [("rollback", "switch", ("checklist",))]
        self.assertEqual([(decided["depends_on"], decided["findings"]) for decided in (
            summary["policy"]["baseline_alone"], summary["decisions"]["B"])], [
            (labels, [("unsupported_budget", "answerable", "2 unsupported claims, budget 1",
                       "strict")]),
            (labels, [("critical", "rollback", "regressed: support 1.00 -> 0.00, coverage "
                                               "0.50 -> 0.00", "lenient")])])

    def test_nothing_is_said_of_readings_when_no_label_is_disputed(self):
        out = text_of(four_questions(cases=unreviewed()), "--summary", "--explain")
        self.assertEqual([line for line in out.splitlines() if "lenient" in line
                          or "disputed label" in line or "reading" in line], [])
        summary = summary_of(cases=unreviewed())
        self.assertEqual((summary["disputed_labels"], summary["lenient_means"]), (None, None))

    def test_the_review_queue_lists_exactly_the_claims_nobody_reviewed(self):
        data = four_questions(cases=unreviewed())
        self.assertEqual(evaluate.report(data, explain=True)["review_queue"],
                         [("A", "region", "region", ("archive",)),
                          ("B", "launch", "bonus", ("launch",))])
        heading = "claims nobody has labelled, rejected or disputed: the next round of reviewing"
        self.assertEqual(lines_after(text_of(data, "--explain"), heading, 2), [
            "A | region: claim region citing archive", "B | launch: claim bonus citing launch"])
        fixture = evaluate.report(four_questions(), explain=True)  # lists, each empty
        self.assertEqual((fixture["review_queue"], fixture["orphan_labels"]), ([], []))
        bare = {"retrieved": (), "claims": (("guess", ()),)}  # no citation, and no label either
        runs = dict(four_questions()["runs"], region={  # a run making no answer, then one
            "A": ({"retrieved": (), "claims": None}, bare), "B": RUNS["region"]["B"]})
        self.assertEqual(evaluate.report(four_questions(runs=runs), explain=True)["review_queue"],
                         [("A", "region", "guess", ())])
        guesses = {"retrieved": (), "claims": (("extra", ()), ("guess", ()), ("hunch", ()))}
        runs = dict(four_questions()["runs"], rollback=dict(RUNS["rollback"], A=guesses))
        cases = undisclosing(rollback=dict(CASES["rollback"], optional={"extra": ("launch",)}))
        self.assertEqual(evaluate.report(four_questions(cases=cases, runs=runs), explain=True)[
            "review_queue"], [("A", "rollback", "guess", ()), ("A", "rollback", "hunch", ())])

    def test_with_nothing_disputed_each_finding_holds_in_both_readings(self):
        decided = decision_of(four_questions(cases=unreviewed()))
        self.assertEqual((decided["lenient"], [finding[3] for finding in decided["findings"]]),
                         (None, ["both"] * 3))

    def test_a_differing_finding_names_only_the_disputed_labels_it_rests_on(self):
        def depends_on(disputed, policy):
            cases = undisclosing(rollback=dict(CASES["rollback"], disputed=disputed))
            decided = decision_of(four_questions(cases=cases, policy=policy))
            return decided["accepted"], decided["depends_on"]
        bonus = (False, [("launch", "bonus", ("launch",))])
        rows = [
            # B's switch cites rollback either way: this disputed label moves no count.
            (({"switch": ("checklist",)}, {"unsupported_budget": {"answerable": 0}}), bonus),
            # This one changes rollback's counts, but no rule reads them.
            (({"extra": ("checklist",)}, {"critical": ("launch", "owner")}), bonus)]
        self.assertRows(depends_on, rows)

    def test_a_comparison_names_the_disputed_labels_of_the_baseline_too(self):
        # Only A's claim on q1 rests on a disputed label: read, it stops B's rise there.
        def one(claim):
            return {"retrieved": ("d",), "claims": ((claim, ("d",)),)}
        case = {"relevant": ("d",), "support": {"c": ("d",)}}
        data = {"k": 1, "systems": ("A", "B"), "corpus": {"d": "A note."},
                "cases": {"q1": dict(case, disputed={"x": ("d",)}), "q2": case},
                "runs": {"q1": {"A": one("x"), "B": one("c")},
                         "q2": {"A": one("y"), "B": one("c")}},
                "policy": {"significance": {"metric": "support", "alpha": 0.5}}}
        decided = decision_of(data)
        self.assertEqual([decided[key] for key in ("accepted", "depends_on")],
                         [False, [("q1", "x", ("d",))]])

    def test_a_finding_on_the_unanswerable_slice_names_the_disputed_labels_there(self):
        # On region, which nobody should answer, B claims what only a disputed label
        # supports: its budget breaks in the strict reading alone.
        guess = {"retrieved": ("launch",), "claims": (("guess", ("launch",)),)}
        cases = undisclosing(region=dict(CASES["region"], disputed={"guess": ("launch",)}))
        runs = dict(four_questions()["runs"], region={"A": NOTHING, "B": guess})
        decided = decision_of(four_questions(cases=cases, runs=runs, policy={
            "unsupported_budget": {"unanswerable": 0}}))
        self.assertEqual((decided["accepted"], decided["depends_on"]),
                         (False, [("region", "guess", ("launch",))]))


TOLD_APART = (None, "only a disputed label supports it", "judged unsupported", "no label")
# Random questions scored in both readings on each run; .ci/run asks for 5,000 once.
READINGS_TRIALS = int(os.environ.get("READINGS_TRIALS", 500))


# --- Input rules --------------------------------------------------------------------
# The README promises of each fault only an EvaluationError whose message starts with the
# field at fault and shows the offending value as shown() does: nothing more is checked.

# (what is wrong, evaluate()'s arguments, the field at fault, each value the message shows)
REJECTED = [
    # k: an exact int from 1 to 1,000.
    ("k of 0", inputs(k=0), "k", 0),
    ("k of 1001", inputs(k=1001), "k", 1001),
    ("k of True", inputs(k=True), "k", True),
    ("k of 1.5", inputs(k=1.5), "k", 1.5),
    ("k as text", inputs(k="2"), "k", "2"),
    ("k of None", inputs(k=None), "k", None),
    # corpus: a non-empty dict of at most 100 IDs to texts that are not blank.
    ("corpus as a list", inputs(corpus=["launch"]), "corpus", ["launch"]),
    ("corpus as a dict subclass", inputs(corpus=Dict(owners="The team.")), "corpus",
     Dict(owners="The team.")),
    ("empty corpus", inputs(corpus={}), "corpus", {}),
    ("blank text", inputs(corpus=dict(CORPUS, archive=" \n\t")), "corpus['archive']", " \n\t"),
    ("empty text", inputs(corpus=dict(CORPUS, archive="")), "corpus['archive']", ""),
    ("text as bytes", inputs(corpus=dict(CORPUS, archive=b"old")), "corpus['archive']", b"old"),
    ("text as a str subclass", inputs(corpus=dict(CORPUS, archive=Str("old"))),
     "corpus['archive']", "old"),
    # case: a dict with an ID tuple "relevant" and a dict "support".
    ("case as a tuple", inputs(case=()), "case", ()),
    ("case as a dict subclass", inputs(case=Dict(relevant=(), support={})), "case",
     Dict(relevant=(), support={})),
    ("case without relevant", inputs(case={"support": {}}), 'case["relevant"]', {"support": {}}),
    ("relevant as a list", case_input(relevant=["rollback"]), 'case["relevant"]', ["rollback"]),
    ("relevant as a tuple subclass", case_input(relevant=Tuple(["rollback"])),
     'case["relevant"]', ("rollback",)),
    ("unknown relevant document", case_input(relevant=("rollback", "zeta")), 'case["relevant"]',
     "zeta"),
    ("repeated relevant document", case_input(relevant=("rollback", "rollback")),
     'case["relevant"]', "rollback"),
    ("case without support", inputs(case={"relevant": ()}), 'case["support"]', {"relevant": ()}),
    ("support as a list", case_input(support=[]), 'case["support"]', []),
    ("support as a dict subclass", case_input(support=Dict()), 'case["support"]', {}),
    ("10,001 claim labels", case_input(support=dict.fromkeys(IDS_OVER, ("rollback",))),
     'case["support"]', IDS_OVER),
    ("sources as a list", case_input(support={"switch": ["rollback"]}),
     "case[\"support\"]['switch']", ["rollback"]),
    ("no sources", case_input(support={"switch": ()}), "case[\"support\"]['switch']", ()),
    ("repeated source", case_input(support={"switch": ("rollback", "rollback")}),
     "case[\"support\"]['switch']", "rollback"),
    ("source outside relevant", case_input(support={"switch": ("launch",)}),
     "case[\"support\"]['switch']", "launch"),
    ("claims expected of an unanswerable question",
     inputs(case={"relevant": (), "support": {"switch": ("rollback",)}}),
     "case[\"support\"]['switch']", "rollback"),
    ("relevant documents but no expected claim", case_input(support={}), 'case["support"]', {}),
    # case["disputed"] and case["rejected"], when given: disputed labels, claims all reject.
    ("disputed as a list", case_input(disputed=[]), 'case["disputed"]', []),
    ("disputed claim ID with a space", case_input(disputed={"two steps": ("rollback",)}),
     'case["disputed"]', "two steps"),
    ("disputed sources as a list", case_input(disputed={"steps": ["rollback"]}),
     "case[\"disputed\"]['steps']", ["rollback"]),
    ("no disputed source", case_input(disputed={"steps": ()}), "case[\"disputed\"]['steps']",
     ()),
    ("a disputed source of an expected claim outside relevant",
     case_input(disputed={"switch": ("launch",)}), "case[\"disputed\"]['switch']", "launch"),
    ("a disputed source outside the corpus", case_input(disputed={"steps": ("zeta",)}),
     "case[\"disputed\"]['steps']", "zeta"),
    ("a label both agreed and disputed", case_input(disputed={"switch": ("checklist",
                                                                        "rollback")}),
     "case[\"disputed\"]['switch']", "rollback"),
    ("an optional label also disputed",
     case_input(optional={"extra": ("launch",)}, disputed={"extra": ("launch",)}),
     "case[\"disputed\"]['extra']", "launch"),
    ("rejected as a list", case_input(rejected=["extra"]), 'case["rejected"]', ["extra"]),
    ("a rejected claim repeated", case_input(rejected=("extra", "extra")), 'case["rejected"]',
     "extra"),
    ("a rejected claim with a label", case_input(rejected=("smoke",)), 'case["rejected"]',
     "smoke"),
    ("a rejected claim that is disputed",
     case_input(disputed={"steps": ("rollback",)}, rejected=("steps",)), 'case["rejected"]',
     "steps"),
    ("a rejected claim that is optional, nothing expected",
     case_input(support=None, optional={"x": ("launch",)}, rejected=("x",)),
     'case["rejected"]', "x"),
    # case["optional"]: claims judged supported that no answer has to make.
    ("optional as a list", case_input(optional=[]), 'case["optional"]', []),
    ("an optional claim that is expected", case_input(optional={"smoke": ("launch",)}),
     'case["optional"]', "smoke"),
    ("an optional source outside the corpus", case_input(optional={"x": ("zeta",)}),
     "case[\"optional\"]['x']", "zeta"),
    ("no optional source", case_input(optional={"x": ()}), "case[\"optional\"]['x']", ()),
    # A key a case may leave out may not be None.
    ("optional None", case_input(optional=None), 'case["optional"]', None),
    ("disputed None", case_input(disputed=None), 'case["disputed"]', None),
    ("rejected None", case_input(rejected=None), 'case["rejected"]', None),
    # A key a letter or two from a known one is a typo: the message names the known key.
    ("a misspelt disputed", case_input(disputes={"x": ("launch",)}), 'case["disputes"]',
     "disputed"),
    ("a capital in a known key", case_input(Restricted=("archive",)), 'case["Restricted"]',
     "restricted"),
    ("a misspelt claims", inputs(run={"retrieved": (), "claims": (), "claim": ()}),
     'run["claim"]', "claims"),
    ("two letters added", case_input(irrelevant=()), 'case["irrelevant"]', "relevant"),
    ("two letters added at the end", case_input(supported={}), 'case["supported"]', "support"),
    ("two letters left out", case_input(restrict=()), 'case["restrict"]', "restricted"),
    ("a key that is not a str", inputs(case={**CASE, 1: "x"}), "case", 1),
    # case["restricted"], when given: an ID tuple of corpus documents, none of them relevant.
    ("restricted as a list", case_input(restricted=["archive"]), 'case["restricted"]',
     ["archive"]),
    ("unknown restricted document", case_input(restricted=("archive", "zeta")),
     'case["restricted"]', "zeta"),
    ("repeated restricted document", case_input(restricted=("archive", "archive")),
     'case["restricted"]', "archive"),
    ("a relevant document restricted", case_input(restricted=("archive", "checklist")),
     'case["restricted"]', "checklist"),
    ("a relevant document restricted, nothing expected",
     case_input(support=None, restricted=("checklist",)), 'case["restricted"]', "checklist"),
    ("10,001 restricted documents", inputs(corpus=dict(CORPUS_CAP, MARCO_D10000=None),
                                           run=NOTHING, case=dict(CASES["region"],
                                                                  restricted=IDS_OVER)),
     'case["restricted"]', IDS_OVER),
    # run: a dict with an ID tuple "retrieved" and a tuple of claims.
    ("run as None", inputs(run=None), "run", None),
    ("run as a dict subclass", inputs(run=Dict(retrieved=(), claims=())), "run",
     Dict(retrieved=(), claims=())),
    ("run without retrieved", inputs(run={"claims": ()}), 'run["retrieved"]', {"claims": ()}),
    ("run without claims", inputs(run={"retrieved": ()}), 'run["claims"]', {"retrieved": ()}),
    ("retrieved as a string", run_input(retrieved="rollback"), 'run["retrieved"]', "rollback"),
    ("unknown retrieved document", run_input(retrieved=("rollback", "zeta")),
     'run["retrieved"]', "zeta"),
    ("repeated retrieved document", run_input(retrieved=("archive", "rollback", "rollback")),
     'run["retrieved"]', "rollback"),
    ("10,001 retrieved IDs", inputs(corpus=CORPUS_CAP, case=CASES["region"],
                                    run=run_with(retrieved=IDS_OVER)), 'run["retrieved"]',
     IDS_OVER),
    ("claims as a list", run_input(claims=[]), 'run["claims"]', []),
    ("10,001 claims", run_input(claims=tuple((i, ()) for i in IDS_OVER)), 'run["claims"]',
     IDS_OVER),
    ("claim as a bare ID", run_input(claims=("switch",)), 'run["claims"][0]', "switch"),
    ("claim as a triple", run_input(claims=(("switch", ("rollback",), 1),)), 'run["claims"][0]',
     ("switch", ("rollback",), 1)),
    ("claim as a namedtuple", run_input(claims=(Pair("switch", ()),)), 'run["claims"][0]',
     Pair("switch", ())),
    ("repeated claim ID", run_input(claims=(("switch", ()), ("switch", ()))),
     'run["claims"]', "switch"),
    ("citations as a string", run_input(claims=(("switch", "rollback"),)),
     'run["claims"][0][1]', "rollback"),
    ("repeated citation", run_input(claims=(("x", ()), ("switch", ("a", "a")))),
     'run["claims"][1][1]', "a"),
    ("10,001 citations", run_input(claims=(("switch", IDS_OVER),)), 'run["claims"][0][1]',
     IDS_OVER),
    # An unhashable item in an ID tuple is an invalid ID.
    ("an unhashable relevant ID", case_input(relevant=(["rollback"],)), 'case["relevant"]',
     ["rollback"]),
    ("an unhashable source", case_input(support={"switch": ([],)}),
     "case[\"support\"]['switch']", []),
    ("an unhashable retrieved ID", run_input(retrieved=({},)), 'run["retrieved"]', {}),
    ("an unhashable citation", run_input(claims=(("switch", ([],)),)), 'run["claims"][0][1]',
     []),
    # A value longer than 80 characters is cut to 80 in a message.
    ("an ID of 78 characters, shown whole", run_input(retrieved=("a" * 78,)),
     'run["retrieved"]', "a" * 78),
    ("an ID of 79 characters, cut", run_input(retrieved=("a" * 79,)), 'run["retrieved"]',
     "a" * 79),
    ("an ID of 100 characters, cut", run_input(retrieved=("a" * 100,)), 'run["retrieved"]',
     "a" * 100),
]

# The keys of a case that only a report reads: report() names the case, then the field.
REPORT_REJECTED = [
    ("grades of None", case_with(grades=None), 'case["grades"]', None),
    ("group of None", case_with(group=None), 'case["group"]', None),
    ("tags of None", case_with(tags=None), 'case["tags"]', None),
    # case["grades"], case["group"] and case["tags"], when given.
    ("grades of other documents", case_with(grades={"rollback": 2}), 'case["grades"]',
     {"rollback": 2}),
    ("a grade of 0", case_with(grades={"rollback": 0, "checklist": 1}),
     "case[\"grades\"]['rollback']", 0),
    ("grades as a list", case_with(grades=[2, 1]), 'case["grades"]', [2, 1]),
    ("a grade of 101", case_with(grades={"rollback": 101, "checklist": 1}),
     "case[\"grades\"]['rollback']", 101),
    ("a grade of True", case_with(grades={"rollback": 2, "checklist": True}),
     "case[\"grades\"]['checklist']", True),
    ("a group with a space", case_with(group="chat 7"), 'case["group"]', "chat 7"),
    ("a group of 65 characters", case_with(group="g" * 65), 'case["group"]', "g" * 65),
    ("a tag with a space", case_with(tags=("lookup", "look up")), 'case["tags"]', "look up"),
    ("tags as a list", case_with(tags=["lookup"]), 'case["tags"]', ["lookup"]),
    ("no tags", case_with(tags=()), 'case["tags"]', ()),
    ("21 tags", case_with(tags=tuple("t%d" % index for index in range(21))), 'case["tags"]',
     tuple("t%d" % index for index in range(21))),
    ("a repeated tag", case_with(tags=("lookup", "team", "team")), 'case["tags"]', "team"),
    ("a tag that is not a str", case_with(tags=(7,)), 'case["tags"]', 7),
    ("two letters changed", case_with(graxys={}), 'case["graxys"]', "grades"),
    ("a misspelt tags", case_with(tag=("lookup",)), 'case["tag"]', "tags"),
]

# (what is at the boundary, evaluate()'s arguments): each must be accepted.
ACCEPTED = [
    ("k of 1000", inputs(k=1000)),
    ("200-character IDs",
     inputs(corpus={ID_200: "x"}, case={"relevant": (ID_200,), "support": {ID_200: (ID_200,)}},
            run={"retrieved": (ID_200,), "claims": ((ID_200, (ID_200,)),)})),
    ("IDs as real logs give them: capitals, digits first, '_', '.', ':', 1 character, é",
     inputs(corpus={"FBIS3-10082": "x", "7067032": "y", "KILT_105219": None},
            case={"relevant": ("7067032",), "support": {"C1.2:a": ("7067032",)}},
            run={"retrieved": ("KILT_105219", "7067032"),
                 "claims": (("C1.2:a", ("7067032",)), ("\u00e9", ("FBIS3-10082",)))})),
    ("10,000 documents, all retrieved and relevant, 10,000 claims, one of 10,000 citations",
     inputs(corpus=CORPUS_CAP,
            case={"relevant": IDS_CAP, "support": {i: (i,) for i in IDS_CAP}},
            run={"retrieved": IDS_CAP, "claims": ((IDS_CAP[0], IDS_CAP),) + tuple(
                (i, (i,)) for i in IDS_CAP[1:])})),
    ("other keys in case and run", inputs(case=case_with(question="?", notes=[1]),
                                          run=run_with(model="m1", answer="Roll back."))),
    ("text padded with whitespace", inputs(corpus=dict(CORPUS, archive="\n old \n"))),
    ("nothing disputed or rejected", case_input(disputed={}, rejected=())),
    ("a claim with an agreed and a disputed source",
     case_input(disputed={"switch": ("checklist",)})),
    ("an unanswerable case nobody labelled", inputs(case={"relevant": (), "support": None})),
    ("a disputed claim, none expected", case_input(support=None, disputed={"x": ("launch",)})),
    ("a rejected claim, none expected", case_input(support=None, rejected=("x",))),
    ("an optional claim citing a document that is not relevant",
     case_input(optional={"extra": ("launch",)})),
    ("a disputed source of an unexpected claim that is not relevant",
     case_input(disputed={"extra": ("archive",)})),
    ("grades of 1 and 100", case_input(grades={"rollback": 1, "checklist": 100})),
    ("10,001 documents: a corpus has no cap", inputs(corpus=dict(CORPUS, **dict.fromkeys(
        IDS_OVER, "A note.")))),
    ("a group", case_input(group="chat-7")),
    ("a group of 64 characters", case_input(group="g" * 64)),
    ("twenty tags", case_input(tags=tuple("t%d" % index for index in range(20)))),
    ("free keys three letters from every known key, one sharing most of its letter pairs",
     inputs(case=case_with(supp=1, query="?", restarted=1, xestrictzz=1), run=run_with(model="m"))),
    ("a key beyond ASCII a letter from a known one", case_input(**{"gr\u00e4des": 1})),
    ("a key beyond ASCII a letter from a case key", case_input(**{"supp\u00f6rt": 1})),
    ("10,000 restricted documents", inputs(corpus=CORPUS_CAP, run=NOTHING,
                                           case=dict(CASES["region"], restricted=IDS_CAP))),
]

BAD_IDS = ["", ID_200 + "x", "rollback\n", "roll back", "roll\tback", "\u00a0rollback",
           "roll\u2028back", "\x7f", Str("rollback"), None, 7]


class InputRules(TestCase):
    """Each input rule rejects what breaks it and accepts its nearest neighbour."""

    def test_each_rule_of_one_question_says_what_it_expected_in_its_own_words(self):
        agreed = 'case["support"] or case["optional"]'
        ids = "(IDs are strings of 1 to 200 printable characters, no whitespace)"
        rows = [
            (inputs(case={1: ()}), "case: expected keys that are str, got 1"),
            (inputs(case=None), "case: expected a dict, got None"),
            (inputs(run={"claims": ()}), 'run["retrieved"]: missing from {\'claims\': ()}'),
            (inputs(k=0), "k: expected an int from 1 to 1000, got 0"),
            (run_input(retrieved="a"), 'run["retrieved"]: expected a tuple, got \'a\''),
            (run_input(retrieved=("a b",)), 'run["retrieved"]: invalid ID \'a b\' ' + ids),
            (run_input(retrieved=("zeta",)), 'run["retrieved"]: unknown document \'zeta\''),
            (run_input(retrieved=("a" * 99,)), 'run["retrieved"]: unknown document \'' + "a" * 37
             + "..." + "a" * 38 + "'"),  # 80 characters shown, its middle left out
            (inputs(corpus=CORPUS_CAP, case=CASES["region"], run=run_with(retrieved=IDS_OVER)),
             'run["retrieved"]: expected at most 10000 IDs, got 10001: (\'MARCO_D0\', '
             "'MARCO_D1', 'MARCO_D2', 'MARCO_D3', 'MARCO_D4', 'MARCO_D5', 'MAR..."),
            (run_input(retrieved=("owners",) * 2), 'run["retrieved"]: repeated ID \'owners\''),
            (run_input(claims=("x",)), 'run["claims"][0]: expected a (claim ID, citations) '
                                       "pair, got 'x'"),
            (case_input(support=[]), 'case["support"]: expected a dict, got []'),
            (run_input(claims=[]), 'run["claims"]: expected a tuple, got []'),
            (case_input(support={}), 'case["support"]: expected claims for case["relevant"] '
                                     "('rollback', 'checklist'), got {}"),
            (case_input(support={"x": ()}), 'case["support"][\'x\']: expected at least one '
                                            "source, got ()"),
            (case_input(support={"x": ("launch",)}), 'case["support"][\'x\']: source '
                                                     "'launch' is not in case[\"relevant\"]"),
            (case_input(disputed={"switch": ("rollback",)}), 'case["disputed"][\'switch\']: '
                                                             "source 'rollback' is also in "
                                                             + agreed),
            (case_input(optional={"smoke": ("launch",)}), 'case["optional"]: claim \'smoke\' '
                                                          'is also in case["support"]'),
            (case_input(rejected=("smoke",)), 'case["rejected"]: claim \'smoke\' has sources '
                                              'in case["support"], case["optional"] or '
                                              'case["disputed"]'),
            (case_input(restricted=("checklist",)), 'case["restricted"]: document '
                                                    "'checklist' is in case[\"relevant\"]"),
            (inputs(corpus=[]), "corpus: expected a dict of documents, got []"),
            (inputs(corpus={"a b": "x"}), "corpus: invalid ID 'a b' " + ids),
            (inputs(corpus=dict(CORPUS, archive=" ")), "corpus['archive']: expected a text "
                                                       "that is not blank, or None, got ' '")]
        self.assertRows(lambda arguments: message_of(evaluate.evaluate, arguments),
                        [((arguments,), message) for arguments, message in rows])
        counts = evaluate.tally(**inputs())
        self.assertRows(lambda counted: message_of(evaluate.scores, {"counts": counted}), [
            (([],), "counts: expected a dict of the keys tally() gives, got []"),
            ((dict(counts, k=1000, relevant=10000, hits=1000),), None),  # each at its cap
            ((dict(counts, hits=-1),), 'counts["hits"]: expected an int from 0 to 10000, '
                                       "got -1"),
            ((dict(counts, hits=None),), 'counts["hits"]: expected None exactly when '
                                         'counts["relevant"] is None, got None')])

    def test_each_fault_names_its_field_and_value_from_every_entry_point_and_changes_nothing(self):
        def rejected(what, function, arguments, field, *values):
            before = copy.deepcopy(arguments)
            return fault_of(getattr(evaluate, function), arguments, field, *values), \
                arguments == before
        places = {  # the field at fault: where each of BAD_IDS is put
            "corpus": lambda bad: inputs(corpus={bad: "x"}),
            'case["relevant"]': lambda bad: case_input(relevant=(bad,)),
            'case["support"]': lambda bad: case_input(support={bad: ("rollback",)}),
            "case[\"support\"]['switch']": lambda bad: case_input(support={"switch": (bad,)}),
            'case["restricted"]': lambda bad: case_input(restricted=(bad,)),
            'run["retrieved"]': lambda bad: run_input(retrieved=(bad,)),
            'run["claims"]': lambda bad: run_input(claims=((bad, ()),)),
            'run["claims"][0][1]': lambda bad: run_input(claims=(("switch", (bad,)),)),
        }
        faults = REJECTED + [("the invalid ID %r" % (bad,), place(bad), field, bad)
                             for bad in BAD_IDS for field, place in places.items()]
        rows = [((what, function, arguments, field) + tuple(values), ("ok", True))
                for what, arguments, field, *values in faults
                for function in ("evaluate", "validate", "tally", "explain")]
        self.assertRows(rejected, rows)

    def test_counts_are_checked_before_they_are_divided(self):
        keys = "counts: expected a dict of the keys tally() gives, got "
        extra = dict(LAUNCH_A, hit=1)
        rows = [(([LAUNCH_A],), keys + shown([LAUNCH_A])), ((Dict(LAUNCH_A),), keys + shown(
            Dict(LAUNCH_A))), ((extra,), keys + shown(extra)),
                (({1: 2},), "counts: expected keys that are str, got 1")]
        rows += [((dict(LAUNCH_A, **{key: value}),), 'counts["%s"]: expected an int from %d to '
                  "%d, got %s" % (key, key in ("k", "first_hit"), 1000 if key in (
                      "k", "first_hit") else 10000, shown(value)))
                 for key, value in (("k", 0), ("k", None), ("hits", -1), ("disclosed", None),
                                    ("supported", True), ("generated", 1.0), ("relevant", "1"),
                                    ("expected", 10001), ("k", 1001), ("first_hit", 0))]
        # Counts that contradict each other: no run could give them.
        none = 'expected None exactly when counts["'
        rows += [((dict(LAUNCH_A, hits=None),), 'counts["hits"]: ' + none + 'relevant"] is '
                  "None, got None"),
                 ((dict(LAUNCH_A, hits=0),), 'counts["first_hit"]: ' + none + 'hits"] is 0 or '
                  "None, got 1"),
                 ((dict(LAUNCH_A, expected=None),), 'counts["covered"]: ' + none + 'supported"] '
                  'or counts["expected"] is None, got 1'),
                 ((dict(LAUNCH_A, hits=3, relevant=3),), 'counts["hits"]: expected at most '
                  'counts["k"], 2, got 3'),
                 ((dict(LAUNCH_A, first_hit=3),), 'counts["first_hit"]: expected at most '
                  'counts["k"], 2, got 3'),
                 ((dict(LAUNCH_A, supported=2, covered=0),), 'counts["supported"]: expected at '
                  'most counts["generated"], 1, got 2'),
                 ((dict(LAUNCH_A, generated=None, supported=None),), 'counts["covered"]: ' + none
                  + 'supported"] or counts["expected"] is None, got 1')]
        self.assertRows(lambda counts: message_of(evaluate.scores, {"counts": counts}), rows)

    def test_nearest_valid_inputs_are_accepted(self):
        rows = [((what, arguments), METRICS) for what, arguments in ACCEPTED]
        self.assertRows(lambda what, arguments: list(evaluate.evaluate(**arguments)), rows)

    def test_validate_returns_the_very_parts_it_checked(self):
        parts = evaluate.validate(CORPUS, CASE, RUN, 2)
        originals = (CASE["relevant"], CASE["support"], RUN["retrieved"], RUN["claims"])
        self.assertEqual([part is original for part, original in zip(parts, originals)],
                         [True] * 4, "validate() returned copies, not the objects it checked")

    def test_the_functions_of_one_question_take_its_inputs_and_k_alone(self):
        import inspect
        rows = [((name,), "(corpus, case, run, *, k=2)")
                for name in ("tally", "evaluate", "explain", "ndcg")]
        rows += [(("validate",), "(corpus, case, run, k)"), (("lenient",), "(case)"),
                 (("scores",), "(counts)")]
        self.assertRows(lambda name: str(inspect.signature(getattr(evaluate, name))), rows)

    def test_the_keys_only_a_report_reads_are_checked_by_report_and_ndcg(self):
        def fault(case, field, value):
            data = four_questions(cases=dict(four_questions()["cases"], rollback=case))
            found = fault_of(evaluate.report, {"data": data}, "case 'rollback'", value)
            if found != "ok" or field == "ndcg":
                return found
            return "ok" if message_of(evaluate.report, {"data": data}).startswith(
                "case 'rollback': %s: " % field) else message_of(evaluate.report, {"data": data})
        rows = [((case, field, value), "ok") for what, case, field, value in REPORT_REJECTED]
        self.assertRows(fault, rows)
        self.assertEqual(fault_of(evaluate.ndcg, dict(inputs(case=case_with(grades=[2, 1])),
                                                      k=2), 'case["grades"]', [2, 1]), "ok")
        edges = case_with(tags=tuple("t%d" % index for index in range(20)), group="g" * 64,
                          grades={"rollback": 100, "checklist": 1})  # the caps, each read
        found = evaluate.report(four_questions(cases=dict(four_questions()["cases"],
                                                          rollback=edges)))
        self.assertEqual(found["questions"][1]["systems"]["B"]["scores"]["ndcg"], 1.0)
        zero = four_questions(cases=dict(four_questions()["cases"], rollback=case_with(
            grades={"rollback": 0, "checklist": 1})))
        self.assertEqual(message_of(evaluate.report, {"data": zero}), "case 'rollback': "
                         "case[\"grades\"]['rollback']: expected an int from 1 to 100, got 0")
        self.assertEqual(message_of(evaluate.report, {"data": four_questions(manifests={
            "A": {}, "B": {}, 1: {}})}), "manifests: expected keys that are str, got 1")
        self.assertRows(lambda fields: message_of(evaluate.report, {"data": four_questions(
            cases=dict(four_questions()["cases"], rollback=case_with(**fields)))}), [
            (({"tags": ()},), 'case \'rollback\': case["tags"]: expected a tuple of 1 to 20 '
                              "names, got ()"),
            (({"tags": ("a", "a")},), 'case \'rollback\': case["tags"]: repeated name \'a\''),
            (({"grades": {"rollback": 1}},), 'case \'rollback\': case["grades"]: expected a '
             'grade for each document of case["relevant"] (\'rollback\', \'checklist\'), '
             "got {'rollback': 1}")])

    def test_a_shown_value_is_its_ascii_repr_cut_to_80_characters(self):
        rng = random.Random(11)

        def value(depth=0):
            kind = rng.choice("tldsfqnbix" if 0 < depth < 3 else "tlsfqnbix" if not depth
                              else "qnbix")
            if kind in "tlsf":  # a set of scalars, which can be hashed
                items = [value(3 if kind in "sf" else depth + 1) for _ in range(rng.randint(0, 5))]
                return {"t": tuple, "l": list, "s": set, "f": frozenset}[kind](items)
            if kind == "d":
                return {rng.choice(["a", "bb", 3, None]): value(depth + 1) for _ in range(3)}
            return {"q": "x\u00e9" * rng.randint(0, 50), "n": None, "b": True,
                    "i": rng.randint(-9, 10 ** 9), "x": rng.random()}[kind]
        (mine := [1]).insert(0, mine), (pair := ([],))[0].append(pair)  # inside themselves
        rows = [((item,), "ok") for item in [value() for _ in range(400)] + [
            10 ** 3000, 2 ** 9999, -0.0, "", "'", "'\"", "a\n\x00\u00e9\\" * 30, "q" * 90 + "'",
            b"q" * 90 + b"'", b"\x00'\"" * 30, "q" * 90 + "'\"", b"q" * 90 + b"'\"",
            ("y" * 77,), (1,), ((),), [{"k" * 70: "v" * 9}],
            ((), [], {}, set(), frozenset(), frozenset({2})), mine, pair, [mine] * 30]]
        self.assertRows(lambda item: fault_of(evaluate.evaluate, inputs(case=item), "case", item),
                        rows)

    def test_a_value_too_large_or_too_odd_to_print_still_makes_a_one_line_message(self):
        lines = type("Lines", (), {"__repr__": lambda self: "\ta\nb\rc\x0b\x0c\x1c\x1e\x7f"})()
        deep, shared = ["x"], ()  # past any recursion limit; 2 ** 80 tuples, each read as shown
        for count in range(5000):
            deep, shared = [deep], (shared, shared) if count < 80 else shared
        rows = [(-2 ** 10000, r"-1995063116880758384883742162683585083\.\.\.\d+"),
                (BrokenRepr(), r"<BrokenRepr instance at 0x[0-9a-f]+>"),
                (lines, re.escape("\\ta\\nb\\rc\\x0b\\x0c\\x1c\\x1e\\x7f")),
                (shared, r"\(\(\(\(\.\.\.\), \(\.\.\.\)\), .*"), (deep, r"\[\[\[\[\.\.\.\]\]\]\]"),
                ([BrokenRepr()], r"\[<BrokenRepr instance at 0x[0-9a-f]+>\]")]
        for item, shown_as in rows:
            message = message_of(evaluate.evaluate, inputs(case=item))
            self.assertRegex(message, "^case: expected a dict, got " + shown_as + "$")
            self.assertLessEqual(len(message), len("case: expected a dict, got ") + 80)

# --- An independent arithmetic sweep ----------------------------------------------

# (relevant, support): the labels of each swept question.
SWEEP_LABELS = [
    ((), {}),                                                   # unanswerable
    (("a",), {"p": ("a",)}),                                    # one source
    (("a", "b"), {"p": ("a",), "q": ("b",), "r": ("a", "b")}),  # r may cite either
    (("c", "b"), {"q": ("b", "c")}),                            # d, a are distractors
]

# Every ranked list of 0 to 3 distinct documents: 1 + 4 + 12 + 24 = 41.
SWEEP_RETRIEVED = [()] + [(x,) for x in "abcd"] + [
    (x, y) for x in "abcd" for y in "abcd" if x != y] + [
    (x, y, z) for x in "abcd" for y in "abcd" for z in "abcd" if len({x, y, z}) == 3]

SWEEP_CUTOFFS = (1, 2, 4)  # below, at and past the length of a list; 4 is past every one

# (what the answer does, its claims)
SWEEP_ANSWERS = [
    ("abstains", ()),
    ("cites its labelled source", (("p", ("a",)),)),
    ("cites nothing", (("p", ()),)),
    ("cites a document outside the corpus", (("p", ("zeta",)),)),
    ("makes a claim with no label", (("x", ("a",)),)),
    ("cites a labelled source and a distractor", (("p", ("a", "d")),)),
    ("makes two claims with their own sources", (("q", ("b",)), ("p", ("a",)))),
    ("cites two labelled sources of one claim", (("r", ("b", "a")),)),
    ("cites the source of another claim", (("p", ("b",)),)),
    ("mixes good and bad claims", (("q", ("c",)), ("r", ("d",)), ("x", ()), ("p", ("a",)))),
]


def oracle_supported(support, retrieved, claims, k):
    """Return whether each claim is supported, with plain loops, apart from evaluate.py."""
    flags = []
    for claim_id, citations in claims:
        good = len(citations) > 0
        for cited in citations:
            if cited not in support.get(claim_id, ()) or cited not in retrieved[:k]:
                good = False
        flags.append(good)
    return flags


def oracle(relevant, support, retrieved, claims, k, optional=None):
    """Score one question with plain loops, apart from evaluate.py; optional: claims' labels."""
    hits, first_rank = 0, 0
    for rank in range(1, k + 1):
        if rank <= len(retrieved) and retrieved[rank - 1] in relevant:
            hits += 1
            if first_rank == 0:
                first_rank = rank
    labels = dict(support)
    labels.update(optional or {})
    flags = oracle_supported(labels, retrieved, claims, k)
    supported = flags.count(True)
    covered = len([flag for flag, (claim_id, _) in zip(flags, claims)
                   if flag and claim_id in support])
    result = {"precision": None, "recall": None, "rr": None, "support": None,
              "coverage": None, "abstention_correct": None}
    if len(relevant) > 0:
        result["precision"] = hits / k
        result["recall"] = hits / len(relevant)
        result["rr"] = 1 / first_rank if first_rank > 0 else 0.0
        result["coverage"] = covered / len(support)
    else:
        result["abstention_correct"] = len(claims) == 0
    if len(claims) > 0:
        result["support"] = supported / len(claims)
    return result


class Sweep(TestCase):
    """evaluate() and explain() agree exactly with the oracle on every swept configuration."""

    def test_every_configuration_matches_the_oracle(self):
        def scored_and_explained(relevant, support, retrieved, k, claims):
            case, run = {"relevant": relevant, "support": support}, {"retrieved": retrieved,
                                                                     "claims": claims}
            why = evaluate.explain(SWEEP_CORPUS, case, run, k=k)
            return (evaluate.evaluate(SWEEP_CORPUS, case, run, k=k),
                    [reason is None for claim, reason in why["claims"]], why["uncovered"])

        def expected(relevant, support, retrieved, k, claims):
            flags = oracle_supported(support, retrieved, claims, k)
            covered = [claim for (claim, _), good in zip(claims, flags) if good]
            return (oracle(relevant, support, retrieved, claims, k), flags,
                    tuple(claim for claim in support if claim not in covered))
        rows = [((relevant, support, retrieved, k, claims),
                 expected(relevant, support, retrieved, k, claims))
                for relevant, support in SWEEP_LABELS for retrieved in SWEEP_RETRIEVED
                for k in SWEEP_CUTOFFS for what, claims in SWEEP_ANSWERS]
        self.assertEqual(len(rows), 4 * 41 * 3 * 10)  # 492 retrieval configurations
        self.assertRows(scored_and_explained, rows)


# --- Many questions -----------------------------------------------------------------

def passed_on(prefix, function, arguments, field, *values):
    """Return fault_of() of the rest of a message that starts with prefix, or what is wrong."""
    def without_prefix(**arguments):
        message = message_of(function, arguments)
        if message is not None:
            raise EvaluationError(message[len(prefix):] if message.startswith(prefix) else
                                  "no prefix %r: %s" % (prefix, message))
    return fault_of(without_prefix, arguments, field, *values)


# rollback again, retrieving only its first note and stating only the first step
SECOND_RUN = {"retrieved": ("rollback",), "claims": (("switch", ("rollback",)),)}


def report_of(**changes):
    """Return report()'s arguments: the four questions, some parts replaced."""
    return {"data": four_questions(**changes)}


class ManyQuestions(TestCase):
    """report() checks a data set once, scores every run, and says where a fault is."""

    def test_a_fault_names_its_case_and_system_or_only_the_corpus_or_case_at_fault(self):
        owner_a, fixture = RUNS["owner"]["A"], four_questions()
        rows = [
            ({"runs": {name: RUNS[name] for name in ("launch", "owner", "region")}},
             "case 'rollback': no system ran it: missing from runs"),
            ({"runs": dict(fixture["runs"], owner=(owner_a,))}, "runs['owner']: expected a "
             "dict of runs by system, got ({'claims': ((...),), 'retrieved': ('archive', "
             "'owners')},)"),
            ({"runs": dict(fixture["runs"], owner={1: owner_a})},
             "runs['owner']: expected keys that are str, got 1"),
            ({"runs": dict(fixture["runs"], ownr=RUNS["owner"])}, "runs: no case named 'ownr'"),
            ({"cases": ["owner"]}, "cases: expected a dict, got ['owner']"),
            ({"runs": []}, "runs: expected a dict, got []"),
            ({"corpus": {}}, "corpus: expected a dict of documents, got {}")]
        self.assertRows(lambda changes: message_of(evaluate.report, report_of(**changes)),
                        [((changes,), message) for changes, message in rows])
        bad_b = {"retrieved": (), "claims": (("aurora", "owners"),)}
        rows = [  # faults of one question: (changes, prefix, field, value shown)
            ({"runs": dict(fixture["runs"], owner={"A": owner_a, "B": bad_b})},
             "case 'owner', system 'B': ", 'run["claims"][0][1]', "owners"),
            ({"k": 0}, "", "k", 0),
            ({"corpus": dict(CORPUS, **{"old notes": "Old."})}, "", "corpus", "old notes"),
            ({"corpus": dict(CORPUS, archive=" ")}, "", "corpus['archive']", " "),
            ({"corpus": ["launch"]}, "", "corpus", ["launch"]),
            ({"cases": dict(fixture["cases"], owner=dict(
                CASES["owner"], support={"aurora": ("launch",)}))}, "case 'owner': ",
             "case[\"support\"]['aurora']", "launch"),
            ({"cases": dict(fixture["cases"], owner=dict(
                CASES["owner"], restricted=("owners",)))}, "case 'owner': ",
             'case["restricted"]', "owners")]
        self.assertRows(lambda changes, prefix, field, value: passed_on(
            prefix, evaluate.report, report_of(**changes), field, value),
            [(row, "ok") for row in rows])

    def test_each_run_scores_as_with_the_corpus_cut_down_to_what_its_question_names(self):
        # More documents than one question allows: checked once, a fault names no case.
        corpus = dict(CORPUS, **{"n%d" % index: "A note." for index in range(300)})
        self.assertEqual(passed_on("", evaluate.report, report_of(
            corpus=dict(corpus, n7="")), "corpus['n7']", ""), "ok")
        runs = dict(four_questions()["runs"], owner=dict(  # the four questions alone
            A={"retrieved": ("n1", "owners", "n2"),
               "claims": (("aurora", ("owners", "n250")),)},
            B={"retrieved": ("n299",), "claims": (("aurora", ("zeta",)),)}))
        data = four_questions(corpus=corpus, runs=runs, k=3)

        def cut_down(name, system):
            case, run = data["cases"][name], runs[name][system]
            named = set(case["relevant"]) | set(case.get("restricted", ())) | set(run["retrieved"])
            for claim_id, citations in run["claims"]:
                named.update(citations)
            # A corpus is never empty: where nothing is named, any one document will do.
            small = {doc_id: corpus[doc_id] for doc_id in named if doc_id in corpus} or {
                "launch": corpus["launch"]}
            return evaluate.tally(small, case, run, k=3), evaluate.explain(small, case, run, k=3)
        result = evaluate.report(data, explain=True)
        self.assertEqual([question["case"] for question in result["questions"]], list(FOUR))
        rows = [((question["case"], system), (row["counts"], row["explain"]))
                for question in result["questions"]
                for system, row in question["systems"].items()]
        self.assertRows(cut_down, rows)

    def test_a_fault_in_repeated_runs_names_the_case_the_system_and_the_field(self):
        broken = [(), (RUN,) * 101, (RUN, []), (RUN, SECOND_RUN, run_with(retrieved=["x"]))]
        runs = [dict(four_questions()["runs"], rollback={"A": RUNS["rollback"]["A"],
                                                         "B": copy.deepcopy(bad)})
                for bad in broken]
        saved = copy.deepcopy(runs)
        many = "case 'rollback', system 'B': runs: expected 1 to 100 repeated runs, got "
        self.assertRows(lambda runs: message_of(evaluate.report, report_of(runs=runs)), [
            ((runs[0],), many + "()"), ((runs[1],), many + shown((RUN,) * 101))])
        self.assertRows(lambda runs, prefix, field, value: passed_on(
            prefix, evaluate.report, report_of(runs=runs), field, value), [
            ((runs[2], "case 'rollback', system 'B', run 2: ", "run", []), "ok"),
            ((runs[3], "case 'rollback', system 'B', run 3: ", 'run["retrieved"]', ["x"]), "ok")])
        self.assertEqual(runs, saved)  # no input changed

    def test_repeated_runs_average_both_readings_and_ndcg(self):
        case = dict(CASES["launch"], grades={"launch": 3})  # bonus has a disputed label
        second = {"retrieved": ("archive", "launch"), "claims": (("monday", ("launch",)),)}
        runs = dict(four_questions()["runs"], launch=dict(RUNS["launch"], B=(
            RUNS["launch"]["B"], second)))
        data = four_questions(cases=dict(undisclosing(), launch=case), runs=runs, policy={
            "unsupported_budget": {"answerable": 0}})
        result = evaluate.report(data, summary=True)
        row = result["questions"][0]["systems"]["B"]
        self.assertEqual((row["scores"]["support"], row["lenient"]["scores"]["support"],
                          row["lenient"]["counts"]["supported"]), (0.75, 1.0, Fraction(3, 2)))
        self.assertIs(type(row["lenient"]["counts"]["supported"]), Fraction)
        self.assertEqual(result["summary"]["decisions"]["B"]["strict"]["broken"], [(  # 1 and 0
            "unsupported_budget", "answerable", "0.50 unsupported claims, budget 0")])
        self.assertEqual(result["summary"]["lenient_means"]["answerable"]["pooled_support"]["B"],
                         {"supported": 6, "generated": 6, "ratio": 1.0})  # each run's claims
        both = [evaluate.ndcg(CORPUS, case, run) for run in (RUNS["launch"]["B"], second)]
        self.assertEqual(row["scores"]["ndcg"], math.fsum(both) / 2)  # 1.0, then 3/log2(3) / 3

    def test_a_report_averages_repeated_runs_within_their_question(self):
        data = four_questions(runs=dict(four_questions()["runs"], rollback=dict(
            RUNS["rollback"], B=(RUN, SECOND_RUN))))
        result = evaluate.report(data, summary=True)
        rows = {(question["case"], system): row for question in result["questions"]
                for system, row in question["systems"].items()}
        expected = {pair: (1, None) for pair in rows}  # repeats, and each run's own values
        expected["rollback", "B"] = (2, [{"scores": evaluate.evaluate(CORPUS, CASE, run),
                                          "counts": evaluate.tally(CORPUS, CASE, run)}
                                         for run in (RUN, SECOND_RUN)])
        self.assertEqual({pair: (row["repeats"], row["runs"]) for pair, row in rows.items()},
                         expected)
        row, half = rows["rollback", "B"], Fraction(3, 2)  # one run of two notes, one of one
        self.assertEqual(row["scores"], dict(zip(METRICS, (0.75, 0.75, 1.0, 1.0, 0.75, None))))
        self.assertEqual(row["counts"], dict(ROLLBACK_A, hits=half, generated=half,
                                             supported=half, covered=half))
        self.assertEqual({key: type(count) for key, count in row["counts"].items()},
                         {key: Fraction if key in ("hits", "generated", "supported", "covered")
                          else int for key in COUNTS})  # exact: a whole mean is an int
        for metric, test in result["summary"]["comparisons"][0]["paired_tests"].items():
            runs = [{name: tuple(run["scores"][metric] for run in rows[name, system]["runs"])
                     if rows[name, system]["runs"] else rows[name, system]["scores"][metric]
                     for name in ANSWERABLE} for system in "AB"]
            alone = evaluate.paired_test(*runs)  # the report adds what silence counted
            self.assertEqual({key: test[key] for key in alone}, alone, metric)
            self.assertEqual(test["unmatched_runs"], 1)  # rollback: B ran twice, A once
        self.assertEqual(evaluate.report(data, explain=True)["questions"][1]["systems"]["B"][
            "explain"], [evaluate.explain(CORPUS, CASE, run) for run in (RUN, SECOND_RUN)])


# --- Comparing systems --------------------------------------------------------------

TAGS = ("tag:lookup", "tag:multi-document", "tag:permission")
EXPECTED_MEANS = {  # metric: (mean, averaged, total) for A, then B, on the answerable slice
    "precision": ((1.5 / 3, 3, 3), (2.0 / 3, 3, 3)),
    "recall": ((2.5 / 3, 3, 3), (3.0 / 3, 3, 3)),
    "rr": ((2.5 / 3, 3, 3), (3.0 / 3, 3, 3)),
    "support": ((2.0 / 3, 3, 3), (2.5 / 3, 3, 3)),
    "coverage": ((1.5 / 3, 3, 3), (3.0 / 3, 3, 3))}


class Comparison(TestCase):
    """Slices, declared aggregates and per-question changes from A to B."""

    def test_macro_mean_skips_na_and_counts_what_it_averaged(self):
        def mean(*supports):  # of answerable questions of these supports, None: no claim
            tallies = {"q%d" % index: counts(generated=0, supported=0) if value is None else
                       counts(generated=value.denominator, supported=value.numerator)
                       for index, value in enumerate(supports)} or {"r": ABSTAINED}
            return evaluate.report(counted(LOOSE, tallies), summary=True)["summary"]["means"][
                "answerable"]["support"]["A"]
        rows = [
            ((Fraction(1, 2), None, Fraction(1)), {"mean": 0.75, "averaged": 2, "total": 3}),
            ((Fraction(0), Fraction(1, 4)), {"mean": 0.125, "averaged": 2, "total": 2}),
            ((Fraction(0),), {"mean": 0.0, "averaged": 1, "total": 1}),
            ((None, None), {"mean": None, "averaged": 0, "total": 2}),  # n/a, not 0.00
            ((), {"mean": None, "averaged": 0, "total": 0}),             # an empty slice
            ((Fraction(1, 10),) * 10, {"mean": 0.1, "averaged": 10, "total": 10})]  # rounded once
        self.assertRows(mean, rows)

    def test_answerable_slice_macro_means_match_the_comparison(self):
        means = summary_of()["means"]["answerable"]
        got = {metric: tuple(tuple(means[metric][system].values()) for system in "AB")
               for metric in EXPECTED_MEANS}
        self.assertSnapshot(got, EXPECTED_MEANS, "EXPECTED_MEANS")

    def test_a_question_with_nothing_relevant_or_no_claim_expected_is_unanswerable(self):
        for region in ({"relevant": (), "support": None}, {"relevant": None, "support": {}}):
            with self.subTest(region=region):
                slices = summary_of(cases=dict(four_questions()["cases"], region=region))[
                    "slices"]
                self.assertEqual(slices["unanswerable"], ["region"])

    def test_unanswerable_slice_averages_only_what_applies_and_pooled_support_adds_claims(self):
        means = summary_of()["means"]
        self.assertEqual(means["unanswerable"]["support"]["A"],
                         {"mean": 0.0, "averaged": 1, "total": 1})
        self.assertEqual(means["answerable"]["pooled_support"], {  # B: 4/5, its mean 2.5/3
            "A": {"supported": 2, "generated": 3, "ratio": 2 / 3},
            "B": {"supported": 4, "generated": 5, "ratio": 0.8}})

    def test_correct_abstentions_count_only_unanswerable_questions(self):
        means = summary_of()["means"]
        self.assertIsNone(means["answerable"]["correct_abstentions"])
        empty = {name: dict(RUNS[name], B={"retrieved": (), "claims": ()}) for name in FOUR}
        means = summary_of(runs=empty)["means"]  # empty answers elsewhere are not counted
        self.assertEqual(means["unanswerable"]["correct_abstentions"]["B"],
                         {"correct": 1, "total": 1})
        means = summary_of(cases={name: CASES[name] for name in ANSWERABLE}, runs={
            name: RUNS[name] for name in ANSWERABLE}, policy={"critical": ("launch",)})["means"]
        self.assertIsNone(means["unanswerable"]["correct_abstentions"])  # an empty slice

    def test_each_tag_slice_has_the_means_of_its_questions(self):
        means = summary_of()["means"]
        self.assertEqual([list(means[name]) for name in TAGS], [list(means["answerable"])] * 3)
        self.assertEqual(means["tag:lookup"]["support"], {  # launch, owner and region
            "A": {"mean": 1 / 3, "averaged": 3, "total": 3},
            "B": {"mean": 0.75, "averaged": 2, "total": 3}})
        self.assertEqual([means[name]["correct_abstentions"] for name in TAGS], [
            {"A": {"correct": 0, "total": 1}, "B": {"correct": 1, "total": 1}}, None, None])

    def test_change_and_verdict_weigh_better_against_worse_and_leave_na_unjudged(self):
        half, na = counts(generated=2), counts(generated=0, supported=0)
        zero, unsupported = counts(supported=0, expected=2), counts(generated=1, supported=0)
        rows = {  # name: (tally of A, tally of B, what moved, the verdict)
            "up": (half, counts(), [("support", 0.5, 1.0, True)], "improved"),
            "down": (counts(), half, [("support", 1.0, 0.5, True)], "regressed"),
            "mixed": (half, counts(first_hit=2), [("rr", 1.0, 0.5, True),
                                                  ("support", 0.5, 1.0, True)], "mixed"),
            "equal": (half, half, [], "unchanged"), "zero": (zero, zero, [], "unchanged"),
            "none": (na, na, [], "unchanged"),
            "to-na": (unsupported, na, [("support", 0.0, None, False)], "not judged"),  # alone
            "from-na": (na, unsupported, [("support", None, 0.0, False)], "not judged"),
            "abstains": (ANSWERED, ABSTAINED, [("support", 0.0, None, False), (
                "abstention_correct", False, True, True)], "improved"),
            "answers": (ABSTAINED, ANSWERED, [("support", None, 0.0, False), (
                "abstention_correct", True, False, True)], "regressed"),
            "keeps": (ABSTAINED, ABSTAINED, [], "unchanged")}
        data = counted(LOOSE, *({name: row[side] for name, row in rows.items()} for side in (0, 1)))
        changes = {change["case"]: (change["moved"], change["verdict"]) for change in
                   evaluate.report(data, summary=True)["summary"]["comparisons"][0]["changes"]}
        self.assertRows(changes.get, [((name,), row[2:]) for name, row in rows.items()])

    def test_cell_shows_two_decimals_na_and_yes_or_no_and_p_text_an_exact_or_sampled_p(self):
        self.assertRows(demo.cell, [((0.5,), "0.50"), ((2 / 3,), "0.67"), ((0,), "0.00"),
                                        ((None,), "n/a"), ((True,), "yes"), ((False,), "no")])
        rows = [((Fraction(1, 2),), "1/2"), ((Fraction(1, 11),), "1/11"),
                ((Fraction(1, 1000),), "1/1000"), ((Fraction(1, 1001),), "0.001"),
                ((Fraction(1.5e-300),), "1.5e-300"), ((Fraction(1e-300),), "below 1e-300"),
                ((Fraction(1, 11), "sampled"), "0.091"),  # 1091/12001, sampled, is no 1/11
                ((Fraction(1, 2 ** 40),), "9.1e-13"), ((Fraction(1, 2 ** 1200),), "below 1e-300"),
                ((0,), "0"), ((1,), "1")]
        self.assertRows(evaluate.p_text, rows)
        faults = [(({"p": p},), "p: expected a number from 0 to 1, got %r" % (p,))
                  for p in ("1/2", None, -0.5, 1.5, float("nan"), True)]
        faults.append((({"p": 0.5, "method": "guessed"},), "method: expected \"exact\" or "
                       "\"sampled\", got 'guessed'"))
        self.assertRows(lambda arguments: message_of(evaluate.p_text, arguments), faults)


# --- Deciding: the acceptance policy --------------------------------------------------

def counts(relevant=1, hits=1, first_hit=1, generated=1, supported=1, expected=1, disclosed=0):
    """Return a tally at k=2, every supported claim expected; by default a perfect one."""
    return {"relevant": relevant, "k": 2, "hits": hits, "first_hit": first_hit,
            "generated": generated, "supported": supported, "expected": expected,
            "covered": supported, "disclosed": disclosed}


def numbered(prefix, count):
    return tuple("%s%d" % (prefix, index) for index in range(count))


COUNTED_CORPUS = {doc_id: "A note." for prefix in "dsx" for doc_id in numbered(prefix, 40)}
SYSTEM_NAMES = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def counted(policy, *tallies, k=2):
    """Return a data set whose systems (the baseline A, then B, C, ...) have the tallies
    given, {question: tally}: the relevant documents are d0, d1, ..., the expected claims
    c0, c1, ... (from d0), the restricted documents s0, s1, ...; a run retrieves x0, x1, ...
    before its first hit, and cites d0 for a supported claim (at most 40 of each count)."""
    systems = dict(zip(SYSTEM_NAMES, tallies + tallies[:1] * (len(tallies) < 2)))
    cases, runs = {}, {}
    for name, tally in tallies[0].items():
        restricted = numbered("s", max(system[name]["disclosed"] for system in tallies))
        cases[name] = dict({"relevant": numbered("d", tally["relevant"]), "support": {
            claim: ("d0",) for claim in numbered("c", tally["expected"])}},
            **({"restricted": restricted} if restricted else {}))
        runs[name] = {system: run_of_tally(system_tallies[name])
                      for system, system_tallies in systems.items()}
    return {"corpus": COUNTED_CORPUS, "cases": cases, "runs": runs, "k": k,
            "systems": tuple(systems), "policy": policy}


def run_of_tally(tally):
    return {"retrieved": numbered("x", (tally["first_hit"] or 1) - 1) + numbered(
        "d", tally["hits"]) + numbered("s", tally["disclosed"]),
        "claims": tuple((claim, ("d0",)) for claim in numbered("c", tally["supported"])) +
        tuple((claim, ()) for claim in numbered("u", tally["generated"] - tally["supported"]))}


def judgement(policy, candidate, baseline=None, k=2):
    """Return report()'s strict judgement of a candidate's tallies: against a baseline, or
    alone (the candidate as the baseline)."""
    summary = evaluate.report(counted(policy, *((candidate,) if baseline is None else (
        baseline, candidate)), k=k), summary=True)["summary"]
    return (summary["policy"]["baseline_alone"] if baseline is None else
            summary["decisions"]["B"])["strict"]


ABSTAINED = counts(relevant=0, hits=0, first_hit=None, generated=0, supported=0, expected=0)
ANSWERED = dict(ABSTAINED, generated=1)  # one claim on an unanswerable question
QUESTIONS = {"q": counts(), "r": ABSTAINED}  # q is answerable, r is not

# A policy of one rule that holds for any candidate; a test adds the rule it is about.
LOOSE = {"unsupported_budget": {"answerable": 100, "unanswerable": 100}}


def rules_named():
    """Return the rules a policy may set, as the message for an unknown rule names them: read
    from the module, so that adding a rule changes no test."""
    message = message_of(evaluate.report, {"data": four_questions(policy={"notes": 1})})
    return message.split("the rules are ")[1].split(", the settings")[0]

# The measures averaged and tested that a data set without grades measures:
TESTED = str(tuple(name for name, measure in evaluate.MEASURES.items()
                   if not measure.get("yes_no") and "needs" not in measure))
# Ten questions of recall 1/2; a candidate finds both notes of six: p = 2 / 2**6 = 1/32.
HALF_FOUND = {"q%d" % index: counts(relevant=2) for index in range(10)}
SIX_UP = dict(HALF_FOUND, **{"q%d" % index: counts(relevant=2, hits=2) for index in range(6)})

DISCLOSED_ARCHIVE = ("disclosure", "owner", "1 restricted document in the top k or cited")
EXPECTED_POLICY_A = {
    "accepted": False,
    "broken": [DISCLOSED_ARCHIVE, ("min_coverage", "owner", "coverage 0/1, minimum 1"),
               ("must_abstain", "region", "answered with 1 claim"),
               ("unsupported_budget", "answerable", "1 unsupported claim, budget 0"),
               ("unsupported_budget", "unanswerable", "1 unsupported claim, budget 0")],
    "held": [("min_coverage", "launch", "coverage 1/1, minimum 1")],
    "unchecked": [("critical", "no baseline to compare with")], "significance": None}
EXPECTED_POLICY_B_AGAINST_A = {
    "accepted": False,
    "broken": [DISCLOSED_ARCHIVE, ("critical", "launch", "regressed: support 1.00 -> 0.50"),
               ("unsupported_budget", "answerable", "1 unsupported claim, budget 0")],
    "held": [("critical", "owner", "improved"),
             ("min_coverage", "launch", "coverage 1/1, minimum 1"),
             ("min_coverage", "owner", "coverage 1/1, minimum 1"),
             ("must_abstain", "region", "abstained"),
             ("unsupported_budget", "unanswerable", "0 unsupported claims, budget 0")],
    "unchecked": [], "significance": None}

# launch's claims by A and by B that each (strict, lenient) outcome of "critical" needs;
# None: no disputed label anywhere, so no lenient reading
MONDAY, BONUS, SPARE = ("monday", ("launch",)), ("bonus", ("launch",)), ("spare", ())
READ_AS = {(True, True): ((MONDAY,), (MONDAY,)), (False, True): ((MONDAY,), (MONDAY, BONUS)),
           (True, False): ((MONDAY, BONUS), (MONDAY, SPARE)),  # A's bonus counts if lenient
           (False, False): ((MONDAY,), (MONDAY, SPARE)),
           (True, None): ((MONDAY,), (MONDAY,)), (False, None): ((MONDAY,), (MONDAY, SPARE))}


def moved(values):
    """Return tallies of coverage 0, 1/3, 2/3 or 1 of 3 claims, or None: an empty answer."""
    return {"q%d" % index: counts(generated=0, expected=3, supported=0) if value is None else
            counts(generated=3, expected=3, supported=int(value * 3))
            for index, value in enumerate(values)}


def significance_detail(mean, p, alpha=0.05, metric="coverage", pairs="6 of 6", step=(1, 1),
                        level=None, floor=None):  # level: alpha unless given
    moved = "rose" if float(mean) > 0 else "fell" if float(mean) < 0 else "did not move"
    detail = ("%s %s: mean %s over %s questions, p = %s (exact), level %s (alpha %s, Holm's "
              "step %d of %d)" % (metric, moved, mean, pairs, p, level or alpha, alpha, *step))
    if floor:  # (moved units, the lowest p they give), above the level
        detail += ": its %d moved units can give no p below %s" % floor
    return detail


class Policy(TestCase):
    """report() applies each rule a policy declares, and validates the policy strictly."""

    def test_a_question_a_rule_names_and_a_system_did_not_run_is_broken_or_unchecked(self):
        policy, both = {"must_abstain": ("region", "region2"), "critical": ("launch",),
                        "min_coverage": 1}, "AB"
        rows = [(("A", "A"), ([("critical", "launch", "the candidate did not run it", "both"),
                               ("min_coverage", "launch", "the candidate did not run it",
                                "both"),
                               ("must_abstain", "region", "the candidate did not run it",
                                "both"),
                               ("must_abstain", "region2", "answered with 1 claim", "both")],
                              [])),
                (("B", "AB"), ([("must_abstain", "region2", "answered with 1 claim", "both")],
                               [("critical", "the baseline did not run it")]))]

        def found(launch, region):
            answered = {"region2": dict.fromkeys("AB", RUNS["region"]["A"])}  # both answer
            decided = decision_of(four_questions(policy=policy, cases=dict(
                four_questions()["cases"], region2=CASES["region"]), runs=dict(split_runs(
                    launch=launch, region=region, rollback=both, owner=both), **answered)))
            return ([finding for finding in decided["findings"] if finding[0] != "disclosure"],
                    decided["strict"]["unchecked"])
        self.assertRows(found, rows)

    def test_under_the_fixture_policy_a_alone_breaks_four_rules_b_two_and_both_disclose(self):
        self.assertEqual(list(POLICY), ["critical", "min_coverage", "unsupported_budget",
                                        "must_abstain", "unresolved"])  # rules, then the plan
        summary = summary_of()  # B breaks two over the disputed bonus claim
        self.assertSnapshot(summary["policy"]["baseline_alone"]["strict"], EXPECTED_POLICY_A,
                            "EXPECTED_POLICY_A")
        self.assertSnapshot(summary["decisions"]["B"]["strict"], EXPECTED_POLICY_B_AGAINST_A,
                            "EXPECTED_POLICY_B_AGAINST_A")

    def test_each_rule_is_held_or_broken_by_its_numbers(self):
        def outcomes(policy, candidate, baseline=None):
            judged = judgement(policy, candidate, baseline)
            return [(outcome, subject, detail) for outcome in ("broken", "held")
                    for rule, subject, detail in judged[outcome]]

        def cover(minimum):
            return {"critical": ("q",), "min_coverage": minimum}
        critical = {"critical": ("q",)}
        budget = {"unsupported_budget": {"answerable": 1, "unanswerable": 0}}
        fell = ({"q": counts(relevant=2, hits=1)}, {"q": counts(relevant=2, hits=2)})
        rows = [  # one rule each: a rule left out is not checked, whatever a candidate breaks
            # critical: nothing judged may get worse than the baseline.
            ((critical, {"q": counts(generated=2)}, {"q": counts()}),
             [("broken", "q", "regressed: support 1.00 -> 0.50")]),
            ((critical, {"q": counts(generated=2)}, {"q": counts(first_hit=2)}),
             [("broken", "q", "mixed: support 1.00 -> 0.50")]),  # rr got better meanwhile
            ((critical, {"q": counts(generated=2, supported=0), "r": ANSWERED}, QUESTIONS),
             [("broken", "q", "regressed: support 1.00 -> 0.00, coverage 1.00 -> 0.00")]),
            ((critical, {"q": counts()}, {"q": counts(supported=0)}), [("held", "q", "improved")]),
            ((critical, {"q": counts()}, {"q": counts()}), [("held", "q", "unchanged")]),
            # tolerance: a critical question may fall by it, and no further.
            ((dict(critical, tolerance=0.5),) + fell, [("held", "q", "regressed: precision "
             "1.00 -> 0.50, recall 1.00 -> 0.50, tolerance 0.5")]),
            ((dict(critical, tolerance=0.4),) + fell, [("broken", "q", "regressed: precision "
             "1.00 -> 0.50, recall 1.00 -> 0.50, tolerance 0.4")]),
            # min_coverage: each critical question reaches it.
            ((cover(1.0), {"q": counts(supported=0)}),
             [("broken", "q", "coverage 0/1, minimum 1")]),
            ((cover(0), {"q": counts(supported=0)}), [("held", "q", "coverage 0/1, minimum 0")]),
            ((cover(0.5), {"q": counts(expected=2)}), [("held", "q", "coverage 1/2, minimum 0.5")]),
            ((cover(0.51), {"q": counts(expected=2)}),
             [("broken", "q", "coverage 1/2, minimum 0.51")]),
            ((cover(0.67), {"q": counts(generated=3, supported=2, expected=3)}),
             [("broken", "q", "coverage 2/3, minimum 0.67")]),  # 2/3 falls short of 0.67
            # unsupported_budget: unsupported claims summed over each slice it names.
            ((budget, {"q": counts(generated=2), "p": counts(generated=3), "r": ABSTAINED}),
             [("broken", "answerable", "3 unsupported claims, budget 1"),
              ("held", "unanswerable", "0 unsupported claims, budget 0")]),
            ((budget, {"q": counts(generated=2), "r": ANSWERED}),
             [("broken", "unanswerable", "1 unsupported claim, budget 0"),
              ("held", "answerable", "1 unsupported claim, budget 1")]),
            (({"unsupported_budget": {"unanswerable": 0}}, {"q": counts(generated=9),
                                                             "r": ABSTAINED}),
             [("held", "unanswerable", "0 unsupported claims, budget 0")]),
            # must_abstain: no claims at all.
            (({"must_abstain": ("r",)}, {"q": counts(generated=2, supported=0), "r": ANSWERED}),
             [("broken", "r", "answered with 1 claim")]),
            (({"must_abstain": ("r",)}, {"r": ABSTAINED}), [("held", "r", "abstained")])]
        self.assertRows(outcomes, rows)

    def test_nothing_is_judged_without_a_baseline_or_by_a_rule_of_no_question(self):
        nothing = {"accepted": None, "broken": [], "held": [], "significance": None}
        baseline, none = "no baseline to compare with", "lists no question"
        self.assertRows(lambda policy, *baseline: judgement(policy, QUESTIONS, *baseline), [
            (({"critical": ("q",), "significance": {"metric": "recall", "alpha": 0.05}},), dict(
                nothing, unchecked=[("critical", baseline), ("significance", baseline)])),
            (({"critical": (), "must_abstain": (), "min_coverage": 1}, QUESTIONS), dict(
                nothing, unchecked=[("critical", none), ("min_coverage", none),
                                    ("must_abstain", none)]))])

    def test_significance_holds_when_the_metric_rises_with_p_below_alpha(self):
        def outcome(before, after, alpha=0.05, metric="coverage"):
            policy = {"significance": {"metric": metric, "alpha": alpha}}
            judged = judgement(policy, moved(after), moved(before))
            return [(held, detail) for held in ("held", "broken")  # on the answerable slice
                    for _, subject, detail in judged[held] if subject == "answerable"]
        detail, six = significance_detail, [0.0] * 6
        rows = [
            # Six questions all up: p = 2 / 2**6 = 1/32, below 0.05 but not below 0.03.
            ((six, [1.0] * 6), [("held", detail("+1.00", "1/32"))]),
            ((six, [1.0] * 6, 0.03), [("broken", detail("+1.00", "1/32", 0.03,
                                                         floor=(6, "1/32")))]),
            ((six, [1.0] * 6, 0.03125), [("held", detail("+1.00", "1/32", 0.03125))]),  # p <= alpha
            ((six, [1.0] * 6, 0.0313), [("held", detail("+1.00", "1/32", 0.0313))]),  # exact
            # All down: as rare, but the wrong way.
            (([1.0] * 6, six), [("broken", detail("-1.00", "1/32"))]),
            ((six, six), [("broken", detail("+0.00", "1"))]),
            # Five questions cannot show it at 0.05: 2 / 2**5 = 1/16.
            (([0.0] * 5, [1.0] * 5), [("broken", detail("+1.00", "1/16", pairs="5 of 5",
                                                        floor=(5, "1/16")))]),
            ((six, [1.0] * 6, 0.05, "precision"),  # retrieval did not move
             [("broken", detail("+0.00", "1", metric="precision"))]),
            (([None] * 3, [None] * 3, 0.05, "support"),  # no claim on either side: no pair
             [("broken", "support: no question has a value from both: nothing compared")])]
        self.assertRows(outcome, rows)

    def test_holm_compares_the_ith_smallest_of_m_p_values_with_alpha_over_m_minus_i_plus_1(self):
        seven_up = dict(SIX_UP, q6=counts(relevant=2, hits=2))  # p = 2 / 2**7 = 1/64
        policy = {"significance": {"metric": "recall", "alpha": 0.05}}

        def decided(*candidates):
            decisions = evaluate.report(counted(policy, HALF_FOUND, *candidates),
                                        summary=True)["summary"]["decisions"]
            return [(decision["accepted"], (strict["broken"] + strict["held"])[0][2])
                    for decision in decisions.values() for strict in (decision["strict"],)]

        def recall(mean, p, **keys):
            return significance_detail(mean, p, metric="recall", pairs="10 of 10", **keys)
        rows = [((SIX_UP,), [(True, recall("+0.30", "1/32"))]),
                ((SIX_UP, SIX_UP), [  # 1/32 is above 0.05 / 2: the second is not reached
                    (False, recall("+0.30", "1/32", step=(1, 2), level=0.025,
                                   floor=(6, "1/32"))),
                    (False, recall("+0.30", "1/32", step=(2, 2)) + ": not reached, as an "
                     "earlier p in Holm's order did not hold")]),
                ((SIX_UP, seven_up), [  # 1/64 first, below 0.025; then 1/32, below 0.05
                    (True, recall("+0.30", "1/32", step=(2, 2))),
                    (True, recall("+0.35", "1/64", step=(1, 2), level=0.025))])]
        self.assertRows(decided, rows)

    def test_a_sampled_p_too_close_to_the_level_to_call_is_broken(self):
        rng, ranks = random.Random(3), (1, 2, 3, 5, 7, 11, 13, 17, 19, 23)
        pairs = [rng.sample(ranks, 2) for index in range(37)]  # rr of 1/rank moves, 37 times
        before, after = ({"q%d" % index: counts(first_hit=pair[side])
                          for index, pair in enumerate(pairs)} for side in (0, 1))
        test = evaluate.paired_test(*({name: 1 / tally["first_hit"] for name, tally in
                                       tallies.items()} for tallies in (before, after)))
        self.assertEqual(test["method"], "sampled")  # no small unit to count the sums in
        p = float(test["p"])
        error = (p * (1 - p) / test["samples"]) ** 0.5  # the standard error of a sampled p
        upper = test["p_upper"]  # the p below which p is at 99.9% confidence

        def decided(level):
            policy = {"significance": {"metric": "rr", "alpha": level}}
            judged = judgement(policy, after, before, k=23)
            return (judged["accepted"], judged["significance"]["p"] == test["p"],
                    judged["broken"][-1][2].startswith("rr ") and judged["broken"][-1][2]
                    .endswith(": too close to call with 100000 draws") if judged["broken"]
                    else None)
        rows = [((p - 3 * error,), (False, True, False)), (((p + upper) / 2,), (False, True, True)),
                ((upper,), (True, True, None))]  # between p and its bound: broken
        self.assertRows(decided, rows)

    def test_the_declared_test_reads_the_answerable_slice_and_is_one_finding_of_many(self):
        policy = {"must_abstain": ("r",), "significance": {"metric": "support", "alpha": 0.5}}
        before = dict(moved([0.0] * 3), r=ABSTAINED)
        after = dict(moved([1.0] * 3), r=ANSWERED)  # r's support comes from n/a: not answerable
        judged = judgement(policy, after, before)
        self.assertEqual((judged["broken"], judged["held"]), (
            [("must_abstain", "r", "answered with 1 claim")],
            [("significance", "answerable", significance_detail("+1.00", "1/4", 0.5, "support",
                                                                "3 of 3"))]))
        self.assertEqual(judged["significance"]["p"], Fraction(1, 4))  # the test, for programs

    def test_a_report_tests_each_candidate_on_the_declared_metric_of_the_answerable_slice(self):
        def decided(data, metric):
            policy = dict(data["policy"], significance={"metric": metric, "alpha": 0.5})
            result = evaluate.report(dict(data, policy=policy), summary=True)
            values = [{question["case"]: row["scores"][metric]
                       for question in result["questions"] if question["answerable"]
                       for row in (question["systems"][system],)} for system in ("A", "B")]
            summary, test = result["summary"], evaluate.paired_test(*values)
            judged = summary["decisions"]["B"]["strict"]
            found = [outcome for outcome in ("held", "broken") for finding in judged[outcome]
                     if finding[0] == "significance"]
            return ({key: judged["significance"][key] for key in test} == test, found,
                    summary["policy"]["baseline_alone"]["strict"]["significance"])
        grades = {"rollback": 1, "checklist": 3}
        graded = dict(four_questions()["cases"], rollback=dict(CASE, grades=grades))
        rows = [((four_questions(), "coverage"), (True, ["held"], None)),  # p = 1/2 <= 0.5
                ((four_questions(cases=graded), "ndcg"), (True, ["held"], None)),  # 1/2
                ((counted(LOOSE, HALF_FOUND, SIX_UP), "recall"), (True, ["held"], None))]
        self.assertRows(decided, rows)

    def test_accepted_means_nothing_is_broken(self):
        judged = judgement(LOOSE, {"q": counts(generated=2), "r": ANSWERED})
        held = [("unsupported_budget", "answerable", "1 unsupported claim, budget 100"),
                ("unsupported_budget", "unanswerable", "1 unsupported claim, budget 100")]
        self.assertEqual(judged, {"accepted": True, "broken": [], "held": held, "unchecked": [],
                                  "significance": None})

    def test_a_rate_budget_decides_alike_on_few_questions_and_on_many(self):
        rules = {"unsupported_rate": {"answerable": 0.05}, "unsupported_budget": {"answerable": 5}}

        def decided(questions):  # one unsupported claim in 50, steadily
            candidate = {"q%d" % index: counts(generated=10, supported=10 - (index % 5 == 0),
                                               expected=10) for index in range(questions)}
            judged = judgement(rules, candidate)
            return {rule: (outcome, detail) for outcome in ("held", "broken")
                    for rule, _, detail in judged[outcome]}
        rate = "claims unsupported, rate at most 0.05"
        self.assertRows(decided, [
            ((25,), {"unsupported_rate": ("held", "5 of 250 " + rate),
                     "unsupported_budget": ("held", "5 unsupported claims, budget 5")}),
            ((50,), {"unsupported_rate": ("held", "10 of 500 " + rate),
                     "unsupported_budget": ("broken", "10 unsupported claims, budget 5")})])
        at_most = judgement({"unsupported_rate": {"answerable": 0.5}}, {"q": counts(generated=2)})
        self.assertEqual(at_most["held"], [("unsupported_rate", "answerable", "1 of 2 claims "
                                            "unsupported, rate at most 0.5")])  # at the rate

    def test_a_decision_needs_something_judged(self):
        data = four_questions(cases=undisclosing(), policy={"critical": ("launch",)})
        alone = evaluate.report(data, summary=True)["summary"]["policy"]["baseline_alone"]
        self.assertEqual([alone["accepted"], alone["strict"]["accepted"],
                          alone["lenient"]["accepted"]], [None] * 3)
        self.assertIn("baseline A checked alone: none, as no rule of the policy could be checked",
                      unwrapped(text_of(data, "--summary")).splitlines())

    def test_the_decision_takes_the_readings_its_plan_names(self):
        def accepted(plan, strict, loose):  # launch is critical, and only launch moves
            cases = undisclosing() if loose is not None else dict(unreviewed(), owner=dict(
                without_reviews(CASES["owner"]), restricted=()))
            runs = dict(four_questions()["runs"], launch={system: {
                "retrieved": ("launch",), "claims": claims}
                for system, claims in zip("AB", READ_AS[strict, loose])})
            decision = decision_of(four_questions(cases=cases, runs=runs, policy={
                "critical": ("launch",), "unresolved": plan}))
            lenient = decision["lenient"]
            return (decision["strict"]["accepted"], lenient and lenient["accepted"],
                    decision["accepted"])
        rows = [((plan, strict, loose), (strict, loose, all(
            strict if loose is None or name == "strict" else loose for name in takes)))
            for plan, takes in (("strict", ("strict",)), ("lenient", ("lenient",)),
                                ("both", ("strict", "lenient"))) for strict, loose in READ_AS]
        self.assertRows(accepted, rows)  # nothing disputed: the strict reading decides

    def test_each_fault_in_a_policy_raises_an_exact_message(self):
        rules = rules_named()  # as the module names them: the README's six, then any added
        six = ("('critical', 'min_coverage', 'must_abstain', 'unsupported_budget', "
               "'unsupported_rate', 'significance'")
        self.assertEqual(rules[:len(six)], six)

        def significance(**fields):
            return {"significance": dict({"metric": "coverage", "alpha": 0.05}, **fields)}
        loose = "{'unsupported_budget': {'answerable': 100, 'unanswerable': 100}}"
        share = 'applies to the questions of policy["critical"], and the policy has none: got '
        number = "expected a number from 0 to 1, got "
        slices = "expected a dict with one or both of the keys ('answerable', 'unanswerable'), got "
        budget = "expected an int from 0 to 1000000000, got "
        pair = 'policy["significance"]: expected a dict with the keys "metric" and "alpha", got '
        metric = 'policy["significance"]["metric"]: expected one of %s, got ' % TESTED
        alpha = 'policy["significance"]["alpha"]: expected a number above 0 to 0.5, got '
        plan = "policy[\"unresolved\"]: expected one of ('strict', 'lenient', 'both'), got "
        rows = [
            ([LOOSE], "policy: expected a dict, got [%s]" % loose),
            (Dict(LOOSE), "policy: expected a dict, got " + loose),  # a dict subclass
            ({1: 0}, "policy: expected keys that are str, got 1"),
            ({}, "policy: expected at least one of the rules %s, got {}" % rules),
            ({"unresolved": "both"}, "policy: expected at least one of the rules %s, got "
             "{'unresolved': 'both'}" % rules),  # a plan and no rule
            (dict(LOOSE, notes="x"), "policy: unknown rule 'notes'; the rules are %s, the "
             "settings ('tolerance', 'unresolved', 'silence')" % rules),
            (dict(LOOSE, tolerence=0.1), "policy[\"tolerence\"]: unknown key; did you mean "
             "'tolerance'?"),
            ({"min_coverage": 1.0}, 'policy["min_coverage"]: ' + share + "{'min_coverage': 1.0}"),
            ({"must_abstain": (), "tolerance": 0.1},
             'policy["tolerance"]: ' + share + "{'must_abstain': (), 'tolerance': 0.1}"),
            ({"critical": ("q",), "tolerance": 1.5}, 'policy["tolerance"]: ' + number + "1.5")]
        rows += [({rule: value}, 'policy["%s"]: %s' % (rule, message)) for rule, value, message in [
            ("critical", ["q"], "expected a tuple of question names, got ['q']"),
            ("critical", ("p",), "no question named 'p'"),
            ("critical", (Str("q"),), "expected question names, each a str, got 'q'"),
            ("critical", (401,), "expected question names, each a str, got 401"),
            ("critical", ("q", "q"), "expected distinct names, got ('q', 'q')"),
            ("critical", ("r",), "'r' is not an answerable question"),
            ("must_abstain", "r", "expected a tuple of question names, got 'r'"),
            ("must_abstain", ("s",), "no question named 's'"),
            ("must_abstain", ("q",), "'q' is not an unanswerable question"),
            ("unsupported_budget", [0, 0], slices + "[0, 0]"),
            ("unsupported_budget", {}, slices + "{}"),
            ("unsupported_budget", {"answerable": 0, "other": 0},
             slices + "{'answerable': 0, 'other': 0}"),
            ("unsupported_rate", {"all": 0.1}, slices + "{'all': 0.1}")]]
        rows += [({"critical": ("q",), "min_coverage": value},
                  'policy["min_coverage"]: ' + number + shown) for value, shown in [
            (1.01, "1.01"), (-0.5, "-0.5"), (True, "True"), ("1", "'1'"), (float("nan"), "nan")]]
        rows += [({"unsupported_budget": dict({"answerable": 0}, **{part: value})},
                  "policy[\"unsupported_budget\"]['%s']: %s%s" % (part, budget, value))
                 for part, value in [("answerable", True), ("unanswerable", -1),
                                     ("answerable", 10 ** 9 + 1), ("answerable", 1.0)]]
        rows += [
            ({"unsupported_rate": {"answerable": 2}},
             'policy["unsupported_rate"][\'answerable\']: ' + number + "2"),
            ({"significance": 0.05}, pair + "0.05"),
            ({"significance": {"metric": "recall"}}, pair + "{'metric': 'recall'}"),
            (significance(metric="abstention_correct"), metric + "'abstention_correct'"),
            (significance(metric=["rr"]), metric + "['rr']"),
            (significance(metric="ndcg"), metric + "'ndcg'"),  # no case has grades
            (significance(alpha=0), alpha + "0"), (significance(alpha=0.51), alpha + "0.51"),
            (significance(alpha="0.05"), alpha + "'0.05'"),
            (dict(LOOSE, unresolved="strictly"), plan + "'strictly'"),
            (dict(LOOSE, unresolved=["both"]), plan + "['both']")]
        self.assertRows(lambda policy: message_of(evaluate.report, {"data": counted(
            policy, QUESTIONS, QUESTIONS)}), [((policy,), message) for policy, message in rows])

    def test_nearest_valid_policies_are_accepted(self):
        data = counted(LOOSE, QUESTIONS, QUESTIONS)
        graded = dict(data, cases=dict(data["cases"], q=dict(data["cases"]["q"], grades={"d0": 2})))
        rows = [((dict(data, policy=policy),), None) for policy in [
            {"critical": ("q",), "must_abstain": ("r",)}, {"critical": ("q",)},
            {"critical": (), "min_coverage": 1.0, "must_abstain": ()},  # rules of no question
            {"critical": ("q",), "min_coverage": 1},
            {"critical": ("q",), "min_coverage": 0.0, "tolerance": 1},
            {"unsupported_budget": {"answerable": 0, "unanswerable": 0}},
            {"unsupported_budget": {"answerable": 0}},
            {"unsupported_budget": {"unanswerable": 10 ** 9}},
            {"unsupported_rate": {"answerable": 0, "unanswerable": 1.0}},
            {"significance": {"alpha": 0.5, "metric": "rr"}}] + [
            dict(LOOSE, unresolved=plan) for plan in ("strict", "lenient", "both")]]
        rows += [((dict(graded, policy={"significance": {"metric": "ndcg", "alpha": 5e-324}}),),
                  None), ((four_questions(),), None)]  # a tiny alpha; the fixture's policy
        self.assertRows(lambda data: message_of(evaluate.report, {"data": data}), rows)

    def test_a_disclosure_is_broken_whatever_the_policy_says(self):
        def disclosures(policy, candidate, baseline=None):
            judged = judgement(policy, candidate, baseline, k=3)  # room for two disclosed
            return judged["accepted"], [finding for finding in judged["broken"]
                                        if finding[0] == "disclosure"]
        disclosing = {"q": counts(disclosed=2), "r": dict(ABSTAINED, disclosed=1)}
        found = [("disclosure", "q", "2 restricted documents in the top k or cited"),
                 ("disclosure", "r", "1 restricted document in the top k or cited")]
        rows = [
            ((LOOSE, disclosing), (False, found)),                   # no baseline needed
            ((LOOSE, disclosing, disclosing), (False, found)),       # a baseline's excuses nothing
            (({"critical": ("q",)}, disclosing, QUESTIONS), (False, found)),
            ((LOOSE, QUESTIONS, disclosing), (True, []))]            # only the candidate's count
        self.assertRows(disclosures, rows)


# --- Deciding: the paired test --------------------------------------------------------

def brute_force_paired(before, after, groups=None):
    """paired_test() by trying every sign assignment, apart from evaluate.py, on Fractions,
    None or tuples of them; a group (None: its own) takes the mean of its questions'."""
    by_group, left_out = {}, 0
    for name in before:
        means = []
        for value in (before[name], after[name]):
            runs = [run for run in (value if type(value) is tuple else (value,)) if run is not None]
            means.append(sum(runs) / len(runs) if runs else None)
        if means[0] is None or means[1] is None:
            left_out += 1
        else:
            group = ("alone", name) if groups is None or groups[name] is None else groups[name]
            by_group[group] = by_group.get(group, []) + [means[1] - means[0]]
    differences = [sum(moved) / len(moved) for moved in by_group.values()]
    nonzero = [difference for difference in differences if difference != 0]
    unit = 1  # a common denominator, so that the sums below are of whole numbers
    for difference in nonzero:
        unit = unit * difference.denominator // math.gcd(unit, difference.denominator)
    whole = [int(difference * unit) for difference in nonzero]
    extreme = sum(abs(sum(sign * size for sign, size in zip(signs, whole))) >= abs(sum(whole))
                  for signs in itertools.product((1, -1), repeat=len(whole)))
    questions = [difference for moved in by_group.values() for difference in moved]
    unmatched = len([name for name in before if runs_in(before[name]) != runs_in(after[name])])
    return exact_test(len(before) - left_out, left_out=left_out, groups=len(differences),
                      mean=float(sum(differences) / len(differences)) if differences else None,
                      question_mean=float(sum(questions) / len(questions)) if questions
                      else None, wins=len([d for d in differences if d > 0]),
                      ties=differences.count(0), losses=len([d for d in differences if d < 0]),
                      p=Fraction(extreme, 2 ** len(nonzero)),
                      min_p=min(Fraction(1), Fraction(2, 2 ** len(nonzero))),
                      unmatched_runs=unmatched)


def runs_in(value):
    return len(value) if type(value) is tuple else 1


def random_paired_values(rng, questions):
    """Return (before, after) as a user's code computes them in floats, and the same as
    the exact Fractions they stand for: ratios of small counts, some n/a, some repeated."""
    def one_run():
        a, d = rng.randint(0, 12), rng.randint(1, 12)
        ways = [(None, None), (a / d, Fraction(a, d)), (1 - a / d, 1 - Fraction(a, d)),
                (0.1 * a, Fraction(a, 10)), (1 / (a + 1), Fraction(1, a + 1)),
                ((a / d + 1 / 3) / 2, (Fraction(a, d) + Fraction(1, 3)) / 2)]
        return rng.choice(ways)

    def one_question():
        if rng.random() < 0.3:  # repeated runs of the question
            runs = [one_run() for _ in range(rng.randint(1, 3))]
            return tuple(f for f, _ in runs), tuple(exact for _, exact in runs)
        return one_run()
    sides = [[one_question() for _ in range(questions)] for _ in "ab"]
    names = ["q%d" % index for index in range(questions)]
    floats = [dict(zip(names, (f for f, _ in side))) for side in sides]
    exact = [dict(zip(names, (e for _, e in side))) for side in sides]
    return floats, exact


BRUTE_FORCE_TRIALS = 60  # random inputs tried against brute force, and as many with groups
PLAIN = 0.123456789  # a float near no fraction of a small denominator: its multiples are sampled


def exact_test(questions, mean, wins, ties, losses, p, min_p, left_out=0, groups=None,
               question_mean="mean", unmatched_runs=0):
    """Return paired_test()'s result, keys in order, p exact (a group per question unless
    told, so that the question mean is the mean), but for normal_p (see apart())."""
    return {"questions": questions, "left_out": left_out,
            "groups": questions if groups is None else groups, "mean": mean,
            "question_mean": mean if question_mean == "mean" else question_mean, "wins": wins,
            "ties": ties, "losses": losses, "p": p, "p_upper": p,
            "p_shown": "p = %s (exact)" % evaluate.p_text(p), "min_p": min_p,
            "method": "exact", "samples": None,
            "unmatched_runs": unmatched_runs}


def apart(tested):
    """Return a paired test without normal_p, a float worked out by its own test."""
    return {key: value for key, value in tested.items() if key != "normal_p"}


def moved_from_zero(after, *keys, groups=None):
    """Return paired_test() of after against 0 for each question, or the values of keys."""
    tested = evaluate.paired_test(dict.fromkeys(after, 0), after, groups=groups)
    return tuple(tested[key] for key in keys) if keys else tested


# (metric): paired_test() of B against A on the answerable questions
EXPECTED_PAIRED = dict(
    dict.fromkeys(("precision", "recall", "rr"),
                  exact_test(3, mean=1 / 6, wins=1, ties=2, losses=0, p=1, min_p=1)),
    support=exact_test(3, mean=1 / 6, wins=1, ties=1, losses=1, p=1, min_p=Fraction(1, 2)),
    coverage=exact_test(3, mean=0.5, wins=2, ties=1, losses=0, p=Fraction(1, 2),
                        min_p=Fraction(1, 2)))


class PairedTest(TestCase):
    """paired_test() is an exact sign-flip test with the question as its unit."""

    def test_normal_p_is_the_normal_laws_two_sided_tail_at_the_sum(self):
        before, after = dict.fromkeys("abc", 0.0), {"a": 1.0, "b": 0.5, "c": -0.25}
        variance = 1 + 0.5 ** 2 + 0.25 ** 2  # the differences over the largest, squared
        self.assertEqual(evaluate.paired_test(before, after)["normal_p"],
                         math.erfc(1.25 / math.sqrt(2 * variance)))
        self.assertEqual(evaluate.paired_test(before, before)["normal_p"], 1.0)  # none moved

    def test_fixture_differences_from_a_to_b(self):
        a, b = fixture_scores("A"), fixture_scores("B")
        tested = {metric: apart(evaluate.paired_test(
            {name: a[name][metric] for name in ANSWERABLE},
            {name: b[name][metric] for name in ANSWERABLE})) for metric in EXPECTED_PAIRED}
        self.assertSnapshot(tested, EXPECTED_PAIRED, "EXPECTED_PAIRED")

    def test_agrees_with_brute_force_on_the_fractions_that_floats_stand_for(self):
        # With groups, a group's mean difference takes one sign; None is a group of its own.
        rng, rows = random.Random(20261202), []
        for trial in range(2 * BRUTE_FORCE_TRIALS):
            floats, exact = random_paired_values(rng, questions=rng.randint(0, 6 + trial % 2 * 3))
            groups = None if trial % 2 == 0 else {name: rng.choice((
                "chat-1", "chat-2", "chat-3", name, None)) for name in floats[0]}
            rows.append((tuple(floats) + (groups,), brute_force_paired(*exact, groups=groups)))
        self.assertRows(lambda before, after, groups: apart(evaluate.paired_test(
            before, after, groups=groups)), rows)
        turns = {"t1": "chat", "t2": "chat", "t3": "chat"}  # one conversation: one pair
        alone = dict.fromkeys(turns)  # no group named: each question a group of its own
        rows = [((turns,), (3, 1, 1)), ((alone,), (3, 3, Fraction(1, 4))),
                ((dict(alone, t1="t2"),), (3, 3, Fraction(1, 4)))]  # a group named t2 is not t2
        self.assertRows(lambda groups: moved_from_zero(dict.fromkeys(turns, 1), "questions",
                                                       "groups", "p", groups=groups), rows)

    def test_small_inputs_give_exact_counts_means_and_p(self):
        def tested(before, after, *keys):
            result = apart(evaluate.paired_test(before, after))
            return tuple(result[key] for key in keys) if keys else result
        largest, four = 1.7976931348623157e308, ("a", "b", "c", "d")
        twenty = {"q%d" % index: 1 / (index + 7) for index in range(20)}  # 20 wins
        rows = [
            # Repeated runs are averaged within their question: four pairs, never twelve.
            ((dict.fromkeys(four, (0.0, 0.5, 0.25)), dict.fromkeys(four, (1.0, 0.5, 0.75)),
              "questions", "wins", "p", "min_p", "mean"),
             (4, 4, Fraction(1, 8), Fraction(1, 8), 0.5)),
            (({"a": None, "b": (None, None), "c": 0.5, "d": (0.0, None)},  # n/a leaves a
              {"a": 1.0, "b": 1.0, "c": None, "d": (None, 1.0)}),  # question out, counted
             exact_test(1, mean=1.0, wins=1, ties=0, losses=0, p=1, min_p=1, left_out=3,
                        unmatched_runs=1)),  # b, d: 1 run vs 2
            # 0.3 - 0.1 is 0.19999999999999998 in floats but 1/5 exactly, like 0.2 - 0.0:
            # flipping the first two cancels them, and that sum ties with the observed one.
            (({"a": 0.1, "b": 0.2, "c": 0.0}, {"a": 0.3, "b": 0.0, "c": 0.5}, "p"),
             (Fraction(3, 4),)),
            (({"a": (0.1, 0.2)}, {"a": 0.15}, "ties"), (1,)),  # runs average exactly: a tie
            # Differences that sum to zero give p of one.
            (({"a": 0, "b": 0.5, "c": 1}, {"a": 0.5, "b": 0, "c": 1},
              "wins", "ties", "losses", "p", "min_p"), (1, 1, 1, 1, Fraction(1, 2))),
            # Few moved questions are exact whatever their values: 3162/3163 and 3468/3469
            # have no small common unit, and the four sign assignments of two are listed.
            (({"a": 0, "b": 0}, {"a": 3162 / 3163, "b": -3468 / 3469}, "p", "method"),
             (1, "exact")),
            ((dict.fromkeys(twenty, 0), twenty, "p", "method"), (Fraction(2, 2 ** 20), "exact")),
            # A mean beyond every float is an infinity; the largest float is none.
            (({"a": -largest}, {"a": largest}, "mean"), (float("inf"),)),
            (({"a": largest}, {"a": -largest}, "mean"), (float("-inf"),)),
            (({"a": 0}, {"a": largest}, "mean"), (largest,))]
        self.assertRows(tested, rows)
        tested = evaluate.paired_test({"x": 0.0, "y": 0.0}, {"x": 0.5, "y": 1.0})
        self.assertEqual((tested["p"], type(tested["p"]), tested["min_p"], type(tested["min_p"])),
                         (Fraction(1, 2), Fraction, Fraction(1, 2), Fraction))  # exact fractions

    def test_a_float_is_read_as_the_fraction_that_ordinary_arithmetic_meant(self):
        # Two values tie when they are read as one fraction: a float within 64 units in the
        # last place of a fraction of denominator at most a million is read as it.
        third = 2 ** -54  # the unit in the last place of 1/3
        rows = [((1 - 2 / 3, 1 / 3), 1), ((1 - 1 / 3, 2 / 3), 1), ((0.1 * 3, 0.3), 1),
                ((0.7 + 0.2, 0.9), 1), ((1 - 99 / 100, 0.01), 1),  # 5 units off, cancelled
                (((1 / 3 + 1 / 7 + 2 / 9) / 3, (1 / 3 + 1 / 7 + 2 / 9) / 3 + 2 ** -55), 1),
                ((1 / 10 ** 6, 1 / 10 ** 6 + 2 ** -72), 1),  # 1/1000000, a unit apart
                ((1 / 1000001, 1 / 1000001 + 2 ** -72), 0),  # no denominator up to a million
                ((PLAIN, PLAIN + 2 ** -56), 0),            # no fraction that close: as they are
                ((1 / 3 + 64 * third, 1 / 3), 1), ((1 / 3 + 65 * third, 1 / 3), 0),  # 64 units
                ((0.5 + 64 * 2 ** -53, 0.5), 1), ((-(1 - 2 / 3), -1 / 3), 1),  # below 0 too
                ((5e-324, 0.0), 1), ((64 * 5e-324, 0.0), 1), ((65 * 5e-324, 0.0), 0)]  # from 0
        self.assertRows(lambda x, y: evaluate.paired_test({"a": x}, {"a": y})["ties"], rows)
        # A large value has many such fractions within 64 units: the nearest is taken, as
        # the mean of its difference from a whole number shows to 16 digits.
        mean = evaluate.paired_test({"a": 4064829}, {"a": 4064829.9789556614})["mean"]
        self.assertEqual(mean, float(Fraction(3900582393996, 959593) - 4064829))

    def test_at_most_36_moved_units_are_listed_exactly_whatever_their_values(self):
        # 1/(p - 1) for 36 primes p near a million: no small common unit, so the 2**36 sign
        # assignments are listed (each half's sums met in the middle); 37 moved are sampled.
        primes = [p for p in range(990000, 1000000) if all(p % d for d in range(2, 1000))]
        moved = {"q%d" % index: (-1) ** index / (prime - 1)
                 for index, prime in enumerate(primes[:37])}
        listed = {name: moved[name] for name in list(moved)[:36]}
        rows = [((listed,), ("exact", None)), ((moved,), ("sampled", 100000))]
        self.assertRows(lambda after: moved_from_zero(after, "method", "samples"), rows)
        # Eleven pairs that cancel, each the mean of twelve runs over primes near a million:
        # a common unit of over 2,200 bits, sampled however few moved. So fine a unit is not
        # summed in: the mean is the floats', near the exact one, and an infinity past the
        # largest float.
        pairs = {"q%d" % index: tuple((-1) ** index / primes[12 * (index // 2) + run]
                                      for run in range(12)) for index in range(22)}
        self.assertEqual(moved_from_zero(pairs, "method", "p"), ("sampled", 1))
        mean = moved_from_zero(dict(pairs, big=1e300), "mean")[0]
        self.assertTrue(abs(mean - 1e300 / 23) <= 1e-12 * mean, mean)
        largest = 1.7976931348623157e308
        for sign in (1, -1):
            tested = evaluate.paired_test(dict(dict.fromkeys(pairs, 0), big=-sign * largest),
                                          dict(pairs, big=sign * largest))
            self.assertEqual((tested["method"], tested["mean"]), ("sampled", sign * math.inf))

    def test_the_same_data_in_any_order_gives_the_same_result(self):
        rng = random.Random(5)
        shapes = [{"q%d" % i: rng.choice((-1, 1)) * rng.random() for i in range(18)},  # listed
                  {"q%d" % i: rng.randint(-3, 3) for i in range(60)},                  # counted
                  {"q%d" % i: rng.choice((-1, 1)) * rng.random() for i in range(60)},  # sampled
                  {"q%d" % i: rng.randint(-3, 3) * PLAIN for i in range(60)}]         # by size
        for after in shapes:
            groups = {name: rng.choice(("g1", "g2", None)) for name in after}
            names = list(after)
            rng.shuffle(names)
            again = {name: after[name] for name in names}
            for grouped in (None, groups):
                self.assertEqual(moved_from_zero(after, groups=grouped),
                                 moved_from_zero(again, groups=grouped))

    def test_more_moved_questions_are_counted_exactly_within_22_million_steps(self):
        # All up by 600011 but one down by d, in whole units: counting takes sums of 0 to d for
        # each moved question, a step weighing 2 past a thousand moved. Past 22 million: sampled.
        def method(moved, down):
            after = dict.fromkeys(("q%d" % index for index in range(moved - 1)), 600011)
            return moved_from_zero(dict(after, down=-down), "method", "samples")
        rows = [((100, 219999), ("exact", None)),      # 100 x 220,000 = 22,000,000 steps
                ((100, 220000), ("sampled", 100000)),  # 22,000,100
                ((1000, 21999), ("exact", None)),      # 1,000 x 22,000 x 1 = 22,000,000
                ((1001, 10988), ("exact", None)),      # 1,001 x 10,989 x 2 = 21,999,978
                ((1001, 10989), ("sampled", 59940))]  # 22,001,980; 60,000,000 // 1,001 draws
        self.assertRows(method, rows)

    def test_sampled_p_values_are_pinned_and_near_the_exact_p(self):
        # Whole numbers are counted exactly; times PLAIN they are sampled, from a seed the
        # data fixes, so the p is the same everywhere, within sampling error of the exact
        # p, and below its bound at 99.9% (p_upper): 40 moved of 4 sizes; 110 up and 106
        # down by one size; 39 sizes and a fifth size to 40.
        def sampled(whole):
            exact, tested = moved_from_zero(whole), moved_from_zero(
                {name: value * PLAIN for name, value in whole.items()})
            p, exact_p = float(tested["p"]), float(exact["p"])
            error = (exact_p * (1 - exact_p) / 100000) ** 0.5
            return (exact["method"], tested["method"], tested["samples"], tested["p"],
                    tested["wins"], tested["losses"], abs(p - exact_p) <= 4 * error + 1 / 100001,
                    exact_p <= tested["p_upper"])
        sizes = {"q%d" % index: (index % 4 + 1) * (-1 if index % 3 == 0 else 1)
                 for index in range(40)}
        two = dict(dict.fromkeys(("u%d" % index for index in range(110)), 1),
                   **dict.fromkeys(("d%d" % index for index in range(106)), -1))
        plain = {"q%d" % index: (-1) ** index * index for index in range(40)}  # 39 sizes, a tie
        rows = [((sizes,), (9391, 26, 14)), ((dict(sizes, q40=5),), (6006, 27, 14)),
                ((two,), (83843, 110, 106)), ((plain,), (89529, 19, 20))]
        self.assertRows(sampled, [(whole, ("exact", "sampled", 100000, Fraction(count, 100001),
                                           wins, losses, True, True))
                                  for whole, (count, wins, losses) in rows])

    def test_each_fault_in_the_values_raises_an_exact_message(self):
        def message(before, after, groups=None):
            return message_of(evaluate.paired_test, {"before": before, "after": after,
                                                     "groups": groups})
        number = "expected a number, None or a tuple of 1 to 100 of them, got "
        by_name, questions = "expected a dict by question name, got ", "expected the questions of "
        questions += "before ('a',), got "
        rows = [
            (([0.5], {}), "before: " + by_name + "[0.5]"),
            (({}, None), "after: " + by_name + "None"),
            (({"a": 0.5}, {"b": 0.5}), "after: " + questions + "('b',)"),
            (({"a": 0.5}, {"a": True}), "after['a']: " + number + "True"),
            (({"a": 0.5}, {"a": float("-inf")}), "after['a']: " + number + "-inf"),
            (({"a": ()}, {"a": 0.5}), "before['a']: " + number + "()"),
            (({"a": (0.5,) * 101}, {"a": 0.5}), "before['a']: " + number + shown((0.5,) * 101)),
            (({"a": 0}, {"a": 0}, ["a"]), "groups: " + by_name + "['a']"),
            (({"a": 0}, {"a": 0}, {"b": "g"}), "groups: " + questions + "('b',)"),
            (({"a": 0}, {"a": 0}, {"a": "my chat"}),
             "groups['a']: invalid name 'my chat'" + NAME_RULE),
            (({"a": 0}, {"a": (0.5, -10 ** 309)}),  # beyond the largest float
             "after['a']: " + number + shown((0.5, -10 ** 309))),
        ] + [(({"a": bad}, {"a": 0.5}), "before['a']: " + number + shown(bad)) for bad in (
            "0.5", float("nan"), float("inf"), [0.5], ((0.5,),), Fraction(1, 2))]
        self.assertRows(message, rows)

    def test_nearest_valid_values_are_accepted_and_left_unchanged(self):
        rows = [(({"a": 0}, {"a": 1}), 1), (({"a": -2.5}, {"a": 1e9}), 1),  # any finite number
                (({"a": (0.5,)}, {"a": 0.5}), 1), (({"a": (0.5,) * 100}, {"a": 0.5}), 1),  # runs
                (({"a": 1, "b": 2}, {"b": 2, "a": 1}), 2),    # the same questions in another order
                (({"a": -1.7976931348623157e308}, {"a": 10 ** 308}), 1),  # within a float's range
                (({"a": 0}, {"a": 1}, {"a": None}), 1)]       # a group of its own
        self.assertRows(lambda before, after, groups=None: evaluate.paired_test(
            before, after, groups=groups)["questions"], rows)
        values = ({"a": (0.1, None), "b": 0.5}, {"a": 0.2, "b": (0.5, 0.75)}, {"a": "g", "b": None})
        copies = copy.deepcopy(values)
        evaluate.paired_test(*values[:2], groups=values[2])
        self.assertEqual(values, copies)  # left as they were


# --- One place for a measure ---------------------------------------------------------

def first_relevant(case, run, k):
    """A measure of a maintainer's: 1.0 when the first document is relevant."""
    if not case["relevant"]:
        return None
    top = run["retrieved"][:1]
    return float(bool(top) and top[0] in case["relevant"])


class OnePlace(TestCase):
    """A measure is one entry of MEASURES: the report takes it everywhere."""

    def test_all_lists_every_public_name_of_the_module_and_nothing_else(self):
        public = sorted(name for name, value in vars(evaluate).items() if not
                        name.startswith("_") and type(value) is not type(os))  # no module
        self.assertEqual(sorted(evaluate.__all__), public)

    def test_a_measure_added_to_measures_reaches_rows_means_tests_policy_and_text(self):
        evaluate.MEASURES["first"] = {"label": "first@1", "value": first_relevant,
                                      "n/a": "nothing is labelled relevant"}
        try:
            data = four_questions(policy={"significance": {"metric": "first", "alpha": 0.5}})
            result = evaluate.report(data, summary=True)
            text = demo.rendered(result, {"--summary": True})
        finally:
            del evaluate.MEASURES["first"]
        summary, owner = result["summary"], result["questions"][2]["systems"]
        self.assertEqual((owner["A"]["scores"]["first"], owner["B"]["scores"]["first"]),
                         (0.0, 1.0))  # archive, then owners; owners first
        self.assertEqual(summary["means"]["answerable"]["first"]["B"]["mean"], 1.0)
        test = summary["comparisons"][0]["paired_tests"]["first"]
        self.assertEqual((test["wins"], test["p"]), (1, 1))
        held = summary["decisions"]["B"]["strict"]["significance"]["p"]
        self.assertEqual((result["measures"][-1], held), ("first", 1))
        self.assertIn("| first@1 |", text)


# --- Real judgements: graded relevance, answers not made or not labelled ---------------

GRADED = {"relevant": ("rollback", "checklist", "owners"), "support": None,
          "grades": {"rollback": 3, "checklist": 2, "owners": 1}}


def qrels_only(questions=6):
    """Return a data set of graded relevance and retrieval runs alone: no answer anywhere."""
    # The original documents by name, so that questions a student adds change nothing here.
    rng, names = random.Random(5), ["archive", "checklist", "launch", "owners", "rollback"]
    cases, runs = {}, {}
    for index in range(questions):
        relevant = tuple(rng.sample(names, rng.randint(1, 3)))
        cases["q%d" % index] = {"relevant": relevant, "support": None,
                                "grades": {doc_id: rng.randint(1, 4) for doc_id in relevant}}
        runs["q%d" % index] = {system: {"retrieved": tuple(rng.sample(names, 3)), "claims": None}
                               for system in "AB"}
    return dict(demo.fixture_data(), cases=cases, runs=runs, k=3,
                policy={"critical": ("q0",), "min_coverage": 1, "must_abstain": (),
                        "unsupported_budget": {"answerable": 0}})


class RealJudgements(TestCase):
    """Graded relevance gives nDCG@k; with no answer or no labels, retrieval alone is scored."""

    def test_without_a_corpus_every_document_a_label_or_run_names_is_known_and_no_other(self):
        case = {"relevant": None, "support": {"c": ("s",), "e": ("s",), "f": ("z",)},
                "disputed": {"x": ("t",)}, "restricted": ("u",)}  # t, u, z: named there alone
        run = {"retrieved": ("s",), "claims": (("c", ("s",)), ("x", ("t",)),
                                               ("e", ("s", "w")), ("f", ("z",)))}
        data = {"k": 2, "systems": ("A",), "cases": {"q": case}, "runs": {"q": {"A": run}}}
        found = evaluate.report(data, explain=True)["questions"][0]["systems"]["A"]["explain"]
        self.assertEqual(found["claims"], (("c", None), ("x", "outside the top k"),
                                           ("e", "not in the corpus"), ("f", "outside the top k")))

    def test_measures_says_when_each_measure_is_n_a_and_it_is(self):
        unanswerable = inputs(case=CASES["region"], run=NOTHING)  # nothing relevant or expected
        said = {"nothing is labelled relevant": unanswerable, "no claim is expected":
                unanswerable, "the answer has no claim, or nothing judges it": run_input(
                    claims=()), "a claim is expected": inputs()}
        for name in METRICS + ["ndcg"]:  # a measure added later says its own
            with self.subTest(name=name, said=evaluate.MEASURES[name]["n/a"]):
                arguments = said[evaluate.MEASURES[name]["n/a"]]
                values = dict(evaluate.evaluate(**arguments), ndcg=evaluate.ndcg(**arguments))
                self.assertIsNone(values[name])

    def test_ndcg_divides_the_discounted_gain_by_that_of_the_best_order(self):
        run = {"retrieved": ("checklist", "archive", "rollback"), "claims": None}
        nothing = {"retrieved": ("archive",), "claims": None}
        ungraded = {key: value for key, value in GRADED.items() if key != "grades"}  # grade 1
        # At k = 3: 2/log2(2) + 0 + 3/log2(4) over 3/log2(2) + 2/log2(3) + 1/log2(4).
        rows = [((GRADED, run, 3), 3.5 / (3.5 + 2 / math.log2(3))), ((GRADED, run, 1), 2 / 3),
                ((ungraded, run, 2), 1 / (1 + 1 / math.log2(3))),
                ((GRADED, nothing, 2), 0.0), ((CASES["region"], nothing, 2), None)]
        self.assertRows(lambda case, run, k: evaluate.ndcg(CORPUS, case, run, k=k), rows)
        self.assertEqual(evaluate.ndcg(CORPUS, GRADED, run), 2 / (3 + 2 / math.log2(3)))  # k=2
        for bad, field in (({"corpus": {}}, "corpus"), ({"case": []}, "case")):  # as evaluate()
            self.assertEqual(fault_of(evaluate.ndcg, inputs(**bad), field, bad[field]), "ok")

    def test_ndcg_agrees_with_an_oracle_written_apart(self):
        def oracle(grades, retrieved, k):  # in plain loops: each gain over log2(rank + 1)
            gained, best, ideal = 0.0, 0.0, sorted(grades.values(), reverse=True)
            for rank in range(1, k + 1):
                if rank <= len(retrieved):
                    gained += grades.get(retrieved[rank - 1], 0) / math.log2(rank + 1)
                if rank <= len(ideal):
                    best += ideal[rank - 1] / math.log2(rank + 1)
            return round(gained / best, 12) if grades else None  # over that of the best order
        rng, names, rows = random.Random(29), sorted(SWEEP_CORPUS), []
        for trial in range(300):
            relevant = tuple(rng.sample(names, rng.randint(0, 4)))
            case = {"relevant": relevant, "support": None,
                    "grades": {doc_id: rng.randint(1, 4) for doc_id in relevant}}
            run = {"retrieved": tuple(rng.sample(names, rng.randint(0, 4))), "claims": None}
            k = rng.choice((1, 2, 3, 5))
            rows.append(((case, run, k), oracle(case["grades"], run["retrieved"], k)))
        self.assertRows(lambda case, run, k: None if not case["relevant"] else round(
            evaluate.ndcg(SWEEP_CORPUS, case, run, k=k), 12), rows)

    def test_qrels_and_runs_alone_score_retrieval_and_judge_no_answer(self):
        result = evaluate.report(qrels_only(), summary=True)
        rows = [question["systems"][system] for question in result["questions"] for system in "AB"]
        self.assertEqual({(row["scores"]["support"], row["scores"]["coverage"],
                           row["scores"]["abstention_correct"], type(row["scores"]["ndcg"]))
                          for row in rows},
                         {(None, None, None, float)})  # nDCG a value, never n/a: all answerable
        decided = result["summary"]["decisions"]["B"]
        self.assertEqual(decided["strict"]["unchecked"], [
            ("min_coverage", "no answer judged against labels"),
            ("must_abstain", "lists no question"),
            ("unsupported_budget", "no answer judged against labels")])
        self.assertEqual({finding[0] for outcome in ("broken", "held")
                          for finding in decided["strict"][outcome]}, {"critical"})
        self.assertIn("ndcg", result["summary"]["comparisons"][0]["paired_tests"])
        mean = math.fsum(row["scores"]["ndcg"] for row in rows[1::2]) / 6
        self.assertEqual(result["summary"]["means"]["answerable"]["ndcg"]["B"], {
            "mean": mean, "averaged": 6, "total": 6})

    def test_the_floor_is_held_against_the_policys_alpha_and_must_be_below_it(self):
        def floor(alpha):  # three answerable questions: p is at least 2 / 2**3
            policy = {"significance": {"metric": "coverage", "alpha": alpha}} if alpha else None
            found = summary_of(policy=policy)["comparisons"][0]["floor"]
            return found["p"], found["level"], found["below_level"]
        self.assertRows(floor, [((None,), (Fraction(1, 4), 0.05, False)),
                                ((0.25,), (Fraction(1, 4), 0.25, False)),
                                ((0.3,), (Fraction(1, 4), 0.3, True))])

    def test_groups_take_one_sign_each_and_the_summary_counts_them(self):
        cases = {name: dict(case, group="one") if name in ("launch", "rollback") else case
                 for name, case in four_questions()["cases"].items()}
        summary = summary_of(cases=cases)
        tested = summary["comparisons"][0]["paired_tests"]["coverage"]
        self.assertEqual((summary["groups"], tested["questions"], tested["groups"]), (3, 3, 2))
        self.assertEqual(summary["comparisons"][0]["floor"]["p"], Fraction(1, 2))  # 2 groups
        trio = dict(cases, owner=dict(cases["owner"], group="one"))  # one, and region alone
        self.assertEqual(summary_of(cases=trio)["groups"], 2)
        self.assertIn("summary of fixtures.py: 4 questions in 3 groups (3 answerable), k = 2, "
                      "baseline A, candidates: B",
                      text_of(four_questions(cases=cases), "--summary").splitlines())


# --- The demo -----------------------------------------------------------------------

def table_text(rows):
    """Return the table demo.py prints for rows of EXPECTED_SCORES, formatted apart from it."""
    def shown(value):
        return "n/a" if value is None else "%.2f" % value if type(value) is not bool else (
            "yes" if value else "no")
    lines = ["case system | P@2 R@2 RR@2 support coverage abstention"]
    lines += ["%s %s | %s" % (name, system, " ".join(map(shown, values)))
              for (name, system), values in rows]
    return "\n".join(lines) + "\n"


# The four original questions, as demo.py prints them.
EXPECTED_TABLE = table_text((pair, EXPECTED_SCORES[pair]) for pair in
                            [(name, system) for name in FOUR for system in "AB"])

EXPECTED_EXPLAIN = EXPECTED_TABLE + """\

each unsupported claim with the first rule it breaks, each expected claim left uncovered, and \
each restricted document disclosed
launch B | claim bonus unsupported: only a disputed label supports it
rollback A | expected claim smoke not covered
owner A | claim aurora unsupported: not a labelled source
owner A | expected claim aurora not covered
owner A | restricted document archive disclosed
owner B | restricted document archive disclosed
region A | claim region unsupported: judged unsupported

claims nobody has labelled, rejected or disputed: the next round of reviewing
none

labels that no run uses, a typo perhaps (optional, disputed or rejected)
none
"""

EXPECTED_SUMMARY = """\
B against A: not accepted, first: disclosure owner (1 restricted document in the top k or \
cited), and 2 more broken
summary of fixtures.py: 4 questions (3 answerable), k = 2, baseline A, candidates: B

per-question change from A to B on the 4 questions both ran
launch: regressed (support 1.00 -> 0.50)
rollback: improved (P@2 0.50 -> 1.00, R@2 0.50 -> 1.00, coverage 0.50 -> 1.00)
owner: improved (RR@2 0.50 -> 1.00, support 0.00 -> 1.00, coverage 0.00 -> 1.00)
region: improved (support 0.00 -> n/a, abstention no -> yes)
totals: 3 improved, 1 regressed, 0 mixed, 0 unchanged, 0 not judged

answerable slice: launch, rollback, owner
macro mean (questions averaged, of 3) | P@2 | R@2 | RR@2 | support | coverage | support pooled
A | 0.50 (3) | 0.83 (3) | 0.83 (3) | 0.67 (3) | 0.50 (3) | 2/3 = 0.67
B | 0.67 (3) | 1.00 (3) | 1.00 (3) | 0.83 (3) | 1.00 (3) | 4/5 = 0.80

unanswerable slice: region
macro mean (questions averaged, of 1) | support | support pooled | abstention correct (no \
value to average: P@2, R@2, RR@2, coverage)
A | 0.00 (1) | 0/1 = 0.00 | 0/1
B | n/a (0) | 0/0 = n/a | 1/1

tag:lookup slice: launch, owner, region
macro mean (questions averaged, of 3) | P@2 | R@2 | RR@2 | support | coverage | support \
pooled | abstention correct
A | 0.50 (2) | 1.00 (2) | 0.75 (2) | 0.33 (3) | 0.50 (2) | 1/3 = 0.33 | 0/1
B | 0.50 (2) | 1.00 (2) | 1.00 (2) | 0.75 (2) | 1.00 (2) | 2/3 = 0.67 | 1/1

answerable slice, lenient reading (disputed labels count as support): launch, rollback, owner
macro mean (questions averaged, of 3) | P@2 | R@2 | RR@2 | support | coverage | support pooled
A | 0.50 (3) | 0.83 (3) | 0.83 (3) | 0.67 (3) | 0.50 (3) | 2/3 = 0.67
B | 0.67 (3) | 1.00 (3) | 1.00 (3) | 1.00 (3) | 1.00 (3) | 5/5 = 1.00
disputed labels: launch: bonus <- launch

n/a rule: a macro mean skips questions without a value and says how many it averaged; n/a \
never counts as 0.

paired sign-flip test against A on the answerable slice (each question is one pair)
B | P@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact)
B | R@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact)
B | RR@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact)
B | support | mean +0.17 (3 of 3) | wins 1, ties 1, losses 1 | p = 1 (exact)
B | coverage | mean +0.50 (3 of 3) | wins 2, ties 1, losses 0 | p = 1/2 (exact)
with 3 questions, this sign-flip test's p is at least 1/4 even if all of them moved: it \
cannot reach p < 0.05

restricted documents disclosed (in the top k or cited)
A | owner: archive
B | owner: archive

acceptance policy
baseline A checked alone | broken disclosure owner (1 restricted document in the top k or cited)
baseline A checked alone | broken min_coverage owner (coverage 0/1, minimum 1)
baseline A checked alone | broken must_abstain region (answered with 1 claim)
baseline A checked alone | broken unsupported_budget answerable (1 unsupported claim, budget 0)
baseline A checked alone | broken unsupported_budget unanswerable (1 unsupported claim, \
budget 0)
baseline A checked alone | not checked: critical (no baseline to compare with)
baseline A checked alone: not accepted, first: disclosure owner (1 restricted document in \
the top k or cited), and 4 more broken
B against A | broken disclosure owner (1 restricted document in the top k or cited)
B against A | broken critical launch (regressed: support 1.00 -> 0.50) [strict reading only]
B against A | broken unsupported_budget answerable (1 unsupported claim, budget 0) [strict \
reading only]
B against A: not accepted, first: disclosure owner (1 restricted document in the top k or \
cited), and 2 more broken
"""

USAGE = demo.USAGE
ORPHANS_HEADING = "labels that no run uses, a typo perhaps (optional, disputed or rejected)"


def lines_after(text, heading, count):
    lines = text.splitlines()
    start = lines.index(heading) + 1
    return lines[start:start + count]


class Demo(TestCase):
    """python demo.py prints the per-question table, byte for byte, and more on request."""

    def test_demo_prints_each_row_exactly_and_with_gate_exits_with_3_from_any_folder(self):
        status, out, err = demo_output()
        pairs = [(name, system) for name in CASES for system in "AB"]
        self.assertEqual([line.split(" | ")[0] for line in out.splitlines()[1:]],
                         ["%s %s" % pair for pair in pairs])
        missing = [pair for pair in pairs if pair not in EXPECTED_SCORES]
        if missing:
            self.skipTest("EXPECTED_SCORES has no row for %s yet" % ", ".join(map(repr, missing)))
        expected = table_text((pair, EXPECTED_SCORES[pair]) for pair in pairs)
        self.assertSnapshot(out, expected, "EXPECTED_SCORES")
        self.assertEqual((status, out, err), (0, expected, ""))
        process = demo_process("--gate")  # B discloses the archive note: not accepted
        verdicts = demo_output("--summary")[1].split("\nsummary of")[0] + "\n"
        self.assertEqual(process.communicate() + (process.returncode,),  # line ends too
                         (expected.encode("ascii"), verdicts.encode("ascii"), 3))

    def test_the_four_original_questions_print_their_table_summary_and_explanations(self):
        untagged = {key: value for key, value in CASES["rollback"].items() if key != "tags"}
        data = four_questions(cases=dict(four_questions()["cases"], rollback=untagged,
                                         owner=dict(CASES["owner"], tags=("lookup",))))
        for options, expected, name in (
                ((), EXPECTED_TABLE, "EXPECTED_SCORES"),
                (("--summary",), EXPECTED_SUMMARY, "EXPECTED_SUMMARY"),
                (("--explain",), EXPECTED_EXPLAIN, "EXPECTED_EXPLAIN"),
                (("--explain", "--summary"), EXPECTED_EXPLAIN + "\n" + EXPECTED_SUMMARY, "both")):
            with self.subTest(options=options):
                self.assertSnapshot(text_of(data, *options), expected, name)
        self.assertEqual(demo_output("--summary", "--explain"), demo_output("--explain",
                                                                            "--summary"))
        self.assertEqual(demo_output("--summary")[::2], (0, ""))  # and no table

    def test_gate_prints_what_the_other_options_print_and_says_why_on_standard_error(self):
        verdicts = demo_output("--summary")[1].split("\nsummary of")[0] + "\n"  # its first lines
        self.assertRows(lambda *options: demo_output("--gate", *options), [
            (options, (3, demo_output(*options)[1], verdicts))
            for options in ((), ("--summary",), ("--explain", "--json"))])

    def test_the_summary_lists_only_the_changed_questions_and_shows_a_mean_of_none_as_na(self):
        runs = {name: dict(RUNS[name], B=RUNS[name]["A"]) for name in FOUR}
        runs["owner"] = RUNS["owner"]  # only owner changes from A to B
        self.assertEqual(lines_after(text_of(four_questions(runs=runs), "--summary"),
                                     "per-question change from A to B on the 4 questions both "
                                     "ran",
                                     2), [
            "owner: improved (RR@2 0.50 -> 1.00, support 0.00 -> 1.00, coverage 0.00 -> 1.00)",
            "totals: 1 improved, 0 regressed, 0 mixed, 3 unchanged, 0 not judged"])
        runs = {name: dict(RUNS[name], A=NOTHING) for name in FOUR}  # A answers nothing at all
        self.assertIn("B | support | no question has a value from both: nothing compared",
                      text_of(four_questions(runs=runs), "--summary").splitlines())
        # A question whose only change is n/a on one side is listed, though unchanged.
        runs = {name: dict(RUNS[name], B=RUNS[name]["A"]) for name in FOUR}
        runs["launch"] = dict(RUNS["launch"], B=dict(RUNS["launch"]["A"], claims=None))
        self.assertIn("launch: not judged (support 1.00 -> n/a, "
                      "coverage 1.00 -> n/a)", text_of(four_questions(runs=runs), "--summary"))

    def test_a_slice_names_the_questions_that_fit_and_an_empty_one_is_one_line(self):
        names = ["question-%d" % index for index in range(12)]
        self.assertIn("answerable slice: question-0, question-1, question-2, question-3, "
                      "question-4, ... (12 in all)",
                      text_of(four_questions(cases=dict.fromkeys(names, CASES["rollback"]), runs=(
                          dict.fromkeys(names, RUNS["rollback"])), policy=None), "--summary"))
        out = text_of(four_questions(cases={name: CASES[name] for name in ANSWERABLE},
                                     runs={name: RUNS[name] for name in ANSWERABLE}, policy=None),
                      "--summary")
        self.assertEqual(lines_after(out, "B | 0.67 (3) | 1.00 (3) | 1.00 (3) | 0.83 (3) | "
                                          "1.00 (3) | 4/5 = 0.80", 3),
                         ["", "no unanswerable questions", ""])
        self.assertEqual([line for line in out.splitlines()
                          if "unanswerable slice" in line or "of 0)" in line], [])

    def test_labels_that_no_run_uses_are_listed_as_a_typo_perhaps(self):
        cases = dict(four_questions()["cases"],
                     launch=dict(CASES["launch"], optional={"extra": ("launch",)},
                                 support={"monday": ("launch",), "window": ("launch",)}),
                     rollback=dict(CASES["rollback"], rejected=("smokes",)),
                     owner=dict(CASES["owner"], disputed={"aurora-team": ("owners",)}))
        result = evaluate.report(four_questions(cases=cases), summary=True, explain=True)
        orphans = [("launch", "extra"), ("rollback", "smokes"), ("owner", "aurora-team")]
        self.assertEqual(result["orphan_labels"], orphans)  # not bonus nor region, made by B
        # and A; nor window, which no run states but is expected (the fixture lists none)
        out = text_of(four_questions(cases=cases), "--summary", "--explain")
        self.assertEqual(lines_after(out, ORPHANS_HEADING, 4), [
            "launch: claim extra", "rollback: claim smokes", "owner: claim aurora-team", ""])

    def test_help_prints_usage_and_an_option_not_understood_is_one_line_and_status_2(self):
        lab = "--exercise goes with --lab FOLDER, and --lab with no other option"
        trec = "--qrels FILE goes with --run FILE, and --k and --policy with them"
        wrong = {("--sumary", "-h"): "'--sumary' is not an option",
                 ("--summary", "--summary"): "'--summary' is given twice",
                 ("--summary", "extra"): "'extra' is not an option", ("--data", "-h"):
                     "'--data' needs a path", ("summary",): "'summary' is not an option",
                 ("--data", "a.json", "--data", "b.json"): "'--data' is given twice",
                 ("--gate", "--gate"): "'--gate' is given twice", ("--exercise",): lab,
                 ("--lab", "x", "--summary"): lab, ("--lab", "x", "--data", "a"): lab,
                 ("--qrels", "q"): trec, ("--k", "5"): trec, ("--run", "r", "--run", "s"): trec,
                 ("--qrels", "q", "--run", "r", "--run", "s", "--data", "a"):
                     "--data and --qrels exclude each other",
                 ("--qrels", "q", "--run", "r", "--k", "x"): "--k needs a whole number, not 'x'",
                 ("--qrels", "q", "--run", "r", "--k", "5" * 5000):
                 "--k needs a cutoff from 1 to 1000, not '%s" % ("5" * 79),
                 ("--qrels", "q", "--run", "r", "--k", "0" * 5000): "--k needs a cutoff from 1 "
                 "to 1000, not '%s" % ("0" * 79), ("--qrels", "q", "--run", "r", "--k", "1001"):
                 "--k needs a cutoff from 1 to 1000, not '1001'"}
        said = "demo.py: %s; python demo.py --help lists the options\n"
        rows = [(("-h",), (0, USAGE, "")), (("--help",), (0, USAGE, "")),
                (("--lab", "x", "--help"), (0, USAGE, ""))]
        rows += [(arguments, (2, "", said % why)) for arguments, why in wrong.items()]
        self.assertRows(demo_output, rows)

    @unittest.skipUnless(os.path.exists(os.path.join(HERE, "LICENSE")) and os.path.exists(
        README), "the lab is cut from README.md and LICENSE too, which a handout leaves out")
    def test_the_lab_is_written_into_a_new_folder_and_never_over_anything(self):
        with tempfile.TemporaryDirectory() as scratch:
            lab, mine = os.path.join(scratch, "lab"), os.path.join(scratch, "notes.txt")
            status, out, err = demo_output("--lab", lab, "--exercise")
            self.assertEqual((status, err, sorted(os.listdir(lab))), (0, "", [
                "LICENSE", "README.md", "demo.py", "evaluate.py", "fixtures.py",
                "test_evaluate.py"]))
            with open(mine, "w") as file:
                file.write("mine")
            for path in (lab, mine):
                before = sorted(os.listdir(scratch)), sorted(os.listdir(lab))
                status, out, err = demo_output("--lab", path)
                self.assertEqual((status, out, err.count("\n")), (1, "", 1), err)
                self.assertEqual((sorted(os.listdir(scratch)), sorted(os.listdir(lab))), before)

    def test_a_fault_in_the_fixture_is_named_without_a_traceback(self):
        bad = {"retrieved": ("owners",), "claims": (("aurora", "owners"),)}
        status, out, err = demo_output(runs=runs_with("owner", A=RUNS["owner"]["A"], B=bad))
        prefix = "fixtures.py: case 'owner', system 'B': run[\"claims\"][0][1]: "
        self.assertEqual((status, out, err[:len(prefix)], err.count("\n"), shown("owners") in err),
                         (1, "", prefix, 1, True))  # the contract's words may differ


# The keys of the JSON report, in order: the README's schema.
REPORT_KEYS = "source k systems notes measures questions review_queue orphan_labels summary".split()
QUESTION_KEYS, POLICY_KEYS = ["case", "answerable", "systems"], ["rules", "baseline_alone"]

ROW_KEYS = ["scores", "counts", "repeats", "runs", "lenient", "explain"]
SUMMARY_KEYS = ("slices not_run means disputed_labels lenient_means trec_eval_means comparisons "
                "disclosures policy groups decisions accepted").split()
MEANS_KEYS = METRICS[:5] + ["pooled_support", "correct_abstentions"]
COMPARISON_KEYS = ("baseline candidate manifest_changes shared changes totals "
                   "paired_tests floor decision").split()
DECISION_KEYS = ["plan", "accepted", "strict", "lenient", "depends_on", "findings"]
JUDGED_KEYS = ["accepted", "broken", "held", "unchecked", "significance"]
PAIRED_KEYS = ("questions left_out groups mean question_mean wins ties losses p "
               "p_upper p_shown min_p method samples normal_p "
               "unmatched_runs silent_questions silent_runs slice_means").split()
SIGNIFICANCE_KEYS = PAIRED_KEYS + ["level", "step", "steps", "earlier_steps_held"]


class JsonReport(TestCase):
    """demo.py --json writes the report as one JSON document, for programs."""

    def report(self, *options, data=None):
        text = text_of(data or four_questions(), "--json", *options)
        self.assertEqual(text.count("\n"), 1)  # one line, one document
        return json.loads(text)

    def test_the_keys_come_in_the_documented_order(self):
        report = self.report("--summary", "--explain")
        row = report["questions"][0]["systems"]["A"]  # launch, whose labels are disputed
        summary, comparison = report["summary"], report["summary"]["comparisons"][0]
        significance = dict(POLICY, significance={"metric": "coverage", "alpha": 0.05})
        judged = self.report("--summary", data=four_questions(policy=significance))["summary"][
            "decisions"]["B"]["strict"]
        rows = [(report, REPORT_KEYS), (report["questions"][0], QUESTION_KEYS), (row, ROW_KEYS),
                (row["scores"], METRICS), (row["counts"], COUNTS), (summary, SUMMARY_KEYS),
                (summary["means"]["answerable"], MEANS_KEYS), (comparison, COMPARISON_KEYS),
                (comparison["decision"], DECISION_KEYS), (summary["policy"], POLICY_KEYS),
                (comparison["decision"]["lenient"], JUDGED_KEYS), (judged, JUDGED_KEYS),
                (comparison["paired_tests"]["coverage"], PAIRED_KEYS),
                (judged["significance"], SIGNIFICANCE_KEYS)]
        self.assertEqual([list(part) for part, keys in rows], [keys for part, keys in rows])
        status, out, err = demo_output("--json")  # one line, with the table's values
        self.assertEqual((status, err, out.count("\n"), json.loads(out)["questions"][0]["systems"][
            "B"]["scores"]), (0, "", 1, dict(zip(METRICS, EXPECTED_SCORES[("launch", "B")]))))
        plain = self.report()  # every key is there; what was not asked for is null
        row = plain["questions"][1]["systems"]["A"]  # rollback: not disputed, one run
        self.assertEqual((list(plain), plain["source"], plain["review_queue"],
                          plain["orphan_labels"], plain["summary"], row["lenient"],
                          row["explain"], row["repeats"], row["runs"]),
                         (REPORT_KEYS, "fixtures.py", None, None, None, None, None, 1, None))

    def test_it_holds_what_report_returns_with_lists_for_tuples_and_numbers_for_fractions(self):
        for summary, explain in itertools.product((False, True), repeat=2):
            returned = evaluate.report(four_questions(), summary=summary, explain=explain)
            options = ("--summary",) * summary + ("--explain",) * explain
            self.assertEqual(self.report(*options), json.loads(json.dumps(returned, default=float)))
        summary = self.report("--summary")["summary"]
        comparison = summary["comparisons"][0]
        self.assertEqual(summary["decisions"], {"B": comparison["decision"]})  # by candidate too
        self.assertEqual({type(test[key]).__name__ for test in comparison["paired_tests"].values()
                          for key in ("p", "min_p", "mean", "p_upper")}, {"float"})

    def test_the_options_of_a_report_are_a_str_and_two_flags(self):
        rows = [(({"source": b"runs.json"},), "source: expected a str, got b'runs.json'"),
                (({"summary": "yes"},), "summary: expected True or False, got 'yes'"),
                (({"explain": 1},), "explain: expected True or False, got 1")]
        self.assertRows(lambda options: message_of(evaluate.report, dict(
            options, data=four_questions())), rows)
        plain = evaluate.report(four_questions())  # neither summary nor explanations
        self.assertEqual([plain[key] for key in ("review_queue", "orphan_labels", "summary")] +
                         [plain["questions"][0]["systems"]["B"]["explain"]], [None] * 4)


# --- Your own data: demo.py --data FILE.json --------------------------------------------

FIXTURE_AS_JSON = {"k": 2, "systems": ["A", "B"], "corpus": CORPUS,
                   "cases": demo.fixture_data()["cases"], "runs": RUNS, "policy": POLICY}
DATA_KEYS = "('k', 'systems', 'corpus', 'cases', 'runs', 'policy', 'manifests', 'notes')"


def data_with(**changes):
    return dict(FIXTURE_AS_JSON, **changes)


def rollback_b(runs):
    return data_with(runs=dict(RUNS, rollback=dict(RUNS["rollback"], B=runs)))


class DataFileCase(TestCase):
    """A test with a data file of its own to write, for demo.py --data."""

    def setUp(self):
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "runs.json")

    def write(self, data):
        """Write data as JSON (or text, or bytes, as they are) to the file; return its path."""
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(self.path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as file:
            file.write(data if isinstance(data, (str, bytes)) else json.dumps(data))
        return self.path

    def refusal(self, data=None, path=None):
        """Return what demo.py --data says of data written to the file, or of path."""
        status, out, err = demo_output("--data", path or self.write(data), "--summary")
        self.assertEqual((status, out), (1, ""))
        return err


class DataFile(DataFileCase):
    """demo.py --data reads a JSON file that mirrors fixtures.py, and names every fault."""

    def test_a_file_that_mirrors_the_fixture_prints_what_the_fixture_does(self):
        path = self.write(FIXTURE_AS_JSON)
        for options in ((), ("--summary",), ("--explain",), ("--gate",)):
            with self.subTest(options=options):
                status, out, err = demo_output(*options)
                out = out.replace("summary of fixtures.py", "summary of " + path)
                self.assertEqual(demo_output("--data", path, *options), (status, out, err))
        expected = json.loads(demo_output("--json", "--summary")[1])
        expected["source"] = path
        self.assertEqual(json.loads(demo_output("--data", path, "--json", "--summary")[1]),
                         expected)
        self.assertEqual(demo_output("--summary", "--data", path),
                         demo_output("--data", path, "--summary"))

    def test_the_cutoff_is_two_unless_the_file_gives_it_and_the_systems_come_from_it(self):
        data = {"systems": ["A", "B"], "corpus": CORPUS, "cases": four_questions()["cases"],
                "runs": four_questions()["runs"]}
        self.assertEqual(demo_output("--data", self.write(data)), (0, EXPECTED_TABLE, ""))
        data = dict(data, k=1, systems=["B", "A"])  # no policy, no decision
        status, out, err = demo_output("--data", self.write(data), "--explain", "--summary")
        self.assertEqual((status, err, out.splitlines()[:2], "acceptance policy" in out), (
            0, "", ["case system | P@1 R@1 RR@1 support coverage abstention",
                    "launch B | 1.00 1.00 1.00 0.50 1.00 n/a"], False))
        self.assertIn("per-question change from B to A on the 4 questions both ran", out)

    def test_gate_exits_with_3_unless_the_policy_accepts_every_candidate(self):
        accepting = four_questions(policy={"must_abstain": ["region"]}, cases=undisclosing())
        three = dict(accepting, systems=["A", "B", "C"], runs={
            name: dict(RUNS[name], C=RUNS[name]["A"]) for name in FOUR})

        def gate(data):  # the table on standard output, as ever; why on standard error
            status, out, err = demo_output("--data", self.write(data), "--gate")
            return status, err, out == demo_output("--data", self.path)[1]
        self.assertRows(gate, [
            ((accepting,), (0, "B against A: accepted\n", True)),
            ((three,), (3, "B against A: accepted\nC against A: not accepted, first: "
                           "must_abstain region (answered with 1 claim)\n", True)),
            ((dict(accepting, policy=None),), (3, "B against A: none, as the data has no "
                                                  "policy\n", True))])

    def test_repeated_runs_are_read_as_a_tuple_and_shown_run_by_run(self):
        twice = (RUNS["rollback"]["B"], RUNS["rollback"]["A"])
        path = self.write(rollback_b(twice))
        self.assertEqual(evaluate.load_data(path)["runs"]["rollback"]["B"], twice)
        self.assertEqual(demo_output("--data", path)[1].splitlines()[3:6], [
            "rollback A | 0.50 0.50 1.00 1.00 0.50 n/a", "rollback B#1 | 1.00 1.00 1.00 1.00 "
            "1.00 n/a", "rollback B#2 | 0.50 0.50 1.00 1.00 0.50 n/a"])

    def test_each_fault_in_a_file_is_one_line_naming_the_file_and_the_place(self):
        invalid, long, utf8 = "is not valid JSON: ", "1" * 101, "is not UTF-8 text: invalid "
        note = "data: unknown key 'extra'; the keys are " + DATA_KEYS  # read, then refused
        digits = invalid + "an integer of more than 100 digits, "
        deep, repeated = "is nested more than 64 deep", "data: repeated key '%s' in one object"
        rollback, repeats = "case 'rollback', system 'B': ", "expected 1 to 100 repeated runs, got "
        unknown = dict(RUNS["rollback"]["B"], retrieved=["zeta"])
        of_a_and_b = "manifests: expected an object with the keys ('A', 'B'), got "

        def nested(depth):  # limited the same way on every CPython: 64 deep, with the object
            return '{"k": 2, "extra": %s}' % ("[" * depth + '"x"' + "]" * depth)

        def manifests(field, a, b):
            return ("manifests: \"%s\" must be the same for every system, got %s for 'A' and %s "
                    "for 'B'" % (field, a, b))
        rows = [
            ('{"k": 2,\n "systems": ["A" "B"]}', invalid + "Expecting ',' delimiter (line 2, "
                                                           "column 18)"),
            ('{"k": 2,\n "systems": ["A', invalid + "Unterminated string starting at (line 2, "
                                                    "column 14)"),
            (b'{"k": 2,\n "question": "\xff"}', utf8 + "start byte at byte 23"),  # from byte 0
            (b'{"a": "\xc3"}', utf8 + "continuation byte at byte 7"),
            ('{"extra": ' + "9" * 100 + "}", note),  # 100 digits are read; 101 are not
            ('{"k": 2, "y": %s,\n "x": -%s}' % ("9" * 100, long),
             digits + "-1111111111111111111..."),
            ('{"x": "%s", "y": 0.%s,\n "z": %s}' % (long, long, long),  # in a string: no integer
             digits + "11111111111111111111..."),
            ('{"k": 2, "corpus": ["NaN",\n NaN]}', invalid + "NaN is not a JSON number (line 2, "
                                                 "column 2)"),
            ('{"k": -Infinity}', invalid + "-Infinity is not a JSON number (line 1, column 7)"),
            ("\ufeff{}", invalid + "Unexpected UTF-8 BOM (decode using utf-8-sig) (line 1, "
                                   "column 1)"),
            ('{"k": {"a": 1, "b": 2,\n "b": 3}}', repeated % "b"),
            ('{"a": 1, "\\u0061": 2}', repeated % "a"),  # the same key to JSON
            ('[{"a": 1}, {"a": 2}]', "data: expected an object with the keys %s, got ({'a': 1}, "
                                     "{'a': 2})" % DATA_KEYS),
            (nested(63), note), (nested(64), deep), ("[" * 100000 + "]" * 100000, deep),
            (nested(64).replace('"x"', ""), deep), (nested(63).replace('"x"', "{}"), deep),
            ("[%s{}]" % ("[], " * 3000000), "holds more than 3000000 arrays and objects, "
                                             "the most read"),  # each costs memory, read
            ('{"extra": "%s"}' % ("[{" * 1500001), note),  # brackets in a string are none
            ('{"extra": {%s}}' % ", ".join('"%d": 0' % n for n in range(1000001)),
             "holds an object of more than 1000000 keys, the most read"),
            (data_with(cases=dict(CASES, region=dict(CASES["region"], **dict.fromkeys(
                map(str, range(99991)), 0)))), "cases: expected at most 100000 keys in all, "
             "got 100001"),
            (data_with(cases=dict.fromkeys(map(str, range(100001)), CASES["region"])),
             "cases: expected at most 100000 questions for 2 systems, got 100001"),
            (data_with(systems=list("ABCDEFGHIJKLMNOPQRSTU"), cases=dict.fromkeys(map(
                str, range(95239)), CASES["region"])), "cases: expected at most 95238 "
             "questions for 21 systems, got 95239"),
            (data_with(cases={"q%d" % n: CASES["region"] for n in range(75001)}, runs={
                "q%d" % n: RUNS["region"] for n in range(75001)}), "runs: expected at most "
             "150000 runs scored in all (a lenient reading scores a run again), got 150002"),
            (data_with(polcy=POLICY), "data: unknown key 'polcy'; the keys are " + DATA_KEYS),
            ({key: value for key, value in FIXTURE_AS_JSON.items() if key != "runs"},
             "data: missing the key 'runs'"),
            (data_with(systems=[]), "systems: expected a list of 1 to 100 names, got ()"),
            (data_with(systems=["A", "B", "B"]), "systems: repeated name 'B'"),
            (data_with(cases=dict(CASES, **{"my q": CASES["region"]}), runs=dict(
                RUNS, **{"my q": RUNS["region"]})), "cases: invalid name 'my q'" + NAME_RULE),
            (data_with(cases=cases_with("launch", disputes={})),
             "case 'launch': case[\"disputes\"]: unknown key; did you mean 'disputed'?"),
            (rollback_b([]), rollback + "runs: " + repeats + "()"),
            (data_with(manifests={"A": {"permissions": "p1"}, "B": {}}),
             manifests("permissions", "'p1'", "None")),  # given for one system only
            (data_with(manifests=[1]), of_a_and_b + "(1,)"),
            (data_with(manifests={"A": {}, "C": {}}), of_a_and_b + "{'A': {}, 'C': {}}"),
            (data_with(manifests={"A": {}, "B": []}),
             "manifests['B']: expected an object of strings, got ()"),
            (data_with(manifests={"A": {}, "B": {"corpus": "v1", "seed": 7}}),
             "manifests['B']['seed']: expected a string, got 7"),
            (data_with(manifests={"A": {}, "B": {"model name": "m"}}),
             "manifests['B']: invalid name 'model name'" + NAME_RULE),
            # A fault the contract finds: its place, field and value; its words may differ.
            (rollback_b(unknown), (rollback, 'run["retrieved"]', "zeta")),
            (rollback_b([RUNS["rollback"]["B"], unknown]),
             (rollback[:-2] + ", run 2: ", 'run["retrieved"]', "zeta")),
            (data_with(cases=cases_with("owner", restricted=["owners"])),
             ("case 'owner': ", 'case["restricted"]', "owners")),
        ] + [(data_with(manifests={"A": {field: "v1", "model": "m"}, "B": {field: "v2"}}),
              manifests(field, "'v1'", "'v2'"))
             for field in ("corpus", "questions", "permissions", "rubric")] + [
            (data_with(systems=["A", name]), "systems: invalid name " + shown(name) + NAME_RULE)
            for name in (1, "", "B\ud800")]

        def fault(data, expected):
            err = self.refusal(data)
            if isinstance(expected, str):
                return err == "%s: %s\n" % (self.path, expected) or err
            start = "%s: %s%s: " % (self.path, *expected[:2])
            return (err.count("\n"), err[:len(start)], shown(expected[2]) in err) == (
                1, start, True) or err
        self.assertRows(fault, [((data, expected), True) for data, expected in rows])

    def test_load_data_takes_only_a_path_and_leaves_open_files_alone(self):
        rows = [((value,), "path: expected the path of a file, got %r" % (value,))
                for value in (0, 1, 2, True, None, 1.5, [self.path])]
        self.assertRows(lambda value: message_of(evaluate.load_data, {"path": value}), rows)
        for descriptor in (0, 1, 2):  # still open
            os.fstat(descriptor)
        for name in ("a\0b", b"a\0b", "\ud800"):  # a NUL or a lone surrogate names no file
            self.assertRegex(message_of(evaluate.load_data, {"path": name}) or "",
                             "^cannot be read: ", ascii(name))
        import pathlib
        self.assertEqual(evaluate.load_data(pathlib.Path(self.write(FIXTURE_AS_JSON)))["k"], 2)

    def test_each_candidate_is_compared_with_the_baseline_as_in_a_file_of_the_two(self):
        three = data_with(systems=["A", "B", "C"],
                          runs={name: dict(runs, C=runs["A"] if name == "region" else runs["B"])
                                for name, runs in RUNS.items()})
        path = self.write(three)
        self.assertEqual(demo_output("--data", path)[1].splitlines()[1:4], [
            "launch A | 0.50 1.00 1.00 1.00 1.00 n/a", "launch B | 0.50 1.00 1.00 0.50 1.00 n/a",
            "launch C | 0.50 1.00 1.00 0.50 1.00 n/a"])  # a row for each system
        together = json.loads(demo_output("--data", path, "--json", "--summary")[1])
        alone = [json.loads(demo_output("--data", self.write(dict(three, systems=[
            "A", candidate], runs={name: {system: runs[system] for system in ("A", candidate)}
                                   for name, runs in three["runs"].items()})), "--json",
            "--summary")[1]) for candidate in "BC"]
        self.assertEqual(together["summary"]["comparisons"],
                         [each["summary"]["comparisons"][0] for each in alone])

    def test_manifests_show_each_field_that_changed_or_that_nothing_did(self):
        def manifest_part(before, after):
            data = data_with(manifests={"A": before, "B": after})
            return demo_output("--data", self.write(data), "--summary")[1].split("\n\n")[
                1].splitlines()[1:]
        rows = [(({"corpus": "v1", "model": "m1"}, {"corpus": "v1", "model": "m2"}),
                 ["model: 'm1' -> 'm2'"]),
                (({"model": "m1", "prompt": "p1"}, {"model": "m2", "date": "2026-12-01"}),
                 ["model: 'm1' -> 'm2'", "prompt: 'p1' -> None", "date: None -> '2026-12-01'",
                  "3 things changed at once: which of them made the difference is unknown; "
                  "change one at a time"]),
                (({"rubric": "r1", "model": "m"}, {"rubric": "r1", "model": "m"}),
                 ["nothing changed"]),
                (({"model": "Llama\u2011 3"}, {"model": "m"}),     # printed in ASCII
                 ["model: 'Llama\\u2011 3' -> 'm'"])]
        self.assertRows(manifest_part, rows)


def many_runs(repeats, systems=("A", "B")):
    """Return data of a question per count, run that many times by each system; the first
    names an unknown document, so that data within every cap is refused for it."""
    run = {"retrieved": (), "claims": None}
    cases = {"q%d" % index: {"relevant": ("launch" if index else "zeta",), "support": None}
             for index in range(len(repeats))}
    runs = {name: dict.fromkeys(systems, (run,) * count) for name, count in zip(cases, repeats)}
    return {"k": 2, "systems": systems, "corpus": CORPUS, "cases": cases, "runs": runs}


def split_runs(**ran):
    """Return the four questions' runs, each question run by the systems named for it."""
    return {name: {system: RUNS[name][system] for system in systems}
            for name, systems in ran.items()}


def grouped_coverage(rising, falling):
    """Return data in which B covers one more claim of 3 than A on `rising` questions, each a
    group of its own, and one fewer on `falling` questions that share one group."""
    before = [counts(generated=3, expected=3, supported=0)] * rising + [
        counts(generated=3, expected=3, supported=3)] * falling
    after = [counts(generated=3, expected=3, supported=3)] * rising + [
        counts(generated=3, expected=3, supported=2)] * falling
    data = counted({"significance": {"metric": "coverage", "alpha": 0.05}},
                   *(dict(zip(numbered("q", rising + falling), side)) for side in (before,
                                                                                    after)))
    data["cases"] = {name: dict(case, group="g" if index >= rising else name)
                     for index, (name, case) in enumerate(data["cases"].items())}
    return data


class RealLogs(DataFileCase):
    """Data as real logs come: no relevance labels, runs missing, nothing paired, thousands of
    changes, worse candidates, groups and repeated runs."""

    def test_a_file_may_leave_out_its_corpus_which_then_holds_the_documents_named(self):
        data = {"systems": ["A"], "cases": {"q1": {"relevant": ["MARCO_D1"], "support": {
            "c": ["MARCO_D1"]}, "optional": {"d": ["7067032"]}}}, "runs": {"q1": {"A": {
                "retrieved": ["MARCO_D1"], "claims": [["c", ["MARCO_D1"]], ["d", ["KILT_9"]]]}}}}
        row = evaluate.report(evaluate.load_data(self.write(data)), explain=True)[
            "questions"][0]["systems"]["A"]
        self.assertEqual((row["scores"]["support"], row["explain"]["claims"]), (
            0.5, (("c", None), ("d", "not in the corpus"))))

    def test_answers_judged_without_relevance_labels_have_no_retrieval_values(self):
        case = dict(JUDGED, relevant=None)
        data = four_questions(cases=dict(undisclosing(), launch=case))
        row = evaluate.report(data)["questions"][0]["systems"]["B"]["scores"]
        self.assertEqual(row, {"precision": None, "recall": None, "rr": None, "support": 0.5,
                               "coverage": None, "abstention_correct": None})
        graded = {"relevant": None, "support": {"monday": ("launch",)}}
        self.assertEqual([evaluate.ndcg(CORPUS, graded, RUNS["launch"]["A"]),
                          evaluate.evaluate(CORPUS, graded, RUNS["launch"]["A"])["coverage"]],
                         [None, 1.0])

    def test_past_10_candidates_each_is_tested_on_the_declared_measure_alone(self):
        declared = {"significance": {"metric": "support", "alpha": 0.05}}
        for count, tested in ((10, ["precision", "recall", "rr", "support", "coverage"]),
                              (11, ["support"])):
            names = tuple("B%d" % index for index in range(count))
            runs = {name: dict(A=RUNS[name]["A"], **dict.fromkeys(names, RUNS[name]["B"]))
                    for name in FOUR}
            comparisons = summary_of(systems=("A",) + names, runs=runs,
                                     policy=declared)["comparisons"]
            with self.subTest(count=count):
                self.assertEqual([list(compared["paired_tests"]) for compared in comparisons],
                                 [tested] * count)

    def test_a_question_a_candidate_did_not_run_counts_as_its_lowest_value(self):
        three = four_questions(systems=("A", "B", "C"), runs=dict(four_questions()["runs"], **{
            name: dict(RUNS[name], C=RUNS[name]["A"]) for name in ("launch", "rollback")}))
        result = evaluate.report(three, summary=True)
        summary = result["summary"]
        self.assertEqual(summary["not_run"]["C"], {"count": 2, "cases": ["owner", "region"]})
        self.assertEqual([compared["shared"] for compared in summary["comparisons"]], [4, 2])
        late = dict(three, runs=dict(three["runs"], launch=RUNS["launch"], owner=dict(
            RUNS["owner"], C=RUNS["owner"]["A"])))  # C runs all but the first question
        recall = summary_of(**late)["comparisons"][1]["paired_tests"]["recall"]
        self.assertEqual((recall["questions"], recall["silent_questions"], recall["losses"]),
                         (3, ["launch"], 1))  # launch too, as recall 0: silence is never a gain
        self.assertIsNone(result["questions"][2]["systems"]["C"])
        two = evaluate.report(four_questions(), summary=True)
        for row, alone in zip(result["questions"], two["questions"]):
            del row["systems"]["C"]
            self.assertEqual(row, alone)
        self.assertEqual(summary["comparisons"][0], two["summary"]["comparisons"][0])
        self.assertIn("not run by C: 2 questions (owner, region)", text_of(three, "--summary"))

    def test_a_candidate_that_answers_less_is_refused_naming_what_it_left_unanswered(self):
        full, half = ({"retrieved": ["d"], "claims": [[c, ["d"]] for c in claims]}
                      for claims in (("c1", "c2"), ("c1",)))
        none, blank = ({"retrieved": ["d"], "claims": claims} for claims in (None, []))
        test = {"significance": {"metric": "coverage", "alpha": 0.05}}
        ten = ["q%d" % index for index in range(10)]
        rows = [  # name: (questions, A's runs and B's by question index, policy, named)
            ("CE1, a critical question unanswered", ["q1"], lambda i: (full, none),
             {"critical": ["q1"], "min_coverage": 1.0}, "critical q1"),
            ("CE2, questions not run", ten, lambda i: (half, full) if i < 6 else (full,),
             test, "(q6, q7, q8, q9)"),
            ("CE3, answers withheld", ten, lambda i: (half, full) if i < 6 else (full, none),
             test, "4 questions the candidate did not run or answer in every run (q6, q7, q8, q9)"),
            ("CE4, repeated runs unanswered", ten[:6], lambda i: ([half] * 3,
                                                                 [full, none, none]),
             test, "(q0, q1, q2, q3, q4, q5) count as its lowest value"),
            ("CE5, empty answers to answerable questions", ten,
             lambda i: (half, half) if i < 6 else (full, blank),
             {"significance": {"metric": "support", "alpha": 0.05}},
             "(q6, q7, q8, q9) count as its lowest value")]
        for name, questions, runs, policy, named in rows:
            data = {"systems": ["A", "B"], "policy": policy,
                    "cases": dict.fromkeys(questions, {"relevant": ["d"],
                                                       "support": {"c1": ["d"], "c2": ["d"]}}),
                    "runs": {question: dict(zip("AB", runs(index)))
                             for index, question in enumerate(questions)}}
            with self.subTest(name), tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "data.json")
                with open(path, "w") as file:
                    json.dump(data, file)
                status, out, err = demo_output("--data", path, "--gate")
                self.assertEqual((status, err.startswith("B against A: not accepted")),
                                 (3, True))
                self.assertIn(named, err)
                data["policy"] = dict(policy, silence="skipped")  # said so, not counted
                with open(path, "w") as file:
                    json.dump(data, file)
                if "significance" in policy:
                    self.assertIn(") are left out, as the policy says",
                                  demo_output("--data", path, "--summary")[1])
        empty, silent = ({"retrieved": ("d",), "claims": claims} for claims in ((), None))
        withheld = {"k": 1, "systems": ("A", "B"), "policy": {"must_abstain": ("u",)},
                    "cases": {"u": {"relevant": (), "support": {}}},
                    "runs": {"u": {"A": (empty, empty), "B": (empty, silent)}}}
        self.assertIn("must_abstain u (1 run without an answer)",  # silence is no abstention
                      evaluate.gate_text(evaluate.report(withheld, summary=True)))

    def test_the_questions_a_system_did_not_run_are_counted_and_the_first_ten_named(self):
        names = ["q%02d" % index for index in range(12)]
        for unrun in (10, 11):
            data = {"k": 1, "systems": ("A", "B"), "corpus": {"d": "A note."}, "policy": None,
                    "cases": {name: {"relevant": ("d",), "support": None} for name in names},
                    "runs": {name: {"A": NOTHING, "B": NOTHING} if index >= unrun else
                             {"A": NOTHING} for index, name in enumerate(names)}}
            with self.subTest(unrun=unrun):
                self.assertEqual(summary_of(**data)["not_run"]["B"], {
                    "count": unrun, "cases": names[:10]})

    def test_where_nothing_pairs_the_summary_says_so_and_the_gate_exits_with_3(self):
        alone = four_questions(runs=split_runs(launch="A", owner="A", rollback="B", region="B"),
                               cases=undisclosing())
        ran = [[system for system, row in question["systems"].items() if row]
               for question in evaluate.report(alone)["questions"]]
        self.assertEqual(ran, [["A"], ["B"], ["A"], ["B"]])  # each row as its system ran
        status, out, err = demo_output("--data", self.write(alone), "--gate", "--summary")
        self.assertEqual((status, "per-question change from A to B on the 0 questions both ran"
                          in out.splitlines()), (3, True))
        self.assertEqual(err, "B against A: not accepted, first: comparison questions (no "
                              "question was run by both: nothing compared), and 4 more broken\n")

    def test_a_question_nobody_ran_and_a_system_not_listed_are_faults(self):
        four = four_questions()["runs"]  # a question added to the fixture is no fault here
        rows = [((split_runs(launch="AB", rollback="AB", owner="AB"),), "case 'region': no "
                 "system ran it: missing from runs"),
                ((dict(four, owner=dict(RUNS["owner"], C=RUNS["owner"]["A"])),), "runs['owner']: "
                 "system 'C' is not in \"systems\""),
                ((dict(four, owner={}),), "case 'owner': no system ran it: missing from runs")]
        self.assertRows(lambda runs: message_of(evaluate.report, {"data": four_questions(
            runs=runs)}), rows)

    def test_cases_of_any_shape_are_checked_before_anything_reads_them(self):
        ran = {"q": {"A": NOTHING}}
        rows = [((cases, {}), "cases: expected a dict, got %r" % (cases,))
                for cases in ((), None, 3, "x")]  # () is written as []
        rows += [(({"q": case}, ran), "case 'q': expected a dict, got %r" % (case,))
                 for case in (None, 3, True)]

        def said(cases, runs):  # by report(), and by demo.py --data in a data file's words
            data = dict(FIXTURE_AS_JSON, systems=("A", "B"), cases=cases, runs=runs)
            path = self.write(data)
            message = message_of(evaluate.report, {"data": data})
            in_json = message.replace("a dict", "an object")
            return message, self.refusal(path=path) == "%s: %s\n" % (path, in_json)
        self.assertRows(said, [(row, (message, True)) for row, message in rows])

    def test_at_most_20_changes_are_listed_regressions_first_and_no_line_is_over_160(self):
        worse, better = counts(relevant=2), counts(relevant=2, hits=2)
        baseline = {"q%02d" % index: better if index % 3 else worse for index in range(60)}
        flipped = {name: worse if tally is better else better for name, tally in baseline.items()}
        lines = text_of(counted(None, baseline, flipped, flipped), "--summary").splitlines()
        listed = [line for line in lines if line.startswith("q") and ": " in line]
        self.assertEqual([line.split()[1] for line in listed[:10]], ["regressed"] * 10)
        self.assertEqual(len(listed), 20)
        self.assertIn("totals: 20 improved, 40 regressed, 0 mixed, 0 unchanged, 0 not judged; "
                      "50 more moved (--json lists every question)", lines)
        self.assertLessEqual(max(map(len, lines)), 160)

    def test_each_gate_line_names_the_reading_its_reason_comes_from(self):
        status, out, err = demo_output("--data", self.write(four_questions(
            cases=undisclosing())), "--gate")
        self.assertEqual((status, err), (3, "B against A: not accepted, first: critical launch "
                                            "(regressed: support 1.00 -> 0.50) [strict reading], "
                                            "and 1 more broken\n"))

    def test_a_worse_candidate_reads_fell_and_a_bound_prints_as_one(self):
        worse = evaluate.report(dict(grouped_coverage(8, 0), systems=("B", "A")), summary=True)
        detail = worse["summary"]["decisions"]["A"]["strict"]["broken"][0][2]
        self.assertTrue(detail.startswith("coverage fell: mean -1.00 over 8 of 8 questions, p = "
                                          "1/128 (exact)"), detail)

    def test_a_p_no_draw_reached_prints_with_a_bound_that_holds(self):
        # 40 moved of arbitrary sizes, every 7th (or 10th) down: of 100,000 draws one (or
        # none) comes as far from 0. The bound holds at 99.9% (Chernoff's on so few hits,
        # or Hoeffding's, which holds always, when that is lower).
        def bound(every):
            after = {"q%d" % index: PLAIN * (index + 1) * (-1 if index % every == 0 else 1)
                     for index in range(40)}
            tested = evaluate.paired_test(dict.fromkeys(after, 0.0), after)
            return tested["p"], tested["method"], tested["p_shown"]
        self.assertRows(bound, [
            ((7,), (Fraction(2, 100001), "sampled",
                    "p = 2e-05 (sampled, 100000 draws; p <= 0.0001 at 99.9%)")),
            ((10,), (Fraction(1, 100001), "sampled",
                     "p = 1e-05 (sampled, 100000 draws; p <= 4e-05 at 99.9%)"))])

    def test_a_rise_on_the_pairs_is_not_accepted_where_the_slice_falls(self):
        # The baseline abstains on 20 of 30 questions (support n/a), or does not run them;
        # the candidate answers them with an unsupported claim and does better on the other
        # 10: the paired test alone would accept it (+0.50, p = 1/512).
        answered = abstaining_baseline(30, answered=10)
        unrun = dict(answered, runs={name: ran if index < 10 else {"B": ran["B"]} for
                                     index, (name, ran) in enumerate(answered["runs"].items())})
        for data, pairs in ((answered, "10 of 30"), (unrun, "10 of 10")):
            decided = decision_of(data)
            rule, subject, detail, readings = decided["findings"][0]
            with self.subTest(pairs=pairs):
                self.assertEqual((decided["accepted"], rule), (False, "significance"))
                self.assertIn("support rose: mean +0.50 over %s questions, p = 1/512 "
                              "(exact)" % pairs, detail)
                self.assertTrue(detail.endswith(
                    ": but its slice mean fell, 0.50 -> 0.33 (over 10 and 30 questions with "
                    "a value) and pooled support fell, 10/20 -> 10/30"), detail)

    def test_pooled_support_that_falls_over_as_many_claims_is_read_as_a_fall(self):
        # One claim on q0, three on q1: A 0/1 and 3/3, B 1/1 and 1/3. The means rise,
        # 0.50 -> 0.67, as pooled support falls, 3/4 -> 2/4.
        good, bad = [(claim, ("d",)) for claim in "cef"], [(claim, ("d",)) for claim in "xy"]
        runs = {"q0": {"A": bad[:1], "B": good[:1]}, "q1": {"A": good, "B": good[:1] + bad}}
        data = {"k": 1, "systems": ("A", "B"), "corpus": {"d": "A note."}, "cases": dict.fromkeys(
            runs, {"relevant": ("d",), "support": dict.fromkeys("cef", ("d",))}),
                "runs": {name: {system: {"retrieved": ("d",), "claims": tuple(claims)}
                                for system, claims in ran.items()} for name, ran in runs.items()},
                "policy": {"significance": {"metric": "support", "alpha": 0.05}}}
        detail = decision_of(data)["findings"][0][2]
        self.assertTrue(detail.endswith(": but pooled support fell, 3/4 -> 2/4"), detail)

    def test_a_slice_mean_that_holds_is_not_read_as_a_fall(self):
        # As above, on 10 questions, half of them answered by the baseline: the slice means
        # (0.50 over 5 and over 10) and pooled support (5/10 each) hold: no fall is read.
        found = decision_of(abstaining_baseline(10, answered=5))["findings"][0]
        rule, subject, detail, readings = found
        self.assertIn("support rose", detail)
        self.assertNotIn("fell", detail)

    def test_a_significant_fall_leads_the_findings_before_critical_and_budgets(self):
        policy = {"significance": {"metric": "recall", "alpha": 0.05},
                  "unsupported_budget": {"answerable": 0}, "critical": ("q0",)}
        fallen = {"q%d" % index: counts(relevant=2, supported=0) for index in range(10)}
        decided = decision_of(counted(policy, SIX_UP, fallen))
        self.assertEqual([finding[0] for finding in decided["findings"]],
                         ["significance", "critical", "unsupported_budget"])
        self.assertTrue(decided["findings"][0][2].startswith("recall fell"))

    def test_a_group_mean_that_rises_over_a_question_mean_that_falls_is_not_accepted(self):
        judged = decision_of(grouped_coverage(8, 30))["strict"]
        rule, subject, detail = judged["broken"][0]
        self.assertEqual((rule, judged["accepted"]), ("significance", False))
        self.assertEqual(detail, "coverage rose: mean +0.85 over 9 groups; question mean "
                         "-0.05 over 38 of 38 questions, p = 1/128 (exact), level 0.05 (alpha "
                         "0.05, Holm's step 1 of 1)")  # no fall read: no rise
        self.assertIn("held significance", text_of(grouped_coverage(8, 0), "--summary"))

    def test_questions_with_more_runs_on_one_side_are_counted_beside_the_decision(self):
        data = counted({"significance": {"metric": "recall", "alpha": 0.05}},
                       HALF_FOUND, SIX_UP)
        twice = {name: dict(runs, B=(runs["B"],) * 2) for name, runs in data["runs"].items()
                 if name in ("q0", "q1")}
        data["runs"] = dict(data["runs"], **twice)
        judged = decision_of(data)["strict"]
        self.assertEqual((judged["accepted"], judged["significance"]["unmatched_runs"]), (True, 2))
        self.assertIn("B against A: accepted (more runs on one side on 2 questions)",
                      text_of(data, "--summary").splitlines())


# --- TREC files: demo.py --qrels FILE --run FILE ------------------------------------------

# Written for the tests: IDs as real logs carry them; three documents tie at 3.5 (ranked
# doc.v2:3, FBIS3-10082, 7067032, by ID highest first), as the rank column does not say; a
# grade 0, a grade -1 (unjudged), a topic all of grade 0 (T2), a blank line, a run topic the
# qrels lack (T9) and a qrels topic no run has (T3).
QRELS = ("T1 0 MARCO_D1599536 2\nT1 0 7067032 1\nT1 0 FBIS3-10082 0\nT1 0 doc.v2:3 -1\n"
         "T1 0 KILT_105219 1\nT2 0 a 0\nT2 0 b 0\nT3 0 x 1\n")
RANKED = ("doc.v2:3", "FBIS3-10082", "7067032", "KILT_105219", "MARCO_D1599536") + tuple(
    "f%03d" % n for n in range(995))  # T1 of RUN_FILE and 995 more, by score, ties by ID
RUN_FILE = ("T1 Q0 FBIS3-10082 5 3.5 bm25\nT1 Q0 doc.v2:3 4 3.5 bm25\nT1 Q0 7067032 3 3.5 "
            "bm25\n\nT1 Q0 MARCO_D1599536 2 1.0 bm25\nT1 Q0 KILT_105219 1 2 bm25\nT2 Q0 a 1 1 "
            "bm25\nT9 Q0 z 1 1 bm25\n")


class TrecFiles(TestCase):
    """TREC qrels and runs are read as trec_eval reads them, with no converter."""

    def files(self, **texts):
        """Write each text to a file of its name in a new folder; return [paths]."""
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        for name, text in texts.items():
            with open(os.path.join(folder.name, name), "w", encoding="utf-8") as file:
                file.write(text)
        return [os.path.join(folder.name, name) for name in texts]

    def data(self, k=3, qrels=QRELS, run=RUN_FILE):
        qrels, run = self.files(qrels=qrels, run=run)
        return evaluate.load_trec(qrels, [run], k=k)

    def test_ties_in_score_are_ranked_by_document_id_highest_first_whatever_the_rank_column(self):
        self.assertEqual(self.data(k=5)["runs"]["T1"]["bm25"]["retrieved"], RANKED[:5])
        qrels, run = self.files(qrels=QRELS, run=RUN_FILE.replace("T9 Q0 z 1 1 bm25\n", ""))
        data = evaluate.load_trec(qrels, [run])  # its last topic, T2, is kept too
        self.assertEqual((data["k"], data["runs"]["T2"]["bm25"]["retrieved"]), (10, ("a",)))

    def test_p_r_rr_and_ndcg_equal_trec_eval_question_by_question(self):
        # trec_eval 9.0.4 -q: P_k, recall_k, recip_rank (-Mk), ndcg_cut_k, printed to 4 places
        rows = [((3,), (0.3333, 0.3333, 0.3333, 0.1597)), ((5,), (0.6, 1.0, 0.3333, 0.5444))]
        self.assertRows(lambda k: tuple(round(evaluate.report(self.data(k))["questions"][0][
            "systems"]["bm25"]["scores"][name], 4) for name in ("precision", "recall", "rr",
                                                                 "ndcg")), rows)

    def test_comments_any_order_and_k_to_1000_give_the_values_of_the_data_written_plainly(self):
        def commented(text):  # a comment before each line, of 6 fields or of 4
            return "".join(("# c %d t\n" % index if index % 2 else "#a b c d e f\n") + line + "\n"
                           for index, line in enumerate(text.split("\n")))

        def backwards(text):  # each topic's lines apart, the last first
            return "\n".join(text.split("\n")[::-1])

        def report(k, **given):  # the notes aside, and the topics in one order
            data = self.data(k, **given) if given else dict(self.data(), k=k, runs={
                "T1": {"bm25": {"retrieved": RANKED[:k], "claims": None}},
                "T2": {"bm25": {"retrieved": ("a",), "claims": None}}}, notes=None)
            result = evaluate.report(data, summary=True)
            return dict(result, notes=None, questions=sorted(result["questions"], key=str))
        deep = RUN_FILE + "".join("T1 Q0 f%03d 0 -%d bm25\n" % (n, n) for n in range(995))
        rows = [((k, commented(QRELS), commented(run)), report(k)) for k in (1, 5, 1000)
                for run in (deep, backwards(deep))]
        rows += [((1000, backwards(QRELS), run), report(1000)) for run in (deep, backwards(deep))]
        self.assertRows(lambda k, qrels, run: report(k, qrels=qrels, run=run), rows)
        # By hand, as trec_eval gives them (P divides by k, a gain is the grade), and its means:
        # a topic with nothing relevant (T2) counted as 0, over the 2 topics the run has.
        dcg, best = 1 / math.log2(4) + 1 / math.log2(5) + 2 / math.log2(6), 2 + 1 / math.log2(
            3) + 1 / math.log2(4)
        for k, run in ((5, RUN_FILE), (1000, RUN_FILE), (1000, backwards(deep))):
            summary = report(k, run=run)["summary"]
            mine = {name: summary["means"]["answerable"][name]["bm25"]["mean"] for name in
                    ("precision", "recall", "rr", "ndcg")}
            self.assertEqual(mine, {"precision": 3 / k, "recall": 1.0, "rr": 1 / 3,
                                    "ndcg": dcg / best})
            self.assertEqual({name: (means["bm25"]["mean"], means["bm25"]["topics"]) for name,
                              means in summary["trec_eval_means"].items()},
                             {name: (value / 2, 2) for name, value in mine.items()})

    def test_grade_0_is_not_relevant_a_negative_grade_unjudged_and_a_topic_of_0s_has_no_value(self):
        data = self.data()
        self.assertEqual((data["cases"]["T1"]["grades"], data["cases"]["T2"]["relevant"]), (
            {"MARCO_D1599536": 2, "7067032": 1, "KILT_105219": 1}, ()))
        self.assertEqual(set(evaluate.report(data)["questions"][1]["systems"]["bm25"][
            "scores"].values()), {None})  # where trec_eval gives 0
        means = evaluate.report(data, summary=True)["summary"]["means"]["unanswerable"]
        self.assertIsNone(means["correct_abstentions"])  # runs that only retrieve abstain never

    def test_a_run_topic_the_qrels_lack_is_counted_and_left_out_in_one_line(self):
        qrels, run = self.files(qrels=QRELS, run=RUN_FILE)
        status, out, err = demo_output("--qrels", qrels, "--run", run, "--summary")
        self.assertEqual(out.split("\n")[:3], [
            "note: left out, as trec_eval leaves them: 1 run topic the qrels do not have ('T9')",
            "note: not scored, as by trec_eval without -c: 1 qrels topic no run has ('T3')",
            ""])  # then the summary, trec_eval's means in it
        self.assertIn("\nbm25 | 0.1500 (2) | 0.5000 (2) | 0.1667 (2) | 0.2722 (2)\n", out)

    def test_one_run_alone_is_scored_and_judged_by_the_rules_that_need_no_baseline(self):
        qrels, run, policy = self.files(qrels=QRELS, run=RUN_FILE,
                                        policy='{"must_abstain": []}')
        status, out, err = demo_output("--qrels", qrels, "--run", run, "--policy", policy,
                                       "--gate", "--k", "5")
        self.assertEqual((status, out.count("\n"), err), (
            3, 5, "baseline bm25 checked alone: none, as no rule of the policy could "
            "be checked\n"))
        alone = dict(four_questions(), systems=("A",), runs=split_runs(
            **dict.fromkeys(FOUR, "A")))
        result = evaluate.report(alone, summary=True)
        self.assertEqual((result["summary"]["accepted"], evaluate.gate_text(result)), (
            False, "baseline A checked alone: not accepted, first: disclosure "
            "owner (1 restricted document in the top k or cited), and 4 more broken"))

    def test_notes_for_report_are_at_most_10_printable_lines_of_500_characters(self):
        data, fault = self.data(), "notes: expected a tuple of at most 10 lines of text, got "
        for notes, refused in ((("n" * 500,) * 10, False), (("n",) * 11, True),
                               (("n" * 501,), True), (("n\n",), True), (["n"], True)):
            with self.subTest(notes=notes[:2]):
                message = message_of(evaluate.report, {"data": dict(data, notes=notes)})
                self.assertEqual(message and message[:len(fault)], fault if refused else None)

    def test_topics_left_out_are_counted_and_the_first_five_named(self):
        five = "'T9', 'T10', 'T11', 'T12', 'T13'"
        for count, named in ((1, "'T9'"), (5, five), (6, five + ", ...")):
            run = RUN_FILE + "".join("T%d Q0 z 1 1 bm25\n" % topic
                                     for topic in range(10, 9 + count))
            with self.subTest(count=count):
                self.assertEqual(self.data(run=run)["notes"][0], "left out, as trec_eval "
                                 "leaves them: %d run topic%s the qrels do not have (%s)" % (
                                     count, "s" * (count > 1), named))
        long = "".join("%s Q0 z 1 1 bm25\n" % ("T%d" % n).ljust(64, "x") for n in range(6))
        self.assertTrue(evaluate.report(self.data(run=RUN_FILE + long))["notes"])  # 6 of 64

    def test_a_tag_that_is_no_name_and_a_tag_or_file_twice_are_faults(self):
        long_tag = RUN_FILE.replace("bm25", "t" * 65)
        qrels, *runs = self.files(qrels=QRELS, run0=RUN_FILE, run1=RUN_FILE, run2=long_tag)
        self.assertEqual(evaluate.load_trec(qrels, runs[:1])["systems"], ("bm25",))
        self.assertRows(lambda *given: message_of(evaluate.load_trec, {
            "qrels": qrels, "runs": list(given)}), [
            ((runs[0], runs[2]), "%s: invalid name '%s' (names are 1 to 64 printable ASCII "
                                 "characters, no spaces)" % (runs[2], "t" * 65)),
            ((runs[0], runs[1]), "%s and %s both hold the run tag 'bm25': one file given "
                                 "twice, or runs to tag apart" % (runs[0], runs[1])),
            ((runs[0], runs[0]), "%s and %s both hold the run tag 'bm25': one file given "
                                 "twice, or runs to tag apart" % (runs[0], runs[0]))])

    def test_each_fault_of_a_trec_file_is_one_line_naming_the_file_and_the_line(self):
        grade = "expected 'topic iteration document grade', the grade whole, got "
        run = "run0, line 1: expected 'topic Q0 document rank score tag', the score a number, got "
        rows = [  # (qrels, runs, the fault; each file named as its test names it)
            ("T1 0 d\n", [RUN_FILE], "qrels, line 1: " + grade + "'T1 0 d'"),
            ("T1 0 d 1.5\n", [RUN_FILE], "qrels, line 1: " + grade + "'T1 0 d 1.5'"),
            ("T1 0 d 1\nT1 0 d 0\n", [RUN_FILE], "qrels, line 2: document 'd' is judged twice "
                                                 "for topic 'T1'"),
            (QRELS, ["T1 Q0 d 1 2.0\n"], run + "'T1 Q0 d 1 2.0'"),
            (QRELS, ["T1 Q0 d 1 nan t\n"], run + "'T1 Q0 d 1 nan t'"),
            (QRELS, ["T1 Q0 d 1 2,5 t x\n"], run + "'T1 Q0 d 1 2,5 t'"),
            (QRELS, [RUN_FILE + "T9 Q0 y 2 1 t\n"], "run0, line 9: a second tag 't', after "
                                                    "'bm25': a run file is one system's"),
            (QRELS, [RUN_FILE + "T1 Q0 7067032 2 9 bm25\n"], "run0, line 9: document "
                                                             "'7067032' is ranked twice for "
                                                             "topic 'T1'"),
            (QRELS, [""], "run0: holds no line"),
            (QRELS, ["T1 Q0 d 1 1 t\n#" + "c" * 4096 + "\nT1 Q0 e 2 1 t\n"],
             "run0, line 2: expected a line of at most 4096 bytes"),
            ("T7 0 d 1\nth\u00e9 0 d 1\n", [RUN_FILE], "qrels, line 2: invalid name 'th\\xe9' "
             "(names are 1 to 64 printable ASCII characters, no spaces)"),
            ("T7 0 d 1\n", [RUN_FILE], "run0: no topic of it is in the qrels"),
            (QRELS, [RUN_FILE, "T9 Q0 d 1 1 t\n"], "run1: no topic of it is in the qrels")]

        def fault(qrels, runs):
            paths = self.files(qrels=qrels, **{"run%d" % index: run
                                                for index, run in enumerate(runs)})
            message = message_of(evaluate.load_trec, {"qrels": paths[0], "runs": paths[1:]})
            return message.replace(os.path.dirname(paths[0]) + os.sep, "")
        self.assertRows(fault, [(row[:2], row[2]) for row in rows])
        qrels, run = self.files(qrels=QRELS, run=RUN_FILE)
        with open(run, "ab") as file:
            file.write(b"T9 Q0 \xff 2 1 bm25\n")
        gone, folder = os.path.join(os.path.dirname(run), "gone"), os.path.dirname(run)
        self.assertRows(lambda *runs: message_of(evaluate.load_trec, {
            "qrels": qrels, "runs": runs}), [
            ((run,), "%s, line 9: not UTF-8 text: 'invalid start byte'" % run),
            ((gone,), "%s: cannot be read: No such file or directory" % gone),
            ((folder,), "%s: is not a regular file (a directory, a FIFO, a socket or a "
                        "device)" % folder),
            ((run + "\n",), "%r: cannot be read: No such file or directory" % (run + "\n"))])
        self.assertEqual([message_of(evaluate.load_trec, paths) for paths in (
            {"qrels": qrels, "runs": run}, {"qrels": 1, "runs": [run]})], [
            "runs: expected a list of paths, got %r" % run,
            "path: expected the path of a file, got 1"])
        fresh = self.files(qrels=QRELS, run=RUN_FILE)  # T1 ranks 5, T2 1; 8 judgements
        self.assertEqual([swapping(evaluate, {cap: 5}, message_of, evaluate.load_trec, {
            "qrels": fresh[0], "runs": fresh[1:]}) for cap in ("_MAX_RANKED", "_MAX_JUDGED")], [
            fresh[1] + ", line 7: with the runs before it, ranks more than 5 documents in its "
            "top k, the most kept", fresh[0] + ", line 6: expected at most 5 judgements, got more"])
        os.truncate(run, 150 * 10 ** 6)  # a sparse file: refused unread
        self.assertEqual(message_of(evaluate.load_trec, {"qrels": qrels, "runs": [run]}),
                         "TREC files: hold more than 150000000 bytes together, the most read")


class Trickle(io.RawIOBase):
    """A raw output whose writes take what take(tries, data) gives: a count of bytes, or an
    OSError to raise."""

    def __init__(self, take):
        self.take, self.taken, self.tries = take, b"", 0

    def writable(self):
        return True

    def write(self, data):
        self.tries += 1
        taken = self.take(self.tries, data)
        if isinstance(taken, OSError):
            raise taken
        self.taken += bytes(data[:taken])
        return taken


def text_stream(take):
    """Return (raw, an ASCII text stream over it) of Trickle(take)."""
    raw = Trickle(take)
    return raw, io.TextIOWrapper(io.BufferedWriter(raw), encoding="ascii")


def swapping(module, names, function, *arguments):
    """Return function(*arguments) with some names of module replaced, then put back."""
    saved = {name: getattr(module, name) for name in names}
    vars(module).update(names)
    try:
        return function(*arguments)
    finally:
        vars(module).update(saved)


class FileLimits(DataFileCase):
    """A data file stays within its caps; demo.py ends with one line at most, whatever stops it."""

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs on this system")
    def test_a_directory_a_fifo_or_a_device_is_refused_at_once(self):
        os.mkfifo(self.path)
        self.addCleanup(os.close, os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))  # a reader
        with open(self.path, "w") as writer:  # one that waited would read this, not hang
            writer.write("{}")
        self.assertRows(lambda path: self.refusal(path=path), [((path,), "%s: is not a regular "
                        "file (a directory, a FIFO, a socket or a device)\n" % path) for path in (
                            self.path, os.devnull, os.path.dirname(self.path))])

    def test_at_most_100_systems_and_100_tags_are_read_and_runs_and_labels_have_no_cap(self):
        systems = tuple("s%d" % index for index in range(101))

        def read(*runs):  # 10,000 relevant documents, read by each run; the policy is checked
            return {"systems": tuple("ABCD"[:len(runs)]), "corpus": CORPUS_CAP, "cases": {"q": {
                "relevant": IDS_CAP, "support": None}}, "runs": {"q": {  # before any run is scored
                    system: (NOTHING,) * count for system, count in zip("ABCD", runs)}},
                "policy": {"critical": ("nope",)}}
        unknown = "case 'q0': case[\"relevant\"]: unknown document 'zeta'"  # within the caps
        over = many_runs([100] * 75 + [1])  # 15,002 runs of two systems; then 15,001:
        over["runs"]["q0"] = dict(over["runs"]["q0"], B=over["runs"]["q0"]["B"][1:])
        tagged = many_runs([1] * 101)
        tagged["cases"] = {name: dict(case, tags=(name,), relevant=("launch",))  # valid:
                           for name, case in tagged["cases"].items()}  # tags are counted last
        rows = [((many_runs([1], systems[:100]),), unknown),
                ((many_runs([1], systems),), "systems: expected a tuple of 1 to 100 names, "
                 "got " + shown(systems)),
                ((read(100, 100, 100, 100),), "policy[\"critical\"]: no question named 'nope'"),
                ((over,), unknown),
                ((tagged,), "cases: expected at most 100 tags in all, got 101"),
                ((dict(tagged, cases=dict(list(tagged["cases"].items())[:100]), runs=dict(
                    list(tagged["runs"].items())[:100])),), None)]
        self.assertRows(lambda data: message_of(evaluate.report, {"data": data}), rows)

    def test_a_file_too_large_is_refused_at_30_mb_and_one_that_cannot_be_read_named_in_ascii(self):
        with open(self.path, "wb") as file:
            file.truncate(30000001)  # a sparse file: read to 30,000,001 bytes, no further
        paths = [os.path.join(os.path.dirname(self.path), name) for name in (
            "missing.json", "caf\u00e9.json", "a\nb.json", "\x1b[31mred.json")]  # all but the
        rows = [((path,), "%s: cannot be read: No such file or directory\n" % (  # first hold more
            path if path == paths[0] else ascii(path))) for path in paths]  # than printable ASCII
        rows.append(((self.path,), "%s: holds more than 30000000 bytes, the most read\n"
                     % self.path))
        self.assertRows(lambda path: self.refusal(path=path), rows)
        with open(self.path, "w") as file:  # 30,000,000 bytes exactly: read, and parsed
            file.write('{"k": "%s"}' % ("a" * (30000000 - 9)))
        self.assertEqual(self.refusal(path=self.path), "%s: data: missing the key 'systems'\n"
                         % self.path)

    def test_every_byte_is_written_and_in_ascii_whatever_the_output_takes(self):
        raw, trickle = text_stream(lambda tries, data: min(len(data), 7))  # 7 bytes at a time
        status = swapping(sys, {"stdout": trickle}, demo.write, "caf\u00e9 | p\n" * 20)
        self.assertEqual((status, raw.taken), (0, b"caf\\xe9 | p\n" * 20))

    def test_output_that_cannot_be_written_ends_with_one_line_and_status_74_or_141(self):
        stopped, gone = os.pipe()
        os.close(stopped)  # as `python demo.py | head -0` does, before a line is read: no fault
        reading, writing = os.pipe()
        self.addCleanup(os.close, reading)

        def full():  # full at its first write, which is the last one demo.py makes
            return text_stream(lambda tries, data: OSError(28, "No space left on device")
                               if tries == 1 else len(data))[1]

        def run(arguments, stdout, stderr=None):
            error = io.StringIO()
            return swapping(sys, {"stdout": stdout, "stderr": stderr or error}, demo.main,
                            arguments), error.getvalue()
        with open(writing, "w", closefd=False) as closed, open(gone, "w") as head:
            os.close(writing)  # standard output closed under it
            self.assertRows(run, [
                ((["--summary", "--explain"], head), (141, "")),
                (([], closed), (74, "demo.py: cannot write the report: Bad file descriptor\n")),
                ((["--gate"], full()), (74, "demo.py: cannot write the report: No space left "
                                            "on device\n")),
                (([], full(), full()), (74, ""))])
        # A full or closed standard error leaves the status of what went wrong: a gate's 3, a
        # fault's 1, an unknown option's 2.
        for stderr in (full(), None):
            self.assertRows(lambda arguments: swapping(sys, {"stdout": io.StringIO(), "stderr":
                                                             stderr}, demo.main, arguments), [
                ((["--gate"],), 3), ((["--data", self.path + "x"],), 1), ((["--bogus"],), 2)])

    def demo_run(self, prelude):
        """Return (status, standard error) of the plain demo run after prelude."""
        process = demo_process(prelude=prelude)
        error = process.communicate()[1].decode()
        return process.returncode, error

    @unittest.skipIf(os.name == "nt", "Windows has no status that says SIGINT")
    def test_ctrl_c_while_demo_py_imports_ends_it_by_sigint_without_a_traceback(self):
        pressed = ("class Pressed:\n    def find_spec(self, name, *rest):\n"
                   "        if name == 'evaluate':\n            raise KeyboardInterrupt\n"
                   "sys.meta_path.insert(0, Pressed())\n")
        self.assertEqual(self.demo_run(pressed), (-signal.SIGINT, ""))

    def test_the_plain_demo_loads_no_module_it_does_not_need(self):
        heavy = {"json", "fractions", "random", "enum", "signal"}
        listed = ("import atexit, pkgutil\nbefore = set(sys.modules)\natexit.register(lambda: "
                  "sys.stderr.write(str(sorted((set(sys.modules) - before) & %r))))\n"
                  % heavy)
        self.assertEqual(self.demo_run(listed), (0, "[]"))


if __name__ == "__main__":
    unittest.main()
