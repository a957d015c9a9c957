// The program a tuning point stands for: the kernel's own configuration (its declared
// tunables' values, tune/tune_space) and the whole program text of a candidate, its
// region spliced in and, for a point, its parameters written as its values.
#pragma once

#include "swizzleperf/core/candidate.h"
#include "swizzleperf/core/kernel_source.h"
#include "swizzleperf/core/valid_region.h"
#include "swizzleperf/util/result.h"

namespace swz {

// NAME -> the value the program declares, for each tunable it declares; empty when it
// declares none or its declarations do not parse (every define is then a tuning point's).
Defines own_configuration(const KernelSource& kernel);

// The kernel with `region` spliced in and each define's declared value replaced by the
// define's (with_tunable_values: C++ keeps its #ifndef guards, only the values change;
// Triton's module-level constants likewise). A C++ define the program does not declare
// as a tunable, or with a value its declaration does not list, goes first in the text as
// `#define NAME V` (what -DNAME=V did; the #ifndef guard then keeps it). No
// defines: the splice alone. What best.hip / best.py holds for a run's best attempt.
Result<std::string> program_with(const KernelSource& kernel, const ValidRegion& region, const Defines& defines);

}  // namespace swz
