"""Tiny test harness shared by tests/py/test_*.py (no pytest needed).

Exit codes: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE).
Environment: LWT_SEED (reuse a seed), LWT_QUICK=1 (sanitizer build: reduced
subset), LWT_VERBOSE=1 (print every failure, not just the first 40).
"""
import os
import random
import sys
import time
import traceback

SKIP = 77


def quick():
    return os.environ.get("LWT_QUICK", "") not in ("", "0")


def skip(msg):
    print("SKIP: " + msg)
    sys.stdout.flush()
    sys.exit(SKIP)


def seed():
    """The run's random seed: LWT_SEED if set, else a fresh one. Always printed."""
    s = os.environ.get("LWT_SEED")
    s = int(s) if s else random.SystemRandom().randrange(1, 2**31)
    print("seed: %d (rerun with LWT_SEED=%d)" % (s, s))
    sys.stdout.flush()
    return s


def need_pywt():
    try:
        import numpy  # noqa: F401
        import pywt  # noqa: F401
    except ImportError as e:
        skip("numpy/PyWavelets not importable (%s)" % e)


def need_bin():
    need_pywt()
    path = os.environ.get("LWT_BIN")
    if not path:
        skip("LWT_BIN is not set")
    if not os.path.exists(path):
        skip("LWT_BIN=%s does not exist (CLI not built)" % path)
    return path


def work_dirs(prefix):
    """A fresh temporary directory with in/ and out/ below it: (top, in, out)."""
    import tempfile
    top = tempfile.mkdtemp(prefix=prefix)
    dirs = (top, os.path.join(top, "in"), os.path.join(top, "out"))
    os.makedirs(dirs[1])
    os.makedirs(dirs[2])
    return dirs


def run_cli(binary, args, env=None, timeout=120):
    """Runs the CLI: (exit status, stdout, stderr) as text."""
    import subprocess
    p = subprocess.run([binary] + [str(a) for a in args], capture_output=True, env=env, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


class Checker:
    """Counts checks, keeps failures, prints a summary and exits."""

    def __init__(self, name, max_print=40):
        self.name = name
        self.t0 = time.time()
        self.checks = 0
        self.failures = []
        self.max_print = 10**9 if os.environ.get("LWT_VERBOSE") else max_print
        self.sections = {}
        self.worst = {}   # key -> (ratio err/bound, err, bound, case)

    def check(self, ok, msg):
        self.checks += 1
        if not ok:
            self.fail(msg)
        return ok

    def fail(self, msg):
        self.failures.append(msg)
        if len(self.failures) <= self.max_print:
            print("FAIL: " + msg)
            sys.stdout.flush()

    def error_within(self, err, bnd, case, key=None):
        """Check err <= bnd; remember the worst ratio per key for the summary."""
        self.checks += 1
        if key is not None:
            r = err / bnd if bnd > 0 else float("inf")
            if key not in self.worst or r > self.worst[key][0]:
                self.worst[key] = (r, err, bnd, case)
        if not (err <= bnd):
            self.fail("%s: rel err %.3g > bound %.3g" % (case, err, bnd))
            return False
        return True

    def run(self, title, fn, *a, **kw):
        """Run one section; an unexpected exception is a failure, not a crash."""
        t = time.time()
        n0, f0 = self.checks, len(self.failures)
        try:
            fn(*a, **kw)
        except Exception:
            self.fail("%s: exception\n%s" % (title, traceback.format_exc()))
        dt = time.time() - t
        self.sections[title] = dt
        print("[%s] %s: %d checks, %d failures, %.1fs"
              % (self.name, title, self.checks - n0, len(self.failures) - f0, dt))
        sys.stdout.flush()

    def print_worst(self, n=12):
        if not self.worst:
            return
        items = sorted(self.worst.items(), key=lambda kv: -kv[1][0])[:n]
        print("worst error/bound ratios:")
        for key, (r, e, b, case) in items:
            print("  %-28s %.3g (err %.3g, bound %.3g) %s" % (key, r, e, b, case))

    def finish(self):
        self.print_worst()
        dt = time.time() - self.t0
        nf = len(self.failures)
        if nf > self.max_print:
            print("... %d more failures not printed (LWT_VERBOSE=1 prints all)" % (nf - self.max_print))
        print("[%s] %s: %d checks, %d failures, %.1fs%s"
              % (self.name, "FAIL" if nf else "PASS", self.checks, nf, dt,
                 " (quick)" if quick() else ""))
        sys.stdout.flush()
        sys.exit(1 if nf else 0)
