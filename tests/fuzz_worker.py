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
import subprocess
import sys
from pathlib import Path


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


def run_in_worker(cases: list[dict], tmp_path: Path) -> tuple[list, subprocess.CompletedProcess]:
    """Run `cases` in a worker process (this script); (results, the process).
    No results when it died (its return code says how)."""
    cases_path, results_path = tmp_path / "cases.pkl", tmp_path / "results.pkl"
    with open(cases_path, "wb") as handle:
        pickle.dump([{"text": c["text"], "arrays": c["arrays"], "options": c.get("options", {})} for c in cases], handle)
    done = subprocess.run([sys.executable, str(Path(__file__)), str(cases_path), str(results_path)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return [], done
    with open(results_path, "rb") as handle:
        return pickle.load(handle), done


def main(cases_path: str, results_path: str) -> None:
    with open(cases_path, "rb") as handle:
        cases = pickle.load(handle)
    results = run_cases(cases)
    with open(results_path, "wb") as handle:
        pickle.dump(results, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
