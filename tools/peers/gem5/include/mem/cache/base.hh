// Stand-in for gem5's mem/cache/base.hh.
#pragma once
#include "sim/probe/probe.hh"
namespace gem5 {
class BaseCache {
    ProbeManager pm;
  public:
    ProbeManager *getProbeManager() { return &pm; }
};
}  // namespace gem5
