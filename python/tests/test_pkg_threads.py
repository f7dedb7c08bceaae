"""Several Python threads calling lwt at once get the same bits as one thread: plans are
shared through the module's cache (made concurrently by the first callers) and run
concurrently with the GIL released. Seed: printed; LWT_SEED reuses one."""
import threading

import numpy as np

import harness

harness.need_pywt()
import lwt  # noqa: E402

THREADS = 4
ROUNDS = 3 if harness.quick() else 8
seed = harness.seed()
rng = np.random.default_rng(seed)
chk = harness.Checker("test_pkg_threads")

signals = {"1d": rng.standard_normal((3, 4099)), "2d": rng.standard_normal((257, 190)),
           "3d": rng.standard_normal((45, 50, 47)).astype(np.float32),
           "complex": rng.standard_normal((64, 70)) + 1j * rng.standard_normal((64, 70))}
JOBS = {
    "wavedec db8 symmetric": lambda: lwt.wavedec(signals["1d"], "db8", level=4),
    "waverec2 of wavedec2 sym5 periodization": lambda: lwt.waverec2(
        lwt.wavedec2(signals["2d"], "sym5", "periodization", 3), "sym5", "periodization"),
    "wavedecn bior3.5 smooth float32": lambda: lwt.wavedecn(signals["3d"], "bior3.5", "smooth", 2),
    "dwt2/idwt2 coif3 reflect complex": lambda: lwt.idwt2(lwt.dwt2(signals["complex"], "coif3", "reflect"),
                                                          "coif3", "reflect"),
}


def flat(tree):
    if isinstance(tree, dict):
        return [a for k in sorted(tree) for a in flat(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [a for t in tree for a in flat(t)]
    return [np.asarray(tree)]


def same_bits(a, b):
    fa, fb = flat(a), flat(b)
    return len(fa) == len(fb) and all(x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
                                      for x, y in zip(fa, fb))


def concurrent_calls():
    names = list(JOBS)
    results = {t: [] for t in range(THREADS)}
    start = threading.Barrier(THREADS)

    def worker(t):
        start.wait()  # every thread's first call races for the same new plans
        for r in range(ROUNDS):
            name = names[(t + r) % len(names)]
            results[t].append((name, JOBS[name]()))

    lwt.plan_cache_clear()
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    serial = {name: job() for name, job in JOBS.items()}  # one thread, after the others
    for t, got in results.items():
        chk.check(len(got) == ROUNDS, "thread %d finished %d of %d calls" % (t, len(got), ROUNDS))
        for name, out in got:
            chk.check(same_bits(out, serial[name]), "thread %d, %s: bits differ from the serial call" % (t, name))


chk.run("%d threads x %d calls == one thread" % (THREADS, ROUNDS), concurrent_calls)
chk.finish()
