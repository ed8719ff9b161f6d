// Whether this build runs under AddressSanitizer (GCC defines __SANITIZE_ADDRESS__, clang has
// __has_feature): its shadow memory makes address-space limits (RLIMIT_AS) meaningless.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define FL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FL_ASAN 1
#endif
#endif
#ifndef FL_ASAN
#define FL_ASAN 0
#endif
