"""gmx.tools.output: outputs written as mlir-opt writes them (through
symbolic links, fifos, devices and hard links), regular files replaced
atomically, no temporary file left behind, write errors on stdout one line.

No test points at a real device: device nodes are made in tmp_path."""

import contextlib
import errno
import io
import os
import stat
import subprocess
import sys
import tempfile
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmx.tools import output
from gmx.tools.output import OutputError, Strategy, write_output, write_strategy

GATHER = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
NULL, FULL = os.makedev(1, 3), os.makedev(1, 7)  # what /dev/null and /dev/full are


def device_node(path, device):
    """A character device node at `path` (skips the test where it cannot be made)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, device)
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a device node here: {error}")
    return path


def temporaries(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".gmx-")]


@pytest.mark.parametrize(
    "mode, links, strategy",
    [
        (stat.S_IFREG | 0o644, 1, Strategy.REPLACE),
        (stat.S_IFREG | 0o644, 2, Strategy.IN_PLACE),
        (stat.S_IFCHR | 0o666, 1, Strategy.IN_PLACE),
        (stat.S_IFIFO | 0o644, 1, Strategy.IN_PLACE),
        (stat.S_IFSOCK | 0o644, 1, Strategy.IN_PLACE),
        (stat.S_IFDIR | 0o755, 2, Strategy.REFUSE),
    ],
)
def test_write_strategy(mode, links, strategy):
    assert write_strategy(mode, links) is strategy


def test_a_file_of_another_owner_is_written_in_place():
    assert write_strategy(stat.S_IFREG | 0o644, 1, owned=False) is Strategy.IN_PLACE


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root (chown)")
def test_root_writing_over_a_setuid_file_of_another_user(tmp_path):
    """As root over a file of uid 65534 with mode 6777: the file stays that
    user's, written in place (as mlir-opt writes it); no root-owned
    set-user-ID file appears. Root's own setuid file loses those bits."""
    tmp_path.chmod(0o755)
    theirs = tmp_path / "theirs.mlir"
    theirs.write_text("old")
    os.chown(theirs, 65534, 65534)
    theirs.chmod(0o6777)
    write_output(str(theirs), "new")
    info = theirs.stat()
    assert theirs.read_text() == "new" and (info.st_uid, info.st_gid) == (65534, 65534)
    assert not (info.st_uid == 0 and info.st_mode & (stat.S_ISUID | stat.S_ISGID))
    mine = tmp_path / "mine.mlir"
    mine.write_text("old")
    mine.chmod(0o6777)
    write_output(str(mine), "new")
    info = mine.stat()
    assert mine.read_text() == "new" and stat.S_IMODE(info.st_mode) == 0o777
    assert temporaries(tmp_path) == []


def test_a_regular_file_is_replaced_keeping_its_mode(tmp_path):
    target = tmp_path / "out.mlir"
    target.write_text("old")
    target.chmod(0o640)
    inode = target.stat().st_ino
    write_output(str(target), "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != inode  # renamed over: atomic
    assert temporaries(tmp_path) == []


def test_a_symlink_is_written_through(tmp_path):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "out.mlir"
    real.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(real)
    write_output(str(link), "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert temporaries(tmp_path) == temporaries(tmp_path / "real") == []


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.mlir"
    link.symlink_to(tmp_path / "new.mlir")
    write_output(str(link), "new")
    assert link.is_symlink() and (tmp_path / "new.mlir").read_text() == "new"


def test_a_hard_link_is_rewritten_in_place(tmp_path):
    first, second = tmp_path / "a.mlir", tmp_path / "b.mlir"
    first.write_text("old")
    os.link(first, second)
    write_output(str(first), "new")
    assert second.read_text() == "new"
    assert first.stat().st_ino == second.stat().st_ino


def test_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_output(str(fifo), "through the fifo")
    reader.join(timeout=10)
    assert received == ["through the fifo"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_written_through_is_what_is_not_replaced(tmp_path):
    """gmx-run takes a device's or a fifo's format from the result count,
    not from its name (output.written_through)."""
    fifo, regular, folder = tmp_path / "fifo", tmp_path / "file", tmp_path / "folder"
    os.mkfifo(fifo)
    regular.write_text("x")
    folder.mkdir()
    (tmp_path / "link").symlink_to(fifo)
    assert output.written_through(str(fifo)) and output.written_through(str(tmp_path / "link"))
    for path in (regular, folder, tmp_path / "missing", "-", regular / "below", "x" * 5000):
        assert not output.written_through(str(path)), path


def test_a_character_device_is_written_through_not_replaced(tmp_path, gmx_opt, mlir_file):
    null = device_node(tmp_path / "null", NULL)
    assert gmx_opt(mlir_file(GATHER), "-o", null) == 0
    assert stat.S_ISCHR(null.stat().st_mode) and null.stat().st_rdev == NULL
    assert temporaries(tmp_path) == []


def test_a_directory_is_an_error_and_leaves_no_temporary(tmp_path, gmx_opt, mlir_file, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert gmx_opt(mlir_file(GATHER), "-o", folder) == 1
    assert f"gmx-opt: error: could not write output file '{folder}': Is a directory" in capsys.readouterr().err
    assert folder.is_dir() and temporaries(tmp_path) == []


def test_a_full_disk_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.mlir"
    target.write_text("precious")

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(output.os, "write", full)
    with pytest.raises(OutputError, match="could not write output file .*: No space left on device"):
        write_output(str(target), "new")
    monkeypatch.undo()
    assert target.read_text() == "precious"
    assert temporaries(tmp_path) == []


# -- stdout: one line and exit 1, in a subprocess (the tool's real stdout) ----

OPT = [sys.executable, "-c", "from gmx.tools.gmx_opt import _cli_main; _cli_main()"]


def check_one_line(result, reason):
    assert result.returncode == 1
    assert result.stderr == f"gmx-opt: error: could not write to stdout: {reason}\n"


def test_stdout_on_a_full_device(tmp_path, mlir_file):
    full = device_node(tmp_path / "full", FULL)
    with open(full, "w") as stdout:
        result = subprocess.run(OPT + [str(mlir_file(GATHER))], stdout=stdout, stderr=subprocess.PIPE, text=True)
    check_one_line(result, "No space left on device")


def test_stdout_a_closed_pipe(mlir_file):
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(OPT + [str(mlir_file(GATHER))], stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    check_one_line(result, "Broken pipe")


def test_stdout_closed(mlir_file):
    result = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *OPT, str(mlir_file(GATHER))], stderr=subprocess.PIPE, text=True
    )
    check_one_line(result, "it is closed")


def test_run_results_on_a_closed_pipe(mlir_file):
    source = mlir_file(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %0 = arith.constant dense<1.0> : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
    )
    read_end, write_end = os.pipe()
    os.close(read_end)
    run = [sys.executable, "-c", "from gmx.tools.gmx_run import _cli_main; _cli_main()"]
    try:
        result = subprocess.run(run + [str(source)], stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert result.returncode == 1
    assert result.stderr == "gmx-run: error: could not write to stdout: Broken pipe\n"


def test_a_path_through_proc_is_written_through(tmp_path):
    """`-o /dev/stdout` names /proc/self/fd/1, a link to `pipe:[N]` that
    only the kernel can follow: written through as mlir-opt does, not
    resolved to a file that does not exist."""
    read_end, write_end = os.pipe()
    path = f"/proc/self/fd/{write_end}"
    if not os.path.exists(path):
        pytest.skip("no /proc/self/fd here")
    try:
        write_output(path, "into the pipe")
        assert os.read(read_end, 100) == b"into the pipe"
    finally:
        os.close(read_end)
        os.close(write_end)
    assert temporaries(tmp_path) == []


@pytest.mark.parametrize("existing", [True, False])
def test_a_trailing_slash_never_makes_or_replaces_a_file(tmp_path, existing):
    """`-o name/` names a folder: a file `name` is neither replaced (it was,
    realpath drops the slash) nor made; mlir-opt's open fails too."""
    target = tmp_path / "name"
    if existing:
        target.write_text("precious")
    with pytest.raises(OutputError, match="could not write output file .*name/': (Not a directory|Is a directory)"):
        write_output(f"{target}/", "new")
    assert (target.read_text() == "precious") if existing else not target.exists()
    assert temporaries(tmp_path) == []


WRITE_AS_NOBODY = """
import os, sys
from gmx.tools.output import OutputError, write_output
if os.geteuid() == 0:  # root may write anything: drop to nobody, gmx imported
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
try:
    write_output(sys.argv[1], "new")
except OutputError as error:
    print(error)
"""


def test_a_read_only_file_is_refused_not_replaced():
    """mlir-opt cannot open a file its user may not write, so gmx may not
    rename a new file over it either. Root may write anything: the write
    runs as nobody (in a subprocess), in a folder of nobody's."""
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "out.mlir")
        with open(target, "w") as handle:
            handle.write("precious")
        os.chmod(target, 0o444)
        if os.geteuid() == 0:
            os.chown(folder, 65534, 65534)
            os.chown(target, 65534, 65534)
        result = subprocess.run([sys.executable, "-c", WRITE_AS_NOBODY, target], capture_output=True, text=True, timeout=60)
        assert result.stdout == f"could not write output file '{target}': Permission denied\n", result.stderr
        with open(target) as handle:
            assert handle.read() == "precious"
        assert [name for name in os.listdir(folder) if name.startswith(".gmx-")] == []


def test_stdout_replaced_by_a_text_stream(gmx_opt, mlir_file):
    """Called in-process under contextlib.redirect_stdout(io.StringIO()):
    no descriptor and no byte buffer, the text is written to the stream."""
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        assert gmx_opt(mlir_file(GATHER)) == 0
    assert '"gmx.gather_multiaxis"' in captured.getvalue()


def test_a_writable_file_in_a_folder_that_is_not_is_written_in_place():
    """A file the user may write, in a folder where they may not make a file
    (so no temporary file and no rename): written in place, as mlir-opt
    writes it, not refused. The write runs as nobody, the folder is root's
    (the test needs root to set that up)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give nobody a file in a folder of root's")
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        target = os.path.join(folder, "out.mlir")
        with open(target, "w") as handle:
            handle.write("old")
        os.chown(target, 65534, 65534)
        result = subprocess.run([sys.executable, "-c", WRITE_AS_NOBODY, target], capture_output=True, text=True, timeout=60)
        assert result.stdout == "" and result.returncode == 0, result.stderr
        with open(target) as handle:
            assert handle.read() == "new"
        assert os.stat(target).st_uid == 65534


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(mode=st.integers(0, 0o7777))
def test_a_replaced_file_keeps_its_mode_less_setuid_and_setgid(tmp_path_factory, mode):
    """Any mode of the writer's own file: kept, but never set-user-ID or set-group-ID."""
    target = tmp_path_factory.mktemp("mode") / "out.mlir"
    target.write_text("old")
    target.chmod(mode)
    try:
        write_output(str(target), "new")
    except OutputError:
        assert not os.access(target, os.W_OK)  # a file the writer may not write is refused
        return
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == mode & ~(stat.S_ISUID | stat.S_ISGID)
