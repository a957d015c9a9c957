// A fake NVML (libnvidia-ml) for tests/unit/swz_telemetry_test.cpp: a shared library that
// exports the few NVML entry points kernels/support/swz_telemetry.h looks up with dlsym,
// with scripted answers. Not a tool: tests/CMakeLists.txt builds it as two shared
// libraries in <build>/tests/fakes/:
//   libfake_nvml.so         nvmlDeviceGetCurrentClocksEventReasons (0x4, SW power cap) and,
//                           to show the newer name wins, ...ThrottleReasons (0x40);
//                           nvmlDeviceGetTotalEnergyConsumption
//   libfake_nvml_legacy.so  (FAKE_NVML_LEGACY) a driver before 535: only
//                           ...ThrottleReasons (0x24) and no energy counter
// Both: nvmlInit_v2 and nvmlShutdown (counted), nvmlDeviceGetHandleByPciBusId_v2 (any id but
// one starting "ffff", which gets NVML_ERROR_NOT_FOUND), nvmlDeviceGetClockInfo (SM: 1755 MHz;
// other clock types: NVML_ERROR_NOT_SUPPORTED), and the energy counter grows by 1000 mJ a call
// from 5000000. fake_nvml_counts() lets a test check init/shutdown pairing. The values are a
// script, never a measurement.
#include <cstring>

namespace {
int g_inits = 0;
int g_shutdowns = 0;
unsigned long long g_energy_mj = 5000000;
int g_device_tag = 0;  // the opaque device handle points here
const int kSuccess = 0;
const int kErrorUninitialized = 1;
const int kErrorInvalidArgument = 2;
const int kErrorNotSupported = 3;
const int kErrorNotFound = 6;
const int kClockSm = 1;

bool live() { return g_inits > g_shutdowns; }
bool is_device(void* d) { return d == &g_device_tag; }
}  // namespace

extern "C" {

int nvmlInit_v2() {
  ++g_inits;
  return kSuccess;
}

int nvmlShutdown() {
  if (!live()) return kErrorUninitialized;
  ++g_shutdowns;
  return kSuccess;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (!live()) return kErrorUninitialized;
  if (!bus_id || !device) return kErrorInvalidArgument;
  if (std::strncmp(bus_id, "ffff", 4) == 0) return kErrorNotFound;
  *device = &g_device_tag;
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned* clock_mhz) {
  if (!live()) return kErrorUninitialized;
  if (!is_device(device) || !clock_mhz) return kErrorInvalidArgument;
  if (type != kClockSm) return kErrorNotSupported;
  *clock_mhz = 1755;
  return kSuccess;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* reasons) {
  if (!live()) return kErrorUninitialized;
  if (!is_device(device) || !reasons) return kErrorInvalidArgument;
#ifdef FAKE_NVML_LEGACY
  *reasons = 0x24;  // SW power cap | SW thermal slowdown
#else
  *reasons = 0x40;  // must not be read: the events name exists in this library
#endif
  return kSuccess;
}

#ifndef FAKE_NVML_LEGACY
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
  if (!live()) return kErrorUninitialized;
  if (!is_device(device) || !reasons) return kErrorInvalidArgument;
  *reasons = 0x4;  // SW power cap
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* energy_mj) {
  if (!live()) return kErrorUninitialized;
  if (!is_device(device) || !energy_mj) return kErrorInvalidArgument;
  *energy_mj = g_energy_mj;
  g_energy_mj += 1000;
  return kSuccess;
}
#endif

// Test hook (not NVML): how often init and shutdown were called.
void fake_nvml_counts(int* inits, int* shutdowns) {
  *inits = g_inits;
  *shutdowns = g_shutdowns;
}

}  // extern "C"
