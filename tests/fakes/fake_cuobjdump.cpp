// fake_cuobjdump: a test double for `cuobjdump --dump-resource-usage EXE` at the process
// seam. It prints a report of the shape the real tool prints (tests/fixtures/cuobjdump/) with
// one function per name in $SWZ_FAKE_CUOBJDUMP_KERNELS (comma-separated mangled names;
// default "_Z11gemm_kernelPKfS0_Pfiii11SwizzleGrid") at $SWZ_FAKE_CUOBJDUMP_REG registers
// (default 200), or at N for a name written NAME=N, plus a harness helper kernel at 16. EXE must exist; anything else is a usage
// error (exit 1), like the real tool's.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  struct stat st;
  if (argc != 3 || std::strcmp(argv[1], "--dump-resource-usage") != 0 || ::stat(argv[2], &st) != 0) {
    std::fprintf(stderr, "fake_cuobjdump: usage: fake_cuobjdump --dump-resource-usage EXE (an existing file)\n");
    return 1;
  }
  const char* reg = std::getenv("SWZ_FAKE_CUOBJDUMP_REG");
  const char* names = std::getenv("SWZ_FAKE_CUOBJDUMP_KERNELS");
  std::string list = names ? names : "_Z11gemm_kernelPKfS0_Pfiii11SwizzleGrid";
  std::printf("\nFatbin elf code:\n================\narch = sm_90\ncode version = [1,8]\nhost = linux\n"
              "compile_size = 64bit\n\nResource usage:\n Common:\n  GLOBAL:0\n");
  std::printf(" Function _Z17swz_flush_l2_kernelPjm:\n  REG:16 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:912 TEXTURE:0 "
              "SURFACE:0 SAMPLER:0\n");
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    if (end > pos) {
      std::string name = list.substr(pos, end - pos), count = reg ? reg : "200";
      if (const std::size_t eq = name.find('='); eq != std::string::npos) {
        count = name.substr(eq + 1);
        name.resize(eq);
      }
      std::printf(" Function %s:\n  REG:%s STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:944 TEXTURE:0 SURFACE:0 SAMPLER:0\n",
                  name.c_str(), count.c_str());
    }
    pos = end + 1;
  }
  return 0;
}
