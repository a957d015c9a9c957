# The tier of each test that its folder does not give (the tiers: tests/CMakeLists.txt), as
# gtest filter patterns: Suite.Name, Suite.* for a fixture whose set-up needs the tool, and
# Prefix/Suite.* for a parameterised one. Found by what each test starts (strace -f -e execve
# over the whole executable), and kept honest by the tier guard (tests/support/tier_guard.h):
# a unit-labelled test that asks for the real binary or a tool fails, naming this file.

# tests/unit, toolchain: host C++ builds made in-process (the mapping check's evaluator, the
# footprint program, the region validator's and the Python translation's compile checks),
# nvcc (the topology probe), python3 (Triton launchers).
set(SWZ_UNIT_DIR_TOOLCHAIN
  BuiltinFamilyBijection.*
  BuiltinFamilyPython.*
  BuiltinFamilyOrder.ColumnFamiliesVisitTheIntendedTiles
  CheckMapping.*
  FamilyOrderBuiltIns/FamilyOrderRegion.*
  FootprintLoad.*
  PyRegionSemantics.Int32LikeTriton
  PyRegionTranslates.GeneratedRegionsValidateAndCompile
  RegionValidatorCompiles.*
  ProbeRunnerBuild.TopologyProbeCompilesWithoutWarnings
  TritonBuild.*
  TritonLauncher.*)

# tests/unit, e2e: they run the real binary or the fake toolchain's programs (fake_nvcc builds
# with the host compiler) rather than a double in-process.
set(SWZ_UNIT_DIR_E2E
  FakesTest.*
  FakeLlmServer.*
  OutputCheckStage.*
  DefaultArch.TheModelLineSaysTheChoiceAndWhyOnlyWhenChosen
  ProbeRunnerCli.*)

# tests/e2e, toolchain: nvcc or hipcc builds, python3 (the fake Triton programs).
set(SWZ_E2E_DIR_TOOLCHAIN)
