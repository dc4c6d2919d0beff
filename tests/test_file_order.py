"""file_order: the order test files are handed to the xdist workers."""

from file_order import file_order


def test_slow_files_come_first_whatever_their_test_count():
    files = [("a.py", 300, False), ("b.py", 2, True), ("c.py", 50, False), ("d.py", 10, True)]
    assert file_order(files) == ["d.py", "b.py", "a.py", "c.py"]


def test_ties_keep_the_collection_order():
    files = [("a.py", 5, False), ("b.py", 5, False), ("c.py", 5, True), ("d.py", 5, True)]
    assert file_order(files) == ["c.py", "d.py", "a.py", "b.py"]


def test_this_run_starts_with_the_slow_files(request):
    """The collection of this very run (the whole suite, or the files
    selected): no file marked slow_file comes after an unmarked one
    (conftest.py's pytest_collection_modifyitems)."""
    slow = {}
    for item in request.session.items:
        slow[item.path] = slow.get(item.path, False) or item.get_closest_marker("slow_file") is not None
    flags = list(slow.values())
    assert flags == sorted(flags, reverse=True), [path.name for path in slow]
