// Time limits for timed assertions. A limit is set for a Release build on this machine class
// on an ordinary day, with its own margin over the time measured; two things make the same
// code slower without a bug, and every limit here allows for both:
//   - a slow day: these machines' speed varies about twofold from day to day (the README's
//     timings of the tests command), and CI's two cores are shared;
//   - a sanitizer build (.ci/sanitize: ASan + UBSan, -O1), which runs our own code several
//     times slower (ASan checks every access, UBSan every arithmetic step), but not the
//     compilers, shells and fakes a test waits on.
// What the limits catch, an accidental quadratic or backtracking pass over a megabyte, or a
// timeout that does not kill, takes hours or the whole of what it waits on, not a constant
// factor more, so the scaled limits still catch it; each call says what its limit tells apart.
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

// A slow day's factor (above).
inline constexpr double kSlowDay = 2.0;

// How many times slower a sanitizer build runs our own code. Measured here, sanitized against
// Release: 1 MB footprint lines 1.06 s / 0.37 s, the 100,000-tile simulation 1.9 s / 0.6 s, the
// megabyte name patterns 1.3 s / 0.17 s; CI's sanitizer pass took 1.94 s on the footprint lines.
inline constexpr double kSanitizerSlowdown = 10.0;

// How many times longer a sanitizer build makes a wait on other programs (a compiler, a shell
// script, a fake, a timeout's kill): only our share slows, starting and reaping the children
// and reading their pipes, and a sanitized binary's start and leak check (~0.5 s each).
inline constexpr double kSanitizerWaitSlowdown = 3.0;

// The limit, in seconds, for work done by our own code in-process that a Release build on an
// ordinary day finishes within `release_seconds`.
constexpr double time_limit(double release_seconds) {
  return release_seconds * kSlowDay * (kSanitizedBuild ? kSanitizerSlowdown : 1.0);
}

// The limit, in seconds, for a wait on other programs (a timeout and its kill included) that
// a Release build on an ordinary day ends within `release_seconds`.
constexpr double wait_limit(double release_seconds) {
  return release_seconds * kSlowDay * (kSanitizedBuild ? kSanitizerWaitSlowdown : 1.0);
}

}  // namespace swz::test
