"""Lock down evaluate.py: worked checks, every input rule, exact outputs.

Run from the project folder:  python -m unittest
"""
import collections
import copy
import doctest
import os
import subprocess
import sys
import types
import unittest

import evaluate
from evaluate import EvaluationError
from fixtures import CASES, CORPUS, RUNS

HERE = os.path.dirname(os.path.abspath(__file__))


def load_tests(loader, tests, pattern):
    """Also run the README's examples, so that they cannot drift from the code."""
    readme = os.path.join(HERE, "README.md")
    tests.addTests(doctest.DocFileSuite(readme, module_relative=False))
    return tests


# --- Inputs shared by the tests ---------------------------------------------

CASE = CASES["rollback"]           # answerable, two expected claims
RUN = RUNS["rollback"]["B"]        # two retrieved notes, two supported claims


def inputs(**changes):
    """Return evaluate()'s keyword arguments for rollback/B, some replaced."""
    return dict({"corpus": CORPUS, "case": CASE, "run": RUN, "k": 2}, **changes)


def case_with(**fields):
    """Return a copy of the rollback case with some fields replaced."""
    return dict(CASE, **fields)


def run_with(**fields):
    """Return a copy of the rollback/B run with some fields replaced."""
    return dict(RUN, **fields)


def owner_answer(*citations):
    """Return owner inputs: owners and archive retrieved, aurora citing `citations`."""
    run = {"retrieved": ("owners", "archive"), "claims": (("aurora", citations),)}
    return inputs(case=CASES["owner"], run=run)


class Dict(dict):
    """A dict subclass, which the contract does not accept as a dict."""


class Tuple(tuple):
    """A tuple subclass, which the contract does not accept as a tuple."""


class Str(str):
    """A str subclass, which the contract does not accept as a str."""


class BrokenRepr:
    """A value whose repr raises, as a hostile input might."""

    def __repr__(self):
        raise RuntimeError("no repr")


Pair = collections.namedtuple("Pair", "claim citations")

IDS_100 = tuple("d%d" % i for i in range(100))
IDS_101 = tuple("d%d" % i for i in range(101))
CORPUS_100 = {doc_id: "A note." for doc_id in IDS_100}
ID_32 = "a" * 32
ID_33 = "a" * 33


# --- Worked checks from the contract ----------------------------------------

class WorkedChecks(unittest.TestCase):
    """The worked checks of SPEC.md, each one behaviour."""

    # The mutation checks rerun these tests against altered copies of evaluate.
    evaluate = staticmethod(evaluate.evaluate)

    def score(self, name, system, k=2):
        """Return the metrics of one fixture run."""
        return self.evaluate(CORPUS, CASES[name], RUNS[name][system], k=k)

    def test_short_list_keeps_the_cutoff_denominator(self):
        result = self.score("rollback", "A")
        self.assertEqual(result["precision"], 0.5)  # one hit over two slots
        self.assertEqual(result["recall"], 0.5)

    def test_citing_a_distractor_supports_nothing(self):
        result = self.score("owner", "A")
        self.assertEqual((result["recall"], result["rr"]), (1.0, 0.5))
        self.assertEqual((result["support"], result["coverage"]), (0.0, 0.0))

    def test_unlabelled_claim_halves_support_but_not_coverage(self):
        result = self.score("launch", "B")
        self.assertEqual(result["recall"], 1.0)
        self.assertEqual(result["support"], 0.5)
        self.assertEqual(result["coverage"], 1.0)

    def test_source_outside_the_cutoff_supports_nothing(self):
        result = self.score("rollback", "B", k=1)
        self.assertEqual((result["support"], result["coverage"]), (0.5, 0.5))

    def test_one_bad_citation_makes_a_claim_unsupported(self):
        for citations in [(), ("unknown",), ("owners", "archive")]:
            with self.subTest(citations=citations):
                result = self.evaluate(**owner_answer(*citations))
                self.assertEqual(result["support"], 0.0)

    def test_answerable_question_with_nothing_back_scores_zero_not_na(self):
        result = self.evaluate(**inputs(run={"retrieved": (), "claims": ()}))
        self.assertEqual(result, {
            "precision": 0.0, "recall": 0.0, "rr": 0.0,
            "support": None, "coverage": 0.0, "abstention_correct": None})

    def test_unanswerable_question_scores_only_support_and_abstention(self):
        self.assertEqual(self.score("region", "A"), {
            "precision": None, "recall": None, "rr": None,
            "support": 0.0, "coverage": None, "abstention_correct": False})
        self.assertEqual(self.score("region", "B"), {
            "precision": None, "recall": None, "rr": None,
            "support": None, "coverage": None, "abstention_correct": True})

    def test_the_faults_named_in_the_contract_are_rejected(self):
        for what, arguments in [
                ("a repeated retrieved ID", inputs(run=run_with(retrieved=("rollback",) * 2))),
                ("a repeated claim ID", inputs(run=run_with(claims=(("switch", ()),) * 2))),
                ("a source outside relevant",
                 inputs(case=case_with(support={"switch": ("owners",)}))),
                ("k of 0", inputs(k=0)), ("k of True", inputs(k=True)),
                ("k of 1.5", inputs(k=1.5)), ("k of 101", inputs(k=101)),
        ]:
            with self.subTest(what):
                with self.assertRaises(ValueError):
                    self.evaluate(**arguments)

    def test_every_fixture_run_scores_exactly(self):
        expected = {
            # (case, system): precision, recall, rr, support, coverage, abstention
            ("launch", "A"):   (0.5, 1.0, 1.0, 1.0, 1.0, None),
            ("launch", "B"):   (0.5, 1.0, 1.0, 0.5, 1.0, None),
            ("rollback", "A"): (0.5, 0.5, 1.0, 1.0, 0.5, None),
            ("rollback", "B"): (1.0, 1.0, 1.0, 1.0, 1.0, None),
            ("owner", "A"):    (0.5, 1.0, 0.5, 0.0, 0.0, None),
            ("owner", "B"):    (0.5, 1.0, 1.0, 1.0, 1.0, None),
            ("region", "A"):   (None, None, None, 0.0, None, False),
            ("region", "B"):   (None, None, None, None, None, True),
        }
        for (name, system), values in expected.items():
            with self.subTest(case=name, system=system):
                result = self.score(name, system)
                self.assertEqual(list(result), list(evaluate.METRICS))
                self.assertEqual(tuple(result.values()), values)


class Metrics(unittest.TestCase):
    """Definitions of the metrics beyond the worked checks."""

    def test_result_keys_come_in_the_contract_order(self):
        self.assertEqual(list(evaluate.evaluate(**inputs())), [
            "precision", "recall", "rr", "support", "coverage", "abstention_correct"])

    def test_ratios_are_floats_and_abstention_a_bool(self):
        for name, runs in RUNS.items():
            for system, run in runs.items():
                with self.subTest(case=name, system=system):
                    result = evaluate.evaluate(CORPUS, CASES[name], run)
                    for key, value in result.items():
                        wanted = bool if key == "abstention_correct" else float
                        self.assertIn(type(value), (wanted, type(None)))

    def test_reciprocal_rank_follows_the_first_relevant_rank(self):
        for retrieved, k, rr in [
                (("owners",), 1, 1.0),
                (("archive", "owners"), 2, 0.5),
                (("archive", "launch", "owners"), 3, 1 / 3),
                (("archive", "launch", "rollback", "owners"), 4, 0.25),
                (("archive", "launch", "owners"), 2, 0.0),   # beyond the cutoff
        ]:
            with self.subTest(retrieved=retrieved, k=k):
                run = {"retrieved": retrieved, "claims": ()}
                result = evaluate.evaluate(CORPUS, CASES["owner"], run, k=k)
                self.assertEqual(result["rr"], rr)

    def test_precision_keeps_k_slots_at_every_cutoff(self):
        run = {"retrieved": ("rollback",), "claims": ()}
        for k, precision in [(1, 1.0), (2, 0.5), (4, 0.25), (100, 0.01)]:
            with self.subTest(k=k):
                result = evaluate.evaluate(CORPUS, CASE, run, k=k)
                self.assertEqual(result["precision"], precision)
                self.assertEqual(result["recall"], 0.5)

    def test_default_cutoff_is_two(self):
        run = {"retrieved": ("archive", "launch", "rollback"), "claims": ()}
        self.assertEqual(evaluate.evaluate(CORPUS, CASE, run),
                         evaluate.evaluate(CORPUS, CASE, run, k=2))
        self.assertEqual(evaluate.evaluate(CORPUS, CASE, run)["precision"], 0.0)

    def test_labelled_source_that_was_not_retrieved_supports_nothing(self):
        run = {"retrieved": ("rollback",), "claims": (("smoke", ("checklist",)),)}
        self.assertEqual(evaluate.evaluate(CORPUS, CASE, run)["support"], 0.0)

    def test_claim_with_several_labelled_sources_may_cite_any_of_them(self):
        case = case_with(support={"steps": ("rollback", "checklist")})
        for citations, support in [(("rollback",), 1.0), (("checklist", "rollback"), 1.0),
                                   (("rollback", "launch"), 0.0)]:
            with self.subTest(citations=citations):
                run = run_with(claims=(("steps", citations),))
                result = evaluate.evaluate(CORPUS, case, run)
                self.assertEqual((result["support"], result["coverage"]), (support, support))

    def test_source_of_another_claim_does_not_support(self):
        run = run_with(claims=(("switch", ("checklist",)), ("smoke", ("checklist",))))
        result = evaluate.evaluate(CORPUS, CASE, run)
        self.assertEqual((result["support"], result["coverage"]), (0.5, 0.5))

    def test_claims_on_an_unanswerable_question_are_never_supported(self):
        run = {"retrieved": ("archive",), "claims": (("region", ("archive",)), ("x", ()))}
        result = evaluate.evaluate(CORPUS, CASES["region"], run)
        self.assertEqual((result["support"], result["abstention_correct"]), (0.0, False))

    def test_tally_keeps_the_counts_behind_each_ratio(self):
        counts = evaluate.tally(CORPUS, CASES["launch"], RUNS["launch"]["B"])
        self.assertEqual(counts, {"relevant": 1, "k": 2, "hits": 1, "first_hit": 1,
                                  "generated": 2, "supported": 1, "expected": 1})
        counts = evaluate.tally(CORPUS, CASE, {"retrieved": ("archive",), "claims": ()}, k=3)
        self.assertEqual(counts, {"relevant": 2, "k": 3, "hits": 0, "first_hit": None,
                                  "generated": 0, "supported": 0, "expected": 2})

    def test_scores_come_from_the_tally_alone(self):
        counts = {"relevant": 4, "k": 8, "hits": 2, "first_hit": 4,
                  "generated": 8, "supported": 2, "expected": 4}
        self.assertEqual(evaluate.scores(counts), {
            "precision": 0.25, "recall": 0.5, "rr": 0.25,
            "support": 0.25, "coverage": 0.5, "abstention_correct": None})


# --- Input rules ------------------------------------------------------------

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
    ("uppercase document ID", inputs(corpus={"Launch": "x"}), "corpus: invalid ID 'Launch'"),
    ("33-character document ID", inputs(corpus={ID_33: "x"}), "corpus: invalid ID '%s'" % ID_33),
    ("101 documents", inputs(corpus=dict.fromkeys(IDS_101, "A note.")),
     "corpus: expected at most 100 IDs, got 101: "
     "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11', 'd..."),
    ("blank text", inputs(corpus=dict(CORPUS, archive=" \n\t")),
     "corpus['archive']: expected text with a non-whitespace character, got ' \\n\\t'"),
    ("empty text", inputs(corpus=dict(CORPUS, archive="")),
     "corpus['archive']: expected text with a non-whitespace character, got ''"),
    ("text as bytes", inputs(corpus=dict(CORPUS, archive=b"old")),
     "corpus['archive']: expected text with a non-whitespace character, got b'old'"),
    ("text as a str subclass", inputs(corpus=dict(CORPUS, archive=Str("old"))),
     "corpus['archive']: expected text with a non-whitespace character, got 'old'"),
    # case: a dict with an ID tuple "relevant" and a dict "support".
    ("case as a tuple", inputs(case=()), "case: expected a dict, got ()"),
    ("case as a dict subclass", inputs(case=Dict(relevant=(), support={})),
     "case: expected a dict, got {'relevant': (), 'support': {}}"),
    ("case without relevant", inputs(case={"support": {}}),
     "case[\"relevant\"]: missing from {'support': {}}"),
    ("relevant as a list", inputs(case=case_with(relevant=["rollback"])),
     "case[\"relevant\"]: expected a tuple, got ['rollback']"),
    ("relevant as a tuple subclass", inputs(case=case_with(relevant=Tuple(["rollback"]))),
     "case[\"relevant\"]: expected a tuple, got ('rollback',)"),
    ("unknown relevant document", inputs(case=case_with(relevant=("rollback", "zeta"))),
     "case[\"relevant\"]: unknown document 'zeta'"),
    ("repeated relevant document", inputs(case=case_with(relevant=("rollback", "rollback"))),
     "case[\"relevant\"]: repeated ID 'rollback'"),
    ("case without support", inputs(case={"relevant": ()}),
     "case[\"support\"]: missing from {'relevant': ()}"),
    ("support as a list", inputs(case=case_with(support=[])),
     "case[\"support\"]: expected a dict, got []"),
    ("support as a dict subclass", inputs(case=case_with(support=Dict())),
     "case[\"support\"]: expected a dict, got {}"),
    ("claim label with an underscore", inputs(case=case_with(support={"s_1": ("rollback",)})),
     "case[\"support\"]: invalid ID 's_1'"),
    ("101 claim labels", inputs(case=case_with(support=dict.fromkeys(IDS_101, ("rollback",)))),
     "case[\"support\"]: expected at most 100 IDs, got 101: "
     "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11', 'd..."),
    ("sources as a list", inputs(case=case_with(support={"switch": ["rollback"]})),
     "case[\"support\"]['switch']: expected a tuple, got ['rollback']"),
    ("no sources", inputs(case=case_with(support={"switch": ()})),
     "case[\"support\"]['switch']: expected at least one source, got ()"),
    ("repeated source", inputs(case=case_with(support={"switch": ("rollback", "rollback")})),
     "case[\"support\"]['switch']: repeated ID 'rollback'"),
    ("source outside relevant", inputs(case=case_with(support={"switch": ("launch",)})),
     "case[\"support\"]['switch']: source 'launch' is not in case[\"relevant\"]"),
    ("claims expected of an unanswerable question",
     inputs(case={"relevant": (), "support": {"switch": ("rollback",)}}),
     "case[\"support\"]['switch']: source 'rollback' is not in case[\"relevant\"]"),
    ("relevant documents but no expected claim", inputs(case=case_with(support={})),
     "case[\"support\"]: expected claims for case[\"relevant\"] ('rollback', 'checklist'), got {}"),
    # run: a dict with an ID tuple "retrieved" and a tuple of claims.
    ("run as None", inputs(run=None), "run: expected a dict, got None"),
    ("run as a dict subclass", inputs(run=Dict(retrieved=(), claims=())),
     "run: expected a dict, got {'retrieved': (), 'claims': ()}"),
    ("run without retrieved", inputs(run={"claims": ()}),
     "run[\"retrieved\"]: missing from {'claims': ()}"),
    ("run without claims", inputs(run={"retrieved": ()}),
     "run[\"claims\"]: missing from {'retrieved': ()}"),
    ("retrieved as a string", inputs(run=run_with(retrieved="rollback")),
     "run[\"retrieved\"]: expected a tuple, got 'rollback'"),
    ("unknown retrieved document", inputs(run=run_with(retrieved=("rollback", "zeta"))),
     "run[\"retrieved\"]: unknown document 'zeta'"),
    ("repeated retrieved document",
     inputs(run=run_with(retrieved=("archive", "rollback", "rollback"))),
     "run[\"retrieved\"]: repeated ID 'rollback'"),
    ("retrieved ID with a trailing newline", inputs(run=run_with(retrieved=("rollback\n",))),
     "run[\"retrieved\"]: invalid ID 'rollback\\n'"),
    ("retrieved ID as a str subclass", inputs(run=run_with(retrieved=(Str("rollback"),))),
     "run[\"retrieved\"]: invalid ID 'rollback'"),
    ("101 retrieved IDs", inputs(corpus=CORPUS_100, case=CASES["region"],
                                 run=run_with(retrieved=IDS_101)),
     "run[\"retrieved\"]: expected at most 100 IDs, got 101: "
     "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11', 'd..."),
    ("claims as a list", inputs(run=run_with(claims=[])),
     "run[\"claims\"]: expected a tuple, got []"),
    ("101 claims", inputs(run=run_with(claims=tuple((i, ()) for i in IDS_101))),
     "run[\"claims\"]: expected at most 100 claims, got 101: "
     "(('d0', ()), ('d1', ()), ('d2', ()), ('d3', ()), ('d4', ()), ('d5', ()), ('d6..."),
    ("claim as a bare ID", inputs(run=run_with(claims=("switch",))),
     "run[\"claims\"][0]: expected a (claim ID, citations) pair, got 'switch'"),
    ("claim as a triple", inputs(run=run_with(claims=(("switch", ("rollback",), 1),))),
     "run[\"claims\"][0]: expected a (claim ID, citations) pair, got ('switch', ('rollback',), 1)"),
    ("claim as a namedtuple", inputs(run=run_with(claims=(Pair("switch", ()),))),
     "run[\"claims\"][0]: expected a (claim ID, citations) pair, "
     "got Pair(claim='switch', citations=())"),
    ("claim ID with a space", inputs(run=run_with(claims=(("smoke test", ()),))),
     "run[\"claims\"][0]: invalid claim ID 'smoke test'"),
    ("repeated claim ID", inputs(run=run_with(claims=(("switch", ()), ("switch", ())))),
     "run[\"claims\"][1]: repeated claim ID 'switch'"),
    ("citations as a string", inputs(run=run_with(claims=(("switch", "rollback"),))),
     "run[\"claims\"][0][1]: expected a tuple, got 'rollback'"),
    ("citation with a non-ASCII letter", inputs(run=run_with(claims=(("switch", ("rollbäck",)),))),
     "run[\"claims\"][0][1]: invalid ID 'rollbäck'"),
    ("repeated citation", inputs(run=run_with(claims=(("x", ()), ("switch", ("a", "a"))))),
     "run[\"claims\"][1][1]: repeated ID 'a'"),
    ("101 citations", inputs(run=run_with(claims=(("switch", IDS_101),))),
     "run[\"claims\"][0][1]: expected at most 100 IDs, got 101: "
     "('d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10', 'd11', 'd..."),
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
     inputs(corpus=CORPUS_100, case={"relevant": IDS_100, "support": {i: IDS_100 for i in IDS_100}},
            run={"retrieved": IDS_100, "claims": tuple((i, IDS_100) for i in IDS_100)})),
    ("an empty retrieval and an empty answer", inputs(run={"retrieved": (), "claims": ()})),
    ("a claim with no citations", inputs(run=run_with(claims=(("switch", ()),)))),
    ("a citation outside the corpus", inputs(run=run_with(claims=(("switch", ("zeta",)),)))),
    ("a claim with no support label", inputs(run=run_with(claims=(("extra", ("rollback",)),)))),
    ("other keys in case and run", inputs(case=case_with(question="?", notes=[1]),
                                          run=run_with(model="m1", answer="Roll back."))),
    ("text padded with whitespace", inputs(corpus=dict(CORPUS, archive="\n old \n"))),
]


class InputRules(unittest.TestCase):
    """Each input rule rejects what breaks it and accepts its nearest neighbour."""

    def test_each_fault_raises_an_exact_message_from_evaluate_and_validate(self):
        for function in (evaluate.evaluate, evaluate.validate):
            for what, arguments, message in REJECTED:
                with self.subTest(what, function=function.__name__):
                    with self.assertRaises(EvaluationError) as caught:
                        function(**arguments)
                    self.assertEqual(str(caught.exception), message)

    def test_nearest_valid_inputs_are_accepted(self):
        for what, arguments in ACCEPTED:
            with self.subTest(what):
                result = evaluate.evaluate(**arguments)
                self.assertEqual(list(result), list(evaluate.METRICS))

    def test_validate_returns_the_parts_it_checked(self):
        parts = evaluate.validate(CORPUS, CASE, RUN, 2)
        self.assertEqual(len(parts), 4)
        for part, original in zip(parts, [CASE["relevant"], CASE["support"],
                                          RUN["retrieved"], RUN["claims"]]):
            self.assertIs(part, original)

    def test_evaluation_error_is_a_value_error(self):
        self.assertTrue(issubclass(EvaluationError, ValueError))

    def test_id_rule_holds_in_every_position(self):
        bad_ids = ["", ID_33, "Rollback", "rollback\n", "roll_back", "roll back", "1st",
                   "-first", "caf\u00e9", "\u212aelvin", "Xmas", "taXi", Str("rollback"), None, 7]
        for bad in bad_ids:
            positions = [
                inputs(corpus={bad: "x"}),
                inputs(case=case_with(relevant=(bad,))),
                inputs(case=case_with(support={bad: ("rollback",)})),
                inputs(case=case_with(support={"switch": (bad,)})),
                inputs(run=run_with(retrieved=(bad,))),
                inputs(run=run_with(claims=((bad, ()),))),
                inputs(run=run_with(claims=(("switch", (bad,)),))),
            ]
            for position, arguments in enumerate(positions):
                with self.subTest(bad=bad, position=position):
                    with self.assertRaisesRegex(EvaluationError, "invalid (claim )?ID"):
                        evaluate.evaluate(**arguments)

    def test_unhashable_item_in_an_id_tuple_is_an_invalid_id(self):
        for field, arguments in [
                ('case["relevant"]', inputs(case=case_with(relevant=(["rollback"],)))),
                ('case["support"][\'switch\']', inputs(case=case_with(support={"switch": ([],)}))),
                ('run["retrieved"]', inputs(run=run_with(retrieved=({},)))),
                ('run["claims"][0][1]', inputs(run=run_with(claims=(("switch", ([],)),)))),
        ]:
            with self.subTest(field=field):
                with self.assertRaises(EvaluationError) as caught:
                    evaluate.evaluate(**arguments)
                self.assertTrue(str(caught.exception).startswith(field + ": invalid ID "))

    def test_values_longer_than_80_characters_are_shortened_in_messages(self):
        for length, shown in [
                (78, "'" + "a" * 78 + "'"),         # a repr of 80 characters: whole
                (79, "'" + "a" * 76 + "..."),       # 81 characters: cut to 80
                (100, "'" + "a" * 76 + "..."),
        ]:
            with self.subTest(length=length):
                with self.assertRaises(EvaluationError) as caught:
                    evaluate.evaluate(**inputs(run=run_with(retrieved=("a" * length,))))
                self.assertEqual(str(caught.exception), "run[\"retrieved\"]: invalid ID " + shown)

    def test_a_value_whose_repr_fails_is_still_reported(self):
        with self.assertRaises(EvaluationError) as caught:
            evaluate.evaluate(**inputs(run=BrokenRepr()))
        self.assertEqual(str(caught.exception),
                         "run: expected a dict, got <BrokenRepr with a broken repr>")

    def test_odd_values_anywhere_raise_only_value_errors(self):
        odd = [None, True, 0, 1.5, "", "a", "A", b"a", (), [], {}, ("a",), ("a", "a"),
               (("a", ()),), Str("a"), Tuple(), Dict(), BrokenRepr(), object(), {1: 2}]
        places = [lambda v: inputs(corpus=v), lambda v: inputs(case=v),
                  lambda v: inputs(run=v), lambda v: inputs(k=v),
                  lambda v: inputs(corpus=dict(CORPUS, rollback=v)),
                  lambda v: inputs(case=case_with(relevant=v)),
                  lambda v: inputs(case=case_with(support=v)),
                  lambda v: inputs(case=case_with(support={"switch": v})),
                  lambda v: inputs(run=run_with(retrieved=v)),
                  lambda v: inputs(run=run_with(claims=v)),
                  lambda v: inputs(run=run_with(claims=(v,))),
                  lambda v: inputs(run=run_with(claims=((v, ()),))),
                  lambda v: inputs(run=run_with(claims=(("switch", v),)))]
        outcomes = collections.Counter()
        for place, put in enumerate(places):
            for value in odd:
                with self.subTest(place=place, value=type(value).__name__):
                    try:
                        result = evaluate.evaluate(**put(value))
                    except EvaluationError:
                        outcomes["rejected"] += 1
                    else:
                        self.assertEqual(list(result), list(evaluate.METRICS))
                        outcomes["scored"] += 1
        # Eight are valid: the texts "a" and "A", an empty retrieval, no claims,
        # a claim "a" (twice), no citations, and a citation outside the corpus.
        self.assertEqual(outcomes, {"rejected": 252, "scored": 8})


class NoInputIsModified(unittest.TestCase):
    """Scoring and rejecting both leave every input as it was."""

    def test_scoring_leaves_the_fixture_unchanged(self):
        before = copy.deepcopy((CORPUS, CASES, RUNS))
        for name, runs in RUNS.items():
            for run in runs.values():
                evaluate.evaluate(CORPUS, CASES[name], run, k=1)
        self.assertEqual((CORPUS, CASES, RUNS), before)

    def test_rejecting_leaves_the_inputs_unchanged(self):
        for what, arguments, _ in REJECTED:
            before = copy.deepcopy(arguments)
            with self.subTest(what):
                with self.assertRaises(EvaluationError):
                    evaluate.evaluate(**arguments)
                self.assertEqual(arguments, before)


# --- An independent arithmetic sweep ----------------------------------------

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

SWEEP_CUTOFFS = (1, 2, 3, 4)  # 4 reaches beyond the longest list

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


def oracle(relevant, support, retrieved, claims, k):
    """Score one question with plain loops, written apart from evaluate.py."""
    hits, first_rank = 0, 0
    for rank in range(1, k + 1):
        if rank <= len(retrieved) and retrieved[rank - 1] in relevant:
            hits += 1
            if first_rank == 0:
                first_rank = rank
    supported = 0
    for claim_id, citations in claims:
        good = len(citations) > 0
        for cited in citations:
            if cited not in support.get(claim_id, ()) or cited not in retrieved[:k]:
                good = False
        if good:
            supported += 1
    result = {"precision": None, "recall": None, "rr": None, "support": None,
              "coverage": None, "abstention_correct": None}
    if len(relevant) > 0:
        result["precision"] = hits / k
        result["recall"] = hits / len(relevant)
        result["rr"] = 1 / first_rank if first_rank > 0 else 0.0
        result["coverage"] = supported / len(support)
    else:
        result["abstention_correct"] = len(claims) == 0
    if len(claims) > 0:
        result["support"] = supported / len(claims)
    return result


class Sweep(unittest.TestCase):
    """evaluate() agrees exactly with the oracle on every swept configuration."""

    evaluate = staticmethod(evaluate.evaluate)

    def test_every_configuration_matches_the_oracle(self):
        evaluations = 0
        for relevant, support in SWEEP_LABELS:
            case = {"relevant": relevant, "support": support}
            for retrieved in SWEEP_RETRIEVED:
                for k in SWEEP_CUTOFFS:
                    for what, claims in SWEEP_ANSWERS:
                        run = {"retrieved": retrieved, "claims": claims}
                        with self.subTest(relevant=relevant, retrieved=retrieved, k=k, answer=what):
                            self.assertEqual(self.evaluate(SWEEP_CORPUS, case, run, k=k),
                                             oracle(relevant, support, retrieved, claims, k))
                        evaluations += 1
        self.assertEqual(evaluations, 4 * 41 * 4 * 10)  # 656 retrieval configurations


# --- The suite catches the defects SPEC.md names ----------------------------

# (SPEC.md's defect, the text of evaluate.py it replaces, the replacement)
DEFECTS = {
    "precision over the documents returned":
        ('"k": k,', '"k": max(1, len(retrieved)),'),
    "any permitted citation supports the claim":
        ("all(", "any("),
    "a source outside the top k still supports":
        (" and cited in visible", ""),
}


class MutationChecks(unittest.TestCase):
    """Each defect, applied to a copy of evaluate.py, fails the worked checks.

    A mutation tool that rewrites evaluate.py must deselect these (-k mutation).
    """

    def worked_checks_on_mutant(self, defect):
        """Apply one defect to a copy of evaluate.py; return the worked checks' result."""
        original, replacement = DEFECTS[defect]
        with open(evaluate.__file__, encoding="utf-8") as file:
            source = file.read()
        self.assertEqual(source.count(original), 1, "the defect's target moved")
        mutant = types.ModuleType("evaluate_mutant")
        exec(compile(source.replace(original, replacement), "evaluate_mutant.py", "exec"),
             mutant.__dict__)
        on_mutant = type("OnMutant", (WorkedChecks,), {"evaluate": staticmethod(mutant.evaluate)})
        result = unittest.TestResult()
        unittest.TestLoader().loadTestsFromTestCase(on_mutant).run(result)
        return result

    def test_mutation_defects_fail_an_assertion_not_with_an_error(self):
        for defect in DEFECTS:
            with self.subTest(defect):
                result = self.worked_checks_on_mutant(defect)
                self.assertGreater(len(result.failures), 0)
                self.assertEqual(result.errors, [])

    def test_mutation_leaves_the_real_module_untouched(self):
        before = dict(vars(evaluate))
        for defect in DEFECTS:
            self.worked_checks_on_mutant(defect)
        self.assertEqual(dict(vars(evaluate)), before)
        self.assertIs(sys.modules["evaluate"], evaluate)
        result = unittest.TestResult()
        unittest.TestLoader().loadTestsFromTestCase(WorkedChecks).run(result)
        self.assertTrue(result.wasSuccessful())


# --- Comparing systems ------------------------------------------------------

def fixture_tallies(system):
    """Return one system's tally of each fixture question, by name."""
    return {name: evaluate.tally(CORPUS, CASES[name], RUNS[name][system]) for name in CASES}


def fixture_scores(system):
    """Return one system's scores of each fixture question, by name."""
    return {name: evaluate.scores(counts) for name, counts in fixture_tallies(system).items()}


ANSWERABLE = ("launch", "rollback", "owner")


def values_of(system, metric, names):
    """Return one metric of one system's fixture scores over some questions."""
    scores = fixture_scores(system)
    return [scores[name][metric] for name in names]


def with_scores(**changes):
    """Return a row of scores, all n/a but for some metrics."""
    return dict(dict.fromkeys(evaluate.METRICS), **changes)


class Comparison(unittest.TestCase):
    """Slices, declared aggregates and per-question changes from A to B."""

    def test_slices_part_answerable_from_unanswerable_questions(self):
        self.assertEqual(evaluate.slices(fixture_tallies("A")), {
            "answerable": ["launch", "rollback", "owner"], "unanswerable": ["region"]})

    def test_macro_mean_skips_na_and_counts_what_it_averaged(self):
        for values, expected in [
                ([0.5, None, 1.0], (0.75, 2, 3)),
                ([0.0, 0.25], (0.125, 2, 2)),
                ([0.0], (0.0, 1, 1)),
                ([None, None], (None, 0, 2)),   # all n/a: n/a, not 0.00
                ([], (None, 0, 0)),             # an empty slice
        ]:
            with self.subTest(values=values):
                self.assertEqual(evaluate.macro_mean(values), expected)

    def test_answerable_slice_macro_means_match_the_comparison(self):
        expected = {
            # metric: (A, B), each over 3 of 3 questions
            "precision": (1.5 / 3, 2.0 / 3),
            "recall": (2.5 / 3, 3.0 / 3),
            "rr": (2.5 / 3, 3.0 / 3),
            "support": (2.0 / 3, 2.5 / 3),
            "coverage": (1.5 / 3, 3.0 / 3),
        }
        for metric, means in expected.items():
            for system, mean in zip("AB", means):
                with self.subTest(metric=metric, system=system):
                    self.assertEqual(evaluate.macro_mean(values_of(system, metric, ANSWERABLE)),
                                     (mean, 3, 3))

    def test_unanswerable_slice_averages_only_what_applies(self):
        self.assertEqual(evaluate.macro_mean(values_of("A", "support", ["region"])), (0.0, 1, 1))
        self.assertEqual(evaluate.macro_mean(values_of("B", "support", ["region"])), (None, 0, 1))
        self.assertEqual(evaluate.macro_mean(values_of("A", "precision", ["region"])),
                         (None, 0, 1))

    def test_pooled_support_adds_claim_counts(self):
        for system, expected in [("A", (2, 3, 2 / 3)), ("B", (4, 5, 0.8))]:
            with self.subTest(system=system):
                tallies = [fixture_tallies(system)[name] for name in ANSWERABLE]
                self.assertEqual(evaluate.pooled_support(tallies), expected)

    def test_pooled_and_macro_support_differ_for_b(self):
        tallies = [fixture_tallies("B")[name] for name in ANSWERABLE]
        self.assertEqual(evaluate.pooled_support(tallies)[2], 0.8)
        self.assertEqual(evaluate.macro_mean(values_of("B", "support", ANSWERABLE))[0], 2.5 / 3)

    def test_aggregates_read_a_one_pass_iterator_correctly(self):
        self.assertEqual(evaluate.macro_mean(iter([0.5, None])), (0.5, 1, 2))
        tallies = iter([fixture_tallies("B")[name] for name in ANSWERABLE])
        self.assertEqual(evaluate.pooled_support(tallies), (4, 5, 0.8))
        self.assertEqual(evaluate.correct_abstentions(iter(fixture_tallies("B").values())), (1, 1))

    def test_pooled_support_without_claims_is_na(self):
        self.assertEqual(evaluate.pooled_support([fixture_tallies("B")["region"]]), (0, 0, None))
        self.assertEqual(evaluate.pooled_support([]), (0, 0, None))

    def test_correct_abstentions_count_only_unanswerable_questions(self):
        self.assertEqual(evaluate.correct_abstentions(list(fixture_tallies("A").values())), (0, 1))
        self.assertEqual(evaluate.correct_abstentions(list(fixture_tallies("B").values())), (1, 1))
        empty_answer = evaluate.tally(CORPUS, CASE, {"retrieved": (), "claims": ()})
        self.assertEqual(evaluate.correct_abstentions([empty_answer]), (0, 0))
        self.assertEqual(evaluate.correct_abstentions([]), (0, 0))

    def test_change_compares_values_and_leaves_na_unjudged(self):
        for before, after, expected in [
                (0.5, 1.0, "better"), (1.0, 0.5, "worse"), (0.5, 0.5, "equal"),
                (0.0, 0.0, "equal"), (False, True, "better"), (True, False, "worse"),
                (True, True, "equal"), (None, 0.5, None), (0.0, None, None), (None, None, None),
        ]:
            with self.subTest(before=before, after=after):
                self.assertEqual(evaluate.change(before, after), expected)

    def test_verdict_weighs_what_got_better_against_what_got_worse(self):
        for before, after, expected in [
                (with_scores(recall=0.5), with_scores(recall=1.0), "improved"),
                (with_scores(recall=1.0), with_scores(recall=0.5), "regressed"),
                (with_scores(recall=0.5, rr=1.0), with_scores(recall=1.0, rr=0.5), "mixed"),
                (with_scores(recall=0.5), with_scores(recall=0.5), "unchanged"),
                (with_scores(), with_scores(), "unchanged"),
                (with_scores(abstention_correct=False), with_scores(abstention_correct=True),
                 "improved"),
        ]:
            with self.subTest(before=before, after=after):
                self.assertEqual(evaluate.verdict(before, after), expected)

    def test_a_change_to_na_alone_is_not_judged(self):
        before, after = with_scores(support=0.0), with_scores(support=None)
        self.assertEqual(evaluate.verdict(before, after), "unchanged")
        self.assertEqual(evaluate.verdict(after, before), "unchanged")

    def test_fixture_verdicts_show_the_regression_behind_better_averages(self):
        before, after = fixture_scores("A"), fixture_scores("B")
        verdicts = {name: evaluate.verdict(before[name], after[name]) for name in CASES}
        self.assertEqual(verdicts, {"launch": "regressed", "rollback": "improved",
                                    "owner": "improved", "region": "improved"})
        self.assertEqual(evaluate.verdict_totals(verdicts.values()),
                         {"improved": 3, "regressed": 1, "mixed": 0, "unchanged": 0})

    def test_verdict_totals_count_every_verdict_in_a_fixed_order(self):
        totals = evaluate.verdict_totals(iter(["mixed", "unchanged", "mixed"]))
        self.assertEqual(list(totals.items()), [
            ("improved", 0), ("regressed", 0), ("mixed", 2), ("unchanged", 1)])


# --- The demo ---------------------------------------------------------------

EXPECTED_TABLE = """\
case system | P@2 R@2 RR@2 support coverage abstention
launch A | 0.50 1.00 1.00 1.00 1.00 n/a
launch B | 0.50 1.00 1.00 0.50 1.00 n/a
rollback A | 0.50 0.50 1.00 1.00 0.50 n/a
rollback B | 1.00 1.00 1.00 1.00 1.00 n/a
owner A | 0.50 1.00 0.50 0.00 0.00 n/a
owner B | 0.50 1.00 1.00 1.00 1.00 n/a
region A | n/a n/a n/a 0.00 n/a no
region B | n/a n/a n/a n/a n/a yes
"""

EXPECTED_SUMMARY = EXPECTED_TABLE + """\

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

n/a rule: a macro mean skips questions without a value and says how many it averaged; \
n/a never counts as 0.

per-question change from A to B (a pair with n/a on either side is shown, not judged)
launch: regressed (support 1.00 -> 0.50)
rollback: improved (P@2 0.50 -> 1.00, R@2 0.50 -> 1.00, coverage 0.50 -> 1.00)
owner: improved (RR@2 0.50 -> 1.00, support 0.00 -> 1.00, coverage 0.00 -> 1.00)
region: improved (abstention no -> yes; not judged: support 0.00 -> n/a)
totals: 3 improved, 1 regressed, 0 mixed, 0 unchanged
"""


def run_demo(*arguments):
    """Run demo.py from a folder other than the project's; return the process."""
    return subprocess.run([sys.executable, os.path.join(HERE, "demo.py")] + list(arguments),
                          cwd=os.path.dirname(HERE), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


class Demo(unittest.TestCase):
    """python demo.py prints the per-question table, byte for byte."""

    def test_demo_prints_the_exact_table(self):
        process = run_demo()
        self.assertEqual(process.stderr, b"")
        self.assertEqual(process.stdout, EXPECTED_TABLE.encode("ascii"))
        self.assertEqual(process.returncode, 0)

    def test_summary_prints_the_table_then_the_comparison(self):
        process = run_demo("--summary")
        self.assertEqual(process.stderr, b"")
        self.assertEqual(process.stdout, EXPECTED_SUMMARY.encode("ascii"))
        self.assertEqual(process.returncode, 0)

    def test_unknown_option_prints_usage_and_exits_with_status_2(self):
        for arguments in [("--sumary",), ("--summary", "extra"), ("summary",)]:
            with self.subTest(arguments=arguments):
                process = run_demo(*arguments)
                self.assertEqual(process.stdout, b"")
                self.assertEqual(process.stderr, b"usage: python demo.py [--summary]\n")
                self.assertEqual(process.returncode, 2)

    def test_help_prints_usage_and_succeeds(self):
        for option in ("-h", "--help"):
            with self.subTest(option=option):
                process = run_demo(option)
                self.assertEqual(process.stdout, b"usage: python demo.py [--summary]\n")
                self.assertEqual(process.returncode, 0)


if __name__ == "__main__":
    unittest.main()
