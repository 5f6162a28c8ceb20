"""How the scripts of .ci report: a line per check, then "N passed, N failed"."""


def reported(checks):
    """Print "label: ok", or "label: FAIL" and the problem indented, for each
    (label, problem or None) of checks, then the tally; return the exit status."""
    passed = failed = 0
    for label, problem in checks:
        print("%s: %s" % (label, "ok" if problem is None else "FAIL"))
        if problem is not None:
            print("    " + str(problem).replace("\n", "\n    "))
        passed, failed = passed + (problem is None), failed + (problem is not None)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
