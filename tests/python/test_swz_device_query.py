"""Tests of kernels/support/swz_device_query.py (the Triton backend's device query), run as the
backend runs it, against a stand-in `torch` module written per test (no torch needed): the
JSON line's keys, shared_mem_per_block from the opt-in attribute, the plain one, or left out.
Standard library only: python3 -m unittest discover -s tests/python -v"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERY = os.path.join(ROOT, "kernels", "support", "swz_device_query.py")

# A torch whose one device has the properties in $FAKE_TORCH_SPEC (JSON): "props" become the
# attributes of get_device_properties(0); "hip" sets torch.version.hip; "gpus" the count.
FAKE_TORCH = '''
import json, os, types
_spec = json.loads(os.environ["FAKE_TORCH_SPEC"])
version = types.SimpleNamespace(cuda=None if _spec.get("hip") else "13.0", hip=_spec.get("hip"))
class _Cuda:
    def is_available(self):
        return _spec.get("gpus", 1) > 0
    def device_count(self):
        return _spec.get("gpus", 1)
    def current_device(self):
        return 0
    def get_device_properties(self, dev):
        return types.SimpleNamespace(**_spec["props"])
cuda = _Cuda()
'''

H100 = {"name": "NVIDIA H100 80GB HBM3", "major": 9, "minor": 0, "multi_processor_count": 132,
        "total_memory": 85045477376, "L2_cache_size": 52428800, "warp_size": 32,
        "max_threads_per_block": 1024}


class DeviceQueryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.tmp.name, "torch"))
        with open(os.path.join(self.tmp.name, "torch", "__init__.py"), "w") as f:
            f.write(FAKE_TORCH)

    def tearDown(self):
        self.tmp.cleanup()

    def query(self, spec):
        env = dict(os.environ)
        env["PYTHONPATH"] = self.tmp.name
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["FAKE_TORCH_SPEC"] = json.dumps(spec)
        r = subprocess.run([sys.executable, QUERY], env=env, capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout, r.stderr

    def line(self, props, **spec):
        rc, out, err = self.query(dict(spec, props=props))
        self.assertEqual(rc, 0, err)
        lines = out.strip().splitlines()
        self.assertEqual(len(lines), 1, out)
        return json.loads(lines[0])

    def test_the_opt_in_maximum_is_the_shared_memory_per_block(self):
        j = self.line(dict(H100, shared_memory_per_block=49152, shared_memory_per_block_optin=232448))
        self.assertEqual(j["shared_mem_per_block"], 232448)
        self.assertEqual(j["arch"], "sm_90")
        self.assertEqual(j["vendor"], "nvidia")
        self.assertEqual(j["max_threads_per_block"], 1024)
        self.assertEqual(j["warp_size"], 32)

    def test_without_the_opt_in_attribute_the_plain_one_is_reported(self):
        j = self.line(dict(H100, shared_memory_per_block=49152))
        self.assertEqual(j["shared_mem_per_block"], 49152)
        j = self.line(dict(H100, shared_memory_per_block_optin=0, shared_memory_per_block=49152))
        self.assertEqual(j["shared_mem_per_block"], 49152, "a zero opt-in value says nothing")

    def test_a_torch_with_neither_attribute_leaves_the_key_out(self):
        j = self.line(dict(H100))
        self.assertNotIn("shared_mem_per_block", j)
        for key in ("name", "arch", "vendor", "compute_units", "l2_bytes", "total_mem_bytes", "clock_khz",
                    "warp_size", "max_threads_per_block", "num_xcc", "driver_version", "runtime_version",
                    "pci_bus_id"):
            self.assertIn(key, j)
        j = self.line(dict(H100, shared_memory_per_block="49152", shared_memory_per_block_optin=None))
        self.assertNotIn("shared_mem_per_block", j, "a value that is not a positive integer is not reported")

    def test_amd_reports_its_lds_per_workgroup(self):
        props = {"name": "AMD Instinct MI300X", "gcnArchName": "gfx942:sramecc+:xnack-", "major": 9, "minor": 4,
                 "multi_processor_count": 304, "total_memory": 205822885888, "L2_cache_size": 4194304,
                 "warp_size": 64, "max_threads_per_block": 1024, "shared_memory_per_block": 65536}
        j = self.line(props, hip="6.2")
        self.assertEqual(j["vendor"], "amd")
        self.assertEqual(j["arch"], "gfx942:sramecc+:xnack-")
        self.assertEqual(j["shared_mem_per_block"], 65536)
        self.assertEqual(j["warp_size"], 64)

    def test_no_gpu_is_exit_3_with_one_line(self):
        rc, out, err = self.query({"gpus": 0, "props": {}})
        self.assertEqual(rc, 3)
        self.assertEqual(out, "")
        self.assertIn("no GPU device", err)


if __name__ == "__main__":
    unittest.main()
