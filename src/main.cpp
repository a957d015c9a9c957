// swizzleperf: thin main; everything lives in swizzleperf_core.
#include "swizzleperf/cli/app.h"

int main(int argc, char** argv) { return swz::cli::run_app(argc, argv); }
