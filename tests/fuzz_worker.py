"""Runs gather cases through gmx.runtime in a process of its own, so that a
crash of the compiled code shows as a signal instead of killing the tests.

    python fuzz_worker.py CASES RESULTS

CASES is a pickle of a list of `{"text": module, "arrays": (x, indices)}`
(and `"options"`: gmx.runtime.run's keyword arguments, such as the backend);
RESULTS gets, per case, `("ok", output)` or `(exception type name,
message)`. Before each case the worker writes `case N` to stderr, so the
case that crashed it is the last one named there.
"""

from __future__ import annotations

import pickle
import sys


def run_cases(cases: list[dict]) -> list[tuple]:
    import gmx.runtime

    results = []
    for number, case in enumerate(cases):
        sys.stderr.write(f"case {number}\n")
        sys.stderr.flush()
        try:
            results.append(("ok", gmx.runtime.run(case["text"], *case["arrays"], **case.get("options", {}))))
        except Exception as error:  # the parent compares the kind and message
            results.append((type(error).__name__, str(error)))
    return results


def main(cases_path: str, results_path: str) -> None:
    with open(cases_path, "rb") as handle:
        cases = pickle.load(handle)
    results = run_cases(cases)
    with open(results_path, "wb") as handle:
        pickle.dump(results, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
