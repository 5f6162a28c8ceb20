"""The frozen test set: five fictional notes, four questions, and the
recorded runs of two systems.

Systems "A" and "B" are hand-written outputs chosen to make each scoring
rule visible; they are not measurements of any real model. Claims are
given as claim IDs that a person has already annotated, each with the
notes it cites.
"""

# Document ID -> text. Only the IDs are scored; the text is there to read.
CORPUS = {
    "launch":    "The release window for the fictional Larkspur app "
                 "opens on Monday.",
    "rollback":  "Rollback, step one: send all traffic back to the "
                 "previous version.",
    "checklist": "Rollback, step two: once traffic is back on the old "
                 "version, run the smoke test.",
    "owners":    "The fictional Aurora team owns the checkout latency "
                 "alert.",
    "archive":   "Planning notes for Project Heron, retired long ago; kept "
                 "for its team only.",
}

# Case name -> question, relevant documents, and support: expected claim
# ID -> the documents that may be cited for it. "disputed", when given,
# holds labels that reviewers did not agree on, and "rejected" the claims
# they found unsupported by every note. "restricted" lists the documents
# that whoever asks this question may not see.
CASES = {
    # One relevant note, one expected claim. B also claims "bonus", that
    # the release itself ships on Monday: one reviewer read that in the
    # launch note, another read only that the window opens then. A
    # disputed label: only the lenient reading counts it.
    "launch": {
        "question": "When does the Larkspur release window open?",
        "relevant": ("launch",),
        "support":  {"monday": ("launch",)},
        "disputed": {"bonus": ("launch",)},
    },
    # Two notes are needed: each rollback step has its own source.
    "rollback": {
        "question": "What are the two steps of a rollback?",
        "relevant": ("rollback", "checklist"),
        "support":  {"switch": ("rollback",), "smoke": ("checklist",)},
    },
    # One relevant note; the archive note is a plausible distractor, and
    # the on-call engineer who asks may not read it: showing it is a
    # disclosure.
    "owner": {
        "question":   "Which team owns the checkout latency alert?",
        "relevant":   ("owners",),
        "support":    {"aurora": ("owners",)},
        "restricted": ("archive",),
    },
    # Unanswerable: no note says where the backup lives, so nothing is
    # relevant and no claim is expected. The right answer is to abstain.
    # Reviewers read A's claim "region" against every note and found
    # nothing to back it: a rejected claim, not a gap in the labels.
    "region": {
        "question": "In which region is the backup hosted?",
        "relevant": (),
        "support":  {},
        "rejected": ("region",),
    },
}

# Case name -> system -> what it retrieved (in rank order) and the claims
# of its answer, each as (claim ID, cited documents).
RUNS = {
    # B adds "bonus", whose only label is disputed: its support falls to
    # 0.50 in the strict reading.
    "launch": {
        "A": {"retrieved": ("launch", "archive"),
              "claims": (("monday", ("launch",)),)},
        "B": {"retrieved": ("launch", "archive"),
              "claims": (("monday", ("launch",)), ("bonus", ("launch",)))},
    },
    # A retrieves one note for two slots and states only the first step.
    "rollback": {
        "A": {"retrieved": ("rollback",),
              "claims": (("switch", ("rollback",)),)},
        "B": {"retrieved": ("rollback", "checklist"),
              "claims": (("switch", ("rollback",)),
                         ("smoke", ("checklist",)))},
    },
    # A ranks the distractor first and cites it; B cites the right note.
    # Both put the restricted archive note in the top 2: both disclose it.
    "owner": {
        "A": {"retrieved": ("archive", "owners"),
              "claims": (("aurora", ("archive",)),)},
        "B": {"retrieved": ("owners", "archive"),
              "claims": (("aurora", ("owners",)),)},
    },
    # A answers a question the corpus cannot answer; B abstains.
    "region": {
        "A": {"retrieved": ("archive",),
              "claims": (("region", ("archive",)),)},
        "B": {"retrieved": (), "claims": ()},
    },
}


# END OF THE LAB'S FIXTURE: a course lab's fixtures.py is the part above.

# The kinds of question each case is: the full module's summary gives each
# tag a slice of its own (demo.py adds them to the cases it reports on).
TAGS = {
    "launch":   ("lookup",),
    "rollback": ("multi-document",),
    "owner":    ("lookup", "permission"),
    "region":   ("lookup",),
}

# What a system must do to be accepted, written with the labels and before any
# run was seen, so that no result can bend it.
POLICY = {
    "critical":           ("launch", "owner"),  # must not get worse than the baseline
    "min_coverage":       1.0,                  # coverage each critical question must reach
    "unsupported_budget": {"answerable": 0, "unanswerable": 0},  # unsupported claims allowed
    "must_abstain":       ("region",),          # must get an empty answer
    "unresolved":         "both",               # a disputed label must not decide it
}
