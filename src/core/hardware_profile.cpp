// Hardware-profile assembly (see core/hardware_profile.h).
#include "swizzleperf/core/hardware_profile.h"

#include "swizzleperf/core/probe_record.h"

namespace swz {

Result<HardwareProfile> assemble_hardware_profile(const nlohmann::json& device_query,
                                                  const std::string& arch_override) {
  auto profile = profile_from_device_query(device_query);
  if (!profile) return profile;
  if (!arch_override.empty()) profile->arch = arch_override;
  if (auto probe = probe::load_cached_probe(*profile)) probe::apply_probe(*profile, *probe);
  return profile;
}

}  // namespace swz
