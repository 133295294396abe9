/* SPDX-License-Identifier: Apache-2.0 */
/* test_scale.h: how many rounds a randomised or repeated unit test runs (not a test itself:
 * the build registers only *_test.c). Under AddressSanitizer every round costs several times
 * what it costs in the release build, and the suite runs in both: TS_ROUNDS(n) is n in the
 * release build and a third of it (at least 1) under a sanitizer, which still meets every
 * shape the generators make, while the release build keeps the full count. */
#ifndef LR_TEST_SCALE_H
#define LR_TEST_SCALE_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_SANITIZED 1
#endif
#endif

#ifdef TS_SANITIZED
#define TS_DIVISOR 3
#else
#define TS_DIVISOR 1
#endif
#define TS_ROUNDS(n) ((n) / TS_DIVISOR > 0 ? (n) / TS_DIVISOR : 1)

#endif
