"""Runs the Python suites (unittest discovery) and prints one line per
skipped test with its reason, for make check's summary."""

import sys
import unittest


def main():
    suite = unittest.defaultTestLoader.discover("tests/python", top_level_dir=".")
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    for test, reason in result.skipped:
        print("SKIP %s: %s" % (test.id(), reason))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":  # Dask's worker processes re-import this module
    sys.exit(main())
