"""gmx.runtime under threads: compiling and calling from 8 threads at once.

Each run is a subprocess: before the dialect's load took turns, concurrent
compiles crashed the interpreter (SIGSEGV in `Gmx.load`), which must fail
one test, not end the session.
"""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys, threading
    import numpy as np
    import gmx.runtime

    GATHER = '''func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }
    // TAG'''
    TOSA = '''func.func @main(%x: tensor<1x4x3xf32>, %i: tensor<1x2xi32>) -> tensor<1x2x3xf32> {
      %0 = tosa.gather %x, %i : (tensor<1x4x3xf32>, tensor<1x2xi32>) -> tensor<1x2x3xf32>
      return %0 : tensor<1x2x3xf32>
    }
    // TAG'''
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    problems = []

    def check_gather(program, k):
        for n in range(10):
            i = np.array([[n % 4], [(n + k) % 4]])
            if not np.array_equal(program(x, i), x[i[:, 0]]):
                problems.append(("wrong gather", k, n))
        try:
            program(x, np.array([[4], [0]]))
            problems.append(("no IndexError", k))
        except IndexError:
            pass

    def check_tosa(program, k):
        i = np.array([[k % 4, 3]], np.int32)
        if not np.array_equal(program(x[None], i), x[i[0]][None]):
            problems.append(("wrong tosa.gather", k))

    def work(rounds, k):
        try:
            for text, check in ((GATHER, check_gather), (TOSA, check_tosa)):
                # distinct programs, and one program every thread compiles
                for tag in (f"{rounds}-{k}", f"{rounds}"):
                    check(gmx.runtime.compile(text.replace("TAG", tag)), k)
        except Exception as error:
            problems.append(repr(error))

    for r in range(int(sys.argv[1])):
        threads = [threading.Thread(target=work, args=(r, k)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print("problems:", problems)
    sys.exit(1 if problems else 0)
    """
)


def test_compile_and_call_from_eight_threads():
    """Several rounds of 8 threads compiling distinct and identical programs
    (gmx and a plain tosa.gather) and calling them: no signal, every result
    exact, every bad index an IndexError."""
    result = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", SCRIPT, "3"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr[-3000:])
    assert "problems: []" in result.stdout


def test_identical_compiles_share_one_program():
    """Threads compiling the same text at once all get the program cached first."""
    import threading

    import gmx.runtime

    text = "func.func @main(%x: tensor<3xi8>) -> tensor<3xi8> {\n  return %x : tensor<3xi8>\n}\n// shared\n"
    programs = []
    threads = [threading.Thread(target=lambda: programs.append(gmx.runtime.compile(text))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(programs) == 4
    assert all(p is gmx.runtime.compile(text) for p in programs)
