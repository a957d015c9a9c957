// Time limits for tests that prove a parser or a simulator does not blow up on huge input.
// Such a limit is set for a Release build on one core; a sanitizer build runs the same code
// several times slower (ASan checks every access, UBSan every arithmetic step), and CI's
// shared cores slow it further, so a limit that is honest in Release fails there without a
// bug. time_limit() scales a Release limit for the build it is compiled into. What these tests
// catch, an accidental quadratic or backtracking pass over a megabyte, takes hours, not a
// constant factor more, so the scaled limit still catches it.
#pragma once

namespace swz::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// How many times a Release limit a sanitizer build (.ci/sanitize: -O1) is given. Measured
// here, sanitized against Release: 1 MB footprint lines 1.06 s / 0.37 s, the 100,000-tile
// simulation 1.9 s / 0.6 s, the megabyte name patterns 1.3 s / 0.17 s; CI's sanitizer pass
// took 1.94 s on the footprint lines.
inline constexpr double kSanitizerSlowdown = 10.0;

// The limit, in seconds, for a check that takes under `release_seconds` in Release.
constexpr double time_limit(double release_seconds) {
  return kSanitizedBuild ? release_seconds * kSanitizerSlowdown : release_seconds;
}

}  // namespace swz::test
