// Stand-in for gem5's base/statistics.hh: statistics are accepted and discarded.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
namespace gem5 {
namespace statistics {
enum Flags : unsigned { none = 0, total = 1, nozero = 2, nonan = 4 };
struct Unit {};
namespace units {
struct Count { static Unit *get() { return nullptr; } };
struct Bit { static Unit *get() { return nullptr; } };
template <typename A, typename B> struct Rate { static Unit *get() { return nullptr; } };
}  // namespace units
class Stat {
  public:
    Stat() = default;
    template <typename... A> explicit Stat(A &&...) {}
    Stat &operator[](std::size_t) { return *this; }
    Stat &operator++() { return *this; }
    Stat &operator++(int) { return *this; }
    Stat &operator--() { return *this; }
    Stat &operator--(int) { return *this; }
    template <typename T> Stat &operator+=(const T &) { return *this; }
    template <typename T> Stat &operator=(const T &) { return *this; }
    template <typename... A> Stat &init(A...) { return *this; }
    template <typename... A> Stat &subname(A...) { return *this; }
    template <typename... A> Stat &subdesc(A...) { return *this; }
    template <typename... A> Stat &ysubname(A...) { return *this; }
    template <typename... A> Stat &flags(A...) { return *this; }
};
inline Stat operator/(const Stat &, const Stat &) { return Stat(); }
using Scalar = Stat;
using Vector = Stat;
using Vector2d = Stat;
using Formula = Stat;
class Group {
  public:
    Group() = default;
    explicit Group(Group *, const char * = nullptr) {}
    virtual ~Group() = default;
    virtual void regStats() {}
};
}  // namespace statistics
}  // namespace gem5
#define ADD_STAT(n, ...) n(__VA_ARGS__)
