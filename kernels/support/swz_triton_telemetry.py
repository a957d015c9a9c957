# Power telemetry for Triton programs: the Python twin of swz_telemetry.h, used by
# swz_triton.py's timing. SM clock, clock-event reasons and total energy from NVML
# (libnvidia-ml.so.1 through ctypes) for the device's PCI bus id, with the pre-535
# throttle-reasons fallback; else amdgpu's sysfs hwmon files (ported, never run on AMD);
# else "none". A number that cannot be read is -1 (the harness prints null).
# Standard library only.

import ctypes
import os
import re

__all__ = ["Sample", "Telemetry", "sysfs_bus_id"]


# ---- telemetry (swz_telemetry.h) ------------------------------------------------------------
class Sample:
    def __init__(self):
        self.sm_mhz = -1.0
        self.reasons = -1
        self.energy_mj = -1.0


def _parse_count(text):
    m = re.match(r"\s*([0-9]+)\s*\Z", text)
    return float(int(m.group(1))) if m else -1.0


def _read_count_file(path):
    try:
        with open(path) as f:
            return _parse_count(f.readline())
    except (OSError, ValueError):
        return -1.0


def sysfs_bus_id(pci_bus_id):
    """sysfs's "dddd:bb:dd.f" spelling of a PCI address (swz_telemetry.h's sysfs_bus_id)."""
    if not pci_bus_id:
        return ""
    out = []
    for c in pci_bus_id:
        if c.isspace():
            continue
        if c == "/":
            return ""
        out.append(c.lower())
    s = "".join(out)
    if not s:
        return ""
    colons = s.count(":")
    if colons == 1:
        return "0000:" + s
    first = s.find(":")
    if colons == 2 and first > 4 and all(ch == "0" for ch in s[:first - 4]):
        return s[first - 4:]
    return s


class Telemetry:
    """NVML (ctypes, libnvidia-ml.so.1), else amdgpu sysfs, else none; sample() fields -1 when
    not available. Mirrors swz_telemetry.h's Telemetry."""

    def __init__(self):
        self._source = "none"
        self._lib = None
        self._dev = None
        self._clock = self._reasons = self._energy = None
        self._freq_path = self._energy_path = ""

    def open_nvml(self, pci_bus_id, lib="libnvidia-ml.so.1"):
        self.close()
        if not pci_bus_id or not lib:
            return False
        try:
            h = ctypes.CDLL(lib, mode=getattr(os, "RTLD_NOW", 2) | getattr(ctypes, "RTLD_LOCAL", 0))
        except OSError:
            return False

        def sym(name):
            try:
                return getattr(h, name)
            except AttributeError:
                return None

        init, shutdown, by_bus = sym("nvmlInit_v2"), sym("nvmlShutdown"), sym("nvmlDeviceGetHandleByPciBusId_v2")
        if init is None or by_bus is None:
            return False
        init.restype = ctypes.c_int
        if init() != 0:
            return False
        dev = ctypes.c_void_p()
        by_bus.restype = ctypes.c_int
        by_bus.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        if by_bus(pci_bus_id.encode(), ctypes.byref(dev)) != 0:
            if shutdown is not None:
                shutdown()
            return False
        self._lib, self._dev, self._shutdown = h, dev, shutdown
        self._clock = sym("nvmlDeviceGetClockInfo")
        self._reasons = sym("nvmlDeviceGetCurrentClocksEventReasons") or sym("nvmlDeviceGetCurrentClocksThrottleReasons")
        self._energy = sym("nvmlDeviceGetTotalEnergyConsumption")
        for f, args in ((self._clock, [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_uint)]),
                        (self._reasons, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulonglong)]),
                        (self._energy, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulonglong)])):
            if f is not None:
                f.restype = ctypes.c_int
                f.argtypes = args
        self._source = "nvml"
        return True

    def open_sysfs(self, pci_bus_id, sysfs_root="/sys"):
        self.close()
        bus = sysfs_bus_id(pci_bus_id)
        if not bus:
            return False
        hwmon = os.path.join(sysfs_root, "bus", "pci", "devices", bus, "hwmon")
        try:
            names = sorted(n for n in os.listdir(hwmon) if n.startswith("hwmon"))
        except OSError:
            names = []
        for n in names:
            d = os.path.join(hwmon, n)
            freq = os.access(os.path.join(d, "freq1_input"), os.R_OK)
            energy = os.access(os.path.join(d, "energy1_input"), os.R_OK)
            if not freq and not energy:
                continue
            self._freq_path = os.path.join(d, "freq1_input") if freq else ""
            self._energy_path = os.path.join(d, "energy1_input") if energy else ""
            self._source = "sysfs"
            return True
        return False

    def open(self, pci_bus_id):
        return self.open_nvml(pci_bus_id) or self.open_sysfs(pci_bus_id)

    def sample(self, with_energy=True):
        s = Sample()
        if self._source == "nvml":
            mhz = ctypes.c_uint(0)
            if self._clock is not None and self._clock(self._dev, 1, ctypes.byref(mhz)) == 0:  # NVML_CLOCK_SM
                s.sm_mhz = float(mhz.value)
            r = ctypes.c_ulonglong(0)
            if self._reasons is not None and self._reasons(self._dev, ctypes.byref(r)) == 0:
                s.reasons = int(r.value)
            mj = ctypes.c_ulonglong(0)
            if with_energy and self._energy is not None and self._energy(self._dev, ctypes.byref(mj)) == 0:
                s.energy_mj = float(mj.value)
        elif self._source == "sysfs":
            if self._freq_path:
                hz = _read_count_file(self._freq_path)
                if hz >= 0:
                    s.sm_mhz = hz / 1e6
            if with_energy and self._energy_path:
                uj = _read_count_file(self._energy_path)
                if uj >= 0:
                    s.energy_mj = uj / 1e3
        return s

    def source(self):
        return self._source

    def close(self):
        if self._lib is not None and getattr(self, "_shutdown", None) is not None:
            try:
                self._shutdown()
            except Exception:
                pass
        self._lib = self._dev = None
        self._clock = self._reasons = self._energy = None
        self._freq_path = self._energy_path = ""
        self._source = "none"
