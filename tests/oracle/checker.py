"""The one check counter every oracle script uses.

    ck = Checker()
    ck.check(got == expected, "where", "what was wrong")
    ...
    return ck.finish(min_checks=300)   # prints "N passed, M failed", returns the exit code

A failed check prints one "FAIL where: what" line at once; `finish` adds one more check when a
minimum is given, so that an emptied or truncated manifest fails instead of passing vacuously.
"""


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, where, what):
        """Count one check; print the failure line when `ok` is false. Returns bool(ok)."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {where}: {what}", flush=True)
        return bool(ok)

    def finish(self, min_checks=None):
        """Print the summary line and return the exit status (1 when any check failed)."""
        if min_checks is not None:
            total = self.passed + self.failed
            self.check(total >= min_checks, "minimum", f"{total} checks ran, at least {min_checks} required")
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
