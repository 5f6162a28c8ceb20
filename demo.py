"""Print the per-question scores of systems A and B on the fixture.

    python demo.py
"""
import sys

from evaluate import evaluate
from fixtures import CASES, CORPUS, RUNS

K = 2


def cell(value):
    """Format one metric: two decimals, None as n/a, booleans as yes/no."""
    if value is None:
        return "n/a"
    if value is True or value is False:  # before numbers: a bool is an int
        return "yes" if value else "no"
    return "%.2f" % value


def table_lines(results, k):
    """Return the per-question table: a header, then one row per case and system."""
    header = "case system | P@{0} R@{0} RR@{0} support coverage abstention".format(k)
    rows = ["%s %s | %s" % (name, system, " ".join(cell(v) for v in metrics.values()))
            for (name, system), metrics in results.items()]
    return [header] + rows


def main():
    """Score every recorded run and print the table."""
    results = {(name, system): evaluate(CORPUS, CASES[name], run, k=K)
               for name, runs in RUNS.items() for system, run in runs.items()}
    print("\n".join(table_lines(results, K)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
