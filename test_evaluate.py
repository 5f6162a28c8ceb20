"""Lock down evaluate.py: the fixture, worked checks, every input rule, exact outputs.

Run from the project folder:  python -m unittest   (or: python test_evaluate.py)

The suite runs in the order written; read the first failure. FixtureIsValid checks that
fixtures.py is valid input by the input rules alone. WorkedChecks holds one check per scoring
rule, in the order of the contract, each calling the function that holds its rule, so the
first that fails names the next rule, and the next function, to write. While one of these
fails, every test after it steps aside (skipped; one line on standard error says why). Then
come every other test and the README's examples. A table of inputs fails once, with its
first wrong row and the number of wrong rows.

Adding a question to fixtures.py takes one kind of edit here: its rows in EXPECTED_SCORES and
EXPECTED_EXPLANATIONS, worked out by hand. Until then those two tests fail and name the rows
to add; every other test is computed for any questions, or pinned to the four of FOUR.
"""
import collections
import contextlib
import copy
import doctest
import io
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction

import demo
import evaluate
from evaluate import EvaluationError
from fixtures import CASES, CORPUS, POLICY, RUNS

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "README.md")


def load_tests(loader, tests, pattern):
    """Run the tests in the order written, then the README's examples: one skipped test
    when README.md is missing, as in a course handout of the four .py files."""
    groups = [value for value in globals().values() if isinstance(value, type)
              and issubclass(value, unittest.TestCase) and in_order(value)]
    suite = unittest.TestSuite(group(name) for group in groups for name in in_order(group))
    if os.path.exists(README):
        suite.addTests(doctest.DocFileSuite(README, module_relative=False,
                                            setUp=lambda test: step_aside()))
    else:
        suite.addTest(unittest.FunctionTestCase(readme_examples))
    return suite


def readme_examples():
    """README.md's examples, which need README.md beside this file."""
    raise unittest.SkipTest("README.md is not beside test_evaluate.py, so its examples did not run")


# --- Stepping aside ---------------------------------------------------------------

WAITING_FOR = {}  # what fails first, found once by first_failure()


def in_order(group):
    return [name for name in vars(group) if name.startswith("test_")]


def first_failure():
    """Return (group, name) of the first fixture or worked check that fails, or None:
    found once, quietly, in the order of GATES."""
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
    """Skip `test` while a fixture or worked check before it fails: that failure is the one
    to read. A check before the one that fails runs as usual."""
    if WAITING_FOR.get("quiet"):
        return  # first_failure() is finding out
    found = first_failure()
    here = (type(test), getattr(test, "_testMethodName", None))
    if found is None or here == found or (here in GATES and GATES.index(here) < GATES.index(found)):
        return
    reason = "waiting for %s.%s" % (found[0].__name__, found[1])
    if not WAITING_FOR.get("said"):  # said once, on the runner's stream
        WAITING_FOR["said"] = True
        sys.stderr.write("\n%s fails, so the tests after it step aside (skipped) until it is "
                         "mended: read the failure below.\n" % found[1])
    raise unittest.SkipTest(reason)


# --- Helpers ------------------------------------------------------------------

def restore_fixture():
    """Put back, in place, any part of fixtures.py that a scorer under test changed."""
    for part, written in zip((CORPUS, CASES, RUNS), PRISTINE):
        if part != written:
            part.clear()
            part.update(copy.deepcopy(written))


def cut(text, limit=300):
    return text if len(text) <= limit else text[:limit - 3] + "..."


class TestCase(unittest.TestCase):
    """Checks that fail once however many rows are wrong; each test steps aside while a
    fixture check or a worked check before it fails."""

    def setUp(self):
        restore_fixture()  # as written, whatever a scorer under test changed in it
        step_aside(self)

    def assertRows(self, function, rows):
        """Check function(*inputs) == expected for each (inputs, expected) row; a failure
        shows the first wrong row and how many rows are wrong, short enough to read."""
        rows = list(rows)
        wrong = []
        for inputs, expected in rows:
            try:
                got = function(*inputs)
            except Exception as error:  # a crash is a wrong row too, reported the same way
                got = error
            if isinstance(got, Exception) or got != expected:
                wrong.append((inputs, expected, got))
        if wrong:
            inputs, expected, got = wrong[0]
            got = "raised %r" % got if isinstance(got, Exception) else repr(got)
            message = ("%d of %d rows wrong; the first:\n  inputs:   %s\n  expected: %s\n"
                       "  got:      %s" % (len(wrong), len(rows), cut(repr(inputs)),
                                           cut(repr(expected)), cut(got)))
            self.fail(message)

    def assertRowTable(self, got, expected, name, shape):
        """Check got == expected, a row per (case, system) worked out by hand: a question
        without its rows fails naming them; a row that differs fails as a snapshot does."""
        missing = [key for key in got if key not in expected]
        if missing:
            self.fail("%s has no row for %s. Work out each row by hand, as %s, and add it to %s "
                      "in test_evaluate.py; a row that differs from the scorer then fails with "
                      "what the scorer gives." % (name, ", ".join(map(repr, missing)), shape, name))
        self.assertSnapshot(got, expected, name)

    def assertSnapshot(self, got, expected, name):
        """Check got == expected, a dict or a text compared line by line, worked out by hand:
        a failure shows the first entry that differs, how many do, and what to do."""
        if isinstance(expected, str):
            got = dict(enumerate(got.splitlines(), start=1))
            expected = dict(enumerate(expected.splitlines(), start=1))
        keys = list(expected) + [key for key in got if key not in expected]
        wrong = [key for key in keys if got.get(key, "(nothing)") != expected.get(key, "(nothing)")]
        if wrong:
            key = wrong[0]
            message = (
                "%d of %d entries of %s differ; the first, %r:\n  expected: %s\n  got:      %s\n"
                "%s holds values worked out by hand. If you changed those questions in "
                "fixtures.py on purpose, check the new values by hand, then update %s in "
                "test_evaluate.py. If you did not, the scorer is wrong." % (
                    len(wrong), len(keys), name, key, cut(repr(expected.get(key, "(nothing)"))),
                    cut(repr(got.get(key, "(nothing)"))), name, name))
            self.fail(message)


CASE = CASES["rollback"]           # answerable, two expected claims
RUN = RUNS["rollback"]["B"]        # two retrieved notes, two supported claims


def inputs(**changes):
    """Return evaluate()'s keyword arguments for rollback/B, some replaced."""
    return dict({"corpus": CORPUS, "case": CASE, "run": RUN, "k": 2}, **changes)


def case_with(**fields):
    return dict(CASE, **fields)


def run_with(**fields):
    return dict(RUN, **fields)


def case_input(**fields):
    return inputs(case=case_with(**fields))


def run_input(**fields):
    return inputs(run=run_with(**fields))


def reason_of(claim_id, citations, name="owner", visible=frozenset({"owners", "archive"})):
    """Return why a claim of case `name` citing `citations` is unsupported, or None."""
    return evaluate._unsupported_because(claim_id, citations, CASES[name]["support"], visible,
                                        CORPUS)


def message_of(function, arguments):
    """Return the message of the EvaluationError function(**arguments) raises, or None."""
    try:
        function(**arguments)
    except EvaluationError as error:
        return str(error)
    return None


# Subclasses, which the contract does not accept as a dict, a tuple or a str.
Dict = type("Dict", (dict,), {})
Tuple = type("Tuple", (tuple,), {})
Str = type("Str", (str,), {})


class BrokenRepr:
    """A value whose repr raises, as a hostile input might."""

    def __repr__(self):
        raise RuntimeError("no repr")


Pair = collections.namedtuple("Pair", "claim citations")
PRISTINE = copy.deepcopy((CORPUS, CASES, RUNS))  # the fixture as written, before any test

IDS_100 = tuple("d%d" % i for i in range(100))
IDS_101 = tuple("d%d" % i for i in range(101))
CORPUS_100 = {doc_id: "A note." for doc_id in IDS_100}
ID_32 = "a" * 32
ID_33 = "a" * 33
ID_RULE = " (IDs are 1 to 32 characters: a-z first, then a-z, 0-9 or '-')"
NAME_RULE = " (names are 1 to 64 printable ASCII characters, no spaces)"


# --- 1. The fixture is valid input --------------------------------------------------

class FixtureIsValid(TestCase):
    """fixtures.py is valid input, checked by the input rules alone: no scoring is involved."""

    def test_every_case_has_a_run_of_each_system(self):
        for name in CASES:
            self.assertIn(name, RUNS, "fixtures.py: RUNS has no entry for case %r" % name)
            self.assertEqual(sorted(RUNS[name]), ["A", "B"],
                             "fixtures.py: RUNS[%r] needs one run of system A and one of B" % name)
        self.assertEqual(list(RUNS), list(CASES), "fixtures.py: RUNS and CASES name other cases")

    def test_each_run_is_valid_input(self):
        corpus, cases, runs = copy.deepcopy(PRISTINE)  # as written, whatever a scorer changed
        message = message_of(evaluate._checked_systems, dict(  # the checks alone, no scoring
            corpus=corpus, cases=cases, runs=runs, systems=("A", "B"), k=2))
        if message:  # it names the corpus, or the case, or the case and system
            self.fail("fixtures.py: " + message)

    def test_the_policy_is_valid_for_these_questions(self):
        answerable = {name: bool(case["relevant"]) for name, case in CASES.items()}
        message = message_of(evaluate._check_policy_rules, dict(policy=POLICY,
                                                               answerable=answerable))
        if message:
            self.fail("fixtures.py: " + message)


# --- 2. Worked checks: one per scoring rule, in the order of the contract -----------------

# Tallies of fixture runs, worked out by hand: the counts behind the six values.
LAUNCH_A = {"relevant": 1, "k": 2, "hits": 1, "first_hit": 1,
            "generated": 1, "supported": 1, "expected": 1, "covered": 1, "disclosed": 0}
LAUNCH_B = dict(LAUNCH_A, generated=2)                   # plus a claim with no agreed label
ROLLBACK_A = dict(LAUNCH_A, relevant=2, expected=2)      # one note back for two slots
OWNER_A = dict(LAUNCH_A, first_hit=2, supported=0, covered=0, disclosed=1)  # archive cited
REGION_A = dict(LAUNCH_A, relevant=0, hits=0, first_hit=None,  # unanswerable, answered
                supported=0, expected=0, covered=0)
REGION_B = dict(REGION_A, generated=0)                   # unanswerable, abstained
NOTHING_BACK = dict(ROLLBACK_A, hits=0, first_hit=None,  # rollback, empty run
                    generated=0, supported=0, covered=0)


class WorkedChecks(TestCase):
    """One check per scoring rule, in the order of the contract, run in the order written:
    the first that fails names the next rule, and the next function, to write or mend."""

    # Retrieval: _hit_ranks() and _reciprocal_rank().

    def test_the_top_k_holds_k_documents_no_more_no_fewer(self):
        both = ("rollback", "checklist")  # rollback B: both notes, both relevant
        self.assertEqual(len(evaluate._hit_ranks(both, both, 1)), 1)  # the rank k is in ...
        self.assertEqual(len(evaluate._hit_ranks(both, both, 2)), 2)
        # ... and a relevant document ranked k + 1 is no hit: owner A, owners second.
        self.assertEqual(len(evaluate._hit_ranks(("owners",), ("archive", "owners"), 1)), 0)

    def test_ranks_count_from_one(self):
        self.assertEqual(evaluate._hit_ranks(("owners",), ("archive", "owners"), 2), [2])  # owner A
        # rollback B: both notes, in rank order whatever the order of the labels.
        ranks = evaluate._hit_ranks(("checklist", "rollback"), ("rollback", "checklist"), 2)
        self.assertEqual(ranks, [1, 2])

    def test_reciprocal_rank_is_one_over_the_first_relevant_rank(self):
        self.assertEqual(evaluate._reciprocal_rank(1), 1.0)
        self.assertEqual(evaluate._reciprocal_rank(2), 0.5)  # owner A: owners comes second

    def test_no_hit_in_the_top_k_gives_a_reciprocal_rank_of_zero_not_na(self):
        self.assertIs(type(evaluate._reciprocal_rank(None)), float)  # 0.0, a float like 1/rank
        self.assertEqual(evaluate._reciprocal_rank(None), 0.0)

    # The six values from a tally: _scores().

    def test_precision_divides_the_hits_by_k(self):
        self.assertEqual(evaluate._scores(ROLLBACK_A)["precision"], 0.5)  # 1 hit in 2 slots
        self.assertEqual(evaluate._scores(LAUNCH_A)["precision"], 0.5)    # of 1 relevant note

    def test_recall_divides_by_the_relevant_documents(self):
        # launch A: one relevant note, found within two slots: 1 of 1, not 1 of 2.
        self.assertEqual(evaluate._scores(LAUNCH_A)["recall"], 1.0)
        self.assertEqual(evaluate._scores(ROLLBACK_A)["recall"], 0.5)

    def test_rr_is_the_reciprocal_rank_of_the_first_hit(self):
        self.assertEqual(evaluate._scores(OWNER_A)["rr"], 0.5)

    def test_support_divides_by_the_generated_claims(self):
        self.assertEqual(evaluate._scores(LAUNCH_B)["support"], 0.5)  # 1 of 2 claims

    def test_coverage_divides_the_covered_claims_by_the_expected_ones(self):
        # rollback A states one of its two expected claims; then one optional claim more.
        for counts in (ROLLBACK_A, dict(ROLLBACK_A, generated=2, supported=2)):
            self.assertEqual(evaluate._scores(counts)["coverage"], 0.5)

    def test_an_empty_answer_has_no_support_ratio(self):
        self.assertIsNone(evaluate._scores(NOTHING_BACK)["support"])

    def test_answerable_question_with_nothing_back_scores_zero_not_na(self):
        self.assertEqual(evaluate._scores(NOTHING_BACK), {
            "precision": 0.0, "recall": 0.0, "rr": 0.0,
            "support": None, "coverage": 0.0, "abstention_correct": None})

    def test_an_unanswerable_question_has_no_retrieval_values_and_no_coverage(self):
        for counts in (REGION_A, REGION_B):
            values = evaluate._scores(counts)
            metrics = ("precision", "recall", "rr", "coverage")
            self.assertEqual([values[metric] for metric in metrics], [None] * 4)

    def test_abstaining_is_correct_only_on_an_unanswerable_question(self):
        self.assertIs(evaluate._scores(REGION_A)["abstention_correct"], False)  # answered
        self.assertIs(evaluate._scores(REGION_B)["abstention_correct"], True)   # abstained
        self.assertIsNone(evaluate._scores(LAUNCH_A)["abstention_correct"])     # answerable

    def test_no_answer_and_no_labels_leave_the_answer_values_na(self):
        no_answer = dict(LAUNCH_A, generated=None, supported=None, covered=None)
        unlabelled = dict(LAUNCH_A, supported=None, expected=None, covered=None)
        unanswered = dict(REGION_B, generated=None, supported=None, covered=None)
        for counts in (no_answer, unlabelled, unanswered):
            values = evaluate._scores(counts)
            metrics = ("support", "coverage", "abstention_correct")
            self.assertEqual([values[metric] for metric in metrics], [None] * 3)
        self.assertEqual(evaluate._scores(no_answer)["recall"], 1.0)  # retrieval still counts

    def test_every_ratio_is_a_float_and_abstention_a_bool(self):
        perfect = dict(ROLLBACK_A, hits=2, generated=2, supported=2, covered=2)  # 1.0, not 1
        for counts in (ROLLBACK_A, OWNER_A, NOTHING_BACK, REGION_A, REGION_B, perfect):
            for metric, value in evaluate._scores(counts).items():
                if value is not None:
                    self.assertIs(type(value), bool if metric == "abstention_correct" else float,
                                  "%s of %s" % (metric, counts))

    # Claims: _unsupported_because() and _claim_reasons().

    def test_a_claim_citing_its_labelled_source_in_the_top_k_is_supported(self):
        self.assertIsNone(reason_of("monday", ("launch",), "launch", {"launch", "archive"}))

    def test_a_claim_without_a_citation_is_unsupported(self):
        for claim_id in ("aurora", "guess"):  # labelled or not: no citation comes first
            self.assertEqual(reason_of(claim_id, ()), "no citation")

    def test_a_claim_nobody_labelled_is_unsupported(self):
        # launch B's second claim: no agreed label says which note could back it.
        reason = reason_of("bonus", ("launch",), "launch", {"launch", "archive"})
        self.assertEqual(reason, "no label")

    def test_a_citation_outside_the_corpus_supports_nothing(self):
        self.assertEqual(reason_of("aurora", ("owners", "unknown")), "not in the corpus")
        # Each rule is checked against every citation before the next rule: the
        # citation outside the corpus is named, though archive, before it, is no source.
        self.assertEqual(reason_of("aurora", ("archive", "unknown")), "not in the corpus")

    def test_one_bad_citation_makes_a_claim_unsupported(self):
        for citations in (("archive",), ("owners", "archive"), ("archive", "owners")):
            self.assertEqual(reason_of("aurora", citations), "not a labelled source")

    def test_a_labelled_source_outside_the_top_k_supports_nothing(self):
        visible = {"rollback", "archive"}
        self.assertEqual(reason_of("smoke", ("checklist",), "rollback", visible),
                         "outside the top k")
        self.assertEqual(reason_of("smoke", ("checklist", "archive"), "rollback", visible),
                         "not a labelled source")  # named first

    def test_a_claim_with_several_labelled_sources_may_cite_any_of_them(self):
        support = {"steps": ("rollback", "checklist")}  # either note backs the claim
        visible = {"rollback", "checklist"}
        for citations in [("rollback",), ("checklist",), ("checklist", "rollback")]:
            self.assertIsNone(evaluate._unsupported_because("steps", citations, support, visible,
                                                            CORPUS), citations)

    def test_each_claim_gets_its_reason_in_answer_order(self):
        claims = (("switch", ("rollback",)), ("smoke", ("archive",)))  # not in ID order
        reasons = evaluate._claim_reasons(CORPUS, CASE["support"], ("rollback", "archive"),
                                          claims, 2)
        self.assertEqual(reasons, [("switch", None), ("smoke", "not a labelled source")])

    def test_source_outside_the_cutoff_supports_nothing(self):
        # rollback B at k=1: checklist is ranked second, so smoke is unsupported.
        reasons = evaluate._claim_reasons(CORPUS, CASE["support"], RUN["retrieved"],
                                          RUN["claims"], 1)
        self.assertEqual(reasons, [("switch", None), ("smoke", "outside the top k")])

    # Disclosures: _disclosed().

    def test_a_restricted_document_in_the_top_k_is_disclosed(self):
        run = RUNS["owner"]["B"]  # archive, restricted, is ranked second
        self.assertEqual(evaluate._disclosed(("archive",), run["retrieved"], run["claims"], 2),
                         ("archive",))
        self.assertEqual(evaluate._disclosed(("archive",), run["retrieved"], run["claims"], 1), ())

    def test_citing_a_restricted_document_discloses_it(self):
        claims = (("aurora", ("archive",)),)  # cited, though outside the top 1
        self.assertEqual(evaluate._disclosed(("archive",), ("owners", "archive"), claims, 1),
                         ("archive",))
        self.assertEqual(evaluate._disclosed(("launch", "archive"), (), claims, 1), ("archive",))

    def test_disclosures_come_in_the_order_of_restricted(self):
        self.assertEqual(evaluate._disclosed(("launch", "archive"), ("archive", "launch"), (), 2),
                         ("launch", "archive"))

    # The tally: _counted().

    def test_short_list_keeps_the_cutoff_denominator(self):
        # rollback A returned one note for two slots: k stays 2.
        self.assertEqual(evaluate._counted(CORPUS, CASE, RUNS["rollback"]["A"], 2)["k"], 2)

    def test_relevant_documents_are_counted_whether_retrieved_or_not(self):
        for run in (RUNS["rollback"]["A"], {"retrieved": (), "claims": ()}):
            self.assertEqual(evaluate._counted(CORPUS, CASE, run, 2)["relevant"], 2)

    def test_the_first_hit_is_the_best_ranked_relevant_document(self):
        tally = evaluate._counted(CORPUS, CASES["rollback"], RUNS["rollback"]["B"], 2)
        self.assertEqual((tally["hits"], tally["first_hit"]), (2, 1))
        tally = evaluate._counted(CORPUS, CASES["owner"], RUNS["owner"]["A"], 2)
        self.assertEqual((tally["hits"], tally["first_hit"]), (1, 2))

    def test_expected_claims_are_counted_from_the_labels(self):
        case = case_with(support={"steps": ("rollback", "checklist")})  # one claim, two notes
        self.assertEqual(evaluate._counted(CORPUS, case, RUN, 2)["expected"], 1)

    def test_generated_and_supported_claims_are_counted(self):
        tally = evaluate._counted(CORPUS, CASES["launch"], RUNS["launch"]["B"], 2)
        self.assertEqual((tally["generated"], tally["supported"]), (2, 1))

    def test_a_claim_citing_two_labelled_sources_is_one_supported_claim(self):
        case = case_with(support={"steps": ("rollback", "checklist")})
        run = run_with(claims=(("steps", ("rollback", "checklist")),))
        tally = evaluate._counted(CORPUS, case, run, 2)
        self.assertEqual((tally["generated"], tally["supported"], tally["covered"]), (1, 1, 1))

    def test_a_claim_judged_supported_but_not_expected_covers_nothing(self):
        case = dict(CASES["launch"], optional={"bonus": ("launch",)})  # judged, not required
        tally = evaluate._counted(CORPUS, case, RUNS["launch"]["B"], 2)
        self.assertEqual((tally["supported"], tally["expected"], tally["covered"]), (2, 1, 1))

    def test_no_answer_or_no_labels_count_no_claims(self):
        no_answer = {"retrieved": ("launch",), "claims": None}
        self.assertEqual(evaluate._counted(CORPUS, CASES["launch"], no_answer, 2),
                         dict(LAUNCH_A, generated=None, supported=None, covered=None))
        unlabelled = dict(CASES["launch"], support=None)
        self.assertEqual(evaluate._counted(CORPUS, unlabelled, RUNS["launch"]["B"], 2),
                         dict(LAUNCH_B, supported=None, expected=None, covered=None))

    def test_the_tally_holds_every_count_in_order(self):
        self.assertEqual(evaluate._counted(CORPUS, CASES["owner"], RUNS["owner"]["A"], 2), OWNER_A)
        self.assertEqual(list(evaluate._counted(CORPUS, CASES["region"], RUNS["region"]["A"], 2)
                              .items()), list(REGION_A.items()))

    # Whole questions: evaluate().

    def test_rollback_a_keeps_two_slots_for_its_one_document(self):
        result = evaluate.evaluate(CORPUS, CASES["rollback"], RUNS["rollback"]["A"], k=2)
        self.assertEqual((result["precision"], result["recall"]), (0.5, 0.5))

    def test_owner_a_finds_the_note_but_cites_the_distractor(self):
        result = evaluate.evaluate(CORPUS, CASES["owner"], RUNS["owner"]["A"])
        self.assertEqual((result["recall"], result["rr"], result["support"], result["coverage"]),
                         (1.0, 0.5, 0.0, 0.0))

    def test_a_claim_with_no_agreed_label_halves_support_but_not_coverage(self):
        result = evaluate.evaluate(CORPUS, CASES["launch"], RUNS["launch"]["B"])  # bonus
        self.assertEqual((result["recall"], result["support"], result["coverage"]),
                         (1.0, 0.5, 1.0))

    def test_rollback_b_at_k1_cannot_cite_its_second_note(self):
        result = evaluate.evaluate(CORPUS, CASES["rollback"], RUNS["rollback"]["B"], k=1)
        self.assertEqual((result["support"], result["coverage"]), (0.5, 0.5))

    def test_a_bad_or_missing_citation_leaves_the_owner_answer_unsupported(self):
        def support(*citations):  # owners and archive retrieved, aurora citing `citations`
            run = {"retrieved": ("owners", "archive"), "claims": (("aurora", citations),)}
            return evaluate.evaluate(CORPUS, CASES["owner"], run)["support"]
        rows = [((), 0.0), (("unknown",), 0.0), (("owners", "archive"), 0.0), (("owners",), 1.0)]
        self.assertRows(support, rows)

    def test_an_answerable_question_with_nothing_back(self):
        result = evaluate.evaluate(**inputs(run={"retrieved": (), "claims": ()}))
        self.assertEqual(result, {"precision": 0.0, "recall": 0.0, "rr": 0.0,
                                  "support": None, "coverage": 0.0, "abstention_correct": None})

    def test_region_a_answers_an_unanswerable_question_and_region_b_abstains(self):
        self.assertEqual(evaluate.evaluate(CORPUS, CASES["region"], RUNS["region"]["A"]), {
            "precision": None, "recall": None, "rr": None,
            "support": 0.0, "coverage": None, "abstention_correct": False})
        self.assertEqual(evaluate.evaluate(CORPUS, CASES["region"], RUNS["region"]["B"]), {
            "precision": None, "recall": None, "rr": None,
            "support": None, "coverage": None, "abstention_correct": True})

    def test_the_cutoff_is_two_unless_given(self):
        run = {"retrieved": ("archive", "launch", "rollback"), "claims": ()}
        self.assertEqual(evaluate.evaluate(CORPUS, CASE, run)["precision"], 0.0)
        self.assertEqual(evaluate.evaluate(CORPUS, CASE, run, k=3)["precision"], 1 / 3)

    def test_the_faults_named_in_the_contract_are_rejected(self):
        def field_named(what, arguments):
            message = message_of(evaluate.evaluate, arguments)
            return "accepted, with no EvaluationError" if message is None else message.split(":")[0]
        rows = [
            (("a repeated retrieved ID", run_input(retrieved=("rollback",) * 2)),
             'run["retrieved"]'),
            (("a repeated claim ID", run_input(claims=(("switch", ()),) * 2)), 'run["claims"][1]'),
            (("a source outside relevant", case_input(support={"switch": ("owners",)})),
             "case[\"support\"]['switch']"),
            (("k of 0", inputs(k=0)), "k"), (("k of True", inputs(k=True)), "k"),
            (("k of 1.5", inputs(k=1.5)), "k"), (("k of 101", inputs(k=101)), "k"),
        ]
        self.assertRows(field_named, rows)

    # Explanations: _explained().

    def test_explain_names_the_first_rule_each_claim_breaks(self):
        self.assertEqual(evaluate._explained(CORPUS, CASES["owner"], RUNS["owner"]["A"], 2), {
            "claims": (("aurora", "not a labelled source"),), "uncovered": ("aurora",),
            "disclosed": ("archive",)})

    def test_uncovered_claims_come_in_label_order(self):
        nothing = {"retrieved": (), "claims": ()}
        self.assertEqual(evaluate._explained(CORPUS, CASES["rollback"], nothing, 2)["uncovered"],
                         ("switch", "smoke"))

    def test_a_rejected_claim_is_told_from_one_nobody_reviewed(self):
        reviewed = dict(CASES["region"], rejected=("region",))
        region_a = RUNS["region"]["A"]
        bare = {"retrieved": (), "claims": (("region", ()),)}  # rejected, and no citation
        extra = {"retrieved": ("launch",), "claims": (("spare", ("launch",)),)}
        rows = [((reviewed, region_a), (("region", "judged unsupported"),)),
                (({"relevant": (), "support": {}}, region_a), (("region", "no label"),)),
                ((reviewed, bare), (("region", "judged unsupported"),)),
                # disputed labels, no rejected claim: an unlabelled claim has no label
                ((CASES["launch"], extra), (("spare", "no label"),))]
        self.assertRows(lambda case, run: evaluate._explained(CORPUS, case, run, 2)["claims"],
                        rows)

    def test_a_claim_that_only_a_disputed_label_supports_says_so(self):
        case = dict(CASES["launch"], disputed={"bonus": ("launch",)})
        self.assertEqual(evaluate._explained(CORPUS, case, RUNS["launch"]["B"], 2)["claims"],
                         (("monday", None), ("bonus", "only a disputed label supports it")))

    def test_no_answer_or_no_labels_explain_no_claim(self):
        no_answer = {"retrieved": ("archive", "owners"), "claims": None}
        self.assertEqual(evaluate._explained(CORPUS, CASES["owner"], no_answer, 2),
                         {"claims": None, "uncovered": None, "disclosed": ("archive",)})

    # Inputs stay as they were.

    def test_scoring_never_changes_an_input(self):
        def unchanged(function, *arguments, **keywords):
            copies = copy.deepcopy(arguments)  # fresh, whatever the other checks did
            function(*copies, **keywords)
            return copies == arguments
        corpus, cases, runs = PRISTINE
        judged = dict(cases["launch"], optional={"extra": ("launch",)}, grades={"launch": 2})
        questions = [(cases[name], runs[name][system]) for name in FOUR for system in "AB"]
        questions += [(judged, runs["launch"]["B"]), (dict(cases["owner"], support=None),
                                                      dict(runs["owner"]["A"], claims=None))]
        for case, run in questions:
            for function in (evaluate.evaluate, evaluate.tally, evaluate.explain, evaluate.ndcg):
                self.assertTrue(unchanged(function, corpus, case, run, k=1), "%s() changed "
                                "its input %s" % (function.__name__, cut(repr(case))))
            self.assertTrue(unchanged(evaluate.lenient, case), "lenient() changed its input")
            self.assertTrue(unchanged(evaluate.validate, corpus, case, run, 2))


# The checks that run first, in this order: while one fails, the tests after it step aside.
GATE_GROUPS = (FixtureIsValid, WorkedChecks)
GATES = [(group, name) for group in GATE_GROUPS for name in in_order(group)]


# --- The fixture: checks for any number of questions, and rows worked out by hand --

FOUR = ("launch", "rollback", "owner", "region")  # the original questions, pinned by name
ANSWERABLE = ("launch", "rollback", "owner")


def fixture_tallies(system, names=None):
    """Return one system's tally of each fixture question, or of the named ones, by name."""
    tallies = evaluate.tally_system(CORPUS, CASES, RUNS, system)
    return tallies if names is None else {name: tallies[name] for name in names}


def fixture_scores(system, names=None):
    """Return one system's scores of each fixture question, or of the named ones, by name."""
    return {name: evaluate._scores(counts)
            for name, counts in fixture_tallies(system, names).items()}


# (case, system): precision, recall, rr, support, coverage, abstention_correct
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

# (case, system): explain()'s verdict on each claim, the uncovered expected claims,
# and the restricted documents disclosed
EXPECTED_EXPLANATIONS = {
    ("launch", "A"):   ((("monday", None),), (), ()),
    ("launch", "B"):   ((("monday", None), ("bonus", "only a disputed label supports it")), (), ()),
    ("rollback", "A"): ((("switch", None),), ("smoke",), ()),
    ("rollback", "B"): ((("switch", None), ("smoke", None)), (), ()),
    ("owner", "A"):    ((("aurora", "not a labelled source"),), ("aurora",), ("archive",)),
    ("owner", "B"):    ((("aurora", None),), (), ("archive",)),
    ("region", "A"):   ((("region", "judged unsupported"),), (), ()),
    ("region", "B"):   ((), (), ()),
}
SCORES_SHAPE = "(precision, recall, rr, support, coverage, abstention_correct)"
EXPLANATIONS_SHAPE = "((claim, reason) for each claim, uncovered claims, disclosed documents)"


def fixture_pairs():
    return [(name, system) for name in CASES for system in RUNS[name]]


class Fixture(TestCase):
    """fixtures.py scores as written down in the row tables, and scoring leaves it unchanged."""

    def test_every_fixture_run_agrees_with_the_oracle_in_value_type_and_key_order(self):
        def typed(result):  # a ratio is a float, abstention a bool, in the contract's order
            return result, [(key, type(value)) for key, value in result.items()]

        def oracle_of(name, system):
            case, run = CASES[name], RUNS[name][system]
            return typed(oracle(case["relevant"], case["support"], run["retrieved"],
                                run["claims"], 2))
        rows = [(pair, oracle_of(*pair)) for pair in fixture_pairs()]
        self.assertRows(lambda name, system: typed(evaluate.evaluate(
            CORPUS, CASES[name], RUNS[name][system])), rows)

    def test_every_fixture_run_scores_exactly(self):
        by_system = {system: fixture_scores(system) for system in "AB"}
        scored = {(name, system): tuple(by_system[system][name].values())
                  for name, system in fixture_pairs()}
        self.assertRowTable(scored, EXPECTED_SCORES, "EXPECTED_SCORES", SCORES_SHAPE)

    def test_every_fixture_run_is_explained_exactly(self):
        by_system = {system: evaluate.explain_system(CORPUS, CASES, RUNS, system)
                     for system in "AB"}
        explained = {(name, system): tuple(by_system[system][name].values())
                     for name, system in fixture_pairs()}
        self.assertRowTable(explained, EXPECTED_EXPLANATIONS, "EXPECTED_EXPLANATIONS",
                            EXPLANATIONS_SHAPE)

    def test_scoring_leaves_the_fixture_unchanged(self):
        before = copy.deepcopy((CORPUS, CASES, RUNS, POLICY))
        evaluate.report(demo.fixture_data(), summary=True, explain=True)
        for system in ("A", "B"):
            for name in CASES:
                evaluate.explain(CORPUS, CASES[name], RUNS[name][system], k=1)
        self.assertEqual((CORPUS, CASES, RUNS, POLICY), before)


class Metrics(TestCase):
    """Definitions of the metrics beyond the worked checks."""

    def test_reciprocal_rank_follows_the_first_relevant_rank(self):
        def rr(retrieved, k):
            run = {"retrieved": retrieved, "claims": ()}
            return evaluate.evaluate(CORPUS, CASES["owner"], run, k=k)["rr"]
        rows = [
            ((("owners",), 1), 1.0),
            ((("archive", "owners"), 2), 0.5),
            ((("archive", "launch", "owners"), 3), 1 / 3),
            ((("archive", "launch", "rollback", "owners"), 4), 0.25),
            ((("archive", "launch", "owners"), 2), 0.0),   # beyond the cutoff
        ]
        self.assertRows(rr, rows)

    def test_precision_keeps_k_slots_at_every_cutoff(self):
        def precision_and_recall(k):
            run = {"retrieved": ("rollback",), "claims": ()}
            result = evaluate.evaluate(CORPUS, CASE, run, k=k)
            return result["precision"], result["recall"]
        rows = [((1,), (1.0, 0.5)), ((2,), (0.5, 0.5)), ((4,), (0.25, 0.5)), ((100,), (0.01, 0.5))]
        self.assertRows(precision_and_recall, rows)

    def test_only_a_retrieved_source_labelled_for_the_claim_supports_it(self):
        def answer_values(case, retrieved, claims):
            result = evaluate.evaluate(CORPUS, case, {"retrieved": retrieved, "claims": claims})
            return result["support"], result["coverage"], result["abstention_correct"]
        two = RUN["retrieved"]
        rows = [
            ((CASE, ("rollback",), (("smoke", ("checklist",)),)), (0.0, 0.0, None)),  # unretrieved
            ((CASE, two, (("switch", ("checklist",)), ("smoke", ("checklist",)))),
             (0.5, 0.5, None)),                                # smoke's source backs not switch
            ((CASES["region"], ("archive",), (("region", ("archive",)), ("x", ()))),
             (0.0, None, False)),                              # no claim of it is ever supported
        ]
        self.assertRows(answer_values, rows)

    def test_tally_keeps_the_counts_behind_each_ratio(self):
        counts = evaluate.tally(CORPUS, CASES["launch"], RUNS["launch"]["B"])
        self.assertEqual(list(counts.items()), list(LAUNCH_B.items()))  # the keys, in order
        counts = evaluate.tally(CORPUS, CASE, {"retrieved": ("archive",), "claims": ()}, k=3)
        self.assertEqual(counts, dict(NOTHING_BACK, k=3))
        counts = evaluate.tally(CORPUS, CASES["owner"], RUNS["owner"]["B"])
        self.assertEqual(counts["disclosed"], 1)  # archive, restricted, is in the top 2

    def test_scores_come_from_the_tally_alone(self):
        counts = {"relevant": 4, "k": 8, "hits": 2, "first_hit": 4, "generated": 8,
                  "supported": 3, "expected": 4, "covered": 2, "disclosed": 3}
        expected = {"precision": 0.25, "recall": 0.5, "rr": 0.25,
                    "support": 0.375, "coverage": 0.5, "abstention_correct": None}
        self.assertEqual(evaluate._scores(counts), expected)


# rollback, its checklist note ranked third and cited for smoke
THIRD = {"retrieved": ("rollback", "archive", "checklist"), "claims": (("smoke", ("checklist",)),)}


class Explain(TestCase):
    """explain() names the first rule each unsupported claim breaks, and what is uncovered."""

    def test_each_unsupported_claim_gets_the_first_rule_it_breaks(self):
        def reason(citations, claim="switch", k=2):
            run = {"retrieved": THIRD["retrieved"], "claims": ((claim, citations),)}
            return evaluate.explain(CORPUS, CASE, run, k=k)["claims"][0][1]
        rows = [
            ((("rollback",),), None),                                  # supported
            (((),), "no citation"),
            ((("rollback",), "swtich"), "no label"),                   # a typo in the claim ID
            (((), "swtich"), "no citation"),                           # no citation comes first
            ((("rollbak",),), "not in the corpus"),                    # a typo in a citation
            ((("rollback", "rollbak"),), "not in the corpus"),
            ((("archive",),), "not a labelled source"),
            ((("archive", "rollbak"),), "not in the corpus"),          # checked before labels
            ((("checklist",), "smoke"), "outside the top k"),          # third at k=2
            ((("checklist",), "smoke", 3), None),
            ((("checklist", "archive"), "smoke"), "not a labelled source"),  # before the cutoff
        ]
        self.assertRows(reason, rows)

    def test_default_cutoff_is_two(self):
        self.assertEqual(evaluate.explain(CORPUS, CASE, THIRD), {
            "claims": (("smoke", "outside the top k"),), "uncovered": ("switch", "smoke"),
            "disclosed": ()})

    def test_claims_come_in_answer_order_and_uncovered_in_label_order(self):
        run = {"retrieved": ("checklist", "rollback"),
               "claims": (("x", ()), ("smoke", ("checklist",)), ("switch", ("launch",)))}
        self.assertEqual(evaluate.explain(CORPUS, CASE, run), {
            "claims": (("x", "no citation"), ("smoke", None), ("switch", "not a labelled source")),
            "uncovered": ("switch",), "disclosed": ()})
        self.assertEqual(evaluate.explain(CORPUS, CASE, {"retrieved": (), "claims": ()}),
                         {"claims": (), "uncovered": ("switch", "smoke"), "disclosed": ()})


class Disclosure(TestCase):
    """A restricted document in the top k or cited is disclosed: a fact beside the scores."""

    def disclosed(self, retrieved, claims, k=2, restricted=("archive", "launch")):
        """Return explain()'s disclosures on the rollback case, and how many tally() counts."""
        case = case_with(restricted=restricted)
        run = {"retrieved": retrieved, "claims": claims}
        return (evaluate.explain(CORPUS, case, run, k=k)["disclosed"],
                evaluate.tally(CORPUS, case, run, k=k)["disclosed"])

    def test_a_restricted_document_is_disclosed_in_the_top_k_or_when_cited(self):
        rows = [
            ((("rollback", "archive"), ()), ("archive",)),              # shown to the answer stage
            ((("rollback", "checklist", "archive"), ()), ()),           # beyond the top 2
            ((("rollback", "checklist", "archive"), (), 3), ("archive",)),
            ((("rollback",), (("switch", ("archive",)),)), ("archive",)),  # cited, not retrieved
            ((("rollback",), (("x", ("rollback", "launch")),)), ("launch",)),
            (((), ()), ()),
            ((("launch", "archive"), ()), ("archive", "launch")),       # in the order of restricted
            ((("launch", "archive"), (), 2, ()), ()),                   # nothing restricted
        ]
        # (the documents explain() names, the count tally() gives): always as many
        self.assertRows(self.disclosed, [(inputs, (found, len(found))) for inputs, found in rows])

    def test_a_disclosure_never_changes_the_six_values(self):
        def unrestricted(name):
            return {key: value for key, value in CASES[name].items() if key != "restricted"}

        def all_else_restricted(name, system, k):
            case = unrestricted(name)
            case["restricted"] = tuple(doc for doc in CORPUS if doc not in case["relevant"])
            return evaluate.evaluate(CORPUS, case, RUNS[name][system], k=k)
        rows = [((name, system, k), evaluate.evaluate(CORPUS, unrestricted(name),
                                                      RUNS[name][system], k=k))
                for name in CASES for system in RUNS[name] for k in (1, 2, 3)]
        self.assertRows(all_else_restricted, rows)

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

        def found(case, run, k):  # tally() counts what explain() names: see above
            return evaluate.explain(SWEEP_CORPUS, case, run, k=k)["disclosed"]
        rows = []
        for trial in range(1000):
            case, run, k = random_inputs()
            rows.append(((case, run, k), oracle_disclosed(case["restricted"], run["retrieved"],
                                                          run["claims"], k)))
        self.assertRows(found, rows)
        disclosing = len([row for row in rows if row[1]])
        self.assertTrue(300 < disclosing < 700, disclosing)  # both outcomes are common

    def test_the_summary_names_a_document_disclosed_by_a_citation_alone(self):
        cited = {"retrieved": ("owners",), "claims": (("aurora", ("owners", "archive")),)}
        runs = dict(four_questions()["runs"], owner=dict(RUNS["owner"], B=cited))
        self.assertEqual(summary_of(runs=runs)["disclosures"]["B"], [("owner", ("archive",))])


# --- Two readings of the labels ------------------------------------------------------

def without_reviews(case):
    return {key: value for key, value in case.items() if key not in ("disputed", "rejected")}


def merged_apart(case):
    """Return the lenient reading's (support, optional), in plain loops, apart from
    evaluate.py: a disputed source joins its claim's expected labels if it has some, else
    its optional ones."""
    support, optional = dict(case["support"]), dict(case.get("optional", {}))
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

    def test_the_lenient_reading_adds_each_disputed_source_and_expects_no_new_claim(self):
        rows = [
            ((CASES["launch"],), dict(without_reviews(CASES["launch"]),
                                      optional={"bonus": ("launch",)})),
            ((case_with(disputed={"switch": ("checklist",), "extra": ("launch",)}),),
             case_with(support={"switch": ("rollback", "checklist"), "smoke": ("checklist",)},
                       optional={"extra": ("launch",)})),
            ((CASES["region"],), CASES["region"]),  # rejected claims stay as they are
            ((CASE,), CASE),
        ]
        self.assertRows(evaluate.lenient, rows)

    def test_the_lenient_reading_is_a_new_case_and_leaves_the_old_one_alone(self):
        before = copy.deepcopy(CASES["launch"])
        loose = evaluate.lenient(CASES["launch"])
        self.assertIsNot(loose["support"], CASES["launch"]["support"])
        self.assertEqual(CASES["launch"], before)

    def test_the_six_values_never_depend_on_disputed_labels_or_rejected_claims(self):
        rows = [((name, system, k), evaluate.tally(CORPUS, without_reviews(CASES[name]),
                                                   RUNS[name][system], k=k))
                for name in CASES for system in RUNS[name] for k in (1, 2)]
        self.assertRows(lambda name, system, k: evaluate.tally(CORPUS, CASES[name],
                                                               RUNS[name][system], k=k), rows)

    def test_both_readings_agree_with_an_oracle_written_apart(self):
        rng = random.Random(17)

        def readings(case, run, k):
            strict = evaluate.evaluate(SWEEP_CORPUS, case, run, k=k)
            loose = evaluate.evaluate(SWEEP_CORPUS, evaluate.lenient(case), run, k=k)
            why = evaluate.explain(SWEEP_CORPUS, case, run, k=k)["claims"]
            return strict, loose, [reason if reason in TOLD_APART else "another rule"
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
                    told.append("another rule")
            # The lenient reading never adds an expected claim: coverage keeps its denominator.
            return (oracle(case["relevant"], case["support"], *args, optional=case["optional"]),
                    oracle(case["relevant"], support, *args, optional=optional), told)
        rows = []
        for trial in range(READINGS_TRIALS):
            case, run, k = random_reviewed_question(rng)
            rows.append(((case, run, k), expected(case, run, k)))
        self.assertRows(readings, rows)
        told = collections.Counter(reason for _, (_, _, why) in rows for reason in why)
        self.assertTrue(all(told[reason] > 30 for reason in TOLD_APART), told)  # all common

    def test_each_fault_in_the_review_keys_is_named_by_lenient_too(self):
        rows = [((what, arguments["case"]), message) for what, arguments, message in REJECTED
                if message.startswith(('case["disputed"]', 'case["rejected"]', 'case["optional"]'))
                and "unknown document" not in message]  # lenient() has no corpus to know
        self.assertEqual(len(rows), 20)
        rows += [(("a case that is no dict", ()), "case: expected a dict, got ()"),
                 (("no relevant documents", {"support": {}}),
                  "case[\"relevant\"]: missing from {'support': {}}"),
                 (("relevant as a list", case_with(relevant=["rollback"])),
                  "case[\"relevant\"]: expected a tuple, got ['rollback']")]
        self.assertRows(lambda what, case: message_of(evaluate.lenient, {"case": case}), rows)

    def test_a_decision_needs_something_judged(self):
        self.assertIsNone(evaluate._decision("both", {"accepted": None}, {"accepted": None}))
        data = four_questions(cases=undisclosing(), policy={"critical": ("launch",)})
        self.assertIn("decision for A alone under the plan 'both': none, as no rule of the policy "
                      "could be checked (strict reading: 0 broken, 0 held; lenient reading: 0 "
                      "broken, 0 held); both readings agree",
                      text_of(data, "--summary").splitlines())

    def test_the_decision_takes_the_readings_its_plan_names(self):
        def accepted(plan, strict, loose):
            return evaluate._decision(plan, {"accepted": strict},
                                      None if loose is None else {"accepted": loose})
        rows = []
        for plan, takes in (("strict", ("strict",)), ("lenient", ("lenient",)),
                            ("both", ("strict", "lenient"))):
            for strict, loose in itertools.product((True, False), repeat=2):
                judged = {"strict": strict, "lenient": loose}
                rows.append(((plan, strict, loose), all(judged[name] for name in takes)))
            rows.append(((plan, False, None), False))  # nothing disputed: strict decides
            rows.append(((plan, True, None), True))
        self.assertRows(accepted, rows)

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
        agreeing = summary_of()
        self.assertEqual([(decided["plan"], decided["depends_on"]) for decided in (
            agreeing["comparisons"][0]["decision"], agreeing["policy"]["baseline_alone"])],
                         [("both", []), ("both", [])])  # the fixture's plan; nothing to resolve
        unplanned = {rule: value for rule, value in POLICY.items() if rule != "unresolved"}
        self.assertEqual(decision_of(four_questions(policy=unplanned))["plan"], "both")
        line = text_of(four_questions(cases=undisclosing()), "--summary").splitlines()[-1]
        self.assertEqual(line, "decision for B against A under the plan 'both': not accepted "
                               "(strict reading: 2 broken, 5 held; lenient reading: 0 broken, "
                               "7 held); the readings disagree, so resolve these disputed labels "
                               "first: launch: bonus <- launch")

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

    def test_the_review_queue_lists_exactly_the_claims_nobody_reviewed(self):
        data = four_questions(cases=unreviewed())
        self.assertEqual(evaluate.report(data, explain=True)["review_queue"],
                         [("A", "region", "region", ("archive",)),
                          ("B", "launch", "bonus", ("launch",))])
        self.assertEqual(summary_of(cases=unreviewed())["unreviewed"], {"A": 1, "B": 1})
        self.assertEqual(text_of(data, "--explain").splitlines()[-3:], [
            "claims nobody has labelled, rejected or disputed: the next round of reviewing",
            "A | region: claim region citing archive", "B | launch: claim bonus citing launch"])
        self.assertEqual(evaluate.report(four_questions(), explain=True)["review_queue"], [])
        bare = {"retrieved": (), "claims": (("guess", ()),)}  # no citation, and no label either
        runs = dict(four_questions()["runs"], region={"A": bare, "B": RUNS["region"]["B"]})
        self.assertEqual(evaluate.report(four_questions(runs=runs), explain=True)["review_queue"],
                         [("A", "region", "guess", ())])
        self.assertEqual(summary_of(runs=runs)["unreviewed"], {"A": 1, "B": 0})
        guesses = {"retrieved": (), "claims": (("extra", ()), ("guess", ()), ("hunch", ()))}
        runs = dict(four_questions()["runs"], rollback=dict(RUNS["rollback"], A=guesses))
        cases = undisclosing(rollback=dict(CASES["rollback"], optional={"extra": ("launch",)}))
        self.assertEqual(summary_of(cases=cases, runs=runs)["unreviewed"], {"A": 2, "B": 0})

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
            (({"extra": ("checklist",)}, {"critical": ("launch", "owner")}), bonus),
        ]
        self.assertRows(depends_on, rows)


TOLD_APART = (None, "only a disputed label supports it", "judged unsupported", "no label")
# Random questions scored in both readings on each run; .ci/run asks for 5,000 once.
READINGS_TRIALS = int(os.environ.get("READINGS_TRIALS", 500))


# --- Input rules --------------------------------------------------------------------

IDS_101_SHOWN = "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11', 'd..."
BLANK_TEXT = "corpus['archive']: expected text with a non-whitespace character, got "
DISAGREED = " is also in case[\"support\"] or case[\"optional\"]"
HAS_SOURCES = " has sources in case[\"support\"], case[\"optional\"] or case[\"disputed\"]"
NOT_A_PAIR = "expected a (claim ID, citations) pair, got "

# (what is wrong, evaluate()'s arguments, the exact message)
REJECTED = [
    # k: an exact int from 1 to 100.
    ("k of 0", inputs(k=0), "k: expected an int from 1 to 100, got 0"),
    ("k of 101", inputs(k=101), "k: expected an int from 1 to 100, got 101"),
    ("k of True", inputs(k=True), "k: expected an int from 1 to 100, got True"),
    ("k of 1.5", inputs(k=1.5), "k: expected an int from 1 to 100, got 1.5"),
    ("k as text", inputs(k="2"), "k: expected an int from 1 to 100, got '2'"),
    ("k of None", inputs(k=None), "k: expected an int from 1 to 100, got None"),
    # corpus: a non-empty dict of at most 100 IDs to texts that are not blank.
    ("corpus as a list", inputs(corpus=["launch"]), "corpus: expected a dict, got ['launch']"),
    ("corpus as a dict subclass", inputs(corpus=Dict(owners="The team.")),
     "corpus: expected a dict, got {'owners': 'The team.'}"),
    ("empty corpus", inputs(corpus={}), "corpus: expected at least one document, got {}"),
    ("101 documents", inputs(corpus=dict.fromkeys(IDS_101, "A note.")),
     "corpus: expected at most 100 IDs, got 101: " + IDS_101_SHOWN),
    ("blank text", inputs(corpus=dict(CORPUS, archive=" \n\t")), BLANK_TEXT + "' \\n\\t'"),
    ("empty text", inputs(corpus=dict(CORPUS, archive="")), BLANK_TEXT + "''"),
    ("text as bytes", inputs(corpus=dict(CORPUS, archive=b"old")), BLANK_TEXT + "b'old'"),
    ("text as a str subclass", inputs(corpus=dict(CORPUS, archive=Str("old"))),
     BLANK_TEXT + "'old'"),
    # case: a dict with an ID tuple "relevant" and a dict "support".
    ("case as a tuple", inputs(case=()), "case: expected a dict, got ()"),
    ("case as a dict subclass", inputs(case=Dict(relevant=(), support={})),
     "case: expected a dict, got {'relevant': (), 'support': {}}"),
    ("case without relevant", inputs(case={"support": {}}),
     "case[\"relevant\"]: missing from {'support': {}}"),
    ("relevant as a list", case_input(relevant=["rollback"]),
     "case[\"relevant\"]: expected a tuple, got ['rollback']"),
    ("relevant as a tuple subclass", case_input(relevant=Tuple(["rollback"])),
     "case[\"relevant\"]: expected a tuple, got ('rollback',)"),
    ("unknown relevant document", case_input(relevant=("rollback", "zeta")),
     "case[\"relevant\"]: unknown document 'zeta'"),
    ("repeated relevant document", case_input(relevant=("rollback", "rollback")),
     "case[\"relevant\"]: repeated ID 'rollback'"),
    ("case without support", inputs(case={"relevant": ()}),
     "case[\"support\"]: missing from {'relevant': ()}"),
    ("support as a list", case_input(support=[]), "case[\"support\"]: expected a dict, got []"),
    ("support as a dict subclass", case_input(support=Dict()),
     "case[\"support\"]: expected a dict, got {}"),
    ("101 claim labels", case_input(support=dict.fromkeys(IDS_101, ("rollback",))),
     "case[\"support\"]: expected at most 100 IDs, got 101: " + IDS_101_SHOWN),
    ("sources as a list", case_input(support={"switch": ["rollback"]}),
     "case[\"support\"]['switch']: expected a tuple, got ['rollback']"),
    ("no sources", case_input(support={"switch": ()}),
     "case[\"support\"]['switch']: expected at least one source, got ()"),
    ("repeated source", case_input(support={"switch": ("rollback", "rollback")}),
     "case[\"support\"]['switch']: repeated ID 'rollback'"),
    ("source outside relevant", case_input(support={"switch": ("launch",)}),
     "case[\"support\"]['switch']: source 'launch' is not in case[\"relevant\"]"),
    ("claims expected of an unanswerable question",
     inputs(case={"relevant": (), "support": {"switch": ("rollback",)}}),
     "case[\"support\"]['switch']: source 'rollback' is not in case[\"relevant\"]"),
    ("relevant documents but no expected claim", case_input(support={}),
     "case[\"support\"]: expected claims for case[\"relevant\"] ('rollback', 'checklist'), got {}"),
    # case["disputed"] and case["rejected"], when given: labels reviewers did not agree on,
    # and claims they found unsupported by every document.
    ("disputed as a list", case_input(disputed=[]), "case[\"disputed\"]: expected a dict, got []"),
    ("disputed claim ID with a capital", case_input(disputed={"Steps": ("rollback",)}),
     "case[\"disputed\"]: invalid ID 'Steps'" + ID_RULE),
    ("disputed sources as a list", case_input(disputed={"steps": ["rollback"]}),
     "case[\"disputed\"]['steps']: expected a tuple, got ['rollback']"),
    ("no disputed source", case_input(disputed={"steps": ()}),
     "case[\"disputed\"]['steps']: expected at least one source, got ()"),
    ("a disputed source of an expected claim outside relevant",
     case_input(disputed={"switch": ("launch",)}),
     "case[\"disputed\"]['switch']: source 'launch' is not in case[\"relevant\"]"),
    ("a disputed source outside the corpus", case_input(disputed={"steps": ("zeta",)}),
     "case[\"disputed\"]['steps']: unknown document 'zeta'"),
    ("a label both agreed and disputed", case_input(disputed={"switch": ("checklist", "rollback")}),
     "case[\"disputed\"]['switch']: source 'rollback'" + DISAGREED),
    ("an optional label also disputed",
     case_input(optional={"extra": ("launch",)}, disputed={"extra": ("launch",)}),
     "case[\"disputed\"]['extra']: source 'launch'" + DISAGREED),
    ("rejected as a list", case_input(rejected=["extra"]),
     "case[\"rejected\"]: expected a tuple, got ['extra']"),
    ("a rejected claim repeated", case_input(rejected=("extra", "extra")),
     "case[\"rejected\"]: repeated ID 'extra'"),
    ("a rejected claim with a label", case_input(rejected=("smoke",)),
     "case[\"rejected\"]: claim 'smoke'" + HAS_SOURCES),
    ("a rejected claim that is disputed",
     case_input(disputed={"steps": ("rollback",)}, rejected=("steps",)),
     "case[\"rejected\"]: claim 'steps'" + HAS_SOURCES),
    # case["optional"]: claims judged supported that no answer has to make.
    ("optional as a list", case_input(optional=[]), "case[\"optional\"]: expected a dict, got []"),
    # A key a case may leave out may not be None.
    ("optional None", case_input(optional=None), "case[\"optional\"]: expected a dict, got None"),
    ("disputed None", case_input(disputed=None), "case[\"disputed\"]: expected a dict, got None"),
    ("rejected None", case_input(rejected=None), "case[\"rejected\"]: expected a tuple, got None"),
    ("grades of None", case_input(grades=None), "case[\"grades\"]: expected a grade for each "
     "document of case[\"relevant\"] ('rollback', 'checklist'), got None"),
    ("group of None", case_input(group=None), "case[\"group\"]: invalid name None" + NAME_RULE),
    ("an optional claim that is expected", case_input(optional={"smoke": ("launch",)}),
     "case[\"optional\"]: claim 'smoke' is also in case[\"support\"]"),
    ("an optional source outside the corpus", case_input(optional={"x": ("zeta",)}),
     "case[\"optional\"]['x']: unknown document 'zeta'"),
    ("no optional source", case_input(optional={"x": ()}),
     "case[\"optional\"]['x']: expected at least one source, got ()"),
    # case["support"] of None, for answers nobody labelled: no other label then.
    ("a disputed label where no answer is labelled",
     case_input(support=None, disputed={"x": ("launch",)}),
     "case[\"disputed\"]: labels claims, but case[\"support\"] is None: got {'x': ('launch',)}"),
    ("an optional claim where no answer is labelled",
     case_input(support=None, optional={"x": ("launch",)}),
     "case[\"optional\"]: labels claims, but case[\"support\"] is None: got {'x': ('launch',)}"),
    ("a rejected claim where no answer is labelled", case_input(support=None, rejected=("x",)),
     "case[\"rejected\"]: labels claims, but case[\"support\"] is None: got ('x',)"),
    # case["grades"] and case["group"], when given.
    ("grades of other documents", case_input(grades={"rollback": 2}),
     "case[\"grades\"]: expected a grade for each document of case[\"relevant\"] ('rollback', "
     "'checklist'), got {'rollback': 2}"),
    ("a grade of 0", case_input(grades={"rollback": 0, "checklist": 1}),
     "case[\"grades\"]['rollback']: expected an int from 1 to 100, got 0"),
    ("grades as a list", case_input(grades=[2, 1]), "case[\"grades\"]: expected a grade for "
     "each document of case[\"relevant\"] ('rollback', 'checklist'), got [2, 1]"),
    ("a grade of 101", case_input(grades={"rollback": 101, "checklist": 1}),
     "case[\"grades\"]['rollback']: expected an int from 1 to 100, got 101"),
    ("a grade of True", case_input(grades={"rollback": 2, "checklist": True}),
     "case[\"grades\"]['checklist']: expected an int from 1 to 100, got True"),
    ("a group with a space", case_input(group="chat 7"),
     "case[\"group\"]: invalid name 'chat 7'" + NAME_RULE),
    # A key a letter or two from a known one is a typo, not a free key.
    ("a misspelt disputed", case_input(disputes={"x": ("launch",)}),
     'case["disputes"]: unknown key; did you mean "disputed"?'),
    ("a capital in a known key", case_input(Restricted=("archive",)),
     'case["Restricted"]: unknown key; did you mean "restricted"?'),
    ("a misspelt claims", inputs(run={"retrieved": (), "claims": (), "claim": ()}),
     'run["claim"]: unknown key; did you mean "claims"?'),
    ("two letters added", case_input(irrelevant=()),
     'case["irrelevant"]: unknown key; did you mean "relevant"?'),
    ("two letters added at the end", case_input(supported={}),
     'case["supported"]: unknown key; did you mean "support"?'),
    ("two letters left out", case_input(restrict=()),
     'case["restrict"]: unknown key; did you mean "restricted"?'),
    ("a key that is not a str", inputs(case={**CASE, 1: "x"}), "case: expected keys that are str, "
     "got 1"),
    # case["restricted"], when given: an ID tuple of corpus documents, none of them relevant.
    ("restricted as a list", case_input(restricted=["archive"]),
     "case[\"restricted\"]: expected a tuple, got ['archive']"),
    ("unknown restricted document", case_input(restricted=("archive", "zeta")),
     "case[\"restricted\"]: unknown document 'zeta'"),
    ("repeated restricted document", case_input(restricted=("archive", "archive")),
     "case[\"restricted\"]: repeated ID 'archive'"),
    ("a relevant document restricted", case_input(restricted=("archive", "checklist")),
     "case[\"restricted\"]: document 'checklist' is in case[\"relevant\"]"),
    ("101 restricted documents", inputs(corpus=CORPUS_100, run={"retrieved": (), "claims": ()},
                                        case=dict(CASES["region"], restricted=IDS_101)),
     "case[\"restricted\"]: expected at most 100 IDs, got 101: " + IDS_101_SHOWN),
    # run: a dict with an ID tuple "retrieved" and a tuple of claims.
    ("run as None", inputs(run=None), "run: expected a dict, got None"),
    ("run as a dict subclass", inputs(run=Dict(retrieved=(), claims=())),
     "run: expected a dict, got {'retrieved': (), 'claims': ()}"),
    ("run without retrieved", inputs(run={"claims": ()}),
     "run[\"retrieved\"]: missing from {'claims': ()}"),
    ("run without claims", inputs(run={"retrieved": ()}),
     "run[\"claims\"]: missing from {'retrieved': ()}"),
    ("retrieved as a string", run_input(retrieved="rollback"),
     "run[\"retrieved\"]: expected a tuple, got 'rollback'"),
    ("unknown retrieved document", run_input(retrieved=("rollback", "zeta")),
     "run[\"retrieved\"]: unknown document 'zeta'"),
    ("repeated retrieved document", run_input(retrieved=("archive", "rollback", "rollback")),
     "run[\"retrieved\"]: repeated ID 'rollback'"),
    ("101 retrieved IDs", inputs(corpus=CORPUS_100, case=CASES["region"],
                                 run=run_with(retrieved=IDS_101)),
     "run[\"retrieved\"]: expected at most 100 IDs, got 101: " + IDS_101_SHOWN),
    ("claims as a list", run_input(claims=[]), "run[\"claims\"]: expected a tuple, got []"),
    ("101 claims", run_input(claims=tuple((i, ()) for i in IDS_101)),
     "run[\"claims\"]: expected at most 100 claims, got 101: "
     "(('d0', ()), ('d1', ()), ('d2', ()), ('d3', ()), ('d4', ()), ('d5', ()), ('d6..."),
    ("claim as a bare ID", run_input(claims=("switch",)),
     "run[\"claims\"][0]: " + NOT_A_PAIR + "'switch'"),
    ("claim as a triple", run_input(claims=(("switch", ("rollback",), 1),)),
     "run[\"claims\"][0]: " + NOT_A_PAIR + "('switch', ('rollback',), 1)"),
    ("claim as a namedtuple", run_input(claims=(Pair("switch", ()),)),
     "run[\"claims\"][0]: " + NOT_A_PAIR + "Pair(claim='switch', citations=())"),
    ("repeated claim ID", run_input(claims=(("switch", ()), ("switch", ()))),
     "run[\"claims\"][1]: repeated claim ID 'switch'"),
    ("citations as a string", run_input(claims=(("switch", "rollback"),)),
     "run[\"claims\"][0][1]: expected a tuple, got 'rollback'"),
    ("repeated citation", run_input(claims=(("x", ()), ("switch", ("a", "a")))),
     "run[\"claims\"][1][1]: repeated ID 'a'"),
    ("101 citations", run_input(claims=(("switch", IDS_101),)),
     "run[\"claims\"][0][1]: expected at most 100 IDs, got 101: " + IDS_101_SHOWN),
    # An unhashable item in an ID tuple is an invalid ID.
    ("an unhashable relevant ID", case_input(relevant=(["rollback"],)),
     "case[\"relevant\"]: invalid ID ['rollback']" + ID_RULE),
    ("an unhashable source", case_input(support={"switch": ([],)}),
     "case[\"support\"]['switch']: invalid ID []" + ID_RULE),
    ("an unhashable retrieved ID", run_input(retrieved=({},)),
     "run[\"retrieved\"]: invalid ID {}" + ID_RULE),
    ("an unhashable citation", run_input(claims=(("switch", ([],)),)),
     "run[\"claims\"][0][1]: invalid ID []" + ID_RULE),
    # A value longer than 80 characters is cut to 80 in a message.
    ("an ID of 78 characters, shown whole", run_input(retrieved=("a" * 78,)),
     "run[\"retrieved\"]: invalid ID '" + "a" * 78 + "'" + ID_RULE),
    ("an ID of 79 characters, cut", run_input(retrieved=("a" * 79,)),
     "run[\"retrieved\"]: invalid ID '" + "a" * 76 + "..." + ID_RULE),
    ("an ID of 100 characters, cut", run_input(retrieved=("a" * 100,)),
     "run[\"retrieved\"]: invalid ID '" + "a" * 76 + "..." + ID_RULE),
]

# (what is at the boundary, evaluate()'s arguments): each must be accepted.
ACCEPTED = [
    ("k of 1", inputs(k=1)),
    ("k of 100", inputs(k=100)),
    ("one-character IDs",
     inputs(corpus={"a": "x"}, case={"relevant": ("a",), "support": {"b": ("a",)}},
            run={"retrieved": ("a",), "claims": (("c", ("a",)),)})),
    ("32-character IDs",
     inputs(corpus={ID_32: "x"}, case={"relevant": (ID_32,), "support": {ID_32: (ID_32,)}},
            run={"retrieved": (ID_32,), "claims": ((ID_32, (ID_32,)),)})),
    ("IDs with digits and hyphens",
     inputs(corpus={"a-1": "x", "z9-": "y"},
            case={"relevant": ("a-1",), "support": {"c-2": ("a-1",)}},
            run={"retrieved": ("z9-", "a-1"), "claims": (("c-2", ("a-1",)),)})),
    ("100 documents, all retrieved and relevant, 100 claims of 100 citations",
     inputs(corpus=CORPUS_100,
            case={"relevant": IDS_100, "support": {i: IDS_100 for i in IDS_100}},
            run={"retrieved": IDS_100, "claims": tuple((i, IDS_100) for i in IDS_100)})),
    ("an empty retrieval and an empty answer", inputs(run={"retrieved": (), "claims": ()})),
    ("a claim with no citations", run_input(claims=(("switch", ()),))),
    ("a citation outside the corpus", run_input(claims=(("switch", ("zeta",)),))),
    ("a claim with no support label", run_input(claims=(("extra", ("rollback",)),))),
    ("other keys in case and run", inputs(case=case_with(question="?", notes=[1]),
                                          run=run_with(model="m1", answer="Roll back."))),
    ("text padded with whitespace", inputs(corpus=dict(CORPUS, archive="\n old \n"))),
    ("nothing disputed or rejected", case_input(disputed={}, rejected=())),
    ("a claim with an agreed and a disputed source",
     case_input(disputed={"switch": ("checklist",)})),
    ("a run that makes no answer", run_input(claims=None)),
    ("a case whose answers nobody labelled", case_input(support=None)),
    ("an unanswerable case nobody labelled", inputs(case={"relevant": (), "support": None})),
    ("an optional claim citing a document that is not relevant",
     case_input(optional={"extra": ("launch",)})),
    ("a disputed source of an unexpected claim that is not relevant",
     case_input(disputed={"extra": ("archive",)})),
    ("grades of 1 and 100", case_input(grades={"rollback": 1, "checklist": 100})),
    ("a group", case_input(group="chat-7")),
    ("free keys three letters from every known key",
     inputs(case=case_with(supp=1, query="?", restarted=1), run=run_with(model="m1"))),
    ("a key beyond ASCII a letter from a known one", case_input(**{"gr\u00e4des": 1})),
    ("a rejected claim the run makes", inputs(case=case_with(rejected=("extra",)),
                                              run=run_with(claims=(("extra", ("rollback",)),)))),
    ("nothing restricted", case_input(restricted=())),
    ("documents restricted that are not relevant", case_input(restricted=("archive", "launch"))),
    ("100 restricted documents", inputs(corpus=CORPUS_100, run={"retrieved": (), "claims": ()},
                                        case=dict(CASES["region"], restricted=IDS_100))),
]


class InputRules(TestCase):
    """Each input rule rejects what breaks it and accepts its nearest neighbour."""

    def test_each_fault_raises_an_exact_message_from_every_entry_point_and_changes_nothing(self):
        def rejected(what, name, arguments):
            before = copy.deepcopy(arguments)
            return message_of(getattr(evaluate, name), arguments), arguments == before
        rows = [((what, function, arguments), (message, True))
                for what, arguments, message in REJECTED
                for function in ("evaluate", "validate", "tally", "explain")]
        self.assertRows(rejected, rows)

    def test_nearest_valid_inputs_are_accepted(self):
        rows = [((what, arguments), list(evaluate._METRICS)) for what, arguments in ACCEPTED]
        self.assertRows(lambda what, arguments: list(evaluate.evaluate(**arguments)), rows)

    def test_validate_returns_the_parts_it_checked(self):
        parts = evaluate.validate(CORPUS, CASE, RUN, 2)
        originals = (CASE["relevant"], CASE["support"], RUN["retrieved"], RUN["claims"])
        self.assertEqual(list(map(id, parts)), list(map(id, originals)))  # the same objects

    def test_id_rule_holds_in_every_position_from_every_entry_point(self):
        bad_ids = ["", ID_33, "Rollback", "rollback\n", "roll_back", "roll back", "1st",
                   "-first", "caf\u00e9", "\u212aelvin", "Xmas", "taXi", Str("rollback"), None, 7]
        positions = {  # the start of the message: where the bad ID is put
            "corpus: invalid ID ": lambda bad: inputs(corpus={bad: "x"}),
            'case["relevant"]: invalid ID ': lambda bad: case_input(relevant=(bad,)),
            'case["support"]: invalid ID ': lambda bad: case_input(support={bad: ("rollback",)}),
            "case[\"support\"]['switch']: invalid ID ":
                lambda bad: case_input(support={"switch": (bad,)}),
            'case["restricted"]: invalid ID ': lambda bad: case_input(restricted=(bad,)),
            'run["retrieved"]: invalid ID ': lambda bad: run_input(retrieved=(bad,)),
            'run["claims"][0]: invalid claim ID ': lambda bad: run_input(claims=((bad, ()),)),
            'run["claims"][0][1]: invalid ID ': lambda bad: run_input(claims=(("switch", (bad,)),)),
        }

        def rejected(bad, start, function):
            arguments = positions[start](bad)
            before = copy.deepcopy(arguments)
            return message_of(getattr(evaluate, function), arguments), arguments == before
        rows = [((bad, start, function), (start + ascii(bad) + ID_RULE, True)) for bad in bad_ids
                for start in positions for function in ("evaluate", "validate", "tally", "explain")]
        self.assertRows(rejected, rows)

    def test_a_shown_value_is_its_repr_cut_to_80_characters(self):
        rng = random.Random(11)

        def value(depth=0):
            kind = rng.choice("tldsfqnbix" if depth < 3 else "qnbix")
            if kind in "tl":
                items = [value(depth + 1) for _ in range(rng.randint(0, 5))]
                return tuple(items) if kind == "t" else items
            if kind in "sf":  # of scalars, which can be hashed
                items = [value(3) for _ in range(rng.randint(0, 5))]
                return set(items) if kind == "s" else frozenset(items)
            if kind == "d":
                return {rng.choice(["a", "bb", 3, None]): value(depth + 1) for _ in range(3)}
            return {"q": "x" * rng.randint(0, 90), "n": None, "b": True,
                    "i": rng.randint(-9, 10 ** 9), "x": rng.random()}[kind]
        rows = [((item,), cut(repr(item), 80)) for item in (value() for _ in range(400))]
        rows += [((10 ** 3000,), cut(repr(10 ** 3000), 80)),
                 ((2 ** 9999,), cut(repr(2 ** 9999), 80)),
                 ((-2 ** 10000,), "<int of 10001 bits>"),  # over 10,000 bits: its size
                 # A newline in a repr is escaped: a message stays one line.
                 ((type("Lines", (), {"__repr__": lambda self: "a\nb\rc"})(),), "a\\nb\\rc")]
        self.assertRows(evaluate._shown, rows)

    def test_a_message_reads_no_more_of_a_value_than_it_shows(self):
        read = []

        class Watched:
            def __repr__(self):
                read.append(self)
                return "Watched()"
        huge = ("a" * 100,) + (Watched(),) * 10 ** 5
        self.assertEqual(evaluate._shown(huge), "('" + "a" * 75 + "...")
        self.assertEqual(evaluate._shown([[[Watched(), "b" * 90]]]), "[[[Watched(), '" + "b" * 62
                         + "...")
        self.assertEqual(len(read), 1)  # only the one shown
        many = ("ab",) * 40 + (Watched(),)           # short items that fill the room together
        self.assertEqual(evaluate._shown(many), cut(repr(("ab",) * 40), 80))
        self.assertEqual(evaluate._shown({"k": many}), cut(repr({"k": ("ab",) * 40}), 80))
        deep = ["x"]
        for _ in range(5000):                       # nested beyond any recursion limit
            deep = [deep]
        self.assertEqual(evaluate._shown(deep), "[" * 77 + "...")
        for _ in range(5000):
            deep = {"k": deep}
        self.assertEqual(evaluate._shown(deep), cut("{'k': " * 14, 80))
        self.assertEqual(len(read), 1)

    def test_a_value_whose_repr_fails_is_still_reported(self):
        self.assertEqual(message_of(evaluate.evaluate, inputs(run=BrokenRepr())),
                         "run: expected a dict, got <BrokenRepr with a broken repr>")

    def test_odd_values_anywhere_raise_only_value_errors(self):
        self.assertTrue(issubclass(EvaluationError, ValueError))
        odd = [None, True, 0, 1.5, "", "a", "A", b"a", (), [], {}, ("a",), ("a", "a"),
               (("a", ()),), Str("a"), Tuple(), Dict(), BrokenRepr(), object(), {1: 2}]
        places = [lambda v: inputs(corpus=v), lambda v: inputs(case=v),
                  lambda v: inputs(run=v), lambda v: inputs(k=v),
                  lambda v: inputs(corpus=dict(CORPUS, rollback=v)),
                  lambda v: inputs(case=case_with(relevant=v)),
                  lambda v: inputs(case=case_with(support=v)),
                  lambda v: inputs(case=case_with(support={"switch": v})),
                  lambda v: inputs(case=case_with(restricted=v)),
                  lambda v: inputs(run=run_with(retrieved=v)),
                  lambda v: inputs(run=run_with(claims=v)),
                  lambda v: inputs(run=run_with(claims=(v,))),
                  lambda v: inputs(run=run_with(claims=((v, ()),))),
                  lambda v: inputs(run=run_with(claims=(("switch", v),)))]

        def outcome(place, value):
            try:
                result = evaluate.evaluate(**places[place](value))
            except EvaluationError:
                return "rejected"
            return "scored" if list(result) == list(evaluate._METRICS) else "keys out of order"
        outcomes = collections.Counter(outcome(place, value)
                                       for place in range(len(places)) for value in odd)
        # Eleven are valid: the texts "a" and "A", support of None (no labels),
        # nothing restricted, an empty retrieval, claims of None (no answer) and
        # none, a claim "a" (twice), no citations, and a citation outside the corpus.
        self.assertEqual(outcomes, {"rejected": 269, "scored": 11})


# --- An independent arithmetic sweep ----------------------------------------------

SWEEP_CORPUS = {"a": "Note a.", "b": "Note b.", "c": "Note c.", "d": "A distractor."}

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
    """Score one question with plain loops, written apart from evaluate.py; optional holds
    the labels of claims judged supported but not expected."""
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

def runs_with(name, **systems):
    return dict(RUNS, **{name: systems})


def cases_with(name, **fields):
    return dict(CASES, **{name: dict(CASES[name], **fields)})


class ManyQuestions(TestCase):
    """tally_system() scores every case of one system, and says where a fault is."""

    def test_tally_system_gives_each_case_its_tally_in_case_order(self):
        tallies = evaluate.tally_system(CORPUS, CASES, RUNS, "B", k=1)
        self.assertEqual(list(tallies), list(CASES))
        for name in CASES:
            self.assertEqual(tallies[name], evaluate.tally(CORPUS, CASES[name], RUNS[name]["B"],
                                                           k=1))

    def test_a_fault_names_its_case_and_system_or_only_the_corpus_or_case_at_fault(self):
        def message(what, changes):
            arguments = dict(corpus=CORPUS, cases=CASES, runs=RUNS, system="A")
            return message_of(evaluate.tally_system, dict(arguments, **changes))
        owner_a = RUNS["owner"]["A"]
        bad_b = {"retrieved": (), "claims": (("aurora", "owners"),)}
        rows = [
            (("a bad run", {"system": "B", "runs": runs_with("owner", A=owner_a, B=bad_b)}),
             "case 'owner', system 'B': run[\"claims\"][0][1]: expected a tuple, got 'owners'"),
            (("no run of the system", {"system": "B", "runs": runs_with("owner", A=owner_a)}),
             "case 'owner', system 'B': missing from runs['owner']"),
            (("no runs of the case", {"runs": {name: RUNS[name] for name in ("launch", "region")}}),
             "case 'rollback', system 'A': missing from runs"),
            (("runs of a case as a tuple", {"runs": dict(RUNS, owner=(owner_a,))}),
             "case 'owner', system 'A': runs['owner']: expected a dict, got "
             "({'retrieved': ('archive', 'owners'), 'claims': (('aurora', ('archive',)),)},)"),
            (("runs of a case keyed by a number", {"runs": dict(RUNS, owner={1: owner_a})}),
             "case 'owner', system 'A': runs['owner']: expected keys that are str, got 1"),
            (("runs of an unknown case", {"runs": dict(RUNS, ownr=RUNS["owner"])}),
             "runs: no case named 'ownr'"),
            (("cases as a list", {"cases": ["owner"]}), "cases: expected a dict, got ['owner']"),
            (("runs as a list", {"runs": []}), "runs: expected a dict, got []"),
            (("a system that is not a str", {"system": ["A"]}),
             "system: invalid name ['A']" + NAME_RULE),
            (("k of 0", {"k": 0}), "k: expected an int from 1 to 100, got 0"),
            (("a capital in a corpus ID", {"corpus": dict(CORPUS, Archive="Old notes.")}),
             "corpus: invalid ID 'Archive'" + ID_RULE),
            (("a blank text", {"corpus": dict(CORPUS, archive=" ")}),
             "corpus['archive']: expected text with a non-whitespace character, got ' '"),
            (("a corpus as a list", {"corpus": ["launch"]}),
             "corpus: expected a dict, got ['launch']"),
            (("a source outside relevant", {"cases": cases_with("owner", support={
                "aurora": ("launch",)})}),
             "case 'owner': case[\"support\"]['aurora']: source 'launch' is not in "
             "case[\"relevant\"]"),
            (("a relevant document restricted", {"cases": cases_with("owner",
                                                                     restricted=("owners",))}),
             "case 'owner': case[\"restricted\"]: document 'owners' is in case[\"relevant\"]"),
        ]
        self.assertRows(message, rows)

    def test_a_corpus_larger_than_one_question_allows_is_checked_once(self):
        corpus = dict(CORPUS, **{"n%d" % index: "A note." for index in range(20000)})
        self.assertEqual(evaluate.tally_system(corpus, CASES, RUNS, "B"), fixture_tallies("B"))
        arguments = dict(corpus=dict(corpus, n7=""), cases=CASES, runs=RUNS, system="B")
        self.assertEqual(message_of(evaluate.tally_system, arguments),
                         "corpus['n7']: expected text with a non-whitespace character, got ''")

    def test_explain_system_explains_each_case_at_the_default_cutoff_of_two(self):
        runs = runs_with("rollback", A=RUNS["rollback"]["A"], B=THIRD)  # checklist is third
        explained = evaluate.explain_system(CORPUS, CASES, runs, "B")
        self.assertEqual(explained, {name: evaluate.explain(CORPUS, CASES[name], runs[name]["B"])
                                     for name in CASES})
        self.assertEqual(explained["rollback"]["claims"], (("smoke", "outside the top k"),))

    def test_a_shared_corpus_may_hold_up_to_a_million_documents(self):
        self.assertEqual(evaluate._MAX_DOCUMENTS, 10 ** 6)  # as the README says
        six = {"d%d" % index: "A note." for index in range(6)}

        def message(limit):
            with patched(MAX_DOCUMENTS=limit):
                return message_of(evaluate.tally_system,
                                  dict(corpus=six, cases={}, runs={}, system="A"))
        rows = [((6,), None),
                ((5,), "corpus: expected at most 5 IDs, got 6: ('d0', 'd1', 'd2', 'd3', 'd4', "
                       "'d5')")]
        self.assertRows(message, rows)

    def test_each_result_equals_evaluate_with_the_corpus_cut_down_to_what_it_names(self):
        corpus = dict(CORPUS, **{"n%d" % index: "A note." for index in range(300)})
        runs = runs_with("owner", A={"retrieved": ("n1", "owners", "n2"),
                                     "claims": (("aurora", ("owners", "n250")),)},
                         B={"retrieved": ("n299",), "claims": (("aurora", ("zeta",)),)})

        def cut_down(name, system):
            case, run = CASES[name], runs[name][system]
            named = set(case["relevant"]) | set(case.get("restricted", ())) | set(run["retrieved"])
            for claim_id, citations in run["claims"]:
                named.update(citations)
            # A corpus is never empty: where nothing is named, any one document will do.
            small = {doc_id: corpus[doc_id] for doc_id in named if doc_id in corpus} or {
                "launch": corpus["launch"]}
            return (evaluate.tally(small, case, run, k=3), evaluate.explain(small, case, run, k=3))
        for system in "AB":
            tallies = evaluate.tally_system(corpus, CASES, runs, system, k=3)
            why = evaluate.explain_system(corpus, CASES, runs, system, k=3)
            rows = [((name, system), (tallies[name], why[name])) for name in CASES]
            self.assertRows(cut_down, rows)

    def test_runs_of_other_systems_are_ignored(self):
        runs = runs_with("owner", C={"retrieved": "not even a tuple"}, **RUNS["owner"])
        self.assertEqual(evaluate.tally_system(CORPUS, CASES, runs, "A"), fixture_tallies("A"))


# --- Comparing systems --------------------------------------------------------------

def with_scores(**changes):
    """Return a row of scores, all n/a but for some metrics."""
    return dict(dict.fromkeys(evaluate._METRICS), **changes)


# The comparison of A and B on the four original questions.
EXPECTED_SLICES = {"answerable": ["launch", "rollback", "owner"], "unanswerable": ["region"]}
EXPECTED_MEANS = {
    # metric: (mean, averaged, total) for A, then for B, over the answerable slice
    "precision": ((1.5 / 3, 3, 3), (2.0 / 3, 3, 3)),
    "recall": ((2.5 / 3, 3, 3), (3.0 / 3, 3, 3)),
    "rr": ((2.5 / 3, 3, 3), (3.0 / 3, 3, 3)),
    "support": ((2.0 / 3, 3, 3), (2.5 / 3, 3, 3)),
    "coverage": ((1.5 / 3, 3, 3), (3.0 / 3, 3, 3)),
}
EXPECTED_VERDICTS = {"launch": "regressed", "rollback": "improved", "owner": "improved",
                     "region": "improved",
                     "totals": {"improved": 3, "regressed": 1, "mixed": 0, "unchanged": 0}}


class Comparison(TestCase):
    """Slices, declared aggregates and per-question changes from A to B."""

    def test_slices_part_answerable_from_unanswerable_questions(self):
        self.assertSnapshot(evaluate._slices(fixture_tallies("A", FOUR)), EXPECTED_SLICES,
                            "EXPECTED_SLICES")

    def test_macro_mean_skips_na_and_counts_what_it_averaged(self):
        rows = [
            (([0.5, None, 1.0],), {"mean": 0.75, "averaged": 2, "total": 3}),
            (([0.0, 0.25],), {"mean": 0.125, "averaged": 2, "total": 2}),
            (([0.0],), {"mean": 0.0, "averaged": 1, "total": 1}),
            (([None, None],), {"mean": None, "averaged": 0, "total": 2}),  # n/a, not 0.00
            (([],), {"mean": None, "averaged": 0, "total": 0}),             # an empty slice
            (([0.1] * 10,), {"mean": 0.1, "averaged": 10, "total": 10}),   # rounded once
        ]
        self.assertRows(evaluate._macro_mean, rows)

    def test_answerable_slice_macro_means_match_the_comparison(self):
        means = summary_of()["means"]["answerable"]
        got = {metric: tuple(tuple(means[metric][system].values()) for system in "AB")
               for metric in EXPECTED_MEANS}
        self.assertSnapshot(got, EXPECTED_MEANS, "EXPECTED_MEANS")

    def test_unanswerable_slice_averages_only_what_applies(self):
        means = summary_of()["means"]["unanswerable"]
        self.assertEqual((means["support"]["A"], means["support"]["B"], means["precision"]["A"]),
                         ({"mean": 0.0, "averaged": 1, "total": 1},
                          {"mean": None, "averaged": 0, "total": 1},
                          {"mean": None, "averaged": 0, "total": 1}))

    def test_pooled_support_adds_claim_counts_and_is_na_without_claims(self):
        means = summary_of()["means"]
        self.assertEqual(means["answerable"]["pooled_support"], {
            "A": {"supported": 2, "generated": 3, "ratio": 2 / 3},
            "B": {"supported": 4, "generated": 5, "ratio": 0.8}})
        self.assertEqual(means["answerable"]["support"]["B"]["mean"], 2.5 / 3)  # not 0.8
        self.assertEqual(means["unanswerable"]["pooled_support"]["B"],
                         {"supported": 0, "generated": 0, "ratio": None})  # no claim: n/a

    def test_correct_abstentions_count_only_unanswerable_questions(self):
        means = summary_of()["means"]
        self.assertEqual(means["unanswerable"]["correct_abstentions"],
                         {"A": {"correct": 0, "total": 1}, "B": {"correct": 1, "total": 1}})
        self.assertIsNone(means["answerable"]["correct_abstentions"])
        empty = {name: dict(RUNS[name], B={"retrieved": (), "claims": ()}) for name in FOUR}
        means = summary_of(runs=empty)["means"]  # empty answers elsewhere are not counted
        self.assertEqual(means["unanswerable"]["correct_abstentions"]["B"],
                         {"correct": 1, "total": 1})

    def test_change_compares_values_and_leaves_na_unjudged(self):
        rows = [
            ((0.5, 1.0), "better"), ((1.0, 0.5), "worse"), ((0.5, 0.5), "equal"),
            ((0.0, 0.0), "equal"), ((False, True), "better"), ((True, False), "worse"),
            ((True, True), "equal"), ((None, 0.5), None), ((0.0, None), None), ((None, None), None),
        ]
        self.assertRows(evaluate._change, rows)

    def test_verdict_weighs_better_against_worse_and_leaves_a_change_to_na_unjudged(self):
        rows = [
            ((with_scores(recall=0.5), with_scores(recall=1.0)), "improved"),
            ((with_scores(recall=1.0), with_scores(recall=0.5)), "regressed"),
            ((with_scores(recall=0.5, rr=1.0), with_scores(recall=1.0, rr=0.5)), "mixed"),
            ((with_scores(recall=0.5), with_scores(recall=0.5)), "unchanged"),
            ((with_scores(), with_scores()), "unchanged"),
            ((with_scores(abstention_correct=False), with_scores(abstention_correct=True)),
             "improved"),
            ((with_scores(support=0.0), with_scores(support=None)), "unchanged"),  # to n/a alone
            ((with_scores(support=None), with_scores(support=0.0)), "unchanged"),
        ]
        self.assertRows(evaluate._verdict, rows)

    def test_fixture_verdicts_show_the_regression_behind_better_averages(self):
        before, after = fixture_scores("A", FOUR), fixture_scores("B", FOUR)
        verdicts = {name: evaluate._verdict(before[name], after[name]) for name in FOUR}
        verdicts["totals"] = summary_of()["comparisons"][0]["totals"]
        self.assertSnapshot(verdicts, EXPECTED_VERDICTS, "EXPECTED_VERDICTS")

    def test_verdict_totals_count_every_verdict_in_a_fixed_order(self):
        runs = {name: dict(RUNS[name], B=RUNS[name]["A"]) for name in FOUR}
        totals = summary_of(runs=runs)["comparisons"][0]["totals"]
        self.assertEqual(list(totals.items()), [
            ("improved", 0), ("regressed", 0), ("mixed", 0), ("unchanged", 4)])

    def test_cell_shows_two_decimals_na_and_yes_or_no(self):
        rows = [((0.5,), "0.50"), ((2 / 3,), "0.67"), ((0,), "0.00"),
                ((None,), "n/a"), ((True,), "yes"), ((False,), "no")]
        self.assertRows(evaluate._cell, rows)

    def test_an_exact_p_shows_as_a_fraction_and_a_sampled_one_as_a_decimal(self):
        rows = [((Fraction(1, 2),), "1/2"), ((Fraction(1, 11),), "1/11"),
                ((Fraction(1, 1000),), "1/1000"), ((Fraction(1, 1001),), "0.001"),
                ((Fraction(1.5e-300),), "1.5e-300"), ((Fraction(1e-300),), "below 1e-300"),
                ((Fraction(1, 11), False), "0.091"),  # 1091/12001, sampled, is no exact 1/11
                ((Fraction(1, 2 ** 40),), "9.1e-13"), ((Fraction(1, 2 ** 1200),), "below 1e-300")]
        self.assertRows(evaluate._p_text, rows)


# --- Deciding: the acceptance policy --------------------------------------------------

def counts(relevant=1, hits=1, first_hit=1, generated=1, supported=1, expected=1, disclosed=0):
    """Return a tally at k=2, every supported claim expected; by default a perfect one."""
    return {"relevant": relevant, "k": 2, "hits": hits, "first_hit": first_hit,
            "generated": generated, "supported": supported, "expected": expected,
            "covered": supported, "disclosed": disclosed}


def judgement(policy, candidate, baseline=None):
    """Return the judgement of hand-made tallies by a policy, as report() makes it."""
    evaluate._check_policy_rules(policy, {name: counts["relevant"] > 0
                                          for name, counts in candidate.items()})
    test = None
    if "significance" in policy and baseline is not None:
        metric = policy["significance"]["metric"]
        names = [name for name, counts in candidate.items() if counts["relevant"]]
        test = evaluate.paired_test(
            {name: evaluate._scores(baseline[name])[metric] for name in names},
            {name: evaluate._scores(candidate[name])[metric] for name in names})
    return evaluate._judged(policy, candidate, baseline, test)


ABSTAINED = counts(relevant=0, hits=0, first_hit=None, generated=0, supported=0, expected=0)
ANSWERED = dict(ABSTAINED, generated=1)  # one claim on an unanswerable question
QUESTIONS = {"q": counts(), "r": ABSTAINED}  # q is answerable, r is not

# A policy of one rule that holds for any candidate; a test adds the rule it is about.
LOOSE = {"unsupported_budget": {"answerable": 100, "unanswerable": 100}}
ANSWERABLE_Q = {"q": True, "r": False}  # QUESTIONS, answerable or not
RULES = ("('critical', 'min_coverage', 'unsupported_budget', 'unsupported_rate', "
         "'must_abstain', 'significance')")
TESTED = "('precision', 'recall', 'rr', 'support', 'coverage', 'ndcg')"

DISCLOSED_ARCHIVE = ("disclosure", "owner", "1 restricted document in the top k or cited")

EXPECTED_POLICY_A = {
    "accepted": False,
    "broken": [DISCLOSED_ARCHIVE,
               ("min_coverage", "owner", "coverage 0/1, minimum 1"),
               ("unsupported_budget", "answerable", "1 unsupported claim, budget 0"),
               ("unsupported_budget", "unanswerable", "1 unsupported claim, budget 0"),
               ("must_abstain", "region", "answered with 1 claim")],
    "held": [("min_coverage", "launch", "coverage 1/1, minimum 1")],
    "unchecked": [("critical", "no baseline to compare with")],
    "significance": None,
}

EXPECTED_POLICY_B_AGAINST_A = {
    "accepted": False,
    "broken": [DISCLOSED_ARCHIVE,
               ("critical", "launch", "regressed: support 1.00 -> 0.50"),
               ("unsupported_budget", "answerable", "1 unsupported claim, budget 0")],
    "held": [("critical", "owner", "improved"),
             ("min_coverage", "launch", "coverage 1/1, minimum 1"),
             ("min_coverage", "owner", "coverage 1/1, minimum 1"),
             ("unsupported_budget", "unanswerable", "0 unsupported claims, budget 0"),
             ("must_abstain", "region", "abstained")],
    "unchecked": [],
    "significance": None,
}


def moved(values):
    """Return tallies of coverage 0, 1/3, 2/3 or 1 of 3 claims, or None: an empty answer."""
    return {"q%d" % index: counts(generated=0, expected=3, supported=0) if value is None else
            counts(generated=3, expected=3, supported=int(value * 3))
            for index, value in enumerate(values)}


class Policy(TestCase):
    """check_policy() applies each rule a policy declares, and validates the policy strictly."""

    def test_the_fixture_policy_declares_its_rules_and_its_plan(self):
        self.assertEqual(list(POLICY), ["critical", "min_coverage", "unsupported_budget",
                                        "must_abstain", "unresolved"])

    def test_a_alone_breaks_four_rules_and_discloses(self):
        judged = judgement(POLICY, fixture_tallies("A", FOUR))
        self.assertSnapshot(judged, EXPECTED_POLICY_A, "EXPECTED_POLICY_A")

    def test_b_against_a_discloses_and_breaks_two_rules_over_the_disputed_bonus_claim(self):
        judged = judgement(POLICY, fixture_tallies("B", FOUR), fixture_tallies("A", FOUR))
        self.assertSnapshot(judged, EXPECTED_POLICY_B_AGAINST_A, "EXPECTED_POLICY_B_AGAINST_A")

    def test_each_rule_is_held_or_broken_by_its_numbers(self):
        def outcomes(policy, candidate, baseline=None):
            judged = judgement(policy, candidate, baseline)
            return [(outcome, subject, detail) for outcome in ("broken", "held")
                    for rule, subject, detail in judged[outcome]]

        def cover(minimum):
            return {"critical": ("q",), "min_coverage": minimum}
        critical = {"critical": ("q",)}
        budget = {"unsupported_budget": {"answerable": 1, "unanswerable": 0}}
        rows = [
            # critical: nothing judged may get worse than the baseline.
            ((critical, {"q": counts(generated=2)}, {"q": counts()}),
             [("broken", "q", "regressed: support 1.00 -> 0.50")]),
            ((critical, {"q": counts(generated=2)}, {"q": counts(first_hit=2)}),
             [("broken", "q", "mixed: support 1.00 -> 0.50")]),  # rr got better meanwhile
            ((critical, {"q": counts(supported=0)}, {"q": counts()}),
             [("broken", "q", "regressed: support 1.00 -> 0.00, coverage 1.00 -> 0.00")]),
            ((critical, {"q": counts()}, {"q": counts(supported=0)}), [("held", "q", "improved")]),
            ((critical, {"q": counts()}, {"q": counts()}), [("held", "q", "unchanged")]),
            ((critical, {"q": counts(generated=2)}), []),  # no baseline: not checked
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
            (({"must_abstain": ("r",)}, {"r": ANSWERED}),
             [("broken", "r", "answered with 1 claim")]),
            (({"must_abstain": ("r",)}, {"r": ABSTAINED}), [("held", "r", "abstained")]),
        ]
        self.assertRows(outcomes, rows)

    def test_a_rule_left_out_is_not_checked(self):
        candidate = {"q": counts(generated=2, supported=0), "r": ANSWERED}  # bad on every count
        rows = [(({"critical": ("q",)},), ["critical"]),
                (({"must_abstain": ("r",)},), ["must_abstain"]),
                (({"unsupported_budget": {"answerable": 0}},), ["unsupported_budget"])]
        self.assertRows(lambda policy: [finding[0] for finding in judgement(
            policy, candidate, QUESTIONS)["broken"]], rows)

    def test_critical_and_significance_need_a_baseline(self):
        policy = {"critical": ("q",), "significance": {"metric": "recall", "alpha": 0.05}}
        self.assertEqual(judgement(policy, QUESTIONS), {
            "accepted": None, "broken": [], "held": [],  # nothing judged
            "unchecked": [("critical", "no baseline to compare with"),
                          ("significance", "no baseline to compare with")],
            "significance": None})

    def test_significance_holds_when_the_metric_rises_with_p_below_alpha(self):
        def outcome(before, after, alpha=0.05, metric="coverage"):
            policy = {"significance": {"metric": metric, "alpha": alpha}}
            judged = judgement(policy, moved(after), moved(before))
            return [(held, detail) for held in ("held", "broken") for _, _, detail in judged[held]]

        def detail(mean, p, alpha=0.05, metric="coverage", pairs="6 of 6"):
            return ("%s mean %s (%s), p = %s (exact), alpha %s, two-sided: a one-sided test at %s"
                    % (metric, mean, pairs, p, alpha, alpha / 2))
        six = [0.0] * 6
        rows = [
            # Six questions all up: p = 2 / 2**6 = 1/32, below 0.05 but not below 0.03.
            ((six, [1.0] * 6), [("held", detail("+1.00", "1/32"))]),
            ((six, [1.0] * 6, 0.03), [("broken", detail("+1.00", "1/32", 0.03))]),
            ((six, [1.0] * 6, 0.03125), [("broken", detail("+1.00", "1/32", 0.03125))]),  # below
            # All down: as rare, but the wrong way.
            (([1.0] * 6, six), [("broken", detail("-1.00", "1/32"))]),
            ((six, six), [("broken", detail("+0.00", "1"))]),
            # Five questions cannot show it at 0.05: 2 / 2**5 = 1/16.
            (([0.0] * 5, [1.0] * 5), [("broken", detail("+1.00", "1/16", pairs="5 of 5"))]),
            ((six, [1.0] * 6, 0.05, "precision"),  # retrieval did not move
             [("broken", detail("+0.00", "1", metric="precision"))]),
            (([None] * 3, [None] * 3, 0.05, "support"),  # no claim on either side: no pair
             [("broken", detail("n/a", "1", metric="support", pairs="0 of 3"))]),
        ]
        self.assertRows(outcome, rows)

    def test_the_declared_test_is_one_finding_among_the_others(self):
        policy = {"must_abstain": ("r",), "significance": {"metric": "coverage", "alpha": 0.5}}
        judged = judgement(policy, dict(moved([1.0] * 3), r=ANSWERED),
                           dict(moved([0.0] * 3), r=ABSTAINED))
        self.assertEqual([finding[0] for outcome in ("broken", "held")
                          for finding in judged[outcome]], ["must_abstain", "significance"])

    def test_significance_reads_only_the_answerable_slice(self):
        policy = {"significance": {"metric": "support", "alpha": 0.5}}
        before = dict(moved([0.0] * 3), r=ANSWERED)
        after = dict(moved([1.0] * 3), r=ABSTAINED)  # r's support goes n/a: not answerable anyway
        judged = judgement(policy, after, before)
        self.assertEqual(judged["held"], [("significance", "answerable",
                                           "support mean +1.00 (3 of 3), p = 1/4 (exact), "
                                           "alpha 0.5, two-sided: a one-sided test at 0.25")])
        self.assertEqual(judged["significance"]["p"], Fraction(1, 4))  # the test, for programs

    def test_a_report_tests_each_candidate_on_the_declared_metric_of_the_answerable_slice(self):
        def decided(data, metric):
            policy = dict(data["policy"], significance={"metric": metric, "alpha": 0.5})
            result = evaluate.report(dict(data, policy=policy), summary=True)
            values = [{question["case"]: dict(row["scores"], ndcg=row["ndcg"])[metric]
                       for question in result["questions"] if question["answerable"]
                       for row in (question["systems"][system],)} for system in ("A", "B")]
            summary = result["summary"]
            judged = summary["decisions"]["B"]["strict"]
            found = [outcome for outcome in ("held", "broken") for finding in judged[outcome]
                     if finding[0] == "significance"]
            return (judged["significance"] == evaluate.paired_test(*values), found,
                    summary["policy"]["baseline_alone"]["strict"]["significance"])
        rows = [((four_questions(), "coverage"), (True, ["broken"], None)),  # p = 1/2
                ((qrels_only(), "ndcg"), (True, ["held"], None))]  # up 0.14, p = 13/32
        self.assertRows(decided, rows)

    def test_accepted_means_nothing_is_broken(self):
        judged = judgement(LOOSE, {"q": counts(generated=2), "r": ANSWERED})
        held = [("unsupported_budget", "answerable", "1 unsupported claim, budget 100"),
                ("unsupported_budget", "unanswerable", "1 unsupported claim, budget 100")]
        self.assertEqual(judged, {"accepted": True, "broken": [], "held": held, "unchecked": [],
                                  "significance": None})
        self.assertFalse(judgement({"must_abstain": ("r",)}, {"r": ANSWERED})["accepted"])

    def test_a_critical_question_may_fall_within_the_tolerance_and_no_further(self):
        def decided(tolerance):
            policy = {"critical": ("q",), "tolerance": tolerance}
            judged = judgement(policy, {"q": counts(relevant=2, hits=1)},
                               {"q": counts(relevant=2, hits=2)})
            return judged["accepted"], (judged["broken"] + judged["held"])[0][2]
        rows = [((0.5,), (True, "regressed: precision 1.00 -> 0.50, within 0.5, recall 1.00 -> "
                                "0.50, within 0.5")),
                ((0.4,), (False, "regressed: precision 1.00 -> 0.50, down 0.50, more than 0.4, "
                                 "recall 1.00 -> 0.50, down 0.50, more than 0.4"))]
        self.assertRows(decided, rows)

    def test_a_rate_budget_decides_alike_on_few_questions_and_on_many(self):
        def decided(rule, questions):  # one unsupported claim in 50, steadily
            candidate = {"q%d" % index: counts(generated=10, supported=10 - (index % 5 == 0),
                                               expected=10) for index in range(questions)}
            return judgement(rule, candidate)["accepted"]
        rate = {"unsupported_rate": {"answerable": 0.05}}
        count = {"unsupported_budget": {"answerable": 5}}
        self.assertEqual([decided(rate, 25), decided(rate, 400)], [True, True])
        self.assertEqual([decided(count, 25), decided(count, 400)], [True, False])
        self.assertEqual(judgement(rate, {"q": counts(generated=20, supported=19)})["held"],
                         [("unsupported_rate", "answerable",
                           "1 of 20 claims unsupported, rate at most 0.05")])

    def test_a_rule_of_no_question_holds_for_none_and_says_so(self):
        decided = judgement({"critical": (), "must_abstain": (), "min_coverage": 1}, QUESTIONS,
                            QUESTIONS)
        self.assertEqual((decided["accepted"], decided["unchecked"]), (None, [
            ("critical", "lists no question"), ("min_coverage", "lists no question"),
            ("must_abstain", "lists no question")]))

    def test_each_fault_in_a_policy_raises_an_exact_message(self):
        def message(what, policy):
            return message_of(evaluate._check_policy_rules, dict(policy=policy,
                                                                 answerable=ANSWERABLE_Q))

        def significance(**fields):
            return {"significance": dict({"metric": "coverage", "alpha": 0.05}, **fields)}
        loose = "{'unsupported_budget': {'answerable': 100, 'unanswerable': 100}}"
        share = 'applies to the questions of policy["critical"], and the policy has none: got '
        number = "expected a number from 0 to 1, got "
        slices = "expected a dict with one or both of the keys ('answerable', 'unanswerable'), got "
        budget = "expected an int from 0 to 1000000000, got "
        pair = 'expected a dict with the keys "metric" and "alpha", got '
        alpha = 'policy["significance"]["alpha"]: expected a number above 0 to 0.5, got '
        plan = "policy[\"unresolved\"]: expected one of ('strict', 'lenient', 'both'), got "
        rows = [
            (("policy as a list", [LOOSE]), "policy: expected a dict, got [%s]" % loose),
            (("policy as a dict subclass", Dict(LOOSE)), "policy: expected a dict, got " + loose),
            (("a key that is not a str", {1: 0}), "policy: expected keys that are str, got 1"),
            (("no rule", {}), "policy: expected at least one of the rules %s, got {}" % RULES),
            (("a plan and no rule", {"unresolved": "both"}), "policy: expected at least one of "
             "the rules %s, got {'unresolved': 'both'}" % RULES),
            (("a rule the policy does not know", dict(LOOSE, notes="x")),
             "policy: unknown rule 'notes'; the rules are %s, the settings ('tolerance', "
             "'unresolved')" % RULES),
            (("a setting misspelt", dict(LOOSE, tolerence=0.1)),
             'policy["tolerence"]: unknown key; did you mean "tolerance"?'),
            (("critical as a list", {"critical": ["q"]}),
             'policy["critical"]: expected a tuple of question names, got [\'q\']'),
            (("critical misspelt", {"critical": ("p",)}),
             'policy["critical"]: no question named \'p\''),
            (("critical as a str subclass", {"critical": (Str("q"),)}),
             'policy["critical"]: no question named \'q\''),
            (("critical unhashable", {"critical": (["q"],)}),
             'policy["critical"]: no question named [\'q\']'),
            (("critical repeated", {"critical": ("q", "q")}),
             'policy["critical"]: repeated question \'q\''),
            (("critical unanswerable", {"critical": ("r",)}),
             'policy["critical"]: \'r\' is unanswerable; list it in policy["must_abstain"]'),
            (("min_coverage without critical", {"min_coverage": 1.0}),
             'policy["min_coverage"]: ' + share + "{'min_coverage': 1.0}"),
            (("tolerance without critical", {"must_abstain": (), "tolerance": 0.1}),
             'policy["tolerance"]: ' + share + "{'must_abstain': (), 'tolerance': 0.1}"),
            (("tolerance above 1", {"critical": ("q",), "tolerance": 1.5}),
             'policy["tolerance"]: ' + number + "1.5"),
            (("min_coverage above 1", {"critical": ("q",), "min_coverage": 1.01}),
             'policy["min_coverage"]: ' + number + "1.01"),
            (("min_coverage below 0", {"critical": ("q",), "min_coverage": -0.5}),
             'policy["min_coverage"]: ' + number + "-0.5"),
            (("min_coverage True", {"critical": ("q",), "min_coverage": True}),
             'policy["min_coverage"]: ' + number + "True"),
            (("min_coverage as text", {"critical": ("q",), "min_coverage": "1"}),
             'policy["min_coverage"]: ' + number + "'1'"),
            (("min_coverage NaN", {"critical": ("q",), "min_coverage": float("nan")}),
             'policy["min_coverage"]: ' + number + "nan"),
            (("budget as a list", {"unsupported_budget": [0, 0]}),
             'policy["unsupported_budget"]: ' + slices + "[0, 0]"),
            (("budget of no slice", {"unsupported_budget": {}}),
             'policy["unsupported_budget"]: ' + slices + "{}"),
            (("budget with another slice", {"unsupported_budget": {"answerable": 0, "other": 0}}),
             'policy["unsupported_budget"]: ' + slices + "{'answerable': 0, 'other': 0}"),
            (("budget True", {"unsupported_budget": {"answerable": True, "unanswerable": 0}}),
             'policy["unsupported_budget"][\'answerable\']: ' + budget + "True"),
            (("budget below 0", {"unsupported_budget": {"answerable": 0, "unanswerable": -1}}),
             'policy["unsupported_budget"][\'unanswerable\']: ' + budget + "-1"),
            (("budget above a billion", {"unsupported_budget": {"answerable": 10 ** 9 + 1}}),
             'policy["unsupported_budget"][\'answerable\']: ' + budget + "1000000001"),
            (("budget as a float", {"unsupported_budget": {"answerable": 1.0}}),
             'policy["unsupported_budget"][\'answerable\']: ' + budget + "1.0"),
            (("a rate above 1", {"unsupported_rate": {"answerable": 2}}),
             'policy["unsupported_rate"][\'answerable\']: ' + number + "2"),
            (("a rate of another slice", {"unsupported_rate": {"all": 0.1}}),
             'policy["unsupported_rate"]: ' + slices + "{'all': 0.1}"),
            (("must_abstain as a str", {"must_abstain": "r"}),
             'policy["must_abstain"]: expected a tuple of question names, got \'r\''),
            (("must_abstain misspelt", {"must_abstain": ("s",)}),
             'policy["must_abstain"]: no question named \'s\''),
            (("must_abstain answerable", {"must_abstain": ("q",)}),
             'policy["must_abstain"]: \'q\' is answerable; '
             "only an unanswerable question must be abstained on"),
            (("significance as a number", {"significance": 0.05}),
             'policy["significance"]: ' + pair + "0.05"),
            (("significance without alpha", {"significance": {"metric": "recall"}}),
             'policy["significance"]: ' + pair + "{'metric': 'recall'}"),
            (("significance on abstention", significance(metric="abstention_correct")),
             'policy["significance"]["metric"]: expected one of %s, got '
             "'abstention_correct'" % TESTED),
            (("significance on an unhashable metric", significance(metric=["rr"])),
             'policy["significance"]["metric"]: expected one of %s, got [\'rr\']' % TESTED),
            (("alpha of 0", significance(alpha=0)), alpha + "0"),
            (("alpha above 0.5", significance(alpha=0.51)), alpha + "0.51"),
            (("alpha as text", significance(alpha="0.05")), alpha + "'0.05'"),
            (("an unknown plan", dict(LOOSE, unresolved="strictly")), plan + "'strictly'"),
            (("an unhashable plan", dict(LOOSE, unresolved=["both"])), plan + "['both']"),
        ]
        self.assertRows(message, rows)

    def test_nearest_valid_policies_are_accepted(self):
        rows = [((what, policy), None) for what, policy in [
            ("critical and must_abstain", {"critical": ("q",), "must_abstain": ("r",)}),
            ("one critical question", {"critical": ("q",)}),
            ("rules of no question", {"critical": (), "min_coverage": 1.0, "must_abstain": ()}),
            ("min_coverage 1 as an int", {"critical": ("q",), "min_coverage": 1}),
            ("min_coverage 0.0 and a tolerance of 1", {"critical": ("q",), "min_coverage": 0.0,
                                                       "tolerance": 1}),
            ("budgets of 0", {"unsupported_budget": {"answerable": 0, "unanswerable": 0}}),
            ("a budget of one slice", {"unsupported_budget": {"answerable": 0}}),
            ("a budget of a billion", {"unsupported_budget": {"unanswerable": 10 ** 9}}),
            ("rates of 0 and 1", {"unsupported_rate": {"answerable": 0, "unanswerable": 1.0}}),
            ("alpha of 0.5", {"significance": {"alpha": 0.5, "metric": "rr"}}),
            ("a tiny alpha on nDCG", {"significance": {"metric": "ndcg", "alpha": 5e-324}}),
            ("the fixture's policy", POLICY)]]
        rows += [(("the plan " + plan, dict(LOOSE, unresolved=plan)), None)
                 for plan in ("strict", "lenient", "both")]
        answerable = dict(ANSWERABLE_Q, **{name: bool(CASES[name]["relevant"]) for name in CASES})
        self.assertRows(lambda what, policy: message_of(evaluate._check_policy_rules, dict(
            policy=policy, answerable=answerable)), rows)

    def test_many_names_are_checked_in_linear_time(self):
        names = tuple("q%d" % index for index in range(20000))
        answerable = dict.fromkeys(names, True)
        self.assertIsNone(message_of(evaluate._check_policy_rules, dict(
            policy={"critical": names}, answerable=answerable)))
        self.assertEqual(message_of(evaluate._check_policy_rules, dict(
            policy={"critical": names + ("q0",)}, answerable=answerable)),
            'policy["critical"]: repeated question \'q0\'')

    def test_a_disclosure_is_broken_whatever_the_policy_says(self):
        def disclosures(policy, candidate, baseline=None):
            judged = judgement(policy, candidate, baseline)
            return judged["accepted"], [finding for finding in judged["broken"]
                                        if finding[0] == "disclosure"]
        disclosing = {"q": counts(disclosed=2), "r": dict(ABSTAINED, disclosed=1)}
        found = [("disclosure", "q", "2 restricted documents in the top k or cited"),
                 ("disclosure", "r", "1 restricted document in the top k or cited")]
        rows = [
            ((LOOSE, disclosing), (False, found)),                   # no baseline needed
            ((LOOSE, disclosing, disclosing), (False, found)),       # a baseline's excuses nothing
            (({"critical": ("q",)}, disclosing, QUESTIONS), (False, found)),
            ((LOOSE, {"q": counts(disclosed=1)}),
             (False, [("disclosure", "q", "1 restricted document in the top k or cited")])),
            ((LOOSE, QUESTIONS, disclosing), (True, [])),            # only the candidate's count
        ]
        self.assertRows(disclosures, rows)

    def test_a_candidate_that_discloses_is_never_accepted(self):
        rng = random.Random(3)

        def random_tally():
            relevant = rng.randint(0, 3)
            hits = rng.randint(0, min(2, relevant))
            expected = rng.randint(1, 3) if relevant else 0
            generated = rng.randint(0, 3)
            return counts(relevant=relevant, hits=hits, first_hit=1 if hits else None,
                          generated=generated, expected=expected,
                          supported=rng.randint(0, min(generated, expected)),
                          disclosed=rng.choice((0, 0, 0, 1, 2)))
        rows = []
        for trial in range(300):
            candidate = {"q%d" % index: random_tally() for index in range(rng.randint(1, 4))}
            disclosed = any(tally["disclosed"] for tally in candidate.values())
            rows.append(((candidate,), not disclosed))
        self.assertRows(lambda candidate: judgement(LOOSE, candidate)["accepted"], rows)


# --- Deciding: the paired test --------------------------------------------------------

@contextlib.contextmanager
def patched(**limits):
    saved = {name: getattr(evaluate, "_" + name) for name in limits}
    try:
        for name, value in limits.items():
            setattr(evaluate, "_" + name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(evaluate, "_" + name, value)


def brute_force_paired(before, after, groups=None):
    """paired_test() by trying every sign assignment, apart from evaluate.py.

    Values are Fractions, None, or tuples of them (repeated runs); groups maps
    each question to its group, whose difference is the mean of its questions'.
    """
    by_group, left_out = {}, 0
    for name in before:
        means = []
        for value in (before[name], after[name]):
            runs = [run for run in (value if type(value) is tuple else (value,)) if run is not None]
            means.append(sum(runs) / len(runs) if runs else None)
        if means[0] is None or means[1] is None:
            left_out += 1
        else:
            group = name if groups is None else groups[name]
            by_group[group] = by_group.get(group, []) + [means[1] - means[0]]
    differences = [sum(moved) / len(moved) for moved in by_group.values()]
    nonzero = [difference for difference in differences if difference != 0]
    unit = 1  # a common denominator, so that the sums below are of whole numbers
    for difference in nonzero:
        unit = unit * difference.denominator // math.gcd(unit, difference.denominator)
    whole = [int(difference * unit) for difference in nonzero]
    observed = abs(sum(whole))
    extreme = 0
    for signs in itertools.product((1, -1), repeat=len(whole)):
        if abs(sum(sign * size for sign, size in zip(signs, whole))) >= observed:
            extreme += 1
    return {"questions": len(before) - left_out, "left_out": left_out, "groups": len(differences),
            "mean": float(sum(differences) / len(differences)) if differences else None,
            "wins": len([d for d in differences if d > 0]), "ties": len(differences) - len(nonzero),
            "losses": len([d for d in differences if d < 0]),
            "p": Fraction(extreme, 2 ** len(nonzero)),
            "min_p": Fraction(1, 2 ** (len(nonzero) - 1)) if nonzero else Fraction(1),
            "method": "exact", "samples": None, "standard_error": 0.0}


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


EXACT = {"method": "exact", "samples": None, "standard_error": 0.0}
BRUTE_FORCE_TRIALS = 250  # random inputs tried against brute force on each run



def exact_test(questions, mean, wins, ties, losses, p, min_p, left_out=0):
    """Return paired_test()'s result, keys in order, with p exact and a group per question."""
    return {"questions": questions, "left_out": left_out, "groups": questions, "mean": mean,
            "wins": wins, "ties": ties, "losses": losses, "p": p, "min_p": min_p, **EXACT}


# (metric): paired_test() of B against A on the answerable questions
EXPECTED_PAIRED = {
    "precision": exact_test(3, mean=1 / 6, wins=1, ties=2, losses=0, p=1, min_p=1),
    "recall": exact_test(3, mean=1 / 6, wins=1, ties=2, losses=0, p=1, min_p=1),
    "rr": exact_test(3, mean=1 / 6, wins=1, ties=2, losses=0, p=1, min_p=1),
    "support": exact_test(3, mean=1 / 6, wins=1, ties=1, losses=1, p=1, min_p=Fraction(1, 2)),
    "coverage": exact_test(3, mean=0.5, wins=2, ties=1, losses=0, p=Fraction(1, 2),
                           min_p=Fraction(1, 2)),
}


class PairedTest(TestCase):
    """paired_test() is an exact sign-flip test with the question as its unit."""

    def test_fixture_differences_from_a_to_b(self):
        a, b = fixture_scores("A"), fixture_scores("B")
        tested = {metric: evaluate.paired_test({name: a[name][metric] for name in ANSWERABLE},
                                               {name: b[name][metric] for name in ANSWERABLE})
                  for metric in EXPECTED_PAIRED}
        self.assertSnapshot(tested, EXPECTED_PAIRED, "EXPECTED_PAIRED")

    def test_agrees_with_brute_force_on_the_fractions_that_floats_stand_for(self):
        rng = random.Random(20261202)
        rows = []
        for trial in range(BRUTE_FORCE_TRIALS):
            floats, exact = random_paired_values(rng, questions=rng.randint(0, 6))
            rows.append((tuple(floats), brute_force_paired(*exact)))
        self.assertRows(evaluate.paired_test, rows)

    def test_with_groups_each_group_mean_takes_one_sign_as_brute_force_does(self):
        rng = random.Random(23)
        rows = []
        for trial in range(BRUTE_FORCE_TRIALS):
            floats, exact = random_paired_values(rng, questions=rng.randint(0, 9))
            groups = {name: rng.choice(("chat-1", "chat-2", "chat-3", name)) for name in floats[0]}
            rows.append((tuple(floats) + (groups,), brute_force_paired(*exact, groups=groups)))
        self.assertRows(lambda before, after, groups: evaluate.paired_test(before, after,
                                                                           groups=groups), rows)
        turns = {"t1": "chat", "t2": "chat", "t3": "chat"}  # one conversation: one pair
        tested = evaluate.paired_test(dict.fromkeys(turns, 0), dict.fromkeys(turns, 1),
                                      groups=turns)
        self.assertEqual((tested["questions"], tested["groups"], tested["p"]), (3, 1, 1))

    def test_small_inputs_give_exact_counts_means_and_p(self):
        def tested(before, after, *keys):
            result = evaluate.paired_test(before, after)
            return tuple(result[key] for key in keys)
        largest = 1.7976931348623157e308
        four = ("a", "b", "c", "d")
        twenty = {"q%d" % index: 1 / (index + 7) for index in range(20)}  # 20 wins
        rows = [
            # p and min_p are exact fractions.
            (({"x": 0.0, "y": 0.0}, {"x": 0.5, "y": 1.0}, "p", "min_p"),
             (Fraction(1, 2), Fraction(1, 2))),
            # Repeated runs are averaged within their question: four pairs, never twelve.
            ((dict.fromkeys(four, (0.0, 0.5, 0.25)), dict.fromkeys(four, (1.0, 0.5, 0.75)),
              "questions", "wins", "p", "min_p", "mean"),
             (4, 4, Fraction(1, 8), Fraction(1, 8), 0.5)),
            # n/a leaves a question out, and is counted.
            (({"a": None, "b": (None, None), "c": 0.5, "d": (0.0, None)},
              {"a": 1.0, "b": 1.0, "c": None, "d": (None, 1.0)}, *PAIRED_KEYS),
             tuple(exact_test(1, mean=1.0, wins=1, ties=0, losses=0, p=1, min_p=1,
                              left_out=3).values())),
            (({"a": None}, {"a": None}, *PAIRED_KEYS),
             tuple(exact_test(0, mean=None, wins=0, ties=0, losses=0, p=1, min_p=1,
                              left_out=1).values())),
            (({}, {}, "p"), (1,)),
            # 0.3 - 0.1 is 0.19999999999999998 in floats but 1/5 exactly, like 0.2 - 0.0:
            # flipping the first two cancels them, and that sum ties with the observed one.
            (({"a": 0.1, "b": 0.2, "c": 0.0}, {"a": 0.3, "b": 0.0, "c": 0.5}, "p"),
             (Fraction(3, 4),)),
            (({"a": (0.1, 0.2)}, {"a": 0.15}, "ties"), (1,)),  # runs average exactly: a tie
            # Values that arithmetic made unequal tie.
            (({"x": 2 / 3, "y": 0.3}, {"x": 1 - 1 / 3, "y": 0.1 * 3}, "ties", "mean", "p"),
             (2, 0.0, 1)),
            # Differences that sum to zero give p of one.
            (({"a": 0, "b": 0.5, "c": 1}, {"a": 0.5, "b": 0, "c": 1},
              "wins", "ties", "losses", "p", "min_p"), (1, 1, 1, 1, Fraction(1, 2))),
            # Few moved questions are exact whatever their values: 3162/3163 and 3468/3469
            # have no small common unit, and the four sign assignments of two are listed.
            (({"a": 0, "b": 0}, {"a": 3162 / 3163, "b": -3468 / 3469}, "p", "method"),
             (1, "exact")),
            ((dict.fromkeys(twenty, 0), twenty, "p", "method"), (Fraction(2, 2 ** 20), "exact")),
            # A mean beyond every float is an infinity.
            (({"a": -largest}, {"a": largest}, "mean"), (float("inf"),)),
            (({"a": largest}, {"a": -largest}, "mean"), (float("-inf"),)),
            (({"a": 0}, {"a": largest}, "mean"), (largest,)),  # the largest float is no infinity
        ]
        self.assertRows(tested, rows)
        tested = evaluate.paired_test({"x": 0.0, "y": 0.0}, {"x": 0.5, "y": 1.0})
        self.assertEqual((type(tested["p"]), type(tested["min_p"])), (Fraction, Fraction))

    def test_a_float_is_read_as_the_fraction_that_ordinary_arithmetic_meant(self):
        third = 2 ** -54  # the unit in the last place of 1/3
        rows = [((0.5,), Fraction(1, 2)), ((0.3,), Fraction(3, 10)), ((1 / 3,), Fraction(1, 3)),
                ((2,), Fraction(2)), ((1 / 999999,), Fraction(1, 999999)),
                ((1 / 1000001,), Fraction(1 / 1000001)),  # no denominator up to a million: as is
                ((0.123456789,), Fraction(0.123456789)),  # no fraction that close: as is
                ((1 - 2 / 3,), Fraction(1, 3)), ((1 - 1 / 3,), Fraction(2, 3)),
                ((0.1 * 3,), Fraction(3, 10)), ((0.7 + 0.2,), Fraction(9, 10)),
                ((1 - 99 / 100,), Fraction(1, 100)),            # 5 units off, after cancelling
                (((1 / 3 + 1 / 7 + 2 / 9) / 3,), Fraction(44, 189)),
                ((1 / 3 + 64 * third,), Fraction(1, 3)),        # 64 units in the last place
                ((1 / 3 + 65 * third,), Fraction(1 / 3 + 65 * third)),  # 65: taken as it is
                ((0.5 + 64 * 2 ** -53,), Fraction(1, 2)),       # exactly 64 units: still 1/2
                ((5e-324,), Fraction(0)),                       # 1 unit from 0/1, the least float
                ((64 * 5e-324,), Fraction(0)),                  # 64 units from 0: still 0
                ((65 * 5e-324,), Fraction(65 * 5e-324)),        # 65 units from 0: as it is
                ((-(1 - 2 / 3),), Fraction(-1, 3)),             # below 0 as above it
                # A large value has many such fractions within 64 units: the nearest is taken.
                ((4064829.9789556614,), Fraction(3900582393996, 959593))]
        self.assertRows(evaluate._exact, rows)

    def test_the_limits_are_those_the_readme_gives(self):
        self.assertEqual((evaluate._MAX_LISTED, evaluate._MAX_COUNTING_STEPS, evaluate._SAMPLES,
                          evaluate._MAX_RUNS, evaluate._MAX_DENOMINATOR, evaluate._CLOSE_ULPS,
                          evaluate._MAX_UNIT_BITS),
                         (36, 22 * 10 ** 6, 12000, 100, 10 ** 6, 64, 2200))
        self.assertEqual((evaluate._MAX_FILE_BYTES, evaluate._MAX_DEPTH, evaluate._MAX_DIGITS,
                          evaluate._MAX_VALUES, evaluate._MAX_SYSTEMS, evaluate._MAX_ROWS),
                         (30 * 10 ** 6, 64, 100, 3 * 10 ** 6, 1000, 150000))

    def test_each_way_of_finding_p_applies_where_it_fits(self):
        # Differences 0.5, 1 and -0.5 are 1, 2 and -1 in halves: the observed sum is 2 of a
        # total 4, so counting takes sums of 0 to (4 - 2) / 2 = 1 for 3 sizes: 6 steps.
        before, after = {"a": 0, "b": 0, "c": 0.5}, {"a": 0.5, "b": 1, "c": 0}

        def method(listed, steps):
            with patched(MAX_LISTED=listed, MAX_COUNTING_STEPS=steps):
                tested = evaluate.paired_test(before, after)
            return tested["method"], tested["samples"], tested["p"] == Fraction(3, 4)
        rows = [((3, 0), ("exact", None, True)),     # 3 moved: listed
                ((2, 6), ("exact", None, True)),     # too many to list, but 6 steps count
                ((2, 5), ("sampled", 12000, False))]  # neither fits: sampled
        self.assertRows(method, rows)

    def test_at_most_36_moved_questions_are_listed_exactly_whatever_their_values(self):
        # 18 pairs that cancel, each the mean of nine runs over denominators near a million:
        # a common unit of over 2,200 bits. A 37th question moved, up by 1e300: sampled.
        pairs = {"q%d" % index: tuple((-1) ** index / (999000 + 9 * (index // 2) + run)
                                      for run in range(9)) for index in range(36)}
        rows = [((pairs,), ("exact", 1)), ((dict(pairs, big=1e300),), ("sampled", 1))]
        self.assertRows(lambda after: tuple(evaluate.paired_test(dict.fromkeys(after, 0), after)[
            key] for key in ("method", "p")), rows)

    def test_counting_steps_weigh_more_for_each_thousand_questions_moved(self):
        def method(moved, steps):  # all moved up by 1 but one: limit 1, so 2 steps each
            after = dict.fromkeys(("q%d" % index for index in range(moved - 1)), 1)
            after["down"] = -1
            with patched(MAX_LISTED=0, MAX_COUNTING_STEPS=steps, SAMPLES=10):
                return evaluate.paired_test(dict.fromkeys(after, 0), after)["method"]
        rows = [((1000, 2000), "exact"), ((1001, 2002), "sampled"),  # 1,001 moved weigh 2
                ((1001, 4004), "exact"), ((2001, 12006), "exact"), ((2001, 12005), "sampled")]
        self.assertRows(method, rows)

    def test_a_sampled_p_lies_within_sampling_error_of_the_exact_p(self):
        rng = random.Random(7)
        shared = [rng.choice((-2, -1, 1, 2, 3)) / 4 for index in range(40)]  # few sizes
        distinct = [(-1) ** index * (index + 1) / 64 for index in range(40)]  # all different
        for values in (shared, distinct):
            after = {"q%d" % index: value for index, value in enumerate(values)}
            before = dict.fromkeys(after, 0)
            exact = evaluate.paired_test(before, after)  # 40 moved, in small units: counted
            with patched(MAX_LISTED=0, MAX_COUNTING_STEPS=0, SAMPLES=3000):
                sampled = evaluate.paired_test(before, after)
            error = (float(exact["p"]) * (1 - float(exact["p"])) / 3000) ** 0.5
            with self.subTest(values=values[:3], exact=float(exact["p"]),
                              sampled=float(sampled["p"])):
                self.assertEqual((exact["method"], sampled["method"]), ("exact", "sampled"))
                self.assertLessEqual(abs(float(sampled["p"]) - float(exact["p"])),
                                     4 * error + 1 / 3001)
                self.assertEqual(sampled["standard_error"],
                                 (float(sampled["p"]) * (1 - float(sampled["p"])) / 3000) ** 0.5)

    def test_a_unit_too_fine_to_count_in_is_sampled_on_floats(self):
        # Ratios over 200 denominators up to a million: their common denominator would run
        # to thousands of bits, more than MAX_UNIT_BITS, so no whole unit is sought.
        after = {"q%d" % index: (index % 5 + 1) / (999800 + index) * (-1) ** (index // 7)
                 for index in range(200)}
        before = dict.fromkeys(after, 0)
        meant = [Fraction(index % 5 + 1, 999800 + index) * (-1) ** (index // 7)
                 for index in range(200)]
        with patched(SAMPLES=300):  # enough draws to compare the two ways below
            tested = evaluate.paired_test(before, after)
            with patched(MAX_UNIT_BITS=10 ** 6):  # the same values, in whole units
                in_units = evaluate.paired_test(before, after)
        self.assertEqual((tested["method"], tested["wins"], tested["losses"]), ("sampled", 102, 98))
        self.assertAlmostEqual(tested["mean"], float(sum(meant) / 200), delta=1e-20)
        self.assertEqual((tested["p"], tested["mean"]), (in_units["p"], in_units["mean"]))
        few = {name: after[name] for name in list(after)[:20]}  # up to 36: listed, exactly
        self.assertEqual(evaluate.paired_test(dict.fromkeys(few, 0), few)["method"], "exact")

    def test_sampled_p_values_are_pinned_whichever_way_they_are_drawn(self):
        def sampled(after, **limits):  # the draws come from a fixed seed: the same everywhere
            with patched(**limits):
                tested = evaluate.paired_test(dict.fromkeys(after, 0), after)
            return tested["method"], tested["samples"], tested["p"]
        # 40 questions of 4 sizes: drawn by size; one question more of a fifth size, and
        # they are drawn question by question.
        sizes = {"q%d" % index: (index % 4 + 1) / 8 * (-1 if index % 3 == 0 else 1)
                 for index in range(40)}
        unsized = dict(sizes, q40=5 / 8)
        # 1,100 questions up a quarter and 1,060 down: two sizes, drawn as two binomial
        # counts, though counting would be exact (p = 0.4014).
        two = dict({"u%d" % index: 0.25 for index in range(1100)},
                   **{"d%d" % index: -0.25 for index in range(1060)})
        # Floats that are no simple fraction, half of them wins and half losses.
        plain = {"q%d" % index: (-1) ** index * 0.123456789 * index for index in range(40)}
        none = {"MAX_LISTED": 0, "MAX_COUNTING_STEPS": 0}
        rows = [((sizes, dict(none, SAMPLES=2000)), ("sampled", 2000, Fraction(185, 2001))),
                ((unsized, dict(none, SAMPLES=2000)), ("sampled", 2000, Fraction(137, 2001))),
                ((two, none), ("sampled", 12000, Fraction(4824, 12001))),
                ((plain, {}), ("sampled", 12000, Fraction(10689, 12001)))]
        self.assertRows(lambda after, limits: sampled(after, **limits), rows)

    def test_each_fault_in_the_values_raises_an_exact_message(self):
        def message(before, after, groups=None):
            return message_of(evaluate.paired_test, dict(before=before, after=after,
                                                          groups=groups))
        number = "expected a number, None or a tuple of them, got "
        rows = [
            (([0.5], {}), "before: expected a dict by question name, got [0.5]"),
            (({}, None), "after: expected a dict by question name, got None"),
            (({"a": 0.5}, {"b": 0.5}),
             "after: expected the questions of before ('a',), got ('b',)"),
            (({"a": "0.5"}, {"a": 0.5}), "before['a']: " + number + "'0.5'"),
            (({"a": 0.5}, {"a": True}), "after['a']: " + number + "True"),
            (({"a": float("nan")}, {"a": 0.5}), "before['a']: " + number + "nan"),
            (({"a": 0.5}, {"a": float("-inf")}), "after['a']: " + number + "-inf"),
            (({"a": float("inf")}, {"a": 0.5}), "before['a']: " + number + "inf"),
            (({"a": [0.5]}, {"a": 0.5}), "before['a']: " + number + "[0.5]"),
            (({"a": ((0.5,),)}, {"a": 0.5}), "before['a']: " + number + "((0.5,),)"),
            (({"a": ()}, {"a": 0.5}), "before['a']: expected 1 to 100 runs, got 0: ()"),
            (({"a": (0.5,) * 101}, {"a": 0.5}), "before['a']: expected 1 to 100 runs, got 101: "
             "(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0..."),
            (({"a": Fraction(1, 2)}, {"a": 0.5}), "before['a']: " + number + "Fraction(1, 2)"),
            (({"a": 0}, {"a": 0}, ["a"]), "groups: expected a dict by question name, got ['a']"),
            (({"a": 0}, {"a": 0}, {"b": "g"}), "groups: expected the questions of before ('a',), "
                                                "got ('b',)"),
            (({"a": 0}, {"a": 0}, {"a": "my chat"}), "groups['a']: invalid name 'my chat'"
                                                      + NAME_RULE),
            (({"a": 0}, {"a": (0.5, -10 ** 309)}),  # beyond the largest float
             "after['a']: " + number + "(0.5, -1" + "0" * 69 + "..."),
        ]
        self.assertRows(message, rows)

    def test_nearest_valid_values_are_accepted(self):
        rows = [
            (({"a": 0}, {"a": 1}), 1),                    # ints
            (({"a": -2.5}, {"a": 1e9}), 1),               # any finite number
            (({"a": (0.5,)}, {"a": 0.5}), 1),             # one run in a tuple
            (({"a": (0.5,) * 100}, {"a": 0.5}), 1),       # a hundred runs
            (({"a": (None, 0.5)}, {"a": 0.5}), 1),        # an n/a run is skipped
            (({"a": (None,)}, {"a": 0.5}), 0),            # all n/a: left out
            (({"a": 1, "b": 2}, {"b": 2, "a": 1}), 2),    # the same questions in another order
            (({"a": -1.7976931348623157e308}, {"a": 10 ** 308}), 1),  # within a float's range
        ]
        self.assertRows(lambda before, after: evaluate.paired_test(before, after)["questions"],
                        rows)

    def test_values_are_left_unchanged(self):
        before, after = {"a": (0.1, None), "b": 0.5}, {"a": 0.2, "b": (0.5, 0.75)}
        copies = copy.deepcopy((before, after))
        evaluate.paired_test(before, after)
        self.assertEqual((before, after), copies)


# --- Real judgements: graded relevance, answers not made or not labelled ---------------

def oracle_ndcg(grades, retrieved, k):
    """nDCG@k in plain loops, apart from evaluate.py: a document's gain is its grade,
    divided by log2(rank + 1), over the gain of the grades in their best order."""
    if not grades:
        return None
    gained, best, ideal = 0.0, 0.0, sorted(grades.values(), reverse=True)
    for rank in range(1, k + 1):
        if rank <= len(retrieved):
            gained += grades.get(retrieved[rank - 1], 0) / math.log2(rank + 1)
        if rank <= len(ideal):
            best += ideal[rank - 1] / math.log2(rank + 1)
    return gained / best


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
    """Graded relevance gives nDCG@k; runs with no answer and cases with no labels are
    scored on retrieval alone, and no answer rule is judged on them."""

    def test_ndcg_divides_the_discounted_gain_by_that_of_the_best_order(self):
        run = {"retrieved": ("checklist", "archive", "rollback"), "claims": None}
        # 2/log2(2) + 0 + 3/log2(4) over 3/log2(2) + 2/log2(3) + 1/log2(4)
        self.assertEqual(evaluate.ndcg(CORPUS, GRADED, run, k=3), 3.5 / (3.5 + 2 / math.log2(3)))
        self.assertEqual(evaluate.ndcg(CORPUS, GRADED, run, k=1), 2 / 3)
        ungraded = dict(GRADED, grades=None)
        del ungraded["grades"]  # every relevant document then has grade 1
        self.assertEqual(evaluate.ndcg(CORPUS, ungraded, run, k=2), 1 / (1 + 1 / math.log2(3)))
        nothing = {"retrieved": ("archive",), "claims": None}
        self.assertEqual((evaluate.ndcg(CORPUS, GRADED, nothing),
                          evaluate.ndcg(CORPUS, CASES["region"], nothing)), (0.0, None))
        self.assertEqual(evaluate.ndcg(CORPUS, GRADED, run), 2 / (3 + 2 / math.log2(3)))  # k=2

    def test_ndcg_agrees_with_an_oracle_written_apart(self):
        rng, names = random.Random(29), sorted(SWEEP_CORPUS)
        rows = []
        for trial in range(300):
            relevant = tuple(rng.sample(names, rng.randint(0, 4)))
            case = {"relevant": relevant, "support": None,
                    "grades": {doc_id: rng.randint(1, 4) for doc_id in relevant}}
            run = {"retrieved": tuple(rng.sample(names, rng.randint(0, 4))), "claims": None}
            k = rng.choice((1, 2, 3, 5))
            expected = oracle_ndcg(case["grades"], run["retrieved"], k)
            rows.append(((case, run, k), None if expected is None else round(expected, 12)))
        self.assertRows(lambda case, run, k: None if not case["relevant"] else round(
            evaluate.ndcg(SWEEP_CORPUS, case, run, k=k), 12), rows)

    def test_qrels_and_runs_alone_score_retrieval_and_judge_no_answer(self):
        result = evaluate.report(qrels_only(), summary=True)
        for question in result["questions"]:
            for row in question["systems"].values():
                self.assertEqual([row["scores"][metric] for metric in ("support", "coverage",
                                                                     "abstention_correct")],
                                 [None] * 3)
                self.assertIs(type(row["ndcg"]), float)  # a value, never n/a: all answerable
        decided = result["summary"]["decisions"]["B"]
        self.assertEqual(decided["strict"]["unchecked"], [
            ("min_coverage", "no answer judged against labels"),
            ("unsupported_budget", "no answer judged against labels"),
            ("must_abstain", "lists no question")])
        self.assertEqual({finding[0] for outcome in ("broken", "held")
                          for finding in decided["strict"][outcome]}, {"critical"})
        self.assertIn("ndcg", result["summary"]["comparisons"][0]["paired_tests"])
        ndcgs = [question["systems"]["B"]["ndcg"] for question in result["questions"]]
        self.assertEqual(result["summary"]["means"]["answerable"]["ndcg"]["B"],
                         {"mean": math.fsum(ndcgs) / 6, "averaged": 6, "total": 6})

    def test_groups_take_one_sign_each_and_the_summary_counts_them(self):
        cases = {name: dict(case, group="one") if name in ("launch", "rollback") else case
                 for name, case in four_questions()["cases"].items()}
        summary = evaluate.report(four_questions(cases=cases), summary=True)["summary"]
        tested = summary["comparisons"][0]["paired_tests"]["coverage"]
        self.assertEqual((summary["groups"], tested["questions"], tested["groups"]), (3, 3, 2))
        self.assertEqual(summary["comparisons"][0]["p_floor"], Fraction(1, 2))  # 2 groups
        self.assertIn("summary of fixtures.py: 4 questions in 3 groups (3 answerable), k = 2, "
                      "baseline A, candidate B",
                      text_of(four_questions(cases=cases), "--summary").splitlines())


# --- The demo -----------------------------------------------------------------------

def table_text(rows):
    """Return the table demo.py prints for rows of EXPECTED_SCORES, formatted apart from it."""
    def shown(value):
        if value is None:
            return "n/a"
        if type(value) is bool:
            return "yes" if value else "no"
        return "%.2f" % value
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
"""

EXPECTED_SUMMARY = """\
B against A: not accepted, first: disclosure owner (1 restricted document in the top k or \
cited), and 2 more broken
summary of fixtures.py: 4 questions (3 answerable), k = 2, baseline A, candidate B

per-question change from A to B (a pair with n/a on either side is shown, not judged)
launch: regressed (support 1.00 -> 0.50)
rollback: improved (P@2 0.50 -> 1.00, R@2 0.50 -> 1.00, coverage 0.50 -> 1.00)
owner: improved (RR@2 0.50 -> 1.00, support 0.00 -> 1.00, coverage 0.00 -> 1.00)
region: improved (abstention no -> yes; not judged: support 0.00 -> n/a)
totals: 3 improved, 1 regressed, 0 mixed, 0 unchanged
launch: regressed, but unchanged in the lenient reading

answerable slice: launch, rollback, owner
P@2 macro mean | A 0.50 (3 of 3) | B 0.67 (3 of 3)
R@2 macro mean | A 0.83 (3 of 3) | B 1.00 (3 of 3)
RR@2 macro mean | A 0.83 (3 of 3) | B 1.00 (3 of 3)
support macro mean | A 0.67 (3 of 3) | B 0.83 (3 of 3)
coverage macro mean | A 0.50 (3 of 3) | B 1.00 (3 of 3)
support pooled | A 2/3 = 0.67 | B 4/5 = 0.80

unanswerable slice: region
P@2 macro mean | A n/a (0 of 1) | B n/a (0 of 1)
R@2 macro mean | A n/a (0 of 1) | B n/a (0 of 1)
RR@2 macro mean | A n/a (0 of 1) | B n/a (0 of 1)
support macro mean | A 0.00 (1 of 1) | B n/a (0 of 1)
coverage macro mean | A n/a (0 of 1) | B n/a (0 of 1)
support pooled | A 0/1 = 0.00 | B 0/0 = n/a
abstention correct count | A 0/1 | B 1/1

answerable slice, lenient reading (disputed labels count as support): launch, rollback, owner
P@2 macro mean | A 0.50 (3 of 3) | B 0.67 (3 of 3)
R@2 macro mean | A 0.83 (3 of 3) | B 1.00 (3 of 3)
RR@2 macro mean | A 0.83 (3 of 3) | B 1.00 (3 of 3)
support macro mean | A 0.67 (3 of 3) | B 1.00 (3 of 3)
coverage macro mean | A 0.50 (3 of 3) | B 1.00 (3 of 3)
support pooled | A 2/3 = 0.67 | B 5/5 = 1.00
disputed labels: launch: bonus <- launch

n/a rule: a macro mean skips questions without a value and says how many it averaged; n/a \
never counts as 0.

paired sign-flip test from A to B on the answerable slice (each question is one pair)
P@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact), at least 1 with 1 moved
R@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact), at least 1 with 1 moved
RR@2 | mean +0.17 (3 of 3) | wins 1, ties 2, losses 0 | p = 1 (exact), at least 1 with 1 moved
support | mean +0.17 (3 of 3) | wins 1, ties 1, losses 1 | p = 1 (exact), at least 1/2 with 2 \
moved
coverage | mean +0.50 (3 of 3) | wins 2, ties 1, losses 0 | p = 1/2 (exact), at least 1/2 with \
2 moved
with 3 questions, p is at least 1/4 even if all of them moved, so no difference can reach p < \
0.05

restricted documents disclosed (in the top k or cited); no score and no policy can excuse one
A | owner: archive
B | owner: archive

claims nobody has labelled, rejected or disputed (python demo.py --explain lists them for \
review) | A 0 | B 0

acceptance policy, from fixtures.py
(python demo.py --explain shows why each unsupported claim is unsupported)
A alone | broken disclosure owner (1 restricted document in the top k or cited) [both readings]
A alone | broken min_coverage owner (coverage 0/1, minimum 1) [both readings]
A alone | broken unsupported_budget answerable (1 unsupported claim, budget 0) [both readings]
A alone | broken unsupported_budget unanswerable (1 unsupported claim, budget 0) [both \
readings]
A alone | broken must_abstain region (answered with 1 claim) [both readings]
A alone | held: 1 min_coverage
A alone | not checked: critical (no baseline to compare with)
decision for A alone under the plan 'both': not accepted (strict reading: 5 broken, 1 held; \
lenient reading: 5 broken, 1 held); both readings agree
B against A | broken disclosure owner (1 restricted document in the top k or cited) [both \
readings]
B against A | broken critical launch (regressed: support 1.00 -> 0.50) [strict reading only]
B against A | broken unsupported_budget answerable (1 unsupported claim, budget 0) [strict \
reading only]
B against A | held: 1 critical, 2 min_coverage, 1 unsupported_budget, 1 must_abstain
decision for B against A under the plan 'both': not accepted (strict reading: 3 broken, 5 \
held; lenient reading: 1 broken, 7 held); both readings agree
"""

USAGE = "usage: python demo.py [--summary] [--explain] [--json] [--gate] [--data FILE.json]\n"


def four_questions(**changes):
    """Return the demo's fixture data cut down to the four original questions."""
    four = dict(demo.fixture_data(), cases={name: CASES[name] for name in FOUR},
                runs={name: RUNS[name] for name in FOUR})
    return dict(four, **changes)


def summary_of(**changes):
    return evaluate.report(four_questions(**changes), summary=True)["summary"]


def decision_of(data):
    return evaluate.report(data, summary=True)["summary"]["comparisons"][0]["decision"]


def undisclosing(**changes):
    """Return the four original cases, owner's archive not restricted, some cases replaced."""
    return dict(four_questions()["cases"], owner=dict(CASES["owner"], restricted=()), **changes)


def unreviewed():
    return {name: without_reviews(CASES[name]) for name in FOUR}


def text_of(data, *options):
    result = evaluate.report(data, summary="--summary" in options,
                             explain="--explain" in options)
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


def demo_process(*arguments, before=""):
    """Return the process of `python demo.py arguments`, run from another folder, after
    some Python code `before` (to close standard output, say)."""
    code = ("%s\nimport runpy, sys\nsys.argv = %r\nsys.path.insert(0, %r)\n"
            "runpy.run_path(%r, run_name='__main__')" % (
                before, ["demo.py"] + list(arguments), HERE, os.path.join(HERE, "demo.py")))
    return subprocess.Popen([sys.executable, "-S", "-c", code], cwd=os.path.dirname(HERE),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class Demo(TestCase):
    """python demo.py prints the per-question table, byte for byte, and more on request."""

    def test_demo_prints_the_exact_table_from_any_folder(self):
        pairs = [(name, system) for name in CASES for system in "AB"]
        missing = [pair for pair in pairs if pair not in EXPECTED_SCORES]
        if missing:
            self.skipTest("EXPECTED_SCORES has no row for %s yet" % ", ".join(map(repr, missing)))
        process = subprocess.run([sys.executable, "-S", os.path.join(HERE, "demo.py")],
                                 cwd=os.path.dirname(HERE), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        expected = table_text((pair, EXPECTED_SCORES[pair]) for pair in pairs)
        self.assertEqual(process.stderr, b"")
        self.assertSnapshot(process.stdout.decode("ascii"), expected, "EXPECTED_SCORES")
        self.assertEqual(process.stdout, expected.encode("ascii"))  # line ends too
        self.assertEqual(process.returncode, 0)

    def test_demo_prints_a_row_for_every_case_and_system(self):
        status, out, err = demo_output()
        rows = [line.split(" | ")[0] for line in out.splitlines()[1:]]
        self.assertEqual(rows, ["%s %s" % (name, system) for name in CASES for system in "AB"])

    def test_the_four_original_questions_print_their_table(self):
        self.assertSnapshot(text_of(four_questions()), EXPECTED_TABLE, "EXPECTED_SCORES")

    def test_summary_leads_with_what_changed_then_compares_and_decides(self):
        self.assertSnapshot(text_of(four_questions(), "--summary"), EXPECTED_SUMMARY,
                            "EXPECTED_SUMMARY")

    def test_explain_prints_the_table_the_reasons_and_the_claims_nobody_reviewed(self):
        self.assertSnapshot(text_of(four_questions(), "--explain"), EXPECTED_EXPLAIN,
                            "EXPECTED_EXPLAIN")

    def test_options_combine_in_any_order(self):
        both = text_of(four_questions(), "--explain", "--summary")
        self.assertEqual(both, EXPECTED_EXPLAIN + "\n" + EXPECTED_SUMMARY)
        self.assertEqual(demo_output("--summary", "--explain"), demo_output("--explain",
                                                                            "--summary"))
        self.assertEqual(demo_output("--summary")[::2], (0, ""))

    def test_the_summary_lists_only_the_changed_questions_and_counts_the_others(self):
        runs = {name: dict(RUNS[name], B=RUNS[name]["A"]) for name in FOUR}
        runs["owner"] = RUNS["owner"]  # only owner changes from A to B
        lines = text_of(four_questions(runs=runs), "--summary").splitlines()
        start = lines.index("per-question change from A to B (a pair with n/a on either side "
                            "is shown, not judged)")
        self.assertEqual(lines[start + 1:start + 3], [
            "owner: improved (RR@2 0.50 -> 1.00, support 0.00 -> 1.00, coverage 0.00 -> 1.00)",
            "totals: 1 improved, 0 regressed, 0 mixed, 3 unchanged (not listed)"])

    def test_summary_shows_a_mean_with_no_pair_as_na(self):
        empty = {"retrieved": (), "claims": ()}
        runs = {name: dict(RUNS[name], A=empty) for name in FOUR}  # A answers nothing at all
        out = text_of(four_questions(runs=runs), "--summary")
        self.assertIn("support | mean n/a (0 of 3) | wins 0, ties 0, losses 0 "
                      "| p = 1 (exact), at least 1 with 0 moved", out.splitlines())

    def test_help_prints_usage_and_an_unknown_option_exits_with_status_2(self):
        wrong = [("--sumary",), ("--summary", "--summary"), ("--summary", "extra"), ("summary",),
                 ("--data",), ("--data", "a.json", "--data", "b.json")]
        rows = [(("-h",), (0, USAGE, "")), (("--help",), (0, USAGE, ""))]
        self.assertRows(demo_output, rows + [(arguments, (2, "", USAGE)) for arguments in wrong])

    def test_gate_exits_with_3_unless_every_candidate_is_accepted(self):
        self.assertEqual(demo_output("--gate"), (3,) + demo_output()[1:])  # B discloses archive
        accepting = four_questions(policy={"must_abstain": ("region",)}, cases=undisclosing())
        self.assertEqual(demo.gated(evaluate.report(accepting, summary=True)), 0)
        undecided = four_questions(policy=None)
        self.assertEqual(demo.gated(evaluate.report(undecided, summary=True)), 3)

    def test_a_fault_in_the_fixture_is_named_without_a_traceback(self):
        owner_a = RUNS["owner"]["A"]
        bad = {"retrieved": ("owners",), "claims": (("aurora", "owners"),)}
        rows = [
            ((runs_with("owner", A=owner_a, B=bad),),
             (1, "", "fixtures.py: case 'owner', system 'B': "
                     "run[\"claims\"][0][1]: expected a tuple, got 'owners'\n")),
            ((runs_with("owner", A=owner_a),),
             (1, "", "fixtures.py: case 'owner', system 'B': missing from runs['owner']\n")),
        ]
        self.assertRows(lambda runs: demo_output(runs=runs), rows)

    def test_a_reader_that_stops_early_ends_it_quietly_with_status_141(self):
        process = demo_process("--summary", "--explain")
        process.stdout.close()  # as `python demo.py | head -0` does, before a line is read
        ended = (process.wait(), process.stderr.read())
        process.stderr.close()
        self.assertEqual(ended, (141, b""))

    def test_every_byte_is_written_and_in_ascii_whatever_the_output_takes(self):
        class Trickle:  # an unbuffered pipe that takes a few bytes at a time
            def __init__(self):
                self.taken = b""

            def write(self, data):
                self.taken += bytes(data[:7])
                return min(len(data), 7)

        class Output:
            buffer = Trickle()

            def flush(self):
                pass
        saved, sys.stdout = sys.stdout, Output()
        try:
            status = demo.write("caf\u00e9 | p\n" * 20)
        finally:
            output, sys.stdout = sys.stdout, saved
        self.assertEqual((status, output.buffer.taken), (0, b"caf\\xe9 | p\n" * 20))

    def test_output_that_cannot_be_written_ends_with_one_line_and_status_74(self):
        process = demo_process(before="import os; os.close(1)")  # standard output closed
        error = process.communicate()[1].decode("ascii")
        self.assertEqual((process.returncode, error),
                         (74, "demo.py: cannot write the report: Bad file descriptor\n"))


# The keys of the JSON report, in order: the README's schema.
REPORT_KEYS = ["source", "k", "systems", "questions", "review_queue", "summary"]
QUESTION_KEYS = ["case", "answerable", "systems"]
ROW_KEYS = ["scores", "counts", "lenient", "explain", "ndcg"]
SUMMARY_KEYS = ["slices", "means", "disputed_labels", "lenient_means", "comparisons",
                "disclosures", "unreviewed", "policy", "groups", "decisions"]
MEANS_KEYS = list(evaluate._COMPARED) + ["pooled_support", "correct_abstentions"]
COMPARISON_KEYS = ["baseline", "candidate", "manifest_changes", "changes", "totals",
                   "lenient_changes", "paired_tests", "p_floor", "decision", "units"]
POLICY_KEYS = ["source", "rules", "baseline_alone"]
DECISION_KEYS = ["plan", "accepted", "strict", "lenient", "depends_on", "findings"]
JUDGED_KEYS = ["accepted", "broken", "held", "unchecked", "significance"]
PAIRED_KEYS = ["questions", "left_out", "groups", "mean", "wins", "ties", "losses", "p", "min_p",
               "method", "samples", "standard_error"]


class JsonReport(TestCase):
    """demo.py --json writes the report as one JSON document, for programs."""

    def report(self, *options):
        text = text_of(four_questions(), "--json", *options)
        self.assertEqual(text.count("\n"), 1)  # one line, one document
        return json.loads(text)

    def test_demo_prints_one_document_holding_every_value_of_the_table(self):
        status, out, err = demo_output("--json")
        self.assertEqual((status, err, out.count("\n")), (0, "", 1))
        found = ["%s %s | %s" % (question["case"], system, " ".join(map(
                     evaluate._cell, row["scores"].values())))
                 for question in json.loads(out)["questions"]
                 for system, row in question["systems"].items()]
        self.assertEqual(found, demo_output()[1].splitlines()[1:])

    def test_the_keys_come_in_the_documented_order(self):
        report = self.report("--summary", "--explain")
        question = report["questions"][0]  # launch, whose labels are disputed
        comparison = report["summary"]["comparisons"][0]
        rows = [(list(report), REPORT_KEYS), (list(question), QUESTION_KEYS),
                (list(question["systems"]["A"]), ROW_KEYS),
                (list(question["systems"]["A"]["scores"]), list(evaluate._METRICS)),
                (list(question["systems"]["A"]["counts"]), list(ROLLBACK_A)),
                (list(report["summary"]), SUMMARY_KEYS),
                (list(report["summary"]["means"]["answerable"]), MEANS_KEYS),
                (list(comparison), COMPARISON_KEYS),
                (list(comparison["decision"]), DECISION_KEYS),
                (list(comparison["decision"]["lenient"]), JUDGED_KEYS),
                (list(report["summary"]["policy"]), POLICY_KEYS),
                (list(comparison["paired_tests"]["coverage"]), PAIRED_KEYS)]
        for got, expected in rows:
            self.assertEqual(got, expected)
        plain = self.report()  # every key is there; what was not asked for is null
        self.assertEqual((list(plain), plain["source"], plain["review_queue"], plain["summary"]),
                         (REPORT_KEYS, "fixtures.py", None, None))
        self.assertEqual(plain["questions"][1]["systems"]["A"]["lenient"], None)  # not disputed

    def test_the_summary_holds_the_decisions_by_candidate_and_the_tests_the_text_prints(self):
        summary = self.report("--summary")["summary"]
        comparison = summary["comparisons"][0]
        self.assertEqual([comparison["decision"]["accepted"],
                          [finding[:2] for finding in comparison["decision"]["strict"]["broken"]],
                          comparison["totals"], comparison["paired_tests"]["coverage"]["p"],
                          summary["policy"]["baseline_alone"]["accepted"]],
                         [False, [["disclosure", "owner"], ["critical", "launch"],
                                  ["unsupported_budget", "answerable"]],
                          {"improved": 3, "regressed": 1, "mixed": 0, "unchanged": 0}, 0.5, False])
        self.assertEqual(summary["decisions"], {"B": comparison["decision"]})  # by candidate too

    def test_na_is_null_and_every_number_is_a_json_number(self):
        region_a = self.report()["questions"][3]["systems"]["A"]["scores"]
        self.assertEqual(region_a, {"precision": None, "recall": None, "rr": None,
                                    "support": 0.0, "coverage": None,
                                    "abstention_correct": False})
        tests = self.report("--summary")["summary"]["comparisons"][0]["paired_tests"]
        self.assertEqual({type(test[key]).__name__ for test in tests.values()
                          for key in ("p", "min_p", "mean", "standard_error")}, {"float"})

    def test_a_question_with_disputed_labels_carries_its_lenient_reading(self):
        launch_b = self.report()["questions"][0]["systems"]["B"]
        self.assertEqual((launch_b["lenient"]["scores"]["support"],
                          launch_b["lenient"]["counts"]["expected"]), (1.0, 1))  # bonus: optional
        summary = summary_of(cases=unreviewed())
        self.assertEqual((summary["disputed_labels"], summary["lenient_means"],
                          summary["comparisons"][0]["lenient_changes"]), (None, None, None))

    def test_explanations_and_the_review_queue_come_when_asked(self):
        report = self.report("--explain")
        self.assertEqual(report["questions"][2]["systems"]["A"]["explain"], {
            "claims": [["aurora", "not a labelled source"]], "uncovered": ["aurora"],
            "disclosed": ["archive"]})
        self.assertEqual(report["review_queue"], [])
        plain = evaluate.report(four_questions())  # neither asked for
        self.assertEqual((plain["questions"][2]["systems"]["A"]["explain"], plain["summary"]),
                         (None, None))

    def test_the_options_of_a_report_are_a_str_and_two_flags(self):
        rows = [(({"source": b"runs.json"},), "source: expected a str, got b'runs.json'"),
                (({"summary": "yes"},), "summary: expected True or False, got 'yes'"),
                (({"explain": 1},), "explain: expected True or False, got 1")]
        self.assertRows(lambda options: message_of(evaluate.report, dict(
            options, data=four_questions())), rows)


# --- Your own data: demo.py --data FILE.json --------------------------------------------

FIXTURE_AS_JSON = {"k": 2, "systems": ["A", "B"], "corpus": CORPUS, "cases": CASES,
                   "runs": RUNS, "policy": POLICY}
DATA_KEYS = "('k', 'systems', 'corpus', 'cases', 'runs', 'policy', 'manifests')"


def data_with(**changes):
    return dict(FIXTURE_AS_JSON, **changes)


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

    def refusal(self, path, **limits):
        """Return what demo.py --data path says on standard error, with some caps set."""
        with patched(**limits):
            status, out, err = demo_output("--data", path)
        self.assertEqual((status, out), (1, ""))
        return err


class DataFile(DataFileCase):
    """demo.py --data reads a JSON file that mirrors fixtures.py, and names every fault."""

    def test_a_file_that_mirrors_the_fixture_prints_what_the_fixture_does(self):
        path = self.write(FIXTURE_AS_JSON)
        for options in ((), ("--summary",), ("--explain",)):
            with self.subTest(options=options):
                expected = demo_output(*options)[1].replace(
                    "summary of fixtures.py", "summary of " + path).replace(
                    "policy, from fixtures.py", 'policy, from the "policy" of ' + path)
                self.assertEqual(demo_output("--data", path, *options), (0, expected, ""))
        expected = json.loads(demo_output("--json", "--summary")[1])
        expected["source"] = path
        expected["summary"]["policy"]["source"] = 'the "policy" of ' + path
        self.assertEqual(json.loads(demo_output("--data", path, "--json", "--summary")[1]),
                         expected)
        self.assertEqual(demo_output("--summary", "--data", path),
                         demo_output("--data", path, "--summary"))

    def test_the_cutoff_is_two_when_the_file_leaves_it_out(self):
        data = {"systems": ["A", "B"], "corpus": CORPUS, "cases": four_questions()["cases"],
                "runs": four_questions()["runs"]}
        self.assertEqual(demo_output("--data", self.write(data)), (0, EXPECTED_TABLE, ""))

    def test_the_cutoff_and_the_system_names_come_from_the_file(self):
        data = data_with(k=1, systems=["B", "A"])
        del data["policy"]
        status, out, err = demo_output("--data", self.write(data), "--explain", "--summary")
        self.assertEqual(out.splitlines()[:2], ["case system | P@1 R@1 RR@1 support coverage "
                                                "abstention",
                                                "launch B | 1.00 1.00 1.00 0.50 1.00 n/a"])
        self.assertIn("per-question change from B to A (a pair with n/a on either side is shown, "
                      "not judged)", out.splitlines())
        self.assertNotIn("acceptance policy", out)  # no policy, no decision
        self.assertEqual((status, err), (0, ""))

    def test_each_fault_in_a_file_is_one_line_naming_the_file_and_the_place(self):
        runs = json.loads(json.dumps(RUNS))
        runs["owner"]["B"]["retrieved"] = ["owners", "zeta"]
        manifests = {"A": {"corpus": "v1", "model": "m"}, "B": {"corpus": "v2", "model": "m"}}
        invalid = "is not valid JSON: "
        repeated = "data: repeated key 'a' in one object "
        long = "1" * 101

        def manifest(field, a, b):
            return ("manifests: \"%s\" must be the same for every system, got %s for 'A' and %s "
                    "for 'B'" % (field, a, b))

        def nested(depth):
            return '{"k": 2, "note": %s}' % ("[" * depth + '"x"' + "]" * depth)
        rows = [
            (("a syntax error", '{"k": 2,\n "systems": ["A" "B"]}'),
             invalid + "Expecting ',' delimiter (line 2, column 18)"),
            (("a file cut short", '{"k": 2,\n "systems": ["A'),
             invalid + "Unterminated string starting at (line 2, column 14)"),
            (("an integer of 101 digits", '{"k": 2, "y": ' + "9" * 100 + ',\n "question": "1",  '
              '"x": -' + "1" * 101 + "}"),  # 100 digits are read; 101 are not
             invalid + "an integer of more than 100 digits (line 2, column 25)"),
            (("an integer of 100 digits, which is read", '{"y": ' + "9" * 100 + "}"),
             "data: unknown key 'y'; the keys are " + DATA_KEYS),
            (("NaN", '{"k": 2, "corpus": ["NaN",\n NaN]}'),
             invalid + "NaN is not a JSON number (line 2, column 2)"),
            (("NaN after a first empty line", '\n{"k": NaN}'),
             invalid + "NaN is not a JSON number (line 2, column 7)"),
            (("-Infinity", '{"k": -Infinity}'),
             invalid + "-Infinity is not a JSON number (line 1, column 7)"),
            # A number JSON does not have is placed outside strings.
            (("NaN after a string that ends in one", '{"x": "\\"NaN\\\\", "y": NaN}'),
             invalid + "NaN is not a JSON number (line 1, column 23)"),
            (("a long integer after long digits in strings",
              '{"x": "%s", "y": 0.%s,\n "z": %s}' % (long, long, long)),
             invalid + "an integer of more than 100 digits (line 2, column 7)"),
            (("a byte order mark", "\ufeff{}"),
             invalid + "Unexpected UTF-8 BOM (decode using utf-8-sig) (line 1, column 1)"),
            (("runs as a list", data_with(runs=[RUNS["launch"]])),
             "runs: expected a dict, got ({'A': {'retrieved': ('launch', 'archive'), 'claims': "
             "(('monday', ('launch',)..."),
            (("an unknown document", data_with(runs=runs)),
             "case 'owner', system 'B': run[\"retrieved\"]: unknown document 'zeta'"),
            (("a missing run", data_with(runs=dict(RUNS, owner={"A": RUNS["owner"]["A"]}))),
             "case 'owner', system 'B': missing from runs['owner']"),
            (("a policy that names no such question",
              data_with(policy=dict(POLICY, critical=["launch", "ownr"]))),
             "policy[\"critical\"]: no question named 'ownr'"),
            (("a test of nDCG on data with no grades", data_with(policy={"significance": {
                "metric": "ndcg", "alpha": 0.05}})), "policy[\"significance\"][\"metric\"]: "
             "expected a metric the data measures, got 'ndcg': no case has grades"),
            (("a policy of no rule", data_with(policy={"unresolved": "strict"})),
             "policy: expected at least one of the rules %s, got {'unresolved': 'strict'}"
             % RULES),
            (("questions of another version", data_with(manifests={
                "A": {"questions": "dev-1"}, "B": {"questions": "dev-2"}})),
             manifest("questions", "'dev-1'", "'dev-2'")),
            (("permissions given for one system only", data_with(manifests={
                "A": {"permissions": "p1"}, "B": {}})), manifest("permissions", "'p1'", "None")),
            (("another rubric", data_with(manifests={"A": {"rubric": "r1"},
                                                     "B": {"rubric": "r2"}})),
             manifest("rubric", "'r1'", "'r2'")),
            (("manifests that are a list", data_with(manifests=[1])),
             "manifests: expected an object with the keys ('A', 'B'), got (1,)"),
            (("a manifest that is a list", data_with(manifests={"A": {}, "B": []})),
             "manifests['B']: expected an object of strings, got ()"),
            (("a manifest field that is not a string", data_with(manifests=dict(
                manifests, B={"corpus": "v1", "seed": 7}))),
             "manifests['B']['seed']: expected a string, got 7"),
            (("a manifest field named with a space", data_with(manifests={
                "A": {}, "B": {"model name": "m"}})),
             "manifests['B']: invalid name 'model name'" + NAME_RULE),
            (("manifests of other systems", data_with(manifests={"A": {}, "C": {}})),
             "manifests: expected an object with the keys ('A', 'B'), got {'A': {}, 'C': {}}"),
            (("manifests whose corpus versions differ", data_with(manifests=manifests)),
             manifest("corpus", "'v1'", "'v2'")),
            (("a restricted document that is relevant", data_with(
                cases=cases_with("owner", restricted=["owners"]))),
             "case 'owner': case[\"restricted\"]: document 'owners' is in case[\"relevant\"]"),
            (("a disputed source that is also agreed", data_with(
                cases=cases_with("launch", disputed={"monday": ["launch"]}))),
             "case 'launch': case[\"disputed\"]['monday']: source 'launch'" + DISAGREED),
            (("a rejected claim that has a label", data_with(
                cases=cases_with("launch", rejected=["bonus"]))),
             "case 'launch': case[\"rejected\"]: claim 'bonus'" + HAS_SOURCES),
            (("an ID the contract does not allow", data_with(corpus=dict(
                CORPUS, **{"6669150": "A passage."}))),
             "corpus: invalid ID '6669150'" + ID_RULE),
            # A repeated key is named with its line and column.
            (("a repeated key", '{"a": 1, "k": 2, "k": 3}'),
             "data: repeated key 'k' in one object (line 1, column 18)"),
            (("a repeated key, inner", '{"k": {"a": 1,\n "a": 2}}'),
             repeated + "(line 2, column 2)"),
            (("a key escaped", '{"a": 1, "\\u0061": 2}'),  # the same key to JSON
             repeated + "(line 1, column 10)"),
            (("an outer key, not a string", '{"a": {"b": 1}, "x": "\\"a\\": {", "a": 2}'),
             repeated + "(line 1, column 34)"),
            (("one key in each of two objects", '[{"a": 1}, {"a": 2}]'),
             "data: expected an object with the keys %s, got ({'a': 1}, {'a': 2})" % DATA_KEYS),
            # Nesting is limited the same way on every CPython: 64 deep, with the object.
            (("arrays nested 64 deep, which are read", nested(63)),
             "data: unknown key 'note'; the keys are " + DATA_KEYS),
            (("arrays nested 65 deep", nested(64)), "is nested more than 64 deep"),
            (("arrays nested 2001 deep", nested(2000)), "is nested more than 64 deep"),
            (("arrays nested too deeply", "[" * 100000 + "]" * 100000),
             "is nested more than 64 deep"),
            (("a misspelt key", data_with(polcy=POLICY)),
             "data: unknown key 'polcy'; the keys are " + DATA_KEYS),
            (("one system", data_with(systems=["A"])),
             "systems: expected a tuple of two or more names, the baseline first, got ('A',)"),
            (("a system named by a number", data_with(systems=[1, "B"])),
             "systems: invalid name 1" + NAME_RULE),
            (("a system with no name", data_with(systems=["", "B"])),
             "systems: invalid name ''" + NAME_RULE),
            (("the same system twice", data_with(systems=["A", "B", "B"])),
             "systems: repeated name 'B'"),
            (("a lone surrogate in a system's name", data_with(systems=["A", "B\ud800"])),
             "systems: invalid name 'B\\ud800'" + NAME_RULE),
            (("a case named with a space", data_with(cases=dict(CASES, **{
                "my q": CASES["region"]}), runs=dict(RUNS, **{"my q": RUNS["region"]}))),
             "cases: invalid name 'my q'" + NAME_RULE),
            (("k as a float", data_with(k=2.0)), "k: expected an int from 1 to 100, got 2.0"),
            (("not an object", "[1, 2]"),
             "data: expected an object with the keys %s, got (1, 2)" % DATA_KEYS),
            (("no runs", {key: value for key, value in FIXTURE_AS_JSON.items() if key != "runs"}),
             "data: missing the key 'runs'"),
            (("a misspelt case key", data_with(cases=cases_with("launch", disputes={}))),
             "case 'launch': case[\"disputes\"]: unknown key; did you mean \"disputed\"?"),
        ]

        def run(what, data):
            return demo_output("--data", self.write(data), "--summary")
        self.assertRows(run, [(inputs, (1, "", "%s: %s\n" % (self.path, message)))
                              for inputs, message in rows])

    def test_names_follow_one_rule(self):
        def message(name):
            data = data_with(cases={name: CASES["region"]}, runs={name: RUNS["region"]},
                             policy=None)
            return demo_output("--data", self.write(data))[2][len(self.path) + 2:-1] or None
        rows = [(("q" * 64,), None), (("Q-17<::>2",), None), (("a/b|c",), None),
                (("q" * 65,), "cases: invalid name '%s'%s" % ("q" * 65, NAME_RULE)),
                (("caf\u00e9",), "cases: invalid name 'caf\\xe9'" + NAME_RULE),
                (("l\u0430unch",), "cases: invalid name 'l\\u0430unch'" + NAME_RULE),  # Cyrillic a
                (("tab\there",), "cases: invalid name 'tab\\there'" + NAME_RULE),
                (("",), "cases: invalid name ''" + NAME_RULE)]
        self.assertRows(message, rows)

    def test_a_file_larger_than_the_limit_is_refused_unread(self):
        path = self.write(FIXTURE_AS_JSON)
        size = os.path.getsize(path)
        with patched(MAX_FILE_BYTES=size):
            self.assertEqual(demo_output("--data", path)[0], 0)
        self.assertEqual(self.refusal(path, MAX_FILE_BYTES=size - 1), "%s: holds more than %d "
                         "bytes, the most a data file may hold\n" % (path, size - 1))

    def test_load_data_takes_only_a_path_and_leaves_open_files_alone(self):
        rows = [((value,), "path: expected the path of a file, got %r" % (value,))
                for value in (0, 1, 2, True, None, 1.5, [self.path])]
        self.assertRows(lambda value: message_of(evaluate.load_data, {"path": value}), rows)
        for descriptor in (0, 1, 2):  # still open
            os.fstat(descriptor)
        for name in ("a\0b", b"a\0b", "\ud800"):  # a NUL or a lone surrogate names no file
            message = message_of(evaluate.load_data, {"path": name})
            self.assertRegex(message or "", "^cannot be read: ", ascii(name))
        import pathlib
        self.assertEqual(evaluate.load_data(pathlib.Path(self.write(FIXTURE_AS_JSON)))["k"], 2)

    def test_each_candidate_is_compared_with_the_baseline_as_in_a_file_of_the_two(self):
        three = data_with(systems=["A", "B", "C"],
                     runs={name: dict(runs, C=runs["A"] if name == "region" else runs["B"])
                           for name, runs in RUNS.items()})
        path = self.write(three)
        table = demo_output("--data", path)[1].splitlines()
        together = json.loads(demo_output("--data", path, "--json", "--summary")[1])
        self.assertEqual(len(together["questions"][0]["systems"]), 3)  # a row for each system
        for candidate in ("B", "C"):
            pair = dict(three, systems=["A", candidate])
            alone = json.loads(demo_output("--data", self.write(pair), "--json", "--summary")[1])
            with self.subTest(candidate=candidate):
                self.assertEqual(together["summary"]["comparisons"][["B", "C"].index(candidate)],
                                 alone["summary"]["comparisons"][0])
        self.assertEqual(table[1:4], ["launch A | 0.50 1.00 1.00 1.00 1.00 n/a",
                                      "launch B | 0.50 1.00 1.00 0.50 1.00 n/a",
                                      "launch C | 0.50 1.00 1.00 0.50 1.00 n/a"])

    def test_a_long_slice_names_the_questions_that_fit_and_counts_them(self):
        names = ["question-%d" % index for index in range(12)]
        data = data_with(cases=dict.fromkeys(names, CASES["rollback"]),
                    runs=dict.fromkeys(names, RUNS["rollback"]), policy=None)
        out = demo_output("--data", self.write(data), "--summary")[1]
        self.assertIn("answerable slice: question-0, question-1, question-2, question-3, "
                      "question-4, question-5, question-6, question-7, ... (12 in all)",
                      out.splitlines())

    def test_a_file_that_cannot_be_read_is_named(self):
        missing = os.path.join(os.path.dirname(self.path), "missing.json")
        self.assertEqual(demo_output("--data", missing),
                         (1, "", "%s: cannot be read: No such file or directory\n" % missing))
        path = self.write(b'{"k": 2,\n "question": "\xff"}')
        self.assertEqual(demo_output("--data", path), (1, "", "%s: is not UTF-8 text: invalid "
                                                           "start byte at line 2, column 15\n"
                                                           % path))

    def test_manifests_show_what_changed_and_say_when_more_than_one_thing_did(self):
        def manifest_part(before, after):
            data = data_with(manifests={"A": before, "B": after})
            out = demo_output("--data", self.write(data), "--summary")[1]
            return out.split("\n\n")[1].splitlines()[1:]
        rows = [
            (({"corpus": "v1", "model": "m1"}, {"corpus": "v1", "model": "m2"}),
             ["model: 'm1' -> 'm2'"]),
            (({"model": "m1", "prompt": "p1"}, {"model": "m2", "date": "2026-12-01"}),
             ["model: 'm1' -> 'm2'", "prompt: 'p1' -> (none)", "date: (none) -> '2026-12-01'",
              "3 things changed at once: which of them made the difference is unknown; "
              "change one at a time"]),
            (({"rubric": "r1"}, {"rubric": "r1"}), ["nothing changed"]),
            (({"model": "m", "prompt": "p1"}, {"model": "m", "prompt": "p2"}),
             ["prompt: 'p1' -> 'p2'"]),                                # what stayed is not shown
            (({"model": "Llama\u2011 3"}, {"model": "m"}),            # printed in ASCII
             ["model: 'Llama\\u2011 3' -> 'm'"]),
        ]
        self.assertRows(manifest_part, rows)

    def test_the_plain_demo_loads_no_module_it_does_not_need(self):
        code = ("import sys, io, contextlib; sys.path.insert(0, %r); before = set(sys.modules)\n"
                "import demo\n"
                "with contextlib.redirect_stdout(io.StringIO()): demo.main([])\n"
                "heavy = {'json', 'fractions', 'random', 'enum'}\n"
                "print(sorted((set(sys.modules) - before) & heavy))"
                % HERE)
        process = subprocess.run([sys.executable, "-S", "-c", code], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        self.assertEqual((process.stdout.split(), process.stderr), ([b"[]"], b""))


class FileLimits(DataFileCase):
    """A data file costs at most its caps, only a regular file that stays the same is read,
    and demo.py ends every run with one line at most, whatever stops it."""

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs on this system")
    def test_a_fifo_is_refused_at_once(self):
        os.mkfifo(self.path)
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer open
        self.addCleanup(os.close, reader)
        with open(self.path, "w") as writer:  # a reader that waited would read this, not hang
            writer.write("{}")
        self.assertEqual(self.refusal(self.path), "%s: is not a regular file (a FIFO, a socket "
                                                  "or a device)\n" % self.path)

    def test_a_device_is_refused(self):
        self.assertEqual(self.refusal(os.devnull), "%s: is not a regular file (a FIFO, a "
                                                   "socket or a device)\n" % os.devnull)

    def test_values_are_counted_by_the_marks_outside_strings(self):
        rows = [(("[]",), 1), (("[1, 2, 3]",), 3), (('{"a": [1, {"b": 2}]}',), 4),
                (('["a,b", "[{", ""]',), 3),           # marks inside strings do not count
                (('["a\\",[", "b"]',), 2),              # nor after an escaped quote
                (('["a\\\\", ",", "x"]',), 3),          # a string may end in a backslash
                (('{"": [], "\\\\\\"": {}}',), 4)]
        self.assertRows(lambda text: evaluate._values(text.encode("utf-8")), rows)

    def test_a_file_of_more_values_than_the_cap_is_refused_before_it_is_parsed(self):
        path = self.write('{"k": 2, "note": "[{,,,"}')  # two marks outside the string
        self.assertEqual(self.refusal(path, MAX_VALUES=2), "%s: data: unknown key 'note'; the "
                         "keys are %s\n" % (path, DATA_KEYS))  # read, then refused for it
        self.assertEqual(self.refusal(path, MAX_VALUES=1), "%s: holds more than 1 JSON values "
                         "([, { and , outside strings), the most a data file may hold\n" % path)

    def test_too_many_systems_or_rows_are_refused_naming_the_cap(self):
        path = self.write(data_with(systems=["A", "B", "C"], runs={
            name: dict(runs, C=runs["B"]) for name, runs in RUNS.items()}))
        rows = len(CASES) * 3
        self.assertEqual(demo_output("--data", path)[0], 0)
        self.assertEqual(self.refusal(path, MAX_SYSTEMS=2), "%s: systems: expected at most 2 "
                                                            "names, got 3\n" % path)
        self.assertEqual(self.refusal(path, MAX_ROWS=rows - 1), "%s: cases: expected at most "
                         "%d questions of 3 systems (%d rows), got %d\n" % (
                             path, (rows - 1) // 3, rows - 1, len(CASES)))
        with patched(MAX_ROWS=rows, MAX_SYSTEMS=3):
            self.assertEqual(demo_output("--data", path)[0], 0)

    def test_a_file_that_changes_while_it_is_read_is_refused(self):
        from unittest import mock
        path = self.write(FIXTURE_AS_JSON)
        fstat = os.fstat

        def fstat_as_another_writer_appends(descriptor):
            status = fstat(descriptor)
            with open(path, "a") as other:
                other.write(" ")
            return status
        with mock.patch("os.fstat", fstat_as_another_writer_appends):
            self.assertEqual(self.refusal(path), "%s: changed while it was read; write it "
                                                 "elsewhere, then rename it\n" % path)

    def test_a_file_written_a_moment_ago_is_read_once_a_write_of_it_would_have_ended(self):
        from unittest import mock
        path = self.write(FIXTURE_AS_JSON)
        settled = 2 * os.path.getsize(path)  # nanoseconds: a write at 500 MB/s
        changed = os.stat(path).st_mtime_ns

        def waited(since):  # nanoseconds from the last change to the moment the file is read
            with mock.patch("time.time_ns", return_value=changed + since), \
                    mock.patch("time.sleep") as sleep:
                evaluate.load_data(path)
            return round(sleep.call_args[0][0] * 10 ** 9)
        rows = [((10 ** 12,), 0),                         # long ago: read at once
                ((0,), settled),                          # just now: as long as a write takes
                ((settled // 4,), settled - settled // 4),  # what is left of it
                ((-10 ** 12,), settled)]                  # a clock behind: never longer
        self.assertRows(waited, rows)

    def test_a_path_that_is_not_plain_ascii_is_shown_escaped(self):
        folder = os.path.dirname(self.path)
        for name in ("caf\u00e9.json", "a\nb.json", "\x1b[31mred.json"):
            path = os.path.join(folder, name)
            with self.subTest(name=name):
                self.assertEqual(demo_output("--data", path), (1, "", "%s: cannot be read: No "
                                                               "such file or directory\n"
                                                               % ascii(path)))

    def run_with(self, arguments, stdout, stderr):
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = stdout, stderr
        try:
            return demo.main(arguments)
        finally:
            sys.stdout, sys.stderr = saved

    def test_help_and_faults_that_cannot_be_written_end_with_status_74(self):
        class Full:  # a stream on a full disk
            class buffer:
                def write(data):
                    raise OSError(28, "No space left on device")

            def flush(self):
                pass
        error = io.StringIO()
        self.assertEqual(self.run_with(["--help"], Full(), error), 74)
        self.assertEqual(error.getvalue(), "demo.py: cannot write the report: No space left "
                                           "on device\n")
        self.assertEqual(self.run_with(["--data", self.path], io.StringIO(), Full()), 74)
        self.assertEqual(self.run_with([], Full(), Full()), 74)

    def test_a_non_blocking_output_is_waited_for(self):
        reading, writing = os.pipe()
        self.addCleanup(os.close, reading)
        self.addCleanup(os.close, writing)

        class Filling:  # non-blocking, full at first: takes nothing, then everything
            taken, tries = b"", 0

            def write(self, data):
                self.tries += 1
                if self.tries > 1:
                    self.taken += bytes(data)
                    return len(data)

            def fileno(self):
                return writing  # free to write at once, for select()

        class Output:
            buffer = Filling()

            def flush(self):
                pass
        output = Output()
        self.assertEqual(self.run_with(["--help"], output, io.StringIO()), 0)
        self.assertEqual((output.buffer.tries, output.buffer.taken), (2, USAGE.encode()))

    def test_an_interrupt_anywhere_ends_with_one_line_and_status_130(self):
        from unittest import mock
        with mock.patch("demo.load_data", side_effect=KeyboardInterrupt):
            self.assertEqual(demo_output("--data", self.path), (130, "", "demo.py: interrupted\n"))
        with mock.patch("demo.write", side_effect=[KeyboardInterrupt, 0]):
            self.assertEqual(demo.main([]), 130)

    def test_ctrl_c_ends_the_program_with_one_line_and_status_130(self):
        process = demo_process("--data", self.path, before=(
            "import os, signal, sys\nsys.path.insert(0, %r)\nimport evaluate\n"
            "evaluate.load_data = lambda path: os.kill(os.getpid(), signal.SIGINT)" % HERE))
        self.assertEqual((process.wait(),) + process.communicate(),
                         (130, b"", b"demo.py: interrupted\n"))
        process.stdout.close()
        process.stderr.close()

if __name__ == "__main__":
    unittest.main()
