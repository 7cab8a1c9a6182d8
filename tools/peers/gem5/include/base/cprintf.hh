// Stand-in for gem5's base/cprintf.hh: only used by print() helpers.
#pragma once
#include <string>
namespace gem5 {
template <typename... Args>
std::string csprintf(const char *fmt, const Args &...) { return std::string(fmt); }
}  // namespace gem5
