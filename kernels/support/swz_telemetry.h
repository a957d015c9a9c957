// swizzleperf GPU telemetry: the SM clock, the clock-limit reasons and the energy counter of
// one GPU, read on the host between timed passes (swz_harness.h names each timing's power
// regime with them). Plain host C++ (C++14 and later, POSIX <dlfcn.h> and <dirent.h>),
// header-only, no HIP or CUDA include, so a unit test compiles it with g++ alone.
//
// Contract:
//   - Telemetry::open(pci_bus_id) tries NVML, then amdgpu's sysfs; source() then says which
//     one answers: "nvml", "sysfs" or "none". A failed open leaves "none" (never an error).
//   - sample() reads every field it can; a field that is not available, whose call fails or
//     whose file holds garbage stays -1. Nothing is ever estimated or invented.
//     sample(false) skips the energy counter (energy_mj -1): on an H100 (driver 580) one
//     nvmlDeviceGetTotalEnergyConsumption call took 4.2 ms, the clock 0.15 ms, the
//     reasons 0.07 ms, so a caller that needs no energy should not wait for it.
//   - Sample::sm_mhz is the current SM (NVIDIA) / SCLK (AMD) clock in MHz; Sample::reasons is
//     NVML's clocks-event (throttle) reason bit mask (0x4 = SW power cap, 0x20/0x40/0x80 =
//     thermal / HW slowdown; AMD: always -1); Sample::energy_mj is a counter of the energy
//     the board used, in millijoules since some fixed point (only differences mean
//     anything).
//   - NVML (NVIDIA) is loaded with dlopen at run time only: a program built with this header
//     has no build-time or load-time dependency on the driver's library, and runs where it
//     is missing. (On glibc < 2.34 dlopen lives in libdl: nvcc links it by default; a hipcc
//     build there needs -ldl.)
//   - sysfs (AMD amdgpu) reads <root>/bus/pci/devices/<bus id>/hwmon/hwmon*/freq1_input (SCLK,
//     Hz) and energy1_input (microjoules, where the driver has it). This path has never run
//     on an AMD GPU here: it is tested only against fixture trees shaped like amdgpu's
//     (tests/fixtures/telemetry/), so its file names and units follow the kernel's amdgpu
//     hwmon documentation, not an observation.
#ifndef SWZ_TELEMETRY_H
#define SWZ_TELEMETRY_H

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace swz_telemetry {

struct Sample {
  double sm_mhz = -1;      // current SM / SCLK clock, MHz; -1 = not available
  long long reasons = -1;  // NVML clocks-event reason mask; -1 = not available
  double energy_mj = -1;   // energy counter, mJ; -1 = not available
};

namespace detail {

// A whole non-negative decimal integer, optionally surrounded by white space (sysfs files end
// in '\n'): the value, or -1 for anything else (empty, signs, letters, overflow).
inline double parse_count(const char* s) {
  while (*s && std::isspace(static_cast<unsigned char>(*s))) ++s;
  if (!std::isdigit(static_cast<unsigned char>(*s))) return -1;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0) return -1;
  while (*end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end != '\0') return -1;
  return static_cast<double>(v);
}

// The first line of a small file parsed by parse_count; -1 when it cannot be read.
inline double read_count_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return -1;
  char buf[64];
  const bool got = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  return got ? parse_count(buf) : -1;
}

inline bool readable(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return false;
  std::fclose(f);
  return true;
}

// sysfs's spelling of a PCI address, "dddd:bb:dd.f" in lower case: a missing domain becomes
// "0000:", NVML's 8-digit domain ("00000000:C1:00.0") is cut to its last 4 digits.
// Empty for an empty id or one with a '/' (it must stay one path component).
inline std::string sysfs_bus_id(const char* pci_bus_id) {
  if (!pci_bus_id) return "";
  std::string id;
  for (const char* p = pci_bus_id; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (std::isspace(c)) continue;
    if (c == '/') return "";
    id += static_cast<char>(std::tolower(c));
  }
  if (id.empty()) return "";
  const size_t colons = static_cast<size_t>(std::count(id.begin(), id.end(), ':'));
  if (colons == 1) return "0000:" + id;
  const size_t first = id.find(':');
  if (colons == 2 && first > 4 && id.find_first_not_of('0') >= first - 4)
    return id.substr(first - 4);
  return id;
}

}  // namespace detail

class Telemetry {
 public:
  Telemetry() = default;
  ~Telemetry() { close(); }
  Telemetry(const Telemetry&) = delete;
  Telemetry& operator=(const Telemetry&) = delete;

  // NVML from `lib` (dlopen'ed now, RTLD_NOW | RTLD_LOCAL): true when nvmlInit_v2 and the
  // device handle for pci_bus_id succeed. Each reading's symbol is looked up here; one that
  // is missing only leaves its field at -1.
  bool open_nvml(const char* pci_bus_id, const char* lib = "libnvidia-ml.so.1") {
    close();
    if (!pci_bus_id || !*pci_bus_id || !lib || !*lib) return false;
    void* h = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    const InitFn init = reinterpret_cast<InitFn>(::dlsym(h, "nvmlInit_v2"));
    const ShutdownFn shutdown = reinterpret_cast<ShutdownFn>(::dlsym(h, "nvmlShutdown"));
    const HandleFn by_bus = reinterpret_cast<HandleFn>(::dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    if (!init || !by_bus || init() != kNvmlSuccess) {
      ::dlclose(h);
      return false;
    }
    NvmlDevice dev = nullptr;
    if (by_bus(pci_bus_id, &dev) != kNvmlSuccess) {
      if (shutdown) shutdown();
      ::dlclose(h);
      return false;
    }
    lib_ = h;
    device_ = dev;
    shutdown_ = shutdown;
    clock_ = reinterpret_cast<ClockFn>(::dlsym(h, "nvmlDeviceGetClockInfo"));
    reasons_ = reinterpret_cast<ReasonsFn>(::dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons_)  // drivers before 535 name it the throttle reasons
      reasons_ = reinterpret_cast<ReasonsFn>(::dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    energy_ = reinterpret_cast<EnergyFn>(::dlsym(h, "nvmlDeviceGetTotalEnergyConsumption"));
    source_ = kNvml;
    return true;
  }

  // amdgpu's hwmon files of the device under sysfs_root: true when one hwmon* directory of
  // the device has freq1_input or energy1_input (the first such, by name).
  bool open_sysfs(const char* pci_bus_id, const std::string& sysfs_root = "/sys") {
    close();
    const std::string id = detail::sysfs_bus_id(pci_bus_id);
    if (id.empty()) return false;
    const std::string hwmon = sysfs_root + "/bus/pci/devices/" + id + "/hwmon";
    std::vector<std::string> names;
    if (DIR* d = ::opendir(hwmon.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::strncmp(e->d_name, "hwmon", 5) == 0) names.push_back(e->d_name);
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      const std::string dir = hwmon + "/" + n + "/";
      const bool freq = detail::readable(dir + "freq1_input");
      const bool energy = detail::readable(dir + "energy1_input");
      if (!freq && !energy) continue;
      freq_path_ = freq ? dir + "freq1_input" : "";
      energy_path_ = energy ? dir + "energy1_input" : "";
      source_ = kSysfs;
      return true;
    }
    return false;
  }

  // NVML, else sysfs; false (source "none") when neither answers.
  bool open(const char* pci_bus_id) { return open_nvml(pci_bus_id) || open_sysfs(pci_bus_id); }

  Sample sample(bool with_energy = true) const {
    Sample s;
    if (source_ == kNvml) {
      unsigned mhz = 0;
      if (clock_ && clock_(device_, kNvmlClockSm, &mhz) == kNvmlSuccess) s.sm_mhz = mhz;
      unsigned long long r = 0;
      if (reasons_ && reasons_(device_, &r) == kNvmlSuccess) s.reasons = static_cast<long long>(r);
      unsigned long long mj = 0;
      if (with_energy && energy_ && energy_(device_, &mj) == kNvmlSuccess) s.energy_mj = static_cast<double>(mj);
    } else if (source_ == kSysfs) {
      if (!freq_path_.empty()) {
        const double hz = detail::read_count_file(freq_path_);
        if (hz >= 0) s.sm_mhz = hz / 1e6;
      }
      if (with_energy && !energy_path_.empty()) {
        const double uj = detail::read_count_file(energy_path_);
        if (uj >= 0) s.energy_mj = uj / 1e3;
      }
    }
    return s;
  }

  const char* source() const {
    return source_ == kNvml ? "nvml" : source_ == kSysfs ? "sysfs" : "none";
  }

  // Back to "none". nvmlShutdown only after a successful init (NVML counts inits).
  void close() {
    if (lib_) {
      if (shutdown_) shutdown_();
      ::dlclose(lib_);
    }
    lib_ = nullptr;
    device_ = nullptr;
    shutdown_ = nullptr;
    clock_ = nullptr;
    reasons_ = nullptr;
    energy_ = nullptr;
    freq_path_.clear();
    energy_path_.clear();
    source_ = kNone;
  }

 private:
  // The few NVML declarations used (nvml.h is not needed to build): nvmlReturn_t is an int
  // enum with 0 = NVML_SUCCESS, nvmlDevice_t an opaque pointer, NVML_CLOCK_SM = 1.
  typedef void* NvmlDevice;
  typedef int (*InitFn)();
  typedef int (*ShutdownFn)();
  typedef int (*HandleFn)(const char*, NvmlDevice*);
  typedef int (*ClockFn)(NvmlDevice, int, unsigned*);
  typedef int (*ReasonsFn)(NvmlDevice, unsigned long long*);
  typedef int (*EnergyFn)(NvmlDevice, unsigned long long*);
  enum { kNvmlSuccess = 0, kNvmlClockSm = 1 };

  enum Source { kNone, kNvml, kSysfs };
  Source source_ = kNone;
  void* lib_ = nullptr;
  NvmlDevice device_ = nullptr;
  ShutdownFn shutdown_ = nullptr;
  ClockFn clock_ = nullptr;
  ReasonsFn reasons_ = nullptr;
  EnergyFn energy_ = nullptr;
  std::string freq_path_;
  std::string energy_path_;
};

}  // namespace swz_telemetry

#endif  // SWZ_TELEMETRY_H
