// Stand-in for gem5's sim/probe/probe.hh.
#pragma once
#include <string>
namespace gem5 {
class ProbeManager {};
template <typename Arg>
class ProbeListenerArgBase {
  public:
    ProbeListenerArgBase(ProbeManager *, const std::string &) {}
    virtual ~ProbeListenerArgBase() = default;
    virtual void notify(const Arg &) = 0;
};
}  // namespace gem5
