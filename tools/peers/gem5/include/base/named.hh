// Stand-in for gem5's base/named.hh.
#pragma once
#include <string>
namespace gem5 {
class Named {
    const std::string _name;
  public:
    explicit Named(const std::string &name) : _name(name) {}
    virtual ~Named() = default;
    virtual std::string name() const { return _name; }
};
}  // namespace gem5
