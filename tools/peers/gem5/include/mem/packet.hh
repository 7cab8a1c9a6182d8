// Stand-in for gem5's mem/packet.hh.
#pragma once
namespace gem5 {
class Packet;
typedef Packet *PacketPtr;
}  // namespace gem5
