"""Comparing lwt's results with PyWavelets': the same structure (lists, tuples, dicts with the
same keys), the same shapes and dtypes, and values within a bound relative to the scale of
the case (the larger of the reference's and the input's largest magnitude)."""
import numpy as np

# float64: PyWavelets' own test tolerance (its tests use 1e-10 and tighter; see
# docs/ACCURACY.md for lwt's per-wavelet bounds, all below this for the wavelets tested).
F64_BOUND = 1e-10
# float32: both compute from the same float32 input; PyWavelets rounds each tap product to
# float32 where liblwt's CPU path accumulates in double, so they differ by float32 rounding
# of the longest filter sums (measured up to ~2e-6 on these cases).
F32_BOUND = 1e-5


def leaves(tree):
    """The arrays of a coefficient structure, in order, with a path naming each."""
    if isinstance(tree, dict):
        for k in sorted(tree):
            for path, a in leaves(tree[k]):
                yield "[%r]%s" % (k, path), a
    elif isinstance(tree, (list, tuple)):
        for i, t in enumerate(tree):
            for path, a in leaves(t):
                yield "[%d]%s" % (i, path), a
    else:
        yield "", tree


def structure(tree):
    if isinstance(tree, dict):
        return ("dict", tuple(sorted((k, structure(v)) for k, v in tree.items())))
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(structure(t) for t in tree))
    return ("array", np.shape(tree), np.asarray(tree).dtype.str)


def bound_for(dtype):
    return F32_BOUND if np.dtype(dtype) in (np.float32, np.complex64) else F64_BOUND


def compare(chk, got, ref, inputs, case, bound=None):
    """Check got == ref (structure, shapes, dtypes, values); inputs: arrays setting the scale;
    bound: a tighter bound than the dtype's where a case has one."""
    if not chk.check(structure(got) == structure(ref), "%s: structure/shape/dtype %s != pywt %s"
                     % (case, structure(got), structure(ref))):
        return
    scale = max([np.abs(np.asarray(a, dtype=np.complex128)).max(initial=0.0) for _, a in leaves(ref)] +
                [np.abs(np.asarray(a, dtype=np.complex128)).max(initial=0.0) for _, a in leaves(inputs)] +
                [np.finfo(np.float64).tiny])
    err = max([np.abs(np.asarray(g, dtype=np.complex128) - np.asarray(r, dtype=np.complex128)).max(initial=0.0)
               for (_, g), (_, r) in zip(leaves(got), leaves(ref))])
    dtypes = [np.asarray(r).dtype for _, r in leaves(ref)]
    bound = bound or max(bound_for(d) for d in dtypes)
    chk.error_within(err / scale, bound, case, case.split(" ")[0])


def same_outcome(chk, call, lwt_mod, pywt_mod, case):
    """call(module) on both: the same exception type (or both succeed). Returns the results."""
    outcome = []
    for mod in (pywt_mod, lwt_mod):
        try:
            outcome.append(("ok", call(mod)))
        except Exception as e:  # the point: which exception, compared with pywt's
            outcome.append((type(e), e))
    (kind_ref, ref), (kind_got, got) = outcome
    if kind_ref == "ok" or kind_got == "ok":
        chk.check(kind_ref == kind_got, "%s: pywt %s, lwt %s" % (case, _say(kind_ref, ref), _say(kind_got, got)))
    else:
        chk.check(issubclass(kind_got, kind_ref), "%s: pywt raised %s, lwt %s"
                  % (case, _say(kind_ref, ref), _say(kind_got, got)))
    return outcome


def _say(kind, value):
    return "returned" if kind == "ok" else "%s(%s)" % (kind.__name__, str(value)[:120])
