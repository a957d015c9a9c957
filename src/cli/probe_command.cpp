// `swizzleperf probe`: placeholder until the topology probe lands.
#include "swizzleperf/cli/app.h"
#include "swizzleperf/cli/commands.h"

namespace swz::cli {

int cmd_probe(const std::vector<std::string>&) {
  return report_error("probe is not implemented in this version");
}

}  // namespace swz::cli
