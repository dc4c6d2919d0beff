"""Writing results as mlir-opt does, without truncating a user's file on
failure wherever it can be replaced atomically (gmx-opt, gmx-run, gmx-study
and gmx-bench write through here).

- `-` is stdout. A write error there (a full disk, a closed pipe, a closed
  stdout) is an OutputError like any other, and nothing of it stays
  buffered for Python to fail on again at exit.
- A regular file, or a new one, is replaced atomically: a temporary file
  `.gmx-*` in the same folder, renamed over it once complete, with the
  target's mode (a new file: 0666 less the umask). The temporary file
  never stays behind. A file the user may not write is refused (Permission
  denied), as mlir-opt's open refuses it, though a rename would succeed;
  one they may write in a folder that takes no temporary file or no rename
  over it (sticky /tmp) is rewritten in place, as mlir-opt does (not
  atomic).
- A symbolic link is followed: the file it points to is written, the link
  stays a link.
- A regular file with other hard links is rewritten in place, so that every
  link sees the new content, as mlir-opt does (not atomic: a write that
  fails half-way leaves it truncated). So is one owned by another user
  (root writing over a user's file): a replacement would be the writer's,
  with the other's mode; in place it keeps its owner, as with mlir-opt.
- The set-user-ID and set-group-ID bits are never carried to a file the
  writer owns: a replaced file gets the target's mode without them.
- Anything else (a character device such as /dev/null, a fifo, a socket)
  is opened and written through, never replaced, by the path as given
  (`/dev/stdout` is /proc/self/fd/1, which only the kernel can follow).
- A directory is an error, and so is `name/` where no folder `name` is.
"""

from __future__ import annotations

import enum
import errno
import os
import stat
import sys
import tempfile

from gmx.dialect.errors import GmxError


class OutputError(GmxError):
    """The output could not be written."""


class Strategy(enum.Enum):
    """How a target is written."""

    REPLACE = "replace"  # a temporary file renamed over the target
    IN_PLACE = "in place"  # opened and written through
    REFUSE = "refuse"  # a directory


def write_strategy(mode: int, links: int, owned: bool = True) -> Strategy:
    """How to write an existing target of this st_mode and link count
    (symbolic links followed), `owned` by the writer (its effective user);
    a new file is replaced (created)."""
    if stat.S_ISDIR(mode):
        return Strategy.REFUSE
    if stat.S_ISREG(mode) and links <= 1 and owned:
        return Strategy.REPLACE
    return Strategy.IN_PLACE


def written_through(path: str) -> bool:
    """Whether `path` (symbolic links followed) is an existing character
    or block device, fifo or socket: what write_output writes through
    rather than replaces, whatever its name."""
    if path == "-":
        return False
    try:
        mode = os.stat(path).st_mode
    except OSError:  # none there, or none to reach: write_output says which when it writes
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def write_output(path: str, data: str | bytes) -> None:
    """Write `data` (str as UTF-8) to stdout for '-', else to `path` as the
    module's docstring says; raises OutputError naming what failed."""
    data = data.encode("utf-8") if isinstance(data, str) else data
    if path == "-":
        _write_stdout(data)
        return
    try:
        # os.stat follows symbolic links as open() does, /proc/self/fd/N
        # (what /dev/stdout names) included, which realpath cannot resolve;
        # and `name/` is ENOTDIR for a file `name`, not that file.
        existing = _stat_or_none(path)
        strategy = (
            write_strategy(existing.st_mode, existing.st_nlink, existing.st_uid == os.geteuid())
            if existing else Strategy.REPLACE
        )
        if strategy is Strategy.REFUSE or (existing is None and path.endswith(os.sep)):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if strategy is Strategy.REPLACE:
            if existing is not None and not _writable(path):  # (open() in place says so itself)
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            try:
                _replace(os.path.realpath(path), data, _file_mode(existing))  # beside the link's target
            except PermissionError:
                if existing is None:
                    raise
                # The folder takes no new file, or no rename over this one
                # (sticky /tmp): written in place, as mlir-opt writes it.
                _write_in_place(path, data)
        else:
            _write_in_place(path, data)
    except OSError as error:
        raise OutputError(f"could not write output file '{path}': {error.strerror or error}") from None


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _writable(path: str) -> bool:
    """Whether open() could write `path`, as this process (its effective
    ids); a rename over the file needs only the folder's permission."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _file_mode(existing: os.stat_result | None) -> int:
    """The mode the written file gets: the target's if it exists, without
    set-user-ID and set-group-ID (as a write by its owner clears them), else
    what a plain open() would give (0666 less the umask), not the temporary
    file's private 0600."""
    if existing is not None:
        return stat.S_IMODE(existing.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is written (writes to pipes may be short)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _replace(target: str, data: bytes, mode: int) -> None:
    """Atomically: a temporary file beside `target`, renamed over it."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".gmx-")
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass  # the error being raised says more than this one
        raise


def _write_in_place(target: str, data: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_stdout(data: bytes) -> None:
    """Straight to file descriptor 1 when stdout has one (what Python has
    buffered first), so a failed write leaves nothing buffered for the
    flush at exit; through sys.stdout when it has none (a capture: its byte
    buffer, or as text where it has none, e.g. an io.StringIO)."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("could not write to stdout: it is closed")
    try:
        stream.flush()
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            buffer = getattr(stream, "buffer", None)
            if buffer is not None:
                buffer.write(data)
            else:
                stream.write(data.decode("utf-8"))
            stream.flush()
            return
        _write_all(fd, data)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise OutputError(f"could not write to stdout: {reason}") from None
