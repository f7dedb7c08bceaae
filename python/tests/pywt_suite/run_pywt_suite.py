"""PyWavelets' own test files, with pywt's transform calls served by lwt (conftest.py).

Copies the listed test files from the installed pywt package into a temporary folder with
conftest.py and runs pytest there; exit status: pytest's (77, skip, without pytest or pywt).
Usage: run_pywt_suite.py [pytest arguments...]"""
import os
import shutil
import subprocess
import sys
import tempfile

FILES = ["test_dwt_idwt.py", "test_multilevel.py", "test_multidim.py", "test_modes.py",
         "test_perfect_reconstruction.py", "test_concurrent.py", "test_matlab_compatibility.py"]

try:
    import pytest  # noqa: F401
    import pywt
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.join(os.path.dirname(pywt.__file__), "tests")
with tempfile.TemporaryDirectory() as tmp:
    for f in FILES:
        shutil.copy(os.path.join(tests, f), tmp)
    shutil.copy(os.path.join(here, "conftest.py"), tmp)
    # pywt's tests read pywt/tests/data; their paths are relative to their own file
    if os.path.isdir(os.path.join(tests, "data")):
        shutil.copytree(os.path.join(tests, "data"), os.path.join(tmp, "data"))
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE"]
                             + sys.argv[1:] + [tmp], cwd=tmp))
