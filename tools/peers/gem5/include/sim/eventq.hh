// Stand-in for gem5's sim/eventq.hh: no simulated time; a scheduled event runs at once.
#pragma once
#include <functional>
#include <string>
#include "base/types.hh"
namespace gem5 {
inline Tick curTick() { return 0; }
class EventFunctionWrapper {
    std::function<void()> callback;
  public:
    EventFunctionWrapper(const std::function<void()> &cb, const std::string &, bool = false, int = 0)
        : callback(cb) {}
    void process() { callback(); }
};
class EventManager {
  public:
    void schedule(EventFunctionWrapper &event, Tick) { event.process(); }
};
}  // namespace gem5
