# The tier of each test that its folder does not give (the tiers: tests/CMakeLists.txt), as
# gtest filter patterns: Suite.Name, Suite.* for a fixture whose set-up needs the tool, and
# Prefix/Suite.* for a parameterised one. Found by what each test starts (strace -f -e execve
# over the whole executable), and kept honest by the tier guard (tests/support/tier_guard.h):
# a unit-labelled test that asks for the real binary or a tool fails, naming this file.

# tests/unit, toolchain: host C++ builds made in-process (the mapping check's evaluator, the
# footprint program, the region validator's and the Python translation's compile checks),
# nvcc (the topology probe, the shipped GEMMs' tuning points), hipcc (those points for AMD),
# python3 (Triton launchers).
set(SWZ_UNIT_DIR_TOOLCHAIN
  BuiltinFamilyBijection.*
  BuiltinFamilyPython.*
  BuiltinFamilyOrder.ColumnFamiliesVisitTheIntendedTiles
  CheckMapping.*
  FamilyOrderBuiltIns/FamilyOrderRegion.*
  FootprintLoad.*
  KernelTunablesBuild.*
  PyRegionSemantics.Int32LikeTriton
  PyRegionTranslates.GeneratedRegionsValidateAndCompile
  RegionValidatorCompiles.*
  ProbeRunnerBuild.TopologyProbeCompilesWithoutWarnings
  PythonForkServerTest.*
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

# tests/e2e, toolchain: they run nvcc, hipcc or python3 where installed, whether the test
# starts it or the binary does (`check`'s info build), found by wrapping those three in logging
# stand-ins over a whole `ctest -L e2e` run; they skip or run less without them.
set(SWZ_E2E_DIR_TOOLCHAIN
  *KernelBuild.*
  AmdBuild.DeviceQueryCompilesForGfx940
  AmdBuild.EveryKernelAShippedFootprintNamesIsInTheCompilersReport
  AmdBuild.RegistersReadFromTheProgramMatchTheCompilersRemarks
  AmdBuild.XccProbeCompilesForGfx940AndAnswersWithOrWithoutAGpu
  CudaBuild.*
  */Byok.FinishedProgramBuildsForSm90/*
  */Byok.FinishedHipProgramBuildsForGfx940/*
  */Byok.FinishedProgramPassesStrictCheckWithTheInfoBuild/*
  ByokBadPort.ALaunchGridWithXAndYSwappedFailsWithTheRealNvcc
  ByokBadPort.DefaultGridThatDisagreesWithInfoFailsWithTheRealNvcc
  CheckE2E.*
  CheckManyE2E.*
  HarnessDefaults.*
  HarnessDefaultsHip.*
  InitE2e.ATritonFileBecomesAProgramThatFillsInFewLines
  LocalityE2E.EveryShippedProgramsOwnByteCountsAgreeWithItsFootprint
  NewcomerE2E.AGridBeyondA32BitPidIsRefusedNamingTheLimit
  NewcomerE2E.AHangingRegionIsStoppedAtCheckTimeout
  NewcomerE2E.ThirtyKilobytesOfWhitespaceInARegionIsScannedNotACrash
  TemplateTritonE2E.*
  TritonE2E.*)
