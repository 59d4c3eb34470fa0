"""Writes the .npy fixtures of npy_test.cpp with NumPy itself: every layout the reader must handle.
Values are np.arange(n) in the file's dtype (the test recomputes them). Run: /usr/bin/python3 gen_npy_fixtures.py"""
import os

import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "npy")
os.makedirs(here, exist_ok=True)
np.save(os.path.join(here, "f4_2x3.npy"), np.arange(6, dtype="<f4").reshape(2, 3))
np.save(os.path.join(here, "f8_big_endian.npy"), np.arange(5, dtype=">f8"))
np.save(os.path.join(here, "f4_fortran_2x3x4.npy"), np.asfortranarray(np.arange(24, dtype="<f4").reshape(2, 3, 4)))
np.save(os.path.join(here, "i2_4.npy"), np.arange(-2, 2, dtype="<i2"))
np.save(os.path.join(here, "i8_3.npy"), np.arange(3, dtype="<i8") * (1 << 40))
np.save(os.path.join(here, "b1_4.npy"), np.array([True, False, False, True]))
np.save(os.path.join(here, "u1_0d.npy"), np.array(7, dtype="u1"))
np.save(os.path.join(here, "f2_empty_0x3.npy"), np.zeros((0, 3), dtype="<f2"))
np.save(os.path.join(here, "object.npy"), np.array([{"a": 1}], dtype=object), allow_pickle=True)
# Version 2.0 header (4-byte length), as NumPy writes for very long headers.
with open(os.path.join(here, "f4_v2.npy"), "wb") as f:
    np.lib.format.write_array(f, np.arange(4, dtype="<f4"), version=(2, 0))
print("wrote", here)
