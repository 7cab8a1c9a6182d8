// Stand-in for gem5's sim/sim_object.hh.
#pragma once
#include <cmath>
#include <climits>
#include <cstring>
#include <set>
#include <string>

// gem5 reaches these through its real sim_object.hh
#include "base/bitfield.hh"
#include "base/trace.hh"
#include "base/named.hh"
#include "base/statistics.hh"
#include "params/SimObject.hh"
#include "sim/eventq.hh"
namespace gem5 {
class SimObject : public EventManager, public statistics::Group, public Named {
  public:
    typedef SimObjectParams Params;
    explicit SimObject(const Params &p) : Named(p.name) {}
    virtual ~SimObject() = default;
    virtual void regProbeListeners() {}
};
}  // namespace gem5
