// Stand-in for gem5's base/compiler.hh: nothing the compressors use needs more.
#pragma once
