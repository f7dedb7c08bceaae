"""GPU arrays (lwt/_gpu.py): PyTorch CUDA tensors and CuPy arrays are transformed on their device
and come back as the same kind of array, on the device they came from, with the shapes and
(within the GPU's bounds) the values of the NumPy path, for wavedec, wavedec2 and wavedecn, dwt,
dwt2 and dwtn and their inverses (also with a missing band), over trailing and leading axes with
batch axes, float32 and float64, on the default stream and on another one. Skips (exit 77) without a CUDA build, a GPU, or either
array library. Seed: printed; LWT_SEED reuses one."""
import numpy as np

import harness

import lwt  # noqa: E402
from lwt import _core  # noqa: E402

if not hasattr(_core, "forward_device"):
    harness.skip("this lwt was built without CUDA")
if _core.device_count() < 1:
    harness.skip("no CUDA device")

LIBS = []
try:
    import torch
    if torch.cuda.is_available():
        LIBS.append("torch")
except ImportError:
    pass
try:
    import cupy
    LIBS.append("cupy")
except ImportError:
    pass
if not LIBS:
    harness.skip("neither PyTorch with CUDA nor CuPy is installed")

seed = harness.seed()
rng = np.random.default_rng(seed)
chk = harness.Checker("test_pkg_gpu")


def to_gpu(lib, x):
    return torch.from_numpy(x).cuda() if lib == "torch" else cupy.asarray(x)


def to_host(lib, x):
    return x.cpu().numpy() if lib == "torch" else cupy.asnumpy(x)


def is_lib_array(lib, x):
    return isinstance(x, torch.Tensor) and x.is_cuda if lib == "torch" else isinstance(x, cupy.ndarray)


def flat(tree):
    if isinstance(tree, dict):
        return [a for k in sorted(tree) for a in flat(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [a for t in tree for a in flat(t)]
    return [tree]


def bound(dtype):
    """Relative to the array's largest magnitude: the GPU's float32 kernels compute in float32
    (docs/ACCURACY.md), its float64 ones in float64, in another order than the CPU."""
    return 2e-5 if dtype == np.float32 else 1e-12


CASES = [
    # (name, forward, inverse, shape[, False: the inverse leaves a band out, so it does not
    # reconstruct the input])
    ("wavedec db4 axis -1", lambda x: lwt.wavedec(x, "db4", "symmetric", 3),
     lambda c: lwt.waverec(c, "db4", "symmetric"), (3, 1000)),
    ("wavedec2 bior4.4 periodization", lambda x: lwt.wavedec2(x, "bior4.4", "periodization", 3),
     lambda c: lwt.waverec2(c, "bior4.4", "periodization"), (256, 192)),
    ("wavedec2 sym5 reflect, batch of 4", lambda x: lwt.wavedec2(x, "sym5", "reflect", 2),
     lambda c: lwt.waverec2(c, "sym5", "reflect"), (4, 67, 90)),
    ("wavedecn haar zero, axes (0, 1) of 3", lambda x: lwt.wavedecn(x, "haar", "zero", 2, axes=(0, 1)),
     lambda c: lwt.waverecn(c, "haar", "zero", axes=(0, 1)), (40, 36, 5)),
    ("wavedecn coif2 smooth 3-D", lambda x: lwt.wavedecn(x, "coif2", "smooth", 2),
     lambda c: lwt.waverecn(c, "coif2", "smooth"), (33, 40, 29)),
    ("dwt db3 axis 0", lambda x: lwt.dwt(x, "db3", "symmetric", axis=0),
     lambda c: lwt.idwt(c[0], c[1], "db3", "symmetric", axis=0), (50, 3)),
    ("idwt without cA", lambda x: lwt.dwt(x, "sym6", "zero"),
     lambda c: lwt.idwt(None, c[1], "sym6", "zero"), (2, 77), False),
    ("dwt2 sym4 periodic, batch of 3", lambda x: lwt.dwt2(x, "sym4", "periodic"),
     lambda c: lwt.idwt2(c, "sym4", "periodic"), (3, 40, 44)),
    ("idwt2 without cH", lambda x: lwt.dwt2(x, "db2", "constant"),
     lambda c: lwt.idwt2((c[0], (None, c[1][1], c[1][2])), "db2", "constant"), (31, 26), False),
    ("waverec2 without a detail band, level by level", lambda x: lwt.wavedec2(x, "db3", "symmetric", 2),
     lambda c: lwt.waverec2([c[0], (c[1][0], None, c[1][2]), c[2]], "db3", "symmetric"), (45, 38), False),
    ("waverec without cD_2, level by level", lambda x: lwt.wavedec(x, "coif1", "periodic", 3),
     lambda c: lwt.waverec([c[0], c[1], None, c[3]], "coif1", "periodic"), (2, 201), False),
    ("dwtn bior2.2 antisymmetric axes (0, 2)", lambda x: lwt.dwtn(x, "bior2.2", "antisymmetric", axes=(0, 2)),
     lambda c: lwt.idwtn(c, "bior2.2", "antisymmetric", axes=(0, 2)), (20, 3, 18)),
]


def compare(lib, name, dtype, stream_ctx):
    for cname, fwd, inv, shape, *partial in CASES:
        x = rng.standard_normal(shape).astype(dtype)
        case = f"{lib} {cname} {np.dtype(dtype).name}{' side stream' if stream_ctx else ''}"
        ref = fwd(x)
        ref_rec = inv(ref)  # one sample longer than x along odd axes, as in PyWavelets
        xg = to_gpu(lib, x)
        keep = to_host(lib, xg).copy()
        if stream_ctx:
            with stream_ctx():
                got = fwd(xg)
                rec = inv(got)
            if lib == "torch":
                torch.cuda.synchronize()
            else:
                cupy.cuda.get_current_stream().synchronize()
                cupy.cuda.Device().synchronize()
        else:
            got = fwd(xg)
            rec = inv(got)
        fr, fg = flat(ref), flat(got)
        chk.check(len(fr) == len(fg), f"{case}: {len(fg)} bands, NumPy path {len(fr)}")
        scale = max(float(np.max(np.abs(a))) for a in fr)
        for a, g in zip(fr, fg):
            if not chk.check(is_lib_array(lib, g), f"{case}: a band came back as {type(g)}"):
                continue
            h = to_host(lib, g)
            if chk.check(h.shape == a.shape and h.dtype == a.dtype,
                         f"{case}: band {h.shape} {h.dtype}, NumPy path {a.shape} {a.dtype}"):
                chk.error_within(float(np.max(np.abs(h - a))) / scale, bound(dtype), case, key=f"{lib} forward")
        if chk.check(is_lib_array(lib, rec), f"{case}: the inverse came back as {type(rec)}"):
            r = to_host(lib, rec)
            if chk.check(r.shape == ref_rec.shape, f"{case}: inverse shape {r.shape}, NumPy path {ref_rec.shape}"):
                chk.error_within(float(np.max(np.abs(r - ref_rec))) / float(np.max(np.abs(x))), 10 * bound(dtype),
                                 case, key=f"{lib} inverse")
                crop = r[tuple(slice(n) for n in x.shape)]
                if not partial:
                        chk.error_within(float(np.max(np.abs(crop - x))) / float(np.max(np.abs(x))), 10 * bound(dtype),
                                     case, key=f"{lib} reconstruction")
        chk.check(np.array_equal(to_host(lib, xg), keep), f"{case}: the input changed")


def test_lib(lib):
    for dtype in (np.float32, np.float64):
        compare(lib, lib, dtype, None)
    if lib == "torch":
        side = torch.cuda.Stream()
        compare(lib, lib, np.float32, lambda: torch.cuda.stream(side))
    else:
        side = cupy.cuda.Stream(non_blocking=True)
        compare(lib, lib, np.float32, lambda: side)


def test_refusals(lib):
    x = to_gpu(lib, rng.standard_normal((32, 32)))
    h = np.zeros((16, 16))
    for what, call in (("per-axis wavelets", lambda: lwt.wavedec2(x, ["db2", "haar"], level=1)),
                       ("GPU and host arrays mixed", lambda: lwt.idwt(x, np.zeros((32, 32)), "haar")),
                       ("GPU and host bands mixed", lambda: lwt.waverec2([x[:16, :16], (h, h, h)], "haar")),
                       ("per-axis modes", lambda: lwt.dwtn(x, "haar", ["zero", "symmetric"]))):
        try:
            call()
            chk.fail(f"{lib}: {what} on a GPU array was not refused")
        except (TypeError, ValueError) as e:
            chk.check("GPU" in str(e), f"{lib}: {what}: message does not say why: {e}")


for lib in LIBS:
    chk.run(f"{lib} against the NumPy path", test_lib, lib)
    chk.run(f"{lib}: what GPU arrays do not take", test_refusals, lib)
chk.finish()
