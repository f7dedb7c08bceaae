#!/usr/bin/env python3
"""lwt from Python on PyTorch CUDA tensors against the GPU wavelet packages people use instead
(pytorch_wavelets, ptwt) on the same tensors, a device-to-device copy of the same tensor, and
PyWavelets on the CPU (issue 24, item 3). Multi-level 2-D forward and inverse, CUDA events,
median of --reps; every time also as a ratio to the copy. The peers are optional: a missing one
is reported and left out. Nothing here asserts a speed (test_pkg_gpu checks the values).

    PYTHONPATH=<build>/python python3 bench/gpu_vs_peers.py [--sizes 4096,16384] [--reps 20]

Mode: symmetric (the one mode all three GPU packages have; ptwt has no periodization), plus
periodization for lwt and pytorch_wavelets. Also prints each package's largest difference from
PyWavelets in float64 on a 512 x 512 tensor, so a fast answer is also seen to be the right one.
"""
import argparse
import time

import numpy as np
import torch

import lwt

try:
    import pywt
except ImportError:
    pywt = None
try:
    import pytorch_wavelets as ptw
except ImportError:
    ptw = None
try:
    import ptwt
except ImportError:
    ptwt = None


def gpu_ms(fn, reps):
    for _ in range(3):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def cpu_ms(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def packages(wavelet, mode, level, dtype=torch.float32):
    """name -> (forward(x), inverse(coeffs)) on a 2-D CUDA tensor of dtype, for the packages present."""
    out = {"lwt": (lambda x: lwt.wavedec2(x, wavelet, mode, level), lambda c: lwt.waverec2(c, wavelet, mode))}
    if ptw is not None:
        fwd = ptw.DWTForward(J=level, wave=wavelet, mode=mode).cuda().to(dtype)
        inv = ptw.DWTInverse(wave=wavelet, mode=mode).cuda().to(dtype)

        def f(x, fwd=fwd):
            return fwd(x[None, None])

        out["pytorch_wavelets"] = (f, lambda c, inv=inv: inv(c))
    if ptwt is not None and mode != "periodization":
        w = pywt.Wavelet(wavelet)
        out["ptwt"] = (lambda x: ptwt.wavedec2(x, w, level=level, mode=mode),
                       lambda c: ptwt.waverec2(c, w))
    return out


def fidelity(wavelet, mode, level):
    """largest |difference| from PyWavelets' float64 coefficients, per package"""
    if pywt is None:
        return {}
    x = np.random.default_rng(24).standard_normal((512, 512))
    ref = pywt.wavedec2(x, wavelet, mode=mode, level=level)
    out = {}
    xt = torch.from_numpy(x).cuda()
    for name, (fwd, _) in packages(wavelet, mode, level, torch.float64).items():
        try:
            got = fwd(xt)
            if name == "pytorch_wavelets":  # (Yl, [Yh per level, finest first, (N, C, 3, h, w)])
                yl, yh = got
                got = [yl[0, 0]] + [tuple(h[0, 0, k] for k in range(3)) for h in reversed(yh)]
            if name == "ptwt":
                got = [got[0][0] if got[0].ndim == 3 else got[0]] + [
                    tuple(b[0] if b.ndim == 3 else b for b in d) for d in got[1:]]
            err = max(float(np.max(np.abs(np.asarray(g.cpu()) - r))) if g.shape == r.shape else float("inf")
                      for gd, rd in zip(got, ref) for g, r in zip(gd if isinstance(gd, tuple) else (gd,),
                                                                  rd if isinstance(rd, tuple) else (rd,)))
            out[name] = err
        except Exception as e:  # a peer that cannot do this mode or shape
            out[name] = f"fails ({type(e).__name__})"
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,16384")
    ap.add_argument("--wavelets", default="bior4.4,haar")
    ap.add_argument("--level", type=int, default=4)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    print(f"{torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
          f"pytorch_wavelets {'present' if ptw else 'absent'}; ptwt {getattr(ptwt, '__version__', 'present') if ptwt else 'absent'}; "
          f"PyWavelets {pywt.__version__ if pywt else 'absent'}; float32, {a.level} levels, median of {a.reps}")
    print("| size | wavelet, mode | copy ms | package | forward ms (x copy) | inverse ms (x copy) |")
    print("|---|---|---|---|---|---|")
    for n in map(int, a.sizes.split(",")):
        x = torch.randn(n, n, device="cuda", dtype=torch.float32)
        copy = gpu_ms(lambda: x.clone(), a.reps)
        for wavelet in a.wavelets.split(","):
            for mode in ("symmetric", "periodization"):
                for name, (fwd, inv) in packages(wavelet, mode, a.level).items():
                    try:
                        c = fwd(x)
                        f = gpu_ms(lambda: fwd(x), a.reps)
                        i = gpu_ms(lambda: inv(c), a.reps)
                        print(f"| {n}^2 | {wavelet} {mode} | {copy:.3f} | {name} | {f:.2f} ({f / copy:.1f}x) | "
                              f"{i:.2f} ({i / copy:.1f}x) |", flush=True)
                    except Exception as e:
                        print(f"| {n}^2 | {wavelet} {mode} | {copy:.3f} | {name} | fails: {type(e).__name__} | |")
                    torch.cuda.empty_cache()
                if pywt is not None and n <= 4096:
                    xh = x.cpu().numpy()
                    cf = pywt.wavedec2(xh, wavelet, mode=mode, level=a.level)
                    f = cpu_ms(lambda: pywt.wavedec2(xh, wavelet, mode=mode, level=a.level), 2)
                    i = cpu_ms(lambda: pywt.waverec2(cf, wavelet, mode=mode), 2)
                    print(f"| {n}^2 | {wavelet} {mode} | {copy:.3f} | PyWavelets (CPU, one core) | {f:.0f} "
                          f"({f / copy:.0f}x) | {i:.0f} ({i / copy:.0f}x) |", flush=True)
    for wavelet in a.wavelets.split(","):
        for mode in ("symmetric", "periodization"):
            print(f"largest difference from PyWavelets (float64, 512^2, {wavelet} {mode}, {a.level} levels): "
                  + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                              for k, v in fidelity(wavelet, mode, a.level).items()))


if __name__ == "__main__":
    main()
