// Stand-in for gem5's base/trace.hh: debug printing is off.
#pragma once
#include "base/cprintf.hh"
#define DPRINTF(...) do { } while (0)
