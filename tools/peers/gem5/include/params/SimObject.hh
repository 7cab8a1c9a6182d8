// Stand-in for gem5's generated params/SimObject.hh (name only).
#pragma once
#include <string>
namespace gem5 {
struct SimObjectParams {
    std::string name = "harness";
    virtual ~SimObjectParams() = default;
};
}  // namespace gem5
