// swizzleperf kernel support: fp16 inputs for the tensor-core programs (kernels/tc/).
// Include after swz_harness.h. Host-only, compiler-independent (no __half, no _Float16 on
// the host): IEEE binary16 values are carried as their 16-bit patterns (uint16_t), so the
// same seed gives the same bits under nvcc and hipcc.
//   swz_f32_to_f16(f)   round-to-nearest-even conversion, overflow -> inf, subnormals kept
//   swz_f16_to_f32(h)   exact widening
//   swz_random_f16(count, rng, lo, hi, &values)
//                       uniform fp16 patterns in [lo, hi) (swz_random_f32 rounded to fp16);
//                       `values` receives the exact fp16 values as float, for the reference
#ifndef SWZ_FP16_H
#define SWZ_FP16_H

#include <cstdint>
#include <cstring>
#include <vector>

inline uint16_t swz_f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u)  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7C00u | (absx > 0x7F800000u ? 0x200u : 0u));
  if (absx >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (absx < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    if (absx < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the least subnormal
    const uint32_t mant = (absx & 0x007FFFFFu) | 0x00800000u;
    const int shift = 126 - static_cast<int>(absx >> 23);
    // value = mant * 2^(e-150); half subnormal unit = 2^-24 -> q = mant >> (126 - e)
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t h = ((absx >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  const uint32_t rem = absx & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: right
  return static_cast<uint16_t>(sign | h);
}

inline float swz_f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  uint32_t x;
  if (e == 0x1F) {
    x = sign | 0x7F800000u | (m << 13);
  } else if (e != 0) {
    x = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else {  // subnormal: m * 2^-24
    float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    std::memcpy(&x, &v, 4);
    x |= sign;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Uniform fp16 inputs: swz_random_f32's values rounded to fp16 (same rng stream use).
inline std::vector<uint16_t> swz_random_f16(size_t count, SwzRng& rng, float lo, float hi,
                                            std::vector<float>* values) {
  const std::vector<float> f = swz_random_f32(count, rng, lo, hi);
  std::vector<uint16_t> h(count);
  if (values) values->resize(count);
  for (size_t i = 0; i < count; ++i) {
    h[i] = swz_f32_to_f16(f[i]);
    if (values) (*values)[i] = swz_f16_to_f32(h[i]);
  }
  return h;
}

#endif  // SWZ_FP16_H
