#pragma once

namespace ds {

/// True in AddressSanitizer builds (the asan and fuzz presets): GCC defines
/// __SANITIZE_ADDRESS__, clang answers __has_feature(address_sanitizer). The one place in
/// DumpScope that asks; code that needs to know includes this header.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

} // namespace ds
